"""hip.tensor's element-wise functions against NumPy: every function of the array API (2025.12)
for every dtype it takes, on contiguous, strided, transposed, negative-stride, broadcast, empty
and 0-d arrays; float16/bfloat16 against float32 NumPy with their own tolerance; promotion with
mixed dtypes and Python scalars; in-place operators; bad input."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht

from gpu_tensor import ALL, KIND, assert_matches, host_dtype, layouts, ref_dtype, to_device, values

pytestmark = pytest.mark.gpu


@pytest.fixture
def rng():
    return np.random.default_rng(7)


# name -> (kinds it takes, value range (floats), NumPy's function, loose tolerance)
UNARY = {
    "abs": ("biufc", {}, np.abs, False), "acos": ("biufc", dict(low=-0.9, high=0.9), np.acos, True),
    "acosh": ("biufc", dict(low=1.1, high=5, int_low=1), np.acosh, True),
    "asin": ("biufc", dict(low=-0.9, high=0.9), np.asin, True), "asinh": ("biufc", {}, np.asinh, True),
    "atan": ("biufc", {}, np.atan, True), "atanh": ("biufc", dict(low=-0.9, high=0.9), np.atanh, True),
    "ceil": ("iuf", {}, np.ceil, False), "conj": ("biufc", {}, np.conj, False),
    "cos": ("biufc", {}, np.cos, True), "cosh": ("biufc", {}, np.cosh, True), "exp": ("biufc", {}, np.exp, True),
    "expm1": ("biufc", {}, np.expm1, True), "floor": ("iuf", {}, np.floor, False),
    "imag": ("fc", {}, np.imag, False), "isfinite": ("biufc", {}, np.isfinite, False),
    "isinf": ("biufc", {}, np.isinf, False), "isnan": ("biufc", {}, np.isnan, False),
    "log": ("biufc", dict(low=0.1, high=5, int_low=1), np.log, True),
    "log1p": ("biufc", dict(low=-0.5, high=3, int_low=0), np.log1p, True),
    "log2": ("biufc", dict(low=0.1, high=5, int_low=1), np.log2, True),
    "log10": ("biufc", dict(low=0.1, high=5, int_low=1), np.log10, True),
    "logical_not": ("biufc", {}, np.logical_not, False), "negative": ("iufc", {}, np.negative, False),
    "positive": ("iufc", {}, np.positive, False), "real": ("fc", {}, np.real, False),
    "round": ("iufc", {}, np.round, False), "sign": ("iufc", {}, np.sign, False),
    "signbit": ("iuf", {}, np.signbit, False), "sin": ("biufc", {}, np.sin, True),
    "sinh": ("biufc", {}, np.sinh, True), "square": ("biufc", {}, np.square, False),
    "sqrt": ("biufc", dict(low=0.1, high=5, int_low=0), np.sqrt, True), "tan": ("biufc", dict(low=-1.2, high=1.2), np.tan, True),
    "tanh": ("biufc", {}, np.tanh, True), "trunc": ("iuf", {}, np.trunc, False),
    "bitwise_invert": ("biu", {}, np.bitwise_invert, False),
}

BINARY = {
    "add": ("biufc", {}, np.add, False), "subtract": ("iufc", {}, np.subtract, False),
    "multiply": ("biufc", {}, np.multiply, False), "divide": ("biufc", "divisor", np.divide, False),
    "floor_divide": ("iuf", "divisor", np.floor_divide, False),
    "remainder": ("iuf", "divisor", np.remainder, False),
    "pow": ("iufc", "power", np.pow, True), "atan2": ("iuf", {}, np.atan2, True),
    "hypot": ("iuf", {}, np.hypot, True), "copysign": ("f", {}, np.copysign, False),
    "logaddexp": ("iuf", {}, np.logaddexp, True), "maximum": ("biuf", {}, np.maximum, False),
    "minimum": ("biuf", {}, np.minimum, False), "bitwise_and": ("biu", {}, np.bitwise_and, False),
    "bitwise_or": ("biu", {}, np.bitwise_or, False), "bitwise_xor": ("biu", {}, np.bitwise_xor, False),
    "bitwise_left_shift": ("iu", "shift", np.left_shift, False),
    "bitwise_right_shift": ("iu", "shift", np.right_shift, False),
    "equal": ("biufc", {}, np.equal, False), "not_equal": ("biufc", {}, np.not_equal, False),
    "less": ("biuf", {}, np.less, False), "less_equal": ("biuf", {}, np.less_equal, False),
    "greater": ("biuf", {}, np.greater, False), "greater_equal": ("biuf", {}, np.greater_equal, False),
    "logical_and": ("biufc", {}, np.logical_and, False), "logical_or": ("biufc", {}, np.logical_or, False),
    "logical_xor": ("biufc", {}, np.logical_xor, False),
}


def _cases(table):
    return [(f, d) for f, (kinds, *_rest) in table.items() for d in ALL if KIND[d] in kinds]


def _reference(np_fn, name, *hosts):
    """NumPy's result on the values as the reference dtype (float32 for the 2-byte floats)."""
    with np.errstate(all="ignore"):
        return np_fn(*[h.astype(ref_dtype(name)) if h.dtype.kind != "b" or name != "bool" else h for h in hosts])


def _expected_dtype(np_fn, name, *hosts):
    if name in ("float16", "bfloat16"):
        return None
    with np.errstate(all="ignore"):
        return np_fn(*[h[:0].astype(name) for h in hosts]).dtype


@pytest.mark.parametrize("fname,dtype", _cases(UNARY))
def test_unary_contiguous_every_dtype(fname, dtype, rng):
    kinds, rng_kw, np_fn, loose = UNARY[fname]
    kw = dict(rng_kw)
    if dtype in ("float16", "bfloat16") and fname in ("cosh", "sinh", "exp", "expm1"):
        kw.update(low=-2, high=2)
    host = values(dtype, (257,), rng, **kw)
    got = getattr(ht, fname)(to_device(host, dtype))
    want = _reference(np_fn, dtype, host)
    edt = _expected_dtype(np_fn, dtype, host)
    if edt is not None:
        assert got.dtype.name == edt.name, (got.dtype, edt)
    elif KIND[dtype] == "f" and fname not in ("isfinite", "isinf", "isnan", "signbit", "logical_not"):
        assert got.dtype.name == dtype
    assert_matches(got, want.astype(want.dtype), dtype if got.dtype.name == dtype else got.dtype.name,
                   loose=loose, check_dtype=False)


@pytest.mark.parametrize("fname", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_unary_layouts(fname, dtype, rng):
    kinds, rng_kw, np_fn, loose = UNARY[fname]
    if KIND[dtype] not in kinds:
        pytest.skip(f"{fname} does not take {dtype}")
    for label, h, d in layouts(dtype, rng, **rng_kw):
        got = getattr(ht, fname)(d)
        assert got.shape == h.shape, label
        assert_matches(got, _reference(np_fn, dtype, np.asarray(h)), loose=loose)


def _binary_values(fname, dtype, shape, rng, second=False):
    kinds, special, np_fn, loose = BINARY[fname]
    if special == "divisor" and second:
        return values(dtype, shape, rng, nonzero=True)
    if special == "power":
        if KIND[dtype] in "iu":
            return values(dtype, shape, rng, int_low=0, int_high=5) if second else \
                values(dtype, shape, rng, int_low=-4, int_high=4)
        return values(dtype, shape, rng, low=-2, high=2) if second else values(dtype, shape, rng, low=0.1, high=3)
    if special == "shift" and second:
        return values(dtype, shape, rng, int_low=0, int_high=8 * np.dtype(dtype).itemsize - 1)
    return values(dtype, shape, rng)


@pytest.mark.parametrize("fname,dtype", _cases(BINARY))
def test_binary_contiguous_every_dtype(fname, dtype, rng):
    kinds, special, np_fn, loose = BINARY[fname]
    a = _binary_values(fname, dtype, (301,), rng)
    b = _binary_values(fname, dtype, (301,), rng, second=True)
    if fname in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "maximum", "minimum"):
        b[::3] = a[::3]                                  # ties
    got = getattr(ht, fname)(to_device(a, dtype), to_device(b, dtype))
    want = _reference(np_fn, dtype, a, b)
    edt = _expected_dtype(np_fn, dtype, a, b)
    if edt is not None:
        assert got.dtype.name == edt.name, (got.dtype, edt)
    assert_matches(got, want, dtype if got.dtype.name == dtype else got.dtype.name, loose=loose, check_dtype=False)


@pytest.mark.parametrize("fname", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
def test_binary_layouts_and_broadcast(fname, dtype, rng):
    kinds, special, np_fn, loose = BINARY[fname]
    if KIND[dtype] not in kinds:
        pytest.skip(f"{fname} does not take {dtype}")
    firsts = layouts(dtype, rng, make=lambda n, s, r: _binary_values(fname, n, s, r))
    seconds = layouts(dtype, rng, make=lambda n, s, r: _binary_values(fname, n, s, r, second=True))
    for (label, ha, da), (_, hb, db) in zip(firsts, seconds):
        assert_matches(getattr(ht, fname)(da, db), _reference(np_fn, dtype, np.asarray(ha), np.asarray(hb)),
                       loose=loose)
    # broadcasting: (5, 1) with (1, 7), (7,) against (5, 7), 0-d against (5, 7)
    a = _binary_values(fname, dtype, (5, 1), rng)
    b = _binary_values(fname, dtype, (1, 7), rng, second=True)
    assert_matches(getattr(ht, fname)(to_device(a, dtype), to_device(b, dtype)), _reference(np_fn, dtype, a, b),
                   loose=loose)
    a = _binary_values(fname, dtype, (5, 7), rng)
    b = _binary_values(fname, dtype, (7,), rng, second=True)
    assert_matches(getattr(ht, fname)(to_device(a, dtype), to_device(b, dtype)), _reference(np_fn, dtype, a, b),
                   loose=loose)
    c = _binary_values(fname, dtype, (), rng, second=True)
    assert_matches(getattr(ht, fname)(to_device(a, dtype), to_device(c, dtype)), _reference(np_fn, dtype, a, c),
                   loose=loose)


@pytest.mark.parametrize("fname", ["add", "multiply", "subtract", "divide", "maximum", "less", "pow",
                                   "floor_divide", "remainder", "bitwise_and", "hypot"])
def test_python_scalars_are_weak(fname, rng):
    kinds, special, np_fn, loose = BINARY[fname]
    for dtype, scalar in (("float32", 1.5), ("int16", 3), ("uint8", 2), ("float16", 2.0), ("complex64", 2 + 1j),
                          ("int8", True)):
        if KIND[dtype] not in kinds or (isinstance(scalar, complex) and "c" not in kinds) \
                or (isinstance(scalar, float) and KIND[dtype] in "iu" and fname.startswith("bitwise")):
            continue
        a = _binary_values(fname, dtype, (11,), rng) if special != "divisor" else values(dtype, (11,), rng)
        x = to_device(a, dtype)
        with np.errstate(all="ignore"):
            ref_l = np_fn(a.astype(ref_dtype(dtype)), scalar)
            ref_r = np_fn(scalar, a.astype(ref_dtype(dtype))) if special not in ("divisor", "power") else None
            dt_l = np_fn(a.astype(dtype)[:0], scalar).dtype
        got = getattr(ht, fname)(x, scalar)
        if dtype not in ("float16", "bfloat16"):
            assert got.dtype.name == dt_l.name, (fname, dtype, scalar, got.dtype, dt_l)
        else:
            assert got.dtype.name in (dtype, "bool"), got.dtype
        assert_matches(got, ref_l, got.dtype.name, loose=True, check_dtype=False)
        if ref_r is not None:
            assert_matches(getattr(ht, fname)(scalar, x), ref_r, got.dtype.name, loose=True, check_dtype=False)


def test_mixed_dtypes_promote_as_numpy(rng):
    pairs = [("int8", "uint8"), ("int16", "float32"), ("uint64", "int64"), ("int32", "float16"),
             ("float32", "complex128"), ("bool", "int8"), ("uint32", "int8"), ("float16", "complex64"),
             ("int64", "float32"), ("uint16", "float16")]
    for a_name, b_name in pairs:
        a = values(a_name, (9,), rng)
        b = values(b_name, (9,), rng)
        got = ht.add(to_device(a, a_name), to_device(b, b_name))
        want = np.add(a, b)
        assert got.dtype.name == want.dtype.name, (a_name, b_name, got.dtype, want.dtype)
        assert_matches(got, want, loose=True)
        got = ht.less(to_device(a, a_name), to_device(b, b_name))
        np.testing.assert_array_equal(got.get(), np.less(a, b))


@pytest.mark.parametrize("narrow,wide,step", [("float32", "float64", 2), ("int32", "float64", 2),
                                                ("int16", "int32", 2), ("float16", "float64", 4),
                                                ("uint8", "int32", 4), ("float32", "complex128", 4)])
def test_mixed_dtypes_with_a_view_strided_like_the_wider_dtype(narrow, wide, step, rng):
    """x[:, ::step] of the narrow dtype has the byte strides of a C-contiguous array of the wide
    one: the contiguous fast path read it as contiguous (eager `t - x` in tests/oracles/fusion_chains.py's
    cast chain), in each operand order."""
    a = values(narrow, (5, 7 * step), rng)
    b = values(wide, (5, 7), rng)
    hx, x = a[:, ::step], to_device(a, narrow)[:, ::step]
    y = to_device(b, wide)
    for got, want in ((ht.subtract(y, x), np.subtract(b, hx)), (ht.subtract(x, y), np.subtract(hx, b)),
                      (ht.add(x, y), np.add(hx, b)), (ht.multiply(y, x), np.multiply(b, hx))):
        assert got.dtype.name == want.dtype.name, (got.dtype, want.dtype)
        assert_matches(got, want, loose=True)
    np.testing.assert_array_equal(ht.less(y, x).get(), np.less(b, hx))


def test_bfloat16_mixes_like_float16(rng):
    a = values("bfloat16", (33,), rng)
    x = to_device(a, "bfloat16")
    assert (x + to_device(values("int8", (33,), rng), "int8")).dtype == ht.bfloat16
    assert (x + to_device(values("float16", (33,), rng), "float16")).dtype == ht.float32
    assert (x + to_device(values("int16", (33,), rng), "int16")).dtype == ht.float32
    assert (x * 2.5).dtype == ht.bfloat16
    y = (x * 2.5 + 1).get()
    np.testing.assert_allclose(y, a * 2.5 + 1, rtol=2e-2)


def test_operators_and_reflected(rng):
    a = values("float32", (4, 5), rng)
    b = values("float32", (4, 5), rng, nonzero=True)
    x, y = to_device(a, "float32"), to_device(b, "float32")
    for got, want in ((x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (x // y, a // b),
                      (x % y, a % b), (abs(x) ** 0.5, np.abs(a) ** 0.5), (-x, -a), (+x, +a), (2 - x, 2 - a),
                      (2 / y, 2 / b), (3 * x, 3 * a), (1 + x, 1 + a), (2 ** y, 2 ** b), (7 // y, 7 // b),
                      (7 % y, 7 % b)):
        assert_matches(got, want.astype(np.float32), loose=True)
    for got, want in ((x < y, a < b), (x <= y, a <= b), (x > y, a > b), (x >= y, a >= b), (x == y, a == b),
                      (x != y, a != b), (x > 0.5, a > 0.5), (0.5 < x, 0.5 < a)):
        np.testing.assert_array_equal(got.get(), want)
    i = values("int32", (4, 5), rng)
    j = values("int32", (4, 5), rng, int_low=0, int_high=5)
    u, v = to_device(i, "int32"), to_device(j, "int32")
    for got, want in ((u & v, i & j), (u | v, i | j), (u ^ v, i ^ j), (~u, ~i), (u << v, i << j), (u >> v, i >> j),
                      (3 & u, 3 & i), (1 << v, 1 << j)):
        np.testing.assert_array_equal(got.get(), want)
    # NumPy arrays on the left defer to hip.tensor's reflected operators, which refuse host data
    with pytest.raises(TypeError):
        a + x


def test_inplace_operators(rng):
    a = values("float32", (6, 3), rng)
    x = to_device(a, "float32")
    view = x[::2]
    view += 1
    a[::2] += 1
    x *= 2
    a *= 2
    x -= to_device(np.ones(3, np.float32), "float32")
    a -= 1
    np.testing.assert_allclose(x.get(), a, rtol=1e-6)
    i = to_device(np.arange(6, dtype=np.int32), "int32")
    i += 3
    i //= 2
    i <<= 1
    np.testing.assert_array_equal(i.get(), ((np.arange(6) + 3) // 2) << 1)
    with pytest.raises(TypeError):
        i += 1.5                               # float64 result into int32: NumPy's same_kind refuses
    with pytest.raises(ValueError):
        x += to_device(np.ones((2, 6, 3), np.float32), "float32")   # would change x's shape
    # overlapping in-place: x[1:] += x[:-1] reads the old values (an input copy)
    b = np.arange(8, dtype=np.float64)
    y = to_device(b, "float64")
    y[1:] += y[:-1]
    b[1:] += b[:-1].copy()
    np.testing.assert_array_equal(y.get(), b)


def test_division_by_zero_and_special_values():
    i = ht.asarray(np.array([7, -7, 7, -7, 0], np.int32))
    z = ht.asarray(np.array([0, 0, -2, 2, 0], np.int32))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal((i // z).get(), np.array([7, -7, 7, -7, 0], np.int32) // np.array([0, 0, -2, 2, 0], np.int32))
        np.testing.assert_array_equal((i % z).get(), np.array([7, -7, 7, -7, 0], np.int32) % np.array([0, 0, -2, 2, 0], np.int32))
    f = np.array([1.0, -1.0, 0.0, np.inf, np.nan, -0.0, 5.5, -5.5])
    g = np.array([0.0, 0.0, 0.0, 2.0, 1.0, 3.0, -2.0, 2.0])
    x, y = ht.asarray(f), ht.asarray(g)
    with np.errstate(all="ignore"):
        for fn in ("divide", "floor_divide", "remainder", "maximum", "minimum", "copysign", "logaddexp"):
            np.testing.assert_array_equal(getattr(ht, fn)(x, y).get(), getattr(np, fn)(f, g), err_msg=fn)
        for fn in ("isnan", "isinf", "isfinite", "signbit", "sign", "abs", "floor", "ceil", "trunc", "round"):
            np.testing.assert_array_equal(getattr(ht, fn)(x).get(), getattr(np, fn)(f), err_msg=fn)
    m = np.iinfo(np.int8).min
    s = ht.asarray(np.array([m, -1, 5], np.int8))
    np.testing.assert_array_equal(ht.abs(s).get(), np.abs(np.array([m, -1, 5], np.int8)))
    np.testing.assert_array_equal((s // ht.asarray(np.array([-1, -1, -1], np.int8))).get(),
                                  np.array([m, 1, -5], np.int8))


def test_integer_pow_and_shifts_edge_cases():
    b = ht.asarray(np.array([2, -2, 3, 1, -1, 0], np.int64))
    e = ht.asarray(np.array([62, 3, 0, 7, 5, 0], np.int64))
    np.testing.assert_array_equal((b ** e).get(), np.array([2, -2, 3, 1, -1, 0], np.int64) ** np.array([62, 3, 0, 7, 5, 0]))
    x = ht.asarray(np.array([1, -8, 255, -1], np.int16))
    c = ht.asarray(np.array([15, 2, 16, 40], np.int16))
    np.testing.assert_array_equal((x << c).get(), np.left_shift(np.array([1, -8, 255, -1], np.int16), np.array([15, 2, 16, 40], np.int16)))
    np.testing.assert_array_equal((x >> c).get(), np.right_shift(np.array([1, -8, 255, -1], np.int16), np.array([15, 2, 16, 40], np.int16)))


def test_clip(rng):
    for dtype in ("float32", "int16", "uint8", "float16", "float64"):
        a = values(dtype, (5, 6), rng)
        x = to_device(a, dtype)
        lo = values(dtype, (6,), rng, low=-2, high=0, int_low=0, int_high=5)
        assert_matches(ht.clip(x, min=1, max=2), np.clip(a.astype(ref_dtype(dtype)), 1, 2).astype(ref_dtype(dtype)),
                       dtype, check_dtype=False)
        assert ht.clip(x, min=1, max=2).dtype.name == dtype
        assert_matches(ht.clip(x, max=0), np.minimum(a, 0).astype(ref_dtype(dtype)), dtype, check_dtype=False)
        assert_matches(ht.clip(x, min=to_device(lo, dtype)), np.maximum(a, lo).astype(ref_dtype(dtype)), dtype,
                       check_dtype=False)
    f = ht.asarray(np.array([np.nan, 1.0, 5.0]))
    np.testing.assert_array_equal(ht.clip(f, 0.0, 2.0).get(), np.array([np.nan, 1.0, 2.0]))


def test_clip_result_has_the_broadcast_shape(rng):
    """min and max broadcast with x, as NumPy's clip (the array API suite's zero-size cases too)."""
    a = values("float32", (5, 1), rng)
    lo, hi = values("float32", (6,), rng, low=-2, high=-1), values("float32", (4, 1, 1), rng, low=1, high=2)
    got = ht.clip(to_device(a, "float32"), to_device(lo, "float32"), to_device(hi, "float32"))
    assert_matches(got, np.clip(a, lo, hi))
    assert ht.clip(ht.asarray(np.float32(1)), min=ht.asarray(np.zeros(0, np.float32))).shape == (0,)
    assert ht.clip(ht.asarray(np.zeros(3, np.int8)), max=ht.asarray(np.zeros((0, 3), np.int8))).shape == (0, 3)


# -- 2025.12: reciprocal, nextafter ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_reciprocal_is_one_over_x(dtype, rng):
    """1.0 / x: divide's types (integers and bool give float64) and special cases."""
    a = values(dtype, (257,), rng, nonzero=True)
    got = ht.reciprocal(to_device(a, dtype))
    if KIND[dtype] in "fc":
        assert got.dtype.name == dtype
        with np.errstate(all="ignore"):
            want = (np.ones((), ref_dtype(dtype)) / a.astype(ref_dtype(dtype))).astype(ref_dtype(dtype))
        assert_matches(got, want, dtype, check_dtype=False)
    else:
        assert_matches(got, 1.0 / a.astype(np.float64))
    for label, h, d in layouts(dtype, rng, nonzero=True):
        with np.errstate(all="ignore"):
            want = (np.ones((), ref_dtype(dtype) if KIND[dtype] in "fc" else np.float64) /
                    np.asarray(h).astype(ref_dtype(dtype) if KIND[dtype] in "fc" else np.float64))
        assert_matches(ht.reciprocal(d), want.astype(want.dtype), dtype if KIND[dtype] in "fc" else None,
                       check_dtype=False)


def test_reciprocal_special_cases_are_divides():
    z = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0, -0.5, 5e-324, 1e308])
    with np.errstate(all="ignore"):
        for d in (np.float32, np.float64):
            got, want = ht.reciprocal(ht.asarray(z.astype(d))).get(), 1 / z.astype(d)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        c = np.array([0j, 1 + 1j, complex(np.inf, 0), complex(0, np.nan), 3 - 4j], np.complex128)
        np.testing.assert_allclose(ht.reciprocal(ht.asarray(c)).get(), 1 / c, rtol=1e-15, equal_nan=True)


def _nextafter_reference(a, b, name):
    """np.nextafter in `name`, but y where x == y (the array API's: -0 toward +0 is +0; NumPy's
    float16 loop gives x). bfloat16 (as float32 values): one step of its own 16 bits."""
    from hip.tensor._core.dtypes import bfloat16_bits_to_float32, float32_to_bfloat16_bits
    if name != "bfloat16":
        with np.errstate(all="ignore"):
            return np.where(a == b, b, np.nextafter(a, b))
    bits = float32_to_bfloat16_bits(a).astype(np.int64)
    step = np.where((a < b) == (a > 0), 1, -1)
    moved = np.where(a == 0, np.where(np.signbit(b), 0x8001, 0x0001), bits + step)
    out = bfloat16_bits_to_float32(moved.astype(np.uint16)).reshape(a.shape)
    out = np.where(a == b, b, out)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), out)


def test_float32_to_bfloat16_rounds_as_the_host(rng):
    """The device's float32 -> bfloat16 (the hardware's cvt.rn.bf16.f32 on NVIDIA sm_80 and later,
    integer rounding elsewhere) gives the host's bits: ties to even, overflow to inf, subnormals,
    and a NaN's sign and payload kept (quiet bit set)."""
    from hip.tensor._core.dtypes import float32_to_bfloat16_bits
    edge = np.array([0x3F808000, 0x3F818000, 0x3F808001, 0x7F7F7FFF, 0x7F7F8000, 0xFF7F8000, 0x00008000,
                     0x00018000, 0x80007FFF, 0x00000001, 0x7F800000, 0xFF800000, 0x7F800001, 0xFF812345,
                     0x7FC00000, 0xFFFFFFFF, 0x00000000, 0x80000000], np.uint32).view(np.float32)
    a = np.concatenate([edge, rng.standard_normal(4096).astype(np.float32) * 1e3,
                        rng.integers(0, 2 ** 32, 4096, dtype=np.uint64).astype(np.uint32).view(np.float32)])
    got = ht.asarray(a).astype(ht.bfloat16).get()        # float32 holding the bfloat16 values exactly
    np.testing.assert_array_equal(got.view(np.uint32) >> 16, float32_to_bfloat16_bits(a).astype(np.uint32))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nextafter_steps_one_ulp_of_its_own_type(dtype, rng):
    hd = host_dtype(dtype)
    a = values(dtype, (400,), rng)
    b = values(dtype, (400,), rng)
    b[::5] = a[::5]                                                            # ties
    if dtype == "bfloat16":                     # its smallest subnormal and largest finite value (bits 1, 0x7f7f)
        tiny, big = np.array([0x00010000, 0x7F7F0000], np.uint32).view(np.float32)
    else:
        tiny, big = np.finfo(dtype).smallest_subnormal, np.finfo(dtype).max
    special = np.array([0.0, -0.0, 0.0, -0.0, tiny, -tiny, tiny, big, -big, np.inf, -np.inf, np.nan, 1.0, 1.0])
    toward = np.array([-0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 1.0, np.inf, -np.inf, 0.0, 0.0, 1.0, np.nan, 1.0])
    a = np.concatenate([a, special.astype(hd)])
    b = np.concatenate([b, toward.astype(hd)])
    got = ht.nextafter(to_device(a, dtype), to_device(b, dtype))
    assert got.dtype.name == dtype
    want = _nextafter_reference(a, b, dtype)
    g = got.get()
    np.testing.assert_array_equal(g, want)
    np.testing.assert_array_equal(np.signbit(g), np.signbit(want))              # signed zeros
    for label, h, d in layouts(dtype, rng):                                     # toward +1 from each value
        r = ht.nextafter(d, 1.0)
        np.testing.assert_array_equal(r.get(), _nextafter_reference(np.asarray(h), np.ones_like(h), dtype))


def test_nextafter_types_and_scalars(rng):
    a = values("float32", (50,), rng)
    x = to_device(a, "float32")
    np.testing.assert_array_equal(ht.nextafter(x, 2.0).get(), np.nextafter(a, np.float32(2)))      # weak scalar
    np.testing.assert_array_equal(ht.nextafter(-1.0, x).get(), np.nextafter(np.float32(-1), a))
    for d in ("int8", "int16", "int32", "uint8", "bool"):
        i = values(d, (20,), rng)
        want = np.nextafter(i, i + 1 if d != "bool" else ~i)
        got = ht.nextafter(to_device(i, d), to_device(i + 1 if d != "bool" else ~i, d))
        assert got.dtype.name == want.dtype.name, d                              # NumPy's: int8 -> float16
        np.testing.assert_array_equal(got.get(), want)
    with pytest.raises(TypeError):
        ht.nextafter(ht.asarray(np.ones(2, np.complex64)), 1.0)


def test_bad_input_raises_before_any_launch():
    x = ht.asarray(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        ht.add(x, ht.asarray(np.ones((3, 5), np.float32)))
    with pytest.raises(TypeError):
        ht.bitwise_and(x, x)                      # floats have no bitwise and
    with pytest.raises(TypeError):
        ht.negative(ht.asarray(np.array([True])))
    with pytest.raises(TypeError):
        ht.add(x, np.ones((3, 4)))                # host data must be moved explicitly
    with pytest.raises(TypeError):
        ht.sin([1.0, 2.0])
    with pytest.raises(TypeError):
        ht.add(1, 2)                              # no array at all
    with pytest.raises(OverflowError):
        ht.add(ht.asarray(np.ones(3, np.uint8)), 300)   # NumPy 2: the Python int does not fit uint8
    with pytest.raises(TypeError):
        ht.floor(ht.asarray(np.ones(2, np.complex64)))
    with pytest.raises(TypeError):
        x + "a"


def test_unary_on_dtype_pairs_of_real_imag_conj(rng):
    a = values("complex128", (3, 4), rng)
    x = to_device(a, "complex128")
    assert_matches(ht.real(x), a.real)
    assert_matches(ht.imag(x), a.imag)
    assert_matches(ht.conj(x), a.conj())
    assert_matches(x.real, a.real)
    assert ht.real(x).dtype == ht.float64
    assert ht.abs(to_device(values("complex64", (3,), rng), "complex64")).dtype == ht.float32


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8", "float32", "float64", "complex64", "complex128",
                                   "bool", "uint16"])
def test_large_contiguous_arrays_take_wide_loads(dtype, rng):
    """Past 2**14 elements contiguous kernels move several elements per load; a view starting one
    element in (misaligned) narrows the width, a length not divisible by it leaves a tail."""
    n = (1 << 16) + 3
    a = values(dtype, (n,), rng)
    b = values(dtype, (n,), rng)
    x, y = to_device(a, dtype), to_device(b, dtype)
    op, np_op = (ht.logical_xor, np.logical_xor) if dtype == "bool" else (ht.add, np.add)
    assert_matches(op(x, y), _reference(np_op, dtype, a, b), dtype, check_dtype=False)
    assert_matches(op(x[1:], y[:-1]), _reference(np_op, dtype, a[1:], b[:-1]), dtype, check_dtype=False)
    assert_matches(op(x[3:], y[3:]), _reference(np_op, dtype, a[3:], b[3:]), dtype, check_dtype=False)
    if dtype != "bool":
        c = x.astype(ht.float32)
        np.testing.assert_allclose(c.get(), (a.real if a.dtype.kind == "c" else a).astype(np.float32))


# -- the layouts a call takes (hip/tensor/_kernels/elementwise_source.py) -------------------------------------------
LAYOUT_DTYPES = ["float32", "float16", "bfloat16", "int8", "uint16", "int32", "float64", "complex64", "complex128",
                 "bool"]


def _add(dtype, *hosts):
    return _reference(np.add, dtype, *[np.asarray(h) for h in hosts])


@pytest.mark.parametrize("dtype", LAYOUT_DTYPES)
def test_transposed_operands_through_shared_memory_tiles(dtype, rng):
    """x.T + y reads x.T through a shared-memory tile: sizes with partial tiles, the tiled operand
    first or second, both transposed, negative strides, a transposed output (in place: the index
    space is transposed), the copy and casting copy of a transposed array."""
    for shape in ((67, 45), (32, 32), (33, 95), (300, 129)):
        a, b = values(dtype, shape, rng), values(dtype, shape[::-1], rng)
        x, y = to_device(a, dtype), to_device(b, dtype)
        for label, got, want in (("x.T + y", ht.add(x.T, y), _add(dtype, a.T, b)),
                                 ("y + x.T", ht.add(y, x.T), _add(dtype, b, a.T)),
                                 ("x.T + x.T", ht.add(x.T, x.T), _add(dtype, a.T, a.T)),
                                 ("x.T[::-1] + y", ht.add(x.T[::-1], y), _add(dtype, a.T[::-1], b)),
                                 ("x[::-1].T + y[:, ::-1]", ht.add(x[::-1].T, y[:, ::-1]), _add(dtype, a[::-1].T, b[:, ::-1])),
                                 ("copy", x.T.copy(), a.T)):
            assert got.shape == want.shape, (label, shape)
            assert_matches(got, want, dtype, check_dtype=False)
        wide = "complex128" if KIND[dtype] == "c" else "float64"
        assert_matches(x.T.astype(wide), a.T.astype(wide), wide)
        v = x.T
        v += y                          # out = x.T: walked in x's order, y tiled
        assert_matches(x, _add(dtype, a, b.T), dtype, check_dtype=False)


@pytest.mark.parametrize("dtype", LAYOUT_DTYPES)
def test_broadcast_rows_and_columns(dtype, rng):
    """x + row and x + column past 2**14 elements take wide loads along the rows (the column's
    element repeated); an odd row length, a misaligned start and negative strides narrow them or
    take the strided loop; 3-d with a column, a 0-d operand against a large array."""
    for shape in ((130, 256), (65, 512), (129, 257)):
        a = values(dtype, shape, rng)
        r, c = values(dtype, (shape[1],), rng), values(dtype, (shape[0], 1), rng)
        x, dr, dc = to_device(a, dtype), to_device(r, dtype), to_device(c, dtype)
        for label, got, want in (("x + row", ht.add(x, dr), _add(dtype, a, r)),
                                 ("row + x", ht.add(dr, x), _add(dtype, r, a)),
                                 ("x + column", ht.add(x, dc), _add(dtype, a, c)),
                                 ("column + row", ht.add(dc, dr), _add(dtype, c, r)),
                                 ("x[::-1] + row", ht.add(x[::-1], dr), _add(dtype, a[::-1], r)),
                                 ("x[:, ::-1] + column", ht.add(x[:, ::-1], dc), _add(dtype, a[:, ::-1], c)),
                                 ("x[:, 1:] + row[1:]", ht.add(x[:, 1:], dr[1:]), _add(dtype, a[:, 1:], r[1:]))):
            assert got.shape == want.shape, (label, shape)
            assert_matches(got, want, dtype, check_dtype=False)
    a, c = values(dtype, (4, 33, 256), rng), values(dtype, (33, 1), rng)
    assert_matches(ht.add(to_device(a, dtype), to_device(c, dtype)), _add(dtype, a, c), dtype, check_dtype=False)
    a, s = values(dtype, (40000,), rng), values(dtype, (), rng)
    assert_matches(ht.add(to_device(s, dtype), to_device(a, dtype)), _add(dtype, s, a), dtype, check_dtype=False)
    e, r = to_device(values(dtype, (0, 300), rng), dtype), to_device(values(dtype, (300,), rng), dtype)
    assert ht.add(e, r).shape == ht.add(e, e).shape == (0, 300)


def test_flat_index_in_every_layout(rng):
    """`i` is the C-order index of the broadcast shape in the flat, strided, wide-row and tiled
    layouts, the transposed index space included (an output passed transposed)."""
    k = ht.ElementwiseKernel("T x", "T y", "y = x + (T)i * 1000", "plus_index", vectorize=True)
    a = values("float64", (130, 256), rng)
    x = to_device(a, "float64")
    for label, view, host in (("flat", x, a), ("strided", x[:, ::-1], a[:, ::-1]), ("rows", x[::-1], a[::-1]),
                              ("tile", x.T, a.T), ("small strided", x[:7, ::3], a[:7, ::3])):
        want = host + np.arange(host.size, dtype=np.float64).reshape(host.shape) * 1000
        np.testing.assert_array_equal(k(view).get(), want, err_msg=label)
    z = ht.empty((256, 130), dtype=ht.float64)
    k(x, z.T)                           # the output walked along its own rows
    np.testing.assert_array_equal(z.get().T, a + np.arange(a.size, dtype=np.float64).reshape(a.shape) * 1000)


@pytest.mark.parametrize("dtype", ["float32", "float16", "complex64"])
def test_fused_chain_on_transposed_and_broadcast_operands_equals_eager(dtype, rng):
    """ht.fuse's kernel takes the same layouts (tile, wide rows) and stays eager's bit for bit."""
    f = ht.fuse(lambda x, y: (x * y + x) * y - x)
    a, b = values(dtype, (67, 300), rng), values(dtype, (300, 67), rng)
    x, y = to_device(a, dtype), to_device(b, dtype)
    r = to_device(values(dtype, (300,), rng), dtype)
    for u, v in ((x.T, y), (y, x.T), (x, r), (to_device(values(dtype, (1 << 15,), rng), dtype), x[0, 0])):
        eager = (u * v + u) * v - u
        np.testing.assert_array_equal(f(u, v).get(), eager.get())


# -- the per-op path in C (_api/_kernels._elementwise, _core._memory, _core._array) ------------------
def test_small_ops_in_a_loop_take_the_fast_path_exactly():
    """x + y and x * k on 1024 float32 in a loop: one launch per op, each result's block is the
    previous one's (a cache hit, no hipMalloc), values right; the same statistics with the
    allocator's C fast path off; a scalar changed between calls is converted anew."""
    from hip.tensor._core import _memory, launch
    x = ht.asarray(np.arange(1024, dtype=np.float32))
    y = ht.asarray(np.full(1024, 2, dtype=np.float32))
    deltas = []
    for on in (True, False):
        prev = _memory.set_fast_path(on)
        try:
            z = x + y                                   # compiled and warm
            ht.synchronize()
            s0, n0 = ht.memory_stats(), launch.launches()
            for _ in range(50):
                z = x + y
            s1 = ht.memory_stats()
            deltas.append((launch.launches() - n0, s1["cache_hits"] - s0["cache_hits"],
                           s1["num_device_alloc"] - s0["num_device_alloc"],
                           s1["allocation.all.current"] - s0["allocation.all.current"]))
            np.testing.assert_array_equal(z.get(), np.arange(1024, dtype=np.float32) + 2)
        finally:
            _memory.set_fast_path(prev)
        del z
    assert deltas[0] == deltas[1] == (50, 50, 0, 0)
    for k in (3.0, 3.0, 4.5, 7, 7, -1):                 # the one-scalar conversion kept per value object
        np.testing.assert_array_equal((x * k).get(), np.arange(1024, dtype=np.float32) * np.float32(k))


def test_small_ops_use_the_threads_current_stream():
    """The C path's current stream is the thread's (`with stream:`), in this and another thread."""
    import threading
    x = ht.ones(1024, dtype=ht.float32)
    s = ht.Stream()
    with s:
        z = x + x
    assert z.data.stream is s and (x + x).data.stream is not s
    seen = []

    def work():
        t = ht.Stream()
        with t:
            seen.append((x + x).data.stream is t)
        seen.append((x + x).data.stream is not t)
    th = threading.Thread(target=work)
    th.start()
    th.join()
    s.synchronize()
    assert seen == [True, True] and (z.get() == 2).all()
