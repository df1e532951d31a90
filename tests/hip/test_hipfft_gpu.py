"""hipFFT against numpy.fft: c2c forward/inverse (out of place and in place), r2c, c2r,
double precision, batches, 2-D plans, plans made with hipfftCreate + hipfftMakePlan1d, streams."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h, hipfft

from gpu_util import require_library

pytestmark = pytest.mark.gpu

F = hipfft
T = hipfft.hipfftType_t


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hipfft)


def close(got, ref, tol):
    np.testing.assert_allclose(got, ref, rtol=0, atol=tol * max(1.0, float(np.abs(ref).max())))


def complex_input(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def test_c2c_forward_and_inverse(mem, rng):
    n, batch = 1024, 3
    x = complex_input(rng, (batch, n))
    plan = hip.check(F.hipfftPlan1d(n, T.HIPFFT_C2C, batch))
    try:
        dx, dy, dz = mem.put(x), mem.alloc(x.nbytes), mem.alloc(x.nbytes)
        hip.check(F.hipfftExecC2C(plan, dx, dy, F.HIPFFT_FORWARD))
        hip.check(h.hipDeviceSynchronize())
        y = mem.get(dy, (batch, n), np.complex64)
        close(y, np.fft.fft(x, axis=-1), 1e-5)
        hip.check(F.hipfftExecC2C(plan, dy, dz, F.HIPFFT_BACKWARD))   # unnormalized: n * x
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(dz, (batch, n), np.complex64) / n, x, 1e-4)
    finally:
        hip.check(F.hipfftDestroy(plan))


def test_c2c_in_place(mem, rng):
    n = 4096
    x = complex_input(rng, n)
    plan = hip.check(F.hipfftPlan1d(n, T.HIPFFT_C2C, 1))
    try:
        d = mem.put(x)
        hip.check(F.hipfftExecC2C(plan, d, d, F.HIPFFT_FORWARD))
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(d, n, np.complex64), np.fft.fft(x), 1e-5)
    finally:
        hip.check(F.hipfftDestroy(plan))


def test_r2c_and_c2r(mem, rng):
    n, batch = 1000, 2                                   # not a power of two
    x = rng.standard_normal((batch, n)).astype(np.float32)
    m = n // 2 + 1
    r2c = hip.check(F.hipfftPlan1d(n, T.HIPFFT_R2C, batch))
    c2r = hip.check(F.hipfftPlan1d(n, T.HIPFFT_C2R, batch))
    try:
        dx, dy, dz = mem.put(x), mem.alloc(batch * m * 8), mem.alloc(x.nbytes)
        hip.check(F.hipfftExecR2C(r2c, dx, dy))
        hip.check(h.hipDeviceSynchronize())
        y = mem.get(dy, (batch, m), np.complex64)
        close(y, np.fft.rfft(x, axis=-1), 1e-5)
        hip.check(F.hipfftExecC2R(c2r, dy, dz))          # may overwrite its input
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(dz, (batch, n), np.float32) / n, x, 1e-4)
    finally:
        hip.check(F.hipfftDestroy(r2c))
        hip.check(F.hipfftDestroy(c2r))


def test_z2z_and_d2z_double(mem, rng):
    n = 512
    x = complex_input(rng, n, np.complex128)
    plan = hip.check(F.hipfftPlan1d(n, T.HIPFFT_Z2Z, 1))
    rplan = hip.check(F.hipfftPlan1d(n, T.HIPFFT_D2Z, 1))
    try:
        dx, dy = mem.put(x), mem.alloc(x.nbytes)
        hip.check(F.hipfftExecZ2Z(plan, dx, dy, F.HIPFFT_FORWARD))
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(dy, n, np.complex128), np.fft.fft(x), 1e-12)
        r = x.real.copy()
        dr, dout = mem.put(r), mem.alloc((n // 2 + 1) * 16)
        hip.check(F.hipfftExecD2Z(rplan, dr, dout))
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(dout, n // 2 + 1, np.complex128), np.fft.rfft(r), 1e-12)
    finally:
        hip.check(F.hipfftDestroy(plan))
        hip.check(F.hipfftDestroy(rplan))


def test_c2c_2d(mem, rng):
    nx, ny = 64, 48                                      # row-major, y fastest
    x = complex_input(rng, (nx, ny))
    plan = hip.check(F.hipfftPlan2d(nx, ny, T.HIPFFT_C2C))
    try:
        dx, dy = mem.put(x), mem.alloc(x.nbytes)
        hip.check(F.hipfftExecC2C(plan, dx, dy, F.HIPFFT_FORWARD))
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(dy, (nx, ny), np.complex64), np.fft.fft2(x), 1e-5)
    finally:
        hip.check(F.hipfftDestroy(plan))


def test_create_then_make_plan_on_a_stream(mem, rng, stream):
    n, batch = 256, 4
    plan = hip.check(F.hipfftCreate())
    try:
        work = hip.check(F.hipfftMakePlan1d(plan, n, T.HIPFFT_C2C, batch))
        assert work >= 0
        hip.check(F.hipfftSetStream(plan, stream))
        x = complex_input(rng, (batch, n))
        dx, dy = mem.put(x), mem.alloc(x.nbytes)
        hip.check(F.hipfftExecC2C(plan, dx, dy, F.HIPFFT_FORWARD))
        hip.check(h.hipStreamSynchronize(stream))
        close(mem.get(dy, (batch, n), np.complex64), np.fft.fft(x, axis=-1), 1e-5)
        assert hip.check(F.hipfftGetSize(plan)) == work
    finally:
        hip.check(F.hipfftDestroy(plan))


def test_invalid_size():
    err, _ = F.hipfftPlan1d(0, T.HIPFFT_C2C, 1)
    assert err != F.hipfftResult_t.HIPFFT_SUCCESS


def test_version():
    """hipfftGetVersion writes into the caller's int (AMD's HIP Python convention)."""
    version = np.full(1, -1, np.int32)
    assert F.hipfftGetVersion(version) == (F.hipfftResult_t.HIPFFT_SUCCESS,)
    assert version[0] > 0
    major = ctypes.c_int(-1)
    hip.check(F.hipfftGetProperty(F.hipfftLibraryPropertyType_t.HIPFFT_MAJOR_VERSION, major))
    assert major.value >= 0


def test_plan_many_batched_2d(mem, rng):
    """hipfftPlanMany with the dimensions as a list (inembed/onembed None: contiguous)."""
    batch, nx, ny = 3, 16, 8
    x = complex_input(rng, (batch, nx, ny))
    plan = hip.check(F.hipfftPlanMany(2, [nx, ny], None, 1, 0, None, 1, 0, T.HIPFFT_C2C, batch))
    try:
        dx, dy = mem.put(x), mem.alloc(x.nbytes)
        hip.check(F.hipfftExecC2C(plan, dx, dy, F.HIPFFT_FORWARD))
        hip.check(h.hipDeviceSynchronize())
        close(mem.get(dy, (batch, nx, ny), np.complex64), np.fft.fft2(x), 1e-5)
    finally:
        hip.check(F.hipfftDestroy(plan))


def test_out_of_range_fft_type_is_refused():
    with pytest.raises((TypeError, ValueError)):
        F.hipfftPlan1d(8, 0x7777, 1)
