"""Sparse matrix-vector product y = alpha * A x + beta * y with hipSPARSE's generic API (CSR),
compared with the dense NumPy product (needs a GPU and libhipsparse).

The generic API's alpha and beta are `const void*` whose type computeType gives: here host pointers
(host pointer mode, set explicitly) to one-element float32 NumPy arrays. As in AMD's HIP Python, the
descriptors (hipsparseSpMatDescr_t, hipsparseDnVecDescr_t: typedef void*) and the buffer size are
written into storage the caller passes: a ctypes.c_void_p, passed by its address, holds each
descriptor (passed as is afterwards, a c_void_p stands for the address it holds)."""
import ctypes

import numpy as np

import hip
from hip import hip as h, hipsparse as hs

from _gpu import require_gpu

require_gpu(hs)

# A random 200 x 150 matrix with about 5% nonzeros, in CSR (row offsets, column indices, values)
m, n = 200, 150
rng = np.random.default_rng(3)
dense = np.where(rng.random((m, n)) < 0.05, rng.standard_normal((m, n)), 0.0).astype(np.float32)
rows, cols = np.nonzero(dense)                              # row-major order: sorted by row, then column
values = dense[rows, cols].astype(np.float32)
col_ind = cols.astype(np.int32)
row_ptr = np.zeros(m + 1, dtype=np.int32)
np.cumsum(np.bincount(rows, minlength=m), out=row_ptr[1:])
nnz = len(values)
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(m).astype(np.float32)
alpha, beta = np.array([1.5], np.float32), np.array([-0.5], np.float32)
expected = alpha[0] * (dense.astype(np.float64) @ x) + beta[0] * y

H2D, D2H = h.hipMemcpyKind.hipMemcpyHostToDevice, h.hipMemcpyKind.hipMemcpyDeviceToHost
arrays = {"row_ptr": row_ptr, "col_ind": col_ind, "values": values, "x": x, "y": y}
dev = {}
handle = buffer = None
mat, vec_x, vec_y = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()   # NULL until created
try:
    for name, a in arrays.items():
        dev[name] = hip.check(h.hipMalloc(a.nbytes))
        hip.check(h.hipMemcpy(dev[name], a, a.nbytes, H2D))
    handle = hip.check(hs.hipsparseCreate())
    hip.check(hs.hipsparseSetPointerMode(handle, hs.hipsparsePointerMode_t.HIPSPARSE_POINTER_MODE_HOST))
    I32, BASE0 = hs.hipsparseIndexType_t.HIPSPARSE_INDEX_32I, hs.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
    R32F = h.hipDataType.HIP_R_32F
    hip.check(hs.hipsparseCreateCsr(ctypes.addressof(mat), m, n, nnz, dev["row_ptr"], dev["col_ind"],
                                    dev["values"], I32, I32, BASE0, R32F))
    hip.check(hs.hipsparseCreateDnVec(ctypes.addressof(vec_x), n, dev["x"], R32F))
    hip.check(hs.hipsparseCreateDnVec(ctypes.addressof(vec_y), m, dev["y"], R32F))
    op = hs.hipsparseOperation_t.HIPSPARSE_OPERATION_NON_TRANSPOSE
    alg = hs.hipsparseSpMVAlg_t.HIPSPARSE_SPMV_ALG_DEFAULT
    size = np.zeros(1, dtype=np.uint64)                                   # size_t, in bytes
    hip.check(hs.hipsparseSpMV_bufferSize(handle, op, alpha, mat, vec_x, beta, vec_y, R32F, alg, size))
    buffer = hip.check(h.hipMalloc(max(int(size[0]), 1)))
    hip.check(hs.hipsparseSpMV(handle, op, alpha, mat, vec_x, beta, vec_y, R32F, alg, buffer))
    hip.check(h.hipDeviceSynchronize())
    result = np.empty_like(y)
    hip.check(h.hipMemcpy(result, dev["y"], result.nbytes, D2H))
finally:
    for descr, destroy in ((vec_y, hs.hipsparseDestroyDnVec), (vec_x, hs.hipsparseDestroyDnVec),
                           (mat, hs.hipsparseDestroySpMat), (handle, hs.hipsparseDestroy)):
        if descr:                                                         # created
            hip.check(destroy(descr))
    for p in list(dev.values()) + ([buffer] if buffer is not None else []):
        hip.check(h.hipFree(p))

assert np.allclose(result, expected, rtol=1e-4, atol=1e-4), np.max(np.abs(result - expected))
print(f"CSR SpMV ({m} x {n}, {nnz} nonzeros) matches the dense product")
print("ok")
