"""layer_norm, group_norm (a row kernel: one block per normalized row) and batch_norm.

Row kernel: each thread runs Welford's update over its elements of the row (stride blockDim, so
loads coalesce), the block merges the (count, mean, M2) triples with Chan's formula in a
shared-memory tree sized by blockDim (no warp-width assumption), then a second pass writes
(x - mean) / sqrt(var + eps) * w + b. For group_norm a row is one (sample, group) and the affine
parameters are per channel. float16/bfloat16 compute in float32 and round once.

batch_norm: per-channel statistics (the running ones, or with training=True the batch's, which
also update the running ones in place as PyTorch does, unbiased variance) and one element-wise
pass (x - mean[c]) * invstd * w[c] + b[c], invstd = 1 / sqrt(var[c] + eps) computed in it.
"""
from __future__ import annotations

import numbers

import numpy as np

from .._api.statistical import mean as _mean, var as _var
from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.device import current_stream
from .._core.plans import PlanCache, all_ints, layout
from .._core.shapes import prod
from .._kernels.elementwise import ElementwiseKernel, _on_device
from .._kernels.template import TemplateKernel, launch_grid, pow2_ceil
from ._common import MAX_GRID, compute_dtype, contiguous, need_float, same_device, vector_width
from ._softmax import cache_for

__all__ = ["layer_norm", "group_norm", "batch_norm", "instance_norm"]

BLOCKS = (64, 128, 256, 512, 1024)


def _source(x: _dt.DType, grouped: bool, block: int, vec: int, cache: int = 0):
    """vec > 1: rows are whole 16-byte aligned vectors; vec elements per load. cache > 0: each
    thread keeps its (at most `cache`) vectors in registers for the second pass."""
    A = compute_dtype(x).ctype
    T = x.ctype
    name = f"htnn_rownorm_{x.name}_{'g' if grouped else 'l'}_{block}_v{vec}_c{cache}"
    widx = "(r % G) * cpg + e / S" if grouped else "e"
    vt = f"ht_vec<{T}, {vec}>"
    if cache:
        read_head = (f"{vt} keep[{cache}];\n#pragma unroll\n"
                     f"        for (int kk = 0; kk < {cache}; ++kk) {{ const long long j = t + (long long)kk * {block};"
                     f" if (j < n / {vec}) {{\n            const {vt} w = keep[kk] = x[j];")
        read_end = "} }"
        write_head = (f"#pragma unroll\n        for (int kk = 0; kk < {cache}; ++kk) {{"
                      f" const long long j = t + (long long)kk * {block}; if (j < n / {vec}) {{\n"
                      f"            const {vt} w = keep[kk];")
        write_end = "} }"
    else:
        read_head = (f"for (long long j = t; j < n / {vec}; j += {block}) {{\n"
                     f"            const {vt} w = x[j];")
        read_end = "}"
        write_head = (f"for (long long j = t; j < n / {vec}; j += {block}) {{\n"
                      f"            const {vt} w = x[j];")
        write_end = "}"
    src = f"""
#ifndef HTNN_WELFORD
#define HTNN_WELFORD
template <class A> __device__ __forceinline__ void htnn_welford_merge(A& n, A& m, A& q, A n2, A m2, A q2) {{
    if (n2 == A(0)) return;
    if (n == A(0)) {{ n = n2; m = m2; q = q2; return; }}
    const A N = n + n2, d = m2 - m, f = n2 / N;
    m = m + d * f;
    q = q + q2 + d * d * n * f;
    n = N;
}}
#endif
extern "C" __global__ void __launch_bounds__({block}) {name}(const {T}* __restrict__ X, const {T}* __restrict__ W,
        const {T}* __restrict__ B,
        {T}* __restrict__ out, long long rows, long long n, long long G, long long cpg, long long S, {A} eps) {{
    typedef {A} A;
    __shared__ A sn[{block}];
    __shared__ A sm[{block}];
    __shared__ A sq[{block}];
    const int t = threadIdx.x;
    (void)G; (void)cpg; (void)S;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {{
        const {vt}* x = reinterpret_cast<const {vt}*>(X + r * n);
        A cn = A(0), cm = A(0), cq = A(0);
        {read_head}
#pragma unroll
            for (int u = 0; u < {vec}; ++u) {{
                const A v = ht_cast<A>(w.v[u]);
                cn += A(1);
                const A d = v - cm;
                cm += d / cn;
                cq += d * (v - cm);
            }}
        {read_end}
        sn[t] = cn; sm[t] = cm; sq[t] = cq;
        __syncthreads();
        for (int k = {block} / 2; k > 0; k >>= 1) {{
            if (t < k) {{
                A a = sn[t], b = sm[t], c = sq[t];
                htnn_welford_merge(a, b, c, sn[t + k], sm[t + k], sq[t + k]);
                sn[t] = a; sm[t] = b; sq[t] = c;
            }}
            __syncthreads();
        }}
        const A mean = sm[0], var = sq[0] / sn[0];
        const A rstd = A(1) / ht_sqrt(var + eps);
        __syncthreads();
        {vt}* y = reinterpret_cast<{vt}*>(out + r * n);
        {write_head}
            {vt} z;
#pragma unroll
            for (int u = 0; u < {vec}; ++u) {{
                const long long e = j * {vec} + u; (void)e;
                A v = (ht_cast<A>(w.v[u]) - mean) * rstd;
                const long long k = {widx};
                if (W) v = v * ht_cast<A>(W[k]);
                if (B) v = v + ht_cast<A>(B[k]);
                z.v[u] = ht_cast<{T}>(v);
            }}
            y[j] = z;
        {write_end}
    }}
}}
"""
    return src, name


KERNEL = TemplateKernel("htnn_rownorm", _source)


def _block_for(n: int) -> int:
    return max(BLOCKS[0], min(BLOCKS[-1], pow2_ceil(max(1, n // 8))))


def _eps(name, eps):
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not eps >= 0:
        raise ValueError(f"{name}: eps must be a non-negative number, got {eps!r}")
    return float(eps)


def _param(name, what, p, x, shape):
    if p is None:
        return None
    need_float(p, name, what)
    if p.dtype is not x.dtype:
        raise TypeError(f"{name}: {what} is {p.dtype.name} but the input is {x.dtype.name}")
    if p.shape != tuple(shape):
        raise ValueError(f"{name}: {what} must have shape {tuple(shape)}, got {p.shape}")
    return contiguous(p)


def _rownorm(x, w, b, rows, n, grouped, G, cpg, S, eps) -> ndarray:
    xc = contiguous(x)
    out = ndarray._empty(xc.shape, xc.dtype, xc.device_id)
    if out.size:
        _launch(xc, w, b, out, _route(rows, n, grouped, G, cpg, S), eps)
    return out


def _route(rows, n, grouped, G, cpg, S) -> tuple:
    """(grid, block, the kernel's size arguments, n, grouped) of the row kernel."""
    block = _block_for(n)
    return ((min(rows, MAX_GRID), 1, 1), block,
            (np.int64(rows), np.int64(n), np.int64(G), np.int64(cpg), np.int64(S)), n, grouped)


def _launch(xc, w, b, out, route, eps) -> None:
    grid, block, sizes, n, grouped = route
    d, dev = xc._dtype, xc._device_id
    vec = vector_width(xc, out, n, 1)
    fn = KERNEL.function(dev, d, grouped, block, vec, cache_for(n, vec, block))
    launch_grid(fn, grid, (block, 1, 1), [xc, w, b, out, *sizes, compute_dtype(d).numpy.type(eps)], dev)


# (input's shape, strides, dtype, device; normalized_shape; weight's and bias's) -> the row
# kernel's route (None: an empty input), for a C-contiguous input, weight and bias
_plans = PlanCache()


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> ndarray:
    """Normalize over the last len(normalized_shape) dimensions (biased variance), then scale by
    weight and shift by bias (both of normalized_shape)."""
    key = None
    if type(input) is ndarray and (weight is None or type(weight) is ndarray) and \
            (bias is None or type(bias) is ndarray) and type(eps) is float and eps >= 0 and \
            (type(normalized_shape) is int or type(normalized_shape) is tuple and all_ints(normalized_shape)):
        key = (layout(input), normalized_shape, layout(weight), layout(bias))
        route = _plans.get(key, _plans)
        if route is not _plans:
            out = ndarray._empty(input._shape, input._dtype, input._device_id)
            if route is not None:
                _launch(input, weight, bias, out, route, eps)
            return out
    need_float(input, "layer_norm")
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    ns = tuple(int(s) for s in normalized_shape)
    k = len(ns)
    if k == 0 or k > input.ndim or input.shape[input.ndim - k:] != ns:
        raise ValueError(f"layer_norm: normalized_shape {ns} does not match the last dimensions of the input "
                         f"of shape {input.shape}")
    eps = _eps("layer_norm", eps)
    w = _param("layer_norm", "weight", weight, input, ns)
    b = _param("layer_norm", "bias", bias, input, ns)
    same_device("layer_norm", input, w, b)
    n = prod(ns)
    rows = prod(input.shape[:input.ndim - k])
    if key is not None and w is weight and b is bias and input.is_c_contiguous:
        _plans.put(key, _route(rows, n, False, 1, 0, 1) if input.size else None)
    return _rownorm(input, w, b, rows, n, False, 1, 0, 1, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> ndarray:
    """Normalize each of num_groups channel groups of each sample of (N, C, *) input, then scale
    and shift per channel (weight and bias of shape (C,))."""
    need_float(input, "group_norm")
    if input.ndim < 2:
        raise ValueError(f"group_norm: expected input of shape (N, C, *), got {input.shape}")
    if isinstance(num_groups, bool) or not isinstance(num_groups, numbers.Integral) or num_groups < 1:
        raise ValueError(f"group_norm: num_groups must be a positive int, got {num_groups!r}")
    C = input.shape[1]
    if C % num_groups:
        raise ValueError(f"group_norm: {C} channels are not divisible into {num_groups} groups")
    eps = _eps("group_norm", eps)
    w = _param("group_norm", "weight", weight, input, (C,))
    b = _param("group_norm", "bias", bias, input, (C,))
    same_device("group_norm", input, w, b)
    S = prod(input.shape[2:])
    G = int(num_groups)
    cpg = C // G
    return _rownorm(input, w, b, input.shape[0] * G, cpg * S, True, G, cpg, S, eps)


# -- batch_norm ------------------------------------------------------------------------------------------------
def _bn_source(d: _dt.DType, stats: tuple, C: int, S: int, N: int, vec: int, wide: bool):
    """batch_norm's pass over (N, C, S): y = (x - mean[c]) * invstd * w[c] + b[c], invstd =
    1 / sqrt(var[c] + eps) computed in it (the same rounding as computed first; the per-element
    sqrt is free in a memory-bound pass), every size a constant of the source (multiply-shift
    index splits), `vec` consecutive elements of one channel per thread. stats: the dtype names
    of mean, var, weight and bias (None: no weight (1) or no bias (0)), each read and cast."""
    T, A = d.ctype, compute_dtype(d).ctype
    name = f"htnn_batch_norm_{d.name}_{'_'.join(t or 'none' for t in stats)}_v{vec}_{'i64' if wide else 'i32'}"
    M, Vr, W, Bs = (None if t is None else _dt.dtype(t).ctype for t in stats)
    I = "unsigned long long" if wide else "unsigned int"
    V = f"ht_vec<{T}, {vec}>"
    sv = S // vec
    w = "ht_cast<A>(Wt[c])" if W else "A(1)"
    b = "ht_cast<A>(Bt[c])" if Bs else "A(0)"
    src = f"""
extern "C" __global__ void {name}(const {T}* __restrict__ X, const {M}* __restrict__ Mean,
        const {Vr}* __restrict__ Var, const {W or T}* __restrict__ Wt, const {Bs or T}* __restrict__ Bt,
        {T}* __restrict__ Y, {A} eps) {{
    typedef {I} I;
    typedef {A} A;
    (void)Wt; (void)Bt;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < {N * C * sv}u; t += (I)gridDim.x * blockDim.x) {{
        const I c = (t / {sv}u) % {C}u;
        const A mean = ht_cast<A>(Mean[c]), w = {w}, b = {b};
        const A invstd = A(1) / ht_sqrt(ht_cast<A>(Var[c]) + eps);
        const {V} xv = reinterpret_cast<const {V}*>(X)[t];
        {V} yv;
#pragma unroll
        for (int j = 0; j < {vec}; ++j) yv.v[j] = ht_cast<{T}>((ht_cast<A>(xv.v[j]) - mean) * invstd * w + b);
        reinterpret_cast<{V}*>(Y)[t] = yv;
    }}
}}
"""
    return src, name


BN = TemplateKernel("htnn_batch_norm", _bn_source)
BN_THREADS = 256
_UPDATE = ElementwiseKernel("A stat, float64 momentum, float64 factor", "R r",
                            "r = ht_cast<R>((1.0 - momentum) * ht_cast<double>(r) "
                            "+ momentum * factor * ht_cast<double>(stat));",
                            "htnn_running_update")


def _bn_launch(x, mean, var, w, b, C: int, S: int) -> tuple:
    """(function, grid) of batch_norm's pass on the contiguous x (its address's alignment counts)
    with these per-channel arrays."""
    d = x.dtype
    N = x.size // max(1, C * S)
    vec = next(v for v in (4, 2, 1) if S % v == 0 and v * d.itemsize <= 16 and x.ptr % (v * d.itemsize) == 0)
    stats = tuple(None if p is None else p.dtype.name for p in (mean, var, w, b))
    fn = BN.function(x.device_id, d, stats, C, S, N, vec, x.size >= 1 << 31)
    return fn, (max(1, min(-(-(x.size // vec) // BN_THREADS), MAX_GRID)), 1, 1)


def _bn_run(x, mean, var, w, b, launch, eps) -> ndarray:
    out = ndarray._empty(x._shape, x._dtype, x._device_id)
    if launch is not None:
        dev = x._device_id
        with _on_device(dev):
            launch[0].launch(launch[1], (BN_THREADS, 1, 1), (x, mean, var, w, b, out, eps), 0, current_stream(dev))
    return out


# eval-mode batch_norm's (input's shape, strides, dtype, device and address % 16; the per-channel
# arrays' layouts) -> (its pass's launch or None for an empty input, the compute dtype)
_bn_plans = PlanCache()


def _channel_param(name, what, p, C, dev):
    if p is None:
        return None
    need_float(p, name, what)
    if p.shape != (C,):
        raise ValueError(f"{name}: {what} must have shape ({C},), got {p.shape}")
    if p.device_id != dev:
        raise ValueError(f"{name}: {what} is on device {p.device_id}, the input on {dev}")
    return p


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> ndarray:
    """Normalize each channel of (N, C, *) input with the running statistics, or (training=True)
    with the batch's, which then update running_mean/running_var in place (unbiased variance)."""
    key = None
    if training is False and type(input) is ndarray and type(eps) is float and eps >= 0 and \
            type(running_mean) is ndarray and type(running_var) is ndarray and \
            (weight is None or type(weight) is ndarray) and (bias is None or type(bias) is ndarray):
        key = (layout(input), input._ptr % 16, layout(running_mean), layout(running_var), layout(weight),
               layout(bias))
        plan = _bn_plans.get(key)
        if plan is not None:
            return _bn_run(input, running_mean, running_var, weight, bias, plan[0], plan[1].numpy.type(eps))
    need_float(input, "batch_norm")
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected input of shape (N, C, *), got {input.shape}")
    C = input.shape[1]
    dev = input.device_id
    eps = _eps("batch_norm", eps)
    a = compute_dtype(input.dtype)
    rm = _channel_param("batch_norm", "running_mean", running_mean, C, dev)
    rv = _channel_param("batch_norm", "running_var", running_var, C, dev)
    w = _channel_param("batch_norm", "weight", weight, C, dev)
    b = _channel_param("batch_norm", "bias", bias, C, dev)
    S = prod(input.shape[2:])
    if training:
        count = input.shape[0] * S
        if count <= 1:
            raise ValueError(f"batch_norm: expected more than 1 value per channel when training, "
                             f"got input of shape {input.shape}")
        axes = (0,) + tuple(range(2, input.ndim))
        xa = input.astype(a, copy=False)
        mean = _mean(xa, axis=axes)
        var = _var(xa, axis=axes)
        if momentum is not None and (rm is not None or rv is not None):
            if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
                raise TypeError(f"batch_norm: momentum must be a number, got {momentum!r}")
            if rm is not None:
                _UPDATE(mean, float(momentum), 1.0, rm, _bindings={"R": rm.dtype})
            if rv is not None:
                _UPDATE(var, float(momentum), count / (count - 1), rv, _bindings={"R": rv.dtype})
    else:
        if rm is None or rv is None:
            raise ValueError("batch_norm: running_mean and running_var are required when training=False")
        mean, var = rm, rv
    x = contiguous(input)
    mean, var, wc, bc = (None if p is None else contiguous(p) for p in (mean, var, w, b))
    launch = _bn_launch(x, mean, var, wc, bc, C, S) if x.size else None
    if key is not None and x is input and mean is running_mean and var is running_var and wc is weight \
            and bc is bias:
        _bn_plans.put(key, (launch, a))
    return _bn_run(x, mean, var, wc, bc, launch, a.numpy.type(eps))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> ndarray:
    """Normalize each channel of each sample (group_norm with one channel per group); only
    use_input_stats=True without running statistics."""
    if not use_input_stats or running_mean is not None or running_var is not None:
        raise NotImplementedError("instance_norm: only use_input_stats=True without running statistics")
    need_float(input, "instance_norm")
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected input of shape (N, C, *spatial), got {input.shape}")
    return group_norm(input, input.shape[1], weight, bias, eps)
