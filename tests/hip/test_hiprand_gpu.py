"""hipRAND: distributions' moments for n = 1e6 (tolerances of about 6 standard errors),
ranges, seeded reproducibility, generator types, streams, the host generator."""
from __future__ import annotations

import numpy as np
import pytest

import hip
from hip import hip as h, hiprand

from gpu_util import require_library

pytestmark = pytest.mark.gpu

R = hiprand
T = hiprand.hiprandRngType
N = 1_000_000


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hiprand)


def generator(kind=T.HIPRAND_RNG_PSEUDO_DEFAULT, seed=1234):
    g = hip.check(R.hiprandCreateGenerator(kind))
    if seed is not None:
        hip.check(R.hiprandSetPseudoRandomGeneratorSeed(g, seed))
    return g


def generate(mem, fn, g, dtype, n=N, *args):
    d = mem.alloc(n * np.dtype(dtype).itemsize)
    hip.check(getattr(R, fn)(g, d, n, *args))
    hip.check(h.hipDeviceSynchronize())
    return mem.get(d, n, dtype)


def test_uniform_float(mem):
    g = generator()
    try:
        x = generate(mem, "hiprandGenerateUniform", g, np.float32).astype(np.float64)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert x.min() > 0.0 and x.max() <= 1.0                    # (0, 1]
    assert abs(x.mean() - 0.5) < 6 * np.sqrt(1 / 12 / N)       # 0.0017
    assert abs(x.var() - 1 / 12) < 6 * np.sqrt((1 / 80 - 1 / 144) / N)   # 4.5e-4
    hist = np.histogram(x, bins=10, range=(0, 1))[0]
    assert np.all(np.abs(hist - N / 10) < 6 * np.sqrt(N / 10 * 0.9)), hist


def test_uniform_double(mem):
    g = generator(seed=99)
    try:
        x = generate(mem, "hiprandGenerateUniformDouble", g, np.float64)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert x.min() > 0.0 and x.max() <= 1.0
    assert abs(x.mean() - 0.5) < 6 * np.sqrt(1 / 12 / N)
    assert abs(x.var() - 1 / 12) < 6 * np.sqrt((1 / 80 - 1 / 144) / N)


@pytest.mark.parametrize("fn,dtype", [("hiprandGenerateNormal", np.float32), ("hiprandGenerateNormalDouble", np.float64)])
def test_normal(mem, fn, dtype):
    mean, std = 2.0, 3.0
    g = generator(seed=7)
    try:
        x = generate(mem, fn, g, dtype, N, mean, std).astype(np.float64)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert abs(x.mean() - mean) < 6 * std / np.sqrt(N)         # 0.018
    assert abs(x.std() - std) < 6 * std / np.sqrt(2 * N)       # 0.013
    inside = np.mean(np.abs(x - mean) < std)                   # 68.27 % within one sigma
    assert abs(inside - 0.682689) < 6 * np.sqrt(0.2166 / N)


def test_log_normal(mem):
    g = generator(seed=11)
    try:
        x = generate(mem, "hiprandGenerateLogNormal", g, np.float32, N, 0.0, 0.5).astype(np.float64)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert x.min() > 0
    logs = np.log(x)
    assert abs(logs.mean()) < 6 * 0.5 / np.sqrt(N)
    assert abs(logs.std() - 0.5) < 6 * 0.5 / np.sqrt(2 * N)


def test_poisson(mem):
    lam = 4.0
    g = generator(seed=5)
    try:
        x = generate(mem, "hiprandGeneratePoisson", g, np.uint32, N, lam).astype(np.float64)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert abs(x.mean() - lam) < 6 * np.sqrt(lam / N)
    assert abs(x.var() - lam) < 0.05
    assert (x == np.round(x)).all()


def test_uint32_bits(mem):
    g = generator(seed=3)
    try:
        x = generate(mem, "hiprandGenerate", g, np.uint32)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    bits = np.unpackbits(x.view(np.uint8)).astype(np.float64)
    assert abs(bits.mean() - 0.5) < 6 * 0.5 / np.sqrt(bits.size)
    assert len(np.unique(x)) > 0.999 * N                        # few collisions among 2^32 values


def test_seed_reproducible(mem):
    out = []
    for seed in (42, 42, 43):
        g = generator(seed=seed)
        try:
            out.append(generate(mem, "hiprandGenerateUniform", g, np.float32, 10_000))
        finally:
            hip.check(R.hiprandDestroyGenerator(g))
    np.testing.assert_array_equal(out[0], out[1])
    assert not np.array_equal(out[0], out[2])


def test_successive_calls_continue_the_sequence(mem):
    g = generator(seed=8)
    try:
        a = generate(mem, "hiprandGenerateUniform", g, np.float32, 10_000)
        b = generate(mem, "hiprandGenerateUniform", g, np.float32, 10_000)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("kind", ["HIPRAND_RNG_PSEUDO_XORWOW", "HIPRAND_RNG_PSEUDO_MRG32K3A",
                                  "HIPRAND_RNG_PSEUDO_MTGP32", "HIPRAND_RNG_PSEUDO_MT19937",
                                  "HIPRAND_RNG_PSEUDO_PHILOX4_32_10", "HIPRAND_RNG_QUASI_SOBOL32"])
def test_generator_types(mem, kind):
    quasi = "QUASI" in kind
    g = generator(getattr(T, kind), seed=None if quasi else 2024)
    try:
        if quasi:
            hip.check(R.hiprandSetQuasiRandomGeneratorDimensions(g, 1))
        x = generate(mem, "hiprandGenerateUniform", g, np.float32).astype(np.float64)
    finally:
        hip.check(R.hiprandDestroyGenerator(g))
    assert x.min() >= 0.0 and x.max() <= 1.0                # (0, 1]; a Sobol sequence may start at 0
    assert abs(x.mean() - 0.5) < 6 * np.sqrt(1 / 12 / N)
    assert abs(x.var() - 1 / 12) < 6 * np.sqrt((1 / 80 - 1 / 144) / N)


def test_generate_on_a_stream(mem, stream):
    g = generator(seed=17)
    try:
        hip.check(R.hiprandSetStream(g, stream))
        n = 1 << 16
        d = mem.alloc(n * 4)
        hip.check(R.hiprandGenerateUniform(g, d, n))
        hip.check(h.hipStreamSynchronize(stream))
        x = mem.get(d, n, np.float32)
        assert 0.0 < x.min() and x.max() <= 1.0
    finally:
        hip.check(R.hiprandDestroyGenerator(g))


def test_host_generator():
    g = hip.check(R.hiprandCreateGeneratorHost(T.HIPRAND_RNG_PSEUDO_DEFAULT))
    try:
        hip.check(R.hiprandSetPseudoRandomGeneratorSeed(g, 5))
        x = np.zeros(100_000, np.float32)
        hip.check(R.hiprandGenerateUniform(g, x, x.size))     # straight into host memory
        assert 0.0 < x.min() and x.max() <= 1.0
        assert abs(x.astype(np.float64).mean() - 0.5) < 0.01
    finally:
        hip.check(R.hiprandDestroyGenerator(g))


def test_odd_count_normal_is_an_error_or_fine(mem):
    """cuRAND asks for an even count for pseudo-random normals; either a clean status or success."""
    g = generator()
    try:
        d = mem.alloc(101 * 4)
        err = R.hiprandGenerateNormal(g, d, 101, 0.0, 1.0)[0]
        assert err in (R.hiprandStatus.HIPRAND_STATUS_SUCCESS, R.hiprandStatus.HIPRAND_STATUS_LENGTH_NOT_MULTIPLE), err
    finally:
        hip.check(R.hiprandDestroyGenerator(g))


def test_version():
    assert hip.check(R.hiprandGetVersion()) > 0
