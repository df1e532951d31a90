"""Whole networks on hip.tensor.nn against PyTorch, small sizes: ResNet-18 (torchvision's names,
BatchNorms with non-trivial statistics) and a transformer encoder block, each loading the PyTorch
model's state_dict, as written and with hip.tensor's fusions (BatchNorm folded into the
convolutions, ReLU and residual in the pass after the gemm, one gemm per convolution or one per
sample; residuals as hipBLASLt's C, the softmax's scale), in float32 within 1e-4 of the largest
output of PyTorch's float64 result on the CPU, bfloat16 loosely; the kernels one forward
launches (counted on the host). The building blocks on their own: conv2d's and linear's
`activation=`/`residual=` (across im2col chunks, both gemm layouts, both linear paths),
softmax's `scale=`, `nn.utils.fuse_conv_bn_eval` against PyTorch's. The PyTorch block is checked
against `torch.nn.TransformerEncoderLayer` itself. Definitions: benchmarks/_networks.py.

    HIP_PLATFORM=nvidia python3 -m pytest tests/tensor/test_tensor_networks_gpu.py -q
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._libs import blas as _blas
from hip.tensor._libs import blaslt
from hip.tensor.nn import _conv

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
TF = torch.nn.functional
F = ht.nn.functional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))
import _networks as nets  # noqa: E402

TOL = 1e-4              # float32, relative to the largest output (the target)
TOL_BF16 = 0.1          # bfloat16 through 20 layers: each step rounds to 8 bits


@pytest.fixture(autouse=True)
def _switches():
    saved = ht.backends.matmul.allow_tf32, ht.backends.matmul.use_hipblaslt, _conv.ONE_GEMM
    ht.backends.matmul.allow_tf32 = False
    yield
    ht.backends.matmul.allow_tf32, ht.backends.matmul.use_hipblaslt, _conv.ONE_GEMM = saved


def lt_runs() -> bool:
    return blaslt.available() and ht.backends.matmul.use_hipblaslt


def reference(model, x_host):
    """PyTorch's output in float64 on the CPU."""
    with torch.no_grad():
        return model.double()(torch.from_numpy(x_host).double()).numpy()


# -- ResNet-18 -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def resnet():
    torch.manual_seed(0)
    tm = nets.randomize_batch_norms(torch, nets.torch_resnet18(torch)).eval()
    sd = {k: v.clone() for k, v in tm.state_dict().items()}
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32)
    return sd, x, reference(tm, x)


# kernels of one forward: as written, conv = im2col, BatchNorm, ReLU, add each one kernel (blocks:
# 5 plain x 7 + 3 with a downsample x 9, stem 4, avgpool 1); fused, conv = im2col + its one pass
# (5 x 4 + 3 x 6, stem 3, avgpool 1); the fc's bias is a pass of its own without hipBLASLt
RESNET_KERNELS = {"as written": 67, "fused": 42, "fused, per-sample gemms": 42}


@pytest.mark.parametrize("variant", list(RESNET_KERNELS))
@pytest.mark.parametrize("lt", [True, False], ids=["hipblaslt", "hipblas"])
def test_resnet18_float32(resnet, variant, lt):
    sd, x, want = resnet
    if lt and not blaslt.available():
        pytest.skip("hipBLASLt is not built or not loadable")
    ht.backends.matmul.use_hipblaslt = lt
    m = nets.ht_resnet18(ht).eval()
    m.load_state_dict(sd)
    if variant != "as written":
        _conv.ONE_GEMM = variant == "fused"
        m.fuse()
    xd = ht.asarray(x)
    got, kernels, library = nets.count_launches(lambda: m(xd))
    assert got.shape == want.shape == (2, 1000)
    err = nets.max_rel_diff(got.get(), want)
    assert err <= TOL, err
    assert kernels == RESNET_KERNELS[variant] + (not lt_runs())
    assert library == 21                    # 20 convolutions' gemms and the fc's


def test_resnet18_fuse_needs_eval(resnet):
    m = nets.ht_resnet18(ht)
    with pytest.raises(ValueError, match="eval"):
        m.fuse()


def test_resnet18_bfloat16(resnet):
    sd, x, want = resnet
    m = nets.ht_resnet18(ht).eval()
    m.load_state_dict(sd)
    m.fuse().to("bfloat16")
    got = m(ht.asarray(x, dtype="bfloat16"))
    assert got.dtype == ht.bfloat16
    assert nets.max_rel_diff(got.astype("float32").get(), want) <= TOL_BF16


# -- the encoder block -----------------------------------------------------------------------------------------
BLOCK = (128, 4, 512)   # width, heads (d = 32: a scale that is not a power of two), MLP


@pytest.fixture(scope="module")
def block():
    torch.manual_seed(1)
    tm = nets.torch_encoder_block(torch, *BLOCK).eval()
    with torch.no_grad():       # LayerNorms away from 1 and 0
        for n in (tm.norm1, tm.norm2):
            n.weight.uniform_(0.5, 1.5)
            n.bias.uniform_(-0.2, 0.2)
    sd = {k: v.clone() for k, v in tm.state_dict().items()}
    x = np.random.default_rng(1).standard_normal((2, 64, BLOCK[0])).astype(np.float32)
    return sd, x, reference(tm, x)


def test_torch_block_is_transformer_encoder_layer(block):
    """The reference itself: PyTorch's own layer with the same state_dict gives the same output."""
    sd, x, want = block
    e, h, f = BLOCK
    layer = torch.nn.TransformerEncoderLayer(e, h, f, dropout=0.0, activation="gelu", batch_first=True).eval()
    layer.load_state_dict(sd)
    with torch.no_grad():
        got = layer(torch.from_numpy(x)).numpy()
    assert nets.max_rel_diff(got, want) <= 1e-5


# as written: scale, softmax, head copy, 2 adds, 2 LayerNorms, GELU + a bias pass per linear without
# hipBLASLt; fused: softmax, head copy, 2 LayerNorms, GELU (+ a bias pass per linear without it)
BLOCK_KERNELS = {"as written": (8, 12), "fused": (5, 8)}


@pytest.mark.parametrize("variant", list(BLOCK_KERNELS))
@pytest.mark.parametrize("lt", [True, False], ids=["hipblaslt", "hipblas"])
def test_encoder_block_float32(block, variant, lt):
    sd, x, want = block
    if lt and not blaslt.available():
        pytest.skip("hipBLASLt is not built or not loadable")
    ht.backends.matmul.use_hipblaslt = lt
    m = nets.ht_encoder_block(ht, *BLOCK).eval()
    m.load_state_dict(sd)
    m.fused = variant == "fused"
    xd = ht.asarray(x)
    _blas._tables.clear()               # each attention matmul makes its address arrays: one kernel
    got, kernels, library = nets.count_launches(lambda: m(xd))
    assert got.shape == want.shape
    err = nets.max_rel_diff(got.get(), want)
    assert err <= TOL, err
    assert kernels == BLOCK_KERNELS[variant][not lt_runs()] + 2
    # 4 linears, and each attention matmul one gemm over every sample's heads (q, k, v are views
    # of the projection whose samples and heads no one stride walks: hipblasGemmBatchedEx)
    assert library == 4 + 2


def test_encoder_block_bfloat16(block):
    sd, x, want = block
    m = nets.ht_encoder_block(ht, *BLOCK).eval()
    m.load_state_dict(sd)
    m.to("bfloat16")
    got = m(ht.asarray(x, dtype="bfloat16"))
    assert got.dtype == ht.bfloat16
    assert nets.max_rel_diff(got.astype("float32").get(), want) <= TOL_BF16


# -- the building blocks ---------------------------------------------------------------------------------------
def _t(a):
    return torch.from_numpy(np.asarray(a, np.float64))


@pytest.mark.parametrize("one_gemm", [True, False])
@pytest.mark.parametrize("act", [None, "relu", "gelu"])
@pytest.mark.parametrize("with_residual", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv2d_activation_residual(one_gemm, act, with_residual, with_bias, monkeypatch):
    """act(conv + bias + residual), across 3 im2col chunks (the last one short) and a 1x1 conv."""
    rng = np.random.default_rng(5)
    monkeypatch.setattr(_conv, "ONE_GEMM", one_gemm)
    monkeypatch.setattr(_conv, "COL_BYTES", 2 * 8 * 9 * 36 * 4)        # 2 samples of col per chunk
    for k, stride, pad in ((3, 2, 1), (1, 1, 0)):
        x = rng.standard_normal((5, 8, 11, 11)).astype(np.float32)
        w = rng.standard_normal((6, 8, k, k)).astype(np.float32)
        b = rng.standard_normal(6).astype(np.float32) if with_bias else None
        want = TF.conv2d(_t(x), _t(w), None if b is None else _t(b), stride, pad)
        r = rng.standard_normal(tuple(want.shape)).astype(np.float32) if with_residual else None
        if r is not None:
            want = want + _t(r)
        want = {None: lambda t: t, "relu": TF.relu, "gelu": TF.gelu}[act](want).numpy()
        got = F.conv2d(ht.asarray(x), ht.asarray(w), None if b is None else ht.asarray(b), stride, pad,
                       activation=act, residual=None if r is None else ht.asarray(r))
        assert nets.max_rel_diff(got.get(), want) <= 1e-5


def test_conv2d_residual_errors():
    x, w = ht.zeros((1, 2, 5, 5), dtype="float32"), ht.zeros((3, 2, 3, 3), dtype="float32")
    with pytest.raises(ValueError, match="residual"):
        F.conv2d(x, w, residual=ht.zeros((1, 3, 5, 5), dtype="float32"))
    with pytest.raises(TypeError, match="residual"):
        F.conv2d(x, w, residual=ht.zeros((1, 3, 3, 3), dtype="float64"))
    with pytest.raises(ValueError, match="activation"):
        F.conv2d(x, w, activation="nope")


@pytest.mark.parametrize("lt", [True, False], ids=["hipblaslt", "hipblas"])
@pytest.mark.parametrize("act", [None, "relu", "gelu"])
def test_linear_residual(lt, act):
    if lt and not blaslt.available():
        pytest.skip("hipBLASLt is not built or not loadable")
    ht.backends.matmul.use_hipblaslt = lt
    rng = np.random.default_rng(6)
    x, w, b, r = (rng.standard_normal(s).astype(np.float32) for s in ((48, 64), (32, 64), (32,), (48, 32)))
    want = TF.linear(_t(x), _t(w), _t(b)) + _t(r)
    want = {None: lambda t: t, "relu": TF.relu, "gelu": TF.gelu}[act](want).numpy()
    got = F.linear(ht.asarray(x), ht.asarray(w), ht.asarray(b), activation=act, residual=ht.asarray(r))
    assert nets.max_rel_diff(got.get(), want) <= 1e-5
    with pytest.raises(ValueError, match="residual"):
        F.linear(ht.asarray(x), ht.asarray(w), residual=ht.asarray(x))


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("n", [7, 512, 5000])
def test_softmax_scale(log, n):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, n)).astype(np.float32)
    scale = 32 ** -0.5
    f, tf = (F.log_softmax, TF.log_softmax) if log else (F.softmax, TF.softmax)
    want = tf(torch.from_numpy(x) * scale, dim=-1).numpy()
    got = f(ht.asarray(x), dim=-1, scale=scale).get()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))
    with pytest.raises(TypeError, match="scale"):
        f(ht.asarray(x), dim=-1, scale="2")


def test_fuse_conv_bn_eval_matches_torch():
    torch.manual_seed(3)
    conv, bn = torch.nn.Conv2d(4, 6, 3, padding=1, bias=True), torch.nn.BatchNorm2d(6)
    nets.randomize_batch_norms(torch, torch.nn.Sequential(bn), seed=4)
    conv.eval(), bn.eval()
    fused_t = torch.nn.utils.fuse_conv_bn_eval(conv, bn)
    hc, hb = ht.nn.Conv2d(4, 6, 3, padding=1).eval(), ht.nn.BatchNorm2d(6).eval()
    hc.load_state_dict(conv.state_dict())
    hb.load_state_dict(bn.state_dict())
    fused = ht.nn.utils.fuse_conv_bn_eval(hc, hb)
    np.testing.assert_allclose(fused.weight.get(), fused_t.weight.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fused.bias.get(), fused_t.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert hc.bias is not fused.bias and fused.stride == hc.stride          # the originals are untouched
    x = np.random.default_rng(8).standard_normal((2, 4, 9, 9)).astype(np.float32)
    with torch.no_grad():
        want = bn(conv(torch.from_numpy(x))).numpy()
    assert nets.max_rel_diff(fused(ht.asarray(x)).get(), want) <= 1e-5
    with pytest.raises(ValueError, match="eval"):
        ht.nn.utils.fuse_conv_bn_eval(hc.train(), hb)
