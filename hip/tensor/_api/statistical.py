"""The array API's statistical functions (2025.12): sum, prod, mean, var, std, max, min,
cumulative_sum, cumulative_prod, over any axes with keepdims, `dtype=` per the standard; and its
utility functions any, all, diff.

Accumulation: integers in int64/uint64 (sum/prod default), float16/bfloat16 in float32, others in
their own type; results are rounded once to the output dtype.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray, register
from .._core.device import current_stream
from .._core.shapes import normalize_axes, normalize_axis, prod as _size_of
from .._kernels import compiler as _compiler
from .._kernels.elementwise import _on_device, grid_for
from .._kernels.reduction import ReductionKernel
from .._kernels.source import PRELUDE
from .creation import full
from .elementwise import math_dtype, not_equal, subtract
from .manipulation import concat, moveaxis

__all__ = ["sum", "prod", "mean", "var", "std", "max", "min", "cumulative_sum", "cumulative_prod", "any", "all",
           "diff"]

_sum_k = ReductionKernel("X x", "Y y", "ht_cast<A>(x)", "ht_add(a, b)", "y = ht_cast<Y>(a)", "0", "ht_sum",
                         reduce_type="A")
_prod_k = ReductionKernel("X x", "Y y", "ht_cast<A>(x)", "ht_mul(a, b)", "y = ht_cast<Y>(a)", "1", "ht_prod",
                          reduce_type="A")
_mean_k = ReductionKernel("X x", "Y y", "ht_cast<A>(x)", "ht_add(a, b)",
                          "y = ht_cast<Y>(a / ht_cast<A>((double)_in_ind.size() / (double)_out_ind.size()))",
                          "0", "ht_mean", reduce_type="A")
_POST_VAR = ("double _d = (double)_in_ind.size() / (double)_out_ind.size() - corr; if (_d < 0) _d = 0; "
             "y = ht_cast<Y>({f}(a / (R)_d))")
_var_k = ReductionKernel("X x, M m, float64 corr", "Y y", "ht_sqnorm(ht_cast<A>(x) - m)", "a + b",
                         _POST_VAR.format(f=""), "0", "ht_var", reduce_type="R")
_std_k = ReductionKernel("X x, M m, float64 corr", "Y y", "ht_sqnorm(ht_cast<A>(x) - m)", "a + b",
                         _POST_VAR.format(f="ht_sqrt"), "0", "ht_std", reduce_type="R")
_max_k = ReductionKernel("X x", "Y y", "ht_cast<A>(x)", "ht_maximum(a, b)", "y = ht_cast<Y>(a)", "LOWEST",
                         "ht_max", reduce_type="A")
_min_k = ReductionKernel("X x", "Y y", "ht_cast<A>(x)", "ht_minimum(a, b)", "y = ht_cast<Y>(a)", "HIGHEST",
                         "ht_min", reduce_type="A")
_any_k = ReductionKernel("X x", "bool y", "ht_cast<bool>(x)", "a || b", "y = a", "false", "ht_any")
_all_k = ReductionKernel("X x", "bool y", "ht_cast<bool>(x)", "a && b", "y = a", "true", "ht_all")


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


def _sum_dtype(d: _dt.DType, dtype) -> _dt.DType:
    if dtype is not None:
        return _dt.dtype(dtype)
    if d.kind in "bi":
        return _dt.int64
    if d.kind == "u":
        return _dt.uint64
    return d


def _check_axes(x, axis):
    normalize_axes(axis, x.ndim)   # raises on bad axes before any device work


def sum(x, /, *, axis=None, dtype=None, keepdims=False) -> ndarray:
    _need_array(x, "sum")
    _check_axes(x, axis)
    y = _sum_dtype(x.dtype, dtype)
    return _sum_k(x, axis=axis, keepdims=keepdims, _bindings={"A": math_dtype(y), "Y": y})


def prod(x, /, *, axis=None, dtype=None, keepdims=False) -> ndarray:
    _need_array(x, "prod")
    _check_axes(x, axis)
    y = _sum_dtype(x.dtype, dtype)
    return _prod_k(x, axis=axis, keepdims=keepdims, _bindings={"A": math_dtype(y), "Y": y})


def _float_of(d: _dt.DType) -> _dt.DType:
    return d if d.kind in "fc" else _dt.float64


def mean(x, /, *, axis=None, keepdims=False) -> ndarray:
    """Arithmetic mean (integers give float64, as NumPy; an empty reduction gives NaN)."""
    _need_array(x, "mean")
    _check_axes(x, axis)
    y = _float_of(x.dtype)
    return _mean_k(x, axis=axis, keepdims=keepdims, _bindings={"A": math_dtype(y), "Y": y})


def _var(k, name, x, axis, correction, keepdims):
    _need_array(x, name)
    _check_axes(x, axis)
    if isinstance(correction, (bool, np.bool_)) or not isinstance(correction, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: correction must be a real number")
    f = _float_of(x.dtype)
    a = math_dtype(f)
    m = _mean_k(x, axis=axis, keepdims=True, _bindings={"A": a, "Y": a})
    r = a.real_dtype
    return k(x, m, float(correction), axis=axis, keepdims=keepdims,
             _bindings={"A": a, "R": r, "Y": f.real_dtype})


def var(x, /, *, axis=None, correction=0.0, keepdims=False) -> ndarray:
    """Variance with `correction` (N - correction in the denominator); complex gives real."""
    return _var(_var_k, "var", x, axis, correction, keepdims)


def std(x, /, *, axis=None, correction=0.0, keepdims=False) -> ndarray:
    """Standard deviation with `correction`."""
    return _var(_std_k, "std", x, axis, correction, keepdims)


def _limit(d: _dt.DType, lowest: bool) -> str:
    """C++ literal of the lowest (or highest) value of `d`'s compute type."""
    if d.kind == "b":
        return "false" if lowest else "true"
    if d.kind == "f":
        a = math_dtype(d)
        return f"{'-' if lowest else ''}ht_real_limits<{a.ctype}>::inf()"
    info = _dt.iinfo(d)
    v = info.min if lowest else info.max
    if d.kind == "u":
        return f"{v}ULL"
    if v == -(2 ** 63):
        return "(-9223372036854775807LL - 1)"
    return f"{v}LL"


_minmax_kernels: dict = {}


def _minmax(name, x, axis, keepdims):
    _need_array(x, name)
    if x.dtype.kind == "c":
        raise TypeError(f"{name} is not defined for complex arrays")
    axes = normalize_axes(axis, x.ndim)
    if x.size == 0 and (not axes or _size_of(x.shape[a] for a in axes) == 0):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    lowest = name == "max"
    key = (name, x.dtype)
    k = _minmax_kernels.get(key)
    if k is None:
        proto = _max_k if lowest else _min_k
        k = _minmax_kernels[key] = ReductionKernel(
            "X x", "Y y", proto.map_expr, proto.reduce_expr, proto.post_map_expr, _limit(x.dtype, lowest),
            proto.name, reduce_type="A")
    a = math_dtype(x.dtype)
    return k(x, axis=axis, keepdims=keepdims, _bindings={"A": a, "Y": x.dtype})


def max(x, /, *, axis=None, keepdims=False) -> ndarray:
    """Maximum (NaN propagates); an empty reduction raises ValueError."""
    return _minmax("max", x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False) -> ndarray:
    """Minimum (NaN propagates); an empty reduction raises ValueError."""
    return _minmax("min", x, axis, keepdims)


def any(x, /, *, axis=None, keepdims=False) -> ndarray:
    _need_array(x, "any")
    _check_axes(x, axis)
    return _any_k(x, axis=axis, keepdims=keepdims)


def all(x, /, *, axis=None, keepdims=False) -> ndarray:
    _need_array(x, "all")
    _check_axes(x, axis)
    return _all_k(x, axis=axis, keepdims=keepdims)


# -- cumulative_sum, cumulative_prod: a block-wide scan per (line, chunk); long lines in two passes -------
SCAN_BLOCK = 256
# the scans' combining function and its identity
SCAN_OPS = {"sum": ("ht_add", "0"), "prod": ("ht_mul", "1")}


def scan_source(ndim: int, x: _dt.DType, y: _dt.DType, a: _dt.DType, op: str = "sum") -> tuple[str, str]:
    """(source without the prelude, kernel name) of the scan kernel (`op`: a SCAN_OPS key) for
    lines of an `ndim`-d space of lines (other axes), input x, output y, accumulator a."""
    f, one = SCAN_OPS[op]
    name = f"ht_scan_{op}_{ndim}_{x.name}_{y.name}_{a.name}"
    src = f"""
extern "C" __global__ void {name}(const char* x, ht_dims<{ndim}> lshape, ht_dims<{ndim}> lstrides,
        long long astride, {y.ctype}* out, long long n, long long n_out, long long chunk,
        const {a.ctype}* offsets, long long off_ld, {a.ctype}* totals, int include_initial) {{
    typedef {a.ctype} A;
    __shared__ A s[{SCAN_BLOCK}];
    const long long l = blockIdx.x;
    const int tid = threadIdx.x;
    const int B = blockDim.x;
    long long base = 0;
    {{ long long u = l;
#pragma unroll
      for (int d = {ndim} - 1; d >= 0; --d) {{ long long e = lshape.v[d]; base += (u % e) * lstrides.v[d]; u /= e; }} }}
    const long long lo = (long long)blockIdx.y * chunk;
    const long long hi = (lo + chunk < n) ? lo + chunk : n;
    A carry = offsets ? offsets[l * off_ld + blockIdx.y] : ht_cast<A>({one});
    if (include_initial && blockIdx.y == 0 && tid == 0 && !totals) out[l * n_out] = ht_cast<{y.ctype}>(ht_cast<A>({one}));
    for (long long t0 = lo; t0 < hi; t0 += B) {{
        const long long k = t0 + tid;
        A v = k < hi ? ht_cast<A>(ht_at<{x.ctype}>(x, base + k * astride)) : ht_cast<A>({one});
        s[tid] = v;
        __syncthreads();
        for (int off = 1; off < B; off <<= 1) {{
            A t = tid >= off ? s[tid - off] : ht_cast<A>({one});
            __syncthreads();
            s[tid] = {f}(s[tid], t);
            __syncthreads();
        }}
        if (!totals && k < hi) out[l * n_out + include_initial + k] = ht_cast<{y.ctype}>({f}(carry, s[tid]));
        carry = {f}(carry, s[B - 1]);
        __syncthreads();
    }}
    if (totals && tid == 0) totals[l * gridDim.y + blockIdx.y] = carry;
}}
"""
    return src, name


_scan_functions: dict = {}


def _scan_function(device_id, ndim, x, y, a, op):
    key = (device_id, ndim, x, y, a, op)
    fn = _scan_functions.get(key)
    if fn is None:
        body, name = scan_source(ndim, x, y, a, op)
        fn = _scan_functions[key] = _compiler.compile_module(PRELUDE + body).get_function(name)
    return fn


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False) -> ndarray:
    """Cumulative sum along `axis` (optional for 1-d input); `include_initial` prepends a zero."""
    return _scan("sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False) -> ndarray:
    """Cumulative product along `axis` (optional for 1-d input); `include_initial` prepends a one.
    dtype as cumulative_sum's (prod's): small integers accumulate in int64/uint64."""
    return _scan("prod", x, axis, dtype, include_initial)


def _scan(op: str, x, axis, dtype, include_initial) -> ndarray:
    import ctypes
    name = f"cumulative_{op}"
    _need_array(x, name)
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{name}: axis is required for arrays of more than one dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"{name} needs at least one dimension")
    axis = normalize_axis(axis, x.ndim)
    y = _sum_dtype(x.dtype, dtype)
    a = math_dtype(y)
    xm = moveaxis(x, axis, -1)
    n = xm.shape[-1]
    lines_shape = xm.shape[:-1]
    L = _size_of(lines_shape)
    n_out = n + (1 if include_initial else 0)
    out = ndarray._empty(lines_shape + (n_out,), y, x.device_id)
    if out.size:
        lshape = lines_shape or (1,)
        lstrides = xm.strides[:-1] or (0,)
        nd = len(lshape)
        dims = ctypes.c_longlong * nd
        with _on_device(x.device_id):
            stream = current_stream(x.device_id)
            fn = _scan_function(x.device_id, nd, x.dtype, y, a, op)
            target = grid_for(1 << 62, x.device_id, 1) // 8
            C = 1
            if L < target and n > 8 * SCAN_BLOCK:
                C = operator.index(builtins.min((target + L - 1) // L, (n + 8 * SCAN_BLOCK - 1) // (8 * SCAN_BLOCK), 4096))
            chunk = -(-n // C)
            chunk = -(-chunk // SCAN_BLOCK) * SCAN_BLOCK
            C = builtins.max(1, -(-n // chunk)) if n else 1
            common = [xm, dims(*lshape), dims(*lstrides), np.int64(xm.strides[-1] if n else 0), out, np.int64(n),
                      np.int64(n_out), np.int64(chunk)]
            if C == 1:
                fn.launch((L, 1, 1), (SCAN_BLOCK, 1, 1), common + [None, np.int64(0), None,
                                                                   np.int32(include_initial)], 0, stream)
            else:
                totals = ndarray._empty((L, C), a, x.device_id)
                fn.launch((L, C, 1), (SCAN_BLOCK, 1, 1), common + [None, np.int64(0), totals,
                                                                   np.int32(include_initial)], 0, stream)
                # exclusive prefix per line, in the accumulator type the kernel reads it as
                offs = _scan(op, totals, 1, a, True)
                fn.launch((L, C, 1), (SCAN_BLOCK, 1, 1), common + [offs, np.int64(C + 1), None,
                                                                   np.int32(include_initial)], 0, stream)
    return moveaxis(out, -1, axis)


def diff(x, /, *, axis: int = -1, n: int = 1, prepend=None, append=None) -> ndarray:
    """The n-th forward difference along `axis` (out[i] = x[i+1] - x[i], n times), after
    concatenating `prepend` and `append` (arrays of x's shape but along `axis`, or scalars, as
    NumPy); bool gives x[i+1] != x[i], as NumPy. n = 0 gives x."""
    _need_array(x, "diff")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"diff: n must be an integer, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, x.ndim)
    if n == 0:
        return x
    parts = []
    for v, what in ((prepend, "prepend"), (x, None), (append, "append")):
        if v is None:
            continue
        if not isinstance(v, ndarray):
            if not isinstance(v, (bool, int, float, complex, np.generic)):
                raise TypeError(f"diff: {what} must be a hip.tensor array or a scalar, got {type(v).__name__}")
            # NumPy's: a scalar is one step along axis (weak: of x's dtype where it fits its kind)
            v = full(x.shape[:axis] + (1,) + x.shape[axis + 1:], v, dtype=_dt.result_type(x.dtype, v),
                     device=x.device_id)
        parts.append(v)
    a = concat(parts, axis=axis) if len(parts) > 1 else x
    sub = not_equal if a.dtype is _dt.bool else subtract
    lead = (slice(None),) * axis
    for _ in range(int(n)):
        if a.shape[axis] == 0:
            break
        a = sub(a[lead + (slice(1, None),)], a[lead + (slice(None, -1),)])
    return a


# ndarray's reduction methods (x.sum(), x.max(), x.cumsum(), ...) call these
register(sum=sum, prod=prod, mean=mean, var=var, std=std, max=max, min=min, any=any, all=all,
         cumulative_sum=cumulative_sum)
