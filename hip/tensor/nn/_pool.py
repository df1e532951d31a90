"""Pooling: max_pool1d/2d/3d, avg_pool1d/2d/3d (kernel_size, stride, padding, ceil_mode; max:
dilation; avg: count_include_pad, divisor_override) and adaptive_avg_pool1d/2d/3d.

One generated kernel per (dtype, spatial dims, kind): one thread per output element of the
C-contiguous (N*C, *spatial) input, walking its window with nested loops (avg sums in float32,
float64 for float64). Max propagates NaN, as PyTorch. Input (N, C, *spatial) or unbatched
(C, *spatial). A call's checks and launch arguments are a plan kept by key (`_core.plans`)."""
from __future__ import annotations

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.device import current_stream
from .._core.plans import PlanCache, all_ints, layout
from .._core.shapes import prod
from .._kernels.elementwise import BLOCK, _on_device, grid_for
from .._kernels.template import TemplateKernel, dims
from ._common import compute_dtype, contiguous, need_float, ntuple

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"]


def _source(d: _dt.DType, nd: int, kind: str):
    T, A = d.ctype, compute_dtype(d).ctype
    name = f"htnn_{kind}_pool{nd}d_{d.name}"
    L = []                                      # the window, one nested loop per spatial dim
    if kind == "max":
        for k in range(nd):
            L.append(f"for (long long k{k} = 0; k{k} < K.v[{k}]; ++k{k}) {{ "
                     f"const long long i{k} = o{k} * St.v[{k}] - P.v[{k}] + k{k} * D.v[{k}]; "
                     f"if (i{k} < 0 || i{k} >= I.v[{k}]) continue;")
        body = "const A v = ht_cast<A>(x[at]); if (v > m || v != v) m = v;"
        init = "A m = -ht_real_limits<A>::inf();"
        fin = "y[idx] = ht_cast<T>(m);"
        bounds = ""
    else:
        for k in range(nd):
            L.append(f"for (long long i{k} = s{k}; i{k} < e{k}; ++i{k}) {{")
        body = "acc += ht_cast<A>(x[at]);"
        init = "A acc = A(0);"
        if kind == "avg":
            bounds = "".join(
                f"long long s{k} = o{k} * St.v[{k}] - P.v[{k}], e{k} = s{k} + K.v[{k}];"
                f" if (e{k} > I.v[{k}] + P.v[{k}]) e{k} = I.v[{k}] + P.v[{k}];"
                f" pool *= e{k} - s{k}; if (s{k} < 0) s{k} = 0; if (e{k} > I.v[{k}]) e{k} = I.v[{k}];"
                f" valid *= e{k} - s{k};\n        " for k in range(nd))
            bounds = "long long pool = 1, valid = 1;\n        " + bounds
            fin = ("const long long div = divisor > 0 ? divisor : (include_pad ? pool : valid);"
                   " y[idx] = ht_cast<T>(acc / A(div));")
        else:       # adaptive: [floor(o*I/O), ceil((o+1)*I/O))
            bounds = "long long valid = 1;\n        " + "".join(
                f"const long long s{k} = (o{k} * I.v[{k}]) / O.v[{k}], "
                f"e{k} = ((o{k} + 1) * I.v[{k}] + O.v[{k}] - 1) / O.v[{k}]; valid *= e{k} - s{k};\n        "
                for k in range(nd))
            fin = "y[idx] = ht_cast<T>(acc / A(valid));"
    at = "i0"
    for k in range(1, nd):
        at = f"({at}) * I.v[{k}] + i{k}"
    coords = "".join(f"const long long o{k} = c{k};\n        " for k in range(nd))
    decomp = "".join(f"const long long c{k} = r % O.v[{k}]; r /= O.v[{k}];\n        " for k in reversed(range(nd)))
    src = f"""
extern "C" __global__ void {name}(const {T}* __restrict__ X, {T}* __restrict__ y, long long total,
        ht_dims<{nd}> I, ht_dims<{nd}> O, ht_dims<{nd}> K, ht_dims<{nd}> St, ht_dims<{nd}> P, ht_dims<{nd}> D,
        long long include_pad, long long divisor) {{
    typedef {T} T;
    typedef {A} A;
    (void)K; (void)St; (void)P; (void)D; (void)include_pad; (void)divisor;
    long long plane = 1;
    for (int k = 0; k < {nd}; ++k) plane *= I.v[k];
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (long long)blockDim.x * gridDim.x) {{
        long long r = idx;
        {decomp}{coords}const T* x = X + r * plane;
        {bounds}{init}
        {' '.join(L)}
            const long long at = {at};
            {body}
        {'}' * nd}
        {fin}
    }}
}}
"""
    return src, name


KERNEL = TemplateKernel("htnn_pool", _source)


def _batched(name, x, nd):
    need_float(x, name)
    if x.ndim not in (nd + 1, nd + 2):
        raise ValueError(f"{name}: expected input of shape (N, C, *{nd} spatial) or (C, *{nd} spatial), "
                         f"got {x.shape}")
    return x.ndim == nd + 1


# (pool, input's shape, strides, dtype and device, the size arguments, the flags) -> `_plan`'s, for a
# C-contiguous input
_plans = PlanCache()


def _key(name, x, sizes, flags):
    """A pool's plan key, or None where an argument is not of a type the key holds exactly."""
    if type(x) is not ndarray:
        return None
    for v in sizes:
        if not (v is None or type(v) is int or type(v) is tuple and all_ints(v)):
            return None
    for f in flags:
        if type(f) is not bool:
            return None
    return (name, layout(x), sizes, flags)


def _plan(kind, x, nd, out_sp, K, S, P, D, include_pad=True, divisor=0) -> tuple:
    """(the output's shape, the kernel or None for an empty output, its grid, its arguments after
    the input and the output)."""
    shape = x.shape[:-nd] + tuple(out_sp)
    n = prod(shape)
    if not n:
        return shape, None, None, None
    fn = KERNEL.function(x.device_id, x.dtype, nd, kind)
    return shape, fn, (grid_for(n, x.device_id), 1, 1), (
        np.int64(n), dims(x.shape[-nd:]), dims(out_sp), dims(K), dims(S), dims(P), dims(D),
        np.int64(bool(include_pad)), np.int64(divisor))


def _launch(plan, x) -> ndarray:
    shape, fn, grid, tail = plan
    dev = x._device_id
    out = ndarray._empty(shape, x._dtype, dev)
    if fn is not None:
        with _on_device(dev):
            fn.launch(grid, (BLOCK, 1, 1), (x, out) + tail, 0, current_stream(dev))
    return out


def _run(kind, x, nd, out_sp, K, S, P, D, include_pad=True, divisor=0, key=None) -> ndarray:
    xc = contiguous(x)
    plan = _plan(kind, xc, nd, out_sp, K, S, P, D, include_pad, divisor)
    if key is not None and xc is x:
        _plans.put(key, plan)
    return _launch(plan, xc)


def _out_size(name, L, k, s, p, d, ceil_mode):
    eff = d * (k - 1) + 1
    num = L + 2 * p - eff
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= L + p:
        o -= 1
    if o < 1:
        raise ValueError(f"{name}: output size is too small (input {L}, kernel {k}, stride {s}, padding {p}, "
                         f"dilation {d})")
    return o


def _window(name, x, nd, kernel_size, stride, padding, dilation, ceil_mode, is_max):
    _batched(name, x, nd)
    K = ntuple(kernel_size, nd, name, "kernel_size", 1)
    S = K if stride is None or (not isinstance(stride, int) and len(tuple(stride)) == 0) \
        else ntuple(stride, nd, name, "stride", 1)
    P = ntuple(padding, nd, name, "padding", 0)
    D = ntuple(dilation, nd, name, "dilation", 1)
    for k, p, d in zip(K, P, D):
        if p > (d * (k - 1) + 1) // 2 if is_max else p > k // 2:
            raise ValueError(f"{name}: padding {P} should be at most half of the (effective) kernel size {K}")
    sp = x.shape[-nd:]
    out = tuple(_out_size(name, L, k, s, p, d, ceil_mode) for L, k, s, p, d in zip(sp, K, S, P, D))
    return out, K, S, P, D


def _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    name = f"max_pool{nd}d"
    key = _key(name, input, (kernel_size, stride, padding, dilation), (ceil_mode, return_indices))
    plan = _plans.get(key) if key is not None else None
    if plan is not None:
        return _launch(plan, input)
    if return_indices:
        raise NotImplementedError(f"{name}: return_indices is not supported")
    out, K, S, P, D = _window(name, input, nd, kernel_size, stride, padding, dilation, ceil_mode, True)
    return _run("max", input, nd, out, K, S, P, D, key=key)


def _avg_pool(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    name = f"avg_pool{nd}d"
    key = _key(name, input, (kernel_size, stride, padding, divisor_override), (ceil_mode, count_include_pad))
    plan = _plans.get(key) if key is not None else None
    if plan is not None:
        return _launch(plan, input)
    out, K, S, P, D = _window(name, input, nd, kernel_size, stride, padding, 1, ceil_mode, False)
    if divisor_override is not None and (isinstance(divisor_override, bool) or int(divisor_override) < 1):
        raise ValueError(f"{name}: divisor_override must be a positive int, got {divisor_override!r}")
    return _run("avg", input, nd, out, K, S, P, D, count_include_pad, int(divisor_override or 0), key)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window (NaN propagates)."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window (NaN propagates)."""
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window (NaN propagates)."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window (padding counts unless count_include_pad=False)."""
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window (padding counts unless count_include_pad=False)."""
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window (padding counts unless count_include_pad=False)."""
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive(nd, input, output_size):
    name = f"adaptive_avg_pool{nd}d"
    key = _key(name, input, (output_size,), ())
    plan = _plans.get(key) if key is not None else None
    if plan is not None:
        return _launch(plan, input)
    _batched(name, input, nd)
    sp = input.shape[-nd:]
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size,) * nd
    output_size = tuple(output_size)
    if len(output_size) != nd:
        raise ValueError(f"{name}: output_size must be an int or {nd} values, got {output_size!r}")
    out = tuple(L if o is None else o for L, o in zip(sp, output_size))
    if any(isinstance(o, bool) or not isinstance(o, (int, np.integer)) or o < 1 for o in out):
        raise ValueError(f"{name}: output_size must hold positive ints (or None), got {output_size!r}")
    if prod(sp) == 0 and input.size == 0 and prod(input.shape[:-nd]):
        raise ValueError(f"{name}: empty spatial input {input.shape}")
    one = (1,) * nd
    return _run("adaptive", input, nd, tuple(int(o) for o in out), one, one, (0,) * nd, one, key=key)


def adaptive_avg_pool1d(input, output_size):
    """Means over the adaptive windows [floor(o*L/O), ceil((o+1)*L/O))."""
    return _adaptive(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """Means over the adaptive windows [floor(o*L/O), ceil((o+1)*L/O)) of each spatial dim."""
    return _adaptive(2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """Means over the adaptive windows [floor(o*L/O), ceil((o+1)*L/O)) of each spatial dim."""
    return _adaptive(3, input, output_size)
