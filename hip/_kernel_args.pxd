from hip._pointer cimport Pointer

# How a Python int given without a C type is packed: the one way the packer's callers differ.
cdef enum:
    INT_ADDRESS = 0     # hip (HIP Python): an address (kernelParams: where the value is; extra=: a pointer)
    INT_CTYPES = 1      # the cuda alias (cuda.bindings): refused; a value comes with its ctypes type
    INT_INT64 = 2       # hip.tensor (CuPy's RawKernel): an int64 value

cdef class KernelArgs(Pointer):
    cdef void** params      # argument i's address: into `values`, or into an object kept below
    cdef char* values       # the values, each aligned as C aligns it, in one buffer
    cdef size_t _size       # bytes of `values` used (extra='s HIP_LAUNCH_PARAM_BUFFER_SIZE)
    cdef void* extra[5]
    cdef list keep          # objects whose storage `params` points into
    cdef tuple given        # the ((values), ...) tuple given: it keeps each value alive, without a list

cdef object kernel_params(object o, int rule)
cdef void* kernel_extra(object o, list keep) except? NULL
cdef Py_ssize_t pack_values(tuple args, int rule, char* values, Py_ssize_t cap, void** params) except -1
ctypedef object (*attr_getter)(object)
cdef int fast_pointer_type(type t, str attr, attr_getter getter=*) except -1
cdef int dim3_slow(object d, unsigned int* out, str what) except -1


cdef inline int dim3(object d, unsigned int* out, str what) except -1:
    """A launch's grid or block (`what`) into out[0..2]: an int or a tuple of 1 to 3 ints, each in
    [1, 2**32); other forms go to dim3_slow, which takes sequences and NumPy ints and raises for
    bad ones. Inline, ints compared as Python ints (Cython's compact-int paths): every hip.tensor
    launch converts two."""
    cdef Py_ssize_t k, n
    out[0] = out[1] = out[2] = 1
    if type(d) is int:
        if 1 <= d <= 0xFFFFFFFF:
            out[0] = <unsigned int>d
            return 0
    elif type(d) is tuple and 1 <= len(<tuple>d) <= 3:
        n = len(<tuple>d)
        for k in range(n):
            x = (<tuple>d)[k]
            if type(x) is not int or not 1 <= x <= 0xFFFFFFFF:
                break
            out[k] = <unsigned int>x
        else:
            return 0
    return dim3_slow(d, out, what)
