"""hipFFT's advanced data layout for a transform over any axes of a strided array, without a copy
(pure Python: the CPU tests replay the layouts with NumPy).

hipfftMakePlanMany addresses element (b, i_0, ..., i_{r-1}) of a plan's batch b at
    b * idist + istride * (i_{r-1} + inembed[r-1] * (i_{r-2} + inembed[r-2] * (... + inembed[1] * i_0)))
so the transformed axes, ordered by decreasing stride, must have strides that divide one another
(then the coefficient of i_k is exactly axis k's stride); the batch is one axis, or axes that fold
into one, of any positive stride (idist 1 for the trailing axes of a C-contiguous array). Other
batch axes are walked with one hipFFT call each (pointer offsets), a few calls at most.
The output is allocated in the input's memory order (NumPy's order "K"), so that a C-contiguous
input gives a C-contiguous result and a transposed one a transposed result, with the same layout.
"""
from __future__ import annotations

import itertools
import math
from typing import NamedTuple

__all__ = ["Layout", "plan_layout", "MAX_CALLS"]

MAX_CALLS = 16                  # hipFFT calls per transform; beyond it a contiguous copy is cheaper
INT_MAX = 2 ** 31 - 1           # hipfftMakePlanMany's lengths, embeds, strides, distances and batch are C ints


class Layout(NamedTuple):
    plan: tuple                 # (n, inembed, istride, idist, onembed, ostride, odist, batch): the plan's key
    calls: tuple                # ((input offset, output offset) in elements, ...): one hipFFT call each
    order: tuple                # the output's axes from outermost to innermost in memory
    alloc_shape: tuple          # the output's shape in that order (C-contiguous allocation)


def out_lengths(kind: str, shape, axes, n_last: int | None = None) -> tuple:
    """The output's shape: r2c halves the last transformed axis, c2r restores n_last there."""
    out = list(shape)
    if kind == "r2c":
        out[axes[-1]] = shape[axes[-1]] // 2 + 1
    elif kind == "c2r":
        out[axes[-1]] = n_last
    return tuple(out)


def _nest(strides, lengths):
    """(embed, innermost stride) of dimensions (outer first) whose strides divide one another,
    else None."""
    if any(s <= 0 for s in strides):
        return None
    embed = [lengths[0]]
    for j in range(1, len(strides)):
        q, r = divmod(strides[j - 1], strides[j])
        if r or q < lengths[j]:
            return None
        embed.append(q)
    return tuple(embed), strides[-1]


def plan_layout(kind: str, shape, strides, axes, n_last: int | None = None,
                max_calls: int = MAX_CALLS) -> Layout | None:
    """The hipFFT layout of a `kind` ('c2c', 'r2c', 'c2r') transform over `axes` (distinct, at most
    3; r2c/c2r: the last is the halved one) of an array of `shape` and `strides` (in elements),
    or None where the advanced layout cannot express it (then the caller copies)."""
    nd = len(shape)
    axes = tuple(axes)
    oshape = out_lengths(kind, shape, axes, n_last)
    # the output's memory order: the input's (|stride| decreasing, axis index breaking ties;
    # broadcast axes outermost, so that their calls' outputs lie whole blocks apart)
    order = tuple(sorted(range(nd), key=lambda a: (-abs(strides[a]) if strides[a] else -math.inf, a)))
    alloc_shape = tuple(oshape[a] for a in order)
    ostrides = [0] * nd
    s = 1
    for a in reversed(order):
        ostrides[a] = s
        s *= max(oshape[a], 1)
    if 0 in shape or 0 in oshape:
        return Layout((), (), order, alloc_shape)
    halved = axes[-1:] if kind != "c2c" else ()
    # a length-1 axis transforms to itself (and its stride is arbitrary): it joins the batch
    axes = tuple(a for a in axes if a in halved or shape[a] != 1) or axes[-1:]
    if len(axes) == 1:
        dims = list(axes)
    else:
        dims = sorted((a for a in axes if a not in halved), key=lambda a: (-strides[a], a)) + list(halved)
    logical = tuple(n_last if (kind == "c2r" and a == axes[-1]) else shape[a] for a in dims)
    if len(dims) == 1 and shape[dims[0]] == 1:
        istrides, os_ = [1], [1]       # one element: any stride addresses it
    else:
        istrides, os_ = [strides[a] for a in dims], [ostrides[a] for a in dims]
    inner = _nest(istrides, [shape[a] for a in dims])
    outer = _nest(os_, [oshape[a] for a in dims])
    if inner is None or outer is None:
        return None
    # batch axes (outer first), folded where both the input's and the output's strides allow
    groups: list[list[int]] = []
    for a in order:
        if a in axes or shape[a] == 1:
            continue
        if groups and groups[-1][1] == strides[a] * shape[a] and groups[-1][2] == ostrides[a] * shape[a]:
            g = groups[-1]
            g[0], g[1], g[2] = g[0] * shape[a], strides[a], ostrides[a]
        else:
            groups.append([shape[a], strides[a], ostrides[a]])
    # the plan's batch: the innermost group that leaves few enough calls (batches next to one
    # another in memory read coalesced), the others walked one call per index
    total = 1
    for g in groups:
        total *= g[0]
    main = next((g for g in sorted(groups, key=lambda g: g[1]) if g[1] > 0 and total // g[0] <= max_calls), None)
    if total // (main[0] if main else 1) > max_calls:
        return None
    loops = [g for g in groups if g is not main]
    if main is not None:
        batch, idist, odist = main
    else:                               # one transform per call: the distances are not used
        batch, idist, odist = 1, istrides[0] * shape[dims[0]], os_[0] * oshape[dims[0]]
    n_total = 1
    for v in logical:
        n_total *= v
    plan = (logical, inner[0], inner[1], idist, outer[0], outer[1], odist, batch)
    if max(max(logical), max(inner[0]), max(outer[0]), inner[1], outer[1], idist, odist, batch, n_total) > INT_MAX:
        return None
    calls = tuple((sum(i * g[1] for i, g in zip(idx, loops)), sum(i * g[2] for i, g in zip(idx, loops)))
                  for idx in itertools.product(*(range(g[0]) for g in loops)))
    return Layout(plan, calls, order, alloc_shape)
