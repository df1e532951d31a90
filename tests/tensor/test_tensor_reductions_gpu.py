"""hip.tensor's statistical functions and ReductionKernel against NumPy: every function and dtype,
over inner, outer, middle, several and all axes, keepdims, non-contiguous and broadcast inputs,
empty and 0-d arrays, large extents (split over blocks, the last block reducing the partials in the
same launch), tails of every length, wide and scalar loads (aligned and misaligned views give the
same bits: the plan alone fixes the summation order), dtype= per the standard; cumulative_sum and
cumulative_prod short and long (chunked); diff (n, axis, prepend/append); a user ReductionKernel
with and without identity; bad input."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht

from gpu_tensor import ALL, KIND, assert_matches, ref_dtype, round_bf16, to_device, values

pytestmark = pytest.mark.gpu


@pytest.fixture
def rng():
    return np.random.default_rng(5)


AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), ()]


def _sum_dtype(name):
    k = KIND[name]
    return {"b": np.int64, "i": np.int64, "u": np.uint64}.get(k, np.dtype(name) if name != "bfloat16" else None)


def _tol(name, n=1):
    if name == "bfloat16":
        return dict(rtol=3e-2, atol=3e-2 * max(1, n ** 0.5))
    if name == "float16":
        return dict(rtol=5e-3, atol=5e-3 * max(1, n ** 0.5))
    if name in ("float32", "complex64"):
        return dict(rtol=2e-5, atol=1e-5 * max(1, n ** 0.5))
    return dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ALL)
def test_sum_prod_every_dtype_and_axis(dtype, rng):
    a = values(dtype, (4, 5, 6), rng, low=-1, high=1, int_low=-3, int_high=3)
    x = to_device(a, dtype)
    r = a.astype(ref_dtype(dtype))
    for axis in AXES:
        got = ht.sum(x, axis=axis)
        want = np.sum(r, axis=axis, dtype=_sum_dtype(dtype) if dtype not in ("float16", "bfloat16") else np.float32)
        if dtype not in ("float16", "bfloat16"):
            assert got.dtype.name == np.dtype(want.dtype).name, (axis, got.dtype, want.dtype)
        else:
            assert got.dtype.name == dtype
        np.testing.assert_allclose(got.get().astype(np.complex128), np.asarray(want).astype(np.complex128),
                                   **_tol(dtype, 120), err_msg=f"sum axis={axis}")
        got = ht.prod(x[:, :3], axis=axis, keepdims=True)
        want = np.prod(r[:, :3], axis=axis, keepdims=True,
                       dtype=_sum_dtype(dtype) if dtype not in ("float16", "bfloat16") else np.float32)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.get().astype(np.complex128), want.astype(np.complex128),
                                   **_tol(dtype, 1), err_msg=f"prod axis={axis}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int32",
                                   "uint8", "bool"])
def test_mean_var_std(dtype, rng):
    a = values(dtype, (6, 7, 8), rng)
    x = to_device(a, dtype)
    r = a.astype(ref_dtype(dtype)) if KIND[dtype] in "fc" else a.astype(np.float64)
    for axis in AXES[:-1]:
        for fn in ("mean", "var", "std"):
            kw = {} if fn == "mean" else {"correction": 1}
            got = getattr(ht, fn)(x, axis=axis, **kw)
            want = getattr(np, fn)(r, axis=axis, **({} if fn == "mean" else {"ddof": 1}))
            if dtype not in ("float16", "bfloat16"):
                assert got.dtype.name == np.dtype(want.dtype).name, (fn, axis, got.dtype, want.dtype)
            np.testing.assert_allclose(got.get().astype(np.complex128), np.asarray(want).astype(np.complex128),
                                       **_tol(dtype if KIND[dtype] in "fc" else "float64", 10), err_msg=f"{fn} {axis}")
    np.testing.assert_allclose(ht.var(x, correction=0.5).get(), np.var(r, ddof=0.5), **_tol(dtype if KIND[dtype] in "fc" else "float64", 10))
    assert ht.mean(x, axis=1, keepdims=True).shape == (6, 1, 8)


@pytest.mark.parametrize("dtype", [d for d in ALL if KIND[d] != "c"])
def test_max_min_any_all(dtype, rng):
    a = values(dtype, (5, 6, 7), rng)
    x = to_device(a, dtype)
    for axis in AXES[:-1]:
        for fn in ("max", "min"):
            got = getattr(ht, fn)(x, axis=axis)
            assert got.dtype.name == dtype
            np.testing.assert_array_equal(got.get(), getattr(np, fn)(a, axis=axis), err_msg=f"{fn} {axis}")
        np.testing.assert_array_equal(ht.any(x, axis=axis).get(), np.any(a, axis=axis))
        np.testing.assert_array_equal(ht.all(x, axis=axis, keepdims=True).get(), np.all(a, axis=axis, keepdims=True))
    if KIND[dtype] == "f":
        a = a.copy()
        a[2, 3, 4] = np.nan
        x = to_device(a, dtype)
        np.testing.assert_array_equal(ht.max(x, axis=2).get(), np.max(a, axis=2))
        np.testing.assert_array_equal(ht.min(x).get(), np.min(a))


def test_reductions_of_views_and_broadcasts(rng):
    a = values("float64", (8, 9, 10), rng)
    x = to_device(a, "float64")
    for view in (lambda t: t[::2, ::-1], lambda t: t.mT, lambda t: t[:, 3], lambda t: t[1:, :, ::3]):
        for axis in (None, 0, -1, (0, 1)):
            np.testing.assert_allclose(ht.sum(view(x), axis=axis).get(), np.sum(view(a), axis=axis), rtol=1e-12)
            np.testing.assert_allclose(ht.max(view(x), axis=axis).get(), np.max(view(a), axis=axis))
    b = ht.broadcast_to(x[:, :1], (8, 9, 10))
    np.testing.assert_allclose(ht.sum(b, axis=(0, 2)).get(), np.sum(np.broadcast_to(a[:, :1], (8, 9, 10)), axis=(0, 2)))


def test_empty_and_zero_d(rng):
    e = ht.zeros((0, 4))
    assert_matches(ht.sum(e, axis=0), np.zeros(4))
    assert_matches(ht.sum(e), np.asarray(0.0))
    assert_matches(ht.prod(e, axis=0), np.ones(4))
    assert ht.sum(e, axis=1).shape == (0,)
    assert np.isnan(float(ht.mean(e)))
    assert_matches(ht.any(e, axis=0), np.zeros(4, bool))
    assert_matches(ht.all(e), np.asarray(True))
    with pytest.raises(ValueError):
        ht.max(e, axis=0)
    assert ht.max(e, axis=1).shape == (0,)
    s = ht.asarray(np.float32(2.5))
    assert_matches(ht.sum(s), np.asarray(np.float32(2.5)))
    assert_matches(ht.max(s), np.asarray(np.float32(2.5)))
    assert_matches(ht.sum(s, axis=()), np.asarray(np.float32(2.5)))


@pytest.mark.parametrize("shape,axis", [((1 << 22,), None), ((3, 1 << 20), 1), ((1 << 20, 3), 0),
                                        ((64, 70000), None), ((2, 300000, 2), 1)])
def test_large_reductions_split_over_blocks(shape, axis, rng):
    a = rng.integers(-50, 50, size=shape).astype(np.int64)
    x = ht.asarray(a)
    np.testing.assert_array_equal(ht.sum(x, axis=axis).get(), np.sum(a, axis=axis))
    np.testing.assert_array_equal(ht.max(x, axis=axis).get(), np.max(a, axis=axis))
    f = a.astype(np.float32)
    np.testing.assert_allclose(ht.mean(ht.asarray(f), axis=axis).get(), np.mean(f.astype(np.float64), axis=axis),
                               rtol=1e-5, atol=1e-4)


# -- the reduction plans: inner rows with wide loads, outer columns, split over blocks ---------------------------
SPLIT_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128"]


def _sum_ref(a, name, axis=None):
    want = np.sum(a.astype(ref_dtype(name)), axis=axis,
                  dtype=_sum_dtype(name) if name not in ("float16", "bfloat16") else np.float32)
    return np.asarray(want)


def _check_sum(x, a, name, axis=None):
    got = ht.sum(x, axis=axis).get()
    want = _sum_ref(a, name, axis)
    n = a.size // max(1, want.size)
    if KIND[name] in "biu":
        np.testing.assert_array_equal(got, want, err_msg=f"{name} sum axis={axis} shape={a.shape}")
    else:
        np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128), **_tol(name, n),
                                   err_msg=f"{name} sum axis={axis} shape={a.shape}")


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 255, 1023, 1025, 4099, (1 << 16) + 1, (1 << 20) + 3, (1 << 22) + 6])
def test_full_sum_every_tail_length(n, rng):
    a = rng.integers(-100, 100, size=n).astype(np.float32)        # integral: every order gives the exact sum
    x = ht.asarray(a)
    assert float(ht.sum(x)) == float(a.astype(np.float64).sum())
    i = rng.integers(-1000, 1000, size=n).astype(np.int32)
    assert int(ht.sum(ht.asarray(i))) == int(i.astype(np.int64).sum())
    assert int(ht.max(ht.asarray(i))) == int(i.max()) and int(ht.min(ht.asarray(i))) == int(i.min())


@pytest.mark.parametrize("dtype", SPLIT_DTYPES)
@pytest.mark.parametrize("shape,axis", [(((1 << 20) + 3,), None), ((4, 1 << 18), 1), ((5, 100003), 1), ((100003, 5), 0),
                                        ((3, 4099, 7), 1), ((2, 70001, 3), (0, 1)), ((300, 257), 1),
                                        ((257, 300), 0)])
def test_split_and_row_reductions_every_dtype(dtype, shape, axis, rng):
    a = values(dtype, shape, rng, low=-1, high=1, int_low=-3, int_high=3)
    x = to_device(a, dtype)
    _check_sum(x, a, dtype, axis)
    if KIND[dtype] != "c":
        for fn in ("max", "min"):
            np.testing.assert_array_equal(getattr(ht, fn)(x, axis=axis).get(), getattr(np, fn)(a, axis=axis))
    np.testing.assert_array_equal(ht.any(x, axis=axis).get(), np.any(a, axis=axis))
    np.testing.assert_array_equal(ht.all(x, axis=axis).get(), np.all(a, axis=axis))
    if KIND[dtype] in "fc":
        r = a.astype(ref_dtype(dtype))
        np.testing.assert_allclose(ht.mean(x, axis=axis).get().astype(np.complex128),
                                   np.asarray(np.mean(r, axis=axis)).astype(np.complex128), **_tol(dtype, 1))
        np.testing.assert_allclose(ht.var(x, axis=axis).get(), np.var(r.astype(np.complex128), axis=axis),
                                   rtol=_tol(dtype)["rtol"] * 10, atol=_tol(dtype)["rtol"] * 10)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "complex64", "int8"])
def test_misaligned_views_give_the_bits_of_aligned_copies(dtype, rng):
    """x[1:] is read with scalar loads, its copy with wide loads: same plan, same summation order."""
    a = values(dtype, (1 << 21) + 9, rng)
    x = to_device(a, dtype)
    for v in (x[1:], x[3:-2], x[2:]):
        got, want = ht.sum(v).get(), ht.sum(v.copy()).get()
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)
    m = to_device(values(dtype, (64, 4099), rng), dtype)
    for v, axis in ((m[:, 1:], 1), (m[:, 1:4097], 1), (m[1:, :], 0), (m[:, 2:], None)):
        got, want = ht.sum(v, axis=axis).get(), ht.sum(v.copy(), axis=axis).get()
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (axis, got, want)


def test_fused_split_reduction_equals_eager_bit_for_bit(rng):
    a = rng.standard_normal((1 << 22) + 5).astype(np.float32)
    x = ht.asarray(a)
    f = ht.fuse(lambda x: (x * 2 + 1).sum())
    for v in (x, x[1:]):
        got, want = f(v).get(), ht.sum(v * 2 + 1).get()
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    m = ht.asarray(rng.standard_normal((9, 300001)).astype(np.float32))
    g = ht.fuse(lambda x: (x * x).sum(axis=1))
    assert g(m).get().tobytes() == ht.sum(m * m, axis=1).get().tobytes()


def test_split_reductions_on_several_streams_reuse_their_counters(rng):
    """The last-block counters are per stream and left zero by every launch: repeated and interleaved
    reductions of different shapes stay right."""
    a = rng.integers(-9, 10, size=(1 << 21) + 1).astype(np.int64)
    b = rng.integers(-9, 10, size=(6, 200001)).astype(np.int32)
    x, y = ht.asarray(a), ht.asarray(b)
    s = ht.Stream(non_blocking=True)
    for _ in range(3):
        assert int(ht.sum(x)) == int(a.sum())
        np.testing.assert_array_equal(ht.sum(y, axis=1).get(), b.sum(axis=1, dtype=np.int64))
        ht.synchronize()
        with s:
            r1, r2 = ht.sum(x), ht.max(y, axis=1)
            r3 = ht.sum(x[5:])
        s.synchronize()
        assert int(r1) == int(a.sum()) and int(r3) == int(a[5:].sum())
        np.testing.assert_array_equal(r2.get(), b.max(axis=1))


def test_one_element_and_empty_reductions(rng):
    for dtype in ("float32", "int64", "bool", "complex64", "bfloat16"):
        a = values(dtype, (1,), rng)
        x = to_device(a, dtype)
        _check_sum(x, a, dtype)
        np.testing.assert_array_equal(ht.any(x).get(), np.any(a))
        e = to_device(values(dtype, (0,), rng), dtype)
        assert ht.sum(e).get() == 0 and bool(ht.all(e)) and not bool(ht.any(e))
        e2 = to_device(values(dtype, (3, 0), rng), dtype)
        np.testing.assert_array_equal(ht.sum(e2, axis=1).get().astype(np.complex128), np.zeros(3))
        assert ht.sum(e2, axis=0).shape == (0,)
    with pytest.raises(ValueError):
        ht.max(ht.zeros((0,)))


def test_nan_and_inf_survive_the_split_paths():
    a = np.ones((1 << 21) + 3, np.float32)
    a[123457] = np.nan
    assert np.isnan(float(ht.sum(ht.asarray(a)))) and np.isnan(float(ht.max(ht.asarray(a))))
    a[123457] = np.inf
    assert float(ht.sum(ht.asarray(a))) == np.inf and float(ht.max(ht.asarray(a))) == np.inf
    m = np.zeros((4, 300001), np.float64)
    m[2, 299999] = -np.inf
    np.testing.assert_array_equal(ht.min(ht.asarray(m), axis=1).get(), m.min(axis=1))
    np.testing.assert_array_equal(ht.sum(ht.asarray(m.T.copy()), axis=0).get(), m.sum(axis=1))


def test_no_identity_kernel_over_the_split_paths(rng):
    mx = ht.ReductionKernel("T x", "T y", "x", "a > b ? a : b", "y = a", None, "mymax_split")
    for shape, axis in ((((1 << 21) + 5,), None), ((3, 300007), 1), ((300007, 3), 0), ((129, 4097), 1)):
        i = rng.integers(-10 ** 9, 10 ** 9, size=shape)
        np.testing.assert_array_equal(mx(ht.asarray(i), axis=axis).get(), i.max(axis=axis))


def test_sum_dtype_argument():
    a = np.arange(10, dtype=np.int8)
    x = ht.asarray(a)
    assert ht.sum(x).dtype is ht.int64 and ht.sum(x.astype(ht.uint16)).dtype is ht.uint64
    assert ht.sum(x, dtype=ht.int8).dtype is ht.int8
    assert ht.sum(x, dtype=ht.float32).dtype is ht.float32 and float(ht.sum(x, dtype=ht.float32)) == 45.0
    assert ht.sum(ht.asarray(a > 4)).dtype is ht.int64 and int(ht.sum(ht.asarray(a > 4))) == 5
    big = ht.full((300,), 100, dtype=ht.int8)
    assert int(ht.sum(big, dtype=ht.int8)) == np.sum(np.full(300, 100, np.int8), dtype=np.int8)   # wraps as NumPy


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "float16", "complex64"])
def test_cumulative_sum(dtype, rng):
    a = values(dtype, (5, 37), rng)
    x = to_device(a, dtype)
    r = a.astype(ref_dtype(dtype))
    for axis in (0, 1, -1):
        got = ht.cumulative_sum(x, axis=axis)
        want = np.cumulative_sum(r, axis=axis, dtype=_sum_dtype(dtype) if dtype not in ("float16",) else np.float32)
        if dtype != "float16":
            assert got.dtype.name == np.dtype(want.dtype).name
        np.testing.assert_allclose(got.get().astype(np.complex128), want.astype(np.complex128), **_tol(dtype, 37))
        got = ht.cumulative_sum(x[:, ::-2], axis=axis, include_initial=True)
        want = np.cumulative_sum(r[:, ::-2], axis=axis, include_initial=True,
                                 dtype=_sum_dtype(dtype) if dtype != "float16" else np.float32)
        np.testing.assert_allclose(got.get().astype(np.complex128), want.astype(np.complex128), **_tol(dtype, 37))
    assert ht.cumulative_sum(ht.zeros((0,)), include_initial=True).shape == (1,)


def test_long_cumulative_sum_is_chunked(rng):
    a = rng.integers(-5, 6, size=(1 << 21) + 17).astype(np.int32)
    got = ht.cumulative_sum(ht.asarray(a))
    np.testing.assert_array_equal(got.get(), np.cumulative_sum(a, dtype=np.int64))
    b = rng.integers(0, 3, size=(3, 100003)).astype(np.int64)
    np.testing.assert_array_equal(ht.cumulative_sum(ht.asarray(b), axis=1, include_initial=True).get(),
                                  np.cumulative_sum(b, axis=1, include_initial=True))
    np.testing.assert_array_equal(ht.cumulative_sum(ht.asarray(b.T.copy()), axis=0).get(),
                                  np.cumulative_sum(b.T, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "int8", "bool", "float16", "bfloat16",
                                   "complex64", "complex128"])
def test_cumulative_prod(dtype, rng):
    a = values(dtype, (5, 37), rng, low=0.6, high=1.4, int_low=-2, int_high=2)
    x = to_device(a, dtype)
    r = a.astype(ref_dtype(dtype))
    acc = _sum_dtype(dtype) if dtype not in ("float16", "bfloat16") else np.float32
    for axis in (0, 1, -1):
        got = ht.cumulative_prod(x, axis=axis)
        want = np.cumulative_prod(r, axis=axis, dtype=acc)
        assert got.dtype.name == (dtype if dtype in ("float16", "bfloat16") else np.dtype(want.dtype).name)
        np.testing.assert_allclose(got.get().astype(np.complex128), want.astype(np.complex128), **_tol(dtype, 37))
        got = ht.cumulative_prod(x[:, ::-2], axis=axis, include_initial=True)
        want = np.cumulative_prod(r[:, ::-2], axis=axis, include_initial=True, dtype=acc)
        np.testing.assert_allclose(got.get().astype(np.complex128), want.astype(np.complex128), **_tol(dtype, 37))
    assert ht.cumulative_prod(ht.zeros((0,)), include_initial=True).get().tolist() == [1.0]
    assert ht.cumulative_prod(ht.zeros((3, 0)), axis=0).shape == (3, 0)


def test_cumulative_prod_wraps_and_dtype_as_numpy(rng):
    a = rng.choice(np.array([-3, -2, -1, 1, 2, 3], np.int8), size=(4, 60))
    x = ht.asarray(a)
    np.testing.assert_array_equal(ht.cumulative_prod(x, axis=1).get(), np.cumulative_prod(a, axis=1, dtype=np.int64))
    np.testing.assert_array_equal(ht.cumulative_prod(x, axis=1, dtype=ht.int8).get(),
                                  np.cumulative_prod(a, axis=1, dtype=np.int8))               # wraps in int8
    u = a.astype(np.uint32)
    got = ht.cumulative_prod(ht.asarray(u), axis=0)
    assert got.dtype == ht.uint64
    np.testing.assert_array_equal(got.get(), np.cumulative_prod(u, axis=0, dtype=np.uint64))
    f = ht.cumulative_prod(ht.asarray(a), axis=1, dtype=ht.float64)
    np.testing.assert_allclose(f.get(), np.cumulative_prod(a.astype(np.float64), axis=1), rtol=1e-13)
    z = np.array([1.0, np.inf, 0.0, -2.0, np.nan, 3.0])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ht.cumulative_prod(ht.asarray(z)).get(), np.cumulative_prod(z))


def test_long_cumulative_prod_is_chunked(rng):
    # integer products wrap modulo 2^64 whatever the grouping: the chunked scan gives NumPy's bits
    a = rng.choice(np.array([-3, -2, -1, 1, 2, 3], np.int64), size=(1 << 20) + 17)
    np.testing.assert_array_equal(ht.cumulative_prod(ht.asarray(a)).get(), np.cumulative_prod(a))
    b = rng.choice(np.array([-1.0, 1.0], np.float64), size=(3, 100003))
    np.testing.assert_array_equal(ht.cumulative_prod(ht.asarray(b), axis=1, include_initial=True).get(),
                                  np.cumulative_prod(b, axis=1, include_initial=True))
    np.testing.assert_array_equal(ht.cumulative_prod(ht.asarray(b.T.copy()), axis=0).get(),
                                  np.cumulative_prod(b.T, axis=0))


def test_long_scans_with_a_narrow_dtype(rng):
    """The chunked scan's per-chunk offsets are in the accumulator type (dtype=int8, bool)."""
    a = rng.integers(-100, 100, size=(1 << 16) + 3).astype(np.int8)
    np.testing.assert_array_equal(ht.cumulative_sum(ht.asarray(a), dtype=ht.int8).get(),
                                  np.cumulative_sum(a, dtype=np.int8))                       # wraps in int8
    m = np.ones(70001, bool)
    m[50000] = False
    np.testing.assert_array_equal(ht.cumulative_prod(ht.asarray(m), dtype=ht.bool).get(),
                                  np.cumulative_prod(m, dtype=bool))
    np.testing.assert_array_equal(ht.cumulative_sum(ht.asarray(m), dtype=ht.bool).get(),
                                  np.cumulative_sum(m, dtype=bool))


@pytest.mark.parametrize("dtype", ALL)
def test_diff(dtype, rng):
    a = values(dtype, (6, 9), rng)
    x = to_device(a, dtype)
    for axis in (0, 1, -1, -2):
        for n in (1, 2, 3):
            got = ht.diff(x, axis=axis, n=n)
            want = a
            for _ in range(n):          # each difference rounded to the dtype (bfloat16: by hand)
                want = np.diff(want, axis=axis)
                want = round_bf16(want) if dtype == "bfloat16" else want
            assert got.dtype.name == dtype and got.shape == want.shape
            assert_matches(got, want.astype(ref_dtype(dtype)) if KIND[dtype] == "f" else want, dtype,
                           check_dtype=False)
    got = ht.diff(x[::-1, ::2], axis=1)                                         # a strided view
    assert_matches(got, np.diff(a[::-1, ::2], axis=1).astype(ref_dtype(dtype)), dtype, check_dtype=False)
    assert ht.diff(x, n=12).shape == np.diff(a, n=12).shape == (6, 0)          # n past the length: empty


def test_diff_prepend_append(rng):
    a = values("float64", (4, 5), rng)
    x = ht.asarray(a)
    p, q = values("float64", (4, 2), rng), values("float64", (1, 5), rng)
    np.testing.assert_allclose(ht.diff(x, prepend=ht.asarray(p), append=ht.asarray(p[:, :1])).get(),
                               np.diff(a, prepend=p, append=p[:, :1]), rtol=1e-15)
    np.testing.assert_allclose(ht.diff(x, axis=0, n=2, prepend=ht.asarray(q)).get(),
                               np.diff(a, axis=0, n=2, prepend=q), rtol=1e-15)
    np.testing.assert_allclose(ht.diff(x, prepend=0.5, append=-1.0).get(), np.diff(a, prepend=0.5, append=-1.0),
                               rtol=1e-15)                                      # a scalar: one step along axis
    i = np.array([1, 5, 2], np.int8)
    got = ht.diff(ht.asarray(i), prepend=3)                                     # a weak scalar: int8 stays int8
    assert got.dtype == ht.int8
    np.testing.assert_array_equal(got.get(), np.diff(i, prepend=np.int8(3)))
    m = ht.diff(ht.asarray(i.astype(np.uint8)), append=ht.asarray(np.array([0], np.uint16)))
    assert m.dtype == ht.uint16                                                 # prepend/append promote
    np.testing.assert_array_equal(m.get(), np.diff(i.astype(np.uint8), append=np.array([0], np.uint16)))


def test_reduction_kernel_user_defined(rng):
    l2 = ht.ReductionKernel("T x", "T y", "x * x", "a + b", "y = ht_sqrt(a)", "0", "l2norm")
    a = values("float32", (7, 300), rng)
    np.testing.assert_allclose(l2(ht.asarray(a), axis=1).get(), np.linalg.norm(a, axis=1), rtol=1e-5)
    np.testing.assert_allclose(l2(ht.asarray(a), axis=0, keepdims=True).get(),
                               np.linalg.norm(a, axis=0, keepdims=True), rtol=1e-5)
    # two inputs, broadcast; a scalar input; reduce_type apart from the output type
    dot = ht.ReductionKernel("T x, T y, float64 w", "float32 z", "(double)x * (double)y * w", "a + b", "z = a",
                             "0", "wdot", reduce_type="float64")
    b = values("float32", (300,), rng)
    np.testing.assert_allclose(dot(ht.asarray(a), ht.asarray(b), 0.5, axis=1).get(),
                               0.5 * (a.astype(np.float64) @ b.astype(np.float64)), rtol=1e-5)
    # no identity: starts from the first element; an empty reduction raises
    mx = ht.ReductionKernel("T x", "T y", "x", "a > b ? a : b", "y = a", None, "mymax")
    i = values("int64", (9, 40), rng)
    np.testing.assert_array_equal(mx(ht.asarray(i), axis=1).get(), i.max(axis=1))
    np.testing.assert_array_equal(mx(ht.asarray(i)).get(), i.max())
    big = rng.integers(-10 ** 9, 10 ** 9, size=1 << 20)
    np.testing.assert_array_equal(mx(ht.asarray(big)).get(), big.max())
    with pytest.raises(ValueError):
        mx(ht.zeros((0,), dtype=ht.int64))
    cnt = ht.ReductionKernel("T x", "int64 n", "x > 0 ? 1 : 0", "a + b", "n = a", "0", "count_pos")
    np.testing.assert_array_equal(cnt(ht.asarray(i), axis=0).get(), (i > 0).sum(axis=0))


def test_reduction_bad_input():
    x = ht.zeros((3, 4))
    with pytest.raises(IndexError):
        ht.sum(x, axis=2)
    with pytest.raises(TypeError):
        ht.sum([1, 2])
    with pytest.raises(TypeError):
        ht.max(ht.zeros((2,), dtype=ht.complex64))
    with pytest.raises(TypeError):
        ht.var(x, correction="1")
    k = ht.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "s")
    with pytest.raises(TypeError):
        k(x, x)
    with pytest.raises(ValueError):
        ht.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "bad name")
