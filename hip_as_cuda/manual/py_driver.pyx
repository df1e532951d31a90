# Hand-written part of the Python module cuda.bindings.driver (codegen.alias appends it to the
# generated driver.pyx; its stubs are py_driver.pyi): cuda.bindings' helpers that are no CUDA
# library function.

_VALUE_SIZES = {CUdeviceptr: sizeof(_cl.CUdeviceptr), CUdevice: sizeof(_cl.CUdevice),
                cuuint32_t: sizeof(_cl.cuuint32_t), cuuint64_t: sizeof(_cl.cuuint64_t),
                CUtexObject: sizeof(_cl.CUtexObject), CUsurfObject: sizeof(_cl.CUsurfObject),
                CUmemGenericAllocationHandle: sizeof(_cl.CUmemGenericAllocationHandle),
                CUgraphConditionalHandle: sizeof(_cl.CUgraphConditionalHandle),
                CUlogIterator: sizeof(_cl.CUlogIterator)}


def sizeof(objType):
    """sizeof(objType)
    The size in bytes of the C type of a class of this module: a struct's, a handle's (a pointer)
    or an integer typedef's; any other is a TypeError (as cuda.bindings')."""
    return _helper_sizeof(objType, _VALUE_SIZES)


def _helper_sizeof(objType, dict values):
    if isinstance(objType, type):
        if objType in values:
            return values[objType]
        if issubclass(objType, _struct.Struct) and isinstance(getattr(objType, "_size_", None), int):
            return objType._size_
        if issubclass(objType, Handle):
            return sizeof(void*)
    raise TypeError("Unknown type: " + str(objType))
