"""hip.tensor's bottom floor: the runtime substrate and the array object.

launch (the C hot path: argument packing, hipModuleLaunchKernel, hipGetDevice), dtypes, shapes,
device (Device, Stream, Event), memory (the caching allocator), interop (DLPack and
__cuda_array_interface__), array (ndarray). Nothing here imports from the floors above.
"""
