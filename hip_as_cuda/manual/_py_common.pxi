# What the hand-written ends of the Python modules driver.pyx and runtime.pyx (py_driver.pyx,
# py_runtime.pyx) share; both include it.

def sizeof(objType):
    """sizeof(objType)
    The size in bytes of the C type of a class of this module: a struct's, a handle's (a pointer)
    or an integer typedef's; any other is a TypeError (as cuda.bindings')."""
    return _struct.c_sizeof(objType, _value_sizes)
