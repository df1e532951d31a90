"""hipSPARSE for hip.tensor's sparse matrices: handles, descriptors, SpMV, SpMM, csr2csc, and the
few index kernels the formats need (CSR <-> COO row indices, CSR -> dense).

Handles: one per (device, stream), from `_libs.blas._Handles` (the one handle cache of the layer; see
there why per stream). Host pointer mode (hipSPARSE's default): alpha and beta are host scalars
read during the call. Work buffers come from the caching allocator on the call's stream, so they
may be reused by the next call on that stream at once (stream order keeps that safe).
The generic API's descriptors (typedef void*) are written into a ctypes.c_void_p passed by its
address, as in AMD's HIP Python; they only describe memory and are destroyed right after the call.
"""
from __future__ import annotations

import contextlib
import ctypes

import numpy as np

from hip.errors import HipError, check

from .._core import dtypes as _dt
from .._core.memory import alloc
from .._kernels.compiler import compile_module
from .._kernels.elementwise import _on_device, launch
from .blas import _Handles
from .loader import library

__all__: list[str] = []

SPARSE_DTYPES = ("float32", "float64", "complex64", "complex128")


class SparseError(HipError):
    """A hipSPARSE call failed: `.status` (its hipsparseStatus_t), `.library`, `.function`."""


def lib():
    return library("hipsparse")


_handles = None


def handle(stream):
    """The hipSPARSE handle bound to `stream` (a hip.tensor Stream)."""
    global _handles
    if _handles is None:
        _handles = _Handles(lib, "hipsparseCreate", "hipsparseSetStream", SparseError)
    return _handles.get(stream)


def data_type(d: _dt.DType):
    from hip import hip as h
    return h.hipDataType[{"float32": "HIP_R_32F", "float64": "HIP_R_64F",
                          "complex64": "HIP_C_32F", "complex128": "HIP_C_64F"}[d.name]]


@contextlib.contextmanager
def _descriptor(create: str, destroy: str, *args):
    S = lib()
    d = ctypes.c_void_p()
    check(getattr(S, create)(ctypes.addressof(d), *args), create, SparseError)
    try:
        yield d.value
    finally:
        check(getattr(S, destroy)(d.value), destroy, SparseError)


def sparse_descriptor(a):
    """A generic-API descriptor of csr_matrix/coo_matrix `a` (int32 indices, base 0)."""
    S = lib()
    i32 = S.hipsparseIndexType_t.HIPSPARSE_INDEX_32I
    base = S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
    m, n = a.shape
    if a.format == "csr":
        return _descriptor("hipsparseCreateCsr", "hipsparseDestroySpMat", m, n, a.nnz, a.indptr.ptr,
                           a.indices.ptr, a.data.ptr, i32, i32, base, data_type(a.dtype))
    return _descriptor("hipsparseCreateCoo", "hipsparseDestroySpMat", m, n, a.nnz, a.row.ptr, a.col.ptr,
                       a.data.ptr, i32, base, data_type(a.dtype))


def _scalars(d: _dt.DType):
    return np.ones(1, d.numpy), np.zeros(1, d.numpy)


def _buffer(size, stream):
    return alloc(max(int(size[0]), 1), stream)


def spmv(a, x, y, stream) -> None:
    """y = A x (A sparse m x n, x and y contiguous 1-D arrays of A's dtype) on `stream`."""
    S = lib()
    t = data_type(a.dtype)
    op = S.hipsparseOperation_t.HIPSPARSE_OPERATION_NON_TRANSPOSE
    alg = S.hipsparseSpMVAlg_t.HIPSPARSE_SPMV_ALG_DEFAULT
    one, zero = _scalars(a.dtype)
    h = handle(stream)
    with sparse_descriptor(a) as mat, \
            _descriptor("hipsparseCreateDnVec", "hipsparseDestroyDnVec", x.size, x.ptr, t) as vx, \
            _descriptor("hipsparseCreateDnVec", "hipsparseDestroyDnVec", y.size, y.ptr, t) as vy:
        size = np.zeros(1, np.uint64)                    # the caller's size_t
        check(S.hipsparseSpMV_bufferSize(h, op, one, mat, vx, zero, vy, t, alg, size), "hipsparseSpMV_bufferSize",
              SparseError)
        buf = _buffer(size, stream)
        check(S.hipsparseSpMV(h, op, one, mat, vx, zero, vy, t, alg, buf.ptr), "hipsparseSpMV", SparseError)


def spmm(a, b, c, stream) -> None:
    """C = A B (A sparse m x n; B n x k and C m x k C-contiguous, of A's dtype) on `stream`."""
    S = lib()
    t = data_type(a.dtype)
    op = S.hipsparseOperation_t.HIPSPARSE_OPERATION_NON_TRANSPOSE
    alg = S.hipsparseSpMMAlg_t.HIPSPARSE_SPMM_ALG_DEFAULT
    row = S.hipsparseOrder_t.HIPSPARSE_ORDER_ROW
    one, zero = _scalars(a.dtype)
    (n, k), m = b.shape, c.shape[0]
    h = handle(stream)
    with sparse_descriptor(a) as mat, \
            _descriptor("hipsparseCreateDnMat", "hipsparseDestroyDnMat", n, k, k, b.ptr, t, row) as mb, \
            _descriptor("hipsparseCreateDnMat", "hipsparseDestroyDnMat", m, k, k, c.ptr, t, row) as mc:
        size = np.zeros(1, np.uint64)
        check(S.hipsparseSpMM_bufferSize(h, op, op, one, mat, mb, zero, mc, t, alg, size),
              "hipsparseSpMM_bufferSize", SparseError)
        buf = _buffer(size, stream)
        check(S.hipsparseSpMM(h, op, op, one, mat, mb, zero, mc, t, alg, buf.ptr), "hipsparseSpMM", SparseError)


def csr2csc(a, indptr_t, indices_t, data_t, stream) -> None:
    """The CSC arrays of CSR matrix `a` (= the CSR arrays of its transpose) into the given arrays."""
    S = lib()
    m, n = a.shape
    t = data_type(a.dtype)
    numeric = S.hipsparseAction_t.HIPSPARSE_ACTION_NUMERIC
    base = S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
    alg = S.hipsparseCsr2CscAlg_t.HIPSPARSE_CSR2CSC_ALG1
    h = handle(stream)
    args = (h, m, n, a.nnz, a.data.ptr, a.indptr.ptr, a.indices.ptr, data_t.ptr, indptr_t.ptr, indices_t.ptr,
            t, numeric, base, alg)
    size = np.zeros(1, np.uint64)
    check(S.hipsparseCsr2cscEx2_bufferSize(*args, size), "hipsparseCsr2cscEx2_bufferSize", SparseError)
    buf = _buffer(size, stream)
    check(S.hipsparseCsr2cscEx2(*args, buf.ptr), "hipsparseCsr2cscEx2", SparseError)


# -- index kernels ----------------------------------------------------------------------------------
# Grid-stride loops; complex values are handled as pairs of their real type (comps = 2).
KERNELS = r"""
#define HT_SP_LOOP(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
                              i += (long long)blockDim.x * gridDim.x)

extern "C" __global__ void ht_sp_rows_of(const int* indptr, int* rows, long long m) {
    HT_SP_LOOP(r, m) {
        for (int k = indptr[r]; k < indptr[r + 1]; ++k) rows[k] = (int)r;
    }
}

// rows sorted: indptr[r] = the first k with rows[k] >= r (threads over k = 0..nnz).
extern "C" __global__ void ht_sp_indptr_of(const int* rows, int* indptr, long long nnz, long long m) {
    HT_SP_LOOP(i, nnz + 1) {
        long long prev = i == 0 ? -1 : (long long)rows[i - 1];
        long long cur = i == nnz ? m : (long long)rows[i];
        for (long long r = prev + 1; r <= cur; ++r) indptr[r] = (int)i;
    }
}

// out (zeros, m x n, C order) += the entries of each row; duplicates add up (one thread per row).
#define HT_SP_DENSE(NAME, T) \
extern "C" __global__ void NAME(const int* indptr, const int* indices, const T* data, T* out, \
                                long long m, long long n, int comps) { \
    HT_SP_LOOP(r, m) { \
        for (int k = indptr[r]; k < indptr[r + 1]; ++k) { \
            long long at = (r * n + indices[k]) * comps; \
            for (int c = 0; c < comps; ++c) out[at + c] += data[(long long)k * comps + c]; \
        } \
    } \
}
HT_SP_DENSE(ht_sp_dense_f32, float)
HT_SP_DENSE(ht_sp_dense_f64, double)
"""


def _function(name: str, device_id: int):
    with _on_device(device_id):
        return compile_module(KERNELS).get_function(name)


def _launch(name: str, n: int, args, device_id: int, stream) -> None:
    with _on_device(device_id):
        launch(_function(name, device_id), n, args, device_id, stream)


def rows_of(indptr, rows, m: int, device_id: int, stream) -> None:
    """COO row indices of a CSR matrix's rows (m rows) into `rows` (nnz)."""
    _launch("ht_sp_rows_of", m, (indptr, rows, np.int64(m)), device_id, stream)


def indptr_of(rows, indptr, nnz: int, m: int, device_id: int, stream) -> None:
    """CSR row offsets (m + 1) of sorted COO row indices."""
    _launch("ht_sp_indptr_of", nnz + 1, (rows, indptr, np.int64(nnz), np.int64(m)), device_id, stream)


def csr_to_dense(a, out, device_id: int, stream) -> None:
    """out (a zero-filled C-contiguous m x n array of a's dtype) += CSR matrix `a`."""
    m, n = a.shape
    comps = 2 if a.dtype.kind == "c" else 1
    name = "ht_sp_dense_f32" if a.dtype.name in ("float32", "complex64") else "ht_sp_dense_f64"
    _launch(name, m, (a.indptr, a.indices, a.data, out, np.int64(m), np.int64(n), np.int32(comps)),
            device_id, stream)
