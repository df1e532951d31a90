"""hipBLASLt for hip.tensor: one matmul, with an epilogue (bias, ReLU, GELU) where asked.

`gemm` is BLAS's column-major C (m x n, ld ldc) = op(A) op(B), as `_libs.blas.gemm_batched`
takes it (one matrix; hip.tensor's matmul routes to it by `prefer`). `linear` is y = act(x @ w.T + b),
x (M, K) and w (N, K) row-major, y (M, N): column-major, D (N x M, ld N) = op(A) B with A = w read
transposed (stored K x N, ld K) and B = x (K x M, ld K), the order PyTorch's addmm gives cuBLASLt
(y^T = W x^T with W's "T" op), so the same kernels are eligible; the bias runs along D's rows,
which is what the epilogue's bias vector is. The epilogue computes in the scale type (float32) and
rounds once. hipBLASLt's GELU is the tanh approximation (cuBLASLt's too): only `gelu_tanh` is fused.

Handles: one per (device, stream), through `_libs.blas`'s handle cache (hipBLASLt takes the stream
at each call). Plans: per (device, dtype, operations, sizes, leading dimensions, epilogue, compute
type) the matmul descriptor, the layouts and up to CANDIDATES algorithms that
hipblasLtMatmulAlgoGetHeuristic ranks for the device's workspace, kept for the `PLANS` most
recently used; a plan for which hipBLASLt offers no algorithm is remembered as such. Algorithm
choice (`ht.backends.matmul.hipblaslt_autotune`, off by default): the first call of a plan outside a
graph capture runs each candidate once to load it and TIMED_RUNS times between two events on the
call's stream, waits for the stream once, and keeps the fastest for the plan's later calls (as
PyTorch's cudnn.benchmark does for convolutions); off, or while a graph is being captured, the
heuristic's first. A call sets the bias pointer on its plan's descriptor (where it changed) and
runs hipblasLtMatmul, both under the plan's lock; `linear`'s residual is the matmul's C
(D = act(A B + 1 * C + bias), C and D sharing a layout), read by the same kernel.

Workspace (`workspace_bytes`): PyTorch's default for the device: 32 MiB on NVIDIA compute
capability 9.x, 10.x and 12.x, 8 MiB + 128 KiB on other NVIDIA GPUs, 76 MiB for hipBLASLt on AMD.
One block per stream from the caching allocator, held while the stream lives (PyTorch keeps its
cuBLASLt workspace so too); during a graph capture, a block of the graph's pool for each call, of
the size the plan's algorithm asks for.

`gemm` and `linear` return False when they do not run (hipBLASLt not built or its library missing,
remembered for the process; a type, size, or address alignment it is not given; a shape hipBLASLt
has no algorithm for): the caller uses hipBLAS.
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
from .._core.device import Device, Event, _properties, platform
from .._core.graph import stream_is_capturing
from .._core.plans import PlanCache
from .blas import BlasError, _Handles
from .loader import library

__all__: list[str] = []

PLANS = 256
CANDIDATES = 8                  # algorithms asked of the heuristic, timed on a plan's first call
TIMED_RUNS = 2                  # timed runs of each candidate (after one that loads it)
ALIGN = 256                     # every address is this aligned: what cuBLASLt's heuristics assume by default
_INT_MAX = 2 ** 31 - 1

# activation -> (epilogue without bias, with bias)
EPILOGUES = {"identity": ("HIPBLASLT_EPILOGUE_DEFAULT", "HIPBLASLT_EPILOGUE_BIAS"),
             "relu": ("HIPBLASLT_EPILOGUE_RELU", "HIPBLASLT_EPILOGUE_RELU_BIAS"),
             "gelu_tanh": ("HIPBLASLT_EPILOGUE_GELU", "HIPBLASLT_EPILOGUE_GELU_BIAS")}
DTYPES = {"float16": "HIP_R_16F", "bfloat16": "HIP_R_16BF", "float32": "HIP_R_32F"}

# matmul's route (`prefer`): the least m * n * k for which a dtype's product goes to hipBLASLt (a
# dtype not listed stays with hipBLAS). Empty until benchmarks/gpu/bench_tensor_linalg.py's part
# (j) has measured where hipBLASLt is faster (it prints the table to set here).
MATMUL_MIN_MNK: dict = {}

_lock = threading.Lock()
_state: dict = {}               # 'lib': the module, or None once it failed to load
_plans: OrderedDict = OrderedDict()
_workspaces: dict = {}
_workspace_sizes: dict = {}
_OK = 0                         # HIPBLAS_STATUS_SUCCESS


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


def default_workspace_bytes(platform_name: str, major: int) -> int:
    """PyTorch's default workspace for cuBLASLt (NVIDIA, by compute capability major) or hipBLASLt."""
    if platform_name == "nvidia":
        return 32 << 20 if major in (9, 10, 12) else (8 << 20) + (128 << 10)
    return 76 << 20


def workspace_bytes(device_id: int) -> int:
    """The workspace hipBLASLt's heuristic may plan for and its calls get on this device."""
    size = _workspace_sizes.get(device_id)
    if size is None:
        size = _workspace_sizes[device_id] = default_workspace_bytes(platform(), _properties(device_id)["major"])
    return size


def prefer(d: _dt.DType, m: int, n: int, k: int) -> bool:
    """Whether matmul's m x k by k x n product of dtype `d` goes to hipBLASLt (MATMUL_MIN_MNK)."""
    least = MATMUL_MIN_MNK.get(d.name)
    return least is not None and m * n * k >= least


def _workspace(stream, p):
    """The workspace block for a call of plan `p` on `stream` (None: none is needed) and its size."""
    if memory.capturing(stream):
        # a block of the graph's pool for this call: kept for its replays, reused in stream order
        # by what the capture allocates next; a cached block would be shared with eager calls
        need = p.workspace_needed()
        return (memory.alloc(need, stream) if need else None), need
    key = (stream.device_id, stream.uid)
    ws = _workspaces.get(key)
    if ws is None:
        with _lock:
            ws = _workspaces.get(key)
            if ws is None:
                ws = _workspaces[key] = memory.alloc(workspace_bytes(stream.device_id), stream)
                weakref.finalize(stream, _workspaces.pop, key, None)
    return ws, workspace_bytes(stream.device_id)


def _set(L, fn: str, obj, attr, value) -> None:
    """One descriptor attribute from a NumPy scalar (its bytes are what C reads)."""
    buf = np.array([value], dtype=type(value))
    check(getattr(L, fn)(obj, attr, buf, buf.nbytes), fn, BlasError)


class _Plan:
    """One matmul's descriptors and candidate algorithms (none: hipBLASLt has none for it)."""

    def __init__(self, L, handle, d: _dt.DType, ta: bool, tb: bool, m: int, n: int, k: int, lda: int, ldb: int,
                 ldc: int, epilogue: str, bias: bool, tf32: bool, workspace: int):
        from hip import hip as h
        from hip import hipblas
        self.lock = threading.Lock()
        self._owned: list = []
        A, P = L.hipblasLtMatmulDescAttributes_t, L.hipblasLtMatmulPreferenceAttributes_t
        data = h.hipDataType[DTYPES[d.name]]
        compute = hipblas.hipblasComputeType_t["HIPBLAS_COMPUTE_32F_FAST_TF32" if tf32 else "HIPBLAS_COMPUTE_32F"]
        self.desc = check(L.hipblasLtMatmulDescCreate(compute, h.hipDataType.HIP_R_32F),
                          "hipblasLtMatmulDescCreate", BlasError)
        self._owned.append(("hipblasLtMatmulDescDestroy", self.desc))
        op = hipblas.hipblasOperation_t
        for attr, t in ((A.HIPBLASLT_MATMUL_DESC_TRANSA, ta), (A.HIPBLASLT_MATMUL_DESC_TRANSB, tb)):
            _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, attr,
                 np.int32(op.HIPBLAS_OP_T if t else op.HIPBLAS_OP_N))
        _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, A.HIPBLASLT_MATMUL_DESC_EPILOGUE,
             np.uint32(L.hipblasLtEpilogue_t[epilogue]))
        if bias:
            _set(L, "hipblasLtMatmulDescSetAttribute", self.desc, A.HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                 np.int32(data))
        layouts = []
        # the stored matrices: A (m x k, or k x m read transposed), B (k x n, or n x k), C = D (m x n)
        for rows, cols, ld in ((k if ta else m, m if ta else k, lda), (n if tb else k, k if tb else n, ldb),
                               (m, n, ldc)):
            lay = check(L.hipblasLtMatrixLayoutCreate(data, rows, cols, ld), "hipblasLtMatrixLayoutCreate", BlasError)
            self._owned.append(("hipblasLtMatrixLayoutDestroy", lay))
            layouts.append(lay)
        self.a, self.b, self.c = layouts
        pref = check(L.hipblasLtMatmulPreferenceCreate(), "hipblasLtMatmulPreferenceCreate", BlasError)
        self._owned.append(("hipblasLtMatmulPreferenceDestroy", pref))
        _set(L, "hipblasLtMatmulPreferenceSetAttribute", pref, P.HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
             np.uint64(workspace))
        self.results = L.hipblasLtMatmulHeuristicResult_t.allocate(CANDIDATES)
        status, count = L.hipblasLtMatmulAlgoGetHeuristic(handle, self.desc, self.a, self.b, self.c, self.c, pref,
                                                          CANDIDATES, self.results)
        ok = hipblas.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS
        self.algos = []             # (algorithm, its workspace bytes): views of self.results
        if status == ok:
            self.algos = [(self.results.get_algo(i), self.results.get_workspaceSize(i))
                          for i in range(min(count, CANDIDATES)) if self.results.get_state(i) == ok]
        elif status != hipblas.hipblasStatus_t.HIPBLAS_STATUS_NOT_SUPPORTED:
            check((status,), "hipblasLtMatmulAlgoGetHeuristic", BlasError)
        self.best = None                              # the index tuning chose
        self.times: list = []                         # what it measured (ms per run; None: failed)
        self.bias_ptr = np.zeros(1, np.uint64)       # the bias attribute's value (C reads it at the Set call)
        self.bias = None                              # the address the descriptor holds
        self.alpha, self.beta = np.ones(1, np.float32), np.zeros(1, np.float32)
        weakref.finalize(self, _destroy, L, self._owned).atexit = False   # not while the runtime shuts down

    @property
    def algo(self):
        """The algorithm calls run: the tuned one, or the heuristic's first (None: there is none)."""
        if not self.algos:
            return None
        i = self.best if self.best is not None and backends.matmul.hipblaslt_autotune else 0
        return self.algos[i][0]

    def workspace_needed(self) -> int:
        i = self.best if self.best is not None and backends.matmul.hipblaslt_autotune else 0
        return int(self.algos[i][1]) if self.algos else 0


def _destroy(L, owned) -> None:
    for fn, obj in reversed(owned):
        getattr(L, fn)(obj)


def _plan(L, stream, key, *args):
    p = _plans.get(key)
    if p is not None:
        return p
    with _lock:
        p = _plans.get(key)
        if p is None:
            with Device(stream.device_id):
                p = _Plan(L, _handles.get(stream), *args, workspace_bytes(stream.device_id))
            _plans[key] = p
            while len(_plans) > PLANS:
                _plans.popitem(last=False)
        else:
            _plans.move_to_end(key)
    return p


def _tune(L, handle, p: _Plan, stream, a: int, b: int, beta, c: int, out: int, ws: int, wsize: int) -> int:
    """The index of p's fastest algorithm on these operands (`out` is written by each)."""
    ok = L.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS
    marks = []
    for algo, _ in p.algos:
        def run():
            return L.hipblasLtMatmul(handle, p.desc, p.alpha, a, p.a, b, p.b, beta, c, p.c, out, p.c, algo,
                                     ws, wsize, stream.ptr)[0]
        good = run() == ok                             # loads its kernel; not timed
        start = Event().record(stream)
        for _ in range(TIMED_RUNS):
            good = good and run() == ok
        marks.append((good, start, Event().record(stream)))
    marks[-1][2].synchronize()
    p.times = [start.elapsed_time(end) / TIMED_RUNS if good else None for good, start, end in marks]
    timed = [(t, i) for i, t in enumerate(p.times) if t is not None]
    return min(timed)[1] if timed else 0


# (stream uid, plan key) -> (plan, handle, workspace address, its size): an eager call's lookups
# in one. A stream's uid is never reused, and its handle and workspace live as long as it does.
_bound = PlanCache(PLANS)


def _run(stream, d: _dt.DType, ta: bool, tb: bool, m: int, n: int, k: int, a: int, lda: int, b: int, ldb: int,
         out: int, ldc: int, bias: int | None, epilogue: str, residual: int | None = None) -> bool:
    """D (out) = epilogue(op(A) op(B) + C (+ bias)) through a plan, C the residual (beta 1) or none
    (beta 0); False where hipBLASLt has no algorithm."""
    L = _state.get("lib") or _lib()
    if L is None:
        return False
    tf32 = d.name == "float32" and backends.matmul.allow_tf32 and platform() == "nvidia"
    key = (stream.device_id, d.name, ta, tb, m, n, k, lda, ldb, ldc, epilogue, tf32)
    capturing = memory.capturing(stream)
    bound = None if capturing else _bound.get((stream.uid, key))
    if bound is None:
        p = _plan(L, stream, key, d, ta, tb, m, n, k, lda, ldb, ldc, epilogue, bias is not None, tf32)
        if not p.algos:
            return False
        handle = _handles.get(stream)
        block, wsize = _workspace(stream, p)
        ws = block.ptr if block is not None else 0
        if not capturing:
            _bound.put((stream.uid, key), (p, handle, ws, wsize))
    else:
        p, handle, ws, wsize = bound
    with p.lock:
        if bias is not None and bias != p.bias:       # a model's layer passes the same bias each call
            p.bias_ptr[0] = bias
            check(L.hipblasLtMatmulDescSetAttribute(p.desc, L.hipblasLtMatmulDescAttributes_t
                                                    .HIPBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias_ptr, 8),
                  "hipblasLtMatmulDescSetAttribute", BlasError)
            p.bias = bias
        c, beta = (out, p.beta) if residual is None else (residual, p.alpha)
        if p.best is None and len(p.algos) > 1 and backends.matmul.hipblaslt_autotune \
                and not stream_is_capturing(stream):      # nothing is timed on a capturing stream
            p.best = _tune(L, handle, p, stream, a, b, beta, c, out, ws, wsize)
        r = L.hipblasLtMatmul(handle, p.desc, p.alpha, a, p.a, b, p.b, beta, c, p.c, out, p.c, p.algo,
                              ws, wsize, stream.ptr)
        if r[0] != _OK:
            check(r, "hipblasLtMatmul", BlasError)
    return True


def _takes(d: _dt.DType, m: int, n: int, k: int, *addresses: int) -> bool:
    aligned = 0
    for x in addresses:
        aligned |= x
    return d.name in DTYPES and 0 < m <= _INT_MAX and 0 < n <= _INT_MAX and 0 < k <= _INT_MAX \
        and not aligned % ALIGN             # (ALIGN is a power of two: one bit set in any address shows)


def gemm(stream, d: _dt.DType, trans_a: bool, trans_b: bool, m: int, n: int, k: int, a: int, lda: int, b: int,
         ldb: int, c: int, ldc: int) -> bool:
    """Column-major C (m x n) = op(A) op(B), leading dimensions in elements, addresses as ints, on
    `stream`; False, with nothing done, where hipBLASLt does not run it."""
    if not _takes(d, m, n, k, a, b, c):
        return False
    return _run(stream, d, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, None, EPILOGUES["identity"][0])


def linear(stream, d: _dt.DType, m: int, n: int, k: int, x: int, w: int, bias: int | None, y: int,
           activation: str, residual: int | None = None) -> bool:
    """y (m, n) = act(x (m, k) @ w (n, k).T + bias (n,) + residual (m, n)), row-major, addresses as
    ints, on `stream` (`activation` a key of EPILOGUES; the residual is the matmul's C, beta 1);
    False, with nothing done, where hipBLASLt does not run it."""
    if activation not in EPILOGUES or not _takes(d, m, n, k, x, w, y, bias or 0, residual or 0):
        return False
    return _run(stream, d, True, False, n, m, k, w, k, x, k, y, n, bias, EPILOGUES[activation][bias is not None],
                residual)
