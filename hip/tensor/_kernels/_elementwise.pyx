# cython: language_level=3
"""ElementwiseKernel's per-op hot path in C (`call_contiguous`; _kernels/elementwise.py holds the
kernel): inputs of a `Signature`'s types, C-contiguous of one shape on the current device, get
fresh outputs (`_core._array`, `_core._memory`) and one launch (`_core.launch`, the one packer)
without Python code, once the kernel of that element count is known (`ElementwiseKernel._flat_hit`
finds and caches it, in Python)."""
cimport cython
from cpython.dict cimport PyDict_GetItemWithError
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport uintptr_t

from hip.tensor._core._array cimport ArrayBase, DTypeBase, c_strides, is_c_strides_1d, new_array
from hip.tensor._core._memory cimport alloc
from hip._kernel_args cimport dim3
from hip.tensor._core.launch cimport StreamBase, current_stream, device, launch_dims

cdef enum:
    VECTOR_MIN = 1 << 14        # elementwise_source.VECTOR_MIN: from here on the layout depends on the addresses

cdef type _nd = None                # ndarray
cdef object _scalar_value = None    # elementwise.scalar_value
cdef object _error = None           # _core.device._error


def bind(ndarray, scalar_value, error, Py_ssize_t vector_min):
    """The Python objects the hot path needs: the array class, the scalar conversion, the error."""
    global _nd, _scalar_value, _error
    if vector_min != VECTOR_MIN:
        raise ValueError(f"elementwise_source.VECTOR_MIN is {vector_min}, this module's {VECTOR_MIN}")
    _nd, _scalar_value, _error = ndarray, scalar_value, error


@cython.auto_pickle(False)
cdef class Launch:
    """One launch of a Signature's kernel, kept by element count: `device`, `grid`, `block`, the
    `function` and the `count` argument (the kernel's last), grid and block also as C dims."""
    cdef readonly int device
    cdef readonly object grid, block, function, count
    cdef unsigned int g[3]
    cdef unsigned int b[3]
    cdef uintptr_t func

    def __init__(self, device, grid, block, function, count):
        dim3(grid, self.g, "grid")
        dim3(block, self.b, "block")
        self.func = function.ptr
        self.device, self.grid, self.block, self.function, self.count = device, grid, block, function, count


@cython.auto_pickle(False)
cdef class Signature:
    """ElementwiseKernel.signature: the resolved bindings, (types, kinds, mem) of every parameter,
    the extra bindings, the array and scalar inputs' positions, the outputs' dtypes, the kernels
    by (device, layout, index type), and by element count under VECTOR_MIN the Launch."""

    def __init__(self, bindings, part, extra, tuple arrays, tuple scalars, tuple outs):
        self.bindings, self.part, self.extra, self.arrays, self.scalars, self.outs = \
            bindings, part, extra, arrays, scalars, outs
        self.functions = {}
        self.layouts = {}


cdef bint _c_strides_of(tuple shape, tuple strides, Py_ssize_t itemsize) except -1:
    """Whether `strides` are the C-order strides of `shape` (small positive ints) for `itemsize`
    (shapes.c_layout's)."""
    cdef Py_ssize_t k, n = len(shape), s = itemsize, d
    cdef long long v
    cdef int over
    if len(strides) != n:
        return False
    if is_c_strides_1d(strides, itemsize):
        return True
    for k in range(n - 1, -1, -1):
        st = strides[k]
        if type(st) is not int:
            return False
        v = PyLong_AsLongLongAndOverflow(st, &over)
        if over or v != s:
            return False
        d = shape[k]
        if d > 1:
            s *= d
    return True


cdef Py_ssize_t one_c_layout(tuple args, tuple arrays) except -1:
    """The element count when the arrays `args[k]` (k in `arrays`) are C-contiguous of one
    non-empty shape on one device, else 0. Each is checked against the C strides of its own
    itemsize: a float32 view x[:, ::2] has the byte strides of a C-contiguous float64 array of
    its shape."""
    cdef tuple shape, strides
    cdef Py_ssize_t k, n = 1, isz, osz
    cdef ArrayBase first, a
    x = args[<Py_ssize_t>arrays[0]]
    if type(x) is not _nd:
        return 0
    first = <ArrayBase>x
    if type(first._shape) is not tuple or type(first._strides) is not tuple or type(first._device_id) is not int:
        return 0
    shape, strides, dev = <tuple>first._shape, <tuple>first._strides, first._device_id
    isz = (<DTypeBase?>first._dtype).itemsize
    for k in range(len(shape)):
        d = shape[k]
        if type(d) is not int or d <= 0 or d >= (1 << 40):
            return 0            # empty, or too big for a C count: the general path
        n *= <Py_ssize_t>d
        if n >= (<Py_ssize_t>1 << 46):
            return 0
    if not _c_strides_of(shape, strides, isz):
        return 0
    for k in range(1, len(arrays)):
        x = args[<Py_ssize_t>arrays[k]]
        if type(x) is not _nd:
            return 0
        a = <ArrayBase>x
        if a._device_id != dev or (a._shape is not shape and a._shape != shape):
            return 0
        osz = (<DTypeBase?>a._dtype).itemsize
        if not (a._strides is strides and osz == isz) and (
                type(a._strides) is not tuple or not _c_strides_of(shape, <tuple>a._strides, osz)):
            return 0
    return n


def one_c_layout_of(tuple args, tuple arrays):
    """`one_c_layout` from Python (for tests)."""
    return one_c_layout(args, arrays)


cdef object call_contiguous(object kernel, Signature sig, tuple args):
    """The outputs of `kernel` on `args` when its arrays are C-contiguous of one shape on the
    current device (one launch on the current stream); None (nothing done) otherwise."""
    cdef tuple arrays = sig.arrays, outs_t = sig.outs, shape, strides, st, kargs
    cdef Py_ssize_t k, nargs = len(args), nout = len(outs_t), n, isz, osz, cnt
    cdef ArrayBase first
    cdef int dev
    cdef PyObject* found
    cdef Launch run
    n = one_c_layout(args, arrays)
    if not n:
        return None
    first = <ArrayBase>args[<Py_ssize_t>arrays[0]]
    shape, strides, devo = <tuple>first._shape, <tuple>first._strides, first._device_id
    isz = (<DTypeBase>first._dtype).itemsize
    dev = devo
    if device() != dev:
        return None
    stream = current_stream(dev)
    outs = PyTuple_New(nout)
    for k in range(nout):
        t = outs_t[k]
        osz = (<DTypeBase?>t).itemsize
        st = strides if osz == isz else c_strides(shape, osz, &cnt)
        if st is None:              # (not for n < 2**46 elements of <= 64 bytes: the general path)
            return None
        o = new_array(_nd, shape, st, t, alloc(None, n * osz, stream))
        Py_INCREF(o)
        PyTuple_SET_ITEM(outs, k, o)
    if sig.scalars:
        if len(sig.scalars) == 1:       # one scalar: its conversion kept for the same value object
            k, t = sig.scalars[0]
            v = args[k]
            if v is sig._scalar_in:
                sv = sig._scalar_out
            else:
                sv = _scalar_value(v, t)
                sig._scalar_in, sig._scalar_out = v, sv     # (together: no Python code between)
            given = list(args)
            given[k] = sv
        else:
            given = list(args)
            for k, t in sig.scalars:
                given[k] = _scalar_value(given[k], t)
        args = tuple(given)
    hit = None
    if n < VECTOR_MIN:
        if n == sig._last_n and sig._last is not None:
            hit = sig._last
        else:
            found = PyDict_GetItemWithError(sig.layouts, n)
            if found != NULL:
                hit = <object>found
    if hit is None or (<Launch>hit).device != dev:
        hit = kernel._flat_hit(sig, [args[<Py_ssize_t>i] for i in arrays] + list(outs), n, dev)
    run = <Launch?>hit
    if n < VECTOR_MIN and hit is not sig._last:     # (valid for n on its device, kept or not)
        sig._last_n, sig._last = n, hit
    kargs = PyTuple_New(nargs + nout + 1)
    for k in range(nargs):
        x = args[k]
        Py_INCREF(x)
        PyTuple_SET_ITEM(kargs, k, x)
    for k in range(nout):
        x = (<tuple>outs)[k]
        Py_INCREF(x)
        PyTuple_SET_ITEM(kargs, nargs + k, x)
    x = run.count
    Py_INCREF(x)
    PyTuple_SET_ITEM(kargs, nargs + nout, x)
    err = launch_dims(run.func, run.g, run.b, 0, <uintptr_t>(<StreamBase?>stream).ptr, kargs)
    if err:
        raise _error(err, f"hipModuleLaunchKernel({run.function.name})")
    return (<tuple>outs)[0] if nout == 1 else outs


def call(kernel, Signature sig not None, tuple args not None):
    """`call_contiguous` from Python (ElementwiseKernel.call_contiguous)."""
    return call_contiguous(kernel, sig, args)
