"""hipSOLVER against numpy.linalg: LU (getrf/getrs) and Cholesky (potrf/potrs), through the
hipsolver API (explicit lwork) and the hipsolverDn API (cuSOLVER's shapes); column-major data.

As in AMD's HIP Python, only hipsolverCreate/hipsolverDnCreate return what they make: workspace
sizes and streams are written into memory the caller passes."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h, hipsolver

from gpu_util import require_library

pytestmark = pytest.mark.gpu

S = hipsolver
# hipsolver's own enum classes (hipsolverOperation_t/hipsolverFillMode_t are the same ones);
# hipblas.hipblasOperation_t is a different class, which hipsolver refuses with a TypeError.
OP_N = S.hipblasOperation_t.HIPBLAS_OP_N
OP_T = S.hipblasOperation_t.HIPBLAS_OP_T
LOWER = S.hipblasFillMode_t.HIPBLAS_FILL_MODE_LOWER
UPPER = S.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER
PRECISIONS = [pytest.param("S", np.float32, 1e-5, id="float32"), pytest.param("D", np.float64, 1e-13, id="float64")]


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hipsolver)


@pytest.fixture(scope="module")
def handle():
    hd = hip.check(S.hipsolverCreate())
    yield hd
    hip.check(S.hipsolverDestroy(hd))


@pytest.fixture(scope="module")
def dn_handle():
    hd = hip.check(S.hipsolverDnCreate())
    yield hd
    hip.check(S.hipsolverDnDestroy(hd))


def buffer_size(fn, *args) -> int:
    """A *_bufferSize call: the workspace size (in elements) lands in the caller's int."""
    lwork = np.full(1, -1, np.int32)
    assert fn(*args, lwork) == (S.hipsolverStatus_t.HIPSOLVER_STATUS_SUCCESS,)
    assert lwork[0] >= 0, lwork                               # -1: the call did not write it
    return int(lwork[0])


def colmajor(a):
    return a.ravel(order="F")


def fetch(mem, d, rows, cols, dtype):
    return mem.get(d, rows * cols, dtype).reshape((rows, cols), order="F")


def info_of(mem, d) -> int:
    hip.check(h.hipDeviceSynchronize())
    return int(mem.get(d, 1, np.int32)[0])


def check_lu(a, lu, ipiv, tol):
    """LAPACK's getrf: L*U equals A with the rows swapped as ipiv (1-based) says, in order."""
    n = a.shape[0]
    assert ipiv.min() >= 1 and ipiv.max() <= n, ipiv
    pa = a.astype(np.float64)
    for i, j in enumerate(ipiv - 1):
        pa[[i, j]] = pa[[j, i]]
    lower = np.tril(lu, -1) + np.eye(n)
    upper = np.triu(lu)
    np.testing.assert_allclose(lower @ upper, pa, rtol=0, atol=tol * 10 * np.abs(a).max() * n)


def check_solution(a, x, b, tol):
    a64 = a.astype(np.float64)
    resid = np.abs(a64 @ x - b).max() / (np.abs(a64).max() * max(np.abs(x).max(), 1.0) * a.shape[0])
    assert resid < tol * 10, resid


@pytest.mark.parametrize("p,dtype,tol", PRECISIONS)
def test_getrf_getrs(handle, mem, rng, p, dtype, tol):
    n, nrhs = 40, 3
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, nrhs)).astype(dtype)
    item = np.dtype(dtype).itemsize
    da = mem.put(colmajor(a))
    ipiv = mem.alloc(n * 4)
    info = mem.put(np.array([-7], np.int32))
    lwork = buffer_size(getattr(S, f"hipsolver{p}getrf_bufferSize"), handle, n, n, da, n)
    assert lwork >= 0
    work = mem.alloc(max(lwork, 1) * item)                      # lwork counts elements
    hip.check(getattr(S, f"hipsolver{p}getrf")(handle, n, n, da, n, work, lwork, ipiv, info))
    assert info_of(mem, info) == 0
    check_lu(a, fetch(mem, da, n, n, dtype), mem.get(ipiv, n, np.int32), tol)
    for trans, matrix in ((OP_N, a), (OP_T, a.T)):
        dbx = mem.put(colmajor(b))
        lwork = buffer_size(getattr(S, f"hipsolver{p}getrs_bufferSize"), handle, trans, n, nrhs, da, n, ipiv, dbx, n)
        work = mem.alloc(max(lwork, 1) * item)
        hip.check(getattr(S, f"hipsolver{p}getrs")(handle, trans, n, nrhs, da, n, ipiv, dbx, n, work, lwork, info))
        assert info_of(mem, info) == 0
        x = fetch(mem, dbx, n, nrhs, dtype)
        check_solution(matrix, x, b, tol)
        np.testing.assert_allclose(x, np.linalg.solve(matrix.astype(np.float64), b), rtol=0,
                                   atol=tol * 1e4 * np.abs(x).max())


@pytest.mark.parametrize("p,dtype,tol", PRECISIONS)
def test_dn_getrf_getrs(dn_handle, mem, rng, p, dtype, tol):
    n, nrhs = 33, 2
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, nrhs)).astype(dtype)
    da, db = mem.put(colmajor(a)), mem.put(colmajor(b))
    ipiv, info = mem.alloc(n * 4), mem.put(np.array([-7], np.int32))
    lwork = buffer_size(getattr(S, f"hipsolverDn{p}getrf_bufferSize"), dn_handle, n, n, da, n)
    work = mem.alloc(max(lwork, 1) * np.dtype(dtype).itemsize)
    hip.check(getattr(S, f"hipsolverDn{p}getrf")(dn_handle, n, n, da, n, work, ipiv, info))
    assert info_of(mem, info) == 0
    check_lu(a, fetch(mem, da, n, n, dtype), mem.get(ipiv, n, np.int32), tol)
    hip.check(getattr(S, f"hipsolverDn{p}getrs")(dn_handle, OP_N, n, nrhs, da, n, ipiv, db, n, info))
    assert info_of(mem, info) == 0
    check_solution(a, fetch(mem, db, n, nrhs, dtype), b, tol)


def spd(rng, n, dtype):
    g = rng.standard_normal((n, n))
    return (g @ g.T + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("p,dtype,tol", PRECISIONS)
@pytest.mark.parametrize("uplo", ["lower", "upper"])
def test_potrf_potrs(handle, mem, rng, p, dtype, tol, uplo):
    n, nrhs = 48, 4
    m = spd(rng, n, dtype)
    b = rng.standard_normal((n, nrhs)).astype(dtype)
    fill = LOWER if uplo == "lower" else UPPER
    item = np.dtype(dtype).itemsize
    da, info = mem.put(colmajor(m)), mem.put(np.array([-7], np.int32))
    lwork = buffer_size(getattr(S, f"hipsolver{p}potrf_bufferSize"), handle, fill, n, da, n)
    work = mem.alloc(max(lwork, 1) * item)
    hip.check(getattr(S, f"hipsolver{p}potrf")(handle, fill, n, da, n, work, lwork, info))
    assert info_of(mem, info) == 0
    f = fetch(mem, da, n, n, dtype)
    ref = np.linalg.cholesky(m.astype(np.float64))                    # lower
    got = np.tril(f) if uplo == "lower" else np.triu(f).T
    np.testing.assert_allclose(got, ref, rtol=0, atol=tol * 100 * np.abs(ref).max())
    db = mem.put(colmajor(b))
    lwork = buffer_size(getattr(S, f"hipsolver{p}potrs_bufferSize"), handle, fill, n, nrhs, da, n, db, n)
    work = mem.alloc(max(lwork, 1) * item)
    hip.check(getattr(S, f"hipsolver{p}potrs")(handle, fill, n, nrhs, da, n, db, n, work, lwork, info))
    assert info_of(mem, info) == 0
    check_solution(m, fetch(mem, db, n, nrhs, dtype), b, tol)


def test_dn_potrf(dn_handle, mem, rng):
    n = 64
    m = spd(rng, n, np.float64)
    da, info = mem.put(colmajor(m)), mem.put(np.array([-7], np.int32))
    lwork = ctypes.c_int(-1)                                  # a ctypes int works as the storage too
    hip.check(S.hipsolverDnDpotrf_bufferSize(dn_handle, LOWER, n, da, n, lwork))
    lwork = lwork.value
    assert lwork >= 0
    work = mem.alloc(max(lwork, 1) * 8)
    hip.check(S.hipsolverDnDpotrf(dn_handle, LOWER, n, da, n, work, lwork, info))
    assert info_of(mem, info) == 0
    np.testing.assert_allclose(np.tril(fetch(mem, da, n, n, np.float64)), np.linalg.cholesky(m), rtol=0, atol=1e-10)


def test_potrf_not_positive_definite(handle, mem):
    n = 8
    m = np.eye(n)
    m[2, 2] = -1.0                                              # the third leading minor is negative
    da, info = mem.put(colmajor(m)), mem.put(np.array([-7], np.int32))
    lwork = buffer_size(S.hipsolverDpotrf_bufferSize, handle, LOWER, n, da, n)
    work = mem.alloc(max(lwork, 1) * 8)
    hip.check(S.hipsolverDpotrf(handle, LOWER, n, da, n, work, lwork, info))
    assert info_of(mem, info) == 3                              # 1-based order of the failing minor


def test_solver_on_a_stream(handle, mem, rng, stream):
    hip.check(S.hipsolverSetStream(handle, stream))
    try:
        sid = ctypes.c_void_p()
        hip.check(S.hipsolverGetStream(handle, ctypes.addressof(sid)))
        assert sid.value == int(stream)
        n = 32
        m = spd(rng, n, np.float32)
        da, info = mem.put(colmajor(m)), mem.put(np.array([-7], np.int32))
        lwork = buffer_size(S.hipsolverSpotrf_bufferSize, handle, LOWER, n, da, n)
        work = mem.alloc(max(lwork, 1) * 4)
        hip.check(S.hipsolverSpotrf(handle, LOWER, n, da, n, work, lwork, info))
        hip.check(h.hipStreamSynchronize(stream))
        assert int(mem.get(info, 1, np.int32)[0]) == 0
    finally:
        hip.check(S.hipsolverSetStream(handle, None))



def test_operation_from_either_module(handle, mem, rng):
    """hipsolver.h re-declares hipblasOperation_t: hipsolver's, hipblas's and the plain value all work,
    and another enum type is refused."""
    from hip import hipblas
    n = 8
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    b = rng.standard_normal((n, 1))
    da = mem.put(colmajor(a))
    ipiv, info = mem.alloc(n * 4), mem.put(np.array([-7], np.int32))
    lwork = buffer_size(S.hipsolverDgetrf_bufferSize, handle, n, n, da, n)
    work = mem.alloc(max(lwork, 1) * 8)
    hip.check(S.hipsolverDgetrf(handle, n, n, da, n, work, lwork, ipiv, info))
    for op in (S.hipblasOperation_t.HIPBLAS_OP_T, hipblas.hipblasOperation_t.HIPBLAS_OP_T, int(OP_T)):
        dbx = mem.put(colmajor(b))
        lwork = buffer_size(S.hipsolverDgetrs_bufferSize, handle, op, n, 1, da, n, ipiv, dbx, n)
        work = mem.alloc(max(lwork, 1) * 8)
        hip.check(S.hipsolverDgetrs(handle, op, n, 1, da, n, ipiv, dbx, n, work, lwork, info))
        np.testing.assert_allclose(fetch(mem, dbx, n, 1, np.float64), np.linalg.solve(a.T, b), rtol=1e-10)
    with pytest.raises(TypeError):
        S.hipsolverDgetrs(handle, hipblas.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER, n, 1, da, n, ipiv, da, n,
                          work, 0, info)
