"""Convolutions: conv1d/2d/3d (stride, padding incl. 'valid'/'same', dilation, groups) by im2col
and hipBLAS gemms, and conv_transpose1d/2d/3d (output_padding, groups, dilation) by one gemm and
col2im.

conv: a 1 x .. x 1 kernel with stride 1 and no padding needs no im2col: y[n, g] = W_g @ x[n, g]
(Cout/G x Cin/G times Cin/G x P), strided-batched gemms reading the input as it is and writing
NCHW. Otherwise, for a chunk of nb samples, im2col writes col[n, (c, kernel position), output
position] (zero where the window reads padding) with a kernel compiled for the chunk's sizes (its
index splits are then multiply-shifts: it runs near memory bandwidth), and the same strided-batched
gemm y[n, g] = W_g @ col[n, g] writes (nb, Cout, P), the output's own layout, so nothing moves
afterwards (one gemm over all samples is about as fast but needs a pass to move its result). The
batch walks (group, sample) when there are fewer groups than samples (one gemm call per group),
else (sample, group). A bias, a residual and an activation (hip.tensor's `activation=` and
`residual=`: act(conv + bias + residual)) are one pass over the output (`_activation.epilogue`).
With that pass and groups=1, a chunk can instead be one gemm (cout, nb * P) = W @ col (cin * K,
nb * P) (im2col writes that layout), the pass reading its result transposed into NCHW (ONE_GEMM,
off by default: on an H200 it made ResNet-18 slower, 7.17 against 6.24 ms at batch 32). Chunks bound col's memory
(COL_BYTES). conv_transpose: col (Cout*K, nb*Pin) = W_g^T @ x_g by one gemm, then col2im gathers
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
from .._core.shapes import prod
from .._kernels.elementwise import _on_device
from .._kernels.template import TemplateKernel, dims, launch_flat, launch_grid
from .._libs import blas as B
from ._activation import ACTIVATIONS, check_residual, epilogue
from ._common import compute_dtype, contiguous, need_float, ntuple, same_device

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

COL_BYTES = 1 << 29             # im2col buffer per chunk of samples at most (one sample always fits)
IM2COL_THREADS = 256            # per block
IM2COL_GRID = 1 << 20           # blocks at most (a grid-stride loop covers the rest)
WIDE_AT = 1 << 31               # im2col takes 64-bit indices for arrays of this many elements or more
ONE_GEMM = False                # True: with a pass after the gemm, one gemm per chunk of samples (module doc);
                                # off: ResNet-18 b32 on an H200 took 6.24 ms with it off, 7.17 ms on


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


IM2COL = TemplateKernel("htnn_im2col", _im2col_source)
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


def _im2col(x, col, cin, sp, out_sp, K, S, lo, D) -> None:
    """col (m, cin * prod(K), P) from the contiguous chunk x (m, cin, *sp)."""
    _im2col_at(x.dtype, x.device_id, x.ptr, col.ptr, x.shape[0], cin, sp, out_sp, K, S, lo, D)


def _im2col_at(d, dev, xp: int, cp: int, m, cin, sp, out_sp, K, S, lo, D, samples_inner: bool = False) -> None:
    """_im2col on addresses (chunks of the input without making views: conv's host time counts);
    samples_inner: col (cin * prod(K), m, P)."""
    ol = out_sp[-1]
    vec = next(v for v in (4, 2, 1) if ol % v == 0 and v * d.itemsize <= 16)
    size = m * cin * prod(K) * prod(out_sp)
    wide = max(size, m * cin * prod(sp)) >= WIDE_AT
    fn = IM2COL.function(dev, d, len(sp), (cin, sp, out_sp, K, S, lo, D), m, vec, wide, samples_inner)
    threads = size // vec
    launch_grid(fn, (max(1, min(-(-threads // IM2COL_THREADS), IM2COL_GRID)), 1, 1), (IM2COL_THREADS, 1, 1),
                [xp, cp], dev)


def _gemm_at(d, dev, wp: int, cp: int, op: int, m, cout, kc, P) -> None:
    """out[n] = W @ col[n] for n < m on addresses: W (cout, kc), col (m, kc, P) and out (m, cout, P)
    contiguous; one strided-batched gemm (column-major: out[n]^T = col[n]^T W^T)."""
    with _on_device(dev):
        B.gemm_batched(current_stream(dev), d, False, False, P, cout, kc, cp, P, kc * P, wp, kc, 0,
                       op, P, cout * P, m)


def _batched(input, nd: int, cout: int, out_sp: tuple):
    """(x, out, unbatched): the input contiguous with its batch axis (one of 1 where it has none)
    and the output (N, cout, *out_sp) on its device."""
    unbatched = input.ndim == nd + 1
    x = contiguous(input)
    if unbatched:
        x = x.reshape((1,) + x.shape)
    return x, ndarray._empty((x.shape[0], cout) + out_sp, x.dtype, x.device_id), unbatched


def _conv(nd, input, weight, bias, stride, padding, dilation, groups, activation=None, residual=None):
    name = f"conv{nd}d"
    cin, cout = _check_args(name, nd, input, weight, bias, groups, False)
    act = "identity" if activation is None else activation
    if act not in ACTIVATIONS:
        raise ValueError(f"{name}: unknown activation {activation!r} "
                         f"(one of {[a for a in sorted(ACTIVATIONS) if a != 'identity']})")
    S = ntuple(stride, nd, name, "stride", 1)
    D = ntuple(dilation, nd, name, "dilation", 1)
    K = weight.shape[2:]
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
    check_residual(name, residual, input.dtype, input.shape[:-nd - 1] + (cout,) + out_sp)
    same_device(name, input, residual)
    x, out, unbatched = _batched(input, nd, cout, out_sp)
    N, dev = x.shape[0], x.device_id
    kk, P = prod(K), prod(out_sp)
    c = compute_dtype(x.dtype)
    b = bias.reshape((1, cout, 1)) if bias is not None else c.numpy.type(0)
    r = residual.reshape((N, cout, P)) if residual is not None else None
    post = bias is not None or residual is not None or act != "identity"   # one pass after the gemm
    G, kc = groups, cin // groups * kk
    if out.size and cin * kk:
        w = contiguous(weight)
        isz = x.itemsize
        y = out.reshape((N, cout, P))
        # G == 1 (the common case) runs on addresses, without views: a conv's host time is on the GPU's
        # critical path (the gemm launch comes while im2col runs)
        flat = G == 1 and max(P, cout, kc) <= 0x7FFFFFFF
        if not flat:
            w, out4 = w.reshape((G, cout // G, kc)), out.reshape((N, G, cout // G, P))
        if kk == 1 and all(s == 1 for s in S) and not any(lo) and not any(total):    # 1x1: x is its own col
            if flat:
                _gemm_at(x.dtype, dev, w.ptr, x.ptr, out.ptr, N, cout, kc, P)
            else:
                _gemm_nchw(w, x.reshape((N, G, kc, P)), out4)
            if post:
                epilogue(y, b, r, act, y)
        else:
            nb = max(1, min(N, COL_BYTES // max(1, cin * kk * P * isz)))
            # with a pass after the gemm anyway, one gemm per chunk (cout, m * P) = W @ col (kc, m * P),
            # and the pass moves its result to NCHW: a better-shaped gemm than m of (cout, P) where P
            # is small, and no more memory traffic
            one = flat and post and ONE_GEMM and nb * P <= 0x7FFFFFFF
            buf = ndarray._empty((nb, cin * kk, P), x.dtype, dev)     # one buffer: chunks reuse it (stream order)
            tmp = ndarray._empty((cout, nb * P), x.dtype, dev) if one else None
            for n0 in range(0, N, nb):
                m = min(nb, N - n0)
                _im2col_at(x.dtype, dev, x.ptr + n0 * cin * prod(sp) * isz, buf.ptr, m, cin, sp, out_sp, K, S, lo,
                           D, one)
                if one:
                    _gemm_at(x.dtype, dev, w.ptr, buf.ptr, tmp.ptr, 1, cout, kc, m * P)
                    t = tmp._view(tmp.ptr, (m, cout, P), (P * isz, m * P * isz, isz))   # (cout, m, P) as (m, cout, P)
                    epilogue(t, b, None if r is None else r[n0:n0 + m], act, y[n0:n0 + m])
                elif flat:
                    _gemm_at(x.dtype, dev, w.ptr, buf.ptr, out.ptr + n0 * cout * P * isz, m, cout, kc, P)
                else:
                    _gemm_nchw(w, buf[:m].reshape((m, G, kc, P)), out4[n0:n0 + m])
            if post and not one:
                epilogue(y, b, r, act, y)
    elif out.size:                                  # no input channels: the output is the bias
        epilogue(_zeros((N, cout, P), x.dtype, dev), b, r, act, out.reshape((N, cout, P)))
    return out[0] if unbatched else out


def _zeros(shape, d, dev):
    return zeros(shape, dtype=d, device=dev)


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
