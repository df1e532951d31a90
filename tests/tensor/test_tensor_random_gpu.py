"""hip.tensor.random on a GPU: each distribution's statistics (mean, variance, within-one-sigma mass,
a Kolmogorov-Smirnov distance, histograms) with fixed seeds and bounds of about 6 standard errors
(stable, yet far tighter than a wrong distribution, parameter or dtype would pass), ranges and
dtypes, [0, 1) exactly, integers over every integer dtype and full 64-bit ranges, permutations and
in-place shuffles (contiguous and strided), reproducibility (same seed, same numbers; another seed,
others), streams, empty and 0-d sizes, bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor import random as R

from gpu_util import require_library

pytestmark = pytest.mark.gpu

N = 1_000_000
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    from hip import hiprand
    require_library(hiprand)


def host(x: ht.ndarray) -> np.ndarray:
    return x.get().astype(np.float64)


def normal_cdf(z):
    return 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))


def ks_distance(sample: np.ndarray, cdf) -> float:
    """sup |F_n - F| over the sample's points."""
    s = np.sort(sample)
    f = cdf(s)
    n = s.size
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(0, n) / n)))


KS_BOUND = 2.0 / math.sqrt(N)       # P(D > 1.95 / sqrt(n)) ~ 0.001 for the right distribution


# -- uniform ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_random_is_uniform_on_0_1(name):
    g = ht.random.default_rng(1234)
    x = g.random(N, dtype=name)
    assert x.dtype.name == name and x.shape == (N,)
    v = host(x)
    assert v.min() >= 0.0 and v.max() < 1.0                      # [0, 1): 1.0 never comes
    bits = R._UNIT_BITS[name]
    grid = v * 2.0 ** bits                                       # values on the 2^-p grid, exact
    np.testing.assert_array_equal(grid, np.floor(grid))
    h = 2.0 ** -bits                                              # the grid's step: mean (1 - h) / 2
    assert abs(v.mean() - (1 - h) / 2) < 6 * math.sqrt(1 / 12 / N)
    assert abs(v.var() - (1 - h * h) / 12) < 6 * math.sqrt((1 / 80 - 1 / 144) / N)
    hist = np.histogram(v, bins=8, range=(0, 1))[0]             # 8 bins: exact on bfloat16's grid too
    assert np.all(np.abs(hist - N / 8) < 6 * math.sqrt(N / 8 * 7 / 8)), hist
    if name == "float64":
        assert len(np.unique(v)) > 0.9999 * N                    # 53 random bits, not 32
        assert ks_distance(v, lambda t: t) < KS_BOUND


def test_uniform_low_high():
    g = ht.random.default_rng(5)
    v = host(g.uniform(-2.0, 3.0, (1000, 1000)))
    assert v.shape == (1000, 1000)
    assert v.min() >= -2.0 and v.max() < 3.0
    assert abs(v.mean() - 0.5) < 6 * 5 * math.sqrt(1 / 12 / N)
    assert abs(v.var() - 25 / 12) < 6 * 25 * math.sqrt((1 / 80 - 1 / 144) / N)
    assert ks_distance(v.ravel(), lambda t: (t + 2.0) / 5.0) < KS_BOUND
    f = g.uniform(10, 11, 1000, dtype=ht.float32)
    assert f.dtype == ht.float32 and 10 <= host(f).min() and host(f).max() <= 11


# -- normal and lognormal --------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_standard_normal(name):
    x = ht.random.default_rng(7).standard_normal(N, dtype=name)
    assert x.dtype.name == name
    v = host(x)
    assert abs(v.mean()) < 6 / math.sqrt(N)
    assert abs(v.std() - 1) < 6 / math.sqrt(2 * N) + (0.01 if name == "bfloat16" else 0.0)
    inside = np.mean(np.abs(v) < 1)
    tol = 6 * math.sqrt(0.2166 / N) + {"float16": 1e-3, "bfloat16": 8e-3}.get(name, 0)   # rounding moves points across +-1
    assert abs(inside - 0.682689) < tol
    if name in ("float32", "float64"):
        assert ks_distance(v, normal_cdf) < KS_BOUND


@pytest.mark.parametrize("n", [1, 3, 999_999])
def test_normal_odd_sizes(n):
    """cuRAND generates normals in pairs: odd counts are made one longer and cut."""
    x = ht.random.default_rng(3).normal(2.0, 3.0, n, dtype=ht.float32)
    assert x.shape == (n,)
    v = host(x)
    assert np.all(np.isfinite(v))
    if n > 1000:
        assert abs(v.mean() - 2.0) < 6 * 3 / math.sqrt(n)
        assert abs(v.std() - 3.0) < 6 * 3 / math.sqrt(2 * n)


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_normal_loc_scale(name):
    v = host(ht.random.default_rng(11).normal(-4.0, 0.5, (500, 2000), dtype=name))
    assert abs(v.mean() + 4.0) < 6 * 0.5 / math.sqrt(N)
    assert abs(v.std() - 0.5) < 6 * 0.5 / math.sqrt(2 * N)
    assert ks_distance(v.ravel(), lambda t: normal_cdf((t + 4.0) / 0.5)) < KS_BOUND


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_lognormal(name):
    v = host(ht.random.default_rng(13).lognormal(0.3, 0.5, N, dtype=name))
    assert v.min() > 0
    logs = np.log(v)
    tol = {"float16": 2e-3}.get(name, 0.0)
    assert abs(logs.mean() - 0.3) < 6 * 0.5 / math.sqrt(N) + tol
    assert abs(logs.std() - 0.5) < 6 * 0.5 / math.sqrt(2 * N) + tol


def test_normal_scale_zero_gives_loc():
    v = host(ht.random.default_rng(1).normal(1.5, 0.0, 100, dtype=ht.float32))
    np.testing.assert_array_equal(v, 1.5)


# -- poisson -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("lam", [0.5, 4.0, 100.0])
def test_poisson(lam):
    x = ht.random.default_rng(21).poisson(lam, N)
    assert x.dtype == ht.int64                                    # NumPy's type
    v = host(x)
    assert v.min() >= 0 and np.all(v == np.round(v))
    assert abs(v.mean() - lam) < 6 * math.sqrt(lam / N)
    assert abs(v.var() - lam) < 6 * lam * math.sqrt(2 / N) * (1 + 1 / math.sqrt(lam))
    p0 = np.mean(v == 0)
    assert abs(p0 - math.exp(-lam)) < 6 * math.sqrt(math.exp(-lam) * (1 - math.exp(-lam)) / N) + 1e-9


def test_poisson_lam_zero_and_dtype():
    g = ht.random.default_rng(2)
    np.testing.assert_array_equal(g.poisson(0.0, 10).get(), np.zeros(10, np.int64))
    x = g.poisson(3.0, (4, 5), dtype=ht.uint32)
    assert x.dtype == ht.uint32 and x.shape == (4, 5)


# -- integers ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", INTS)
def test_integers_small_range_every_dtype(name):
    x = ht.random.default_rng(31).integers(3, 10, N, dtype=name)
    assert x.dtype.name == name
    v = x.get()
    assert v.min() == 3 and v.max() == 9
    counts = np.bincount(v.astype(np.int64) - 3, minlength=7)
    assert np.all(np.abs(counts - N / 7) < 6 * math.sqrt(N / 7 * 6 / 7)), counts


@pytest.mark.parametrize("name", INTS)
def test_integers_full_range_of_the_dtype(name):
    info = np.iinfo(name)
    v = ht.random.default_rng(37).integers(int(info.min), int(info.max), 200_000, dtype=name,
                                           endpoint=True).get()
    assert v.dtype == np.dtype(name)
    # the top and bottom quarters of the range both appear, in about equal shares
    span = float(info.max) - float(info.min)
    rel = (v.astype(np.float64) - float(info.min)) / span
    assert abs(np.mean(rel < 0.25) - 0.25) < 0.01 and abs(np.mean(rel > 0.75) - 0.25) < 0.01


def test_integers_bool_signed_negative_and_endpoint():
    g = ht.random.default_rng(41)
    b = g.integers(0, 2, N, dtype=ht.bool).get()
    assert b.dtype == np.bool_ and abs(b.mean() - 0.5) < 6 * 0.5 / math.sqrt(N)
    s = g.integers(-5, 5, N, dtype=ht.int8, endpoint=True).get()
    assert s.min() == -5 and s.max() == 5 and abs(s.astype(np.float64).mean()) < 6 * math.sqrt(10 / N)
    one = g.integers(7, size=N).get()                             # high None: [0, 7)
    assert one.min() == 0 and one.max() == 6
    same = g.integers(4, 4, 10, endpoint=True).get()              # one value
    np.testing.assert_array_equal(same, 4)


def test_integers_large_range_is_uniform():
    """A range of 3 * 2^40: a multiply-high of 64 random bits, not a 32-bit modulo."""
    hi = 3 * 2 ** 40
    v = ht.random.default_rng(43).integers(0, hi, N).get().astype(np.float64) / hi
    assert v.min() >= 0 and v.max() < 1
    assert ks_distance(v, lambda t: t) < KS_BOUND
    assert len(np.unique(v)) > 0.9999 * N


# -- permutations ------------------------------------------------------------------------------------
def test_permutation_of_an_int():
    g = ht.random.default_rng(51)
    p = g.permutation(10_000)
    assert p.dtype == ht.int64
    v = p.get()
    np.testing.assert_array_equal(np.sort(v), np.arange(10_000))
    assert np.mean(v == np.arange(10_000)) < 0.01                   # not the identity
    firsts = np.array([ht.random.default_rng(s).permutation(4).get()[0] for s in range(200)])
    assert set(firsts.tolist()) == {0, 1, 2, 3}
    assert g.permutation(0).shape == (0,)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_permutation_of_an_array_along_an_axis(axis):
    h = np.arange(6 * 50).reshape(6, 50).astype(np.float32)
    x = ht.asarray(h)
    y = ht.random.default_rng(53).permutation(x, axis=axis)
    got = y.get()
    np.testing.assert_array_equal(x.get(), h)                      # a copy: x unchanged
    ax = axis % 2
    key = np.moveaxis(got, ax, 0)
    ref = np.moveaxis(h, ax, 0)
    rows = sorted(map(tuple, key.reshape(key.shape[0], -1)))
    assert rows == sorted(map(tuple, ref.reshape(ref.shape[0], -1)))    # whole slices moved
    assert not np.array_equal(got, h)


def test_shuffle_in_place_contiguous_and_strided():
    g = ht.random.default_rng(59)
    h = np.arange(1000, dtype=np.int32)
    x = ht.asarray(h)
    g.shuffle(x)
    v = x.get()
    np.testing.assert_array_equal(np.sort(v), h)
    assert not np.array_equal(v, h)
    base = ht.asarray(np.arange(40, dtype=np.float64).reshape(20, 2))
    view = base[::2, :]                                               # every other row, in place
    g.shuffle(view)
    b = base.get()
    np.testing.assert_array_equal(b[1::2], np.arange(40).reshape(20, 2)[1::2])   # untouched rows
    assert sorted(map(tuple, b[::2])) == sorted(map(tuple, np.arange(40).reshape(20, 2)[::2]))
    assert all(r[1] == r[0] + 1 for r in b[::2])                     # rows moved whole
    t = ht.asarray(np.arange(12.0).reshape(3, 4))
    g.shuffle(t, axis=1)
    tv = t.get()
    np.testing.assert_array_equal(np.sort(tv, axis=1), np.arange(12.0).reshape(3, 4))
    assert np.all(tv - tv[0] == np.array([[0], [4], [8]]))           # columns moved whole


# -- reproducibility, streams, sizes ---------------------------------------------------------------------
def test_same_seed_same_numbers_other_seed_others():
    draw = [ht.random.default_rng(s).random(10_000).get() for s in (42, 42, 43)]
    np.testing.assert_array_equal(draw[0], draw[1])
    assert not np.array_equal(draw[0], draw[2])
    g = ht.random.default_rng(42)
    a, b = g.standard_normal(1000).get(), g.standard_normal(1000).get()
    assert not np.array_equal(a, b)                                   # the sequence continues
    h = ht.random.default_rng(42)
    np.testing.assert_array_equal(h.standard_normal(1000).get(), a)
    np.testing.assert_array_equal(ht.random.default_rng(9).integers(0, 100, 500).get(),
                                  ht.random.default_rng(9).integers(0, 100, 500).get())
    np.testing.assert_array_equal(ht.random.default_rng(9).permutation(500).get(),
                                  ht.random.default_rng(9).permutation(500).get())


def test_module_level_functions_and_seed():
    ht.random.seed(77)
    a = ht.random.rand(3, 4)
    b = ht.random.randn(5)
    ht.random.seed(77)
    np.testing.assert_array_equal(ht.random.rand(3, 4).get(), a.get())
    np.testing.assert_array_equal(ht.random.randn(5).get(), b.get())
    assert a.shape == (3, 4) and a.dtype == ht.float64
    assert ht.random.randint(0, 5, size=10).dtype == ht.int64
    for f in (ht.random.random, ht.random.uniform, ht.random.standard_normal, ht.random.normal,
              ht.random.lognormal, ht.random.poisson):
        assert f(size=7).shape == (7,)
    assert ht.random.integers(3, size=4).shape == (4,)
    assert ht.random.permutation(5).shape == (5,)


def test_on_a_stream():
    s = ht.Stream(non_blocking=True)
    g = ht.random.default_rng(61)
    with s:
        x = g.random(1 << 20, dtype=ht.float32)
        y = g.integers(0, 10, 1 << 16)
    s.synchronize()
    v = host(x)
    assert 0 <= v.min() and v.max() < 1 and abs(v.mean() - 0.5) < 0.01
    assert set(np.unique(y.get()).tolist()) == set(range(10))
    ref = ht.random.default_rng(61)
    np.testing.assert_array_equal(ref.random(1 << 20, dtype=ht.float32).get(), x.get())   # same numbers


def test_stream_changes_rebind_the_generator():
    """The generator is bound to a stream only when the stream changes: work queued after a draw on
    each stream sees the draw's values, and the sequence runs on across streams as on one."""
    n = 1 << 22
    ref = ht.random.default_rng(63)
    want = [ref.random(n, dtype=ht.float32).get() for _ in range(3)]
    g = ht.random.default_rng(63)
    s = ht.Stream(non_blocking=True)
    got = []
    for stream in (s, ht.current_stream(), s):
        with stream:
            got.append(g.random(n, dtype=ht.float32) * 1)           # the consumer runs on that stream too
        stream.synchronize()
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.get(), b)


def test_default_engine_is_philox():
    a = ht.random.default_rng(42).random(4096).get()
    np.testing.assert_array_equal(a, ht.random.Generator(42, method="philox").random(4096).get())
    assert not np.array_equal(a, ht.random.Generator(42, method="xorwow").random(4096).get())


@pytest.mark.parametrize("size,shape", [(None, ()), (0, (0,)), ((3, 0), (3, 0)), ((2, 3), (2, 3))])
def test_sizes(size, shape):
    g = ht.random.default_rng(67)
    for x in (g.random(size), g.uniform(0, 1, size, dtype=ht.float16), g.standard_normal(size),
              g.normal(0, 1, size, dtype=ht.bfloat16), g.lognormal(size=size), g.poisson(2.0, size),
              g.integers(0, 9, size, dtype=ht.uint8)):
        assert x.shape == shape
        assert x.get().shape == shape


def test_methods():
    for method in ("xorwow", "philox", "mrg32k3a", "mtgp32", "mt19937"):
        n = 1 << 17                                               # a power of two: no engine's length rule bites
        v = host(ht.random.Generator(5, method=method).random(n))
        assert 0 <= v.min() and v.max() < 1 and abs(v.mean() - 0.5) < 6 * math.sqrt(1 / 12 / n), method


def test_bad_input_raises():
    g = ht.random.default_rng(1)
    with pytest.raises(ValueError):
        g.random(-1)
    with pytest.raises(TypeError):
        g.random(3, dtype=ht.int32)
    with pytest.raises(ValueError):
        g.integers(3, 3)
    with pytest.raises(ValueError):
        g.integers(0, 257, dtype=ht.uint8)          # high is exclusive: 256 fits uint8, 257 does not (NumPy)
    with pytest.raises(TypeError):
        g.shuffle(np.arange(3))
