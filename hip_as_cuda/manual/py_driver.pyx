# Hand-written part of the Python module cuda.bindings.driver (codegen.alias appends it to the
# generated driver.pyx; its stubs are py_driver.pyi): cuda.bindings' helpers that are no CUDA
# library function.

include "manual/_py_common.pxi"


cdef class cudaBindingsDriverGlobal:
    """cuda.bindings' holder of the module's global state (a class with no public attribute there):
    present so that code naming it imports; the alias keeps its state in the cy module."""
