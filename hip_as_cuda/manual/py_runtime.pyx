# Hand-written part of the Python module cuda.bindings.runtime (codegen.alias appends it to the
# generated runtime.pyx; its stubs are py_runtime.pyi): cuda.bindings' helpers that are no CUDA
# library function.

def make_cudaPitchedPtr(d, size_t p, size_t xsz, size_t ysz):
    """make_cudaPitchedPtr(d, p, xsz, ysz)
    A cudaPitchedPtr of `d` (a pointer: an int, a buffer, a pointer object), pitch `p` bytes, width
    `xsz` and height `ysz` (driver_functions.h's inline helper; as cuda.bindings', it returns the
    struct itself, not a status tuple)."""
    return cudaPitchedPtr(ptr=d, pitch=p, xsize=xsz, ysize=ysz)


def make_cudaPos(size_t x, size_t y, size_t z):
    """make_cudaPos(x, y, z)
    A cudaPos (driver_functions.h's inline helper; the struct itself, as cuda.bindings')."""
    return cudaPos(x=x, y=y, z=z)


def make_cudaExtent(size_t w, size_t h, size_t d):
    """make_cudaExtent(w, h, d)
    A cudaExtent of width `w`, height `h`, depth `d` (driver_functions.h's inline helper; the
    struct itself, as cuda.bindings')."""
    return cudaExtent(width=w, height=h, depth=d)


def getLocalRuntimeVersion():
    """getLocalRuntimeVersion()
    cuda.bindings' version of the runtime library it loaded; here the runtime is HIP's, so this
    is cudaRuntimeGetVersion's answer (HIP's runtime version)."""
    return cudaRuntimeGetVersion()


def sizeof(objType):
    """sizeof(objType)
    The size in bytes of the C type of a class of this module: a struct's, a handle's (a pointer)
    or an integer typedef's; any other is a TypeError (as cuda.bindings')."""
    return _struct.c_sizeof(objType, _value_sizes)



cdef class cudaBindingsRuntimeGlobal:
    """cuda.bindings' holder of the module's global state (a class with no public attribute there):
    present so that code naming it imports; the alias keeps its state in the cy module."""
