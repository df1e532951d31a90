"""Indexing: NumPy's basic indexing as views (ints, slices, None, Ellipsis), advanced indexing by
integer and boolean arrays as gather/scatter kernels, `take` and `take_along_axis`; NumPy's `unravel_index` and `ravel_multi_index` (outside the array
API), element-wise arithmetic after one bounds check.

Integer index arrays are checked against the bounds before any kernel runs (on the host for host
data; by a min/max reduction, one synchronization, for device arrays). A boolean mask is turned
into integer indices on the host (the result's size depends on the data), except for
`x[mask] = scalar`, which is one masked-store kernel. With repeated indices, which assignment
wins is unspecified (NumPy: the last).
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray, register
from .._core.shapes import broadcast_shapes, broadcast_strides, c_strides, normalize_axis, prod
from .._kernels.copy import copy_kernel
from .._kernels.elementwise import ElementwiseKernel, is_scalar, scalar_value
from .creation import _host_to_device, asarray
from .statistical import any as _any, max as _max, min as _min

__all__ = ["take", "take_along_axis", "unravel_index", "ravel_multi_index"]


class _Adv:
    """An advanced (integer array) index: a device or host int64 array, the dim it indexes."""

    __slots__ = ("index", "dim", "size")

    def __init__(self, index, dim, size):
        self.index, self.dim, self.size = index, dim, size


def _is_int(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _is_bool_array(k) -> bool:
    if isinstance(k, ndarray):
        return k.dtype is _dt.bool
    return isinstance(k, np.ndarray) and k.dtype.kind == "b"


def _expand(key, ndim: int):
    """The key as a tuple with Ellipsis expanded and sequences made NumPy arrays."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if isinstance(k, (list,)) or (isinstance(k, tuple)):
            k = np.asarray(k)
            if k.dtype.kind not in "biu" and k.size:
                raise IndexError(f"index arrays must be integers or booleans, got {k.dtype}")
            if k.size == 0 and k.dtype.kind == "f":
                k = k.astype(np.int64)
        items.append(k)
    consumed = 0
    ellipsis = None
    for i, k in enumerate(items):
        if k is Ellipsis:
            if ellipsis is not None:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis = i
        elif k is None or isinstance(k, (bool, np.bool_)):
            continue
        elif _is_bool_array(k):
            consumed += k.ndim
        else:
            consumed += 1
    if consumed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed")
    fill = [slice(None)] * (ndim - consumed)
    if ellipsis is None:
        items += fill
    else:
        items[ellipsis:ellipsis + 1] = fill
    return items


def _check_kind(k):
    if isinstance(k, ndarray):
        if k.dtype.kind not in "biu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, got {k.dtype.name}")
        return
    if isinstance(k, np.ndarray):
        if k.dtype.kind not in "biu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, got {k.dtype}")
        return
    if isinstance(k, slice) or k is None or _is_int(k) or isinstance(k, (bool, np.bool_)):
        return
    if hasattr(k, "__index__"):
        return
    raise IndexError(f"only integers, slices (:), ellipsis (...), None, and integer or boolean arrays are "
                     f"valid indices (got {type(k).__name__})")


def _parse(x: ndarray, key):
    """(ptr, shape, strides, advanced list, positions in the view of dims an int index removed
    while advanced indices exist) of x[key]'s basic part."""
    items = _expand(key, x.ndim)
    for k in items:
        _check_kind(k)
    has_array = any(isinstance(k, (np.ndarray, ndarray)) for k in items)
    ptr = x.ptr
    shape, strides = [], []
    adv: list[_Adv] = []
    d = 0
    for k in items:
        if k is None:
            shape.append(1)
            strides.append(0)
        elif isinstance(k, (bool, np.bool_)):
            # a Python bool is a 0-d mask: a new axis of length 1 (True) or 0 (False)
            shape.append(1 if k else 0)
            strides.append(0)
        elif isinstance(k, slice):
            n = x.shape[d]
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                ptr += start * x.strides[d]
            shape.append(length)
            strides.append(x.strides[d] * step)
            d += 1
        elif _is_int(k) or (not isinstance(k, (np.ndarray, ndarray)) and hasattr(k, "__index__")):
            i = operator.index(k)
            n = x.shape[d]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {d} with size {n}")
            i %= n
            if has_array:      # NumPy: next to arrays an integer is an advanced (0-d) index
                adv.append(_Adv(np.asarray(i, dtype=np.int64), len(shape), n))
                shape.append(n)
                strides.append(x.strides[d])
            else:
                ptr += i * x.strides[d]
            d += 1
        else:
            if k.dtype.kind == "b":
                # the array API lets a mask dimension of size 0 index any dimension (it selects
                # nothing); NumPy asks for equal sizes
                if any(ks not in (xs, 0) for ks, xs in zip(k.shape, x.shape[d:d + k.ndim])):
                    raise IndexError(f"boolean index of shape {tuple(k.shape)} does not match the indexed "
                                     f"dimensions {tuple(x.shape[d:d + k.ndim])}")
                host = k.get() if isinstance(k, ndarray) else k
                for j, nz in enumerate(np.nonzero(host) if host.ndim else ()):
                    adv.append(_Adv(nz.astype(np.int64), len(shape), x.shape[d + j]))
                    shape.append(x.shape[d + j])
                    strides.append(x.strides[d + j])
                if host.ndim == 0:      # 0-d mask: like a Python bool
                    shape.append(1 if bool(host) else 0)
                    strides.append(0)
                d += k.ndim
            else:
                adv.append(_Adv(k, len(shape), x.shape[d]))
                shape.append(x.shape[d])
                strides.append(x.strides[d])
                d += 1
    return ptr, shape, strides, adv


def _check_bounds(adv: list[_Adv]) -> None:
    for a in adv:
        k, n = a.index, a.size
        if isinstance(k, np.ndarray):
            if k.size and (k.min() < -n or k.max() >= n):
                bad = k[(k < -n) | (k >= n)].flat[0]
                raise IndexError(f"index {bad} is out of bounds for axis with size {n}")
        elif k.size:
            lo, hi = int(_min(k)), int(_max(k))
            if lo < -n or hi >= n:
                raise IndexError(f"index {hi if hi >= n else lo} is out of bounds for axis with size {n}")


def _device_index(a: _Adv, device_id: int) -> ndarray:
    k = a.index
    if isinstance(k, np.ndarray):
        return _host_to_device(k.astype(np.int64, copy=False), _dt.int64, device_id)
    return k


def _advanced_plan(x: ndarray, ptr, shape, strides, adv):
    """(result shape, src view strides over it, index views over it, scalars (size, stride) per index)."""
    idx_shape = broadcast_shapes(*[tuple(a.index.shape) for a in adv])
    dims = [a.dim for a in adv]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    rest = [i for i in range(len(shape)) if i not in dims]
    if adjacent:
        before = [i for i in rest if i < dims[0]]
        after = [i for i in rest if i > dims[-1]]
        res_shape = tuple(shape[i] for i in before) + idx_shape + tuple(shape[i] for i in after)
        b0 = len(before)
        src_strides = tuple(strides[i] for i in before) + (0,) * len(idx_shape) + tuple(strides[i] for i in after)
    else:
        b0 = 0
        res_shape = idx_shape + tuple(shape[i] for i in rest)
        src_strides = (0,) * len(idx_shape) + tuple(strides[i] for i in rest)
    return res_shape, src_strides, b0, idx_shape


def _index_views(adv, device_id, res_shape, b0, idx_shape):
    views = []
    for a in adv:
        k = _device_index(a, device_id)
        st = broadcast_strides(k.shape, k.strides, idx_shape)
        full = (0,) * b0 + st + (0,) * (len(res_shape) - b0 - len(idx_shape))
        views.append(k._view(k.ptr, res_shape, full))
    return views


@functools.cache
def _index_kernel(n: int, scatter: bool = False) -> ElementwiseKernel:
    """The kernel of indexing by `n` index arrays: a gather (y = src[k0, ...]) or, `scatter`, a
    store (dst[k0, ...] = v). A negative index counts from the end, as in Python."""
    params = ", ".join(["V v" if scatter else "S src"] + [f"I{j} k{j}" for j in range(n)]
                       + [f"int64 n{j}, int64 s{j}" for j in range(n)])
    offset = " + ".join(f"(long long)(k{j} < 0 ? k{j} + n{j} : k{j}) * s{j}" for j in range(n))
    if scatter:
        return ElementwiseKernel(params, "D dst", f"*(D*)((char*)&dst + {offset}) = ht_cast<D>(v)", "ht_scatter")
    return ElementwiseKernel(params, "S y", f"y = *(const S*)((const char*)&src + {offset})", "ht_gather")


def _scalars(adv, strides):
    out = []
    for a in adv:
        out += [np.int64(a.size), np.int64(strides[a.dim])]
    return out


def _basic(x: ndarray, key):
    """(ptr, shape, strides) of x[key] for a key of ints, slices, None and one Ellipsis (a view);
    None for any other key, or one that is wrong (`_parse` takes it, and says what is wrong)."""
    if type(key) is not tuple:
        key = (key,)
    xs, xst = x._shape, x._strides
    ndim = len(xs)
    consumed, ellipsis = 0, False
    for k in key:
        t = type(k)
        if t is int or t is slice:
            consumed += 1
        elif k is Ellipsis:
            if ellipsis:
                return None
            ellipsis = True
        elif k is not None:
            return None
    if consumed > ndim:
        return None
    ptr, shape, strides, d = x._ptr, [], [], 0
    for k in key:
        t = type(k)
        if t is slice:
            start, stop, step = k.indices(xs[d])
            length = len(range(start, stop, step))
            if length:
                ptr += start * xst[d]
            shape.append(length)
            strides.append(xst[d] * step)
            d += 1
        elif t is int:
            n = xs[d]
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
            ptr += (k % n) * xst[d]
            d += 1
        elif k is None:
            shape.append(1)
            strides.append(0)
        else:                   # Ellipsis: the dimensions no other item takes
            e = d + ndim - consumed
            shape += xs[d:e]
            strides += xst[d:e]
            d = e
    return ptr, tuple(shape) + xs[d:], tuple(strides) + xst[d:]


def getitem(x: ndarray, key):
    basic = _basic(x, key)
    if basic is not None:
        return x._view(*basic)
    ptr, shape, strides, adv = _parse(x, key)
    if not adv:
        return x._view(ptr, tuple(shape), tuple(strides))
    _check_bounds(adv)
    res_shape, src_strides, b0, idx_shape = _advanced_plan(x, ptr, shape, strides, adv)
    out = ndarray._empty(res_shape, x.dtype, x.device_id)
    if out.size == 0:
        return out
    src = x._view(ptr, res_shape, src_strides)
    views = _index_views(adv, x.device_id, res_shape, b0, idx_shape)
    _index_kernel(len(adv))(src, *views, *_scalars(adv, strides), out)
    return out


_masked_store = ElementwiseKernel("bool m, V v", "D dst", "if (m) dst = ht_cast<D>(v)", "ht_masked_store")


def _value_scalar(value, d: _dt.DType):
    if isinstance(value, int) and not isinstance(value, bool) and d.kind in "iu":
        info = _dt.iinfo(d)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} is out of bounds for {d.name}")
    return scalar_value(value, d)


def setitem(x: ndarray, key, value) -> None:
    if not isinstance(value, ndarray) and not is_scalar(value):
        value = asarray(value, device=x.device_id)
    mask = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if is_scalar(value) and isinstance(mask, ndarray) and mask.dtype is _dt.bool and mask.shape == x.shape:
        if x.size:
            _masked_store(mask, _value_scalar(value, x.dtype), x, _bindings={"V": x.dtype})
        return
    ptr, shape, strides, adv = _parse(x, key)
    if not adv:
        dst = x._view(ptr, tuple(shape), tuple(strides))
        if dst.size == 0:
            return
        if is_scalar(value):
            copy_kernel()(_value_scalar(value, x.dtype), dst)
        else:
            if broadcast_shapes(value.shape, dst.shape) != dst.shape:
                raise ValueError(f"could not broadcast input array from shape {value.shape} into shape {dst.shape}")
            copy_kernel()(value, dst)
        return
    _check_bounds(adv)
    res_shape, dst_strides, b0, idx_shape = _advanced_plan(x, ptr, shape, strides, adv)
    if prod(res_shape) == 0:
        return
    dst = x._view(ptr, res_shape, dst_strides)
    views = _index_views(adv, x.device_id, res_shape, b0, idx_shape)
    if is_scalar(value):
        value = _value_scalar(value, x.dtype)
    elif broadcast_shapes(value.shape, res_shape) != res_shape:
        raise ValueError(f"shape mismatch: value array of shape {value.shape} could not be broadcast to "
                         f"indexing result of shape {res_shape}")
    _index_kernel(len(adv), scatter=True)(value, *views, *_scalars(adv, strides), dst)


def take(x, indices, /, *, axis=None) -> ndarray:
    """Elements of x at `indices` (integers; negative ones count from the end) along `axis`."""
    if not isinstance(x, ndarray):
        raise TypeError(f"take: expected a hip.tensor array, got {type(x).__name__}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis is required for arrays of more than one dimension")
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    if not isinstance(indices, (ndarray, np.ndarray)):
        indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError(f"take: indices must be integers, got {indices.dtype}")
    return getitem(x, (slice(None),) * axis + (indices,))


def take_along_axis(x, indices, /, *, axis: int = -1) -> ndarray:
    """x's elements at `indices` (integers, x's number of dimensions; negative ones count from the
    end) along `axis`; the other dimensions broadcast, as NumPy's. One gather kernel; the indices
    are bounds-checked first (IndexError), as take's."""
    if not isinstance(x, ndarray):
        raise TypeError(f"take_along_axis: expected a hip.tensor array, got {type(x).__name__}")
    if not isinstance(indices, ndarray):
        raise TypeError(f"take_along_axis: indices must be a hip.tensor array, got {type(indices).__name__}")
    if indices.dtype.kind not in "iu":
        raise IndexError(f"take_along_axis: indices must be integers, got {indices.dtype.name}")
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices ({indices.ndim}-d) must have x's number of dimensions "
                         f"({x.ndim})")
    if x.ndim == 0:
        raise ValueError("take_along_axis: a 0-d array has no axis")
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    # every dimension but `axis` broadcasts; along `axis` the result has the indices' length
    rest = broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                            indices.shape[:axis] + (1,) + indices.shape[axis + 1:])
    res_shape = rest[:axis] + (indices.shape[axis],) + rest[axis + 1:]
    out = ndarray._empty(res_shape, x.dtype, x.device_id)
    if out.size == 0:
        return out
    _check_bounds([_Adv(indices, axis, n)])
    # src: each output element's line start (stride 0 along axis); the kernel adds k * stride
    src = x._view(x.ptr, res_shape, broadcast_strides(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                                                      x.strides[:axis] + (0,) + x.strides[axis + 1:], res_shape))
    idx = indices._view(indices.ptr, res_shape, broadcast_strides(indices.shape, indices.strides, res_shape))
    _index_kernel(1)(src, idx, np.int64(n), np.int64(x.strides[axis]), out)
    return out


def _shape_arg(shape, what: str) -> tuple[int, ...]:
    shape = (shape,) if _is_int(shape) else tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"{what}: dimensions must be non-negative, got {shape}")
    return shape


def _index_arg(k, what: str) -> ndarray:
    if not isinstance(k, ndarray):
        raise TypeError(f"{what}: expected hip.tensor arrays of indices, got {type(k).__name__}")
    if k.dtype.kind not in "iu":
        raise TypeError(f"{what}: only int indices permitted, got {k.dtype.name}")
    return k.astype(_dt.int64, copy=False)


def unravel_index(indices, shape, order="C") -> tuple[ndarray, ...]:
    """NumPy's `unravel_index`: the coordinates (int64 arrays of indices' shape, one per
    dimension) of the flat `indices` into an array of `shape` in C (or Fortran, `order="F"`)
    order; an index out of range is a ValueError."""
    k = _index_arg(indices, "unravel_index")
    dims = _shape_arg(shape, "unravel_index")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    total = prod(dims)
    if k.size and bool(_any((k < 0) | (k >= total))):
        raise ValueError(f"index out of bounds for an array of size {total}")
    out = []
    for n in (reversed(dims) if order == "C" else dims):
        out.append(k % n if n else k)
        k = k // n if n else k
    return tuple(reversed(out)) if order == "C" else tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C") -> ndarray:
    """NumPy's `ravel_multi_index`: the flat indices (int64) of the coordinate arrays
    `multi_index` (one per dimension, broadcast) into an array of shape `dims`, in C or Fortran
    order; `mode` "raise" (a coordinate out of range is a ValueError), "wrap" or "clip", or a
    sequence of them, one per dimension."""
    dims = _shape_arg(dims, "ravel_multi_index")
    ks = [_index_arg(k, "ravel_multi_index") for k in multi_index]
    if len(ks) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in ("raise", "wrap", "clip") for m in modes):
        raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip' (one or one per dimension), "
                         f"got {mode!r}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    bad = None
    for j, (k, n, m) in enumerate(zip(ks, dims, modes)):
        if m == "raise":
            b = (k < 0) | (k >= n)
            bad = b if bad is None else bad | b
        elif m == "wrap":
            ks[j] = k % n if n else k
        else:
            ks[j] = k.clip(0, max(n - 1, 0))
    if bad is not None and bad.size and bool(_any(bad)):
        raise ValueError("invalid entry in coordinates array")
    strides = c_strides(dims, 1) if order == "C" else tuple(prod(dims[:i]) for i in range(len(dims)))
    flat = None
    for k, st in zip(ks, strides):
        t = k * st
        flat = t if flat is None else flat + t
    if flat is None:
        raise ValueError("ravel_multi_index: at least one dimension is needed")
    return flat


# ndarray's x[key] and x[key] = value
register(getitem=getitem, setitem=setitem)
