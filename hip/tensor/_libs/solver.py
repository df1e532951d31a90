"""hipSOLVER's dense API on hip.tensor arrays: one `Job` per factorization of a batch.

We call the hipsolverDn* entry points (cuSOLVER's signatures): on the nvidia platform they map one
to one to cusolverDn*, whereas several hipsolver* ones (gesvd_bufferSize, potrfBatched, the gels
sizes) are not bridged there (codegen/specs/nvidia/hipsolver.yaml). LAPACK is column-major: the
callers (`_api.decompositions`) hand in C-ordered (..., cols, rows) buffers whose matrices are the
column-major ones, and matrices i of a batch at `base + i * stride` bytes.

Per call a Job costs its info slots (one allocation, one memset) and the factorizations; the
workspace sizes are asked once per (device, entry point, shapes) and kept (they depend on nothing
else), the workspaces come from the caching allocator. LU of a batch of small matrices goes
through hipBLAS's getrfBatched/getrsBatched/getriBatched (`getr?_batched`; cuBLAS's on the nvidia
platform: hipSOLVER 6.4 has no batched getrf), one launch sequence for the whole batch.
"""
from __future__ import annotations

import numpy as np

from hip.errors import HipPythonError, check

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.device import current_stream
from .._core.memory import alloc, memset
from .blas import BlasError, _lib, handle, pointer_table, solver_handle, solver_lib

__all__ = ["LinAlgError"]

_PREFIX = {"float32": "S", "float64": "D", "complex64": "C", "complex128": "Z"}
_lwork_sizes: dict = {}     # (device, entry point, shapes) -> workspace elements
# hipBLAS's batched LU is made for small matrices (one kernel sequence over the batch); above this
# order a batch is factored one hipSOLVER getrf per matrix, the blocked algorithm. Not measured yet.
BATCHED_LU_MAX_N = 256


class LinAlgError(HipPythonError, ValueError):
    """A matrix the factorization cannot handle (singular, not positive definite, no convergence),
    or arrays of the wrong shape for linear algebra: NumPy's numpy.linalg.LinAlgError, also a
    ValueError. A failed hipSOLVER/hipBLAS call is a BlasError instead."""


class Job:
    """The handle of the current stream of `device_id`, dtype `d`'s entry points, an int32 info
    slot per call (`slots` of them), and workspaces from the caching allocator on that stream.
    Build it inside `_on_device(device_id)`."""

    def __init__(self, d: _dt.DType, slots: int, device_id: int):
        self.S = solver_lib()
        self.p = _PREFIX[d.name]
        self.stream = current_stream(device_id)
        self.h = solver_handle(self.stream)
        self.info = ndarray._empty((max(slots, 1),), _dt.int32, device_id)
        memset(self.info.ptr, 0, self.info.nbytes, self.stream)     # a slot a call never writes reads 0

    def name(self, op: str) -> str:
        return f"hipsolverDn{self.p}{op}"

    def lwork(self, op: str, *args, key: tuple, after: tuple = ()) -> int:
        """The workspace size (elements) of `op` from its _bufferSize call (handle prepended, `after`
        following the size: the Jacobi calls' params and batch count), asked once per `key` (the
        call's sizes and modes, without its addresses) on this device."""
        k = (self.stream.device_id, self.name(op), key)
        size = _lwork_sizes.get(k)
        if size is None:
            lw = np.full(1, -1, np.int32)
            check(getattr(self.S, self.name(op) + "_bufferSize")(self.h, *args, lw, *after),
                  self.name(op) + "_bufferSize", BlasError)
            size = _lwork_sizes[k] = max(int(lw[0]), 0)
        return size

    def work(self, nbytes: int):
        return alloc(max(int(nbytes), 1), self.stream)

    def info_ptr(self, slot: int) -> int:
        return self.info.ptr + 4 * slot

    def __call__(self, op: str, *args) -> None:
        check(getattr(self.S, self.name(op))(self.h, *args), self.name(op), BlasError)

    def infos(self) -> np.ndarray:
        """The info outputs on the host (waits for the calls): < 0 is our bug (a bad argument)."""
        got = self.info.get()
        bad = got[got < 0]
        if bad.size:
            raise BlasError(self.S.hipsolverStatus_t.HIPSOLVER_STATUS_INVALID_VALUE,
                            f"parameter {-int(bad[0])} refused (an info output < 0)")
        return got


# cuSOLVER's syevjBatched/gesvdjBatched take matrices up to 32 x 32 (one thread block per matrix);
# larger ones go one syevd/gesvd per matrix.
JACOBI_BATCHED_MAX_N = 32
_jacobi_params: dict = {}   # (kind, real dtype) -> hipsolverSyevjInfo_t / GesvdjInfo_t, kept for the process


def jacobi_params(kind: str, real: _dt.DType):
    """The params (a hipsolverSyevjInfo_t or hipsolverGesvdjInfo_t) of the batched Jacobi solvers,
    kind 'syevj' or 'gesvdj', for dtypes of real part `real`: tolerance the dtype's machine epsilon
    and 100 sweeps (cuSOLVER's documented defaults, set explicitly since hipSOLVER's ROCm backend
    keeps its own), results sorted (eigenvalues ascending, singular values descending, as NumPy).
    Host-side settings, made once and never destroyed: the calls only read them."""
    k = (kind, real.name)
    p = _jacobi_params.get(k)
    if p is None:
        S = solver_lib()
        cap = kind.capitalize()
        p = getattr(S, f"hipsolver{cap}Info_t")()
        check(getattr(S, f"hipsolverDnCreate{cap}Info")(p.createRef()), f"hipsolverDnCreate{cap}Info", BlasError)
        check(getattr(S, f"hipsolverDnX{kind}SetTolerance")(p, float(np.finfo(real.name).eps)),
              f"hipsolverDnX{kind}SetTolerance", BlasError)
        check(getattr(S, f"hipsolverDnX{kind}SetMaxSweeps")(p, 100), f"hipsolverDnX{kind}SetMaxSweeps", BlasError)
        check(getattr(S, f"hipsolverDnX{kind}SetSortEig")(p, 1), f"hipsolverDnX{kind}SetSortEig", BlasError)
        _jacobi_params[k] = p
    return p


def pointers(a, nb: int, step: int):
    """A device array of the addresses of the nb matrices of `a`, `step` bytes apart (the batched
    entry points take arrays of pointers): `_libs.blas.pointer_table` on the current stream."""
    return pointer_table(current_stream(a.device_id), (nb,), ((a.ptr, (step,)),))


def _blas(job: Job):
    return _lib(), handle(job.stream)


def getrf_batched(job: Job, a, nb: int, n: int, step: int, ipiv, slot: int = 0):
    """hipBLAS getrfBatched of the nb n x n matrices of `a` (`step` bytes apart) in place: pivots
    at ipiv (n per matrix), infos in slots slot..slot+nb-1. Returns the pointer array."""
    B, h = _blas(job)
    ptrs = pointers(a, nb, step)
    fn = f"hipblas{job.p}getrfBatched"
    check(getattr(B, fn)(h, n, ptrs.ptr, n, ipiv.ptr, job.info_ptr(slot), nb), fn, BlasError)
    return ptrs


def getrs_batched(job: Job, trans: str, n: int, k: int, aptrs, ipiv, b, nb: int, step: int) -> None:
    """hipBLAS getrsBatched: solves op(A_i) X_i = B_i (trans 'N', 'T' or 'C') in place in the nb
    n x k matrices of `b`."""
    B, h = _blas(job)
    op = getattr(B.hipblasOperation_t, f"HIPBLAS_OP_{trans}")     # hipBLAS's own enum class
    host_info = np.zeros(1, np.int32)       # a host int: argument checks only
    fn = f"hipblas{job.p}getrsBatched"
    check(getattr(B, fn)(h, op, n, k, aptrs.ptr, n, ipiv.ptr, pointers(b, nb, step).ptr, n, host_info, nb), fn,
          BlasError)
    if host_info[0] < 0:
        raise BlasError(B.hipblasStatus_t.HIPBLAS_STATUS_INVALID_VALUE, f"parameter {-int(host_info[0])} refused", fn)


def getri_batched(job: Job, n: int, aptrs, ipiv, c, nb: int, step: int, slot: int) -> None:
    """hipBLAS getriBatched: the inverses of the factored A_i into the nb n x n matrices of `c`
    (out of place), infos in slots slot..slot+nb-1."""
    B, h = _blas(job)
    fn = f"hipblas{job.p}getriBatched"
    check(getattr(B, fn)(h, n, aptrs.ptr, n, ipiv.ptr, pointers(c, nb, step).ptr, n, job.info_ptr(slot), nb), fn,
          BlasError)


def enums():
    """(OP_N, OP_T, LOWER, UPPER, EIG_VECTOR, EIG_NOVECTOR) of hipsolver's own enum classes."""
    S = solver_lib()
    return (S.hipblasOperation_t.HIPBLAS_OP_N, S.hipblasOperation_t.HIPBLAS_OP_T,
            S.hipblasFillMode_t.HIPBLAS_FILL_MODE_LOWER, S.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER,
            S.hipsolverEigMode_t.HIPSOLVER_EIG_MODE_VECTOR, S.hipsolverEigMode_t.HIPSOLVER_EIG_MODE_NOVECTOR)
