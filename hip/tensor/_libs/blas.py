"""hipBLAS and hipSOLVER for hip.tensor: library handles per (device, stream), and the one gemm call.

Handles: one per (library, device, stream), created on first use and bound to its stream once, so
no call ever changes a handle's stream and threads may share it (hipBLAS/cuBLAS and hipSOLVER/
cuSOLVER calls on one handle from several threads are safe while its stream stays put). The
kernels of a gemm on stream s use s's handle, hence its workspace: two streams never share one
(PyTorch keeps a workspace per handle and stream for the same reason). When a Stream object dies
its handles go back to a pool of the device and are bound to the next new stream. hipBLAS 6.4 has
no hipblasSetWorkspace (and our bindings therefore none): the library (rocBLAS or cuBLAS
underneath) allocates and keeps the workspace of each handle itself, outside hip.tensor's caching
allocator; on the nvidia platform cuBLAS reads `CUBLAS_WORKSPACE_CONFIG` (as PyTorch documents),
on AMD rocBLAS sizes it itself. hipSOLVER's workspaces are ours: `_libs.solver` takes them from the
caching allocator on the handle's stream.

gemm: `hipblasGemmStridedBatchedEx_v2` (hipDataType and hipblasComputeType_t, HIPBLAS_V2 API)
for float16, bfloat16 (32-bit accumulation), float32, float64, complex64, complex128; column-major
as BLAS is (the caller maps row-major data: C^T = B^T A^T). float32/complex64 use TF32 tensor
cores when `hip.tensor.backends.matmul.allow_tf32` is True on the nvidia platform (compute type
HIPBLAS_COMPUTE_32F_FAST_TF32; off by default, as PyTorch since 1.12); AMD ignores the flag.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from hip.errors import HipError, check

from .. import backends
from .._core import dtypes as _dt
from .._core.device import Device, platform
from .loader import library

__all__: list[str] = []

_lock = threading.RLock()           # re-entrant: a finalizer may run (GC) while it is held


class BlasError(HipError):
    """A hipBLAS or hipSOLVER call failed: `.status` (the library's status), `.library`, `.function`."""


def _lib():
    return library("hipblas")


def solver_lib():
    return library("hipsolver")


class _Handles:
    """The handles of one library: (device id, stream uid) -> handle, and per device a pool of
    handles whose stream died. `set_stream` binds a handle to its stream (None: the library takes
    the stream at each call, as hipBLASLt does)."""

    def __init__(self, lib, create: str, set_stream: str | None, error: type):
        self.lib, self.create, self.set_stream, self.error = lib, create, set_stream, error
        self.by_stream: dict = {}
        self.pool: dict = {}

    def release(self, key) -> None:
        with _lock:
            h = self.by_stream.pop(key, None)
            if h is not None:
                self.pool.setdefault(key[0], []).append(h)

    def get(self, stream):
        key = (stream.device_id, stream.uid)
        h = self.by_stream.get(key)
        if h is not None:
            return h
        L = self.lib()
        with _lock:
            h = self.by_stream.get(key)
            if h is not None:
                return h
            pool = self.pool.get(stream.device_id)
            if pool:
                h = pool.pop()
            else:
                with Device(stream.device_id):
                    h = check(getattr(L, self.create)(), self.create, self.error)
            if self.set_stream:
                check(getattr(L, self.set_stream)(h, stream.ptr), self.set_stream, self.error)
            self.by_stream[key] = h
        weakref.finalize(stream, self.release, key)
        return h


_blas_handles = _Handles(_lib, "hipblasCreate", "hipblasSetStream", BlasError)
_solver_handles = _Handles(solver_lib, "hipsolverDnCreate", "hipsolverDnSetStream", BlasError)


def handle(stream):
    """The hipBLAS handle bound to `stream` (a hip.tensor Stream)."""
    return _blas_handles.get(stream)


def solver_handle(stream):
    """The hipSOLVER (hipsolverDn API) handle bound to `stream`."""
    return _solver_handles.get(stream)


def handles_in_use() -> int:
    """How many hipBLAS handles are bound to live streams (the tests check the pool reuses them)."""
    return len(_blas_handles.by_stream)


def solver_handles_in_use() -> int:
    """How many hipSOLVER handles are bound to live streams."""
    return len(_solver_handles.by_stream)


_GEMM_TYPES = {}


def gemm_types(d: _dt.DType):
    """(hipDataType, hipblasComputeType_t, alpha, beta) for dtype `d`, or None where BLAS has none."""
    t = _GEMM_TYPES.get(d)
    if t is None:
        spec = {"float16": ("HIP_R_16F", "HIPBLAS_COMPUTE_32F", np.float32),
                "bfloat16": ("HIP_R_16BF", "HIPBLAS_COMPUTE_32F", np.float32),
                "float32": ("HIP_R_32F", "HIPBLAS_COMPUTE_32F", np.float32),
                "float64": ("HIP_R_64F", "HIPBLAS_COMPUTE_64F", np.float64),
                "complex64": ("HIP_C_32F", "HIPBLAS_COMPUTE_32F", np.complex64),
                "complex128": ("HIP_C_64F", "HIPBLAS_COMPUTE_64F", np.complex128)}.get(d.name)
        if spec is None:
            return None
        from hip import hip as h
        from hip import hipblas
        data, compute, scalar = spec
        t = _GEMM_TYPES[d] = (h.hipDataType[data], hipblas.hipblasComputeType_t[compute],
                              np.ones(1, scalar), np.zeros(1, scalar))
    return t


def _tf32() -> bool:
    if not backends.matmul.allow_tf32:
        return False
    return platform() == "nvidia"


_TYPED_GEMM = {"float32": "hipblasSgemmStridedBatched", "float64": "hipblasDgemmStridedBatched"}


def gemm_strided_batched(stream, d: _dt.DType, trans_a: bool, trans_b: bool, m: int, n: int, k: int,
                         a: int, lda: int, stride_a: int, b: int, ldb: int, stride_b: int,
                         c: int, ldc: int, stride_c: int, batch: int) -> None:
    """Column-major C_i = op(A_i) op(B_i) for i < batch (strides and leading dimensions in
    elements, addresses as ints), on `stream`."""
    B = _lib()
    data, compute, one, zero = gemm_types(d)
    tf32 = d.name in ("float32", "complex64") and _tf32()
    if tf32:
        compute = B.hipblasComputeType_t.HIPBLAS_COMPUTE_32F_FAST_TF32
    N, T = B.hipblasOperation_t.HIPBLAS_OP_N, B.hipblasOperation_t.HIPBLAS_OP_T
    typed = None if tf32 else _TYPED_GEMM.get(d.name)
    if typed:
        # the type's own entry: cuBLAS picks faster kernels through it than through GemmEx for skinny
        # and batched float32 shapes (conv's 64 x 576 x 32*3136: 206 against 255 us on an H200)
        check(getattr(B, typed)(handle(stream), T if trans_a else N, T if trans_b else N, m, n, k, one, a, lda,
                                stride_a, b, ldb, stride_b, zero, c, ldc, stride_c, batch), typed, BlasError)
        return
    check(B.hipblasGemmStridedBatchedEx_v2(
        handle(stream), T if trans_a else N, T if trans_b else N, m, n, k, one, a, data, lda, stride_a,
        b, data, ldb, stride_b, zero, c, data, ldc, stride_c, batch, compute,
        B.hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT), "hipblasGemmStridedBatchedEx_v2", BlasError)
