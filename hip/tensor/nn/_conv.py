"""Convolutions: conv1d/2d/3d (stride, padding incl. 'valid'/'same', dilation, groups) by im2col
and hipBLAS gemms, and conv_transpose1d/2d/3d (output_padding, groups, dilation) by one gemm and
col2im.

conv: a 1 x .. x 1 kernel with stride 1 and no padding needs no im2col: y[n, g] = W_g @ x[n, g]
(Cout/G x Cin/G times Cin/G x P), strided-batched gemms reading the input as it is and writing
NCHW. Otherwise, for a chunk of nb samples, im2col writes col[n, (c, kernel position), output
position] (zero where the window reads padding) with a kernel compiled for the chunk's sizes (its
index splits are then multiply-shifts: it runs near memory bandwidth), and the same strided-batched
gemm y[n, g] = W_g @ col[n, g] writes (nb, Cout, P), the output's own layout, so nothing moves
afterwards. The batch walks (group, sample) when there are fewer groups than samples (one gemm
call per group), else (sample, group). A bias, a residual and an activation (hip.tensor's
`activation=` and `residual=`: act(conv + bias + residual)) are one pass over the output, a kernel
compiled per plan with the sizes as constants (`_post_source`). With that pass and groups=1, a
chunk is instead one gemm (cout, nb * P) = W @ col (cin * K, nb * P) (im2col writes that layout),
the pass reading its result transposed into NCHW (ONE_GEMM, on by default: a better-shaped gemm
where P is small; its kernels took 4.08 against 4.51 ms of ResNet-18's forward at batch 32 in
float32 on an H200, 1.68 against 2.43 ms in bfloat16). Chunks bound col's memory (COL_BYTES).
Each call's checks and decisions (kernels, grids, chunks, gemm sizes) are a plan kept by key
(`_core.plans`): a repeated call is a dict hit, two allocations and the launches.
conv_transpose: col (Cout*K, nb*Pin) = W_g^T @ x_g by one gemm, then col2im gathers
for each output element the col entries whose window covers it (a gather, no atomics:
deterministic), adding the bias. float16/bfloat16 gemms accumulate in float32 (hipBLAS compute
type 32F); col2im sums in float32.
"""
from __future__ import annotations

import numbers

import numpy as np

from .._api.creation import zeros
from .._api.linalg import _blas, matmul
from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.device import current_stream
from .._core.plans import PlanCache, all_ints, layout
from .._core.shapes import prod
from .._kernels.elementwise import _on_device
from .._kernels.template import TemplateKernel, dims, launch_flat, launch_grid
from .._libs import blas as B
from ._activation import ACTIVATIONS, PREAMBLE, check_residual
from ._common import compute_dtype, contiguous, need_float, ntuple, same_device

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

COL_BYTES = 1 << 29             # im2col buffer per chunk of samples at most (one sample always fits)
IM2COL_THREADS = 256            # per block
IM2COL_GRID = 1 << 20           # blocks at most (a grid-stride loop covers the rest)
WIDE_AT = 1 << 31               # im2col takes 64-bit indices for arrays of this many elements or more
ONE_GEMM = True                 # with a pass after the gemm (groups=1), one gemm per chunk of samples (module doc)
SCRATCH_ALIGN = 256             # bytes: the one-gemm result's offset inside the chunk buffer


def _decomp(prefix: str, shape: str, nd: int, var: str) -> str:
    """C++ splitting `var` into coordinates prefix0.. over ht_dims `shape` (C order)."""
    return "".join(f"const long long {prefix}{k} = {var} % {shape}.v[{k}]; {var} /= {shape}.v[{k}];\n        "
                   for k in reversed(range(nd)))


def _im2col_source(d: _dt.DType, nd: int, geom: tuple, nb: int, vec: int, wide: bool, samples_inner: bool = False):
    """col (nb, cin * prod(K), P) of one chunk, or with `samples_inner` (cin * prod(K), nb, P) (one
    gemm's operand for the whole chunk), every size a constant of the source (geom: cin, the
    input, output, kernel, stride, padding and dilation sizes), so the index splits compile to
    multiply-shifts: one thread per `vec` consecutive outputs along the last output dimension, a
    grid-stride loop over the flat col, coalesced reads and one `vec`-wide store. `wide`: 64-bit
    indices, for arrays past 2^32 elements."""
    cin, In, O, K, S, Pd, D = geom
    T, I = d.ctype, ("unsigned long long" if wide else "unsigned int")
    name = f"htnn_im2col{nd}d_{d.name}_v{vec}_{'i64' if wide else 'i32'}{'_kn' if samples_inner else ''}"
    V = name + "_t"                 # the vec-wide store's type
    L = nd - 1
    total = cin * prod(K) * nb * prod(O)
    split = f"const I ov = q % {O[L] // vec}u; q /= {O[L] // vec}u;\n        "
    split += "".join(f"const I o{k} = q % {O[k]}u; q /= {O[k]}u;\n        " for k in reversed(range(L)))
    if samples_inner:
        split += f"const I n = q % {nb}u; q /= {nb}u;\n        "
    split += "".join(f"const I k{k} = q % {K[k]}u; q /= {K[k]}u;\n        " for k in reversed(range(nd)))
    split += f"const I c = q % {cin}u; q /= {cin}u;\n        " if samples_inner else \
        f"const I c = q % {cin}u; q /= {cin}u;\n        const I n = q;\n        "
    pos = "".join(f"const long long i{k} = (long long)(o{k} * {S[k]}u + k{k} * {D[k]}u) - {Pd[k]};\n        "
                  for k in range(L))
    inside = " && ".join(["true"] + [f"i{k} >= 0 && i{k} < {In[k]}" for k in range(L)])
    at = "0"
    for k in range(L):
        at = f"({at} + i{k}) * {In[k + 1]}"
    src = f"""
struct __align__({vec * d.itemsize}) {V} {{ {T} v[{vec}]; }};
extern "C" __global__ void {name}(const {T}* __restrict__ X, {T}* __restrict__ col) {{
    typedef {I} I;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < {total // vec}u; t += (I)gridDim.x * blockDim.x) {{
        I q = t;
        {split}(void)q;
        {pos}{V} r;
        if ({inside}) {{
            const {T}* src = X + ((long long)(n * {cin}u + c) * {prod(In)} + {at});
            #pragma unroll
            for (int j = 0; j < {vec}; ++j) {{
                const long long i = (long long)((ov * {vec}u + j) * {S[L]}u + k{L} * {D[L]}u) - {Pd[L]};
                r.v[j] = (i >= 0 && i < {In[L]}) ? src[i] : {T}(0.0f);
            }}
        }} else {{
            #pragma unroll
            for (int j = 0; j < {vec}; ++j) r.v[j] = {T}(0.0f);
        }}
        reinterpret_cast<{V}*>(col)[t] = r;
    }}
}}
"""
    return src, name


def _col2im_source(d: _dt.DType, nd: int):
    T, A = d.ctype, compute_dtype(d).ctype
    name = f"htnn_col2im{nd}d_{d.name}"
    loops = "".join(
        f"for (long long k{k} = 0; k{k} < K.v[{k}]; ++k{k}) {{ "
        f"const long long t{k} = o{k} + P.v[{k}] - k{k} * D.v[{k}]; "
        f"if (t{k} < 0 || t{k} % St.v[{k}]) continue; const long long i{k} = t{k} / St.v[{k}]; "
        f"if (i{k} >= I.v[{k}]) continue;\n        " for k in range(nd))
    kat, iat = "k0", "i0"
    for k in range(1, nd):
        kat = f"({kat}) * K.v[{k}] + k{k}"
        iat = f"({iat}) * I.v[{k}] + i{k}"
    src = f"""
extern "C" __global__ void {name}(const {T}* __restrict__ col, const {T}* __restrict__ bias, {T}* __restrict__ Y,
        long long total, long long nb, long long cout, ht_dims<{nd}> I, ht_dims<{nd}> O, ht_dims<{nd}> K,
        ht_dims<{nd}> St, ht_dims<{nd}> P, ht_dims<{nd}> D) {{
    typedef {A} A;
    long long plane = 1, P_out = 1, KK = 1;
    for (int k = 0; k < {nd}; ++k) {{ plane *= I.v[k]; P_out *= O.v[k]; KK *= K.v[k]; }}
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (long long)blockDim.x * gridDim.x) {{
        long long p = idx % P_out, rest = idx / P_out;
        const long long c = rest % cout, n = rest / cout;
        {_decomp("o", "O", nd, "p")}A acc = bias ? ht_cast<A>(bias[c]) : A(0);
        {loops}    acc += ht_cast<A>(col[((c * KK + {kat}) * nb + n) * plane + {iat}]);
        {'}' * nd}
        Y[idx] = ht_cast<{T}>(acc);
    }}
}}
"""
    return src, name


def _post_source(d: _dt.DType, act: str, bias: bool, residual: bool, cout: int, P: int, m: int, transposed: bool,
                 vec: int, wide: bool):
    """The pass after a conv's gemm over m samples: Y (m, cout, P) = act(X + bias[c] + R), X read as
    (m, cout, P), or with `transposed` as (cout, m, P) (the one-gemm form's result); every size a
    constant of the source (multiply-shift index splits), `vec` consecutive elements of one
    channel per thread (P a multiple of vec; Y, R and X aligned to it). Y may be X (in place)."""
    T, C = d.ctype, compute_dtype(d).ctype
    name = f"htnn_conv_post_{d.name}_{act}{'_b' if bias else ''}{'_r' if residual else ''}_v{vec}" \
           f"{'_t' if transposed else ''}_{'i64' if wide else 'i32'}"
    I = "unsigned long long" if wide else "unsigned int"
    V = f"ht_vec<{T}, {vec}>"
    pv = P // vec
    src_at = f"((c * {m}u + n) * {pv}u + p) * {vec}u" if transposed else "o"
    add = (" + b" if bias else "") + (" + ht_cast<C>(rv.v[j])" if residual else "")
    src = PREAMBLE + f"""
extern "C" __global__ void {name}(const {T}* X, const {T}* __restrict__ Bias, const {T}* __restrict__ R, {T}* Y) {{
    typedef {I} I;
    typedef {C} C;
    (void)Bias; (void)R;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < {m * cout * pv}u; t += (I)gridDim.x * blockDim.x) {{
        I q = t;
        const I p = q % {pv}u; q /= {pv}u;
        const I c = q % {cout}u; const I n = q / {cout}u;
        (void)n;
        const I o = t * {vec}u;
        const {V} xv = *reinterpret_cast<const {V}*>(X + {src_at});
        {f"const {V} rv = *reinterpret_cast<const {V}*>(R + o);" if residual else ""}
        {"const C b = ht_cast<C>(Bias[c]);" if bias else ""}
        {V} yv;
#pragma unroll
        for (int j = 0; j < {vec}; ++j) {{
            const C a = ht_cast<C>(xv.v[j]){add};
            yv.v[j] = ht_cast<{T}>({ACTIVATIONS[act]});
        }}
        *reinterpret_cast<{V}*>(Y + o) = yv;
    }}
}}
"""
    return src, name


IM2COL = TemplateKernel("htnn_im2col", _im2col_source)
POST = TemplateKernel("htnn_conv_post", _post_source)
COL2IM = TemplateKernel("htnn_col2im", _col2im_source)


def _check_args(name, nd, x, weight, bias, groups, transposed):
    need_float(x, name)
    need_float(weight, name, "weight")
    if x.ndim not in (nd + 1, nd + 2):
        raise ValueError(f"{name}: expected input of shape (N, C, *{nd} spatial) or (C, *{nd} spatial), got {x.shape}")
    if weight.ndim != nd + 2:
        raise ValueError(f"{name}: weight must have {nd + 2} dimensions, got shape {weight.shape}")
    if weight.dtype is not x.dtype:
        raise TypeError(f"{name}: input is {x.dtype.name} but weight is {weight.dtype.name}")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1:
        raise ValueError(f"{name}: groups must be a positive int, got {groups!r}")
    cin = x.shape[-nd - 1]
    if transposed:
        cout = weight.shape[1] * groups
        if weight.shape[0] != cin or cin % groups:
            raise ValueError(f"{name}: weight {weight.shape} needs {cin} input channels divisible by groups={groups}")
    else:
        cout = weight.shape[0]
        if cin % groups or cout % groups or weight.shape[1] * groups != cin:
            raise ValueError(f"{name}: input with {cin} channels, weight {weight.shape} and groups={groups} do not "
                             f"match (weight.shape[1] * groups must be the input channels; both channel counts "
                             f"divisible by groups)")
    if bias is not None:
        need_float(bias, name, "bias")
        if bias.shape != (cout,):
            raise ValueError(f"{name}: bias must have shape ({cout},), got {bias.shape}")
        if bias.dtype is not x.dtype:
            raise TypeError(f"{name}: input is {x.dtype.name} but bias is {bias.dtype.name}")
    same_device(name, x, weight, bias)
    return cin, cout


def _gemm_nchw(w, col, out) -> None:
    """out[n, g] = w[g] @ col[n, g] for w (G, Cout/G, Kc), col (m, G, Kc, P), out (m, G, Cout/G, P):
    strided-batched gemms, one per group when there are fewer groups than samples (the batch walks
    (g, n): w's stride over n is 0), else one per sample (G = 1: a single call)."""
    m, G = col.shape[:2]
    if 1 < G <= m:
        _blas(w.reshape((G, 1) + w.shape[1:]), col.transpose(1, 0, 2, 3), out.transpose(1, 0, 2, 3), (G, m))
    else:
        _blas(w, col, out, (m, G))


def _im2col_launch(d, dev, m, cin, sp, out_sp, K, S, lo, D, samples_inner: bool = False) -> tuple:
    """(function, grid) of im2col over a chunk of m samples; samples_inner: col (cin * prod(K), m, P)."""
    vec = next(v for v in (4, 2, 1) if out_sp[-1] % v == 0 and v * d.itemsize <= 16)
    size = m * cin * prod(K) * prod(out_sp)
    wide = max(size, m * cin * prod(sp)) >= WIDE_AT
    fn = IM2COL.function(dev, d, len(sp), (cin, sp, out_sp, K, S, lo, D), m, vec, wide, samples_inner)
    return fn, (max(1, min(-(-(size // vec) // IM2COL_THREADS), IM2COL_GRID)), 1, 1)


def _im2col(x, col, cin, sp, out_sp, K, S, lo, D) -> None:
    """col (m, cin * prod(K), P) from the contiguous chunk x (m, cin, *sp)."""
    fn, grid = _im2col_launch(x.dtype, x.device_id, x.shape[0], cin, sp, out_sp, K, S, lo, D)
    launch_grid(fn, grid, (IM2COL_THREADS, 1, 1), [x.ptr, col.ptr], x.device_id)


def _batched(input, nd: int, cout: int, out_sp: tuple):
    """(x, out, unbatched): the input contiguous with its batch axis (one of 1 where it has none)
    and the output (N, cout, *out_sp) on its device."""
    unbatched = input.ndim == nd + 1
    x = contiguous(input)
    if unbatched:
        x = x.reshape((1,) + x.shape)
    return x, ndarray._empty((x.shape[0], cout) + out_sp, x.dtype, x.device_id), unbatched


# -- conv: plans -------------------------------------------------------------------------------------------------
# conv's key (`_key`) -> its plan (`_plan`): the output's shape, dtype and device, the route, the gemm
# sizes, the chunks with their kernels and grids, the scratch buffer's size
_plans = PlanCache()


def _key(nd, x, w, b, stride, padding, dilation, groups, act, r):
    """conv's plan key, or None where an argument is not of a type the key holds exactly (the
    checks say what is wrong with it, or take it each call)."""
    if type(x) is not ndarray or type(w) is not ndarray or type(groups) is not int or \
            not (act is None or type(act) is str):
        return None
    for v in (stride, padding, dilation):
        t = type(v)
        if not (t is int or t is str or t is tuple and all_ints(v)):
            return None
    if b is not None and type(b) is not ndarray or r is not None and type(r) is not ndarray:
        return None
    # the pass after the gemm reads the residual in vectors: its address's alignment is a decision
    rk = None if r is None else (layout(r), r._ptr % 16)
    return (nd, layout(x), layout(w), layout(b), rk, stride, padding, dilation, groups, act,
            ONE_GEMM, COL_BYTES, WIDE_AT, IM2COL_GRID)


def _geometry(name, nd, input, K, stride, padding, dilation):
    """(S, D, lo, total padding, out_sp) of a conv, checked."""
    S = ntuple(stride, nd, name, "stride", 1)
    D = ntuple(dilation, nd, name, "dilation", 1)
    sp = input.shape[-nd:]
    if isinstance(padding, str):
        if padding == "valid":
            lo, total = (0,) * nd, (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in S):
                raise ValueError(f"{name}: padding='same' needs stride 1, got {S}")
            total = tuple(d * (k - 1) for d, k in zip(D, K))
            lo = tuple(t // 2 for t in total)
        else:
            raise ValueError(f"{name}: padding must be 'valid', 'same', an int or {nd} ints, got {padding!r}")
    else:
        lo = ntuple(padding, nd, name, "padding", 0)
        total = tuple(2 * p for p in lo)
    out_sp = tuple((L + t - d * (k - 1) - 1) // s + 1 for L, t, d, k, s in zip(sp, total, D, K, S))
    if any(o < 1 for o in out_sp):
        raise ValueError(f"{name}: the (padded) input {sp} is smaller than the (dilated) kernel {tuple(K)}")
    return S, D, lo, total, out_sp


def _post_launch(d, dev, act, bias, residual, cout, P, m, transposed, r_aligned):
    """(function, grid) of the pass after the gemm over m samples (`_post_source`)."""
    total = m * cout * P
    vec = next(v for v in (4, 2, 1) if P % v == 0 and v * d.itemsize <= 16 and (r_aligned % (v * d.itemsize) == 0))
    fn = POST.function(dev, d, act, bias, residual, cout, P, m, transposed, vec, total >= WIDE_AT)
    return fn, (max(1, min(-(-(total // vec) // IM2COL_THREADS), IM2COL_GRID)), 1, 1)


def _plan(nd, input, weight, bias, stride, padding, dilation, groups, activation, residual) -> tuple:
    """conv's checks (clear exceptions for bad input, before anything runs) and its plan (`_run`)."""
    name = f"conv{nd}d"
    cin, cout = _check_args(name, nd, input, weight, bias, groups, False)
    act = "identity" if activation is None else activation
    if act not in ACTIVATIONS:
        raise ValueError(f"{name}: unknown activation {activation!r} "
                         f"(one of {[a for a in sorted(ACTIVATIONS) if a != 'identity']})")
    K = weight.shape[2:]
    S, D, lo, total, out_sp = _geometry(name, nd, input, K, stride, padding, dilation)
    out_shape = input.shape[:-nd - 1] + (cout,) + out_sp
    check_residual(name, residual, input.dtype, out_shape)
    same_device(name, input, residual)
    d, dev = input.dtype, input.device_id
    N = input.shape[0] if input.ndim == nd + 2 else 1
    sp = input.shape[-nd:]
    kk, P, isz = prod(K), prod(out_sp), d.itemsize
    G, kc = groups, cin // groups * kk
    post = bias is not None or residual is not None or act != "identity"     # one pass after the gemm
    r_al = 0 if residual is None else residual.ptr % 16
    # route: "empty" (no output), "bias" (no input channels: the output is the pass over zeros),
    # "1x1" (x is its own col), "im2col", each on addresses where G == 1 (`flat`), else on views
    flat = G == 1 and max(P, cout, kc) <= 0x7FFFFFFF
    common = (out_shape, d, dev, act, N, cin, cout, kc, P, G, flat)
    if not (N * cout * P):
        return ("empty",) + common + (None,)
    after = _post_launch(d, dev, act, bias is not None, residual is not None, cout, P, N, False, r_al) \
        if post else None
    if not cin * kk:
        return ("bias",) + common + (after,)
    if kk == 1 and all(s == 1 for s in S) and not any(lo) and not any(total):
        return ("1x1",) + common + (after,)
    nb = max(1, min(N, COL_BYTES // max(1, cin * kk * P * isz)))
    one = flat and post and ONE_GEMM and nb * P <= 0x7FFFFFFF
    chunks = []
    for n0 in range(0, N, nb):
        m = min(nb, N - n0)
        fn, grid = _im2col_launch(d, dev, m, cin, sp, out_sp, K, S, lo, D, one)
        pf = _post_launch(d, dev, act, bias is not None, residual is not None, cout, P, m, True, r_al) if one \
            else None
        chunks.append((n0, m, n0 * cin * prod(sp) * isz, n0 * cout * P * isz, fn, grid, pf))
    col = nb * cin * kk * P * isz
    tmp = -(-col // SCRATCH_ALIGN) * SCRATCH_ALIGN if one else 0     # the one gemm's result after col
    scratch = tmp + cout * nb * P * isz if one else col
    return ("im2col",) + common + (None if one else after, tuple(chunks), one, tmp, -(-scratch // isz))


_BLOCK = (IM2COL_THREADS, 1, 1)


def _run(plan, x, w, b, r) -> ndarray:
    """A conv by its plan on C-contiguous x, w, b and r (of the plan's key)."""
    route, out_shape, d, dev, act, N, cin, cout, kc, P, G, flat, after = plan[:13]
    if route == "bias":                 # no input channels: act(0 + bias + residual), in place
        out = zeros(out_shape, dtype=d, device=dev)
        if after is not None:
            with _on_device(dev):
                after[0].launch(after[1], _BLOCK, (out, b, r, out), 0, current_stream(dev))
        return out
    out = ndarray._empty(out_shape, d, dev)
    if route == "empty":
        return out
    w_ = w
    with _on_device(dev):
        s = current_stream(dev)
        if route == "1x1":
            if flat:
                B.gemm_batched(s, d, False, False, P, cout, kc, x._ptr, P, kc * P, w._ptr, kc, 0, out._ptr, P,
                               cout * P, N)
            else:
                _gemm_nchw(w.reshape((G, cout // G, kc)), x.reshape((N, G, kc, P)), out.reshape((N, G, cout // G, P)))
        else:
            chunks, one, tmp_off, scratch = plan[13:]
            buf = ndarray._empty((scratch,), d, dev)
            xp, cp, op = x._ptr, buf._ptr, out._ptr
            if not flat:
                w_, out4 = w.reshape((G, cout // G, kc)), out.reshape((N, G, cout // G, P))
            for n0, m, xoff, ooff, fn, grid, pf in chunks:
                fn.launch(grid, _BLOCK, (xp + xoff, cp), 0, s)
                if one:
                    tp = cp + tmp_off
                    B.gemm_batched(s, d, False, False, m * P, cout, kc, cp, m * P, kc * m * P, w._ptr, kc, 0, tp, m * P,
                                   cout * m * P, 1)
                    pf[0].launch(pf[1], _BLOCK, (tp, b, None if r is None else r._ptr + ooff, op + ooff), 0, s)
                elif flat:
                    B.gemm_batched(s, d, False, False, P, cout, kc, cp, P, kc * P, w._ptr, kc, 0, op + ooff, P,
                                   cout * P, m)
                else:
                    _gemm_nchw(w_, buf._view(cp, (m, G, kc, P), (G * kc * P * d.itemsize, kc * P * d.itemsize,
                                                                  P * d.itemsize, d.itemsize)), out4[n0:n0 + m])
        if after is not None:
            after[0].launch(after[1], _BLOCK, (out, b, r, out), 0, s)
    return out


def _conv(nd, input, weight, bias, stride, padding, dilation, groups, activation=None, residual=None):
    key = _key(nd, input, weight, bias, stride, padding, dilation, groups, activation, residual)
    plan = _plans.get(key) if key is not None else None
    if plan is not None:
        return _run(plan, input, weight, bias, residual)
    plan = _plan(nd, input, weight, bias, stride, padding, dilation, groups, activation, residual)
    x, w = contiguous(input), contiguous(weight)
    b = None if bias is None else contiguous(bias)
    r = None if residual is None else contiguous(residual)
    if key is not None and x is input and w is weight and b is bias and r is residual:
        _plans.put(key, plan)
    return _run(plan, x, w, b, r)


def _conv_transpose(nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    name = f"conv_transpose{nd}d"
    cin, cout = _check_args(name, nd, input, weight, bias, groups, True)
    S = ntuple(stride, nd, name, "stride", 1)
    Pd = ntuple(padding, nd, name, "padding", 0)
    OP = ntuple(output_padding, nd, name, "output_padding", 0)
    D = ntuple(dilation, nd, name, "dilation", 1)
    if any(op >= s and op >= d for op, s, d in zip(OP, S, D)):
        raise ValueError(f"{name}: output_padding {OP} must be smaller than either stride {S} or dilation {D}")
    K = weight.shape[2:]
    sp = input.shape[-nd:]
    out_sp = tuple((L - 1) * s - 2 * p + d * (k - 1) + op + 1 for L, s, p, d, k, op in zip(sp, S, Pd, D, K, OP))
    if any(o < 1 for o in out_sp):
        raise ValueError(f"{name}: the output size {out_sp} would be empty")
    x, out, unbatched = _batched(input, nd, cout, out_sp)
    N, dev = x.shape[0], x.device_id
    kk, Pin = prod(K), prod(sp)
    if out.size:
        G = groups
        # weight (Cin, Cout/G, *K) -> (G, Cin/G, Cout/G*K), read transposed by the gemm
        wt = contiguous(weight).reshape((G, cin // G, cout // G * kk)).mT
        nb = max(1, min(N, COL_BYTES // max(1, cout * kk * Pin * x.itemsize)))
        fn = COL2IM.function(dev, x.dtype, nd)
        bias_c = contiguous(bias) if bias is not None else None
        for n0 in range(0, N, nb):
            m = min(nb, N - n0)
            xg = x[n0:n0 + m].reshape((m, cin, Pin)).transpose(1, 0, 2).copy().reshape((G, cin // G, m * Pin))
            col = matmul(wt, xg)                       # (G, Cout/G*K, m*Pin) = (Cout, K, m, Pin)
            dst = out[n0:n0 + m]
            launch_flat(fn, dst.size, [col, bias_c, dst, np.int64(dst.size), np.int64(m), np.int64(cout), dims(sp),
                                       dims(out_sp), dims(K), dims(S), dims(Pd), dims(D)], dev)
    return out[0] if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, activation=None,
           residual=None) -> ndarray:
    """1-d convolution (cross-correlation, as PyTorch) of (N, Cin, L) with (Cout, Cin/groups, k).
    hip.tensor's additions, as `linear`'s: act(conv + bias + residual) in one pass after the gemm."""
    return _conv(1, input, weight, bias, stride, padding, dilation, groups, activation, residual)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, activation=None,
           residual=None) -> ndarray:
    """2-d convolution of (N, Cin, H, W) with (Cout, Cin/groups, kh, kw); `activation` and
    `residual` (the output's shape) as conv1d's."""
    return _conv(2, input, weight, bias, stride, padding, dilation, groups, activation, residual)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, activation=None,
           residual=None) -> ndarray:
    """3-d convolution of (N, Cin, D, H, W) with (Cout, Cin/groups, kd, kh, kw); `activation` and
    `residual` as conv1d's."""
    return _conv(3, input, weight, bias, stride, padding, dilation, groups, activation, residual)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 1-d convolution; weight (Cin, Cout/groups, k)."""
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-d convolution; weight (Cin, Cout/groups, kh, kw)."""
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 3-d convolution; weight (Cin, Cout/groups, kd, kh, kw)."""
    return _conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups, dilation)
