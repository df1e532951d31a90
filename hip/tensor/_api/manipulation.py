"""The array API's manipulation functions: views where the layout allows (reshape, permute_dims,
broadcast_to, expand_dims, squeeze, flip, moveaxis, unstack), copies through the casting copy
kernel otherwise (concat, stack, roll, tile, repeat)."""
from __future__ import annotations

import operator

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray, register
from .._core.plans import PlanCache, all_ints
from .._core.shapes import (broadcast_shapes, broadcast_strides, c_strides, normalize_axes, normalize_axis, prod,
                            reshape_strides)
from .._kernels.copy import copy_kernel

__all__ = ["reshape", "permute_dims", "broadcast_to", "broadcast_arrays", "expand_dims", "squeeze",
           "concat", "stack", "flip", "roll", "moveaxis", "tile", "repeat", "unstack", "broadcast_shapes", "astype"]


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


def astype(x, dtype, /, *, copy: bool = True, device=None) -> ndarray:
    """x converted to `dtype` (the array API's function form of ndarray.astype)."""
    _need_array(x, "astype")
    if device is not None:
        x = x.to_device(device)
    return x.astype(dtype, copy=copy)


def _resolve_shape(shape, size: int) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be a sequence of ints, got {shape!r}") from None
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension (-1)")
    if any(s < -1 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    if unknown:
        known = prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if prod(shape) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return shape


# (shape, strides, itemsize, the shape asked for) -> the view's (shape, strides), None where it needs a copy
_reshapes = PlanCache()
# (ndim, axes as given) -> the axes as non-negative ints, a permutation
_permutations = PlanCache()


def reshape(x, /, shape, *, copy=None) -> ndarray:
    """x with a new shape: a view when the strides allow, else a copy (copy=False then raises)."""
    _need_array(x, "reshape")
    key = None
    if not copy and type(shape) is tuple and all_ints(shape):
        key = (x._shape, x._strides, x._dtype.itemsize, shape)
        view = _reshapes.get(key)
        if view is not None:
            return x._view(x._ptr, *view)
    shape = _resolve_shape(shape, x.size)
    if not copy:
        strides = reshape_strides(x.shape, x.strides, shape, x.itemsize)
        if strides is not None:
            if key is not None:
                _reshapes.put(key, (shape, strides))
            return x._view(x.ptr, shape, strides)
        if copy is False:
            raise ValueError(f"reshape of this layout (strides {x.strides}) to {shape} needs a copy")
    c = x.copy()
    return c._view(c.ptr, shape, _c_strides(shape, c.itemsize))


def _c_strides(shape, itemsize):
    return c_strides(shape, itemsize)


def permute_dims(x, /, axes) -> ndarray:
    _need_array(x, "permute_dims")
    sh, st = x._shape, x._strides
    key = (len(sh), axes) if type(axes) is tuple and all_ints(axes) else None
    perm = _permutations.get(key) if key is not None else None
    if perm is None:
        perm = tuple(normalize_axis(a, x.ndim) for a in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(f"axes {perm} are not a permutation of {x.ndim} dimensions")
        if key is not None:
            _permutations.put(key, perm)
    return x._view(x._ptr, tuple([sh[a] for a in perm]), tuple([st[a] for a in perm]))


def broadcast_to(x, /, shape) -> ndarray:
    """A read-only view of x repeated to `shape` (stride 0 where repeated)."""
    _need_array(x, "broadcast_to")
    shape = tuple(operator.index(s) for s in shape)
    strides = broadcast_strides(x.shape, x.strides, shape)
    v = x._view(x.ptr, shape, strides)
    if strides != tuple(x.strides) or shape != x.shape:
        v._readonly = True
    return v


def broadcast_arrays(*arrays) -> tuple[ndarray, ...]:
    """Views of the arrays broadcast to one shape, a tuple (2025.12, as NumPy 2; a list in earlier
    versions' namespaces)."""
    for a in arrays:
        _need_array(a, "broadcast_arrays")
    shape = broadcast_shapes(*[a.shape for a in arrays])
    return tuple(broadcast_to(a, shape) for a in arrays)


def expand_dims(x, /, axis=0) -> ndarray:
    _need_array(x, "expand_dims")
    nd = x.ndim + 1
    axes = axis if isinstance(axis, tuple) else (axis,)
    nd = x.ndim + len(axes)
    axes = normalize_axes(axes, nd)
    shape, strides = list(x.shape), list(x.strides)
    for a in axes:
        shape.insert(a, 1)
        strides.insert(a, 0)
    return x._view(x.ptr, tuple(shape), tuple(strides))


def squeeze(x, /, axis=None) -> ndarray:
    """x without size-1 axes (`axis`: those; None: all of them). A squeezed axis must have size 1."""
    _need_array(x, "squeeze")
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    keep = [i for i in range(x.ndim) if i not in axes]
    return x._view(x.ptr, tuple(x.shape[i] for i in keep), tuple(x.strides[i] for i in keep))


def moveaxis(x, source, destination, /) -> ndarray:
    _need_array(x, "moveaxis")
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    if len(src) != len(dst):
        raise ValueError("source and destination must have the same number of axes")
    src = [normalize_axis(a, x.ndim) for a in src]
    dst = [normalize_axis(a, x.ndim) for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("repeated axis in moveaxis")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def flip(x, /, *, axis=None) -> ndarray:
    """A view of x reversed along `axis` (all axes by default): negative strides."""
    _need_array(x, "flip")
    axes = normalize_axes(axis, x.ndim)
    ptr, strides = x.ptr, list(x.strides)
    for a in axes:
        if x.shape[a] > 0:
            ptr += (x.shape[a] - 1) * strides[a]
        strides[a] = -strides[a]
    return x._view(ptr, x.shape, tuple(strides))


def _copy_into(dst: ndarray, src) -> None:
    if dst.size:
        copy_kernel()(src, dst)


def _arrays(arrays, name: str) -> list:
    """The arrays of a sequence: at least one, each an ndarray."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"{name} needs at least one array")
    for a in arrays:
        _need_array(a, name)
    return arrays


def concat(arrays, /, *, axis=0) -> ndarray:
    """The arrays joined along an existing axis (axis=None: flattened first); dtype by promotion."""
    arrays = _arrays(arrays, "concat")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(axis, nd)
    for a in arrays:
        if a.ndim != nd or any(a.shape[i] != arrays[0].shape[i] for i in range(nd) if i != axis):
            raise ValueError(f"concat: shapes {[x.shape for x in arrays]} differ outside axis {axis}")
    d = _dt.result_type(*arrays)
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = ndarray._empty(tuple(shape), d, arrays[0].device_id)
    start = 0
    for a in arrays:
        n = a.shape[axis]
        _copy_into(out._view(out.ptr + start * out.strides[axis], a.shape, out.strides), a)
        start += n
    return out


def stack(arrays, /, *, axis=0) -> ndarray:
    arrays = _arrays(arrays, "stack")
    if len({a.shape for a in arrays}) != 1:
        raise ValueError(f"stack: all arrays must have one shape, got {[a.shape for a in arrays]}")
    axis = normalize_axis(axis, arrays[0].ndim + 1)
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def unstack(x, /, *, axis=0) -> tuple[ndarray, ...]:
    _need_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack needs at least one dimension")
    axis = normalize_axis(axis, x.ndim)
    shape = x.shape[:axis] + x.shape[axis + 1:]
    strides = x.strides[:axis] + x.strides[axis + 1:]
    return tuple(x._view(x.ptr + i * x.strides[axis], shape, strides) for i in range(x.shape[axis]))


def roll(x, /, shift, *, axis=None) -> ndarray:
    """Elements shifted along axes (cyclically); axis=None rolls the flattened array."""
    _need_array(x, "roll")
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, axis=0), x.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = tuple(shifts) * len(axes)
        elif len(axes) == 1:
            axes = tuple(axes) * len(shifts)
        else:
            raise ValueError("shift and axis must have the same length")
    total = {}
    for s, a in zip(shifts, axes):
        a = normalize_axis(a, x.ndim)
        total[a] = total.get(a, 0) + operator.index(s)
    out = ndarray._empty(x.shape, x.dtype, x.device_id)
    if out.size == 0:
        return out
    # each output block is one rectangular piece of x: 2 per rolled axis
    pieces = [((), x.ptr, out.ptr)]
    shape = list(x.shape)
    for a, s in total.items():
        n = x.shape[a]
        s %= n
        nxt = []
        for extra, sp, dp in pieces:
            # out[s:] = x[:n-s]; out[:s] = x[n-s:]
            nxt.append((extra + ((a, n - s),), sp, dp + s * out.strides[a]))
            nxt.append((extra + ((a, s),), sp + (n - s) * x.strides[a], dp))
        pieces = nxt
    for extra, sp, dp in pieces:
        shp = list(shape)
        for a, length in extra:
            shp[a] = length
        if prod(shp) == 0:
            continue
        _copy_into(out._view(dp, tuple(shp), out.strides), x._view(sp, tuple(shp), x.strides))
    return out


def tile(x, repetitions, /) -> ndarray:
    """x repeated `repetitions` times per axis (NumPy's tile)."""
    _need_array(x, "tile")
    reps = tuple(operator.index(r) for r in (repetitions if isinstance(repetitions, (tuple, list)) else (repetitions,)))
    if any(r < 0 for r in reps):
        raise ValueError("tile: repetitions must be non-negative")
    nd = max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    xs = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    inter_shape, inter = [], []
    for r, d in zip(reps, xs.shape):
        inter_shape += [1, d]
        inter += [r, d]
    v = broadcast_to(reshape(xs, tuple(inter_shape)), tuple(inter))
    return reshape(v.copy(), tuple(r * d for r, d in zip(reps, xs.shape)))


def repeat(x, repeats, /, *, axis=None) -> ndarray:
    """Each element repeated `repeats` times (an int, or one count per element along `axis`)."""
    _need_array(x, "repeat")
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(repeats, (int, np.integer)):
        r = operator.index(repeats)
        if r < 0:
            raise ValueError("repeat: repeats must be non-negative")
        e = expand_dims(x, axis=axis + 1)
        shape = list(e.shape)
        shape[axis + 1] = r
        v = broadcast_to(e, tuple(shape)).copy()
        out_shape = list(x.shape)
        out_shape[axis] = n * r
        return reshape(v, tuple(out_shape))
    counts = repeats.get() if isinstance(repeats, ndarray) else np.asarray(repeats)
    if counts.dtype.kind not in "iu":
        raise TypeError("repeat: repeats must be integers")
    counts = counts.reshape(-1)
    if counts.size == 1:
        return repeat(x, int(counts[0]), axis=axis)
    if counts.size != n:
        raise ValueError(f"repeat: {counts.size} counts for an axis of length {n}")
    if (counts < 0).any():
        raise ValueError("repeat: repeats must be non-negative")
    idx = np.repeat(np.arange(n, dtype=np.int64), counts)
    return x[(slice(None),) * axis + (idx,)]       # take(x, idx, axis=axis): the array's own indexing


# ndarray's reshape, transpose, ravel, flatten and squeeze call these
register(reshape=reshape, permute_dims=permute_dims, squeeze=squeeze)
