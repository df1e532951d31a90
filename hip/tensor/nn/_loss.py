"""Losses: mse_loss, nll_loss, cross_entropy (class indices or class probabilities),
binary_cross_entropy (alias bce_loss). Each is one element-wise kernel computing in float32
(float64 for float64 input) and, for reduction 'mean'/'sum', hip.tensor's sum; the result is cast
to the input's dtype once. An out-of-range class index raises IndexError (this costs one
device-to-host read); binary_cross_entropy does not check that input lies in [0, 1] (outside, its
logarithms give NaN), and clamps each log at -100 as PyTorch does."""
from __future__ import annotations

import numbers

import numpy as np

from .._api.creation import ones
from .._api.statistical import mean, sum as _sum
from .._core.array import ndarray
from .._core.shapes import broadcast_shapes, prod
from .._kernels.elementwise import ElementwiseKernel
from ._common import check_reduction, compute_dtype, contiguous, need_array, need_float, same_device
from ._softmax import log_softmax

__all__ = ["mse_loss", "nll_loss", "cross_entropy", "binary_cross_entropy", "bce_loss"]

_MSE = ElementwiseKernel("X x, T t", "Y y", "const A d = ht_cast<A>(x) - ht_cast<A>(t); y = ht_cast<Y>(d * d);",
                         "htnn_mse")
_NLL = ElementwiseKernel(
    "raw X inp, I t, raw W wt, int64 C, int64 D, int64 ignore", "A loss, A wsum, bool bad",
    "const long long c = (long long)t; loss = A(0); wsum = A(0); bad = false;"
    "if (c != ignore) { if (c < 0 || c >= C) bad = true; else {"
    " const long long n = i / D, d = i - n * D; const A w = ht_cast<A>(wt[c]);"
    " loss = -w * ht_cast<A>(inp[(n * C + c) * D + d]); wsum = w; } }",
    "htnn_nll")
_BCE = ElementwiseKernel(
    "X x, X t, W w", "A y",
    "const A a = ht_cast<A>(x), b = ht_cast<A>(t);"
    "A lx = ht_log(a), l1 = ht_log1p(-a);"
    "if (lx < A(-100)) lx = A(-100); if (l1 < A(-100)) l1 = A(-100);"
    "y = -(b * lx + (A(1) - b) * l1) * ht_cast<A>(w);",
    "htnn_bce")


def _reduce(loss: ndarray, reduction: str, dtype) -> ndarray:
    if reduction == "none":
        return loss.astype(dtype, copy=False)
    return (_sum(loss) if reduction == "sum" else mean(loss)).astype(dtype, copy=False)


def _same_shape(name, input, target):
    if input.shape != target.shape:
        raise ValueError(f"{name}: target of shape {target.shape} differs from the input's shape {input.shape}")


def mse_loss(input, target, reduction: str = "mean") -> ndarray:
    """(input - target)^2, averaged ('mean'), summed ('sum') or element-wise ('none')."""
    need_float(input, "mse_loss")
    need_float(target, "mse_loss", "target")
    check_reduction("mse_loss", reduction)
    _same_shape("mse_loss", input, target)
    same_device("mse_loss", input, target)
    a = compute_dtype(input.dtype)
    y = input.dtype if reduction == "none" else a
    out = _MSE(input, target, _bindings={"A": a, "Y": y})
    return _reduce(out, reduction, input.dtype)


def _class_weight(name, weight, C, input):
    if weight is None:
        return ones((C,), dtype=compute_dtype(input.dtype), device=input.device_id)
    need_float(weight, name, "weight")
    if weight.shape != (C,):
        raise ValueError(f"{name}: weight must have shape ({C},), got {weight.shape}")
    same_device(name, input, weight)
    return weight


def nll_loss(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean") -> ndarray:
    """-input[n, target[n], ...] * weight[target[n]], over (N, C, *) (or (C,)) input and integer
    targets of shape (N, *) (or ()); 'mean' divides by the sum of the targets' weights; targets
    equal to ignore_index count for nothing."""
    need_float(input, "nll_loss")
    need_array(target, "nll_loss", "target")
    check_reduction("nll_loss", reduction)
    if target.dtype.kind not in "iu":
        raise TypeError(f"nll_loss: target must hold integer class indices, got {target.dtype.name}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral):
        raise TypeError(f"nll_loss: ignore_index must be an int, got {ignore_index!r}")
    if input.ndim == 0:
        raise ValueError("nll_loss: input must have at least 1 dimension (C,) or (N, C, *)")
    if input.ndim == 1:
        expect, C = (), input.shape[0]
    else:
        expect, C = (input.shape[0],) + input.shape[2:], input.shape[1]
    if target.shape != expect:
        raise ValueError(f"nll_loss: input of shape {input.shape} needs target of shape {expect}, got {target.shape}")
    same_device("nll_loss", input, target)
    w = _class_weight("nll_loss", weight, C, input)
    a = compute_dtype(input.dtype)
    D = prod(input.shape[2:]) if input.ndim > 1 else 1
    loss, wsum, bad = _NLL(contiguous(input), target, contiguous(w), np.int64(C), np.int64(D), np.int64(ignore_index),
                           _bindings={"A": a})
    if target.size and bool(bad.any()):
        raise IndexError(f"nll_loss: a target is out of bounds for {C} classes (and not ignore_index)")
    if reduction == "mean":
        return (_sum(loss) / _sum(wsum)).astype(input.dtype, copy=False)
    return _reduce(loss, reduction, input.dtype)


def cross_entropy(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> ndarray:
    """nll_loss(log_softmax(input, dim=1), target) for integer targets; for a float target of the
    input's shape (class probabilities), -sum over classes of weight * target * log_softmax."""
    need_float(input, "cross_entropy")
    need_array(target, "cross_entropy", "target")
    check_reduction("cross_entropy", reduction)
    if label_smoothing != 0.0:
        raise NotImplementedError("cross_entropy: label_smoothing is not supported yet")
    if input.ndim == 0:
        raise ValueError("cross_entropy: input must have at least 1 dimension (C,) or (N, C, *)")
    cdim = 0 if input.ndim == 1 else 1
    a = compute_dtype(input.dtype)
    logp = log_softmax(input, dim=cdim, dtype=a)
    if target.dtype.kind in "iu":
        return nll_loss(logp, target, weight, ignore_index, reduction).astype(input.dtype, copy=False)
    need_float(target, "cross_entropy", "target")
    _same_shape("cross_entropy", input, target)
    C = input.shape[cdim]
    w = _class_weight("cross_entropy", weight, C, input).astype(a, copy=False)
    wshape = (C,) + (1,) * (input.ndim - cdim - 1)
    loss = -_sum(logp * target.astype(a, copy=False) * w.reshape(wshape), axis=cdim)
    if reduction == "mean":
        n = loss.size
        return (_sum(loss) / float(n)).astype(input.dtype, copy=False)
    return _reduce(loss, reduction, input.dtype)


def binary_cross_entropy(input, target, weight=None, reduction: str = "mean") -> ndarray:
    """-w * (t log x + (1 - t) log(1 - x)), each log clamped at -100 (input: probabilities)."""
    need_float(input, "binary_cross_entropy")
    need_float(target, "binary_cross_entropy", "target")
    check_reduction("binary_cross_entropy", reduction)
    _same_shape("binary_cross_entropy", input, target)
    if target.dtype is not input.dtype:
        raise TypeError(f"binary_cross_entropy: target is {target.dtype.name} but the input is {input.dtype.name}")
    a = compute_dtype(input.dtype)
    if weight is None:
        w = a.numpy.type(1)
        b = {"A": a, "W": a}
    else:
        need_float(weight, "binary_cross_entropy", "weight")
        try:
            ok = broadcast_shapes(weight.shape, input.shape) == input.shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"binary_cross_entropy: weight of shape {weight.shape} does not broadcast to "
                             f"the input's shape {input.shape}")
        w = weight
        b = {"A": a}
    same_device("binary_cross_entropy", input, target, weight)
    return _reduce(_BCE(input, target, w, _bindings=b), reduction, input.dtype)


bce_loss = binary_cross_entropy
