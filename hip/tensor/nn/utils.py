"""`hip.tensor.nn.utils`: PyTorch's `torch.nn.utils` fusion helpers for inference.

    conv = ht.nn.utils.fuse_conv_bn_eval(model.conv1, model.bn1)   # one conv with bias
    y = conv(x, activation="relu")                                 # relu(bn1(conv1(x))) in 2 kernels + gemm

An eval-mode BatchNorm after a convolution is an affine map per output channel, so it folds into
the convolution's weight and bias: w' = w * s, b' = (b - mean) * s + beta with s = gamma /
sqrt(var + eps), computed on the device in float32 (float64 for float64) and rounded once to the
weight's dtype, as PyTorch's `fuse_conv_bn_weights`.
"""
from __future__ import annotations

import copy

from .._api.creation import zeros as _zeros
from .._api.elementwise import sqrt as _sqrt
from ._common import compute_dtype, need_float

__all__ = ["fuse_conv_bn_weights", "fuse_conv_bn_eval"]


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(weight, bias) of the convolution that equals conv (weight conv_w, bias conv_b or None)
    followed by batch_norm with running statistics bn_rm/bn_rv, eps bn_eps and affine bn_w/bn_b
    (either None: 1 and 0)."""
    need_float(conv_w, "fuse_conv_bn_weights", "conv_w")
    d = conv_w.dtype
    a = compute_dtype(d)
    cout = conv_w.shape[0]
    for name, v in (("bn_rm", bn_rm), ("bn_rv", bn_rv), ("bn_w", bn_w), ("bn_b", bn_b), ("conv_b", conv_b)):
        if v is not None and v.shape != (cout,):
            raise ValueError(f"fuse_conv_bn_weights: {name} must have shape ({cout},), got {v.shape}")
    if bn_rm is None or bn_rv is None:
        raise ValueError("fuse_conv_bn_weights: the BatchNorm needs running statistics")
    s = 1.0 / _sqrt(bn_rv.astype(a) + a.numpy.type(bn_eps))
    if bn_w is not None:
        s = bn_w.astype(a) * s
    w = (conv_w.astype(a) * s.reshape((cout,) + (1,) * (conv_w.ndim - 1))).astype(d)
    b0 = conv_b.astype(a) if conv_b is not None else _zeros((cout,), dtype=a, device=conv_w.device_id)
    b = (b0 - bn_rm.astype(a)) * s
    if bn_b is not None:
        b = b + bn_b.astype(a)
    return w, b.astype(d)


def fuse_conv_bn_eval(conv, bn):
    """A new convolution module equal to `bn(conv(x))` in eval mode (both modules must be in eval
    mode; the originals are left as they are)."""
    if conv.training or bn.training:
        raise ValueError("fuse_conv_bn_eval: both modules must be in eval mode (call .eval() first)")
    if getattr(bn, "running_mean", None) is None:
        raise ValueError("fuse_conv_bn_eval: the BatchNorm tracks no running statistics")
    fused = copy.copy(conv)
    for table in ("_parameters", "_buffers", "_modules"):
        object.__setattr__(fused, table, dict(getattr(conv, table)))
    fused.weight, fused.bias = fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias)
    return fused
