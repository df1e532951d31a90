"""hipSPARSE generic API: CSR and COO SpMV (hipsparseCreateCsr/Coo, hipsparseCreateDnVec,
hipsparseSpMV_bufferSize, hipsparseSpMV) against a dense NumPy product (and SciPy, if present).

As in AMD's HIP Python, hipsparseCreate returns the handle it makes, while the descriptors
(typedef void*: hipsparseCreateCsr(spMatDescr, ...)), buffer sizes, versions and modes are written
into storage the caller passes: here a ctypes.c_void_p by its address, NumPy arrays, ctypes values."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h, hipsparse

from gpu_util import require_library

pytestmark = pytest.mark.gpu

S = hipsparse
OP = S.hipsparseOperation_t
I32 = S.hipsparseIndexType_t.HIPSPARSE_INDEX_32I
BASE0 = S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
ALG = S.hipsparseSpMVAlg_t.HIPSPARSE_SPMV_ALG_DEFAULT
TYPES = {np.float32: (h.hipDataType.HIP_R_32F, 1e-5), np.float64: (h.hipDataType.HIP_R_64F, 1e-12)}
SUCCESS = S.hipsparseStatus_t.HIPSPARSE_STATUS_SUCCESS
HOST_MODE = S.hipsparsePointerMode_t.HIPSPARSE_POINTER_MODE_HOST
DEVICE_MODE = S.hipsparsePointerMode_t.HIPSPARSE_POINTER_MODE_DEVICE


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hipsparse)


@pytest.fixture(scope="module")
def handle():
    hd = hip.check(S.hipsparseCreate())
    yield hd
    hip.check(S.hipsparseDestroy(hd))


def created(create, *args) -> int:
    """A descriptor: `create` writes it into the caller's void* (passed by its address)."""
    descr = ctypes.c_void_p()
    assert create(ctypes.addressof(descr), *args) == (SUCCESS,)
    assert descr.value, f"{create.__name__} left the descriptor NULL"
    return descr.value


def pointer_mode(handle):
    mode = np.full(1, -1, np.int32)
    hip.check(S.hipsparseGetPointerMode(handle, mode))
    return S.hipsparsePointerMode_t(int(mode[0]))


def random_sparse(rng, m, n, density, dtype):
    a = rng.standard_normal((m, n)) * (rng.random((m, n)) < density)
    a[3, :] = 0                                               # an empty row
    return a.astype(dtype)


def csr_of(a):
    rows, cols = np.nonzero(a)                                # row-major order: sorted by row, then column
    ptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=a.shape[0]))]).astype(np.int32)
    return ptr, cols.astype(np.int32), a[rows, cols], rows.astype(np.int32)


def spmv(handle, mem, mat, op, alpha, x, beta, y0, dtype):
    vt = TYPES[dtype][0]
    dx, dy = mem.put(x), mem.put(y0)
    vx = created(S.hipsparseCreateDnVec, x.size, dx, vt)
    vy = created(S.hipsparseCreateDnVec, y0.size, dy, vt)
    try:
        a = np.array([alpha], dtype)                          # host pointer mode: host scalars
        b = np.array([beta], dtype)
        size = np.full(1, np.iinfo(np.uint64).max, np.uint64)  # the caller's size_t
        hip.check(S.hipsparseSpMV_bufferSize(handle, op, a, mat, vx, b, vy, vt, ALG, size))
        size = int(size[0])
        assert 0 <= size < 1 << 40, size
        buf = mem.alloc(max(size, 1))
        hip.check(S.hipsparseSpMV(handle, op, a, mat, vx, b, vy, vt, ALG, buf))
        hip.check(h.hipDeviceSynchronize())
        return mem.get(dy, y0.size, dtype)
    finally:
        hip.check(S.hipsparseDestroyDnVec(vx))
        hip.check(S.hipsparseDestroyDnVec(vy))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["HIPSPARSE_OPERATION_NON_TRANSPOSE", "HIPSPARSE_OPERATION_TRANSPOSE"])
def test_csr_spmv(handle, mem, rng, dtype, op):
    m, n = 57, 43
    a = random_sparse(rng, m, n, 0.2, dtype)
    ptr, col, val, _ = csr_of(a)
    try:
        import scipy.sparse
    except ImportError:
        pass
    else:
        np.testing.assert_array_equal(scipy.sparse.csr_matrix((val, col, ptr), shape=(m, n)).toarray(), a)
    transpose = op == "HIPSPARSE_OPERATION_TRANSPOSE"
    x = rng.standard_normal(m if transpose else n).astype(dtype)
    y0 = rng.standard_normal(n if transpose else m).astype(dtype)
    mat = created(S.hipsparseCreateCsr, m, n, val.size, mem.put(ptr), mem.put(col), mem.put(val),
                  I32, I32, BASE0, TYPES[dtype][0])
    try:
        y = spmv(handle, mem, mat, getattr(OP, op), 2.0, x, 0.5, y0, dtype)
    finally:
        hip.check(S.hipsparseDestroySpMat(mat))
    ref = 2.0 * (a.T if transpose else a).astype(np.float64) @ x + 0.5 * y0
    tol = TYPES[dtype][1]
    np.testing.assert_allclose(y, ref, rtol=tol * 10, atol=tol * 10 * np.abs(ref).max())


def test_coo_spmv(handle, mem, rng):
    m, n = 40, 60
    a = random_sparse(rng, m, n, 0.1, np.float32)
    _, col, val, row = csr_of(a)
    x = rng.standard_normal(n).astype(np.float32)
    mat = created(S.hipsparseCreateCoo, m, n, val.size, mem.put(row), mem.put(col), mem.put(val),
                  I32, BASE0, h.hipDataType.HIP_R_32F)
    try:
        y = spmv(handle, mem, mat, OP.HIPSPARSE_OPERATION_NON_TRANSPOSE, 1.0, x, 0.0, np.zeros(m, np.float32),
                 np.float32)
    finally:
        hip.check(S.hipsparseDestroySpMat(mat))
    ref = a.astype(np.float64) @ x
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_spmv_on_a_stream(handle, mem, rng, stream):
    m = n = 500
    a = random_sparse(rng, m, n, 0.01, np.float32)
    ptr, col, val, _ = csr_of(a)
    x = rng.standard_normal(n).astype(np.float32)
    hip.check(S.hipsparseSetStream(handle, stream))
    try:
        mat = created(S.hipsparseCreateCsr, m, n, val.size, mem.put(ptr), mem.put(col), mem.put(val),
                      I32, I32, BASE0, h.hipDataType.HIP_R_32F)
        try:
            y = spmv(handle, mem, mat, OP.HIPSPARSE_OPERATION_NON_TRANSPOSE, 1.0, x, 0.0, np.zeros(m, np.float32),
                     np.float32)
        finally:
            hip.check(S.hipsparseDestroySpMat(mat))
    finally:
        hip.check(S.hipsparseSetStream(handle, None))
    ref = a.astype(np.float64) @ x
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_dn_vec_values(mem):
    d = mem.alloc(64)
    v = created(S.hipsparseCreateDnVec, 16, d, h.hipDataType.HIP_R_32F)
    try:
        values = ctypes.c_void_p()
        assert S.hipsparseDnVecGetValues(v, ctypes.addressof(values)) == (SUCCESS,)
        assert values.value == int(d)
    finally:
        hip.check(S.hipsparseDestroyDnVec(v))


def test_version(handle):
    version = ctypes.c_int(-1)
    assert S.hipsparseGetVersion(handle, version) == (SUCCESS,)
    assert version.value > 0


def test_device_pointer_mode_results_in_device_memory(handle, mem, rng):
    """SpVV's result follows the pointer mode: host memory in host mode, device memory in device
    mode; the caller passes it either way (in device mode the GPU writes it after the call)."""
    n, nnz = 100, 7
    idx = np.sort(rng.choice(n, nnz, replace=False)).astype(np.int32)
    val = rng.standard_normal(nnz).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    want = float(val.astype(np.float64) @ y[idx].astype(np.float64))
    R32F = h.hipDataType.HIP_R_32F
    op = OP.HIPSPARSE_OPERATION_NON_TRANSPOSE
    assert pointer_mode(handle) == HOST_MODE
    vx = created(S.hipsparseCreateSpVec, n, nnz, mem.put(idx), mem.put(val), I32, BASE0, R32F)
    vy = created(S.hipsparseCreateDnVec, n, mem.put(y), R32F)
    try:
        host = np.full(1, np.nan, np.float32)
        size = ctypes.c_size_t(1 << 62)
        hip.check(S.hipsparseSpVV_bufferSize(handle, op, vx, vy, host, R32F, size))
        assert size.value < 1 << 40, size
        buf = mem.alloc(max(size.value, 1))
        hip.check(S.hipsparseSpVV(handle, op, vx, vy, host, R32F, buf))
        hip.check(h.hipDeviceSynchronize())
        assert float(host[0]) == pytest.approx(want, rel=1e-5, abs=1e-5)
        dres = mem.put(np.array([np.nan], np.float32))
        hip.check(S.hipsparseSetPointerMode(handle, DEVICE_MODE))
        try:
            assert pointer_mode(handle) == DEVICE_MODE
            hip.check(S.hipsparseSpVV(handle, op, vx, vy, dres, R32F, buf))
        finally:
            hip.check(S.hipsparseSetPointerMode(handle, HOST_MODE))
        assert pointer_mode(handle) == HOST_MODE
        hip.check(h.hipDeviceSynchronize())
        assert float(mem.get(dres, 1, np.float32)[0]) == pytest.approx(want, rel=1e-5, abs=1e-5)
    finally:
        hip.check(S.hipsparseDestroySpVec(vx))
        hip.check(S.hipsparseDestroyDnVec(vy))
