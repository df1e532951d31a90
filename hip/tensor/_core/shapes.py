"""Shape and stride arithmetic (pure Python, no device): broadcasting, axes, contiguity,
dimension collapsing for kernels, and the strides of a reshape without a copy."""
from __future__ import annotations

import operator

__all__ = ["broadcast_shapes"]


def as_shape(shape) -> tuple[int, ...]:
    """An int or a sequence of ints as a shape tuple; negative sizes and non-integers raise."""
    if isinstance(shape, (int,)) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        try:
            shape = (operator.index(shape),)
        except TypeError:
            raise TypeError(f"shape must be an int or a sequence of ints, got {type(shape).__name__}") from None
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be a sequence of ints, got {shape!r}") from None
    for s in out:
        if s < 0:
            raise ValueError(f"negative dimensions are not allowed: {out}")
    return out


def prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape several shapes broadcast to (NumPy's rules); ValueError when they do not."""
    if shapes and all(s == shapes[0] for s in shapes):
        return tuple(shapes[0])
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        off = ndim - len(s)
        for i, d in enumerate(s):
            o = out[off + i]
            if d == o or d == 1:
                continue
            if o == 1:
                out[off + i] = d
            else:
                raise ValueError(f"shapes {' '.join(str(tuple(x)) for x in shapes)} cannot be broadcast together")
    return tuple(out)


def broadcast_strides(shape, strides, target) -> tuple[int, ...]:
    """Strides of an array of `shape`/`strides` viewed as broadcast to `target` (0 where repeated)."""
    off = len(target) - len(shape)
    if off < 0:
        raise ValueError(f"cannot broadcast shape {tuple(shape)} to {tuple(target)}")
    out = [0] * len(target)
    for i, (d, s) in enumerate(zip(shape, strides)):
        t = target[off + i]
        if d == t:
            out[off + i] = s if d != 1 else 0
        elif d == 1:
            out[off + i] = 0
        else:
            raise ValueError(f"cannot broadcast shape {tuple(shape)} to {tuple(target)}")
    return tuple(out)


def normalize_axis(axis, ndim: int) -> int:
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an int, got {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise IndexError(f"axis {a} is out of bounds for an array of dimension {ndim}") from None
    return a % ndim if ndim else 0


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """None -> all axes; an int or a tuple of ints -> sorted, distinct, non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = [normalize_axis(a, ndim) for a in axis]
    else:
        axes = [normalize_axis(axis, ndim)]
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis!r}")
    return tuple(sorted(axes))


def c_strides(shape, itemsize: int) -> tuple[int, ...]:
    strides = []
    s = itemsize
    for d in reversed(shape):
        strides.append(s)
        s *= max(d, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize: int) -> tuple[int, ...]:
    strides = []
    s = itemsize
    for d in shape:
        strides.append(s)
        s *= max(d, 1)
    return tuple(strides)


_c_layouts: dict = {}


def c_layout(shape: tuple, itemsize: int) -> tuple[tuple[int, ...], int]:
    """(C-order strides, element count) of a shape tuple, cached (the per-op hot path asks often)."""
    r = _c_layouts.get((shape, itemsize))
    if r is None:
        if len(_c_layouts) > 4096:      # bounded: programs with ever new shapes
            _c_layouts.clear()
        r = _c_layouts[(shape, itemsize)] = (c_strides(shape, itemsize), prod(shape))
    return r


def is_c_contiguous(shape, strides, itemsize: int) -> bool:
    if prod(shape) == 0:
        return True
    s = itemsize
    for d, st in zip(reversed(shape), reversed(strides)):
        if d != 1 and st != s:
            return False
        s *= d
    return True


def is_f_contiguous(shape, strides, itemsize: int) -> bool:
    if prod(shape) == 0:
        return True
    s = itemsize
    for d, st in zip(shape, strides):
        if d != 1 and st != s:
            return False
        s *= d
    return True


def collapse(shape, strides_list):
    """Merge dimensions that every array walks contiguously with its neighbour and drop size-1
    dimensions: (shape, [strides...]) with the fewest dimensions giving the same C-order walk."""
    keep = [i for i, d in enumerate(shape) if d != 1]
    shape = [shape[i] for i in keep]
    strides_list = [[s[i] for i in keep] for s in strides_list]
    if not shape:
        return (), [() for _ in strides_list]
    out_shape = [shape[-1]]
    out_strides = [[s[-1]] for s in strides_list]
    for d in range(len(shape) - 2, -1, -1):
        inner = out_shape[0]
        if all(s[d] == os[0] * inner for s, os in zip(strides_list, out_strides)):
            out_shape[0] *= shape[d]
        else:
            out_shape.insert(0, shape[d])
            for s, os in zip(strides_list, out_strides):
                os.insert(0, s[d])
    return tuple(out_shape), [tuple(s) for s in out_strides]


def reshape_strides(shape, strides, new_shape, itemsize: int):
    """Strides of `new_shape` viewing the same elements in C order without a copy, or None when
    a copy is needed (NumPy's _attempt_nocopy_reshape)."""
    if prod(shape) == 0 or prod(new_shape) == 0:
        return c_strides(new_shape, itemsize)
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    odims = [d for d, _ in old]
    ostr = [s for _, s in old]
    nd = list(new_shape)
    nstr = [0] * len(nd)
    oi = ni = 0
    oj = nj = 1
    if not odims:
        return c_strides(new_shape, itemsize)
    while ni < len(nd) and oi < len(odims):
        np_ = nd[ni]
        op = odims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= nd[nj]
                nj += 1
            else:
                op *= odims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if ostr[ok] != odims[ok + 1] * ostr[ok + 1]:
                return None
        nstr[nj - 1] = ostr[oj - 1]
        for nk in range(nj - 1, ni, -1):
            nstr[nk - 1] = nstr[nk] * nd[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    last = nstr[ni - 1] if ni >= 1 else itemsize
    for nk in range(ni, len(nd)):
        nstr[nk] = last
    return tuple(nstr)


def memory_extent(ptr: int, shape, strides, itemsize: int) -> tuple[int, int]:
    """[lo, hi) byte range an array's elements occupy."""
    if prod(shape) == 0:
        return ptr, ptr
    lo = hi = ptr
    for d, s in zip(shape, strides):
        if s > 0:
            hi += (d - 1) * s
        else:
            lo += (d - 1) * s
    return lo, hi + itemsize
