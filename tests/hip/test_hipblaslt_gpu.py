"""hipBLASLt against NumPy (on AMD's library, or on cuBLASLt through the HIP-on-CUDA layer): the
matmul with every epilogue hip.tensor uses (bias, ReLU, GELU) from the algorithm the heuristic
ranks first and with none, descriptor attributes read back as set (enum values cross the layer by
name: HIPBLAS_OP_T is 112 on HIP, 1 on cuBLASLt), layouts, preferences, the version, and an
algorithm struct the library did not write refused.

    HIP_PLATFORM=nvidia python3 -m pytest tests/hip/test_hipblaslt_gpu.py -q
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h

from gpu_util import require_library

pytestmark = pytest.mark.gpu

L = pytest.importorskip("hip.hipblaslt", reason="hip.hipblaslt is not built (no hipBLASLt headers)")
from hip import hipblas  # noqa: E402  (built with it: hipblaslt needs hipblas)

OP = hipblas.hipblasOperation_t
ST = hipblas.hipblasStatus_t
A = L.hipblasLtMatmulDescAttributes_t
LA = L.hipblasLtMatrixLayoutAttribute_t
E = L.hipblasLtEpilogue_t


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(L)


@pytest.fixture(scope="module")
def handle():
    hd = hip.check(L.hipblasLtCreate())
    yield hd
    hip.check(L.hipblasLtDestroy(hd))


@pytest.fixture
def owned():
    """Descriptors made by a test, destroyed after it (in reverse)."""
    made = []
    yield made
    for fn, obj in reversed(made):
        assert getattr(L, fn)(obj) == (ST.HIPBLAS_STATUS_SUCCESS,), fn


def _set(fn, obj, attr, value):
    buf = np.array([value], dtype=type(value))
    hip.check(getattr(L, fn)(obj, attr, buf, buf.nbytes))


def _get(fn, obj, attr, dtype):
    buf = np.zeros(1, dtype)
    written = hip.check(getattr(L, fn)(obj, attr, buf, buf.nbytes))
    assert written == buf.nbytes
    return buf[0]


def _desc(owned, epilogue=None, trans_a=OP.HIPBLAS_OP_T):
    d = hip.check(L.hipblasLtMatmulDescCreate(hipblas.hipblasComputeType_t.HIPBLAS_COMPUTE_32F, h.hipDataType.HIP_R_32F))
    owned.append(("hipblasLtMatmulDescDestroy", d))
    _set("hipblasLtMatmulDescSetAttribute", d, A.HIPBLASLT_MATMUL_DESC_TRANSA, np.int32(trans_a))
    _set("hipblasLtMatmulDescSetAttribute", d, A.HIPBLASLT_MATMUL_DESC_TRANSB, np.int32(OP.HIPBLAS_OP_N))
    if epilogue is not None:
        _set("hipblasLtMatmulDescSetAttribute", d, A.HIPBLASLT_MATMUL_DESC_EPILOGUE, np.uint32(epilogue))
    return d


def _layout(owned, data, rows, cols, ld):
    lay = hip.check(L.hipblasLtMatrixLayoutCreate(data, rows, cols, ld))
    owned.append(("hipblasLtMatrixLayoutDestroy", lay))
    return lay


def test_version_is_reported(handle):
    v = hip.check(L.hipblasLtGetVersion(handle))
    assert v > 0


def test_attributes_read_back_as_set(owned):
    d = _desc(owned, E.HIPBLASLT_EPILOGUE_GELU_BIAS)
    get = "hipblasLtMatmulDescGetAttribute"
    assert _get(get, d, A.HIPBLASLT_MATMUL_DESC_TRANSA, np.int32) == OP.HIPBLAS_OP_T
    assert _get(get, d, A.HIPBLASLT_MATMUL_DESC_TRANSB, np.int32) == OP.HIPBLAS_OP_N
    assert _get(get, d, A.HIPBLASLT_MATMUL_DESC_EPILOGUE, np.uint32) == E.HIPBLASLT_EPILOGUE_GELU_BIAS
    _set("hipblasLtMatmulDescSetAttribute", d, A.HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, np.int32(h.hipDataType.HIP_R_16BF))
    assert _get(get, d, A.HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, np.int32) == h.hipDataType.HIP_R_16BF
    _set("hipblasLtMatmulDescSetAttribute", d, A.HIPBLASLT_MATMUL_DESC_BIAS_POINTER, np.uint64(0x1000))
    assert _get(get, d, A.HIPBLASLT_MATMUL_DESC_BIAS_POINTER, np.uint64) == 0x1000
    lay = _layout(owned, h.hipDataType.HIP_R_16F, 8, 4, 8)
    get = "hipblasLtMatrixLayoutGetAttribute"
    assert _get(get, lay, LA.HIPBLASLT_MATRIX_LAYOUT_TYPE, np.uint32) == h.hipDataType.HIP_R_16F
    assert _get(get, lay, LA.HIPBLASLT_MATRIX_LAYOUT_ROWS, np.uint64) == 8
    assert _get(get, lay, LA.HIPBLASLT_MATRIX_LAYOUT_COLS, np.uint64) == 4
    assert _get(get, lay, LA.HIPBLASLT_MATRIX_LAYOUT_LD, np.int64) == 8
    _set("hipblasLtMatrixLayoutSetAttribute", lay, LA.HIPBLASLT_MATRIX_LAYOUT_ORDER,
         np.int32(L.hipblasLtOrder_t.HIPBLASLT_ORDER_ROW))
    assert _get(get, lay, LA.HIPBLASLT_MATRIX_LAYOUT_ORDER, np.int32) == L.hipblasLtOrder_t.HIPBLASLT_ORDER_ROW
    pref = hip.check(L.hipblasLtMatmulPreferenceCreate())
    owned.append(("hipblasLtMatmulPreferenceDestroy", pref))
    P = L.hipblasLtMatmulPreferenceAttributes_t
    _set("hipblasLtMatmulPreferenceSetAttribute", pref, P.HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, np.uint64(1 << 22))
    assert _get("hipblasLtMatmulPreferenceGetAttribute", pref, P.HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                np.uint64) == 1 << 22


def _relu(x):
    return np.maximum(x, 0)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


@pytest.mark.parametrize("epilogue,act,bias", [
    ("HIPBLASLT_EPILOGUE_DEFAULT", None, False), ("HIPBLASLT_EPILOGUE_BIAS", None, True),
    ("HIPBLASLT_EPILOGUE_RELU", _relu, False), ("HIPBLASLT_EPILOGUE_RELU_BIAS", _relu, True),
    ("HIPBLASLT_EPILOGUE_GELU_BIAS", _gelu_tanh, True)])
@pytest.mark.parametrize("with_algo", [True, False])
def test_matmul_with_epilogue(handle, mem, rng, stream, owned, epilogue, act, bias, with_algo):
    """y (m x n, row-major) = act(x w^T + b), as hip.tensor's linear calls it: column-major
    D (n x m) = op(A) B with A = w read transposed, B = x, the bias along D's rows."""
    m, n, k = 96, 80, 64
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    dx, dw, db, dy = mem.put(x), mem.put(w), mem.put(b), mem.alloc(m * n * 4)
    ws_bytes = 1 << 22
    ws = mem.alloc(ws_bytes)
    d = _desc(owned, E[epilogue])
    if bias:
        _set("hipblasLtMatmulDescSetAttribute", d, A.HIPBLASLT_MATMUL_DESC_BIAS_POINTER, np.uint64(int(db)))
    F32 = h.hipDataType.HIP_R_32F
    la, lb, lc = _layout(owned, F32, k, n, k), _layout(owned, F32, k, m, k), _layout(owned, F32, n, m, n)
    algo = None
    if with_algo:
        pref = hip.check(L.hipblasLtMatmulPreferenceCreate())
        owned.append(("hipblasLtMatmulPreferenceDestroy", pref))
        P = L.hipblasLtMatmulPreferenceAttributes_t
        _set("hipblasLtMatmulPreferenceSetAttribute", pref, P.HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
             np.uint64(ws_bytes))
        results = L.hipblasLtMatmulHeuristicResult_t.allocate(4)      # the object is the first of them
        count = hip.check(L.hipblasLtMatmulAlgoGetHeuristic(handle, d, la, lb, lc, lc, pref, 4, results))
        assert 1 <= count <= 4
        assert results.state == ST.HIPBLAS_STATUS_SUCCESS and results.workspaceSize <= ws_bytes
        algo = results.algo
    alpha, beta = np.ones(1, np.float32), np.zeros(1, np.float32)
    hip.check(L.hipblasLtMatmul(handle, d, alpha, dw, la, dx, lb, beta, dy, lc, dy, lc, algo, ws, ws_bytes, stream))
    hip.check(h.hipStreamSynchronize(stream))
    got = mem.get(dy, (m, n), np.float32)
    want = x.astype(np.float64) @ w.T.astype(np.float64) + (b if bias else 0)
    if act is not None:
        want = act(want)
    tol = 1e-3 if act is _gelu_tanh else 1e-4       # the library's own tanh
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def test_matmul_refuses_an_algorithm_it_did_not_make(handle, mem, owned):
    """On the layer, a zeroed algorithm struct is none the heuristic gave: an error status, no crash
    (AMD's hipBLASLt reads the struct as a solution index, 0 among them)."""
    from hip.tensor._core.device import platform
    if platform() != "nvidia":
        pytest.skip("the layer's algorithm table (nvidia platform)")
    d = _desc(owned)
    F32 = h.hipDataType.HIP_R_32F
    lay = _layout(owned, F32, 4, 4, 4)
    buf = mem.alloc(64)
    st = L.hipblasLtMatmul(handle, d, np.ones(1, np.float32), buf, lay, buf, lay, np.zeros(1, np.float32), buf,
                           lay, buf, lay, L.hipblasLtMatmulAlgo_t(), 0, 0, None)[0]
    assert st != ST.HIPBLAS_STATUS_SUCCESS
    hip.check(h.hipDeviceSynchronize())


def test_heuristic_counts_into_the_callers_array(handle, owned):
    d = _desc(owned, E.HIPBLASLT_EPILOGUE_RELU)
    F16 = h.hipDataType.HIP_R_16F
    la, lb, lc = _layout(owned, F16, 256, 512, 256), _layout(owned, F16, 256, 128, 256), _layout(owned, F16, 512, 128, 512)
    pref = hip.check(L.hipblasLtMatmulPreferenceCreate())
    owned.append(("hipblasLtMatmulPreferenceDestroy", pref))
    arr = (ctypes.c_ubyte * (L.hipblasLtMatmulHeuristicResult_t.c_sizeof() * 3))()
    count = hip.check(L.hipblasLtMatmulAlgoGetHeuristic(handle, d, la, lb, lc, lc, pref, 3, arr))
    assert 1 <= count <= 3
    with pytest.raises(ValueError):      # the array holds fewer than requestedAlgoCount results
        L.hipblasLtMatmulAlgoGetHeuristic(handle, d, la, lb, lc, lc, pref, 4, arr)
