"""rocSOLVER against numpy.linalg: LU (getrf/getrs), Cholesky (potrf) and its info, on rocBLAS's
handle; column-major data. rocSOLVER runs on AMD GPUs only (no NVIDIA layer): elsewhere these skip."""
from __future__ import annotations

import numpy as np
import pytest

import hip
from hip import hip as h

from gpu_util import require_library

pytestmark = pytest.mark.gpu

rocblas = pytest.importorskip("hip.rocblas", reason="hip.rocblas is not built (no rocBLAS headers)")
rocsolver = pytest.importorskip("hip.rocsolver", reason="hip.rocsolver is not built (no rocSOLVER headers)")
S = rocsolver
OP_N = rocblas.rocblas_operation.rocblas_operation_none
LOWER = rocblas.rocblas_fill.rocblas_fill_lower
PRECISIONS = [pytest.param("s", np.float32, 1e-5, id="float32"), pytest.param("d", np.float64, 1e-13, id="float64")]


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(rocblas)
    require_library(rocsolver)


@pytest.fixture(scope="module")
def handle():
    hd = hip.check(rocblas.rocblas_create_handle())
    yield hd
    hip.check(rocblas.rocblas_destroy_handle(hd))


def colmajor(a):
    return a.ravel(order="F")


def fetch(mem, d, rows, cols, dtype):
    return mem.get(d, rows * cols, dtype).reshape((rows, cols), order="F")


def info_of(mem, d) -> int:
    hip.check(h.hipDeviceSynchronize())
    return int(mem.get(d, 1, np.int32)[0])


@pytest.mark.parametrize("p,dtype,tol", PRECISIONS)
def test_getrf_getrs(handle, mem, rng, p, dtype, tol):
    n, nrhs = 40, 3
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, nrhs)).astype(dtype)
    da, db = mem.put(colmajor(a)), mem.put(colmajor(b))
    ipiv, info = mem.alloc(n * 4), mem.put(np.array([-7], np.int32))
    hip.check(getattr(S, f"rocsolver_{p}getrf")(handle, n, n, da, n, ipiv, info))
    assert info_of(mem, info) == 0
    pivots = mem.get(ipiv, n, np.int32)
    assert pivots.min() >= 1 and pivots.max() <= n
    hip.check(getattr(S, f"rocsolver_{p}getrs")(handle, OP_N, n, nrhs, da, n, ipiv, db, n))
    x = fetch(mem, db, n, nrhs, dtype)
    np.testing.assert_allclose(x, np.linalg.solve(a.astype(np.float64), b), rtol=0,
                               atol=tol * 1e4 * np.abs(x).max())


def test_potrf_and_its_info(handle, mem, rng):
    n = 48
    g = rng.standard_normal((n, n))
    m = g @ g.T + n * np.eye(n)
    da, info = mem.put(colmajor(m)), mem.put(np.array([-7], np.int32))
    hip.check(S.rocsolver_dpotrf(handle, LOWER, n, da, n, info))
    assert info_of(mem, info) == 0
    np.testing.assert_allclose(np.tril(fetch(mem, da, n, n, np.float64)), np.linalg.cholesky(m), rtol=0, atol=1e-10)
    bad = np.eye(8)
    bad[2, 2] = -1.0                                            # the third leading minor is negative
    db = mem.put(colmajor(bad))
    hip.check(S.rocsolver_dpotrf(handle, LOWER, 8, db, 8, info))
    assert info_of(mem, info) == 3


def test_version_string():
    size = np.zeros(1, np.uint64)                               # the caller's size_t
    hip.check(S.rocsolver_get_version_string_size(size))
    buf = bytearray(int(size[0]))
    hip.check(S.rocsolver_get_version_string(buf, len(buf)))
    assert bytes(buf).split(b"\0")[0].count(b".") >= 2
