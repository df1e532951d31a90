"""hipSOLVER's dense API on hip.tensor arrays: one `Job` per factorization of a batch.

We call the hipsolverDn* entry points (cuSOLVER's signatures): on the nvidia platform they map one
to one to cusolverDn*, whereas several hipsolver* ones (gesvd_bufferSize, potrfBatched, the gels
sizes) are not bridged there (codegen/specs/nvidia/hipsolver.yaml). LAPACK is column-major: the
callers (`_decompositions`) hand in C-ordered (..., cols, rows) buffers whose matrices are the
column-major ones, and matrices i of a batch at `base + i * stride` bytes.
"""
from __future__ import annotations

import numpy as np

from . import _dtypes as _dt
from ._blas import BlasError, _check, solver_handle, solver_lib

__all__ = ["LinAlgError"]

_PREFIX = {"float32": "S", "float64": "D", "complex64": "C", "complex128": "Z"}


class LinAlgError(ValueError):
    """A matrix the factorization cannot handle (singular, not positive definite, no convergence),
    or arrays of the wrong shape for linear algebra: NumPy's numpy.linalg.LinAlgError, also a
    ValueError."""


class Job:
    """The handle of the current stream of `device_id`, dtype `d`'s entry points, an int32 info
    slot per call (`slots` of them), and workspaces from the caching allocator on that stream.
    Build it inside `_on_device(device_id)`."""

    def __init__(self, d: _dt.DType, slots: int, device_id: int):
        from ._array import ndarray
        from ._creation import _memset0
        from ._device import current_stream
        self.S = solver_lib()
        self.p = _PREFIX[d.name]
        self.stream = current_stream(device_id)
        self.h = solver_handle(self.stream)
        self.info = ndarray._empty((max(slots, 1),), _dt.int32, device_id)
        _memset0(self.info)        # a slot a call never writes reads 0

    def name(self, op: str) -> str:
        return f"hipsolverDn{self.p}{op}"

    def lwork(self, op: str, *args) -> int:
        """The workspace size (elements) of `op` from its _bufferSize call (handle prepended)."""
        lw = np.full(1, -1, np.int32)
        _check(getattr(self.S, self.name(op) + "_bufferSize")(self.h, *args, lw), self.name(op) + "_bufferSize")
        return max(int(lw[0]), 0)

    def work(self, nbytes: int):
        from ._memory import alloc
        return alloc(max(int(nbytes), 1), self.stream)

    def info_ptr(self, slot: int) -> int:
        return self.info.ptr + 4 * slot

    def __call__(self, op: str, *args) -> None:
        _check(getattr(self.S, self.name(op))(self.h, *args), self.name(op))

    def infos(self) -> np.ndarray:
        """The info outputs on the host (waits for the calls): < 0 is our bug (a bad argument)."""
        got = self.info.get()
        bad = got[got < 0]
        if bad.size:
            raise BlasError(f"hipSOLVER (parameter {-int(bad[0])} refused)", "HIPSOLVER_STATUS_INVALID_VALUE")
        return got


def enums():
    """(OP_N, OP_T, LOWER, UPPER, EIG_VECTOR, EIG_NOVECTOR) of hipsolver's own enum classes."""
    S = solver_lib()
    return (S.hipblasOperation_t.HIPBLAS_OP_N, S.hipblasOperation_t.HIPBLAS_OP_T,
            S.hipblasFillMode_t.HIPBLAS_FILL_MODE_LOWER, S.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER,
            S.hipsolverEigMode_t.HIPSOLVER_EIG_MODE_VECTOR, S.hipsolverEigMode_t.HIPSOLVER_EIG_MODE_NOVECTOR)
