"""NumPy's creation functions outside the array API, as CuPy has them: array, asanyarray,
ascontiguousarray, asfortranarray, require, identity, tri, fromfunction, and NumPy's readers
frombuffer, fromfile, fromiter, fromstring, loadtxt, genfromtxt. They are what `np.array(q,
like=x)` & co. (NEP 35) run for hip.tensor arrays, Dask's `array_safe` among their callers.

Layouts follow NumPy's `order`: 'C', 'F', 'A' (F where the source is F-contiguous) or 'K' (the
source's own order of its axes in memory); a copy in such a layout is hip.tensor's C-ordered copy of
the source's axes permuted, permuted back. The readers parse on the host with NumPy and copy the
array to the device (CuPy's way; `frombuffer` makes a copy, not a view of the buffer).
"""
from __future__ import annotations

import operator

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .creation import _device_id, _import_device_array, arange, asarray, eye, meshgrid, ones, tril
from .manipulation import expand_dims
from .numpy_protocols import signature as _signature

try:                                    # np.require's flag names (NumPy 2; numpy.core in NumPy 1)
    from numpy._core._asarray import POSSIBLE_FLAGS as _REQUIREMENTS
except ImportError:                     # pragma: no cover
    from numpy.core._asarray import POSSIBLE_FLAGS as _REQUIREMENTS

__all__ = ["array", "asanyarray", "ascontiguousarray", "asfortranarray", "require", "identity", "tri",
           "fromfunction", "frombuffer", "fromfile", "fromiter", "fromstring", "loadtxt", "genfromtxt"]

_ORDERS = ("K", "A", "C", "F")
# require's flags as hip.tensor's Flags name them; 'A' (aligned) always holds: allocations are
# aligned and views start at whole elements
_FLAGS = {"C": "c_contiguous", "F": "f_contiguous", "W": "writeable", "O": "owndata"}


def _order(order, name: str) -> str:
    o = "K" if order is None else str(order).upper()
    if o not in _ORDERS:
        raise ValueError(f"{name}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return o


def _axes_in_memory(x, order: str) -> list[int]:
    """The axes of a copy of `x` (a hip.tensor or NumPy array) in `order`, slowest first."""
    axes = list(range(x.ndim))
    if order == "F" or order == "A" and x.flags.f_contiguous and not x.flags.c_contiguous:
        return axes[::-1]
    if order == "K":        # x's own: by decreasing stride (ties, size-1 axes among them, keep C's)
        return sorted(axes, key=lambda i: -abs(x.strides[i]) if x.shape[i] > 1 else 0) \
            if not x.flags.c_contiguous else axes
    return axes


def _fits(x: ndarray, order: str) -> bool:
    """Whether x is laid out as `order` asks ('K' and 'A' take any layout)."""
    if order == "C":
        return x.flags.c_contiguous
    return x.flags.f_contiguous if order == "F" else True


def _copy_in(x, axes: list[int], dtype=None, device=None) -> ndarray:
    """A new array (owning its memory) of x's values (a hip.tensor, device or NumPy array),
    its axes laid out in memory in `axes`' order, slowest first."""
    if axes == sorted(axes):
        return asarray(x, dtype=dtype, device=device, copy=True)
    c = asarray(x.transpose(axes), dtype=dtype, device=device, copy=True)
    back = sorted(range(len(axes)), key=axes.__getitem__)
    return ndarray._view_of(c._data, c.ptr, tuple(c.shape[i] for i in back), tuple(c.strides[i] for i in back),
                            c.dtype, c.device_id)


def array(obj, /, dtype=None, *, copy=True, order="K", ndmin=0, device=None) -> ndarray:
    """NumPy's array (CuPy's cupy.array): asarray with NumPy's defaults, a copy unless copy is
    None (only where needed) or False (never: ValueError where one is needed); the copy laid
    out in `order`; `ndmin` leading axes of length 1."""
    o = _order(order, "array")
    ndmin = operator.index(ndmin)
    d = None if dtype is None else _dt.dtype(dtype)
    src = obj if isinstance(obj, ndarray) else _import_device_array(obj)
    if src is not None:
        moves = device is not None and _device_id(device) != src.device_id
        if copy or moves or (d is not None and d is not src.dtype) or not _fits(src, o):
            if copy is False:
                raise ValueError("array: this dtype, device or order needs a copy (copy=False given)")
            out = _copy_in(src, _axes_in_memory(src, o), d, device)
        else:
            out = src
    elif isinstance(obj, np.ndarray):
        if copy is False:
            raise ValueError("array: host data reaches the device only by a copy (copy=False given)")
        out = _copy_in(obj, _axes_in_memory(obj, o), d, device)
    else:
        out = asarray(obj, dtype=d, device=device, copy=copy)
        if not _fits(out, o):           # (order='F' of nested sequences)
            out = _copy_in(out, _axes_in_memory(out, o))
    if out.ndim < ndmin:
        out = expand_dims(out, axis=tuple(range(ndmin - out.ndim)))
    return out


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None) -> ndarray:
    """NumPy's asanyarray: asarray with `order` (hip.tensor has no array subclasses)."""
    return array(a, dtype, copy=copy, order=_order(order, "asanyarray"), device=device)


def ascontiguousarray(a, dtype=None) -> ndarray:
    """a as a C-contiguous array of at least one dimension (a copy only where needed)."""
    return array(a, dtype, copy=None, order="C", ndmin=1)


def asfortranarray(a, dtype=None) -> ndarray:
    """a as an F-contiguous array of at least one dimension (a copy only where needed)."""
    return array(a, dtype, copy=None, order="F", ndmin=1)


def require(a, dtype=None, requirements=None) -> ndarray:
    """NumPy's require: `a` as an array meeting `requirements` (NumPy's flag names: 'C', 'F',
    'A', 'W', 'O', 'E' and their long forms), copied where it does not."""
    if not requirements:
        return asanyarray(a, dtype=dtype)
    try:
        reqs = {_REQUIREMENTS[str(r).upper()] for r in requirements}
    except KeyError as e:
        raise KeyError(f"require: unknown requirement {e.args[0]!r}") from None
    reqs -= {"E", "A"}                  # always an array; always aligned
    if reqs >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "C" if "C" in reqs else "F" if "F" in reqs else "A"
    out = array(a, dtype, copy=None, order=order)
    if not all(getattr(out.flags, _FLAGS[r]) for r in reqs):
        out = _copy_in(out, _axes_in_memory(out, order))
    return out


def identity(n, dtype=None) -> ndarray:
    """The n x n identity matrix (default dtype float64)."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=float) -> ndarray:
    """An N x M array (M = N by default) of ones at and below diagonal k, zeros above."""
    N = operator.index(N)
    return tril(ones((N, N if M is None else operator.index(M)), dtype=dtype), k=k)


def fromfunction(function, shape, *, dtype=float, **kwargs) -> object:
    """`function` called with one hip.tensor array of indices per axis of `shape` (NumPy's
    np.indices, here on the device), and `kwargs`; its result as it returns it."""
    grids = meshgrid(*(arange(operator.index(n), dtype=dtype) for n in shape), indexing="ij")
    return function(*grids, **kwargs)


def _read_on_host(name: str):
    """NumPy's reader `name` with its signature (less `like`), its array copied to the device."""
    reader = getattr(np, name)

    def read(*args, **kwargs) -> ndarray:
        host = reader(*args, **kwargs)
        if isinstance(host, np.ma.MaskedArray):
            raise TypeError(f"{name}: hip.tensor has no masked arrays (usemask=True given)")
        return array(host)

    read.__name__ = read.__qualname__ = name
    read.__doc__ = f"NumPy's {name}, run on the host; the array it makes is copied to the device."
    sig = _signature(reader)
    if sig is not None:
        read.__signature__ = sig.replace(parameters=[p for n, p in sig.parameters.items() if n != "like"])
    return read


frombuffer = _read_on_host("frombuffer")
fromfile = _read_on_host("fromfile")
fromiter = _read_on_host("fromiter")
fromstring = _read_on_host("fromstring")
loadtxt = _read_on_host("loadtxt")
genfromtxt = _read_on_host("genfromtxt")
