"""Element-wise activations (relu, sigmoid, tanh, gelu, silu), clamp, where, dropout and linear.

Each activation is one ElementwiseKernel; float16/bfloat16 compute in float32 and round once.
`linear(x, w, b, activation=..., residual=...)` is one hipBLASLt matmul whose epilogue adds the
bias and applies ReLU or tanh-GELU (`gelu_tanh`), the residual read as its C matrix (beta 1);
another activation follows it in one element-wise pass in place (`_libs.blaslt`). Where hipBLASLt
does not run it (not built or not loadable, switched off by `ht.backends.matmul.use_hipblaslt`,
float64, strided operands, a scalar bias), it is one hipBLAS gemm followed by one element-wise
pass (`epilogue`) that adds the bias and the residual and applies the activation in place.

dropout draws its mask from a counter-based hash (splitmix64 of seed and the element's flat
index), seeded per call from a host generator: reproducible for a given seed, but its stream is
not PyTorch's (the same seed gives a different mask there).
"""
from __future__ import annotations

import numbers

import numpy as np

from .._api.elementwise import _C_PATH, clip
from .._api.linalg import matmul
from .._api.searching import where as _where
from .. import backends
from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.device import current_stream, get_device_id
from .._core.plans import PlanCache, layout
from .._core.shapes import prod
from .._kernels.elementwise import ElementwiseKernel, _on_device
from .._libs import blaslt
from ._common import compute_dtype, need_array, need_float, same_device

__all__ = ["relu", "sigmoid", "tanh", "gelu", "silu", "clamp", "where", "dropout", "linear", "manual_seed"]

PREAMBLE = r"""
#ifndef HTNN_ACTIVATION_PREAMBLE
#define HTNN_ACTIVATION_PREAMBLE
__device__ __forceinline__ float htnn_erf(float x) { return erff(x); }
__device__ __forceinline__ double htnn_erf(double x) { return erf(x); }
__device__ __forceinline__ unsigned int htnn_hash(unsigned long long seed, long long i) {
    unsigned long long z = seed + (unsigned long long)(i + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (unsigned int)(z >> 32);
}
#endif
"""

# C++ over `a` of the compute type C (NaN propagates through relu, as PyTorch's)
ACTIVATIONS = {
    "identity": "a",
    "relu": "(a < C(0) ? C(0) : a)",
    "sigmoid": "C(1) / (C(1) + ht_exp(-a))",
    "tanh": "ht_tanh(a)",
    "gelu": "C(0.5) * a * (C(1) + htnn_erf(a * C(0.70710678118654752440)))",
    "gelu_tanh": "C(0.5) * a * (C(1) + ht_tanh(C(0.79788456080286535588) * (a + C(0.044715) * a * a * a)))",
    "silu": "a / (C(1) + ht_exp(-a))",
}

UNARY = {name: ElementwiseKernel("X x", "Y y", f"const C a = ht_cast<C>(x); y = ht_cast<Y>({expr});",
                                 f"htnn_{name}", preamble=PREAMBLE, vectorize=True)
         for name, expr in ACTIVATIONS.items() if name != "identity"}
# y = act(x + b): the bias broadcast along the last axis; run in place on the gemm's result
BIAS_ACT = {name: ElementwiseKernel("X x, B b", "Y y",
                                    f"const C a = ht_cast<C>(x) + ht_cast<C>(b); y = ht_cast<Y>({expr});",
                                    f"htnn_bias_{name}", preamble=PREAMBLE)
            for name, expr in ACTIVATIONS.items()}
# y = act(x + b + r): a residual added before the activation (ResNet's relu(bn(conv(x)) + identity))
BIAS_RESIDUAL_ACT = {name: ElementwiseKernel(
    "X x, B b, R r", "Y y",
    f"const C a = ht_cast<C>(x) + ht_cast<C>(b) + ht_cast<C>(r); y = ht_cast<Y>({expr});",
    f"htnn_bias_residual_{name}", preamble=PREAMBLE) for name, expr in ACTIVATIONS.items()}
DROPOUT = ElementwiseKernel("X x, uint64 seed, uint32 threshold, C scale", "Y y",
                            "y = ht_cast<Y>(htnn_hash(seed, i) >= threshold ? ht_cast<C>(x) * scale : C(0));",
                            "htnn_dropout", preamble=PREAMBLE)


def epilogue(x: ndarray, bias, residual, act: str, out: ndarray) -> None:
    """out = act(x + bias + residual) in one element-wise pass (out may be x: in place); bias
    broadcasts (a scalar 0 where there is none), residual has out's shape or is None."""
    b = {"C": compute_dtype(out.dtype), "Y": out.dtype}
    if residual is not None:
        BIAS_RESIDUAL_ACT[act](x, bias, residual, out, _bindings=b)
    else:
        BIAS_ACT[act](x, bias, out, _bindings=b)


_signatures: dict = {}     # (activation, dtype name) -> UNARY's signature of one such array (False: none)


def _signature(name: str, x: ndarray):
    """UNARY[name]'s signature for arrays of x's dtype (False: none), kept by (name, dtype)."""
    key = (name, x._dtype.name)
    sig = _signatures.get(key)
    if sig is None:
        sig = _signatures[key] = UNARY[name].signature((x,), {"C": compute_dtype(x.dtype), "Y": x.dtype}) or False
    return sig


def _fresh(name: str, x: ndarray):
    """UNARY[name](x) into a new array through the element-wise C hot path (`call_contiguous`:
    x C-contiguous on the current device); None where that path does not take it."""
    if not _C_PATH:
        return None
    sig = _signature(name, x)
    return UNARY[name].call_contiguous(sig, (x,)) if sig else None


def _in_place(name: str, x: ndarray) -> bool:
    """UNARY[name](x, x) for x C-contiguous on the current device: the flat launch the C hot path
    would pick (`_flat_hit`), without the general path's layout search; False where it does not
    apply (the general path then runs)."""
    n = x.size
    if not _C_PATH or not n or not x.is_c_contiguous or get_device_id() != x._device_id:
        return False
    sig = _signature(name, x)
    if not sig:
        return False
    hit = UNARY[name]._flat_hit(sig, [x, x], n, x._device_id)
    hit.function.launch(hit.grid, hit.block, (x, x, hit.count), 0, current_stream(hit.device))
    return True


def _unary(name: str, x, inplace: bool = False) -> ndarray:
    need_float(x, name)
    if type(x) is ndarray:
        if not inplace:
            y = _fresh(name, x)
            if y is not None:
                return y
        elif _in_place(name, x):
            return x
    b = {"C": compute_dtype(x.dtype), "Y": x.dtype}
    if inplace:
        return UNARY[name](x, x, _bindings=b)
    return UNARY[name](x, _bindings=b)


def relu(input, inplace: bool = False) -> ndarray:
    """max(x, 0) element-wise (NaN stays NaN)."""
    return _unary("relu", input, inplace)


def sigmoid(input) -> ndarray:
    """1 / (1 + exp(-x))."""
    return _unary("sigmoid", input)


def tanh(input) -> ndarray:
    return _unary("tanh", input)


def gelu(input, approximate: str = "none") -> ndarray:
    """x * Phi(x) (approximate='none', through erf) or PyTorch's tanh approximation ('tanh')."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _unary("gelu" if approximate == "none" else "gelu_tanh", input)


def silu(input, inplace: bool = False) -> ndarray:
    """x * sigmoid(x)."""
    return _unary("silu", input, inplace)


def clamp(input, min=None, max=None) -> ndarray:
    """x clamped to [min, max] (scalars or arrays; min > max gives max, as PyTorch)."""
    need_array(input, "clamp")
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    return clip(input, min=min, max=max)


def where(condition, input, other) -> ndarray:
    """Elements of input where condition is true, else of other (broadcast)."""
    need_array(condition, "where", "condition")
    if condition.dtype is not _dt.bool:
        raise TypeError(f"where: condition must be bool, got {condition.dtype.name}")
    return _where(condition, input, other)


# -- dropout ---------------------------------------------------------------------------------------------------
_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Reseed the host generator dropout draws its per-call seeds from (not PyTorch's stream)."""
    global _rng
    _rng = np.random.default_rng(seed)


def _seed(generator) -> np.uint64:
    if generator is None:
        g = _rng
    elif isinstance(generator, np.random.Generator):
        g = generator
    elif isinstance(generator, numbers.Integral) and not isinstance(generator, bool):
        g = np.random.default_rng(int(generator))
    else:
        raise TypeError(f"dropout: generator must be None, an int seed or a numpy.random.Generator, "
                        f"got {type(generator).__name__}")
    return np.uint64(g.integers(0, 2 ** 64, dtype=np.uint64))


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False, *, generator=None) -> ndarray:
    """Zero each element with probability p and scale the others by 1/(1-p) when training; the
    input itself otherwise. The mask comes from a counter-based hash seeded per call (its stream
    differs from PyTorch's)."""
    need_float(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"dropout: p must be a probability in [0, 1], got {p!r}")
    p = float(p)
    if not training or p == 0.0:
        return input
    c = compute_dtype(input.dtype)
    b = {"C": c, "Y": input.dtype}
    seed = _seed(generator)
    if p == 1.0:            # every element dropped: the rare hash 2^32 - 1 passes, times 0
        args = (input, seed, np.uint32(0xFFFFFFFF), c.numpy.type(0.0))
    else:
        threshold = np.uint32(min(int(round(p * 2.0 ** 32)), 2 ** 32 - 1))
        args = (input, seed, threshold, c.numpy.type(1.0 / (1.0 - p)))
    if inplace:
        return DROPOUT(*args, input, _bindings=b)
    return DROPOUT(*args, _bindings=b)


# -- linear ----------------------------------------------------------------------------------------------------
# (operands' shapes, strides, dtypes, devices; activation) -> what linear's checks and layout
# choice found: (activation, whether hipBLASLt may take it, m, n, k, the output's shape, the
# epilogue's activation, the activation left for a pass after it or None)
_plans = PlanCache()


def _key(x, w, b, act, r):
    """linear's plan key, or None where the arguments are not all plain arrays (the checks say why)."""
    if type(x) is not ndarray or type(w) is not ndarray or not (act is None or type(act) is str):
        return None
    if b is not None and type(b) is not ndarray or r is not None and type(r) is not ndarray:
        return None
    return (layout(x), layout(w), act, layout(b), layout(r))


def linear(input, weight, bias=None, *, activation: str | None = None, residual=None) -> ndarray:
    """input @ weight.T + bias (weight: (out_features, in_features)). hip.tensor's additions:
    `activation` (one of relu, sigmoid, tanh, gelu, gelu_tanh, silu) applied in the same pass as
    the bias, and `residual` (an array of the output's shape) added before it:
    act(input @ weight.T + bias + residual)."""
    key = _key(input, weight, bias, activation, residual)
    plan = _plans.get(key) if key is not None else None
    if plan is None:
        plan = _check_linear(input, weight, bias, activation, residual)
        if key is not None:
            _plans.put(key, plan)
    act, lt, m, n, k, shape, fused, after = plan
    if lt and backends.matmul.use_hipblaslt:
        d, dev = input._dtype, input._device_id
        y = ndarray._empty(shape, d, dev)
        with _on_device(dev):
            ran = blaslt.linear(current_stream(dev), d, m, n, k, input._ptr, weight._ptr,
                                None if bias is None else bias._ptr, y._ptr, fused,
                                None if residual is None else residual._ptr)
        if ran:
            if after is not None:       # a fresh output through the C path (PyTorch's F.gelu(F.linear) has one too)
                z = _fresh(after, y)
                if z is not None:
                    return z
                UNARY[after](y, y, _bindings={"C": compute_dtype(d), "Y": d})
            return y
    y = matmul(input, weight.mT)
    if bias is not None or residual is not None:
        epilogue(y, bias if bias is not None else compute_dtype(y.dtype).numpy.type(0), residual, act, y)
    elif act != "identity":
        UNARY[act](y, y, _bindings={"C": compute_dtype(y.dtype), "Y": y.dtype})
    return y


def _check_linear(input, weight, bias, activation, residual) -> tuple:
    """linear's checks (clear exceptions for bad input) and its plan (`_plans`)."""
    need_float(input, "linear")
    need_float(weight, "linear", "weight")
    act = "identity" if activation is None else activation
    if act not in ACTIVATIONS:
        raise ValueError(f"linear: unknown activation {activation!r} "
                         f"(one of {[a for a in sorted(ACTIVATIONS) if a != 'identity']})")
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be 2-d (out_features, in_features), got shape {weight.shape}")
    if input.ndim < 1 or input.shape[-1] != weight.shape[1]:
        raise ValueError(f"linear: input of shape {input.shape} does not match weight {weight.shape} "
                         f"(its last dimension must be {weight.shape[1]})")
    if weight.dtype is not input.dtype:
        raise TypeError(f"linear: input is {input.dtype.name} but weight is {weight.dtype.name}")
    if bias is not None:
        need_float(bias, "linear", "bias")
        if bias.shape not in ((weight.shape[0],), ()):
            raise ValueError(f"linear: bias must have shape ({weight.shape[0]},), got {bias.shape}")
        if bias.dtype is not input.dtype:
            raise TypeError(f"linear: input is {input.dtype.name} but bias is {bias.dtype.name}")
    n, k = weight.shape
    shape = input.shape[:-1] + (n,)
    check_residual("linear", residual, input.dtype, shape)
    same_device("linear", input, weight, bias, residual)
    fused = act in blaslt.EPILOGUES
    return (act, _lt_layout(input, weight, bias, residual), prod(input.shape[:-1]), n, k, shape,
            act if fused else "identity", None if fused or act == "identity" else act)


def check_residual(name: str, r, dtype, shape) -> None:
    """A residual must be an array of the output's dtype and shape."""
    if r is None:
        return
    need_float(r, name, "residual")
    if r.dtype is not dtype:
        raise TypeError(f"{name}: the input is {dtype.name} but residual is {r.dtype.name}")
    if r.shape != tuple(shape):
        raise ValueError(f"{name}: residual must have the output's shape {tuple(shape)}, got {r.shape}")


def _lt_layout(x, w, b, r) -> bool:
    """Whether hipBLASLt can take linear's operands as laid out (row-major x, w and residual, a
    vector bias); float64 and a scalar bias stay with hipBLAS. The addresses' alignment is
    `_libs.blaslt`'s check at each call."""
    if x.dtype.name not in blaslt.DTYPES or not (x.is_c_contiguous and w.is_c_contiguous):
        return False
    if b is not None and (b.ndim != 1 or (b.shape[0] > 1 and b.strides[0] != b.itemsize)):
        return False
    return r is None or r.is_c_contiguous
