"""hip.tensor's dtypes and its one promotion table, without a device: every pair of dtypes the
array API defines (and NumPy's mixed-kind pairs) against NumPy's result_type, Python scalars as
weak, can_cast, finfo/iinfo, the bfloat16 rules and its host rounding (nearest, ties to even)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import dtypes as dt

NUMPY_TYPES = [d for d in dt.ALL if d is not dt.bfloat16]


def test_dtype_attributes():
    assert ht.float32.name == "float32" and ht.float32.itemsize == 4 and ht.float32.kind == "f"
    assert ht.bfloat16.numpy == np.dtype(np.uint16) and ht.bfloat16.itemsize == 2 and ht.bfloat16.kind == "f"
    assert ht.complex64.ctype == "ht_complex64" and ht.int64.ctype == "long long" and ht.bool.kind == "b"
    assert [d.kind for d in (ht.int8, ht.uint8, ht.float16, ht.complex128)] == ["i", "u", "f", "c"]
    for d in NUMPY_TYPES:
        assert d.numpy.itemsize == d.itemsize and d.numpy.name == d.name


def test_dtype_normalizes_spellings():
    assert ht.dtype("float32") is ht.float32
    assert ht.dtype(np.float64) is ht.float64
    assert ht.dtype(np.dtype("int16")) is ht.int16
    assert ht.dtype(float) is ht.float64 and ht.dtype(int) is ht.int64 and ht.dtype(bool) is ht.bool
    assert ht.dtype(complex) is ht.complex128
    assert ht.dtype(np.zeros(2, np.uint32)) is ht.uint32
    assert ht.dtype("bfloat16") is ht.bfloat16
    assert ht.float32 == "float32" and ht.float32 == np.float32 and ht.float32 != ht.float64
    for bad in ("float128", "U5", object, np.dtype("M8[s]"), "nonsense"):
        with pytest.raises(TypeError):
            ht.dtype(bad)


@pytest.mark.parametrize("a,b", list(itertools.product(NUMPY_TYPES, NUMPY_TYPES)))
def test_promotion_matches_numpy(a, b):
    """Every pair: the array API's table where it defines one, NumPy's rules elsewhere."""
    assert ht.result_type(a, b).numpy == np.result_type(a.numpy, b.numpy)


@pytest.mark.parametrize("a", NUMPY_TYPES)
@pytest.mark.parametrize("scalar", [True, 3, -2, 2.5, 1 + 2j])
def test_python_scalars_are_weak_as_numpy2(a, scalar):
    if a.kind == "u" and isinstance(scalar, int) and scalar < 0:
        with pytest.raises(OverflowError):     # as NumPy 2's operators (its result_type does not look)
            ht.result_type(a, scalar)
        with pytest.raises(OverflowError):
            np.zeros(1, a.numpy) + scalar
        return
    assert ht.result_type(a, scalar).numpy == np.result_type(a.numpy, scalar)


def test_result_type_of_several_and_scalars_only():
    # several dtypes promote pairwise, left to right: (int8, uint8) -> int16, then with float16
    assert ht.result_type(ht.int8, ht.uint8, ht.float16) is ht.float32
    assert ht.result_type(ht.float16, ht.int8, ht.uint8) is ht.float16
    assert ht.result_type(ht.int8, ht.float16, 1j) is ht.complex64
    assert ht.result_type(1, 2.0) is ht.float64
    assert ht.result_type(True) is ht.bool
    with pytest.raises(ValueError):
        ht.result_type()
    with pytest.raises(OverflowError):
        ht.result_type(ht.uint8, 256)            # NumPy 2: a Python int out of the array's range
    with pytest.raises(OverflowError):
        ht.result_type(ht.int8, -129)


def test_bfloat16_promotion():
    assert ht.result_type(ht.bfloat16, ht.bfloat16) is ht.bfloat16
    assert ht.result_type(ht.bfloat16, ht.float16) is ht.float32
    assert ht.result_type(ht.bfloat16, ht.float32) is ht.float32
    assert ht.result_type(ht.bfloat16, ht.float64) is ht.float64
    assert ht.result_type(ht.bfloat16, ht.int8) is ht.bfloat16
    assert ht.result_type(ht.bfloat16, ht.uint8) is ht.bfloat16
    assert ht.result_type(ht.bfloat16, ht.int16) is ht.float32
    assert ht.result_type(ht.bfloat16, ht.int32) is ht.float64
    assert ht.result_type(ht.bfloat16, ht.complex64) is ht.complex64
    assert ht.result_type(ht.bfloat16, ht.bool) is ht.bfloat16
    assert ht.result_type(ht.bfloat16, 1.5) is ht.bfloat16
    assert ht.result_type(ht.bfloat16, 1j) is ht.complex64


def test_can_cast_follows_the_table():
    for a, b in itertools.product(NUMPY_TYPES, NUMPY_TYPES):
        assert ht.can_cast(a, b) == (np.result_type(a.numpy, b.numpy) == b.numpy), (a, b)
    assert ht.can_cast(ht.bfloat16, ht.float32) and not ht.can_cast(ht.float32, ht.bfloat16)
    assert not ht.can_cast(ht.float16, ht.bfloat16) and not ht.can_cast(ht.bfloat16, ht.float16)


def test_isdtype():
    assert ht.isdtype(ht.int8, "signed integer") and not ht.isdtype(ht.uint8, "signed integer")
    assert ht.isdtype(ht.bfloat16, "real floating") and ht.isdtype(ht.complex64, "numeric")
    assert ht.isdtype(ht.bool, ("bool", "integral")) and not ht.isdtype(ht.bool, "numeric")
    with pytest.raises(ValueError):
        ht.isdtype(ht.int8, "integer-ish")


def test_finfo_iinfo():
    for d in (ht.float16, ht.float32, ht.float64):
        f, n = ht.finfo(d), np.finfo(d.numpy)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (n.bits, n.eps, n.max, n.min, n.smallest_normal)
    assert ht.finfo(ht.complex64).dtype is ht.float32
    b = ht.finfo(ht.bfloat16)
    assert b.bits == 16 and b.eps == 2.0 ** -7 and b.max == 3.3895313892515355e38 and b.smallest_normal == 2.0 ** -126
    for d in (ht.int8, ht.uint64, ht.int64):
        i, n = ht.iinfo(d), np.iinfo(d.numpy)
        assert (i.min, i.max, i.bits) == (n.min, n.max, n.bits)
    with pytest.raises(ValueError):
        ht.finfo(ht.int32)
    with pytest.raises(ValueError):
        ht.iinfo(ht.float32)


def _bf16_reference(x: np.ndarray) -> np.ndarray:
    """Round float32 to the nearest bfloat16 by exact arithmetic (float64), ties to even."""
    out = []
    for v in x.astype(np.float32):
        if np.isnan(v):
            out.append(np.nan)
            continue
        bits = int(np.array(v, np.float32).view(np.uint32))
        lo = bits & 0xFFFF0000
        hi = lo + 0x10000
        vlo = float(np.array(lo, np.uint32).view(np.float32))
        vhi = float(np.array(hi & 0xFFFFFFFF, np.uint32).view(np.float32))
        # past the largest finite value the next step is 2**128, which rounds to infinity
        step_hi = 2.0 ** 128 * np.sign(vlo) if np.isinf(vhi) else vhi
        d_lo, d_hi = abs(float(v) - vlo), abs(step_hi - float(v))
        if (bits & 0xFFFF) == 0:
            out.append(vlo)
        elif d_lo < d_hi or (d_lo == d_hi and ((lo >> 16) & 1) == 0):
            out.append(vlo)
        else:
            out.append(vhi)
    return np.array(out, np.float32)


def test_bfloat16_host_rounding_is_nearest_even():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.standard_normal(2000).astype(np.float32) * 1e3,
                        np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 3.3895313892515355e38,
                                  3.4e38, 1e-40, -0.0, np.inf, -np.inf, np.nan], np.float32)])
    got = dt.bfloat16_bits_to_float32(dt.float32_to_bfloat16_bits(x))
    np.testing.assert_array_equal(got, _bf16_reference(x))
    assert got[-10] == 1.0 and got[-9] == 1 + 2 ** -6            # ties go to the even neighbour
    assert np.isnan(got[-1]) and np.signbit(got[-4])
