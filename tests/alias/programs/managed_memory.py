"""Managed (unified) memory.

cudaMallocManaged written by the host through NumPy, changed by a kernel, read back by the host;
cudaMemAdvise and cudaMemPrefetchAsync with the cudaMemLocation of CUDA 13 (device and host),
cudaMemRangeGetAttribute, cudaPointerGetAttributes; the driver's cuMemAllocManaged,
cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_IS_MANAGED), cuMemAdvise and cuMemPrefetchAsync with a
CUmemLocation.
"""
import ctypes

import numpy as np

from cuda.bindings import driver, nvrtc, runtime


def check(result):
    err = result[0]
    if isinstance(err, runtime.cudaError_t) and err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error {err.name}")
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err.name}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC error {err.name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
extern "C" __global__ void triple_plus(int *x, int n, int c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 3 * x[i] + c;
}
"""


def managed_array(address, count):
    buf = (ctypes.c_int32 * count).from_address(int(address))
    return np.frombuffer(buf, dtype=np.int32)


def main():
    check(driver.cuInit(0))
    device = 0
    check(runtime.cudaSetDevice(device))
    prop = check(runtime.cudaGetDeviceProperties(device))
    print("managedMemory:", prop.managedMemory, "concurrentManagedAccess:", prop.concurrentManagedAccess)
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"managed.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{prop.major}{prop.minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    triple_plus = check(driver.cuModuleGetFunction(module, b"triple_plus"))

    n = 1 << 20
    nbytes = n * 4
    threads, blocks = 256, (1 << 20) // 256
    stream = check(runtime.cudaStreamCreate())

    ptr = check(runtime.cudaMallocManaged(nbytes, runtime.cudaMemAttachGlobal))
    x = managed_array(ptr, n)
    x[:] = np.arange(n, dtype=np.int32)
    check(driver.cuLaunchKernel(triple_plus, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((ptr, n, 1), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    check(runtime.cudaDeviceSynchronize())
    print("host writes, kernel computes, host reads:", np.array_equal(x, 3 * np.arange(n, dtype=np.int32) + 1))
    print("cudaPointerGetAttributes:", check(runtime.cudaPointerGetAttributes(ptr)).type.name)

    on_device = runtime.cudaMemLocation()
    on_device.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice
    on_device.id = device
    on_host = runtime.cudaMemLocation()
    on_host.type = runtime.cudaMemLocationType.cudaMemLocationTypeHost
    on_host.id = 0
    check(runtime.cudaMemAdvise(ptr, nbytes, runtime.cudaMemoryAdvise.cudaMemAdviseSetPreferredLocation, on_device))
    check(runtime.cudaMemAdvise(ptr, nbytes, runtime.cudaMemoryAdvise.cudaMemAdviseSetAccessedBy, on_device))
    preferred = check(runtime.cudaMemRangeGetAttribute(
        4, runtime.cudaMemRangeAttribute.cudaMemRangeAttributePreferredLocation, ptr, nbytes))
    print("preferred location is device", preferred)
    check(runtime.cudaMemAdvise(ptr, nbytes, runtime.cudaMemoryAdvise.cudaMemAdviseSetReadMostly, on_device))
    read_mostly = check(runtime.cudaMemRangeGetAttribute(
        4, runtime.cudaMemRangeAttribute.cudaMemRangeAttributeReadMostly, ptr, nbytes))
    print("read mostly:", read_mostly)
    check(runtime.cudaMemAdvise(ptr, nbytes, runtime.cudaMemoryAdvise.cudaMemAdviseUnsetReadMostly, on_device))

    check(runtime.cudaMemPrefetchAsync(ptr, nbytes, on_device, 0, stream))
    check(driver.cuLaunchKernel(triple_plus, blocks, 1, 1, threads, 1, 1, 0, stream,
                                ((ptr, n, -2), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    check(runtime.cudaMemPrefetchAsync(ptr, nbytes, on_host, 0, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("after prefetch to the device, a kernel, prefetch to the host:",
          np.array_equal(x, 9 * np.arange(n, dtype=np.int32) + 1))
    last = check(runtime.cudaMemRangeGetAttribute(
        4, runtime.cudaMemRangeAttribute.cudaMemRangeAttributeLastPrefetchLocation, ptr, nbytes))
    print("last prefetched to the host (cudaCpuDeviceId):", last == runtime.cudaCpuDeviceId)
    check(runtime.cudaFree(ptr))

    # the driver's managed memory
    dptr = check(driver.cuMemAllocManaged(nbytes, driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    is_managed = check(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, dptr))
    print("CU_POINTER_ATTRIBUTE_IS_MANAGED:", is_managed)
    y = managed_array(dptr, n)
    y[:] = 5
    location = driver.CUmemLocation()
    location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    location.id = device
    check(driver.cuMemAdvise(dptr, nbytes, driver.CUmem_advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION, location))
    cu_stream = check(driver.cuStreamCreate(0))
    check(driver.cuMemPrefetchAsync(dptr, nbytes, location, 0, cu_stream))
    check(driver.cuLaunchKernel(triple_plus, blocks, 1, 1, threads, 1, 1, 0, cu_stream,
                                ((dptr, n, 0), (None, ctypes.c_int, ctypes.c_int)), 0))
    check(driver.cuStreamSynchronize(cu_stream))
    print("cuMemAllocManaged through a kernel:", bool((y == 15).all()))
    check(driver.cuMemFree(dptr))
    check(driver.cuStreamDestroy(cu_stream))

    check(runtime.cudaStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    print("done")


if __name__ == "__main__":
    main()
