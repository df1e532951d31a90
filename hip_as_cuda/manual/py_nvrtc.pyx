# Hand-written part of the Python module cuda.bindings.nvrtc (codegen.alias appends it to the
# generated nvrtc.pyx; its stubs are py_nvrtc.pyi): cuda.bindings' helpers that are no NVRTC
# library function.

def sizeof(objType):
    """sizeof(objType)
    The size in bytes of the C type of a class of this module (nvrtcProgram: a pointer); any
    other is a TypeError (as cuda.bindings')."""
    return _struct.c_sizeof(objType, {})
