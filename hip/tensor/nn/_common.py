"""Helpers shared by hip.tensor.nn: argument checks, PyTorch-style int tuples, the float dtypes
the operators take, and the C++ block and lane-group reductions of the row kernels."""
from __future__ import annotations

import numbers

from .._api.elementwise import math_dtype
from .._core import dtypes as _dt
from .._core.array import ndarray

__all__: list[str] = []

FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
MAX_GRID = 1 << 20              # row kernels' blocks at most (they loop over further rows): grid x
                                # blocks times the block stay below AMD's 2^32 work-items


def need_array(x, name: str, what: str = "input") -> ndarray:
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: {what} must be a hip.tensor array, got {type(x).__name__}")
    return x


def need_float(x, name: str, what: str = "input") -> ndarray:
    need_array(x, name, what)
    if x.dtype not in FLOATS:
        raise TypeError(f"{name}: {what} must be float16, bfloat16, float32 or float64, got {x.dtype.name}")
    return x


def same_device(name: str, *arrays) -> int:
    ids = {a.device_id for a in arrays if a is not None}
    if len(ids) > 1:
        raise ValueError(f"{name}: arrays on different devices ({sorted(ids)})")
    return ids.pop()


def compute_dtype(d: _dt.DType) -> _dt.DType:
    """float32 for the 2-byte floats (computed in float32, rounded once), else d."""
    return math_dtype(d)


def ntuple(v, n: int, name: str, what: str, minimum: int = 0) -> tuple[int, ...]:
    """An int or a sequence of n ints (PyTorch's `_pair`/`_triple`), each >= minimum."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        t = (int(v),) * n
    else:
        try:
            t = tuple(v)
        except TypeError:
            raise TypeError(f"{name}: {what} must be an int or a sequence of {n} ints, got {type(v).__name__}") \
                from None
        if len(t) == 1:
            t = t * n
        if len(t) != n or not all(isinstance(e, numbers.Integral) and not isinstance(e, bool) for e in t):
            raise ValueError(f"{name}: {what} must be an int or {n} ints, got {v!r}")
        t = tuple(int(e) for e in t)
    if any(e < minimum for e in t):
        raise ValueError(f"{name}: {what} must be >= {minimum}, got {v!r}")
    return t


def contiguous(x: ndarray) -> ndarray:
    return x if x.is_c_contiguous else x.copy()


def vector_width(x: ndarray, out: ndarray, n: int, inner: int, most: int | None = None) -> int:
    """Elements per 16-byte load where rows are contiguous, whole vectors and aligned, else 1.
    most: loads of at most `most` elements, halved until they divide n and both arrays align."""
    v = 16 // x.itemsize
    if inner != 1:
        return 1
    if most is None:
        return v if v > 1 and n % v == 0 and x.ptr % 16 == 0 and out.ptr % 16 == 0 else 1
    v = min(v, most)
    while v > 1 and (n % v or x.ptr % (v * x.itemsize) or out.ptr % (v * out.itemsize)):
        v //= 2
    return v


def check_reduction(name: str, reduction: str) -> str:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{name}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    return reduction


# A tree over the block in shared memory, one barrier per level: the block size is a power of two
# and nothing assumes the warp/wavefront width (32 on NVIDIA, 64 on AMD).
BLOCK_REDUCE = r"""
#ifndef HTNN_BLOCK_REDUCE
#define HTNN_BLOCK_REDUCE
template <class A, int BLOCK> __device__ __forceinline__ A htnn_block_max(A v, A* sm) {
    const int t = threadIdx.x;
    sm[t] = v; __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) { A o = sm[t + s]; if (o > sm[t] || o != o) sm[t] = o; }
        __syncthreads();
    }
    A r = sm[0]; __syncthreads();
    return r;
}
template <class A, int BLOCK> __device__ __forceinline__ A htnn_block_sum(A v, A* sm) {
    const int t = threadIdx.x;
    sm[t] = v; __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) sm[t] = sm[t] + sm[t + s];
        __syncthreads();
    }
    A r = sm[0]; __syncthreads();
    return r;
}
#endif
"""


# Butterfly reductions over a group of LANES adjacent lanes (a power of two, at most 32): every lane
# gets the group's result. A group lies inside an NVIDIA warp (32) and inside either half of an AMD
# wavefront (64), so the same source holds on both; the shuffle's width keeps it there. The callers
# keep every lane of a warp in the loop that shuffles (NVIDIA's full mask).
WARP_REDUCE = r"""
#ifndef HTNN_WARP_REDUCE
#define HTNN_WARP_REDUCE
template <class A> HT_D A htnn_shfl_xor(A v, int mask, int width) {
#if defined(HT_NVIDIA)
    return __shfl_xor_sync(0xffffffffu, v, mask, width);
#else
    return __shfl_xor(v, mask, width);
#endif
}
/* the largest value; NaN is passed over (the row kernels' sums carry it) */
template <int LANES, class A> HT_D A htnn_group_max(A v) {
#pragma unroll
    for (int k = LANES / 2; k > 0; k >>= 1) { const A o = htnn_shfl_xor(v, k, LANES); v = o > v ? o : v; }
    return v;
}
template <int LANES, class A> HT_D A htnn_group_sum(A v) {
#pragma unroll
    for (int k = LANES / 2; k > 0; k >>= 1) v += htnn_shfl_xor(v, k, LANES);
    return v;
}
#endif
"""
