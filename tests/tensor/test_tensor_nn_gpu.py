"""hip.tensor.nn against PyTorch's CPU result: every functional operator (activations, clamp,
where, dropout's statistics, linear with fused activations, softmax/log_softmax, layer/group/batch
norm, the losses, pooling, conv1d/2d/3d, conv_transpose1d/2d/3d) in float32 with tight tolerances
and in float16/bfloat16 against a float32 reference of the same (rounded) inputs with their own
tolerances; non-contiguous and batched inputs; bad input raising clear exceptions; the module API
(a PyTorch model's state_dict loaded through DLPack, eval/train, Sequential's fused Linear+ReLU).

    HIP_PLATFORM=nvidia python3 -m pytest tests/tensor/test_tensor_nn_gpu.py -q
"""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import launch as _launch

from gpu_tensor import round_bf16, values
from host_kernels import softmax_special_rows

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
TF = torch.nn.functional
F = ht.nn.functional

HALF = ["float16", "bfloat16"]
DTYPES = ["float32"] + HALF
# relative to max(1, |reference|max): one rounding of the result (and of intermediates) in 2-byte floats
TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 4e-3, "bfloat16": 3e-2}


@pytest.fixture
def rng():
    return np.random.default_rng(23)


def make(shape, dtype, rng, low=-3.0, high=3.0, view=None):
    """(device array, torch reference tensor) of the same values: the reference is float32 (float64
    for float64) holding the values rounded to `dtype`. `view` takes the same view of both."""
    host = values(dtype, shape, rng, low, high)
    ref = torch.from_numpy(np.ascontiguousarray(host.astype(np.float64 if dtype == "float64" else np.float32)))
    dev = ht.asarray(host, dtype=dtype)
    if view is not None:
        dev, ref = view(dev), view(ref)
    return dev, ref


def check(got, want, dtype, tol=None, scale=None):
    """got (hip.tensor, dtype `dtype`) equals the torch reference within tol * max(1, |want|max)."""
    assert isinstance(got, ht.ndarray), type(got)
    assert got.dtype.name == dtype, (got.dtype.name, dtype)
    w = want.detach().double().numpy()
    g = got.get().astype(np.float64)
    assert g.shape == w.shape, (g.shape, w.shape)
    t = TOL[dtype] if tol is None else tol
    finite = np.isfinite(w)
    s = scale if scale is not None else max(1.0, float(np.abs(w[finite]).max()) if finite.any() else 1.0)
    np.testing.assert_allclose(g, w, rtol=t, atol=t * s, equal_nan=True)


VIEWS = {
    "contiguous": ((6, 40), None),
    "strided": ((6, 80), lambda a: a[:, ::2]),
    "transposed": ((40, 6), lambda a: a.T),
    "batched3d": ((3, 4, 33), None),
}


# -- activations -----------------------------------------------------------------------------------------------
ACTS = {
    "relu": (lambda x: F.relu(x), lambda t: TF.relu(t)),
    "sigmoid": (lambda x: F.sigmoid(x), lambda t: torch.sigmoid(t)),
    "tanh": (lambda x: F.tanh(x), lambda t: torch.tanh(t)),
    "gelu": (lambda x: F.gelu(x), lambda t: TF.gelu(t)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda t: TF.gelu(t, approximate="tanh")),
    "silu": (lambda x: F.silu(x), lambda t: TF.silu(t)),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", DTYPES + ["float64"])
@pytest.mark.parametrize("name", list(ACTS))
def test_activation(name, dtype, view, rng):
    shape, v = VIEWS[view]
    x, t = make(shape, dtype, rng, view=v)
    ours, theirs = ACTS[name]
    check(ours(x), theirs(t), dtype)


def test_activations_special_values():
    finite = [np.nan, 0.0, -0.0, 50.0, -50.0, 1e-30, -1e-30]
    for name, (ours, theirs) in ACTS.items():
        vals = finite + ([np.inf, -np.inf] if name in ("relu", "sigmoid", "tanh") else [])
        a = np.array(vals, np.float32)
        check(ours(ht.asarray(a)), theirs(torch.from_numpy(a)), "float32")


def test_relu_and_silu_inplace(rng):
    """In place: contiguous (the flat launch, vector loads from 4096 elements on; one launch) and
    strided (the general path)."""
    x, t = make((5, 9), "float32", rng)
    y = F.relu(x, inplace=True)
    assert y is x
    check(x, TF.relu(t), "float32")
    x, t = make((5, 9), "float16", rng)
    assert F.silu(x, inplace=True) is x
    check(x, TF.silu(t), "float16")
    for dtype in DTYPES:
        x, t = make((4, 64, 33), dtype, rng)
        before = _launch.launches()
        assert F.relu(x, inplace=True) is x
        assert _launch.launches() - before == 1
        check(x, TF.relu(t), dtype)
        x, t = make((4, 64, 33), dtype, rng)
        xs = x[:, ::2]
        assert F.silu(xs, inplace=True) is xs
        want = t.clone()
        want[:, ::2] = TF.silu(t[:, ::2])
        check(x, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_clamp(dtype, rng):
    x, t = make((7, 11), dtype, rng, view=lambda a: a[:, 1:])
    check(F.clamp(x, -1.0, 0.5), torch.clamp(t, -1.0, 0.5), dtype, tol=0)
    check(F.clamp(x, min=0.25), torch.clamp(t, min=0.25), dtype, tol=0)
    check(F.clamp(x, max=-0.25), torch.clamp(t, max=-0.25), dtype, tol=0)
    check(F.clamp(x, 1.0, -1.0), torch.clamp(t, 1.0, -1.0), dtype, tol=0)      # min > max: max
    lo, tlo = make((1, 10), dtype, rng, -1, 0)
    check(F.clamp(x, lo), torch.clamp(t, tlo), dtype, tol=0)
    with pytest.raises(ValueError):
        F.clamp(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_where(dtype, rng):
    x, t = make((6, 8), dtype, rng)
    y, u = make((8,), dtype, rng)
    cond = rng.random((6, 8)) < 0.5
    check(F.where(ht.asarray(cond), x, y), torch.where(torch.from_numpy(cond), t, u), dtype, tol=0)
    with pytest.raises(TypeError):
        F.where(ht.asarray(cond.astype(np.int32)), x, y)


# -- dropout ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_dropout_statistics_and_scaling(dtype, rng):
    n = 200_000
    host = values(dtype, (n,), rng, 0.5, 2.0)
    x = ht.asarray(host, dtype=dtype)
    for p in (0.1, 0.5, 0.8):
        y = F.dropout(x, p, training=True, generator=7).get().astype(np.float64)
        kept = y != 0
        assert abs(1.0 - kept.mean() - p) < 0.01, (p, kept.mean())
        want = host.astype(np.float64)[kept] * (1.0 / (1.0 - p))
        np.testing.assert_allclose(y[kept], want, rtol=TOL[dtype] if dtype != "float32" else 1e-6)
    a = F.dropout(x, 0.5, generator=123).get()
    b = F.dropout(x, 0.5, generator=123).get()
    c = F.dropout(x, 0.5, generator=124).get()
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert not F.dropout(x, 1.0).get().any()
    for bad in (-0.1, 1.5, "a"):
        with pytest.raises(ValueError):
            F.dropout(x, bad)


def test_dropout_strided_matches_contiguous_mask():
    """The mask depends on the element's logical index, not on the layout."""
    base = ht.asarray(np.arange(1, 1 + 2 * 64 * 33, dtype=np.float32).reshape(64, 66))
    view = base[:, ::2]
    a = F.dropout(view, 0.5, generator=5).get()
    b = F.dropout(view.copy(), 0.5, generator=5).get()
    np.testing.assert_array_equal(a, b)


# -- linear ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear(dtype, activation, rng):
    x, t = make((3, 5, 48), dtype, rng, -1, 1)
    w, tw = make((24, 48), dtype, rng, -0.5, 0.5)
    b, tb = make((24,), dtype, rng)
    want = TF.linear(t, tw, tb)
    if activation is not None:
        want = ACTS[activation][1](want)
    tol = {"float32": 2e-5, "float16": 8e-3, "bfloat16": 5e-2}[dtype]
    check(F.linear(x, w, b, activation=activation), want, dtype, tol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_no_bias_and_views(dtype, rng):
    x, t = make((48, 10), dtype, rng, -1, 1, view=lambda a: a.T)          # (10, 48) transposed
    w, tw = make((16, 96), dtype, rng, -0.5, 0.5, view=lambda a: a[:, ::2])
    tol = {"float32": 2e-5, "float16": 8e-3, "bfloat16": 5e-2}[dtype]
    check(F.linear(x, w), TF.linear(t, tw), dtype, tol=tol)
    check(F.linear(x[0], w), TF.linear(t[0], tw), dtype, tol=tol)            # 1-d input
    check(F.linear(x, w, activation="relu"), TF.relu(TF.linear(t, tw)), dtype, tol=tol)


def test_linear_bad_input(rng):
    x, _ = make((4, 8), "float32", rng)
    w, _ = make((3, 8), "float32", rng)
    with pytest.raises(ValueError):
        F.linear(x, w.T)
    with pytest.raises(ValueError):
        F.linear(x, w, ht.zeros((4,), dtype="float32"))
    with pytest.raises(TypeError):
        F.linear(x, w.astype("float16"))
    with pytest.raises(TypeError):
        F.linear(x.astype("int32"), w)
    with pytest.raises(ValueError):
        F.linear(x, w, activation="softplus")
    with pytest.raises(TypeError):
        F.linear(np.ones((4, 8), np.float32), w)


# -- softmax ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", DTYPES + ["float64"])
def test_softmax(dtype, dim, log, rng):
    x, t = make((5, 7, 300), dtype, rng, -8, 8)
    ours, theirs = (F.log_softmax, TF.log_softmax) if log else (F.softmax, TF.softmax)
    check(ours(x, dim=dim), theirs(t, dim=dim), dtype)


@pytest.mark.parametrize("n", [1, 3, 64, 1000, 8192, 20000])
def test_softmax_row_lengths(n, rng):
    x, t = make((4, n), "float32", rng, -20, 20)
    check(F.softmax(x, dim=-1), TF.softmax(t, dim=-1), "float32")
    check(F.log_softmax(x, dim=-1), TF.log_softmax(t, dim=-1), "float32")


# Row lengths at the warp path's boundaries: each lane count (1, 2, 4, 32), elements per lane (1 to 64),
# two rows per lane group up to 128, loads of 1 to 16 bytes (n odd, even, a multiple of 4 or 8), its
# end (2048; 1024 in float64) and the block path past it. 21 rows: a multiple of no block's rows.
EDGES = [1, 2, 3, 31, 32, 33, 64, 127, 128, 129, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 4096]
EDGES_SHORT = [1, 33, 512, 513, 1024, 1025, 2048, 2049]
MODES = {"softmax": (F.softmax, TF.softmax, None), "log_softmax_scaled": (F.log_softmax, TF.log_softmax, 0.125)}


def _edge_cases():
    for dtype in DTYPES + ["float64"]:
        for n in (EDGES if dtype in ("float32", "bfloat16") else EDGES_SHORT):
            for mode in MODES:
                yield dtype, n, mode


@pytest.mark.parametrize("dtype,n,mode", list(_edge_cases()))
def test_softmax_row_length_edges(dtype, n, mode, rng):
    ours, theirs, scale = MODES[mode]
    x, t = make((3, 7, n), dtype, rng, -8, 8)
    check(ours(x, dim=-1, scale=scale), theirs(t if scale is None else t * scale, dim=-1), dtype)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("n", [33, 512, 1025, 3000])
def test_softmax_scale(n, log, rng):
    ours, theirs = (F.log_softmax, TF.log_softmax) if log else (F.softmax, TF.softmax)
    x, t = make((5, n), "float32", rng, -8, 8)
    check(ours(x, dim=-1, scale=-0.5), theirs(t * -0.5, dim=-1), "float32")
    check(ours(x, dim=0, scale=3), theirs(t * 3, dim=0), "float32")


@pytest.mark.parametrize("offset", [1, 2, 4])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_softmax_misaligned_rows(dtype, offset, rng):
    """Contiguous rows whose start is off the 16-byte grid: narrower loads, same values."""
    base, tbase = make((offset + 6 * 512,), dtype, rng, -8, 8)
    x, t = base[offset:].reshape((6, 512)), tbase[offset:].reshape(6, 512)
    assert x.ptr % 16 == offset * x.itemsize % 16           # a view: the offset stays
    check(F.softmax(x, dim=-1), TF.softmax(t, dim=-1), dtype)
    check(F.log_softmax(x, dim=-1), TF.log_softmax(t, dim=-1), dtype)


@pytest.mark.parametrize("n", [8, 512, 3000])
def test_softmax_grid_stride(n, rng, monkeypatch):
    """More rows than the grid has blocks: each block loops over further rows (both paths)."""
    from hip.tensor.nn import _softmax
    monkeypatch.setattr(_softmax, "MAX_GRID", 3)
    x, t = make((500, n), "float32", rng, -8, 8)
    check(F.softmax(x, dim=-1), TF.softmax(t, dim=-1), "float32")
    check(F.log_softmax(x, dim=-1, scale=0.5), TF.log_softmax(t * 0.5, dim=-1), "float32")


def special_rows(n, dtype):
    """Rows of n with +-inf, NaN, a row of -inf, a lone finite value among -inf, large values:
    (ours, torch's)."""
    a = softmax_special_rows(n)
    host = round_bf16(a) if dtype == "bfloat16" else a.astype(dtype)
    return host, torch.from_numpy(host.astype(np.float64 if dtype == "float64" else np.float32))


@pytest.mark.parametrize("n", [3, 40, 513, 3000])
@pytest.mark.parametrize("dtype", DTYPES + ["float64"])
def test_softmax_special_values(dtype, n):
    """Special rows (a row of -inf gives NaN, as PyTorch), on both paths, plain and scaled."""
    host, t = special_rows(n, dtype)
    x = ht.asarray(host, dtype=dtype)
    check(F.softmax(x, dim=1), TF.softmax(t, dim=1), dtype)
    check(F.log_softmax(x, dim=1), TF.log_softmax(t, dim=1), dtype)
    check(F.softmax(x, dim=1, scale=0.5), TF.softmax(t * 0.5, dim=1), dtype)
    check(F.log_softmax(x, dim=1, scale=0.5), TF.log_softmax(t * 0.5, dim=1), dtype)


@pytest.mark.parametrize("n", [3, 40, 3000])
@pytest.mark.parametrize("dtype", DTYPES + ["float64"])
def test_softmax_special_values_other_dim(dtype, n):
    """The special rows along dim 0 (strided rows: the block path at every length)."""
    host, t = special_rows(n, dtype)
    x = ht.asarray(np.ascontiguousarray(host.T), dtype=dtype)
    tt = t.T.contiguous()
    check(F.softmax(x, dim=0), TF.softmax(tt, dim=0), dtype)
    check(F.log_softmax(x, dim=0), TF.log_softmax(tt, dim=0), dtype)


def test_softmax_bad_input(rng):
    x, _ = make((3, 4), "float32", rng)
    with pytest.raises(TypeError):
        F.softmax(x)                        # no dim
    with pytest.raises(IndexError):
        F.softmax(x, dim=2)
    with pytest.raises(TypeError):
        F.softmax(x.astype("int64"), dim=0)


# -- normalization ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape,ns", [((6, 50), (50,)), ((3, 4, 10, 8), (10, 8)), ((2, 8192), (8192,)),
                                      ((5, 3), (5, 3))])
@pytest.mark.parametrize("dtype", DTYPES + ["float64"])
def test_layer_norm(dtype, shape, ns, affine, rng):
    x, t = make(shape, dtype, rng, -2, 4)
    w, tw = make(ns, dtype, rng) if affine else (None, None)
    b, tb = make(ns, dtype, rng) if affine else (None, None)
    check(F.layer_norm(x, ns, w, b, eps=1e-5), TF.layer_norm(t, ns, tw, tb, eps=1e-5), dtype,
          tol=3e-5 if dtype == "float32" else None)


def test_layer_norm_noncontiguous_and_bad(rng):
    x, t = make((30, 8), "float32", rng, view=lambda a: a.T)
    check(F.layer_norm(x, (30,)), TF.layer_norm(t, (30,)), "float32", tol=3e-5)
    with pytest.raises(ValueError):
        F.layer_norm(x, (8,))
    with pytest.raises(ValueError):
        F.layer_norm(x, (30,), ht.ones((29,), dtype="float32"))
    with pytest.raises(TypeError):
        F.layer_norm(x, (30,), ht.ones((30,), dtype="float16"))


@pytest.mark.parametrize("groups", [1, 2, 3, 6])
@pytest.mark.parametrize("dtype", DTYPES)
def test_group_norm(dtype, groups, rng):
    x, t = make((3, 6, 5, 4), dtype, rng, -1, 3)
    w, tw = make((6,), dtype, rng)
    b, tb = make((6,), dtype, rng)
    check(F.group_norm(x, groups, w, b), TF.group_norm(t, groups, tw, tb), dtype,
          tol=3e-5 if dtype == "float32" else None)
    check(F.group_norm(x, groups), TF.group_norm(t, groups), dtype, tol=3e-5 if dtype == "float32" else None)
    with pytest.raises(ValueError):
        F.group_norm(x, 4)


@pytest.mark.parametrize("shape", [(8, 5), (4, 5, 6), (4, 5, 3, 7)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_inference(dtype, shape, rng):
    x, t = make(shape, dtype, rng)
    rm, trm = make((5,), dtype, rng, -1, 1)
    rv, trv = make((5,), dtype, rng, 0.5, 2)
    w, tw = make((5,), dtype, rng)
    b, tb = make((5,), dtype, rng)
    check(F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3),
          TF.batch_norm(t, trm, trv, tw, tb, training=False, eps=1e-3), dtype, tol=2e-5 if dtype == "float32" else None)
    check(F.batch_norm(x, rm, rv), TF.batch_norm(t, trm, trv), dtype, tol=2e-5 if dtype == "float32" else None)


@pytest.mark.parametrize("shape", [(16, 5), (4, 5, 3, 7)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_training_updates_running_stats(dtype, shape, rng):
    x, t = make(shape, dtype, rng, -1, 3)
    rm, trm = make((5,), "float32", rng, -1, 1)
    rv, trv = make((5,), "float32", rng, 0.5, 2)
    w, tw = make((5,), dtype, rng)
    b, tb = make((5,), dtype, rng)
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
    want = TF.batch_norm(t, trm, trv, tw, tb, training=True, momentum=0.2)      # updates trm, trv in place
    check(y, want, dtype, tol=3e-5 if dtype == "float32" else None)
    check(rm, trm, "float32", tol=2e-5)
    check(rv, trv, "float32", tol=2e-5)
    with pytest.raises(ValueError):
        F.batch_norm(ht.ones((1, 5), dtype=dtype), None, None, training=True)
    with pytest.raises(ValueError):
        F.batch_norm(x, None, None, training=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_inference_pass(dtype, rng):
    """The eval pass compiled per plan: vector widths 4, 2, 1 (S = 32, 6, 21), float32 running
    statistics with a 2-byte input, no weight or no bias, an input 1 element off 16 bytes, and a
    repeated call (from the kept plan)."""
    tol = 2e-5 if dtype == "float32" else None
    for shape in [(2, 5, 4, 8), (4, 5, 6), (3, 5, 3, 7)]:
        x, t = make(shape, dtype, rng)
        rm, trm = make((5,), "float32", rng, -1, 1)
        rv, trv = make((5,), "float32", rng, 0.5, 2)
        w, tw = make((5,), dtype, rng)
        b, tb = make((5,), dtype, rng)
        for _ in range(2):
            check(F.batch_norm(x, rm, rv, w, b, eps=1e-3), TF.batch_norm(t, trm, trv, tw, tb, eps=1e-3), dtype, tol=tol)
        check(F.batch_norm(x, rm, rv, None, b), TF.batch_norm(t, trm, trv, None, tb), dtype, tol=tol)
        check(F.batch_norm(x, rm, rv, w, None), TF.batch_norm(t, trm, trv, tw, None), dtype, tol=tol)
        flat, tflat = make((1 + t.numel(),), dtype, rng)
        xo, to = flat[1:].reshape(shape), tflat[1:].reshape(shape)
        for _ in range(2):
            check(F.batch_norm(xo, rm, rv, w, b), TF.batch_norm(to, trm, trv, tw, tb), dtype, tol=tol)


def test_batch_norm_module_eval_against_torch(rng):
    """BatchNorm2d in eval with a PyTorch module's state_dict, called twice."""
    tm = torch.nn.BatchNorm2d(6).eval()
    with torch.no_grad():
        tm.running_mean.uniform_(-1, 1)
        tm.running_var.uniform_(0.5, 2)
        tm.weight.uniform_(0.5, 1.5)
        tm.bias.uniform_(-0.5, 0.5)
    m = ht.nn.BatchNorm2d(6).eval()
    m.load_state_dict(tm.state_dict())
    x, t = make((3, 6, 7, 7), "float32", rng)
    with torch.no_grad():
        want = tm(t)
    for _ in range(2):
        check(m(x), want, "float32", tol=2e-5)


def test_batch_norm_noncontiguous(rng):
    x, t = make((5, 4, 6, 3), "float32", rng, view=lambda a: a.permute(3, 2, 1, 0) if hasattr(a, "permute")
                else ht.permute_dims(a, (3, 2, 1, 0)))
    rm, trm = make((6,), "float32", rng)
    rv, trv = make((6,), "float32", rng, 0.5, 2)
    check(F.batch_norm(x, rm, rv), TF.batch_norm(t, trm, trv), "float32", tol=2e-5)


# -- losses ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_mse_loss(dtype, reduction, rng):
    x, t = make((6, 18), dtype, rng, view=lambda a: a[:, ::2])
    y, u = make((6, 9), dtype, rng)
    check(F.mse_loss(x, y, reduction=reduction), TF.mse_loss(t, u, reduction=reduction), dtype)
    with pytest.raises(ValueError):
        F.mse_loss(x, y[:3])
    with pytest.raises(ValueError):
        F.mse_loss(x, y, reduction="avg")


def _targets(rng, shape, C, ignore=None):
    t = np.asarray(rng.integers(0, C, size=shape)).astype(np.int64)
    if ignore is not None:
        t.flat[::4] = ignore
    return ht.asarray(t), torch.from_numpy(t)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(7, 5), (3, 5, 4, 2), (5,)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_nll_and_cross_entropy(dtype, shape, reduction, rng):
    x, t = make(shape, dtype, rng)
    C = shape[1] if len(shape) > 1 else shape[0]
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    tgt, ttgt = _targets(rng, tshape, C)
    w, tw = make((C,), dtype, rng, 0.5, 2)
    for kw in ({}, {"ignore_index": 2}):
        check(F.nll_loss(x, tgt, reduction=reduction, **kw), TF.nll_loss(t, ttgt, reduction=reduction, **kw), dtype)
        check(F.nll_loss(x, tgt, w, reduction=reduction, **kw), TF.nll_loss(t, ttgt, tw, reduction=reduction, **kw),
              dtype)
        check(F.cross_entropy(x, tgt, reduction=reduction, **kw),
              TF.cross_entropy(t, ttgt, reduction=reduction, **kw), dtype)
        check(F.cross_entropy(x, tgt, w, reduction=reduction, **kw),
              TF.cross_entropy(t, ttgt, tw, reduction=reduction, **kw), dtype)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_probabilities(reduction, rng):
    x, t = make((6, 5, 3), "float32", rng)
    p = rng.random((6, 5, 3)).astype(np.float32)
    p /= p.sum(axis=1, keepdims=True)
    w, tw = make((5,), "float32", rng, 0.5, 2)
    check(F.cross_entropy(x, ht.asarray(p), reduction=reduction),
          TF.cross_entropy(t, torch.from_numpy(p), reduction=reduction), "float32")
    check(F.cross_entropy(x, ht.asarray(p), w, reduction=reduction),
          TF.cross_entropy(t, torch.from_numpy(p), tw, reduction=reduction), "float32")


def test_nll_ignore_and_bad_targets(rng):
    x, t = make((8, 4), "float32", rng)
    tgt, ttgt = _targets(rng, (8,), 4, ignore=-100)
    check(F.nll_loss(x, tgt), TF.nll_loss(t, ttgt), "float32")
    check(F.cross_entropy(x, tgt), TF.cross_entropy(t, ttgt), "float32")
    with pytest.raises(IndexError):
        F.nll_loss(x, ht.asarray(np.array([0, 1, 2, 4, 0, 0, 0, 0])))
    with pytest.raises(IndexError):
        F.cross_entropy(x, ht.asarray(np.array([0, 1, 2, -1, 0, 0, 0, 0])))
    with pytest.raises(TypeError):
        F.nll_loss(x, ht.asarray(np.zeros(8, np.float32)))
    with pytest.raises(ValueError):
        F.nll_loss(x, ht.asarray(np.zeros(7, np.int64)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy(dtype, reduction, rng):
    x, t = make((7, 6), dtype, rng, 0.01, 0.99)
    y, u = make((7, 6), dtype, rng, 0.0, 1.0)
    w, tw = make((6,), dtype, rng, 0.5, 2)
    check(F.binary_cross_entropy(x, y, reduction=reduction), TF.binary_cross_entropy(t, u, reduction=reduction), dtype)
    check(F.bce_loss(x, y, w, reduction=reduction), TF.binary_cross_entropy(t, u, tw, reduction=reduction), dtype)
    edge = np.array([0.0, 1.0, 0.5], np.float32)
    tg = np.array([1.0, 0.0, 1.0], np.float32)
    check(F.binary_cross_entropy(ht.asarray(edge), ht.asarray(tg), reduction="none"),
          TF.binary_cross_entropy(torch.from_numpy(edge), torch.from_numpy(tg), reduction="none"), "float32")


# -- pooling ---------------------------------------------------------------------------------------------------
POOL_CASES = [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=(2, 3) , stride=(1, 2)), dict(kernel_size=3, stride=2, ceil_mode=True),
]


def _nd(case, nd):
    out = {}
    for k, v in case.items():
        out[k] = tuple(v[i % len(v)] for i in range(nd)) if isinstance(v, tuple) else v
    return out


@pytest.mark.parametrize("case", range(len(POOL_CASES)))
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_and_avg_pool(dtype, nd, case, rng):
    kw = _nd(POOL_CASES[case], nd)
    shape = (2, 3) + (9, 8, 7)[:nd]
    x, t = make(shape, dtype, rng)
    ours = getattr(F, f"max_pool{nd}d"), getattr(F, f"avg_pool{nd}d")
    theirs = getattr(TF, f"max_pool{nd}d"), getattr(TF, f"avg_pool{nd}d")
    check(ours[0](x, **kw), theirs[0](t, **kw), dtype, tol=0 if dtype == "float32" else None)
    check(ours[1](x, **kw), theirs[1](t, **kw), dtype)
    check(ours[1](x, count_include_pad=False, **kw), theirs[1](t, count_include_pad=False, **kw), dtype)


def test_pool_dilation_unbatched_noncontiguous_nan(rng):
    x, t = make((3, 20, 18), "float32", rng, view=lambda a: a[:, ::2, 1:])      # unbatched (C, H, W), strided
    check(F.max_pool2d(x, 3, 2, 1, dilation=2), TF.max_pool2d(t, 3, 2, 1, dilation=2), "float32", tol=0)
    check(F.avg_pool2d(x, 2, divisor_override=3), TF.avg_pool2d(t, 2, divisor_override=3), "float32")
    a = np.ones((1, 1, 4, 4), np.float32)
    a[0, 0, 1, 1] = np.nan
    check(F.max_pool2d(ht.asarray(a), 2), TF.max_pool2d(torch.from_numpy(a), 2), "float32", tol=0)
    with pytest.raises(ValueError):
        F.max_pool2d(x, 2, padding=2)        # padding over half the kernel
    with pytest.raises(ValueError):
        F.max_pool2d(ht.ones((4, 4), dtype="float32"), 2)
    with pytest.raises(NotImplementedError):
        F.max_pool2d(x, 2, return_indices=True)


@pytest.mark.parametrize("out", [1, 3, (4, 2), (5, 7), (None, 3), 9])
@pytest.mark.parametrize("dtype", DTYPES)
def test_adaptive_avg_pool2d(dtype, out, rng):
    x, t = make((2, 3, 9, 7), dtype, rng)
    check(F.adaptive_avg_pool2d(x, out), TF.adaptive_avg_pool2d(t, out), dtype)


def test_pools_from_their_plans(rng):
    """ResNet's pools called again with the same layout (their kept plans), on other values, and
    with another stride (its own plan)."""
    for _ in range(2):
        x, t = make((3, 8, 15, 15), "float32", rng)
        check(F.max_pool2d(x, 3, 2, 1), TF.max_pool2d(t, 3, 2, 1), "float32", tol=0)
        check(F.max_pool2d(x, 3, 1, 1), TF.max_pool2d(t, 3, 1, 1), "float32", tol=0)
        check(F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), TF.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
              "float32")
        check(F.adaptive_avg_pool2d(x, (1, 1)), TF.adaptive_avg_pool2d(t, (1, 1)), "float32")


def test_adaptive_avg_pool_1d_3d(rng):
    x, t = make((2, 3, 10), "float32", rng)
    check(F.adaptive_avg_pool1d(x, 4), TF.adaptive_avg_pool1d(t, 4), "float32")
    x, t = make((2, 3, 5, 6, 7), "float32", rng)
    check(F.adaptive_avg_pool3d(x, (2, 3, 4)), TF.adaptive_avg_pool3d(t, (2, 3, 4)), "float32")


# -- convolution -----------------------------------------------------------------------------------------------
CONV_CASES = [
    dict(), dict(stride=2), dict(padding=1), dict(padding=2, dilation=2), dict(stride=2, padding=1, groups=2),
    dict(groups=4), dict(padding="same"), dict(padding="same", dilation=2), dict(padding="valid", stride=3),
]
CONV_TOL = {"float32": 5e-5, "float16": 1e-2, "bfloat16": 6e-2}


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv(dtype, nd, case, bias, rng):
    kw = CONV_CASES[case]
    g = kw.get("groups", 1)
    spatial = (11, 10, 6)[:nd]
    k = (3, 2, 3)[:nd] if kw.get("padding") != "same" else (3, 4, 3)[:nd]
    x, t = make((2, 4) + spatial, dtype, rng, -1, 1)
    w, tw = make((8, 4 // g) + k, dtype, rng, -0.5, 0.5)
    b, tb = make((8,), dtype, rng) if bias else (None, None)
    ours, theirs = getattr(F, f"conv{nd}d"), getattr(TF, f"conv{nd}d")
    check(ours(x, w, b, **kw), theirs(t, tw, tb, **kw), dtype, tol=CONV_TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv2d_depthwise_noncontiguous_unbatched(dtype, rng):
    x, t = make((2, 6, 14, 12), dtype, rng, -1, 1, view=lambda a: a[:, :, ::2, :])
    w, tw = make((6, 1, 3, 3), dtype, rng, -0.5, 0.5)
    check(F.conv2d(x, w, padding=1, groups=6), TF.conv2d(t, tw, padding=1, groups=6), dtype, tol=CONV_TOL[dtype])
    check(F.conv2d(x[0], w, padding=1, groups=6), TF.conv2d(t[0], tw, padding=1, groups=6), dtype,
          tol=CONV_TOL[dtype])


def test_conv2d_larger_batch(rng):
    """Enough samples that im2col runs in several chunks."""
    from hip.tensor.nn import _conv
    old = _conv.COL_BYTES
    _conv.COL_BYTES = 40_000
    try:
        x, t = make((7, 3, 16, 16), "float32", rng, -1, 1)
        w, tw = make((5, 3, 3, 3), "float32", rng, -0.5, 0.5)
        b, tb = make((5,), "float32", rng)
        check(F.conv2d(x, w, b, padding=1), TF.conv2d(t, tw, tb, padding=1), "float32", tol=5e-5)
    finally:
        _conv.COL_BYTES = old


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("groups", [1, 2, 8])
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv2d_1x1(dtype, groups, bias, unbatched, rng):
    """1x1, stride 1, no padding: the gemm reads the input itself (no im2col); groups 2 walk
    (group, sample), groups 8 > 3 samples walk (sample, group)."""
    x, t = make((3, 16, 7, 9), dtype, rng, -1, 1)
    w, tw = make((24, 16 // groups, 1, 1), dtype, rng, -0.5, 0.5)
    b, tb = make((24,), dtype, rng) if bias else (None, None)
    if unbatched:
        x, t = x[1], t[1]
    check(F.conv2d(x, w, b, groups=groups), TF.conv2d(t, tw, tb, groups=groups), dtype, tol=CONV_TOL[dtype])
    check(F.conv2d(x, w, b, padding="same", groups=groups), TF.conv2d(t, tw, tb, padding="same", groups=groups),
          dtype, tol=CONV_TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_1x1_other_paths(dtype, rng):
    """1x1 kernels that need im2col (stride, padding), a non-contiguous input, and 1-d/3-d."""
    x, t = make((2, 8, 9, 10), dtype, rng, -1, 1, view=lambda a: a[:, :, :, ::2])
    w, tw = make((6, 8, 1, 1), dtype, rng, -0.5, 0.5)
    b, tb = make((6,), dtype, rng)
    tol = CONV_TOL[dtype]
    check(F.conv2d(x, w, b), TF.conv2d(t, tw, tb), dtype, tol=tol)
    check(F.conv2d(x, w, b, stride=2), TF.conv2d(t, tw, tb, stride=2), dtype, tol=tol)
    check(F.conv2d(x, w, b, padding=1), TF.conv2d(t, tw, tb, padding=1), dtype, tol=tol)
    check(F.conv2d(x, w, b, stride=(1, 2), padding=(1, 0)), TF.conv2d(t, tw, tb, stride=(1, 2), padding=(1, 0)),
          dtype, tol=tol)
    x, t = make((3, 8, 13), dtype, rng, -1, 1)
    check(F.conv1d(x, w[..., 0], b), TF.conv1d(t, tw[..., 0], tb), dtype, tol=tol)
    x, t = make((2, 8, 3, 4, 5), dtype, rng, -1, 1)
    check(F.conv3d(x, w[..., None], b), TF.conv3d(t, tw[..., None], tb), dtype, tol=tol)


RESNET_CASES = [  # (N, Cin, Cout, H, W, kernel, kwargs): small versions of ResNet layers and odd shapes
    (4, 16, 8, 14, 14, 3, dict(padding=1)),
    (4, 16, 16, 14, 14, 3, dict(stride=2, padding=1)),
    (3, 8, 16, 15, 13, 1, dict(stride=2)),
    (2, 3, 8, 40, 150, (3, 5), dict(stride=(1, 2), padding=2)),         # output rows longer than a block
    (5, 12, 12, 9, 9, 3, dict(padding=1, groups=3)),                    # groups < samples: (group, sample)
    (2, 12, 24, 9, 9, 3, dict(stride=2, padding=1, groups=12)),         # depthwise, groups > samples
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", range(len(RESNET_CASES)))
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv2d_shapes(dtype, case, bias, rng):
    n, cin, cout, h, wd, k, kw = RESNET_CASES[case]
    k = (k, k) if isinstance(k, int) else k
    x, t = make((n, cin, h, wd), dtype, rng, -1, 1)
    w, tw = make((cout, cin // kw.get("groups", 1)) + k, dtype, rng, -0.5, 0.5)
    b, tb = make((cout,), dtype, rng) if bias else (None, None)
    check(F.conv2d(x, w, b, **kw), TF.conv2d(t, tw, tb, **kw), dtype, tol=CONV_TOL[dtype])
    check(F.conv2d(x[0], w, b, **kw), TF.conv2d(t[0], tw, tb, **kw), dtype, tol=CONV_TOL[dtype])


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_im2col_64bit_indices(nd, rng, monkeypatch):
    """The 64-bit index im2col (chosen for arrays near 2^31 elements), forced on small shapes."""
    from hip.tensor.nn import _conv
    monkeypatch.setattr(_conv, "WIDE_AT", 0)                  # every array "past 2^31 elements": wide
    monkeypatch.setattr(_conv, "IM2COL_GRID", 1)               # one block: the grid-stride loop runs
    x, t = make((2, 4) + (9, 8, 7)[:nd], "float32", rng, -1, 1)
    w, tw = make((6, 2) + (3, 2, 3)[:nd], "float32", rng, -0.5, 0.5)
    b, tb = make((6,), "float32", rng)
    kw = dict(stride=2, padding=1, dilation=1, groups=2)
    check(getattr(F, f"conv{nd}d")(x, w, b, **kw), getattr(TF, f"conv{nd}d")(t, tw, tb, **kw), "float32", tol=5e-5)


@pytest.mark.parametrize("groups", [1, 2])
def test_conv2d_chunks_with_groups(groups, rng, monkeypatch):
    """Several im2col chunks (one col buffer reused) with and without groups, bias and not."""
    from hip.tensor.nn import _conv
    monkeypatch.setattr(_conv, "COL_BYTES", 60_000)
    x, t = make((7, 4, 16, 16), "float32", rng, -1, 1)
    w, tw = make((6, 4 // groups, 3, 3), "float32", rng, -0.5, 0.5)
    b, tb = make((6,), "float32", rng)
    check(F.conv2d(x, w, b, padding=1, groups=groups), TF.conv2d(t, tw, tb, padding=1, groups=groups), "float32",
          tol=5e-5)
    check(F.conv2d(x, w, stride=2, groups=groups), TF.conv2d(t, tw, stride=2, groups=groups), "float32", tol=5e-5)


TORCH_ACT = {None: lambda t: t, "relu": TF.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "gelu": TF.gelu,
             "gelu_tanh": lambda t: TF.gelu(t, approximate="tanh"), "silu": TF.silu}
POST_CASES = [  # (N, Cin, Cout, H, W, kernel, kwargs): the pass's vector widths (P = 196, 49, 98), 1x1, chunks
    (4, 8, 16, 14, 14, 3, dict(padding=1)),
    (3, 8, 12, 14, 14, 3, dict(stride=2, padding=1)),
    (3, 8, 12, 14, 7, 1, dict()),
    (2, 6, 8, 13, 13, 1, dict(stride=2)),
]


@pytest.mark.parametrize("one_gemm", [True, False], ids=["one-gemm", "per-sample"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_pass_after_the_gemm(dtype, one_gemm, rng, monkeypatch):
    """act(conv + bias + residual) by the pass compiled per plan, both gemm forms, against PyTorch,
    the activations taken in turn over the shapes and bias/residual combinations (every one
    appears with and without a residual); each call twice (the second from the kept plan) and
    unbatched; a residual 2 or 4 bytes off 16 (element reads); then im2col in chunks."""
    from hip.tensor.nn import _conv
    monkeypatch.setattr(_conv, "ONE_GEMM", one_gemm)
    acts = list(TORCH_ACT)
    turn = 0
    for n, cin, cout, h, wd, k, kw in POST_CASES:
        x, t = make((n, cin, h, wd), dtype, rng, -1, 1)
        w, tw = make((cout, cin, k, k), dtype, rng, -0.5, 0.5)
        for bias in (True, False):
            b, tb = make((cout,), dtype, rng) if bias else (None, None)
            ref = TF.conv2d(t, tw, tb, **kw)
            r, tr = make((1 + ref.numel(),), dtype, rng, -1, 1)
            r, tr = r[1:].reshape(tuple(ref.shape)), tr[1:].reshape(ref.shape)
            for res in (None, r):
                act = acts[turn % len(acts)]
                turn += 1
                tol = CONV_TOL[dtype] * (2 if act in ("gelu", "gelu_tanh", "silu") and dtype != "float32" else 1)
                want = TORCH_ACT[act](ref + (tr if res is not None else 0))
                for _ in range(2):
                    check(F.conv2d(x, w, b, activation=act, residual=res, **kw), want, dtype, tol=tol)
                got = F.conv2d(x[1], w, b, activation=act, residual=None if res is None else res[1], **kw)
                check(got, want[1], dtype, tol=tol)
    assert turn >= 2 * len(acts)
    monkeypatch.setattr(_conv, "COL_BYTES", 2 * 8 * 9 * 196 * ht.dtype(dtype).itemsize)    # chunks of 2, 2, 1
    x, t = make((5, 8, 14, 14), dtype, rng, -1, 1)
    w, tw = make((16, 8, 3, 3), dtype, rng, -0.5, 0.5)
    b, tb = make((16,), dtype, rng)
    res, tres = make((5, 16, 14, 14), dtype, rng, -1, 1)
    check(F.conv2d(x, w, b, padding=1, activation="relu", residual=res),
          TF.relu(TF.conv2d(t, tw, tb, padding=1) + tres), dtype, tol=CONV_TOL[dtype])


def test_conv_pass_with_groups_and_no_input_channels(rng):
    """groups > 1 (per-group gemms, the pass in place) and a conv of 0 input channels (the pass
    over zeros: act(bias + residual))."""
    x, t = make((3, 6, 9, 9), "float32", rng, -1, 1)
    w, tw = make((12, 2, 3, 3), "float32", rng, -0.5, 0.5)
    b, tb = make((12,), "float32", rng)
    r, tr = make((3, 12, 9, 9), "float32", rng, -1, 1)
    check(F.conv2d(x, w, b, padding=1, groups=3, activation="relu", residual=r),
          TF.relu(TF.conv2d(t, tw, tb, padding=1, groups=3) + tr), "float32", tol=5e-5)
    x0 = ht.zeros((2, 0, 5, 5), dtype="float32")
    w0 = ht.zeros((4, 0, 3, 3), dtype="float32")
    b0, tb0 = make((4,), "float32", rng)
    r0, tr0 = make((2, 4, 3, 3), "float32", rng, -1, 1)
    check(F.conv2d(x0, w0, b0, activation="relu", residual=r0), TF.relu(tb0[:, None, None] + tr0), "float32", tol=0)


def test_conv_bad_input(rng):
    x, _ = make((2, 4, 8, 8), "float32", rng)
    w, _ = make((6, 4, 3, 3), "float32", rng)
    with pytest.raises(ValueError):
        F.conv2d(x, w, groups=4)              # 6 output channels not divisible... and weight.shape[1]
    with pytest.raises(ValueError):
        F.conv2d(x, ht.ones((6, 3, 3, 3), dtype="float32"))
    with pytest.raises(ValueError):
        F.conv2d(x, w, stride=0)
    with pytest.raises(ValueError):
        F.conv2d(x, w, padding="same", stride=2)
    with pytest.raises(ValueError):
        F.conv2d(x, ht.ones((6, 4, 9, 9), dtype="float32"))
    with pytest.raises(TypeError):
        F.conv2d(x, w.astype("float16"))
    with pytest.raises(ValueError):
        F.conv2d(x[0, 0], w)
    with pytest.raises(ValueError):
        F.conv2d(x, w, ht.ones((5,), dtype="float32"))


TRANSPOSE_CASES = [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(dilation=2, padding=1),
                   dict(stride=3, groups=2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0))]


@pytest.mark.parametrize("case", range(len(TRANSPOSE_CASES)))
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_transpose2d(dtype, case, rng):
    kw = TRANSPOSE_CASES[case]
    g = kw.get("groups", 1)
    x, t = make((2, 4, 7, 6), dtype, rng, -1, 1)
    w, tw = make((4, 6 // g, 3, 3), dtype, rng, -0.5, 0.5)
    b, tb = make((6,), dtype, rng)
    check(F.conv_transpose2d(x, w, b, **kw), TF.conv_transpose2d(t, tw, tb, **kw), dtype, tol=CONV_TOL[dtype])
    check(F.conv_transpose2d(x, w, **kw), TF.conv_transpose2d(t, tw, **kw), dtype, tol=CONV_TOL[dtype])


def test_conv_transpose_1d_3d(rng):
    x, t = make((2, 3, 9), "float32", rng, -1, 1)
    w, tw = make((3, 2, 4), "float32", rng, -0.5, 0.5)
    check(F.conv_transpose1d(x, w, stride=2, padding=1), TF.conv_transpose1d(t, tw, stride=2, padding=1), "float32",
          tol=5e-5)
    x, t = make((1, 2, 4, 5, 3), "float32", rng, -1, 1)
    w, tw = make((2, 3, 2, 3, 2), "float32", rng, -0.5, 0.5)
    check(F.conv_transpose3d(x, w, stride=2), TF.conv_transpose3d(t, tw, stride=2), "float32", tol=5e-5)
    with pytest.raises(ValueError):
        F.conv_transpose2d(make((1, 4, 3, 3), "float32", rng)[0], make((4, 2, 3, 3), "float32", rng)[0],
                           stride=1, output_padding=1)


# -- bad dtypes everywhere -------------------------------------------------------------------------------------
def test_integer_inputs_raise_type_error():
    xi = ht.ones((2, 3, 4, 4), dtype="int32")
    for call in (lambda: F.relu(xi), lambda: F.gelu(xi), lambda: F.softmax(xi, dim=1), lambda: F.layer_norm(xi, (4,)),
                 lambda: F.group_norm(xi, 1), lambda: F.max_pool2d(xi, 2), lambda: F.avg_pool2d(xi, 2),
                 lambda: F.adaptive_avg_pool2d(xi, 2), lambda: F.dropout(xi),
                 lambda: F.conv2d(xi, ht.ones((1, 3, 1, 1), dtype="int32")),
                 lambda: F.mse_loss(xi, xi), lambda: F.binary_cross_entropy(xi, xi)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(ValueError):
        F.gelu(ht.ones((2,), dtype="float32"), approximate="fast")


# -- modules ---------------------------------------------------------------------------------------------------
def _torch_cnn():
    tn = torch.nn
    torch.manual_seed(0)
    return tn.Sequential(tn.Conv2d(3, 8, 3, padding=1), tn.BatchNorm2d(8), tn.ReLU(), tn.MaxPool2d(2),
                         tn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2), tn.ReLU(), tn.AdaptiveAvgPool2d(2),
                         tn.Flatten(), tn.Linear(32, 24), tn.GELU(), tn.Dropout(0.5), tn.LayerNorm(24),
                         tn.Linear(24, 10), tn.Softmax(dim=1))


def _ht_cnn():
    nn = ht.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                         nn.Flatten(), nn.Linear(32, 24), nn.GELU(), nn.Dropout(0.5), nn.LayerNorm(24),
                         nn.Linear(24, 10), nn.Softmax(dim=1))


def _randomize_bn(model):
    with torch.no_grad():
        bn = model[1]
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)


def test_module_state_dict_from_torch_cpu(rng):
    tm = _torch_cnn().eval()
    _randomize_bn(tm)
    m = _ht_cnn().eval()
    res = m.load_state_dict(tm.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert set(m.state_dict()) == set(tm.state_dict())
    x, t = make((4, 3, 16, 16), "float32", rng, -1, 1)
    with torch.no_grad():
        want = tm(t)
    check(m(x), want, "float32", tol=5e-5)
    check(m[0].weight, tm[0].weight, "float32", tol=0)


def test_module_state_dict_through_dlpack_from_cuda(rng):
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no GPU here")
    tm = _torch_cnn().eval()
    _randomize_bn(tm)
    m = _ht_cnn().eval()
    m.load_state_dict({k: v.cuda() for k, v in tm.state_dict().items()})
    torch.cuda.synchronize()
    x, t = make((2, 3, 16, 16), "float32", rng, -1, 1)
    with torch.no_grad():
        want = tm(t)
    check(m(x), want, "float32", tol=5e-5)


def test_module_half_precision(rng):
    tm = _torch_cnn().eval()
    _randomize_bn(tm)
    m = _ht_cnn().eval().to("float16")
    m.load_state_dict(tm.state_dict())
    assert m[0].weight.dtype.name == "float16"
    x, t = make((2, 3, 16, 16), "float16", rng, -1, 1)
    with torch.no_grad():
        want = tm(t)
    check(m(x), want, "float16", tol=2e-2)


def test_module_train_mode_batch_norm_and_dropout(rng):
    tbn = torch.nn.BatchNorm2d(4)
    bn = ht.nn.BatchNorm2d(4)
    bn.load_state_dict(tbn.state_dict())
    x, t = make((3, 4, 5, 5), "float32", rng, -1, 2)
    check(bn(x), tbn(t).detach(), "float32", tol=3e-5)
    check(bn.running_mean, tbn.running_mean, "float32", tol=2e-5)
    check(bn.running_var, tbn.running_var, "float32", tol=2e-5)
    assert int(bn.num_batches_tracked.get()) == int(tbn.num_batches_tracked) == 1
    bn.eval()
    tbn.eval()
    check(bn(x), tbn(t).detach(), "float32", tol=3e-5)
    d = ht.nn.Dropout(0.5)
    y = ht.ones((1000,), dtype="float32")
    assert (d(y).get() == 0).any()
    assert d.eval()(y) is y


@pytest.mark.parametrize("lt", [False, True], ids=["hipblas", "hipblaslt"])
def test_sequential_mlp_fused_linear_relu(rng, lt):
    from hip.tensor._libs import blaslt
    if lt and not blaslt.available():
        pytest.skip("hipBLASLt is not built or not loadable")
    tn = torch.nn
    torch.manual_seed(1)
    tm = tn.Sequential(tn.Linear(64, 128), tn.ReLU(), tn.Linear(128, 128), tn.SiLU(), tn.Linear(128, 10)).eval()
    m = ht.nn.Sequential(ht.nn.Linear(64, 128), ht.nn.ReLU(), ht.nn.Linear(128, 128), ht.nn.SiLU(),
                         ht.nn.Linear(128, 10)).eval()
    m.load_state_dict(tm.state_dict())
    x, t = make((32, 64), "float32", rng, -1, 1)
    with torch.no_grad():
        want = tm(t)
    saved = ht.backends.matmul.use_hipblaslt
    ht.backends.matmul.use_hipblaslt = lt
    start = _launch.launches()          # every kernel launch of hip.tensor counts there
    try:
        got = m(x)
    finally:
        launches = _launch.launches() - start
        ht.backends.matmul.use_hipblaslt = saved
    check(got, want, "float32", tol=5e-5)
    # hipBLAS: one bias+activation pass per Linear; hipBLASLt: bias and ReLU in the gemm's
    # epilogue, SiLU (no epilogue for it) one in-place pass
    assert launches == (1 if lt else 3)


def test_load_state_dict_errors(rng):
    m = ht.nn.Linear(4, 3)
    with pytest.raises(KeyError):
        m.load_state_dict({"weight": np.zeros((3, 4), np.float32)})
    with pytest.raises(ValueError):
        m.load_state_dict({"weight": np.zeros((4, 3), np.float32), "bias": np.zeros(3, np.float32)})
    res = m.load_state_dict({"weight": np.ones((3, 4), np.float32)}, strict=False)
    assert res.missing_keys == ["bias"]
    np.testing.assert_array_equal(m.weight.get(), np.ones((3, 4), np.float32))
    with pytest.raises(TypeError):
        m.load_state_dict([1, 2])


def test_bfloat16_state_dict(rng):
    tl = torch.nn.Linear(8, 4).to(torch.bfloat16)
    m = ht.nn.Linear(8, 4, dtype="bfloat16")
    m.load_state_dict(tl.state_dict())
    check(m.weight, tl.weight.float(), "bfloat16", tol=0)
