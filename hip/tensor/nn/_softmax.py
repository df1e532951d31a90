"""softmax and log_softmax over any dim: a row kernel of two kinds, picked by `_plan`.

The input is viewed as (outer, n, inner) with the softmax dim in the middle (made C-contiguous
first when it is not); row r = (o, q) reads x[o, :, q] with stride `inner` (1 for the last dim:
coalesced).

Warp path (contiguous rows, inner == 1, of at most WARP_MAX_BYTES in the compute dtype, as
PyTorch's persistent warp softmax): a group of `lanes` = min(32, pow2_ceil(n)) adjacent lanes per
row, several groups (and for short rows two rows per group) per block of WARP_BLOCK threads. Each
lane keeps its pow2_ceil(n) / lanes elements in registers (vector loads where the row allows),
the group reduces the max then the sum of exp(x - max) by shuffles (`WARP_REDUCE`), and each
element is read once and written once. Tails past n read as -inf.

Block path (the rest: long rows, other dims): one block per row; each thread keeps an online (max,
sum of exp(x - max)) pair over its elements, the block combines the pairs in a shared-memory tree
sized by blockDim (no warp-width assumption), then a second pass writes.

Both compute float16/bfloat16 in float32 and round once, and give a NaN row for a row holding a
NaN or +inf and for a row of -inf, as PyTorch.
"""
from __future__ import annotations

import numbers
import re

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.plans import PlanCache, layout
from .._core.shapes import normalize_axis, prod
from .._kernels.template import TemplateKernel, launch_grid, pow2_ceil
from ._common import MAX_GRID, WARP_REDUCE, compute_dtype, contiguous, need_float, vector_width

__all__ = ["softmax", "log_softmax"]

BLOCKS = (64, 128, 256, 512, 1024)


def _source(x: _dt.DType, log: bool, block: int, vec: int, cache: int = 0, scaled: bool = False):
    """vec > 1: rows are contiguous (inner == 1) and 16-byte aligned; vec elements per load.
    cache > 0: each thread keeps its (at most `cache`) vectors in registers for the second pass.
    scaled: the kernel takes a last argument `sc` and each element is read as x * sc."""
    T, A = x.ctype, compute_dtype(x).ctype
    name = f"htnn_{'log_' if log else ''}softmax_{x.name}_{block}_v{vec}_c{cache}{'_s' if scaled else ''}"
    write = "ht_cast<T>(v - M - L)" if log else "ht_cast<T>(ht_exp(v - M) / S)"
    if vec == 1:
        read_loop = (f"for (long long j = t; j < n; j += {block}) {{\n"
                     f"            const A v = ht_cast<A>(X[base + j * inner]);\n")
        read_end = "        }"
        write_loop = (f"for (long long j = t; j < n; j += {block}) {{\n"
                      f"            const A v = ht_cast<A>(X[base + j * inner]);\n"
                      f"            out[base + j * inner] = {write};\n        }}")
    elif cache:
        vt = f"ht_vec<T, {vec}>"
        read_loop = (f"{vt} keep[{cache}];\n#pragma unroll\n"
                     f"        for (int k = 0; k < {cache}; ++k) {{ const long long j = t + (long long)k * {block};"
                     f" if (j < n / {vec}) {{\n"
                     f"            const {vt} w = keep[k] = reinterpret_cast<const {vt}*>(X + base)[j];\n"
                     f"#pragma unroll\n            for (int u = 0; u < {vec}; ++u) {{\n"
                     f"            const A v = ht_cast<A>(w.v[u]);\n")
        read_end = "        } } }"
        write_loop = (f"#pragma unroll\n"
                      f"        for (int k = 0; k < {cache}; ++k) {{ const long long j = t + (long long)k * {block};"
                      f" if (j < n / {vec}) {{\n"
                      f"            const {vt} w = keep[k];\n"
                      f"            {vt} z;\n#pragma unroll\n"
                      f"            for (int u = 0; u < {vec}; ++u) {{ const A v = ht_cast<A>(w.v[u]); z.v[u] = {write}; }}\n"
                      f"            reinterpret_cast<{vt}*>(out + base)[j] = z;\n        }} }}")
    else:
        vt = f"ht_vec<T, {vec}>"
        read_loop = (f"for (long long j = t; j < n / {vec}; j += {block}) {{\n"
                     f"            const {vt} w = reinterpret_cast<const {vt}*>(X + base)[j];\n"
                     f"#pragma unroll\n            for (int u = 0; u < {vec}; ++u) {{\n"
                     f"            const A v = ht_cast<A>(w.v[u]);\n")
        read_end = "        } }"
        write_loop = (f"for (long long j = t; j < n / {vec}; j += {block}) {{\n"
                      f"            const {vt} w = reinterpret_cast<const {vt}*>(X + base)[j];\n"
                      f"            {vt} z;\n#pragma unroll\n"
                      f"            for (int u = 0; u < {vec}; ++u) {{ const A v = ht_cast<A>(w.v[u]); z.v[u] = {write}; }}\n"
                      f"            reinterpret_cast<{vt}*>(out + base)[j] = z;\n        }}")
    if scaled:      # every read of an input element (the only ht_cast<A> of the loops) is scaled
        read_loop, write_loop = (re.sub(r"ht_cast<A>\(([^;]*?)\);", r"ht_cast<A>(\1) * sc;", t)
                                 for t in (read_loop, write_loop))
    src = f"""
#ifndef HTNN_SM_COMBINE
#define HTNN_SM_COMBINE
template <class A> __device__ __forceinline__ void htnn_sm_combine(A& m, A& s, A m2, A s2) {{
    /* (max, sum exp(x - max)) pairs; an empty pair (-inf, 0) counts for nothing, and no other pair
       has m == -inf, so exp(m - M) below never sees -inf - -inf */
    if (s2 == A(0) && m2 == m2) return;
    if (s == A(0) && m == m) {{ m = m2; s = s2; return; }}
    if (m2 != m2 || m != m) {{ m = m != m ? m : m2; s = m; return; }}
    const A M = m2 > m ? m2 : m;
    s = s * ht_exp(m - M) + s2 * ht_exp(m2 - M);
    m = M;
}}
#endif
extern "C" __global__ void __launch_bounds__({block}) {name}(const {T}* __restrict__ X, {T}* __restrict__ out,
                                  long long rows, long long n, long long inner{f", {A} sc" if scaled else ""}) {{
    typedef {A} A;
    typedef {T} T;
    __shared__ A sm_m[{block}];
    __shared__ A sm_s[{block}];
    const int t = threadIdx.x;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {{
        const long long o = r / inner, q = r - o * inner;
        const long long base = o * n * inner + q;
        A m = -ht_real_limits<A>::inf(), s = A(0);
        {read_loop}
            if (v > m) {{ s = s * ht_exp(m - v) + A(1); m = v; }}
            else if (v != v) {{ m = v; s = v; }}
            else if (v != -ht_real_limits<A>::inf()) s += ht_exp(v - m);
            /* a -inf adds exp(-inf) = 0: a thread that saw only -inf keeps the empty pair (-inf, 0)
               (exp(-inf - -inf) would be NaN and spread to the rows PyTorch gives finite values) */
        {read_end}
        sm_m[t] = m; sm_s[t] = s;
        __syncthreads();
        for (int k = {block} / 2; k > 0; k >>= 1) {{
            if (t < k) {{ A a = sm_m[t], b = sm_s[t]; htnn_sm_combine(a, b, sm_m[t + k], sm_s[t + k]);
                          sm_m[t] = a; sm_s[t] = b; }}
            __syncthreads();
        }}
        /* a +inf in the row (exp(inf - inf) in PyTorch's sum) and a row of -inf (the empty pair:
           exp(-inf - -inf)) give a NaN row, as PyTorch; a NaN is in M and S already */
        const A M = sm_m[0], S = M == ht_real_limits<A>::inf() || M == -ht_real_limits<A>::inf()
                                 ? ht_real_limits<A>::nan() : sm_s[0];
        const A L = ht_log(S); (void)L;
        __syncthreads();
        {write_loop}
    }}
}}
"""
    return src, name


KERNEL = TemplateKernel("htnn_softmax", _source)


CACHE_MAX = 4                   # vectors a thread keeps in registers between the two passes


def cache_for(n: int, vec: int, block: int) -> int:
    """Vectors per thread to keep in registers (0: the second pass reads the row again)."""
    if vec == 1:
        return 0
    per_thread = -(-(n // vec) // block)
    return per_thread if per_thread <= CACHE_MAX else 0


def block_for(n: int) -> int:
    return max(BLOCKS[0], min(BLOCKS[-1], pow2_ceil(max(1, n // 8))))


WARP_BLOCK = 128                # threads per block of the warp path
WARP_LANES = 32                 # lanes per row at most: a group stays inside a warp or a wavefront
WARP_MAX_BYTES = 8192           # the warp path's longest row, in the compute dtype (2048 float32)


def _warp_source(x: _dt.DType, log: bool, lanes: int, per_lane: int, batch: int, vec: int,
                 scaled: bool = False):
    """Rows of n <= lanes * per_lane contiguous elements; `batch` rows per group of `lanes` lanes;
    vec elements per load (n % vec == 0 and both arrays aligned to vec elements).
    scaled: the kernel takes a last argument `sc` and each element is read as x * sc."""
    T, A = x.ctype, compute_dtype(x).ctype
    name = (f"htnn_{'log_' if log else ''}softmax_warp_{x.name}_{WARP_BLOCK}_l{lanes}_e{per_lane}_b{batch}"
            f"_v{vec}{'_s' if scaled else ''}")
    read = "ht_cast<A>(w.v[u])" + (" * sc" if scaled else "")
    write = "ht_cast<T>(v[b][k * VEC + u] - M[b] - L)" if log else "ht_cast<T>(v[b][k * VEC + u] / S)"
    keep = "" if log else "v[b][i] = e; "
    src = f"""{WARP_REDUCE}
extern "C" __global__ void __launch_bounds__({WARP_BLOCK}) {name}(const {T}* __restrict__ X, {T}* __restrict__ out,
                                  long long rows, long long n{f", {A} sc" if scaled else ""}) {{
    typedef {A} A;
    typedef {T} T;
    typedef ht_vec<T, {vec}> V;
    enum {{ LANES = {lanes}, PER_LANE = {per_lane}, BATCH = {batch}, VEC = {vec}, LOADS = PER_LANE / VEC,
           BLOCK_ROWS = {WARP_BLOCK} / LANES * BATCH }};
    const int lane = threadIdx.x % LANES;
    const long long first = (long long)(threadIdx.x / LANES) * BATCH;
    /* the loop's bounds are the block's: every lane of a warp reaches every shuffle */
    for (long long r0 = (long long)blockIdx.x * BLOCK_ROWS; r0 < rows; r0 += (long long)gridDim.x * BLOCK_ROWS) {{
        A v[BATCH][PER_LANE];
        A M[BATCH];
#pragma unroll
        for (int b = 0; b < BATCH; ++b) {{
            const long long r = r0 + first + b;
            A m = -ht_real_limits<A>::inf();
#pragma unroll
            for (int k = 0; k < LOADS; ++k) {{
                const int j = (k * LANES + lane) * VEC;
                if (r < rows && j < n) {{
                    const V w = *reinterpret_cast<const V*>(X + r * n + j);
#pragma unroll
                    for (int u = 0; u < VEC; ++u) v[b][k * VEC + u] = {read};
                }} else {{
#pragma unroll
                    for (int u = 0; u < VEC; ++u) v[b][k * VEC + u] = -ht_real_limits<A>::inf();
                }}
#pragma unroll
                for (int u = 0; u < VEC; ++u) m = v[b][k * VEC + u] > m ? v[b][k * VEC + u] : m;
            }}
            M[b] = htnn_group_max<LANES>(m);
        }}
#pragma unroll
        for (int b = 0; b < BATCH; ++b) {{
            /* exp(NaN), exp(inf - inf) (a +inf in the row) and exp(-inf - -inf) (a row of -inf) are
               NaN: the sum, then the whole row, is NaN, as PyTorch's. A tail's -inf adds 0. */
            A s = A(0);
#pragma unroll
            for (int i = 0; i < PER_LANE; ++i) {{ const A e = ht_exp(v[b][i] - M[b]); s += e; {keep}}}
            const A S = htnn_group_sum<LANES>(s);
            {"const A L = ht_log(S);" if log else ""}
            const long long r = r0 + first + b;
#pragma unroll
            for (int k = 0; k < LOADS; ++k) {{
                const int j = (k * LANES + lane) * VEC;
                if (r < rows && j < n) {{
                    V z;
#pragma unroll
                    for (int u = 0; u < VEC; ++u) z.v[u] = {write};
                    *reinterpret_cast<V*>(out + r * n + j) = z;
                }}
            }}
        }}
    }}
}}
"""
    return src, name


WARP_KERNEL = TemplateKernel("htnn_softmax_warp", _warp_source)


def warp_max(dtype: _dt.DType) -> int:
    """The longest row the warp path takes (2048 elements computed in float32, 1024 in float64)."""
    return WARP_MAX_BYTES // compute_dtype(dtype).itemsize


def warp_shape(n: int) -> tuple[int, int, int]:
    """(lanes per row, elements per lane, rows per lane group) of the warp path for rows of n."""
    p = pow2_ceil(n)
    lanes = min(p, WARP_LANES)
    return lanes, p // lanes, 2 if p <= 128 else 1


def _route(y: _dt.DType, log: bool, n: int, inner: int, rows: int, scaled: bool) -> tuple:
    """The one place that picks the path for rows of n (stride `inner`) written as y: (warp path,
    grid, block, the kernel's size arguments, its spec but the vector width, the widest load)."""
    if inner == 1 and n <= warp_max(y):
        lanes, per_lane, batch = warp_shape(n)
        block_rows = WARP_BLOCK // lanes * batch
        return (True, (min(-(-rows // block_rows), MAX_GRID), 1, 1), (WARP_BLOCK, 1, 1),
                (np.int64(rows), np.int64(n)), (y, log, lanes, per_lane, batch), per_lane)
    block = block_for(n)
    return (False, (min(rows, MAX_GRID), 1, 1), (block, 1, 1), (np.int64(rows), np.int64(n), np.int64(inner)),
            (y, log, block), None)


def _launch(xc: ndarray, out: ndarray, n: int, inner: int, route: tuple, scale) -> None:
    """Launch `_route`'s kernel on xc (contiguous) into out; the vector width from the addresses."""
    warp, grid, block, sizes, spec, most = route
    y, dev = out._dtype, xc._device_id
    vec = vector_width(xc, out, n, inner, most=most)
    if warp:
        fn = WARP_KERNEL.function(dev, *spec, vec, scale is not None)
    else:
        fn = KERNEL.function(dev, *spec, vec, cache_for(n, vec, spec[2]), scale is not None)
    args = [xc, out, *sizes]
    if scale is not None:
        args.append(compute_dtype(y).numpy.type(scale))
    launch_grid(fn, grid, block, args, dev)


# (x's shape, strides, dtype, device; dim, dtype, log, scaled) -> (the result's dtype, n, inner,
# `_route`'s route) for a C-contiguous x of at least one dimension, computed in its own dtype
_plans = PlanCache()


def _softmax(name: str, log: bool, x, dim, dtype, scale=None) -> ndarray:
    key = None
    if type(x) is ndarray and type(dim) is int and dtype is None and (scale is None or type(scale) is float):
        key = (layout(x), dim, log, scale is None)
        plan = _plans.get(key)
        if plan is not None:
            y, n, inner, route = plan
            out = ndarray._empty(x._shape, y, x._device_id)
            if route is not None:
                _launch(x, out, n, inner, route, scale)
            return out
    need_float(x, name)
    y = x.dtype if dtype is None else _dt.dtype(dtype)
    if y.kind != "f":
        raise TypeError(f"{name}: dtype must be a floating dtype, got {y.name}")
    if dim is None:
        raise TypeError(f"{name}: dim must be given (PyTorch's implicit dim choice is deprecated)")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, numbers.Real)):
        raise TypeError(f"{name}: scale must be a real number, got {type(scale).__name__}")
    if x.ndim == 0:
        x = x.reshape((1,))
        scalar = True
    else:
        scalar = False
    ax = normalize_axis(dim, x.ndim)
    if dtype is not None:
        x = x.astype(y, copy=False)         # as PyTorch: cast first, then compute
    xc = contiguous(x)
    out = ndarray._empty(xc.shape, y, xc.device_id)
    n = xc.shape[ax]
    outer, inner = prod(xc.shape[:ax]), prod(xc.shape[ax + 1:])
    rows = outer * inner
    route = _route(y, log, n, inner, rows, scale is not None) if out.size else None
    if route is not None:
        _launch(xc, out, n, inner, route, scale)
    if key is not None and not scalar and xc is x:
        _plans.put(key, (y, n, inner, route))
    return out.reshape(()) if scalar else out


def softmax(input, dim=None, dtype=None, *, scale=None) -> ndarray:
    """exp(x) / sum(exp(x)) along `dim` (numerically stable; dtype: cast the input first).
    hip.tensor's addition: `scale` multiplies each element as it is read, softmax(x * scale) in
    one kernel (attention's 1 / sqrt(d))."""
    return _softmax("softmax", False, input, dim, dtype, scale)


def log_softmax(input, dim=None, dtype=None, *, scale=None) -> ndarray:
    """x - log(sum(exp(x))) along `dim`, computed as x - max - log(sum(exp(x - max))); `scale` as
    softmax's."""
    return _softmax("log_softmax", True, input, dim, dtype, scale)
