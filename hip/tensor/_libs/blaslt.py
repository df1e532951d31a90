"""hipBLASLt for hip.tensor: a linear layer as one matmul with its epilogue (bias, ReLU, GELU).

y = act(x @ w.T + b), x (M, K) and w (N, K) row-major, y (M, N): column-major, as BLAS is, that is
D (N x M, ld N) = op(A) B with A = w read transposed (stored K x N, ld K) and B = x (K x M, ld K);
the bias runs along D's rows, which is what the epilogue's bias vector is (one value per row of D,
broadcast over its columns). The epilogue computes in the scale type (float32) and rounds once.
hipBLASLt's GELU is the tanh approximation (cuBLASLt's too): only `gelu_tanh` is fused.

Handles: one per (device, stream), through `_libs.blas`'s handle cache (hipBLASLt takes the stream
at each call; a handle per stream keeps threads apart as hipBLAS's do). Plans: per (device, dtype,
M, N, K, epilogue, compute type) the matmul descriptor, the four layouts and the algorithm
hipblasLtMatmulAlgoGetHeuristic ranks first for a workspace of WORKSPACE_BYTES, kept for the
`PLANS` most recently used; a plan for which hipBLASLt offers no algorithm is remembered as such.
A call sets the bias pointer on its plan's descriptor (where it changed) and runs hipblasLtMatmul,
both under the plan's lock; a residual is the matmul's C (D = act(A B + 1 * C + bias), C and D
sharing a layout), read by the same kernel. The workspace is one block of WORKSPACE_BYTES per stream from the
caching allocator, held while the stream lives (PyTorch keeps its cuBLASLt workspace so too);
during a graph capture, a block of the graph's pool for each call.

`linear()` returns False when it does not run (hipBLASLt not built or its library missing,
remembered for the process; a shape hipBLASLt has no algorithm for): the caller uses the gemm.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

import numpy as np

from hip.errors import HipPythonError, check

from .. import backends
from .._core import dtypes as _dt
from .._core import memory
from .._core.device import Device, platform
from .blas import BlasError, _Handles
from .loader import library

__all__: list[str] = []

WORKSPACE_BYTES = 32 << 20      # what PyTorch gives cuBLASLt on Hopper and hipBLASLt on MI300
PLANS = 256
_INT_MAX = 2 ** 31 - 1

# activation -> (epilogue without bias, with bias)
EPILOGUES = {"identity": ("HIPBLASLT_EPILOGUE_DEFAULT", "HIPBLASLT_EPILOGUE_BIAS"),
             "relu": ("HIPBLASLT_EPILOGUE_RELU", "HIPBLASLT_EPILOGUE_RELU_BIAS"),
             "gelu_tanh": ("HIPBLASLT_EPILOGUE_GELU", "HIPBLASLT_EPILOGUE_GELU_BIAS")}
DTYPES = {"float16": "HIP_R_16F", "bfloat16": "HIP_R_16BF", "float32": "HIP_R_32F"}

_lock = threading.Lock()
_state: dict = {}               # 'lib': the module, or None once it failed to load
_plans: OrderedDict = OrderedDict()
_workspaces: dict = {}


def _lib():
    """hip.hipblaslt with its library loaded, or None (not built here, or no libhipblaslt)."""
    if "lib" not in _state:
        try:
            _state["lib"] = library("hipblaslt")
        except (ImportError, OSError, HipPythonError):
            _state["lib"] = None
    return _state["lib"]


def available() -> bool:
    """Whether hipBLASLt can run here (the module is built and its library loads)."""
    return _lib() is not None


_handles = _Handles(lambda: library("hipblaslt"), "hipblasLtCreate", None, BlasError)


def _workspace(stream):
    if memory.capturing(stream):
        # a block of the graph's pool for this call: kept for its replays, reused in stream order
        # by what the capture allocates next; a cached block would be shared with eager calls
        return memory.alloc(WORKSPACE_BYTES, stream)
    key = (stream.device_id, stream.uid)
    ws = _workspaces.get(key)
    if ws is None:
        with _lock:
            ws = _workspaces.get(key)
            if ws is None:
                ws = _workspaces[key] = memory.alloc(WORKSPACE_BYTES, stream)
                weakref.finalize(stream, _workspaces.pop, key, None)
    return ws


def _set(L, fn: str, obj, attr, value) -> None:
    """One descriptor attribute from a NumPy scalar (its bytes are what C reads)."""
    buf = np.array([value], dtype=type(value))
    check(getattr(L, fn)(obj, attr, buf, buf.nbytes), fn, BlasError)


class _Plan:
    """One matmul's descriptors and algorithm (None: hipBLASLt has none for it)."""

    def __init__(self, L, handle, d: _dt.DType, m: int, n: int, k: int, epilogue: str, bias: bool, tf32: bool):
        from hip import hip as h
        self.lock = threading.Lock()
        self.algo = None
        self._owned: list = []
        A, P = L.hipblasLtMatmulDescAttributes_t, L.hipblasLtMatmulPreferenceAttributes_t
        data = h.hipDataType[DTYPES[d.name]]
        from hip import hipblas
        compute = hipblas.hipblasComputeType_t["HIPBLAS_COMPUTE_32F_FAST_TF32" if tf32 else "HIPBLAS_COMPUTE_32F"]
        self.desc = check(L.hipblasLtMatmulDescCreate(compute, h.hipDataType.HIP_R_32F),
                          "hipblasLtMatmulDescCreate", BlasError)
        self._owned.append(("hipblasLtMatmulDescDestroy", self.desc))
        op = hipblas.hipblasOperation_t
        _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, A.HIPBLASLT_MATMUL_DESC_TRANSA,
             np.int32(op.HIPBLAS_OP_T))
        _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, A.HIPBLASLT_MATMUL_DESC_TRANSB,
             np.int32(op.HIPBLAS_OP_N))
        _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, A.HIPBLASLT_MATMUL_DESC_EPILOGUE,
             np.uint32(L.hipblasLtEpilogue_t[epilogue]))
        if bias:
            _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, A.HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                 np.int32(data))
        layouts = []
        for rows, cols in ((k, n), (k, m), (n, m)):          # A (w read transposed), B (x), C = D (y)
            lay = check(L.hipblasLtMatrixLayoutCreate(data, rows, cols, rows), "hipblasLtMatrixLayoutCreate",
                        BlasError)
            self._owned.append(("hipblasLtMatrixLayoutDestroy", lay))
            layouts.append(lay)
        self.a, self.b, self.c = layouts
        pref = check(L.hipblasLtMatmulPreferenceCreate(), "hipblasLtMatmulPreferenceCreate", BlasError)
        self._owned.append(("hipblasLtMatmulPreferenceDestroy", pref))
        _set(L, "hipblasLtMatmulPreferenceSetAttribute", pref, P.HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
             np.uint64(WORKSPACE_BYTES))
        self.results = L.hipblasLtMatmulHeuristicResult_t.allocate(1)
        status, count = L.hipblasLtMatmulAlgoGetHeuristic(handle, self.desc, self.a, self.b, self.c, self.c, pref,
                                                          1, self.results)
        if status == hipblas.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS:
            if count > 0:
                self.algo = self.results.algo       # (a view: self.results keeps its memory)
        elif status != hipblas.hipblasStatus_t.HIPBLAS_STATUS_NOT_SUPPORTED:
            check((status,), "hipblasLtMatmulAlgoGetHeuristic", BlasError)
        self.bias_ptr = np.zeros(1, np.uint64)       # the bias attribute's value (C reads it at the Set call)
        self.bias = None                              # the address the descriptor holds
        self.alpha, self.beta = np.ones(1, np.float32), np.zeros(1, np.float32)
        weakref.finalize(self, _destroy, L, self._owned).atexit = False   # not while the runtime shuts down


def _destroy(L, owned) -> None:
    for fn, obj in reversed(owned):
        getattr(L, fn)(obj)


def _bias_attr(L):
    return L.hipblasLtMatmulDescAttributes_t.HIPBLASLT_MATMUL_DESC_BIAS_POINTER


def _plan(L, stream, d: _dt.DType, m: int, n: int, k: int, epilogue: str, bias: bool, tf32: bool):
    key = (stream.device_id, d.name, m, n, k, epilogue, tf32)
    p = _plans.get(key)
    if p is not None:
        return p
    with _lock:
        p = _plans.get(key)
        if p is None:
            with Device(stream.device_id):
                p = _Plan(L, _handles.get(stream), d, m, n, k, epilogue, bias, tf32)
            _plans[key] = p
            while len(_plans) > PLANS:
                _plans.popitem(last=False)
        else:
            _plans.move_to_end(key)
    return p


def linear(stream, d: _dt.DType, m: int, n: int, k: int, x: int, w: int, bias: int | None, y: int,
           activation: str, residual: int | None = None) -> bool:
    """y (m, n) = act(x (m, k) @ w (n, k).T + bias (n,) + residual (m, n)), row-major, addresses as
    ints, on `stream` (`activation` a key of EPILOGUES; the residual is the matmul's C, beta 1);
    False, with nothing done, where hipBLASLt does not run it."""
    if activation not in EPILOGUES or d.name not in DTYPES or not (0 < max(m, n, k) <= _INT_MAX) \
            or min(m, n, k) < 1:
        return False
    L = _lib()
    if L is None:
        return False
    tf32 = d.name == "float32" and backends.matmul.allow_tf32 and platform() == "nvidia"
    epilogue = EPILOGUES[activation][bias is not None]
    p = _plan(L, stream, d, m, n, k, epilogue, bias is not None, tf32)
    if p.algo is None:
        return False
    ws = _workspace(stream)
    handle = _handles.get(stream)
    with p.lock:
        if bias is not None and bias != p.bias:       # a model's layer passes the same bias each call
            p.bias_ptr[0] = bias
            check(L.hipblasLtMatmulDescSetAttribute(p.desc, _bias_attr(L), p.bias_ptr, 8),
                  "hipblasLtMatmulDescSetAttribute", BlasError)
            p.bias = bias
        c, beta = (y, p.beta) if residual is None else (residual, p.alpha)
        check(L.hipblasLtMatmul(handle, p.desc, p.alpha, w, p.a, x, p.b, beta, c, p.c, y, p.c, p.algo,
                                ws.ptr, WORKSPACE_BYTES, stream.ptr), "hipblasLtMatmul", BlasError)
    return True
