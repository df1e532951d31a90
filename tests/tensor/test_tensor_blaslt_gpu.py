"""hip.tensor's linear through hipBLASLt against PyTorch: `F.linear` with a bias and ReLU or tanh-GELU
fused into the matmul's epilogue (and the other activations after it) in float32, float16 and
bfloat16, against `torch.nn.functional.linear` plus the activation on the same (rounded) inputs in
float32 on the CPU, and `nn.Sequential(Linear, ReLU, ...)` against PyTorch's own model on the GPU;
that hipBLASLt ran (its plans) and that the gemm path (use_hipblaslt off) agrees; the epilogue's
GELU is the tanh formula; shapes and layouts it declines fall back; a graph capture replays it.

    HIP_PLATFORM=nvidia python3 -m pytest tests/tensor/test_tensor_blaslt_gpu.py -q
"""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
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
    yield
    ht.backends.matmul.use_hipblaslt = True


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


def _planned(d, m, n, k, epilogue):
    return any(key[1:6] == (d, m, n, k, epilogue) for key in blaslt._plans)


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
