"""hip.tensor.random and hip.tensor.fft without a device: the n-d argument rules, output shapes,
types and norm factors against numpy.fft's own; bad arguments raise before any device call (the
arrays here describe memory that is never touched); importing loads neither hipRAND nor hipFFT;
every kernel hip.tensor.random launches compiles with the real hiprtc (gfx90a) and, where the
build fetched it, NVRTC (sm_90)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import elementwise as ek
from hip.tensor import fft as F
from hip.tensor import random as R

from test_tensor_kernels_compile import check_hiprtc, check_nvrtc, no_disk_cache, nvrtc  # noqa: F401

BASE = 1 << 32          # a fake device address: nothing reads it


def fake(shape, dtype="float32") -> ht.ndarray:
    d = ht.dtype(dtype)
    from hip.tensor._core.shapes import c_strides
    return ht.ndarray._view_of(None, BASE, tuple(shape), c_strides(tuple(shape), d.itemsize), d, 0)


# -- fft: argument rules against numpy.fft -------------------------------------------------------------
SHAPE = (3, 4, 5)
ND_CASES = [(None, None), ((2, 6), None), (None, (0, 2)), ((4, -1), (2, 0)), (None, (1, 1)), ((5,), (-1,)),
            ((7, 3, 2), None), (None, (-1, 0)), ((6, 6), (1, 1)), (None, (2,))]


def _numpy_nd(fn, shape, s, axes):
    a = np.zeros(shape, np.complex128 if fn.__name__.startswith("i") and "rfft" in fn.__name__ else np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # s without axes (NumPy 2.0 deprecation)
        return fn(a, s=s, axes=axes).shape


@pytest.mark.parametrize("s,axes", ND_CASES)
def test_nd_output_shapes_match_numpy(s, axes):
    for fn, kind, inv in ((np.fft.fftn, "c2c", False), (np.fft.rfftn, "r2c", False), (np.fft.irfftn, "c2r", True)):
        cs, ca = F.cook_nd(SHAPE, s, axes, invreal=inv)
        assert F.output_shape(kind, SHAPE, cs, ca) == _numpy_nd(fn, SHAPE, s, axes), (fn.__name__, s, axes)


@pytest.mark.parametrize("n,axis", [(None, -1), (3, 0), (8, 1), (1, -2), (None, 0)])
def test_1d_output_shapes_match_numpy(n, axis):
    a = np.zeros(SHAPE)
    nn, ax = F.cook_1d(SHAPE, n, axis)
    assert F.output_shape("c2c", SHAPE, [nn], [ax]) == np.fft.fft(a, n, axis).shape
    assert F.output_shape("r2c", SHAPE, [nn], [ax]) == np.fft.rfft(a, n, axis).shape
    m = 2 * (SHAPE[ax] - 1) if n is None else n
    assert F.output_shape("c2r", SHAPE, [m], [ax]) == np.fft.irfft(a.astype(complex), n, axis).shape


def test_nd_rule_errors_match_numpy():
    for s, axes in (((2, 3), (0,)), ((2,), (0, 1))):
        with pytest.raises(ValueError, match="different lengths"):
            np.fft.fftn(np.zeros(SHAPE), s=s, axes=axes)
        with pytest.raises(ValueError, match="different lengths"):
            F.cook_nd(SHAPE, s, axes)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        np.fft.fftn(np.zeros(SHAPE), s=(0, 2), axes=(0, 1))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        F.cook_nd(SHAPE, (0, 2), (0, 1))
    with pytest.raises(IndexError):             # NumPy's AxisError is an IndexError
        np.fft.fftn(np.zeros(SHAPE), axes=(3,))
    with pytest.raises(IndexError):
        F.cook_nd(SHAPE, None, (3,))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        F.cook_1d((0, 4), None, 0)              # an empty axis with no n: NumPy's error
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        np.fft.fft(np.zeros((0, 4)), axis=0)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [1, 5, 8, 17])
def test_norm_factors_match_numpy(norm, n):
    x = np.random.default_rng(n).standard_normal(n) + 1j
    unscaled_f, unscaled_i = np.fft.fft(x, norm="backward"), np.fft.ifft(x, norm="forward")
    np.testing.assert_allclose(np.fft.fft(x, norm=norm), unscaled_f * F.scale_factor(norm, n, True), rtol=1e-12)
    np.testing.assert_allclose(np.fft.ifft(x, norm=norm), unscaled_i * F.scale_factor(norm, n, False), rtol=1e-12)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [1, 6, 15, 100, 1000, 4096])
def test_float16_factors_are_numpys(norm, n):
    # numpy.fft rounds a float16 input's factor to float16: an impulse's transform is that factor
    e0 = np.zeros(n, np.float16)
    e0[0] = 1
    assert np.fft.fft(e0, norm=norm)[0].real == np.float32(F.half_factor(norm, n, True))
    assert np.fft.ifft(e0, norm=norm)[0].real == np.float32(F.half_factor(norm, n, False))


def test_bad_norm_is_numpys_error():
    with pytest.raises(ValueError, match="Invalid norm value"):
        np.fft.fft(np.ones(4), norm="none")
    with pytest.raises(ValueError, match="Invalid norm value"):
        F.fft(fake((4,)), norm="none")


NUMPY_DTYPES = ["bool", "int8", "int32", "int64", "uint16", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_result_types_match_numpy(name):
    d = ht.dtype(name)
    x = np.ones(4, name)
    assert F.complex_type(d).name == np.fft.fft(x).dtype.name
    if d.kind != "c":
        assert F.complex_type(F.real_type(d, "rfft")).name == np.fft.rfft(x).dtype.name
    else:
        with pytest.raises(TypeError):
            np.fft.rfft(x)
        with pytest.raises(TypeError, match="rfft needs real input"):
            F.real_type(d, "rfft")
    assert F.irfft_result_type(d).name == np.fft.irfft(x).dtype.name


def test_bfloat16_transforms_in_single_precision():
    assert F.complex_type(dt.bfloat16) is dt.complex64
    assert F.real_type(dt.bfloat16, "rfft") is dt.float32
    assert F.irfft_result_type(dt.bfloat16) is dt.bfloat16


def test_axes_passes_at_most_three_axes_last_first():
    assert F.groups([0]) == [[0]]
    assert F.groups([0, 1, 2]) == [[0, 1, 2]]
    assert F.groups([0, 1, 2, 3, 4]) == [[2, 3, 4], [0, 1]]
    assert F.groups([4, 0, 1, 2, 3, 5, 6]) == [[3, 5, 6], [0, 1, 2], [4]]


def test_fft_namespace_matches_the_array_api_extension():
    """Every function of the standard's fft extension (2023.12, as array-api-strict states it) is
    here, callable with the standard's arguments and defaults (the namespace test's rule)."""
    xp = pytest.importorskip("array_api_strict")
    from test_tensor_namespace import _incompatible
    names = list(xp.fft.__all__)
    assert len(names) == 14 and "irfftn" in names
    bad = {n: _incompatible(getattr(xp.fft, n), getattr(F, n, None)) for n in names}
    assert not {n: why for n, why in bad.items() if why}, bad


@pytest.mark.parametrize("call,exc,match", [
    (lambda: F.fft(np.ones(4)), TypeError, "hip.tensor array"),
    (lambda: F.fft(fake((4,)), n=0), ValueError, "Invalid number"),
    (lambda: F.fft(fake((4,)), n=2.5), TypeError, "must be an int"),
    (lambda: F.fft(fake((4,)), axis=1), IndexError, "out of bounds"),
    (lambda: F.fft(fake(())), IndexError, "out of bounds"),
    (lambda: F.ifft(fake((0, 4)), axis=0), ValueError, "Invalid number"),
    (lambda: F.rfft(fake((4,), "complex64")), TypeError, "rfft needs real input"),
    (lambda: F.rfftn(fake((4, 4), "complex128")), TypeError, "rfftn needs real input"),
    (lambda: F.irfft(fake((1,), "complex64")), ValueError, "Invalid number"),
    (lambda: F.fftn(fake((4, 4)), s=(2, 2, 2), axes=(0, 1)), ValueError, "different lengths"),
    (lambda: F.fftn(fake((4, 4)), s=(2, 2, 2)), ValueError, "dimensions"),
    (lambda: F.fft2(fake((4,))), IndexError, "out of bounds"),
    (lambda: F.irfftn(fake((4, 4), "complex64"), s=(4, 0)), ValueError, "Invalid number"),
    (lambda: F.fftn(fake((4, 4)), norm="backwards"), ValueError, "Invalid norm"),
    (lambda: F.fftshift([1, 2]), TypeError, "hip.tensor array"),
    (lambda: F.fftfreq(0), ValueError, "Invalid number"),
])
def test_fft_bad_arguments_raise_before_device_work(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# -- random: argument rules ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("low,high,endpoint", [(0, 10, False), (5, 5, False), (5, 5, True), (6, 5, True),
                                                (-1, 3, False), (0, 256, False), (0, 255, True), (-128, 128, False),
                                                (-129, 0, False), (0, 2, False), (0, 2 ** 64, False),
                                                (-2 ** 63, 2 ** 63, False), (0, 2 ** 63, True)])
def test_integer_bounds_errors_match_numpy(name, low, high, endpoint):
    g = np.random.default_rng(0)
    try:
        g.integers(low, high, size=1, dtype=np.dtype(name), endpoint=endpoint)
        numpy_error = None
    except ValueError as e:
        numpy_error = e
    if numpy_error is None:
        lo, span = R.integer_bounds(low, high, endpoint, ht.dtype(name))
        assert (lo, span) == (low, high - low + (1 if endpoint else 0))
    else:
        with pytest.raises(ValueError):
            R.integer_bounds(low, high, endpoint, ht.dtype(name))


@pytest.mark.parametrize("call,exc,match", [
    (lambda g: g.random(-1), ValueError, "negative"),
    (lambda g: g.random((2, -3)), ValueError, "negative"),
    (lambda g: g.random(2.5), TypeError, "shape"),
    (lambda g: g.random(3, dtype="int32"), TypeError, "floating type"),
    (lambda g: g.random(3, dtype="complex64"), TypeError, "floating type"),
    (lambda g: g.uniform(0, np.inf, 3), ValueError, "finite"),
    (lambda g: g.uniform(np.zeros(3), 1.0), TypeError, "scalar"),
    (lambda g: g.standard_normal(3, dtype="int64"), TypeError, "floating type"),
    (lambda g: g.normal(0, -1, 3), ValueError, "scale must be >= 0"),
    (lambda g: g.normal("0", 1, 3), TypeError, "scalar"),
    (lambda g: g.lognormal(0, -0.5, 3), ValueError, "sigma must be >= 0"),
    (lambda g: g.poisson(-1.0, 3), ValueError, "lam must be >= 0"),
    (lambda g: g.poisson(1.0, 3, dtype="float32"), TypeError, "integer type"),
    (lambda g: g.poisson(1e12, 3), ValueError, "too large"),
    (lambda g: g.integers(5, 5), ValueError, "low >= high"),
    (lambda g: g.integers(6, 5, endpoint=True), ValueError, "low > high"),
    (lambda g: g.integers(0, 300, dtype="uint8"), ValueError, "out of bounds"),
    (lambda g: g.integers(-1, 3, dtype="uint32"), ValueError, "out of bounds"),
    (lambda g: g.integers(0.0, 3), TypeError, "must be an int"),
    (lambda g: g.integers(0, 3, dtype="float32"), TypeError, "integer type"),
    (lambda g: g.integers(0, 3, size=-1), ValueError, "negative"),
    (lambda g: g.permutation(-2), ValueError, ">= 0"),
    (lambda g: g.permutation(2.0), TypeError, "int or a hip.tensor array"),
    (lambda g: g.permutation(fake(())), ValueError, "at least one dimension"),
    (lambda g: g.permutation(fake((3, 4)), axis=2), IndexError, "out of bounds"),
    (lambda g: g.shuffle([1, 2, 3]), TypeError, "hip.tensor array"),
    (lambda g: g.shuffle(fake(())), ValueError, "at least one dimension"),
])
def test_random_bad_arguments_raise_before_device_work(call, exc, match):
    with pytest.raises(exc, match=match):
        call(R.Generator(1))


@pytest.mark.parametrize("seed,exc", [(-1, ValueError), (2 ** 64, ValueError), (1.5, TypeError), ("1", TypeError),
                                      (True, TypeError)])
def test_bad_seeds(seed, exc):
    with pytest.raises(exc):
        R.default_rng(seed)
    with pytest.raises(exc):
        R.seed(seed)


def test_seeds_and_methods():
    assert R.default_rng(2 ** 64 - 1).seed == 2 ** 64 - 1
    assert R.default_rng(np.uint32(7)).seed == 7
    g = R.default_rng(3)
    assert R.default_rng(g) is g
    assert 0 <= R.default_rng().seed < 2 ** 64
    assert R.default_rng().seed != R.default_rng().seed         # fresh entropy each time
    with pytest.raises(ValueError, match="method"):
        R.Generator(1, method="sobol")
    R.seed(5)
    assert R.get_default_generator().seed == 5


def test_default_engine_is_philox_and_every_method_is_a_hiprand_engine():
    """Philox4x32-10 by default (no state-setup kernel after seeding: see the module's doc), for
    Generator, default_rng and the module-level generator; every method names a real hipRAND enum."""
    from hip import hiprand
    assert repr(R.Generator(1)) == "Generator(seed=1, method='philox')"
    assert R.default_rng(1)._method == "philox"
    R.seed(3)
    assert R.get_default_generator()._method == "philox"
    assert R._METHODS["philox"] == "HIPRAND_RNG_PSEUDO_PHILOX4_32_10"
    for method, name in R._METHODS.items():
        assert hasattr(hiprand.hiprandRngType, name), method


def test_importing_loads_neither_hiprand_nor_hipfft():
    from conftest import run_python
    r = run_python("""
        import sys, hip.tensor as ht
        ht.random.default_rng(1); ht.fft.cook_nd((3, 4), None, None)
        print([m for m in ('hip.hiprand', 'hip.hipfft') if m in sys.modules])
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


# -- random's kernels compile ----------------------------------------------------------------------------
def _random_sources():
    out = []
    for label, kernel, dtypes, bindings in R.kernels_for_compile_check():
        for ndim in (0, 2):                     # contiguous output, and a strided one
            kinds = ("raw", "scalar", "scalar", "array")
            spec, b = ek.spec_for(kernel, dtypes, kinds=kinds, ndim=ndim, bindings=bindings)
            out.append((f"{label}/ndim{ndim}", kernel.generate(spec, b)[0]))
    return out


def test_random_kernels_cover_every_dtype():
    labels = {label.split("/")[0] for label, _ in _random_sources()}
    assert {f"random_unit[{n}]" for n in ("float16", "bfloat16", "float32", "float64")} <= labels
    assert {f"random_integers[{d.name}]" for d in dt.ALL if d.kind in "biu"} <= labels


@pytest.mark.runtime
def test_random_kernels_compile_with_hiprtc(no_disk_cache):  # noqa: F811
    check_hiprtc(_random_sources())


def test_random_kernels_compile_with_nvrtc(nvrtc):  # noqa: F811
    check_nvrtc(nvrtc, _random_sources())


def test_unit_kernel_grids_are_exact_in_their_type():
    """random() draws p-bit integers scaled by 2^-p: p is the type's significand (eps = 2^(1-p)), so
    every value is exact in the type and [0, 1) holds; more bits than 32 take two words."""
    for name, p in R._UNIT_BITS.items():
        assert ht.finfo(name).eps == 2.0 ** (1 - p), name
        assert R.words_per_value(ht.dtype(name)) == (2 if p > 32 else 1)
