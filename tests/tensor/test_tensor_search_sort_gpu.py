"""hip.tensor's sorting, searching and set functions against NumPy: sort/argsort (every dtype,
axis, layout, ascending/descending, ties, NaN/-0.0/inf, long rows through the merge passes, the
64-bit position path), argmax/argmin (axes, keepdims, NaN first, ties, the two-pass split, outer
axes), where, nonzero, searchsorted (sides, sorter, NaN), count_nonzero, unique_all/counts/
inverse/values (NaNs distinct, -0.0 == 0.0, first occurrences), isin (NaN in nothing, -0.0 in
[0.0], promotion, scalars, invert); empty and 0-d inputs."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._api import sorting as _sorting

from gpu_tensor import ALL, KIND, host_dtype, to_device

pytestmark = pytest.mark.gpu

REAL = [n for n in ALL if KIND[n] != "c"]
SPECIAL = [np.nan, -0.0, 0.0, np.inf, -np.inf]


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def tied(name: str, shape, rng) -> np.ndarray:
    """Host values of dtype `name` from a small set (many ties), with the extremes of integers
    and NaN, -0.0, +-inf among floats and complex parts."""
    k = KIND[name]
    if k == "b":
        return np.asarray(rng.random(shape) < 0.5)
    if k in "iu":
        lo, hi = (0, 6) if k == "u" else (-3, 3)
        v = np.asarray(rng.integers(lo, hi + 1, size=shape)).astype(name)
        if v.size > 2:
            info = np.iinfo(name)
            v.flat[0], v.flat[-1] = info.max, info.min
        return v
    base = np.asarray(rng.integers(-4, 5, size=shape) / 2)
    if k == "f":
        v = base.astype(host_dtype(name))
        mask = np.asarray(rng.random(shape) < 0.2)
        v[mask] = rng.choice(SPECIAL, size=int(mask.sum()))
        return v
    im = np.asarray(rng.integers(-2, 3, size=shape) / 2)
    re = base.copy()
    re[np.asarray(rng.random(shape) < 0.1)] = np.nan
    im[np.asarray(rng.random(shape) < 0.1)] = np.nan
    return (re + 1j * im).astype(name)


def ref_argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort; descending as array-api-strict: the reverse order, ties in order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    r = np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
    return a.shape[axis] - 1 - r


LAYOUTS = [("contiguous", (6, 9), lambda a: a), ("strided", (6, 18), lambda a: a[:, ::2]),
           ("transposed", (9, 6), lambda a: a.T), ("negative", (6, 9), lambda a: a[::-1, ::-2]),
           ("3d-sliced", (4, 7, 6), lambda a: a[1:, ::2, 1:5]), ("empty", (0, 3), lambda a: a),
           ("1-d", (13,), lambda a: a)]


def layouts(name, rng, make=tied):
    for label, shape, view in LAYOUTS:
        host = make(name, shape, rng)
        yield label, view(host), view(to_device(host, name))


def _equal(got: np.ndarray, want: np.ndarray):
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind in "fc" and want.size:        # the exact values: -0.0 stays -0.0
        np.testing.assert_array_equal(np.signbit(np.real(got)), np.signbit(np.real(want)))


# -- sort / argsort --------------------------------------------------------------------------------------
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", ALL)
def test_sort_argsort_every_dtype_axis_layout(dtype, descending, rng):
    for label, a, x in layouts(dtype, rng):
        for axis in range(-a.ndim, a.ndim):
            want = ref_argsort(a, axis, descending)
            got = ht.argsort(x, axis=axis, descending=descending)
            assert got.dtype == ht.int64 and got.shape == a.shape
            _equal(got.get(), want)
            s = ht.sort(x, axis=axis, descending=descending, stable=True)
            assert s.dtype.name == dtype
            _equal(s.get(), np.take_along_axis(a, want, axis))


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128", "float16", "uint8", "bfloat16"])
@pytest.mark.parametrize("shape,axis", [((2, 50_000), -1), ((40_000,), 0), ((3000, 7), 1), ((7, 3000), 0),
                                        ((5, 4097), 1)])
def test_sort_long_and_many_rows(dtype, shape, axis, rng):
    a = tied(dtype, shape, rng)
    x = to_device(a, dtype)
    for descending in (False, True):
        want = ref_argsort(a, axis, descending)
        _equal(ht.argsort(x, axis=axis, descending=descending).get(), want)
        _equal(ht.sort(x, axis=axis, descending=descending).get(), np.take_along_axis(a, want, axis))


def test_sort_merge_passes_and_64bit_positions(monkeypatch, rng):
    """Small tiles force many merge passes; the int64-position kernels (rows of 2^31 or more
    elements) are forced on small rows."""
    monkeypatch.setattr(_sorting, "MAX_TILE", 16)
    for dtype in ("float64", "int16", "complex64"):
        a = tied(dtype, (3, 1000), rng)
        x = to_device(a, dtype)
        for descending in (False, True):
            _equal(ht.argsort(x, descending=descending).get(), ref_argsort(a, -1, descending))
    monkeypatch.setattr(_sorting, "index_type", lambda n: "long long")
    a = tied("float32", (4, 333), rng)
    x = to_device(a, "float32")
    _equal(ht.argsort(x, axis=1).get(), ref_argsort(a, 1, False))
    _equal(ht.sort(x, axis=0, descending=True).get(), np.take_along_axis(a, ref_argsort(a, 0, True), 0))


def test_sort_order_of_nan_and_signed_zero():
    a = np.array([np.nan, 1.0, -0.0, -np.inf, 0.0, np.nan, np.inf, -1.0], np.float64)
    x = ht.asarray(a)
    np.testing.assert_array_equal(ht.argsort(x).get(), [3, 7, 2, 4, 1, 6, 0, 5])
    np.testing.assert_array_equal(ht.argsort(x, descending=True).get(), [0, 5, 6, 1, 2, 4, 7, 3])
    c = np.array([complex(1, np.nan), complex(np.nan, 0), complex(2, 1), complex(np.nan, np.nan),
                  complex(0, np.nan), complex(2, -1)])
    np.testing.assert_array_equal(ht.argsort(ht.asarray(c)).get(), np.argsort(c, kind="stable"))


def test_sort_refuses_bad_arguments():
    x = ht.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(IndexError):
        ht.sort(x, axis=2)
    with pytest.raises(ValueError):
        ht.argsort(ht.asarray(np.float32(1)))
    with pytest.raises(TypeError):
        ht.sort(x, descending=1)
    with pytest.raises(TypeError):
        ht.sort(np.arange(3))


# -- argmax / argmin --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_argmax_argmin_every_dtype_axis_layout(dtype, rng):
    for label, a, x in layouts(dtype, rng):
        axes = [None] + list(range(-a.ndim, a.ndim))
        for axis in axes:
            for keepdims in (False, True):
                for f, nf in ((ht.argmax, np.argmax), (ht.argmin, np.argmin)):
                    if a.size == 0 and (axis is None or a.shape[axis] == 0):
                        with pytest.raises(ValueError):
                            f(x, axis=axis, keepdims=keepdims)
                        continue
                    got = f(x, axis=axis, keepdims=keepdims)
                    want = nf(a, axis=axis, keepdims=keepdims)
                    assert got.dtype == ht.int64
                    _equal(got.get(), np.asarray(want, np.int64))


def test_argmax_0d_and_long_two_pass(rng):
    assert int(ht.argmax(ht.asarray(np.float32(3)))) == 0
    a = rng.standard_normal(1 << 21).astype(np.float32)
    x = ht.asarray(a)
    assert int(ht.argmax(x)) == int(np.argmax(a)) and int(ht.argmin(x)) == int(np.argmin(a))
    a[123_457] = np.nan
    a[1_500_000] = np.nan
    x = ht.asarray(a)
    assert int(ht.argmax(x)) == 123_457 == int(ht.argmin(x))
    t = rng.integers(0, 3, size=(3, 300_000)).astype(np.int8)          # ties: the first position
    _equal(ht.argmax(ht.asarray(t), axis=1).get(), np.argmax(t, axis=1))
    _equal(ht.argmin(ht.asarray(t), axis=1).get(), np.argmin(t, axis=1))
    o = rng.standard_normal((700, 900))                                 # reduced axis outer
    _equal(ht.argmax(ht.asarray(o), axis=0).get(), np.argmax(o, axis=0))
    _equal(ht.argmin(ht.asarray(o).T, axis=1, keepdims=True).get(), np.argmin(o.T, axis=1, keepdims=True))


def test_argmax_refuses():
    x = ht.asarray(np.zeros((2, 3)))
    with pytest.raises(TypeError):
        ht.argmax(x, axis=(0, 1))
    with pytest.raises(IndexError):
        ht.argmin(x, axis=2)


# -- where -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_where_every_dtype_broadcast(dtype, rng):
    c = rng.random((4, 1, 6)) < 0.5
    a = tied(dtype, (5, 6), rng)
    b = tied(dtype, (4, 5, 1), rng)
    got = ht.where(ht.asarray(c), to_device(a, dtype), to_device(b, dtype)[:, ::-1])
    assert got.dtype.name == dtype and got.shape == (4, 5, 6)
    _equal(got.get(), np.where(c, a, b[:, ::-1]))


@pytest.mark.parametrize("d1,d2", [("int8", "uint8"), ("int32", "float32"), ("float16", "float64"),
                                   ("bool", "int16"), ("float32", "complex64"), ("uint64", "int64"),
                                   ("float16", "bfloat16")])
def test_where_promotes(d1, d2, rng):
    c = rng.random(10) < 0.5
    a, b = tied(d1, (10,), rng), tied(d2, (10,), rng)
    got = ht.where(ht.asarray(c), to_device(a, d1), to_device(b, d2))
    assert got.dtype == ht.result_type(ht.dtype(d1), ht.dtype(d2))
    want = np.where(c, a.astype(np.complex128 if KIND[d2] == "c" else np.float64),
                    b.astype(np.complex128 if KIND[d2] == "c" else np.float64))
    np.testing.assert_allclose(got.get().astype(want.dtype), want, rtol=1e-3, equal_nan=True)


def test_where_scalars_and_non_bool_condition(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = ht.asarray(a)
    got = ht.where(x > 0, x, 0.5)
    assert got.dtype == ht.float32
    _equal(got.get(), np.where(a > 0, a, np.float32(0.5)))
    got = ht.where(ht.asarray(np.array([0, 2, -1, 0])), 1, 0)
    assert got.dtype == ht.int64
    _equal(got.get(), np.array([0, 1, 1, 0]))
    i8 = ht.asarray(np.arange(4, dtype=np.int8))
    assert ht.where(i8 > 1, i8, 7).dtype == ht.int8
    with pytest.raises(OverflowError):
        ht.where(i8 > 1, i8, 1000)
    with pytest.raises(TypeError):
        ht.where(np.array([True]), i8, i8)
    with pytest.raises(TypeError):
        ht.where(i8 > 1, i8, "x")


# -- nonzero ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_nonzero_every_dtype_layout(dtype, rng):
    for label, a, x in layouts(dtype, rng):
        got = ht.nonzero(x)
        want = np.nonzero(a)
        assert len(got) == len(want) == a.ndim
        for g, w in zip(got, want):
            assert g.dtype == ht.int64
            _equal(g.get(), w)
    with pytest.raises(ValueError):
        ht.nonzero(to_device(tied(dtype, (), rng), dtype))


def test_nonzero_large_and_all_zero(rng):
    m = rng.random((1000, 1500)) < 0.3
    got = ht.nonzero(ht.asarray(m))
    for g, w in zip(got, np.nonzero(m)):
        _equal(g.get(), w)
    z = ht.nonzero(ht.zeros((4, 5)))
    assert [g.shape for g in z] == [(0,), (0,)]
    assert ht.nonzero(ht.asarray(np.array([-0.0, np.nan, 0.0])))[0].get().tolist() == [1]


# -- searchsorted ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", ALL)
def test_searchsorted_every_dtype(dtype, side, rng):
    s = np.sort(tied(dtype, (40,), rng), kind="stable")
    v = tied(dtype, (3, 7), rng)
    xs, xv = to_device(s, dtype), to_device(v, dtype)
    got = ht.searchsorted(xs, xv, side=side)
    assert got.dtype == ht.int64 and got.shape == v.shape
    _equal(got.get(), np.searchsorted(s, v, side=side))
    _equal(ht.searchsorted(xs, xv.mT, side=side).get(), np.searchsorted(s, v.T, side=side))
    s2 = np.sort(tied(dtype, (80,), rng), kind="stable")          # a strided x1
    _equal(ht.searchsorted(to_device(s2, dtype)[::2], xv, side=side).get(), np.searchsorted(s2[::2], v, side=side))


def test_searchsorted_sorter_scalars_mixed_types(rng):
    u = np.array([3.0, np.nan, -1.0, 2.0, 2.0, -0.0, 7.0])
    sorter = np.argsort(u, kind="stable")
    v = np.array([np.nan, 2.0, 0.0, -5.0, 100.0])
    for side in ("left", "right"):
        got = ht.searchsorted(ht.asarray(u), ht.asarray(v), side=side, sorter=ht.asarray(sorter))
        _equal(got.get(), np.searchsorted(u, v, side=side, sorter=sorter))
        assert int(ht.searchsorted(ht.asarray(np.sort(u)), 2, side=side)) == np.searchsorted(np.sort(u), 2, side=side)
    i = np.arange(0, 20, 2, dtype=np.int32)
    f = np.array([[3.5, -1.0], [18.0, 40.5]], np.float32)
    _equal(ht.searchsorted(ht.asarray(i), ht.asarray(f)).get(), np.searchsorted(i, f))
    e = ht.searchsorted(ht.asarray(np.zeros(0)), ht.asarray(v))
    _equal(e.get(), np.zeros(5, np.int64))
    with pytest.raises(ValueError):
        ht.searchsorted(ht.asarray(np.zeros((2, 2))), ht.asarray(v))
    with pytest.raises(ValueError):
        ht.searchsorted(ht.asarray(u), ht.asarray(v), side="middle")
    with pytest.raises(ValueError):
        ht.searchsorted(ht.asarray(u), ht.asarray(v), sorter=ht.asarray(sorter[:3]))


# -- count_nonzero -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_count_nonzero(dtype, rng):
    for label, a, x in layouts(dtype, rng):
        for axis in [None] + list(range(a.ndim)) + ([(0, a.ndim - 1)] if a.ndim > 1 else []):
            for keepdims in (False, True):
                got = ht.count_nonzero(x, axis=axis, keepdims=keepdims)
                assert got.dtype == ht.int64
                _equal(got.get(), np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims), np.int64))


# -- set functions ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_unique_every_dtype_layout(dtype, rng):
    h0 = tied(dtype, (), rng)
    cases = list(layouts(dtype, rng)) + [("0-d", h0, to_device(h0, dtype))]
    for label, a, x in cases:
        w = np.unique_all(a)                  # the reference of every variant: NaNs distinct, sorted
        r = ht.unique_all(x)
        _equal(r.values.get(), w.values)
        _equal(r.indices.get(), w.indices.astype(np.int64))
        _equal(r.inverse_indices.get(), w.inverse_indices.astype(np.int64).reshape(a.shape))
        _equal(r.counts.get(), w.counts.astype(np.int64))
        c = ht.unique_counts(x)
        _equal(c.values.get(), w.values)
        _equal(c.counts.get(), w.counts.astype(np.int64))
        i = ht.unique_inverse(x)
        _equal(i.values.get(), w.values)
        _equal(i.inverse_indices.get(), w.inverse_indices.astype(np.int64).reshape(a.shape))
        _equal(ht.unique_values(x).get(), w.values)
        assert r.values.dtype.name == dtype and r.indices.dtype == ht.int64


def test_unique_large_and_special(rng):
    a = rng.integers(0, 1000, size=300_000).astype(np.int32)
    r = ht.unique_all(ht.asarray(a))
    w = np.unique_all(a)
    for g, e in zip(r, w):
        _equal(g.get(), np.asarray(e).astype(g.get().dtype))
    f = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 1.0])
    r = ht.unique_all(ht.asarray(f))
    _equal(r.values.get(), np.array([-0.0, 1.0, np.nan, np.nan]))
    _equal(r.counts.get(), np.array([2, 2, 1, 1]))
    _equal(r.indices.get(), np.array([3, 1, 0, 2]))
    with pytest.raises(TypeError):
        ht.unique_values(np.arange(3))


# -- isin ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_isin_every_dtype_layout(dtype, rng):
    """NumPy's isin: equality after promotion, so NaN is in nothing and -0.0 is in [0.0]."""
    for (label, a, x), (_, b, y) in zip(layouts(dtype, rng), layouts(dtype, rng)):
        for invert in (False, True):
            got = ht.isin(x, y, invert=invert)
            assert got.dtype == ht.bool and got.shape == a.shape, label
            _equal(got.get(), np.isin(a, b, invert=invert))
    b = tied(dtype, (5000,), rng)                          # a long x2: the merge-pass sort
    a = tied(dtype, (7, 11), rng)
    _equal(ht.isin(to_device(a, dtype), to_device(b, dtype)).get(), np.isin(a, b))


def test_isin_promotes_takes_scalars_and_empty_sets(rng):
    a = np.array([[1, -2, 300], [7, 0, -128]], np.int16)
    b = np.array([300, 7, -1], np.int16)
    x = ht.asarray(a)
    _equal(ht.isin(x, ht.asarray(np.array([1, 0, 5], np.int8))).get(), np.isin(a, np.array([1, 0, 5])))
    _equal(ht.isin(ht.asarray(np.array([1, 2, 3], np.uint64)), ht.asarray(np.array([3, -1], np.int64))).get(),
           np.array([False, False, True]))
    _equal(ht.isin(ht.asarray(np.array([0.5, 2.0, np.nan])), ht.asarray(np.array([2, 3], np.int32))).get(),
           np.array([False, True, False]))
    for invert in (False, True):
        _equal(ht.isin(x, 300, invert=invert).get(), np.isin(a, 300, invert=invert))
        _equal(ht.isin(ht.asarray(a.astype(np.uint8)), 300, invert=invert).get(),
               np.full(a.shape, invert))                                     # 300 is no uint8 value
        _equal(ht.isin(ht.asarray(a.astype(np.uint8)), -1, invert=invert).get(), np.full(a.shape, invert))
        r = ht.isin(7, ht.asarray(b), invert=invert)
        assert r.shape == () and bool(r) == (not invert)
        assert bool(ht.isin(70000, ht.asarray(b), invert=invert)) == invert
        assert bool(ht.isin(-1, ht.asarray(b.astype(np.uint8)), invert=invert)) == invert
        _equal(ht.isin(x, ht.asarray(np.zeros(0, np.int16)), invert=invert).get(), np.full(a.shape, invert))
    assert ht.isin(ht.asarray(np.zeros((0, 3))), ht.asarray(np.ones(4))).shape == (0, 3)
    f = np.array([-0.0, 0.0, np.nan, np.inf, 1.0], np.float32)
    _equal(ht.isin(ht.asarray(f), ht.asarray(np.array([0.0, np.nan, np.inf], np.float32))).get(),
           np.array([True, True, False, True, False]))
