# Hand-written part of the Python module cuda.bindings.driver (codegen.alias appends it to the
# generated driver.pyx; its stubs are py_driver.pyi): cuda.bindings' helpers that are no CUDA
# library function.

def sizeof(objType):
    """sizeof(objType)
    The size in bytes of the C type of a class of this module: a struct's, a handle's (a pointer)
    or an integer typedef's; any other is a TypeError (as cuda.bindings')."""
    return _struct.c_sizeof(objType, _value_sizes)



cdef class cudaBindingsDriverGlobal:
    """cuda.bindings' holder of the module's global state (a class with no public attribute there):
    present so that code naming it imports; the alias keeps its state in the cy module."""
