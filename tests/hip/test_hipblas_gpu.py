"""hipBLAS against NumPy: gemm (column-major!), axpy, dot, nrm2, iamax, scal, vector helpers,
handle, stream, pointer and math modes, argument errors.

As in AMD's HIP Python, only hipblasCreate returns what it makes: results (hipblasSdot's,
hipblasIsamax's index), modes and streams are written into memory the caller passes."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h, hipblas

from gpu_util import require_library

pytestmark = pytest.mark.gpu

B = hipblas
OP_N = B.hipblasOperation_t.HIPBLAS_OP_N
OP_T = B.hipblasOperation_t.HIPBLAS_OP_T


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hipblas)


@pytest.fixture(scope="module")
def handle():
    hd = hip.check(B.hipblasCreate())
    assert int(hd) != 0
    yield hd
    hip.check(B.hipblasDestroy(hd))


def get_stream(handle) -> int:
    """hipblasGetStream into the caller's hipStream_t (0: the null stream)."""
    sid = ctypes.c_void_p()
    assert B.hipblasGetStream(handle, ctypes.addressof(sid)) == (B.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS,)
    return sid.value or 0


def pointer_mode(handle):
    mode = ctypes.c_int(-1)
    hip.check(B.hipblasGetPointerMode(handle, mode))
    return B.hipblasPointerMode_t(mode.value)


def colmajor(a: np.ndarray) -> np.ndarray:
    """The column-major storage of matrix `a` as a flat array."""
    return a.ravel(order="F")


def from_colmajor(flat: np.ndarray, rows: int, cols: int) -> np.ndarray:
    return flat.reshape((rows, cols), order="F")


@pytest.mark.parametrize("dtype,fn,tol", [(np.float32, "hipblasSgemm", 1e-4), (np.float64, "hipblasDgemm", 1e-12)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm(handle, mem, rng, dtype, fn, tol, ta, tb):
    m, n, k = 67, 45, 33
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)   # stored as op(A)'s source
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    c = rng.standard_normal((m, n)).astype(dtype)
    alpha, beta = 1.5, -0.5
    da, db, dc = mem.put(colmajor(a)), mem.put(colmajor(b)), mem.put(colmajor(c))
    hip.check(getattr(B, fn)(handle, OP_T if ta else OP_N, OP_T if tb else OP_N, m, n, k,
                             alpha, da, a.shape[0], db, b.shape[0], beta, dc, m))
    got = from_colmajor(mem.get(dc, m * n, dtype), m, n)
    ref = alpha * (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64) + beta * c
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_sgemm_row_major_trick(handle, mem, rng):
    """Row-major C = A @ B is column-major C^T = B^T A^T: swap the operands, keep the buffers."""
    m, n, k = 20, 30, 40
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    da, db, dc = mem.put(a), mem.put(b), mem.alloc(m * n * 4)
    hip.check(B.hipblasSgemm(handle, OP_N, OP_N, n, m, k, 1.0, db, n, da, k, 0.0, dc, n))
    np.testing.assert_allclose(mem.get(dc, (m, n), np.float32), a @ b, rtol=1e-4, atol=1e-4)


def test_sgemm_on_a_stream(handle, mem, rng, stream):
    hip.check(B.hipblasSetStream(handle, stream))
    try:
        assert get_stream(handle) == int(stream)
        n = 128
        a = rng.standard_normal((n, n)).astype(np.float32)
        da, dc = mem.put(colmajor(a)), mem.alloc(n * n * 4)
        hip.check(B.hipblasSgemm(handle, OP_N, OP_T, n, n, n, 1.0, da, n, da, n, 0.0, dc, n))
        hip.check(h.hipStreamSynchronize(stream))
        np.testing.assert_allclose(from_colmajor(mem.get(dc, n * n, np.float32), n, n), a @ a.T, rtol=1e-4, atol=1e-3)
    finally:
        hip.check(B.hipblasSetStream(handle, None))
    assert get_stream(handle) == 0


def test_saxpy(handle, mem, rng):
    n = 10_001
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(B.hipblasSaxpy(handle, n, 3.0, dx, 1, dy, 1))
    np.testing.assert_allclose(mem.get(dy, n, np.float32), 3.0 * x + y, rtol=1e-6, atol=1e-6)
    # strided: every other element
    dy2 = mem.put(y)
    hip.check(B.hipblasSaxpy(handle, n // 2, -1.0, dx, 2, dy2, 2))
    expect = y.copy()
    expect[0:2 * (n // 2):2] -= x[0:2 * (n // 2):2]
    np.testing.assert_allclose(mem.get(dy2, n, np.float32), expect, rtol=1e-6, atol=1e-6)


def test_sdot_result_to_host(handle, mem, rng):
    n = 4096
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    assert pointer_mode(handle) == B.hipblasPointerMode_t.HIPBLAS_POINTER_MODE_HOST
    want = float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    dx, dy = mem.put(x), mem.put(y)
    r = np.full(1, np.nan, np.float32)                        # the caller's storage: a NumPy array
    assert B.hipblasSdot(handle, n, dx, 1, dy, 1, r) == (B.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS,)
    assert float(r[0]) == pytest.approx(want, rel=1e-4, abs=1e-3)
    c = ctypes.c_float(float("nan"))                          # or a ctypes value
    hip.check(B.hipblasSdot(handle, n, dx, 1, dy, 1, c))
    assert c.value == pytest.approx(float(r[0]), rel=1e-6)


def test_ddot_nrm2_iamax_scal(handle, mem, rng):
    n = 999
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    dx, dy = mem.put(x), mem.put(y)
    dot = np.full(1, np.nan)
    hip.check(B.hipblasDdot(handle, n, dx, 1, dy, 1, dot))
    assert float(dot[0]) == pytest.approx(float(x @ y), rel=1e-12)
    xs = x.astype(np.float32)
    dxs = mem.put(xs)
    nrm = ctypes.c_float(-1.0)
    hip.check(B.hipblasSnrm2(handle, n, dxs, 1, nrm))
    assert nrm.value == pytest.approx(float(np.linalg.norm(x)), rel=1e-5)
    index = np.zeros(1, np.int32)
    hip.check(B.hipblasIsamax(handle, n, dxs, 1, index))
    assert int(index[0]) == int(np.argmax(np.abs(xs))) + 1   # 1-based
    hip.check(B.hipblasSscal(handle, n, 0.5, dxs, 1))
    np.testing.assert_array_equal(mem.get(dxs, n, np.float32), xs * np.float32(0.5))


def test_set_get_vector(mem):
    n = 100
    x = np.arange(n, dtype=np.float32)
    d = mem.alloc(n * 4)
    hip.check(B.hipblasSetVector(n, 4, x, 1, d, 1))
    out = np.zeros(n, np.float32)
    hip.check(B.hipblasGetVector(n, 4, d, 1, out, 1))
    np.testing.assert_array_equal(out, x)
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    dm = mem.alloc(a.nbytes)
    hip.check(B.hipblasSetMatrix(3, 4, 8, colmajor(a), 3, dm, 3))
    back = np.zeros(12)
    hip.check(B.hipblasGetMatrix(3, 4, 8, dm, 3, back, 3))
    np.testing.assert_array_equal(from_colmajor(back, 3, 4), a)


def test_math_mode_default(handle):
    mode = np.full(1, -1, np.int32)
    hip.check(B.hipblasGetMathMode(handle, mode))
    assert B.hipblasMath_t(int(mode[0])) == B.hipblasMath_t.HIPBLAS_DEFAULT_MATH, mode


def test_invalid_argument_status(handle, mem):
    d = mem.alloc(16)
    err, = B.hipblasSgemm(handle, OP_N, OP_N, -1, 1, 1, 1.0, d, 1, d, 1, 0.0, d, 1)
    assert err == B.hipblasStatus_t.HIPBLAS_STATUS_INVALID_VALUE, err
    with pytest.raises(hip.HipError) as e:
        hip.check(B.hipblasSgemm(handle, OP_N, OP_N, 2, 2, 2, 1.0, d, 1, d, 2, 0.0, d, 2))   # lda < m
    assert e.value.code == B.hipblasStatus_t.HIPBLAS_STATUS_INVALID_VALUE


def test_create_destroy_many():
    handles = [hip.check(B.hipblasCreate()) for _ in range(4)]
    assert len({int(x) for x in handles}) == 4
    for x in handles:
        hip.check(B.hipblasDestroy(x))


@pytest.mark.parametrize("alpha", [2.5, np.float32(0.25), np.float64(1.5), np.int64(4)], ids=repr)
def test_alpha_accepts_python_and_numpy_numbers(handle, mem, alpha):
    x = np.array([7.0, -1.0], np.float32)
    y = np.array([1.0, 2.0], np.float32)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(B.hipblasSaxpy(handle, 2, alpha, dx, 1, dy, 1))
    np.testing.assert_array_equal(mem.get(dy, 2, np.float32), np.float32(alpha) * x + y)


def test_alpha_int_is_an_address(handle, mem):
    """AMD's HIP Python passes `ctypes.addressof(alpha)`: an int for a pointer is an address."""
    alpha = ctypes.c_float(3.0)
    x = np.array([7.0, -1.0], np.float32)
    y = np.array([1.0, 2.0], np.float32)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(B.hipblasSaxpy(handle, 2, ctypes.addressof(alpha), dx, 1, dy, 1))
    np.testing.assert_array_equal(mem.get(dy, 2, np.float32), np.float32(3.0) * x + y)
    hip.check(B.hipblasSaxpy(handle, 2, alpha, dx, 1, dy, 1))   # the ctypes value by its storage
    np.testing.assert_array_equal(mem.get(dy, 2, np.float32), np.float32(6.0) * x + y)


@pytest.mark.parametrize("bad", [True, 1j, "2", None], ids=repr)
def test_alpha_refuses_what_is_not_a_real_number(handle, mem, bad):
    d = mem.alloc(8)
    with pytest.raises(TypeError):
        B.hipblasSaxpy(handle, 2, bad, d, 1, d, 1)


@pytest.mark.parametrize("fn,dtype", [("hipblasCaxpy", np.complex64), ("hipblasZaxpy", np.complex128),
                                      ("hipblasCaxpy_v2", np.complex64), ("hipblasZaxpy_v2", np.complex128)])
@pytest.mark.parametrize("alpha", [1 + 2j, 3.0, -0.5, np.complex64(1 - 1j)], ids=repr)
def test_complex_alpha(handle, mem, rng, fn, dtype, alpha):
    n = 33
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(getattr(B, fn)(handle, n, alpha, dx, 1, dy, 1))
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(mem.get(dy, n, dtype), complex(alpha) * x + y, rtol=tol, atol=tol)


def test_complex_result_is_a_struct(handle, mem, rng):
    """hipblasCdotc writes its result into the caller's hipblasComplex (x, y) in host memory."""
    n = 50
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    dx, dy = mem.put(x), mem.put(y)
    r = B.hipblasComplex()
    assert B.hipblasCdotc(handle, n, dx, 1, dy, 1, r) == (B.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS,)
    want = np.vdot(x.astype(np.complex128), y.astype(np.complex128))
    assert complex(r.x, r.y) == pytest.approx(want, rel=1e-4, abs=1e-4)
    c = np.zeros(1, np.complex64)                             # the same layout as a NumPy complex64
    hip.check(B.hipblasCdotc(handle, n, dx, 1, dy, 1, c))
    assert complex(c[0]) == pytest.approx(complex(r.x, r.y), rel=1e-6, abs=1e-6)


def test_device_pointer_mode(handle, mem, rng):
    """Device pointer mode: alpha is a device pointer, and results go to the device memory the
    caller passes (the GPU writes them after the call has returned)."""
    n = 64
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy, dalpha = mem.put(x), mem.put(y), mem.put(np.array([2.0], np.float32))
    ddot, dindex = mem.put(np.array([np.nan], np.float32)), mem.put(np.array([-1], np.int32))
    hip.check(B.hipblasSetPointerMode(handle, B.hipblasPointerMode_t.HIPBLAS_POINTER_MODE_DEVICE))
    try:
        assert pointer_mode(handle) == B.hipblasPointerMode_t.HIPBLAS_POINTER_MODE_DEVICE
        hip.check(B.hipblasSaxpy(handle, n, dalpha, dx, 1, dy, 1))
        hip.check(B.hipblasSdot(handle, n, dx, 1, dy, 1, ddot))
        hip.check(B.hipblasIsamax(handle, n, dx, 1, dindex))
    finally:
        hip.check(B.hipblasSetPointerMode(handle, B.hipblasPointerMode_t.HIPBLAS_POINTER_MODE_HOST))
    hip.check(h.hipDeviceSynchronize())
    y2 = (2.0 * x.astype(np.float64) + y)
    np.testing.assert_allclose(mem.get(dy, n, np.float32), 2.0 * x + y, rtol=1e-6, atol=1e-6)
    assert float(mem.get(ddot, 1, np.float32)[0]) == pytest.approx(float(x.astype(np.float64) @ y2), rel=1e-4, abs=1e-3)
    assert int(mem.get(dindex, 1, np.int32)[0]) == int(np.argmax(np.abs(x))) + 1
    index = np.zeros(1, np.int32)                             # host pointer mode again: host memory
    hip.check(B.hipblasIsamax(handle, n, dx, 1, index))
    assert int(index[0]) == int(np.argmax(np.abs(x))) + 1
