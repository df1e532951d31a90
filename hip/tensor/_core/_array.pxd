from ._memory cimport MemoryPointer


cdef class DTypeBase:
    cdef public object name, kind, numpy, ctype, _rank
    cdef public Py_ssize_t itemsize


cdef class ArrayBase:
    cdef public object _shape, _strides, _dtype, _data, _ptr, _device_id, _base, _readonly
    cdef object __weakref__


cdef ArrayBase new_array(type cls, tuple shape, tuple strides, object dtype, MemoryPointer mem)
cdef tuple c_strides(tuple shape, Py_ssize_t itemsize, Py_ssize_t* count)
cdef bint is_c_strides_1d(tuple strides, Py_ssize_t itemsize) noexcept
