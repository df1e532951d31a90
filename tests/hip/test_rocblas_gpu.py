"""rocBLAS against NumPy: gemm (column-major), axpy, dot, iamax, complex alpha, the handle's
stream and pointer mode. rocBLAS runs on AMD GPUs only (no NVIDIA layer): elsewhere these skip.

As hipBLAS: only rocblas_create_handle returns what it makes; results (rocblas_sdot's,
rocblas_idamax's index), modes and streams are written into memory the caller passes."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h

from gpu_util import require_library

rocblas = pytest.importorskip("hip.rocblas", reason="hip.rocblas is not built (no rocBLAS headers)")

pytestmark = pytest.mark.gpu

R = rocblas
OP_N = R.rocblas_operation.rocblas_operation_none
OP_T = R.rocblas_operation.rocblas_operation_transpose
SUCCESS = R.rocblas_status.rocblas_status_success


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(rocblas)


@pytest.fixture(scope="module")
def handle():
    hd = hip.check(R.rocblas_create_handle())
    assert int(hd) != 0
    yield hd
    hip.check(R.rocblas_destroy_handle(hd))


def colmajor(a):
    return a.ravel(order="F")


@pytest.mark.parametrize("dtype,fn,tol", [(np.float32, "rocblas_sgemm", 1e-4), (np.float64, "rocblas_dgemm", 1e-12)])
@pytest.mark.parametrize("ta", ["N", "T"])
def test_gemm(handle, mem, rng, dtype, fn, tol, ta):
    m, n, k = 17, 9, 13
    a = rng.standard_normal((m, k) if ta == "N" else (k, m)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = rng.standard_normal((m, n)).astype(dtype)
    da, db, dc = mem.put(colmajor(a)), mem.put(colmajor(b)), mem.put(colmajor(c))
    lda = a.shape[0]
    assert getattr(R, fn)(handle, OP_N if ta == "N" else OP_T, OP_N, m, n, k, 1.5, da, lda, db, k, -0.5, dc, m) \
        == (SUCCESS,)
    got = mem.get(dc, m * n, dtype).reshape((m, n), order="F")
    op_a = a if ta == "N" else a.T
    np.testing.assert_allclose(got, 1.5 * op_a @ b - 0.5 * c, rtol=tol, atol=tol * 10)


def test_axpy_dot_iamax(handle, mem, rng):
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(R.rocblas_saxpy(handle, n, 2.0, dx, 1, dy, 1))
    want = 2.0 * x + y
    np.testing.assert_allclose(mem.get(dy, n, np.float32), want, rtol=1e-6, atol=1e-6)
    result = np.zeros(1, np.float32)                            # host memory: host pointer mode
    assert R.rocblas_sdot(handle, n, dx, 1, dy, 1, result) == (SUCCESS,)
    np.testing.assert_allclose(result[0], np.dot(x.astype(np.float64), want), rtol=1e-4)
    index = ctypes.c_int32(-1)                                  # a ctypes int as the storage
    hip.check(R.rocblas_isamax(handle, n, dy, 1, index))
    assert index.value == int(np.argmax(np.abs(want))) + 1      # 1-based, as BLAS


def test_zaxpy_complex_alpha(handle, mem, rng):
    n = 64
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex128)
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex128)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(R.rocblas_zaxpy(handle, n, 0.5 - 2j, dx, 1, dy, 1))
    np.testing.assert_allclose(mem.get(dy, n, np.complex128), (0.5 - 2j) * x + y, rtol=1e-13, atol=1e-13)


def test_stream_and_pointer_mode(handle, stream):
    hip.check(R.rocblas_set_stream(handle, stream))
    try:
        sid = ctypes.c_void_p()
        hip.check(R.rocblas_get_stream(handle, ctypes.addressof(sid)))
        assert sid.value == int(stream)
    finally:
        hip.check(R.rocblas_set_stream(handle, None))
    mode = ctypes.c_int(-1)
    hip.check(R.rocblas_get_pointer_mode(handle, mode))
    assert R.rocblas_pointer_mode(mode.value) == R.rocblas_pointer_mode.rocblas_pointer_mode_host


def test_bad_size_is_a_status(handle):
    """rocBLAS checks sizes before pointers: a negative m is rocblas_status_invalid_size, no crash."""
    r = R.rocblas_sgemm(handle, OP_N, OP_N, -1, 1, 1, 1.0, None, 1, None, 1, 0.0, None, 1)
    assert r == (R.rocblas_status.rocblas_status_invalid_size,)
