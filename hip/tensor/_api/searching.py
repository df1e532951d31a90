"""The array API's searching functions (2023.12): argmax, argmin, nonzero, searchsorted, where;
and count_nonzero (2024.12). Also NumPy's `interp` (piecewise-linear interpolation: a
searchsorted and a few element-wise operations), outside the array API.

argmax/argmin follow NumPy: the first position of the extreme value; a NaN is the extreme (the
first NaN wins); complex values compare lexicographically. searchsorted uses the sort order of
`sort` (NaNs last, -0.0 == +0.0). nonzero needs the count before it can allocate: it reads one
number back (a synchronization), as every implementation of it does.
"""
from __future__ import annotations

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.shapes import collapse, normalize_axes, normalize_axis, prod
from .._kernels.elementwise import ElementwiseKernel, _common_device, grid_for, scalar_value
from .._kernels.reduction import ReductionKernel
from .._kernels.template import TemplateKernel, dims, launch_flat, launch_grid, pow2_ceil
from .creation import asarray
from .elementwise import clip, imag, isnan, math_dtype, real
from .indexing import take
from .manipulation import concat, reshape
from .sorting import SORT_KEYS, argsort
from .statistical import cumulative_sum

__all__ = ["argmax", "argmin", "nonzero", "searchsorted", "where", "count_nonzero", "interp"]


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


# -- argmax / argmin: a reduction of (value, position) pairs -------------------------------------------
ARG_HELPERS = r"""
#ifndef HT_ARG_HELPERS
#define HT_ARG_HELPERS 1
/* whether candidate (w, j) replaces the current (v, i) for argmax (is_max) or argmin; a position
   < 0 is "nothing yet"; the first NaN wins, then the extreme value, then the lower position */
template <class A> HT_D bool ht_arg_better(const A& w, long long j, const A& v, long long i, bool is_max) {
    if (j < 0) return false;
    if (i < 0) return true;
    if (ht_isnan(v)) return ht_isnan(w) && j < i;
    if (ht_isnan(w)) return true;
    if (is_max ? (v < w) : (w < v)) return true;
    if (w == v) return j < i;
    return false;
}
#endif
"""

ARG_BLOCK = 256
_MIN_PER_LANE = 32


def _argext_source(d: _dt.DType, kn: int, rn: int, lane_major: bool, final: bool, is_max: bool):
    a = math_dtype(d)
    A = a.ctype
    name = (f"ht_arg{'max' if is_max else 'min'}_{d.name}_{kn}_{rn}_{'l' if lane_major else 'i'}"
            f"{'_final' if final else ''}")
    if final:
        load = "const A v = pv[o * R + r]; const long long j = pi[o * R + r];"
    else:
        load = (f"const A v = ht_cast<A>(ht_at<{d.ctype}>(x, ko + ht_offset<{rn}>(r, rshape, rstr)));"
                " const long long j = r;")
    src = ARG_HELPERS + f"""
extern "C" __global__ void {name}(const char* __restrict__ x, ht_dims<{kn}> kshape, ht_dims<{kn}> kstr,
        ht_dims<{rn}> rshape, ht_dims<{rn}> rstr, const {A}* pv, const long long* pi, long long M, long long R,
        long long chunk, int G, {A}* ov, long long* oi, long long* out) {{
    typedef {A} A;
    __shared__ A sv[{ARG_BLOCK}];
    __shared__ long long si[{ARG_BLOCK}];
    const int tid = threadIdx.x, per = blockDim.x / G;
    const int lane = {'tid % G' if lane_major else 'tid / per'};
    const int ol = {'tid / G' if lane_major else 'tid % per'};
    const long long o = (long long)blockIdx.x * per + ol;
    const long long rb = (long long)blockIdx.y * chunk;
    const long long re = (R - rb < chunk) ? R : rb + chunk;
    A best = ht_cast<A>(0);
    long long bi = -1;
    if (o < M) {{
        {'' if final else f'const long long ko = ht_offset<{kn}>(o, kshape, kstr);'}
        for (long long r = rb + lane; r < re; r += G) {{
            {load}
            if (ht_arg_better(v, j, best, bi, {'true' if is_max else 'false'})) {{ best = v; bi = j; }}
        }}
    }}
    sv[tid] = best;
    si[tid] = bi;
    __syncthreads();
    for (int s = G >> 1; s > 0; s >>= 1) {{
        if (lane < s) {{
            const int q = tid + s * {'1' if lane_major else 'per'};
            if (ht_arg_better(sv[q], si[q], sv[tid], si[tid], {'true' if is_max else 'false'})) {{
                sv[tid] = sv[q];
                si[tid] = si[q];
            }}
        }}
        __syncthreads();
    }}
    if (lane == 0 && o < M) {{
        if (out) out[o] = si[tid];
        else {{ ov[o * gridDim.y + blockIdx.y] = sv[tid]; oi[o * gridDim.y + blockIdx.y] = si[tid]; }}
    }}
}}
"""
    return src, name


ARGEXT = TemplateKernel("ht_argext", _argext_source)


def _group(R: int, M: int, lane_major: bool) -> tuple[int, int]:
    """(lanes per output G, threads per block) as ReductionKernel chooses them."""
    block = ARG_BLOCK
    if lane_major:
        G = min(block, pow2_ceil(R))
    else:
        per = min(32, pow2_ceil(M))
        G = min(block // per, pow2_ceil(R))
    return G, max(G, min(block, G * pow2_ceil(M)))


def _argext(name: str, is_max: bool, x, axis, keepdims):
    _need_array(x, name)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        if isinstance(axis, (tuple, list)):
            raise TypeError(f"{name}: axis must be an int or None, got {type(axis).__name__}")
        axes = (normalize_axis(axis, x.ndim),)
    kept = [i for i in range(x.ndim) if i not in axes]
    kshape = tuple(x.shape[i] for i in kept)
    rshape = tuple(x.shape[i] for i in axes)
    M, R = prod(kshape), prod(rshape)
    if R == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out_shape = tuple(1 if i in axes else x.shape[i] for i in range(x.ndim)) if keepdims else kshape
    dev = x.device_id
    out = ndarray._empty(out_shape, _dt.int64, dev)
    if M == 0:
        return out
    ck, (kstr,) = collapse(kshape, [tuple(x.strides[i] for i in kept)])
    cr, (rstr,) = collapse(rshape, [tuple(x.strides[i] for i in axes)])
    if not ck:
        ck, kstr = (1,), (0,)
    if not cr:
        cr, rstr = (1,), (0,)
    lane_major = M == 1 or abs(rstr[-1]) <= abs(kstr[-1])
    G, block = _group(R, M, lane_major)
    per = block // G
    blocks = -(-M // per)
    target = grid_for(1 << 62, dev, 1) // 8
    P = 1
    if blocks < target and R >= 2 * G * _MIN_PER_LANE:
        P = min(-(-target // blocks), R // (G * _MIN_PER_LANE), 65535)
    chunk = -(-R // P)
    P = -(-R // chunk)
    geo = [x, dims(ck), dims(kstr), dims(cr), dims(rstr), None, None, M, R, chunk, np.int32(G)]
    fn = ARGEXT.function(dev, x.dtype, len(ck), len(cr), lane_major, False, is_max)
    if P == 1:
        launch_grid(fn, (blocks, 1, 1), block, geo + [None, None, out], dev)
        return out
    a = math_dtype(x.dtype)
    pv = ndarray._empty((M, P), a, dev)
    pi = ndarray._empty((M, P), _dt.int64, dev)
    launch_grid(fn, (blocks, P, 1), block, geo + [pv, pi, None], dev)
    G2, block2 = _group(P, M, True)
    fn2 = ARGEXT.function(dev, x.dtype, 1, 1, True, True, is_max)
    args2 = [None, dims((1,)), dims((0,)), dims((1,)), dims((0,)), pv, pi, M, P, P, np.int32(G2), None, None, out]
    launch_grid(fn2, (-(-M // (block2 // G2)), 1, 1), block2, args2, dev)
    return out


def argmax(x, /, *, axis=None, keepdims=False) -> ndarray:
    """Positions of the maxima (int64): the first one; a NaN counts as the maximum."""
    return _argext("argmax", True, x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False) -> ndarray:
    """Positions of the minima (int64): the first one; a NaN counts as the minimum."""
    return _argext("argmin", False, x, axis, keepdims)


# -- where -------------------------------------------------------------------------------------------------
_where_k = ElementwiseKernel("C c, X1 a, X2 b", "Y y", "y = ht_cast<bool>(c) ? ht_cast<Y>(a) : ht_cast<Y>(b)",
                             "ht_where")


def _operand(name, v):
    if isinstance(v, ndarray):
        return v.dtype
    if isinstance(v, (bool, int, float, complex)):
        return v
    if isinstance(v, np.generic):
        return _dt.dtype(v.dtype)
    raise TypeError(f"{name}: expected hip.tensor arrays or Python scalars, got {type(v).__name__}")


def where(condition, x1, x2, /) -> ndarray:
    """Elements of x1 where condition is true, else of x2 (broadcast; dtype: result_type(x1, x2))."""
    _need_array(condition, "where")
    y = _dt.result_type(_operand("where", x1), _operand("where", x2))
    args = [a if isinstance(a, ndarray) else scalar_value(a, y) for a in (x1, x2)]
    b = {"Y": y}
    for p, a in (("X1", x1), ("X2", x2)):
        if not isinstance(a, ndarray):
            b[p] = y
    return _where_k(condition, *args, _bindings=b)


# -- nonzero ---------------------------------------------------------------------------------------------------
def _nonzero_source(nd: int):
    name = f"ht_nonzero_{nd}"
    src = f"""
extern "C" __global__ void {name}(const bool* __restrict__ m, const long long* __restrict__ s, long long n,
        long long count, ht_dims<{nd}> shape, long long* out) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        if (!m[i]) continue;
        const long long p = s[i] - 1;
        long long r = i;
#pragma unroll
        for (int d = {nd} - 1; d >= 0; --d) {{
            const long long e = shape.v[d];
            out[d * count + p] = r % e;
            r /= e;
        }}
    }}
}}
"""
    return src, name


NONZERO = TemplateKernel("ht_nonzero", _nonzero_source)


def nonzero(x, /) -> tuple[ndarray, ...]:
    """The coordinates of x's nonzero elements in C order: one int64 array per dimension."""
    _need_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array is not defined (the array API and NumPy 2 refuse it)")
    dev = x.device_id
    n = x.size
    count = 0
    if n:
        mask = reshape(x.astype(_dt.bool), (-1,))
        scan = cumulative_sum(mask)
        count = int(scan[n - 1])
    out = ndarray._empty((x.ndim, count), _dt.int64, dev)
    if count:
        launch_flat(NONZERO.function(dev, x.ndim), n, [mask, scan, n, count, dims(x.shape), out], dev)
    return tuple(out[d] for d in range(x.ndim))


# -- searchsorted ----------------------------------------------------------------------------------------------
_SEARCH_OP = ("const auto _key = ht_skey(ht_cast<C>(v)); long long _lo = 0, _hi = n; "
              "while (_lo < _hi) {{ const long long _mid = (_lo + _hi) >> 1; const auto _km = ht_skey(a[_mid]); "
              "if ({test}) _lo = _mid + 1; else _hi = _mid; }} y = _lo")
_search_k = {
    "left": ElementwiseKernel("raw C a, V v, int64 n", "int64 y", _SEARCH_OP.format(test="ht_kless(_km, _key)"),
                              "ht_searchsorted_left", preamble=SORT_KEYS),
    "right": ElementwiseKernel("raw C a, V v, int64 n", "int64 y", _SEARCH_OP.format(test="!ht_kless(_key, _km)"),
                               "ht_searchsorted_right", preamble=SORT_KEYS),
}


def searchsorted(x1, x2, /, *, side="left", sorter=None) -> ndarray:
    """Insertion positions (int64, x2's shape) of x2's values in the sorted 1-d x1 (NaNs last)."""
    _need_array(x1, "searchsorted")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-d, got {x1.ndim}-d")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    c = _dt.result_type(x1.dtype, _operand("searchsorted", x2))
    if sorter is not None:
        if not isinstance(sorter, ndarray):
            raise TypeError(f"searchsorted: sorter must be a hip.tensor array, got {type(sorter).__name__}")
        if sorter.ndim != 1 or sorter.shape[0] != x1.shape[0] or sorter.dtype.kind not in "iu":
            raise ValueError("searchsorted: sorter must be a 1-d integer array as long as x1")
        x1 = take(x1, sorter)
    a = x1.astype(c, copy=False)
    if not a.is_c_contiguous:
        a = a.copy()
    if isinstance(x2, ndarray):
        _common_device([a, x2])
        return _search_k[side](a, x2, np.int64(a.shape[0]), _bindings={"C": c})
    return _search_k[side](a, scalar_value(x2, c), np.int64(a.shape[0]), _bindings={"C": c, "V": c})


# -- count_nonzero -------------------------------------------------------------------------------------------
_count_k = ReductionKernel("X x", "int64 y", "ht_cast<bool>(x) ? 1LL : 0LL", "a + b", "y = a", "0",
                           "ht_count_nonzero")


def count_nonzero(x, /, *, axis=None, keepdims=False) -> ndarray:
    """Number of nonzero elements (int64) over `axis` (None: all)."""
    _need_array(x, "count_nonzero")
    normalize_axes(axis, x.ndim)
    return _count_k(x, axis=axis, keepdims=keepdims)



# -- interp (NumPy's) ------------------------------------------------------------------------------------------
def _interp_operand(v, dtype, device_id, what):
    if isinstance(v, ndarray):
        return v.astype(dtype, copy=False)
    if isinstance(v, (bool, int, float, complex, np.generic, list, tuple)):
        return asarray(v, dtype=dtype, device=device_id)
    raise TypeError(f"interp: {what} must be a hip.tensor array or a scalar, got {type(v).__name__}")


def interp(x, xp, fp, left=None, right=None, period=None) -> ndarray:
    """NumPy's `interp`: the piecewise-linear interpolant of the points (xp, fp) (xp increasing,
    1-d) at x; `left`/`right` (default fp[0], fp[-1]) outside [xp[0], xp[-1]], fp[-1] at xp[-1];
    `period` makes xp periodic (left and right are then ignored). float64 (complex128 for complex
    fp), as NumPy computes it."""
    arrays = [a for a in (x, xp, fp) if isinstance(a, ndarray)]
    if not arrays:
        raise TypeError("interp: expected hip.tensor arrays")
    _common_device(arrays)
    dev = arrays[0].device_id
    sp, sf = (a.shape if isinstance(a, ndarray) else np.shape(a) for a in (xp, fp))
    if len(sp) != 1 or len(sf) != 1:                     # (checked before any device work)
        raise ValueError("Data points must be 1D sequences")
    if sp != sf:
        raise ValueError("fp and xp are not of the same length.")
    if sp[0] == 0:
        raise ValueError("array of sample points is empty")
    if period is not None and period == 0:
        raise ValueError("period must be a non-zero value")
    fk = fp.dtype.kind if isinstance(fp, ndarray) else np.asarray(fp).dtype.kind
    out = _dt.complex128 if fk == "c" else _dt.float64
    x = _interp_operand(x, _dt.float64, dev, "x")
    xp = _interp_operand(xp, _dt.float64, dev, "xp")
    fp = _interp_operand(fp, out, dev, "fp")
    if period is not None:
        period = abs(period)
        left = right = None
        x, xp = x % period, xp % period
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concat([xp[-1:] - period, xp, xp[0:1] + period])
        fp = concat([fp[-1:], fp, fp[0:1]])
    if out.kind == "c":
        def part(v, f):
            return None if v is None else f(_interp_operand(v, out, dev, "left/right"))
        re = _interp_real(x, xp, real(fp), part(left, real), part(right, real), dev)
        im = _interp_real(x, xp, imag(fp), part(left, imag), part(right, imag), dev)
        return re.astype(out) + im.astype(out) * 1j
    return _interp_real(x, xp, fp, left, right, dev)


def _interp_real(x, xp, fp, left, right, dev):
    # NumPy's compiled loop (numpy/_core/src/multiarray/compiled_base.c, arr_interp), element-wise
    n = xp.shape[0]
    left = fp[0] if left is None else _interp_operand(left, _dt.float64, dev, "left")
    right = fp[n - 1] if right is None else _interp_operand(right, _dt.float64, dev, "right")
    if n == 1:                                          # (NumPy's: no NaN test here)
        return where(x < xp[0], left, where(x > xp[0], right, fp[0]))
    j = searchsorted(xp, x, side="right") - 1         # xp[j] <= x < xp[j + 1]
    jc = clip(j, 0, n - 2)
    x0, x1, y0, y1 = take(xp, jc), take(xp, jc + 1), take(fp, jc), take(fp, jc + 1)
    slope = (y1 - y0) / (x1 - x0)
    r = slope * (x - x0) + y0
    # NaN from one end (an infinite slope or point): from the other, then fp[j] where both agree
    r2 = slope * (x - x1) + y1
    r = where(isnan(r), where(isnan(r2) & (y0 == y1), y0, r2), r)
    r = where(x == x0, y0, r)
    last = xp[n - 1]
    r = where(x == last, fp[n - 1], r)
    r = where(x > last, right, r)
    r = where(x < xp[0], left, r)
    return where(isnan(x), x, r)
