# cython: language_level=3
"""The fields of hip.tensor's ndarray as a C struct (`ArrayBase`, its base class; array.py holds the
class itself) and `empty`, ndarray._empty: a fresh C-contiguous array made without Python code on
the per-op path (memory from `_memory.alloc`)."""
cimport cython
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from ._memory cimport MemoryPointer, alloc
from .launch cimport current_stream

cdef Py_ssize_t LIMIT = (<Py_ssize_t>1) << 56     # larger shapes and byte counts: shapes.py's Python ints

cdef object _slow_stream = None     # _core.device.current_stream
cdef object _c_layout = None        # _core.shapes.c_layout


def bind(current_stream, c_layout):
    """The Python functions `empty` calls in the cases it does not take itself."""
    global _slow_stream, _c_layout
    _slow_stream, _c_layout = current_stream, c_layout


@cython.auto_pickle(False)
cdef class ArrayBase:
    """ndarray's fields: `_shape`, `_strides` (bytes), `_dtype`, `_data` (the owner of the memory),
    `_ptr` (the first element's address), `_device_id`, `_base` (the array a view is of),
    `_readonly`."""


cdef ArrayBase new_array(type cls, tuple shape, tuple strides, object dtype, MemoryPointer mem):
    cdef ArrayBase a = ArrayBase.__new__(cls)
    a._shape, a._strides, a._dtype = shape, strides, dtype
    a._data, a._ptr, a._device_id, a._base, a._readonly = mem, mem.ptr, mem.device_id, None, False
    return a


cdef tuple c_strides(tuple shape, Py_ssize_t itemsize, Py_ssize_t* count):
    """C-order strides of `shape` (ints) and its element count in `count`; None where a dimension
    is not a small non-negative int or the byte count would overflow (the caller asks shapes.py)."""
    cdef Py_ssize_t k, n = len(shape), d, s = itemsize, total = 1
    cdef tuple out = PyTuple_New(n)
    for k in range(n - 1, -1, -1):
        x = shape[k]
        if type(x) is not int or not 0 <= x < LIMIT:
            return None
        d = x
        v = s
        Py_INCREF(v)
        PyTuple_SET_ITEM(out, k, v)
        if d > 1 and (total > LIMIT // d or s > LIMIT // d):
            return None
        total *= d
        if d > 1:
            s *= d
    count[0] = total
    return out


def empty(cls, shape, dtype, device_id=None, stream=None):
    """A fresh C-contiguous array of `dtype` on `device_id` (the current device by default), its
    memory for `stream` (the device's current stream by default): ndarray._empty."""
    cdef Py_ssize_t n = 0
    cdef tuple strides
    if type(shape) is not tuple:
        shape = tuple(shape)
    itemsize = dtype.itemsize
    strides = c_strides(<tuple>shape, itemsize, &n) if type(itemsize) is int and 0 < itemsize <= 64 else None
    if strides is not None:
        nbytes = n * <Py_ssize_t>itemsize
    else:
        strides, count = _c_layout(shape, itemsize)
        nbytes = count * itemsize
    if stream is None:
        stream = current_stream(device_id) if type(device_id) is int else _slow_stream(device_id)
    return new_array(<type>cls, <tuple>shape, strides, dtype, alloc(None, nbytes, stream))
