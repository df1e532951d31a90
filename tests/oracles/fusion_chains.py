"""The functions ht.fuse is checked on (tests/tensor/test_tensor_fusion.py compiles them,
tests/tensor/test_tensor_fusion_gpu.py runs them): each is a factory taking the array namespace
(`hip.tensor`, or `numpy` for the reference), so the fused, the eager and the NumPy versions are
one source.

name -> (factory, dtype kinds it is defined for, extra arguments after the two arrays)."""
from __future__ import annotations


def _chain4(xp):
    return lambda x, y: (x * y + x) * y - x


def _scalars(xp):
    return lambda x, y: x * 3 - y / 2 + 1.5


def _math(xp):
    return lambda x, y: xp.exp(xp.sin(x)) * xp.sqrt(xp.abs(y)) + xp.square(x)


def _where(xp):
    return lambda x, y: xp.where(x > y, x - y, y * 2)


def _cast(xp):
    return lambda x, y: (x.astype(xp.float32) * 2 + y).astype(xp.float64) - x


def _bitwise(xp):
    return lambda x, y: ((x & y) | (x ^ 3)) + ~x


def _logic(xp):
    return lambda x, y: xp.logical_and(x > 1, y <= x) | xp.isnan(x * y)


def _clip(xp):
    return lambda x, y: xp.maximum(xp.clip(x, 0, 2), y)


def _divmod(xp):
    return lambda x, y: x // (y * y + 1) + x % 3


def _scalar_arg(xp):
    return lambda x, y, s: x ** 2 * s + y


def _sqdev(xp):
    return lambda x, y: ((x - y) ** 2).sum(axis=1)


def _mean0(xp):
    return lambda x, y: (x * y + 1).mean(axis=0, keepdims=True)


def _max_inner(xp):
    return lambda x, y: xp.maximum(x, y).max(axis=-1)


def _any0(xp):
    return lambda x, y: (x > y).any(axis=0)


def _rms(xp):
    return lambda x, y: xp.sqrt((x * y).mean()) * 2 + 1


def _prod64(xp):
    return lambda x, y: (x + y).prod(axis=1, dtype=xp.float64)


def _sum_all(xp):
    return lambda x, y: (x - y * 0.5).sum()


ELEMENTWISE = {
    "chain4": (_chain4, "iufc", ()),
    "scalars": (_scalars, "biufc", ()),
    "math": (_math, "biufc", ()),
    "where": (_where, "iufc", ()),
    "cast": (_cast, "biufc", ()),
    "bitwise": (_bitwise, "biu", ()),
    "logic": (_logic, "biufc", ()),
    "clip": (_clip, "iuf", ()),
    "divmod": (_divmod, "biuf", ()),
    "scalar_arg": (_scalar_arg, "biufc", (0.75,)),
}

REDUCTIONS = {
    "sqdev": (_sqdev, "iufc", ()),
    "mean0": (_mean0, "biufc", ()),
    "max_inner": (_max_inner, "biuf", ()),
    "any0": (_any0, "biufc", ()),
    "rms": (_rms, "biufc", ()),
    "prod64": (_prod64, "biufc", ()),
    "sum_all": (_sum_all, "biufc", ()),
}

CHAINS = {**ELEMENTWISE, **REDUCTIONS}
