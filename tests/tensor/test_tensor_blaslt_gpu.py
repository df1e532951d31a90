"""hip.tensor's linear through hipBLASLt against PyTorch: `F.linear` with a bias and ReLU or tanh-GELU
fused into the matmul's epilogue (and the other activations after it) in float32, float16 and
bfloat16, against `torch.nn.functional.linear` plus the activation on the same (rounded) inputs in
float32 on the CPU, and `nn.Sequential(Linear, ReLU, ...)` against PyTorch's own model on the GPU;
that hipBLASLt ran (its plans) and that the gemm path (use_hipblaslt off) agrees; the epilogue's
GELU is the tanh formula; shapes and layouts it declines fall back; a graph capture replays it;
a plan's first call times its candidate algorithms and keeps the fastest (not when switched off,
not during a capture); the workspace is PyTorch's for the device; matmul's route to hipBLASLt.

    HIP_PLATFORM=nvidia python3 -m pytest tests/tensor/test_tensor_blaslt_gpu.py -q
"""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import dtypes as _dt
from hip.tensor._libs import blaslt

from gpu_tensor import values

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
TF = torch.nn.functional
F = ht.nn.functional

DTYPES = ["float32", "float16", "bfloat16"]
# relative to max(1, |reference|max): the result rounded once in its dtype, float32 accumulation
TOL = {"float32": 2e-5, "float16": 8e-3, "bfloat16": 5e-2}
TORCH_ACT = {None: lambda t: t, "relu": TF.relu, "gelu_tanh": lambda t: TF.gelu(t, approximate="tanh"),
             "gelu": TF.gelu, "silu": TF.silu}


@pytest.fixture(autouse=True)
def _needs_hipblaslt():
    if not blaslt.available():
        pytest.skip("hipBLASLt does not load here (build it, and on NVIDIA its layer: python -m codegen nvidia)")
    # every test starts with autotuning on (the timing tests need it; the others set what they test),
    # whichever test ran before it in this worker
    saved = ht.backends.matmul.use_hipblaslt, ht.backends.matmul.hipblaslt_autotune
    ht.backends.matmul.use_hipblaslt, ht.backends.matmul.hipblaslt_autotune = True, True
    yield
    ht.backends.matmul.use_hipblaslt, ht.backends.matmul.hipblaslt_autotune = saved


@pytest.fixture
def rng():
    return np.random.default_rng(29)


def make(shape, dtype, rng, low, high):
    """(device array, torch CPU reference of the same rounded values: float32, float64 for float64)."""
    host = values(dtype, shape, rng, low, high)
    ref = host.astype(np.float64 if dtype == "float64" else np.float32)
    return ht.asarray(host, dtype=dtype), torch.from_numpy(np.ascontiguousarray(ref))


def check(got, want, dtype, tol=None):
    assert got.dtype.name == dtype
    g, w = got.get().astype(np.float64), want.detach().double().cpu().numpy()
    assert g.shape == w.shape
    t = TOL[dtype] if tol is None else tol
    np.testing.assert_allclose(g, w, rtol=t, atol=t * max(1.0, float(np.abs(w).max())))


def _plan(d, m, n, k, epilogue):
    """linear's plan for x (m, k) @ w (n, k).T: D (n x m) = op(A) B, A = w read transposed."""
    for key, p in blaslt._plans.items():
        if key[1:10] == (d, True, False, n, m, k, k, k, n) and key[10] == epilogue:
            return p
    return None


def _planned(d, m, n, k, epilogue):
    return _plan(d, m, n, k, epilogue) is not None


@pytest.mark.parametrize("activation", [None, "relu", "gelu_tanh", "gelu", "silu"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_against_torch(dtype, bias, activation, rng):
    m, n, k = 3 * 40, 64, 256
    x, t = make((3, 40, k), dtype, rng, -1, 1)
    w, tw = make((n, k), dtype, rng, -0.25, 0.25)
    b, tb = make((n,), dtype, rng, -1, 1) if bias else (None, None)
    got = F.linear(x, w, b, activation=activation)
    check(got, TORCH_ACT[activation](TF.linear(t, tw, tb)), dtype)
    epilogue = blaslt.EPILOGUES[activation if activation in blaslt.EPILOGUES else "identity"][bias]
    assert _planned(dtype, m, n, k, epilogue)
    ht.backends.matmul.use_hipblaslt = False           # the gemm path gives the same
    check(F.linear(x, w, b, activation=activation), TORCH_ACT[activation](TF.linear(t, tw, tb)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sequential_against_torchs_model(dtype, rng):
    """Linear+ReLU and Linear+GELU(tanh) each one matmul with its epilogue, the last Linear one
    with a bias epilogue, against the same PyTorch model run by PyTorch on the GPU."""
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no GPU here")
    tn, nn = torch.nn, ht.nn
    tdt = getattr(torch, dtype)
    torch.manual_seed(1)
    tm = tn.Sequential(tn.Linear(128, 256), tn.ReLU(), tn.Linear(256, 256), tn.GELU(approximate="tanh"),
                       tn.Linear(256, 64)).to(device="cuda", dtype=tdt).eval()
    m = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.GELU(approximate="tanh"),
                      nn.Linear(256, 64)).eval().to(dtype)
    m.load_state_dict(tm.state_dict())
    host = rng.standard_normal((512, 128)).astype(np.float32)
    x = ht.asarray(host, dtype=dtype)
    with torch.no_grad():
        want = tm(torch.from_numpy(host).to(device="cuda", dtype=tdt))
    before = len(blaslt._plans)
    check(m(x), want, dtype, tol={"float32": 1e-4, "float16": 1e-2, "bfloat16": 6e-2}[dtype])
    for k, n, epi in ((128, 256, "HIPBLASLT_EPILOGUE_RELU_BIAS"), (256, 256, "HIPBLASLT_EPILOGUE_GELU_BIAS"),
                      (256, 64, "HIPBLASLT_EPILOGUE_BIAS")):
        assert _planned(dtype, 512, n, k, epi), (k, n, epi, before)


def test_epilogue_gelu_is_the_tanh_formula(rng):
    """y = gelu(x I): the epilogue's values are tanh-GELU's to float32 rounding, farther from erf-GELU."""
    n = 256
    host = rng.uniform(-3, 3, (64, n)).astype(np.float32)
    x, eye = ht.asarray(host), ht.asarray(np.eye(n, dtype=np.float32))
    got = F.linear(x, eye, ht.zeros((n,), dtype="float32"), activation="gelu_tanh").get().astype(np.float64)
    assert _planned("float32", 64, n, n, "HIPBLASLT_EPILOGUE_GELU_BIAS")
    t = torch.from_numpy(host).double()
    tanh_ref = TF.gelu(t, approximate="tanh").numpy()
    erf_ref = TF.gelu(t).numpy()
    assert np.abs(got - tanh_ref).max() < 2e-5
    assert np.abs(got - erf_ref).max() > 1e-4          # the two formulas part by ~2e-4 here


def test_bias_changes_between_calls_of_one_plan(rng):
    x, t = make((64, 128), "float16", rng, -1, 1)
    w, tw = make((96, 128), "float16", rng, -0.25, 0.25)
    outs = []
    for _ in range(3):
        b, tb = make((96,), "float16", rng, -2, 2)
        outs.append((F.linear(x, w, b, activation="relu"), TF.relu(TF.linear(t, tw, tb))))
    for got, want in outs:            # read after all three ran: each used its own bias
        check(got, want, "float16")


def test_on_a_stream_of_its_own(rng):
    x, t = make((200, 64), "bfloat16", rng, -1, 1)
    w, tw = make((48, 64), "bfloat16", rng, -0.5, 0.5)
    b, tb = make((48,), "bfloat16", rng, -1, 1)
    s = ht.Stream(non_blocking=True)
    with s:
        got = F.linear(x, w, b, activation="relu")
    s.synchronize()
    check(got, TF.relu(TF.linear(t, tw, tb)), "bfloat16")


@pytest.mark.parametrize("case", ["odd", "offset", "strided", "1d", "scalar_bias", "float64"])
def test_edge_cases(case, rng):
    """What hipBLASLt is not given (unaligned, strided, a scalar bias, float64) or may have no
    algorithm for (rows of 66 bytes) comes out right, by its path or the gemm's."""
    dtype = "float64" if case == "float64" else "float16"
    if case == "odd":                                   # rows of 33 elements: 66 bytes apart
        x, t = make((7, 33), dtype, rng, -1, 1)
        w, tw = make((17, 33), dtype, rng, -0.5, 0.5)
    else:
        x, t = make((9, 64), dtype, rng, -1, 1)
        w, tw = make((24, 64), dtype, rng, -0.5, 0.5)
    b, tb = make((w.shape[0],), dtype, rng, -1, 1)
    if case == "offset":                                # not 256-byte aligned: declined
        x, t = x[1:], t[1:]
    elif case == "strided":
        x, t = x[:, ::2], t[:, ::2]
        w, tw = w[:, ::2], tw[:, ::2]
    elif case == "1d":
        x, t = x[0], t[0]
    elif case == "scalar_bias":
        b, tb = make((), dtype, rng, -1, 1)
    check(F.linear(x, w, b, activation="relu"), TF.relu(TF.linear(t, tw) + tb), dtype,
          tol={"float16": TOL["float16"], "float64": 1e-12}[dtype])


def test_graph_capture_replays_the_fused_linear(rng):
    """Captured (its plan, handle and workspace made inside the capture: the workspace from the
    graph's pool), replayed for new input: what eager calls give."""
    from hip.tensor._core import memory as M
    x, t = make((256, 192), "float16", rng, -1, 1)
    w, tw = make((320, 192), "float16", rng, -0.25, 0.25)
    b, tb = make((320,), "float16", rng, -1, 1)
    g = ht.Graph()
    before = M.memory_stats()["allocated_bytes.all.current"]
    with ht.graph(g):
        out = F.linear(x, w, b, activation="relu")
    assert M.memory_stats()["allocated_bytes.all.current"] == before   # workspace and output: the graph's
    assert _planned("float16", 256, 320, 192, "HIPBLASLT_EPILOGUE_RELU_BIAS")
    g.replay()
    check(out, TF.relu(TF.linear(t, tw, tb)), "float16")
    x2, t2 = make((256, 192), "float16", rng, -1, 1)
    x[...] = x2
    g.replay()
    ht.synchronize()
    check(out, TF.relu(TF.linear(t2, tw, tb)), "float16")


# -- algorithm choice -------------------------------------------------------------------------------
def test_first_call_keeps_the_fastest_algorithm(rng):
    x, t = make((384, 320), "float16", rng, -1, 1)
    w, tw = make((448, 320), "float16", rng, -0.25, 0.25)
    b, tb = make((448,), "float16", rng, -1, 1)
    check(F.linear(x, w, b, activation="relu"), TF.relu(TF.linear(t, tw, tb)), "float16")
    p = _plan("float16", 384, 448, 320, "HIPBLASLT_EPILOGUE_RELU_BIAS")
    assert p is not None and 1 <= len(p.algos) <= blaslt.CANDIDATES
    if len(p.algos) == 1:
        pytest.skip("the heuristic offers one algorithm for this shape: nothing to choose")
    assert len(p.times) == len(p.algos) and p.times[p.best] is not None
    assert p.times[p.best] == min(t for t in p.times if t is not None)
    assert p.algo is p.algos[p.best][0]
    times = list(p.times)
    check(F.linear(x, w, b, activation="relu"), TF.relu(TF.linear(t, tw, tb)), "float16")
    assert p.times == times                         # timed once per plan


def test_autotune_off_takes_the_heuristics_first(rng):
    ht.backends.matmul.hipblaslt_autotune = False
    x, t = make((320, 192), "bfloat16", rng, -1, 1)
    w, tw = make((224, 192), "bfloat16", rng, -0.25, 0.25)
    check(F.linear(x, w), TF.linear(t, tw), "bfloat16")
    p = _plan("bfloat16", 320, 224, 192, "HIPBLASLT_EPILOGUE_DEFAULT")
    assert p.best is None and p.times == [] and p.algo is p.algos[0][0]


def test_no_timing_during_a_capture(rng):
    """A plan first used in a capture takes the heuristic's first algorithm (no wait for a
    capturing stream); an eager call after it times the candidates."""
    x, t = make((192, 160), "float16", rng, -1, 1)
    w, tw = make((288, 160), "float16", rng, -0.25, 0.25)
    b, tb = make((288,), "float16", rng, -1, 1)
    from hip.tensor._core.device import current_stream
    from hip.tensor._core.graph import stream_is_capturing
    assert not stream_is_capturing(current_stream())
    g = ht.Graph()
    with ht.graph(g):
        assert stream_is_capturing(current_stream())
        out = F.linear(x, w, b)
    p = _plan("float16", 192, 288, 160, "HIPBLASLT_EPILOGUE_BIAS")
    assert p is not None and p.best is None and p.times == []
    g.replay()
    ht.synchronize()
    check(out, TF.linear(t, tw, tb), "float16")
    check(F.linear(x, w, b), TF.linear(t, tw, tb), "float16")
    assert len(p.algos) == 1 or p.best is not None


def test_workspace_is_pytorchs_for_the_device():
    from hip.tensor._core.device import _properties, platform
    size = blaslt.workspace_bytes(0)
    assert size == blaslt.default_workspace_bytes(platform(), _properties(0)["major"])
    if platform() == "nvidia" and _properties(0)["major"] == 9:       # H100, H200
        assert size == 32 << 20


# -- matmul's route ---------------------------------------------------------------------------------
def _gemm_plan(d, m, n, k):
    """matmul's plan for (m, k) @ (k, n) row-major: BLAS's C^T (n x m) = B^T A^T."""
    return [p for key, p in blaslt._plans.items() if key[1] == d and key[4:7] == (n, m, k)
            and key[10] == "HIPBLASLT_EPILOGUE_DEFAULT"]


@pytest.mark.parametrize("layout", ["nn", "nt", "tn"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matmul_goes_to_hipblaslt_where_preferred(dtype, layout, rng, monkeypatch):
    m, n, k = 1024, 1024 + 256, 1024
    monkeypatch.setattr(blaslt, "MATMUL_MIN_MNK", {"float16": 1024 ** 3, "bfloat16": 1024 ** 3})
    assert blaslt.prefer(_dt.dtype(dtype), m, n, k)
    a, ta = make((k, m) if layout[0] == "t" else (m, k), dtype, rng, -1, 1)
    b, tb = make((n, k) if layout[1] == "t" else (k, n), dtype, rng, -1, 1)
    if layout[0] == "t":
        a, ta = a.mT, ta.mT
    if layout[1] == "t":
        b, tb = b.mT, tb.mT
    got = ht.matmul(a, b)
    check(got, ta @ tb, dtype, tol={"float16": 2e-3, "bfloat16": 1.6e-2}[dtype])
    assert _gemm_plan(dtype, m, n, k)
    ht.backends.matmul.use_hipblaslt = False          # hipBLAS gives the same
    check(ht.matmul(a, b), ta @ tb, dtype, tol={"float16": 2e-3, "bfloat16": 1.6e-2}[dtype])


@pytest.mark.parametrize("case", ["small", "float32", "batched", "offset"])
def test_matmul_stays_with_hipblas(case, rng):
    """Below the route's size, float32, a batch, an address hipBLASLt is not given: hipBLAS."""
    dtype = "float32" if case == "float32" else "float16"
    m, n, k = (64, 96, 128) if case == "small" else (1024, 1024, 1024 + 8)
    a, ta = make((2, m, k) if case == "batched" else (m + 1, k) if case == "offset" else (m, k), dtype, rng, -1, 1)
    b, tb = make((k, n), dtype, rng, -1, 1)
    if case == "offset":
        a, ta = a[1:], ta[1:]
    before = len(_gemm_plan(dtype, m, n, k))
    check(ht.matmul(a, b), ta @ tb, dtype, tol={"float16": 2e-3, "float32": 2e-5}[dtype])
    assert len(_gemm_plan(dtype, m, n, k)) == before
