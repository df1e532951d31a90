# cython: language_level=3
"""The element-wise functions' per-op hot path in C (_api/elementwise.py defines them): `apply`
finds the cached `Fast` entry of the arguments' types and runs the kernel's C path
(`_kernels._elementwise.call_contiguous`); `binop` is ndarray's operators' entry (`x + y`).
Whatever these do not take returns to elementwise.py's Python path."""
cimport cython
from cpython.dict cimport PyDict_GetItemWithError
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from hip.tensor._core._array cimport ArrayBase, DTypeBase
from hip.tensor._kernels._elementwise cimport Signature, call_contiguous

cdef type _nd = None            # ndarray
cdef dict _ops = None           # elementwise._OPS: name -> _Op
cdef object _entry = None       # elementwise._fast_entry(op, args): the Fast of new types, or None
cdef object _slow_binop = None  # elementwise._binop


def bind(ndarray, dict ops not None, fast_entry, slow_binop):
    """elementwise.py's objects the hot path reads or calls back."""
    global _nd, _ops, _entry, _slow_binop
    _nd, _ops, _entry, _slow_binop = ndarray, ops, fast_entry, slow_binop


@cython.auto_pickle(False)
cdef class OpBase:
    """What the hot path reads of an element-wise function (elementwise._Op): `fast` (argument
    types -> Fast, or None: the general path decides), its `kernel`, and the last argument types
    seen with their entry (a repeat skips the dict)."""
    cdef public dict fast
    cdef public object kernel
    cdef Py_ssize_t _nkey
    cdef object _k0, _k1, _last


@cython.auto_pickle(False)
cdef class Fast:
    """What the element-wise path resolves once per argument-type signature of an op: the compute
    dtype `c`, the kernel's Signature, and the bounds a Python int scalar (the argument at
    `int_at`, None: none) must be in (NumPy raises outside)."""
    cdef public object c, int_at, lo, hi
    cdef public Signature kernel_sig

    def __init__(self, c, Signature kernel_sig, int_at, lo, hi):
        self.c, self.kernel_sig, self.int_at, self.lo, self.hi = c, kernel_sig, int_at, lo, hi


cdef inline object _kind(object a):
    """An argument's part of the fast key: an ndarray's dtype, a scalar's type."""
    return (<ArrayBase>a)._dtype if type(a) is _nd else type(a)


cdef object apply(OpBase op, tuple args):
    """op's result on `args` by the cached Fast of their types (made by elementwise._fast_entry on
    first sight) through the kernel's C path; None where that path does not take them."""
    cdef Py_ssize_t k, n = len(args)
    cdef tuple key
    cdef PyObject* found
    cdef Fast f
    if n == 0 or n > 2:
        return None
    k0 = _kind(args[0])
    k1 = _kind(args[1]) if n == 2 else None
    if op._last is not None and op._nkey == n and k0 is op._k0 and k1 is op._k1:
        e = op._last
    else:
        key = PyTuple_New(n)        # (dtype names: str hashes fast)
        for k in range(n):
            a = args[k]
            x = (<DTypeBase?>(<ArrayBase>a)._dtype).name if type(a) is _nd else type(a)
            Py_INCREF(x)
            PyTuple_SET_ITEM(key, k, x)
        found = PyDict_GetItemWithError(op.fast, key)
        if found == NULL:
            e = op.fast[key] = _entry(op, args)
        else:
            e = <object>found
        op._last = None
        op._nkey, op._k0, op._k1 = n, k0, k1
        op._last = e
    if e is None:
        return None
    f = <Fast>e
    if f.int_at is not None and not (f.lo <= args[<Py_ssize_t>f.int_at] <= f.hi):
        return None
    return call_contiguous(op.kernel, f.kernel_sig, args)


def apply_fast(OpBase op not None, tuple args not None):
    """`apply` from Python (elementwise._apply): the result, or None."""
    return apply(op, args)


cdef inline bint _operand(object t) noexcept:
    return t is _nd or t is float or t is int or t is bool or t is complex


def binop(name, a, b):
    """`a <op> b` for ndarray's operators (the function named `name`); NotImplemented for operand
    types it does not take (elementwise._binop decides)."""
    if _operand(type(a)) and _operand(type(b)):
        r = apply(<OpBase?>_ops[name], (a, b))
        if r is not None:
            return r
    return _slow_binop(name, a, b)
