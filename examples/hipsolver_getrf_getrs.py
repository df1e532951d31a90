"""Solve A X = B by LU factorization with hipSOLVER (getrf, then getrs), compared with
numpy.linalg.solve (needs a GPU and libhipsolver).

LAPACK conventions: matrices are column-major (NumPy order="F"), the leading dimension is the
number of rows, and the *_bufferSize calls write the workspace size (in elements) into an int32
array the caller passes (as in AMD's HIP Python)."""
import numpy as np

import hip
from hip import hip as h, hipsolver

from _gpu import require_gpu

require_gpu(hipsolver)

n, nrhs = 64, 3
rng = np.random.default_rng(11)
A = np.asfortranarray(rng.standard_normal((n, n)) + n * np.eye(n))     # well conditioned, column-major
B = np.asfortranarray(rng.standard_normal((n, nrhs)))
lda = ldb = n
H2D, D2H = h.hipMemcpyKind.hipMemcpyHostToDevice, h.hipMemcpyKind.hipMemcpyDeviceToHost

A_d = hip.check(h.hipMalloc(A.nbytes))
B_d = hip.check(h.hipMalloc(B.nbytes))
ipiv_d = hip.check(h.hipMalloc(n * np.dtype(np.int32).itemsize))
info_d = hip.check(h.hipMalloc(np.dtype(np.int32).itemsize))
handle = hip.check(hipsolver.hipsolverCreate())
work_d = None
try:
    hip.check(h.hipMemcpy(A_d, A, A.nbytes, H2D))
    hip.check(h.hipMemcpy(B_d, B, B.nbytes, H2D))
    trans = hipsolver.HIPSOLVER_OP_N
    lwork_getrf = np.zeros(1, np.int32)
    lwork_getrs = np.zeros(1, np.int32)
    hip.check(hipsolver.hipsolverDgetrf_bufferSize(handle, n, n, A_d, lda, lwork_getrf))
    hip.check(hipsolver.hipsolverDgetrs_bufferSize(handle, trans, n, nrhs, A_d, lda, ipiv_d, B_d, ldb, lwork_getrs))
    lwork = int(max(lwork_getrf[0], lwork_getrs[0]))
    work_d = hip.check(h.hipMalloc(max(lwork, 1) * np.dtype(np.float64).itemsize))
    info = np.zeros(1, np.int32)

    hip.check(hipsolver.hipsolverDgetrf(handle, n, n, A_d, lda, work_d, lwork, ipiv_d, info_d))   # A = P L U
    hip.check(h.hipMemcpy(info, info_d, info.nbytes, D2H))
    assert info[0] == 0, f"getrf: info = {info[0]} (U is singular)" if info[0] > 0 else f"getrf: info = {info[0]}"
    hip.check(hipsolver.hipsolverDgetrs(handle, trans, n, nrhs, A_d, lda, ipiv_d, B_d, ldb, work_d, lwork,
                                        info_d))                                                 # B := A^-1 B
    hip.check(h.hipMemcpy(info, info_d, info.nbytes, D2H))
    assert info[0] == 0, f"getrs: info = {info[0]}"
    hip.check(h.hipDeviceSynchronize())
    X = np.empty((n, nrhs), order="F")
    hip.check(h.hipMemcpy(X, B_d, X.nbytes, D2H))
finally:
    hip.check(hipsolver.hipsolverDestroy(handle))
    for p in (A_d, B_d, ipiv_d, info_d) + ((work_d,) if work_d is not None else ()):
        hip.check(h.hipFree(p))

expected = np.linalg.solve(A, B)
assert np.allclose(X, expected, rtol=1e-10, atol=1e-12), np.max(np.abs(X - expected))
print(f"LU solve of a {n} x {n} system with {nrhs} right-hand sides matches numpy.linalg.solve")
print("ok")
