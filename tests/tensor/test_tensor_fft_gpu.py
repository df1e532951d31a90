"""hip.tensor.fft on a GPU against numpy.fft: every function, norm mode, axis and axes choice, n/s
cropping and zero-padding, odd and prime lengths, real/integer/complex/2-byte inputs (result types
as NumPy 2's), batched, non-contiguous (transposed, strided, negative strides) and empty inputs,
rank > 3 and repeated axes, irfft of non-Hermitian input, streams and the plan cache; bad input."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor import fft as F

from gpu_tensor import round_bf16
from gpu_util import require_library

pytestmark = pytest.mark.gpu

NORMS = [None, "ortho", "forward"]
TOL = {"complex64": 2e-5, "float32": 2e-5, "float16": 2e-5, "bfloat16": 2e-5,
       "complex128": 1e-12, "float64": 1e-12}


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    from hip import hipfft
    require_library(hipfft)


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def data(name, shape, rng):
    if name.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    if name.startswith("int"):
        return rng.integers(-20, 20, shape).astype(name)
    if name == "bfloat16":
        return round_bf16(rng.standard_normal(shape))
    return rng.standard_normal(shape).astype(name)


def check(got: ht.ndarray, want: np.ndarray):
    """Same shape and dtype as NumPy's; values within the precision's tolerance relative to the
    largest magnitude (an FFT's error scales with the norm of the whole transform)."""
    assert isinstance(got, ht.ndarray), type(got)
    g = got.get()
    assert g.shape == want.shape, (g.shape, want.shape)
    assert got.dtype.name == want.dtype.name or (got.dtype.name == "bfloat16" and want.dtype == np.float32), \
        (got.dtype.name, want.dtype)
    tol = TOL.get(got.dtype.name, 1e-12)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(g.astype(np.complex128), want.astype(np.complex128), rtol=0, atol=tol * scale)


def reference_input(h, name):
    """What NumPy transforms: bfloat16 values as float32 (NumPy has no bfloat16)."""
    return h.astype(np.float32) if name == "bfloat16" else h


# -- 1-d transforms ----------------------------------------------------------------------------------
DTYPES = ["float32", "float64", "complex64", "complex128", "int32", "float16"]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_fft_ifft_every_axis(name, norm, rng):
    h = data(name, (6, 15, 8), rng)                     # 15: odd; batched along the other axes
    x = ht.asarray(h)
    for axis in (0, 1, 2, -1):
        check(ht.fft.fft(x, axis=axis, norm=norm), np.fft.fft(h, axis=axis, norm=norm))
        check(ht.fft.ifft(x, axis=axis, norm=norm), np.fft.ifft(h, axis=axis, norm=norm))


@pytest.mark.parametrize("n", [1, 7, 16, 17, 30, 64])
def test_fft_n_crops_and_pads(n, rng):
    h = data("complex128", (3, 16), rng)
    x = ht.asarray(h)
    for axis in (0, 1):
        check(ht.fft.fft(x, n=n, axis=axis), np.fft.fft(h, n=n, axis=axis))
        check(ht.fft.ifft(x, n=n, axis=axis, norm="ortho"), np.fft.ifft(h, n=n, axis=axis, norm="ortho"))


@pytest.mark.parametrize("length", [2, 5, 17, 97, 1000, 4096, 3 * 5 * 7 * 11])
@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_lengths(length, name, rng):
    h = data(name, (4, length), rng)
    check(ht.fft.fft(ht.asarray(h)), np.fft.fft(h))
    check(ht.fft.ifft(ht.asarray(h)), np.fft.ifft(h))


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "float16", "bfloat16"])
@pytest.mark.parametrize("norm", NORMS)
def test_rfft_irfft(name, norm, rng):
    for n in (16, 15):
        h = data(name, (5, n, 3), rng)
        ref = reference_input(h, name)
        x = ht.asarray(h, dtype=name)
        for axis in (1, -1, 0):
            check(ht.fft.rfft(x, axis=axis, norm=norm), np.fft.rfft(ref, axis=axis, norm=norm))
        spec = np.fft.rfft(ref, axis=1)                                   # Hermitian input
        for m in (None, n, n + 3, n - 4):
            want = np.fft.irfft(spec, n=m, axis=1, norm=norm)
            got = ht.fft.irfft(ht.asarray(spec), n=m, axis=1, norm=norm)
            check(got, want)


@pytest.mark.parametrize("n", [8, 9])
def test_irfft_of_non_hermitian_input_is_numpys(n, rng):
    """NumPy ignores the imaginary parts of the zero and (n even) Nyquist frequencies."""
    h = data("complex128", (4, n // 2 + 1), rng)
    check(ht.fft.irfft(ht.asarray(h), n=n), np.fft.irfft(h, n=n))
    h2 = data("complex128", (6, 5, 4), rng)
    check(ht.fft.irfftn(ht.asarray(h2)), np.fft.irfftn(h2))
    check(ht.fft.irfft2(ht.asarray(h2), s=(5, 7)), np.fft.irfft2(h2, s=(5, 7)))


def test_irfft_float16_keeps_float16_and_complex64_gives_float32(rng):
    spec = np.fft.rfft(rng.standard_normal(16)).astype(np.complex64)
    assert ht.fft.irfft(ht.asarray(spec)).dtype == ht.float32
    h = data("float16", (16,), rng)
    y = ht.fft.irfft(ht.asarray(h))
    assert y.dtype == ht.float16 and np.fft.irfft(h).dtype == np.float16


def test_hfft_ihfft(rng):
    h = data("complex128", (3, 9), rng)
    for norm in NORMS:
        check(ht.fft.hfft(ht.asarray(h), norm=norm), np.fft.hfft(h, norm=norm))
        check(ht.fft.hfft(ht.asarray(h), n=11, norm=norm), np.fft.hfft(h, n=11, norm=norm))
    r = data("float64", (3, 10), rng)
    for norm in NORMS:
        check(ht.fft.ihfft(ht.asarray(r), norm=norm), np.fft.ihfft(r, norm=norm))


# -- n-d transforms ----------------------------------------------------------------------------------
ND_CASES = [(None, None), (None, (0, 2)), (None, (2, 0)), ((4, 6), (0, 1)), ((5,), (1,)), ((3, 8, 5), (0, 1, 2)),
            (None, (1,)), (None, (-1, -3))]


@pytest.mark.parametrize("name", ["complex64", "complex128", "float32"])
@pytest.mark.parametrize("s,axes", ND_CASES)
@pytest.mark.parametrize("norm", NORMS)
def test_fftn_ifftn(name, s, axes, norm, rng):
    h = data(name, (4, 6, 5), rng)
    x = ht.asarray(h)
    check(ht.fft.fftn(x, s=s, axes=axes, norm=norm), np.fft.fftn(h, s=s, axes=axes, norm=norm))
    check(ht.fft.ifftn(x, s=s, axes=axes, norm=norm), np.fft.ifftn(h, s=s, axes=axes, norm=norm))


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("s,axes", ND_CASES)
@pytest.mark.parametrize("norm", NORMS)
def test_rfftn_irfftn(name, s, axes, norm, rng):
    h = data(name, (4, 6, 5), rng)
    check(ht.fft.rfftn(ht.asarray(h), s=s, axes=axes, norm=norm), np.fft.rfftn(h, s=s, axes=axes, norm=norm))
    spec = np.fft.rfftn(h, s=s, axes=axes)
    check(ht.fft.irfftn(ht.asarray(spec), s=s, axes=axes, norm=norm),
          np.fft.irfftn(spec, s=s, axes=axes, norm=norm))


def test_2d_functions(rng):
    h = data("complex128", (3, 12, 10), rng)
    r = data("float64", (3, 12, 10), rng)
    x, xr = ht.asarray(h), ht.asarray(r)
    check(ht.fft.fft2(x), np.fft.fft2(h))
    check(ht.fft.ifft2(x, norm="ortho"), np.fft.ifft2(h, norm="ortho"))
    check(ht.fft.fft2(x, axes=(0, 2)), np.fft.fft2(h, axes=(0, 2)))
    check(ht.fft.rfft2(xr), np.fft.rfft2(r))
    check(ht.fft.irfft2(ht.asarray(np.fft.rfft2(r))), np.fft.irfft2(np.fft.rfft2(r)))
    check(ht.fft.fft2(x, s=(7, 13)), np.fft.fft2(h, s=(7, 13)))


def test_rank_above_three_and_repeated_axes(rng):
    h = data("complex128", (3, 4, 5, 6, 2), rng)
    x = ht.asarray(h)
    check(ht.fft.fftn(x), np.fft.fftn(h))                                  # 5 axes: two passes
    check(ht.fft.ifftn(x, axes=(0, 1, 2, 3)), np.fft.ifftn(h, axes=(0, 1, 2, 3)))
    r = data("float64", (3, 4, 5, 6), rng)
    check(ht.fft.rfftn(ht.asarray(r)), np.fft.rfftn(r))
    spec = np.fft.rfftn(r)
    check(ht.fft.irfftn(ht.asarray(spec), s=r.shape, axes=(0, 1, 2, 3)), np.fft.irfftn(spec, s=r.shape, axes=(0, 1, 2, 3)))
    check(ht.fft.fftn(x, axes=(1, 1)), np.fft.fftn(h, axes=(1, 1)))         # the axis twice
    check(ht.fft.fftn(x, s=(3, 7), axes=(2, 2)), np.fft.fftn(h, s=(3, 7), axes=(2, 2)))
    check(ht.fft.rfftn(ht.asarray(r), axes=(0, 0)), np.fft.rfftn(r, axes=(0, 0)))


# -- layouts -------------------------------------------------------------------------------------------
LAYOUTS = [("transposed", lambda a: a.transpose(2, 0, 1)), ("strided", lambda a: a[:, ::2, 1:]),
           ("negative", lambda a: a[::-1, :, ::-2]), ("offset", lambda a: a[1:, 1:, 1:])]


@pytest.mark.parametrize("label,view", LAYOUTS, ids=[lab for lab, _ in LAYOUTS])
def test_non_contiguous_inputs(label, view, rng):
    h = data("complex64", (6, 10, 9), rng)
    r = data("float32", (6, 10, 9), rng)
    x, xr = view(ht.asarray(h)), view(ht.asarray(r))
    hv, rv = view(h), view(r)
    before = x.get()
    for axis in (0, 1, 2):
        check(ht.fft.fft(x, axis=axis), np.fft.fft(hv, axis=axis))
        check(ht.fft.rfft(xr, axis=axis), np.fft.rfft(rv, axis=axis))
    check(ht.fft.fftn(x, axes=(0, 2)), np.fft.fftn(hv, axes=(0, 2)))
    check(ht.fft.rfftn(xr), np.fft.rfftn(rv))
    np.testing.assert_array_equal(x.get(), before)                       # the input is never written
    spec = ht.asarray(np.fft.rfft(rv, axis=1))
    spec_view = ht.asarray(np.fft.rfft(rv, axis=1).transpose(1, 0, 2).copy()).transpose(1, 0, 2)
    want = np.fft.irfft(np.fft.rfft(rv, axis=1), n=rv.shape[1], axis=1)
    check(ht.fft.irfft(spec, n=rv.shape[1], axis=1), want)
    before = spec_view.get()
    check(ht.fft.irfft(spec_view, n=rv.shape[1], axis=1), want)
    np.testing.assert_array_equal(spec_view.get(), before)              # c2r's input is a copy


def test_empty_batches(rng):
    for shape, axis in (((0, 8), -1), ((3, 0, 8), -1), ((0, 4, 4), 1)):
        h = np.zeros(shape, np.complex64)
        x = ht.asarray(h)
        check(ht.fft.fft(x, axis=axis), np.fft.fft(h, axis=axis))
        check(ht.fft.rfft(ht.asarray(h.real.copy()), axis=axis), np.fft.rfft(h.real, axis=axis))
        check(ht.fft.irfft(x, n=6, axis=axis), np.fft.irfft(h, n=6, axis=axis))
    h = np.zeros((0, 4, 4), np.complex128)
    check(ht.fft.fftn(ht.asarray(h), axes=(1, 2)), np.fft.fftn(h, axes=(1, 2)))
    check(ht.fft.fft(ht.asarray(np.zeros((3, 0))), n=4, axis=1), np.fft.fft(np.zeros((3, 0)), n=4, axis=1))


def test_large_batch_and_length(rng):
    h = data("complex64", (512, 1024), rng)
    check(ht.fft.fft(ht.asarray(h)), np.fft.fft(h))
    r = data("float64", (1 << 20,), rng)
    check(ht.fft.rfft(ht.asarray(r)), np.fft.rfft(r))


def test_round_trips(rng):
    h = data("complex128", (8, 9, 10), rng)
    x = ht.asarray(h)
    check(ht.fft.ifftn(ht.fft.fftn(x)), h)
    r = data("float32", (8, 9, 10), rng)
    check(ht.fft.irfftn(ht.fft.rfftn(ht.asarray(r)), s=r.shape, axes=(0, 1, 2)), r)


# -- frequencies and shifts --------------------------------------------------------------------------
def test_freqs_and_shifts(rng):
    for n in (1, 8, 9):
        check(ht.fft.fftfreq(n, d=0.5), np.fft.fftfreq(n, d=0.5))
        check(ht.fft.rfftfreq(n), np.fft.rfftfreq(n))
    assert ht.fft.fftfreq(8, dtype=ht.float32).dtype == ht.float32
    h = data("float64", (5, 8), rng)
    x = ht.asarray(h)
    check(ht.fft.fftshift(x), np.fft.fftshift(h))
    check(ht.fft.ifftshift(x), np.fft.ifftshift(h))
    check(ht.fft.fftshift(x, axes=1), np.fft.fftshift(h, axes=1))
    check(ht.fft.ifftshift(x, axes=(0,)), np.fft.ifftshift(h, axes=(0,)))
    check(ht.fft.ifftshift(ht.fft.fftshift(x)), h)


# -- streams and plans ---------------------------------------------------------------------------------
def test_on_a_stream_and_plan_cache(rng):
    ht.fft.clear_plan_cache()
    assert ht.fft.plan_cache_info()["size"] == 0
    h = data("complex64", (4, 256), rng)
    x = ht.asarray(h)
    check(ht.fft.fft(x), np.fft.fft(h))
    assert ht.fft.plan_cache_info()["size"] == 1
    check(ht.fft.fft(x), np.fft.fft(h))
    assert ht.fft.plan_cache_info()["size"] == 1                            # reused
    s = ht.Stream(non_blocking=True)
    ht.synchronize()                                                        # x is complete before s reads it
    with s:
        y = ht.fft.fft(x)
        z = ht.fft.ifft(y)
    s.synchronize()
    assert ht.fft.plan_cache_info()["size"] == 2                            # a plan per stream
    check(y, np.fft.fft(h))
    check(z, h)
    for k in range(F.PLAN_CACHE_SIZE + 5):                                  # the cache stays bounded
        ht.fft.fft(ht.asarray(h[:, : 8 + k]))
    assert ht.fft.plan_cache_info()["size"] == F.PLAN_CACHE_SIZE
    ht.fft.clear_plan_cache()


def test_bad_input_raises(rng):
    x = ht.asarray(data("complex64", (4, 8), rng))
    with pytest.raises(ValueError, match="Invalid number"):
        ht.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="Invalid norm"):
        ht.fft.fft(x, norm="unitary")
    with pytest.raises(TypeError, match="real input"):
        ht.fft.rfft(x)
    with pytest.raises(IndexError):
        ht.fft.fft(x, axis=2)
    with pytest.raises(TypeError, match="hip.tensor array"):
        ht.fft.fft(np.ones(4))
    with pytest.raises(ValueError, match="different lengths"):
        ht.fft.fftn(x, s=(4,), axes=(0, 1))


# -- hipFFT's advanced layout: no copy of the input -------------------------------------------------------
@pytest.mark.parametrize("name", ["complex64", "complex128", "float32"])
def test_any_axis_in_place_of_a_c_contiguous_array(name, rng):
    """Every axis and pair of axes of these C-contiguous arrays is transformed where it lies
    (_fft_layout plans them all; plans keyed by their strides), and the result is C-contiguous
    like NumPy's; leading axes that do not fold into the batch take one call each ((8, 32, 16),
    axis 1: 8 calls of 16 transforms); length-1 axes join the batch ((5, 1, 4096), complex only:
    no size-1 r2c plan)."""
    ht.fft.clear_plan_cache()
    for shape in ((8, 32, 16), (3, 10, 6), (5, 1, 4096)):
        if name == "float32" and 1 in shape:
            continue
        h = data(name, shape, rng)
        x = ht.asarray(h)
        for axes in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2)):
            if name == "float32":
                got, want = ht.fft.rfftn(x, axes=axes), np.fft.rfftn(h, axes=axes)
            else:
                got, want = ht.fft.fftn(x, axes=axes), np.fft.fftn(h, axes=axes)
            check(got, want)
            assert got.flags.c_contiguous, (shape, axes, got.strides)
    keys = ht.fft.plan_cache_info()["keys"]
    assert any(k[-1][2] > 1 for k in keys)          # a plan with an input stride: no copy made


def test_transposed_input_gives_a_transposed_result(rng):
    h = data("complex64", (48, 40), rng)
    x = ht.asarray(h).T
    got = ht.fft.fft(x, axis=1)
    check(got, np.fft.fft(h.T, axis=1))
    assert got.flags.f_contiguous                                         # the input's memory order
    check(ht.fft.fft2(x), np.fft.fft2(h.T))
    check(ht.fft.ifft(x, axis=0, norm="ortho"), np.fft.ifft(h.T, axis=0, norm="ortho"))


def test_many_calls_and_misaligned_offsets_fall_back_to_a_copy(rng):
    for shape, axis in (((40, 6, 40), 1), ((2, 3, 3), 1), ((5, 7, 3), 1)):
        h = data("complex64", shape, rng)
        check(ht.fft.fft(ht.asarray(h), axis=axis), np.fft.fft(h, axis=axis))
        r = data("float32", shape, rng)
        check(ht.fft.rfft(ht.asarray(r), axis=axis), np.fft.rfft(r, axis=axis))


def test_fft_of_2_24_points(rng):
    h = data("complex64", (1 << 24,), rng)
    check(ht.fft.fft(ht.asarray(h)), np.fft.fft(h))
