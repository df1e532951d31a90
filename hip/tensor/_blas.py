"""hipBLAS for hip.tensor: handles and the one gemm call.

Handles: one per (device, stream), created on first use and bound to its stream once, so no call
ever changes a handle's stream and threads may share it (hipBLAS/cuBLAS calls on one handle from
several threads are safe while its stream stays put). The kernels of a gemm on stream s use s's
handle, hence its workspace: two streams never share one (PyTorch keeps a workspace per handle
and stream for the same reason). When a Stream object dies its handle goes back to a pool of the
device and is bound to the next new stream. hipBLAS 6.4 has no hipblasSetWorkspace: the library
(rocBLAS or cuBLAS underneath) allocates and keeps the workspace of each handle itself, outside
hip.tensor's caching allocator.

gemm: `hipblasGemmStridedBatchedEx_v2` (hipDataType and hipblasComputeType_t, HIPBLAS_V2 API)
for float16, bfloat16 (32-bit accumulation), float32, float64, complex64, complex128; column-major
as BLAS is (the caller maps row-major data: C^T = B^T A^T).
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from . import _dtypes as _dt

__all__: list[str] = []

_lock = threading.RLock()           # re-entrant: a finalizer may run (GC) while it is held
_by_stream: dict = {}          # (device id, stream uid) -> handle
_pool: dict = {}               # device id -> handles whose stream died


class BlasError(RuntimeError):
    """A hipBLAS call failed (the status is `.status`)."""

    def __init__(self, what: str, status):
        name = getattr(status, "name", None) or str(status)
        super().__init__(f"{what} failed: {name}")
        self.status = status


def _lib():
    from hip import hipblas
    from hip.errors import LibraryNotFoundError
    try:
        hipblas._library.load()
    except LibraryNotFoundError as e:
        raise RuntimeError(f"hip.tensor's matmul on floating-point arrays needs hipBLAS: {str(e).splitlines()[0]}") \
            from None
    return hipblas


def _check(result, what: str):
    status = result[0]
    if int(status) != 0:
        raise BlasError(what, status)
    return result[1] if len(result) > 1 else None


def _release(key) -> None:
    with _lock:
        h = _by_stream.pop(key, None)
        if h is not None:
            _pool.setdefault(key[0], []).append(h)


def handle(stream):
    """The hipBLAS handle bound to `stream` (a hip.tensor Stream)."""
    key = (stream.device_id, stream.uid)
    h = _by_stream.get(key)
    if h is not None:
        return h
    B = _lib()
    with _lock:
        h = _by_stream.get(key)
        if h is not None:
            return h
        pool = _pool.get(stream.device_id)
        if pool:
            h = pool.pop()
        else:
            from ._device import Device
            with Device(stream.device_id):
                h = _check(B.hipblasCreate(), "hipblasCreate")
        _check(B.hipblasSetStream(h, stream.ptr), "hipblasSetStream")
        _by_stream[key] = h
    weakref.finalize(stream, _release, key)
    return h


def handles_in_use() -> int:
    """How many handles are bound to live streams (the tests check the pool reuses them)."""
    return len(_by_stream)


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


def gemm_strided_batched(stream, d: _dt.DType, trans_a: bool, trans_b: bool, m: int, n: int, k: int,
                         a: int, lda: int, stride_a: int, b: int, ldb: int, stride_b: int,
                         c: int, ldc: int, stride_c: int, batch: int) -> None:
    """Column-major C_i = op(A_i) op(B_i) for i < batch (strides and leading dimensions in
    elements, addresses as ints), on `stream`."""
    B = _lib()
    data, compute, one, zero = gemm_types(d)
    N, T = B.hipblasOperation_t.HIPBLAS_OP_N, B.hipblasOperation_t.HIPBLAS_OP_T
    _check(B.hipblasGemmStridedBatchedEx_v2(
        handle(stream), T if trans_a else N, T if trans_b else N, m, n, k, one, a, data, lda, stride_a,
        b, data, ldb, stride_b, zero, c, data, ldc, stride_c, batch, compute,
        B.hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT), "hipblasGemmStridedBatchedEx_v2")
