"""Helpers of the hip.tensor GPU tests: host data per dtype, the NumPy reference type and
tolerance per dtype, the layouts every function is checked on (contiguous, strided, transposed,
negative strides, broadcast, empty, 0-d)."""
from __future__ import annotations

import numpy as np

import hip.tensor as ht

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
KIND = {n: ht.dtype(n).kind for n in ALL}


def round_bf16(a) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest even), as float32."""
    from hip.tensor._core.dtypes import bfloat16_bits_to_float32, float32_to_bfloat16_bits
    a = np.asarray(a, np.float32)
    return bfloat16_bits_to_float32(float32_to_bfloat16_bits(a)).reshape(a.shape)


def host_dtype(name: str) -> np.dtype:
    """The NumPy dtype holding `name`'s values on the host (bfloat16: float32)."""
    return np.dtype(np.float32) if name == "bfloat16" else np.dtype(name)


def ref_dtype(name: str) -> np.dtype:
    """The NumPy dtype references are computed in (the 2-byte floats: float32)."""
    return np.dtype(np.float32) if name in ("float16", "bfloat16") else np.dtype(name)


def values(name: str, shape, rng, low=-3.0, high=3.0, int_low=None, int_high=None, nonzero=False) -> np.ndarray:
    """Random host values representable in dtype `name` (as host_dtype(name))."""
    k = KIND[name]
    if k == "b":
        v = rng.random(shape) < 0.5
        return np.ones(shape, bool) if nonzero else v
    if k in "iu":
        info = np.iinfo(name)
        lo = max(info.min, -20 if int_low is None else int_low)
        hi = min(info.max, 20 if int_high is None else int_high)
        v = rng.integers(lo, hi + 1, size=shape).astype(name)
        if nonzero:
            v[v == 0] = 1
        return v
    if k == "f":
        v = rng.uniform(low, high, size=shape)
        if nonzero:
            v[np.abs(v) < 0.25] = 0.5
        if name == "bfloat16":
            return round_bf16(v)
        return v.astype(name)
    re = rng.uniform(low, high, size=shape)
    im = rng.uniform(low, high, size=shape)
    return (re + 1j * im).astype(name)


def tolerance(name: str, loose: bool = False) -> dict:
    """assert_allclose tolerances for results of dtype `name` (loose: transcendental functions)."""
    return {"float16": dict(rtol=4e-3, atol=4e-3), "bfloat16": dict(rtol=2e-2, atol=2e-2),
            "float32": dict(rtol=2e-5 if loose else 1e-6, atol=1e-6),
            "complex64": dict(rtol=1e-4 if loose else 1e-6, atol=1e-5),
            "float64": dict(rtol=1e-12 if loose else 1e-14, atol=1e-13),
            "complex128": dict(rtol=1e-10 if loose else 1e-14, atol=1e-12)}.get(name, dict(rtol=0, atol=0))


def to_device(host: np.ndarray, name: str) -> ht.ndarray:
    return ht.asarray(host, dtype=name)


def assert_matches(actual, expected, name: str | None = None, loose: bool = False, check_dtype: bool = True):
    """`actual` (hip.tensor) equals NumPy's `expected`: shape, dtype (unless a 2-byte float, whose
    reference is float32) and values within the dtype's tolerance (NaN where NaN)."""
    assert isinstance(actual, ht.ndarray), type(actual)
    got = actual.get()
    name = name or actual.dtype.name
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if check_dtype and name not in ("float16", "bfloat16"):
        assert actual.dtype.name == np.dtype(expected.dtype).name, (actual.dtype.name, expected.dtype)
    if KIND.get(name, "f") in "biu":
        np.testing.assert_array_equal(got, expected)
    else:
        tol = tolerance(name, loose)
        np.testing.assert_allclose(got.astype(np.complex128 if np.iscomplexobj(got) else np.float64),
                                   np.asarray(expected).astype(np.complex128 if np.iscomplexobj(expected)
                                                               else np.float64), equal_nan=True, **tol)


# -- layouts: the same view taken of a host array and of its device copy --------------------------
def layouts(name: str, rng, make=values, **kw):
    """(label, host view, device view) for each layout, with data from `make`."""
    out = []
    for label, base_shape, view in (
            ("contiguous", (5, 7), lambda a: a),
            ("strided", (5, 14), lambda a: a[:, ::2]),
            ("transposed", (7, 5), lambda a: a.T),
            ("negative", (5, 7), lambda a: a[::-1, ::-2]),
            ("3d-sliced", (4, 6, 5), lambda a: a[1:, ::2, 1:4]),
            ("empty", (0, 3), lambda a: a),
            ("0-d", (), lambda a: a)):
        host = make(name, base_shape, rng, **kw)
        dev = to_device(host, name)
        out.append((label, view(host), view(dev)))
    return out
