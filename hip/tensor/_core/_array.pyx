# cython: language_level=3, embedsignature.format=clinic
"""The fields of hip.tensor's ndarray and DType as C structs (`ArrayBase` and `DTypeBase`, their
base classes; array.py and dtypes.py hold the classes themselves) and `empty`, ndarray._empty: a
fresh C-contiguous array made without Python code on the per-op path (memory from
`_memory.alloc`)."""
cimport cython
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from hip._kernel_args cimport fast_pointer_type

from ._memory cimport MemoryPointer, alloc
from .launch cimport current_stream

cdef Py_ssize_t LIMIT = (<Py_ssize_t>1) << 56     # larger shapes and byte counts: shapes.py's Python ints

cdef object _slow_stream = None     # _core.device.current_stream
cdef object _binop = None           # array.ops.binop(name, a, b): the binary operators' function
cdef object _c_layout = None        # _core.shapes.c_layout


cdef object _ptr_of(object a):
    return (<ArrayBase>a)._ptr


def set_binop(binop):
    """The function ArrayBase's binary operators call: binop(name, a, b) (array.py's `ops.binop`)."""
    global _binop
    _binop = binop


def bind(type ndarray, current_stream, c_layout):
    """The array class (the launch packer reads its `_ptr` in C: hip._kernel_args'
    fast_pointer_type) and the Python functions `empty` calls in the cases it does not take."""
    global _slow_stream, _c_layout
    if not issubclass(ndarray, ArrayBase):
        raise TypeError(f"{ndarray.__name__} is not an ArrayBase")
    fast_pointer_type(ndarray, "_ptr", _ptr_of)
    _slow_stream, _c_layout = current_stream, c_layout


@cython.auto_pickle(False)
cdef class DTypeBase:
    """DType's fields: `name`, `itemsize` (bytes), `kind`, `numpy` (the host dtype), `ctype` (the C++
    type in kernels), `_rank` (order inside its kind)."""


@cython.auto_pickle(False)
cdef class ArrayBase:
    """ndarray's fields: `_shape`, `_strides` (bytes), `_dtype`, `_data` (the owner of the memory),
    `_ptr` (the first element's address), `_device_id`, `_base` (the array a view is of),
    `_readonly`. Its binary operators but ** (`x + y`, `x < y`, ...) call ndarray's `ops.binop`
    (`set_binop`) without a Python frame; the in-place ones and ** are ndarray's."""

    def __add__(self, o):
        """self + o (element-wise)"""
        return _binop("add", self, o)

    def __radd__(self, o):
        """o + self (element-wise)"""
        return _binop("add", o, self)

    def __sub__(self, o):
        """self - o (element-wise)"""
        return _binop("subtract", self, o)

    def __rsub__(self, o):
        """o - self (element-wise)"""
        return _binop("subtract", o, self)

    def __mul__(self, o):
        """self * o (element-wise)"""
        return _binop("multiply", self, o)

    def __rmul__(self, o):
        """o * self (element-wise)"""
        return _binop("multiply", o, self)

    def __truediv__(self, o):
        """self / o (element-wise)"""
        return _binop("divide", self, o)

    def __rtruediv__(self, o):
        """o / self (element-wise)"""
        return _binop("divide", o, self)

    def __floordiv__(self, o):
        """self // o (element-wise)"""
        return _binop("floor_divide", self, o)

    def __rfloordiv__(self, o):
        """o // self (element-wise)"""
        return _binop("floor_divide", o, self)

    def __mod__(self, o):
        """self % o (element-wise)"""
        return _binop("remainder", self, o)

    def __rmod__(self, o):
        """o % self (element-wise)"""
        return _binop("remainder", o, self)

    def __and__(self, o):
        """self & o (element-wise)"""
        return _binop("bitwise_and", self, o)

    def __rand__(self, o):
        """o & self (element-wise)"""
        return _binop("bitwise_and", o, self)

    def __or__(self, o):
        """self | o (element-wise)"""
        return _binop("bitwise_or", self, o)

    def __ror__(self, o):
        """o | self (element-wise)"""
        return _binop("bitwise_or", o, self)

    def __xor__(self, o):
        """self ^ o (element-wise)"""
        return _binop("bitwise_xor", self, o)

    def __rxor__(self, o):
        """o ^ self (element-wise)"""
        return _binop("bitwise_xor", o, self)

    def __lshift__(self, o):
        """self << o (element-wise)"""
        return _binop("bitwise_left_shift", self, o)

    def __rlshift__(self, o):
        """o << self (element-wise)"""
        return _binop("bitwise_left_shift", o, self)

    def __rshift__(self, o):
        """self >> o (element-wise)"""
        return _binop("bitwise_right_shift", self, o)

    def __rrshift__(self, o):
        """o >> self (element-wise)"""
        return _binop("bitwise_right_shift", o, self)

    def __lt__(self, o):
        """self < o (element-wise)"""
        return _binop("less", self, o)

    def __le__(self, o):
        """self <= o (element-wise)"""
        return _binop("less_equal", self, o)

    def __gt__(self, o):
        """self > o (element-wise)"""
        return _binop("greater", self, o)

    def __ge__(self, o):
        """self >= o (element-wise)"""
        return _binop("greater_equal", self, o)

    def __eq__(self, o):
        """self == o (element-wise)"""
        return _binop("equal", self, o)

    def __ne__(self, o):
        """self != o (element-wise)"""
        return _binop("not_equal", self, o)


cdef tuple _no_args = ()


cdef ArrayBase new_array(type cls, tuple shape, tuple strides, object dtype, MemoryPointer mem):
    """A `cls` (ndarray) over all of `mem` (its tp_new called directly: `ArrayBase.__new__(cls)`
    would look `__new__` up and call it through Python's slot wrapper)."""
    cdef ArrayBase a = <ArrayBase>(<PyTypeObject*>cls).tp_new(cls, <PyObject*>_no_args, NULL)
    a._shape, a._strides, a._dtype = shape, strides, dtype
    a._data, a._ptr, a._device_id, a._base, a._readonly = mem, mem.ptr, mem.device_id, None, False
    return a


cdef tuple _strides_1d = tuple([(k,) for k in range(17)])    # the C strides of every 1-d array by itemsize


cdef bint is_c_strides_1d(tuple strides, Py_ssize_t itemsize) noexcept:
    """Whether `strides` is the one tuple `c_strides` gives 1-d arrays of `itemsize` (their C
    strides: the contiguity check of the per-op path is then an identity)."""
    return 0 < itemsize <= 16 and strides is _strides_1d[itemsize]


cdef tuple c_strides(tuple shape, Py_ssize_t itemsize, Py_ssize_t* count):
    """C-order strides of `shape` (ints) and its element count in `count`; None where a dimension
    is not a small non-negative int or the byte count would overflow (the caller asks shapes.py).
    1-d shapes share one strides tuple per itemsize (`is_c_strides_1d`)."""
    cdef Py_ssize_t k, n = len(shape), d, s = itemsize, total = 1
    cdef tuple out
    cdef object v       # (untyped, Cython infers a C Py_ssize_t from `v = s`: SET_ITEM then stores a
                        # temporary int that Cython releases after, the tuple's item freed memory)
    if n == 1 and 0 < itemsize <= 16:
        x = shape[0]
        if type(x) is not int or not 0 <= x < LIMIT:
            return None
        count[0] = <Py_ssize_t>x
        return <tuple>_strides_1d[itemsize]
    out = PyTuple_New(n)
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
    if not issubclass(cls, ArrayBase):
        raise TypeError(f"{cls!r} is not an ndarray class")
    if type(shape) is not tuple:
        shape = tuple(shape)
    itemsize = (<DTypeBase>dtype).itemsize if isinstance(dtype, DTypeBase) else dtype.itemsize
    strides = c_strides(<tuple>shape, itemsize, &n) if type(itemsize) is int and 0 < itemsize <= 64 else None
    if strides is not None:
        nbytes = n * <Py_ssize_t>itemsize
    else:
        strides, count = _c_layout(shape, itemsize)
        nbytes = count * itemsize
    if stream is None:
        stream = current_stream(device_id) if type(device_id) is int else _slow_stream(device_id)
    return new_array(<type>cls, <tuple>shape, strides, dtype, alloc(None, nbytes, stream))
