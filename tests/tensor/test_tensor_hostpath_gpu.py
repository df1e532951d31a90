"""The per-call decisions hip.tensor keeps by key (`_core.plans`, hipBLASLt's bound plans) on a
device: sequences of calls of one shape whose strides, flags, activation, bias, residual, scale,
eps or stream change from one call to the next each give PyTorch's result (a decision reused where
it does not hold would not). The keys themselves without a GPU: test_tensor_hostpath_cpu.py.

    HIP_PLATFORM=nvidia python3 -m pytest tests/tensor/test_tensor_hostpath_gpu.py -q
"""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
TF = torch.nn.functional
F = ht.nn.functional


@pytest.fixture
def rng():
    return np.random.default_rng(5)


def pair(shape, rng, dtype="float32"):
    """(device array, float64 torch reference) of the same values (rounded to dtype)."""
    host = rng.uniform(-2, 2, shape).astype(np.float32)
    dev = ht.asarray(host, dtype=dtype)
    return dev, torch.from_numpy(dev.astype("float32").get().astype(np.float64))


def check(got, want, tol):
    g = got.astype("float32").get().astype(np.float64)
    w = want.numpy()
    assert g.shape == w.shape, (g.shape, w.shape)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, float(np.abs(w).max())))


@pytest.fixture
def flags():
    saved = (ht.backends.matmul.use_hipblaslt, ht.backends.matmul.allow_tf32)
    yield ht.backends.matmul
    ht.backends.matmul.use_hipblaslt, ht.backends.matmul.allow_tf32 = saved


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-4), ("bfloat16", 2e-2)])
def test_linear_calls_of_one_shape_that_differ_in_all_else(rng, flags, dtype, tol):
    x, xr = pair((96, 64), rng, dtype)
    w, wr = pair((80, 64), rng, dtype)
    b, br = pair((80,), rng, dtype)
    r, rr = pair((96, 80), rng, dtype)
    xt_host, xtr = pair((64, 96), rng, dtype)
    xt = xt_host.mT                                     # x's shape, transposed strides
    xtr = xtr.T
    lin = xr @ wr.T
    cases = [
        (lambda: F.linear(x, w, b, activation="relu"), lambda: TF.relu(lin + br)),
        (lambda: F.linear(x, w, b, activation="gelu"), lambda: TF.gelu(lin + br)),
        (lambda: F.linear(x, w, b, activation="gelu_tanh"), lambda: TF.gelu(lin + br, approximate="tanh")),
        (lambda: F.linear(x, w, b), lambda: lin + br),
        (lambda: F.linear(x, w), lambda: lin),
        (lambda: F.linear(x, w, b, residual=r, activation="relu"), lambda: TF.relu(lin + br + rr)),
        (lambda: F.linear(xt, w, b, activation="relu"), lambda: TF.relu(xtr @ wr.T + br)),
        (lambda: F.linear(x, w, b, activation="relu"), lambda: TF.relu(lin + br)),
    ]
    for lt in (True, False, True):
        flags.use_hipblaslt = lt
        for got, want in cases:
            check(got(), want(), tol)


def test_linear_and_matmul_follow_tf32_both_ways(rng, flags):
    """A plan made with TF32 on is not the one taken with it off (float32 stays exact to 1e-5)."""
    x, xr = pair((256, 512), rng)
    w, wr = pair((384, 512), rng)
    a, ar = pair((4, 256, 512), rng)
    for tf32 in (False, True, False):
        flags.allow_tf32 = tf32
        tol = 1e-2 if tf32 else 1e-5
        check(F.linear(x, w), xr @ wr.T, tol)
        check(ht.matmul(a, w.mT), ar @ wr.T, tol)


def test_linear_on_streams_that_come_and_go(rng):
    x, xr = pair((64, 128), rng, "bfloat16")
    w, wr = pair((256, 128), rng, "bfloat16")
    b, br = pair((256,), rng, "bfloat16")
    want = TF.relu(xr @ wr.T + br)
    check(F.linear(x, w, b, activation="relu"), want, 2e-2)
    ht.synchronize()                                    # the inputs are on the device before another stream reads them
    for _ in range(3):
        s = ht.Stream(non_blocking=True)
        with s:
            y = F.linear(x, w, b, activation="relu")
        s.synchronize()
        check(y, want, 2e-2)
        del s, y                                        # its handle and workspace go back; a new uid next
    b2, br2 = pair((256,), rng, "bfloat16")           # another bias address on the same plan
    check(F.linear(x, w, b2, activation="relu"), TF.relu(xr @ wr.T + br2), 2e-2)


def test_matmul_of_one_shape_in_several_layouts(rng):
    qkv, qkvr = pair((2, 32, 3, 4, 16), rng, "float16")
    q, k = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(2))
    qr, kr = (qkvr[:, :, i].permute(0, 2, 1, 3) for i in range(2))
    qc, kc = q.copy(), k.copy()                         # the same shapes, C-contiguous
    for _ in range(2):
        check(ht.matmul(q, k.mT), qr @ kr.transpose(-1, -2), 2e-3)
        check(ht.matmul(qc, kc.mT), qr @ kr.transpose(-1, -2), 2e-3)
        check(ht.matmul(q, kc.mT), qr @ kr.transpose(-1, -2), 2e-3)
    v, vr = pair((32,), rng)
    m, mr = pair((5, 32), rng)
    for _ in range(2):
        check(ht.matmul(m, v), mr @ vr, 1e-5)           # 1-d operands: the result's shape drops a dimension
        check(ht.matmul(v, m.mT), vr @ mr.T, 1e-5)
    m16 = m.astype("float16")                           # a cast: another key, another dtype
    check(ht.matmul(m16, v), torch.from_numpy(m16.astype("float32").get().astype(np.float64)) @ vr, 1e-3)
    assert ht.matmul(m16, v).dtype == ht.float32


def test_softmax_and_layer_norm_calls_that_differ_after_the_shape(rng):
    x, xr = pair((8, 4, 64), rng)
    xs_host, xsr = pair((8, 64, 4), rng)
    xs, xsr = xs_host.transpose(0, 2, 1), xsr.permute(0, 2, 1)      # the shape of x, other strides
    for _ in range(2):
        check(F.softmax(x, dim=-1), TF.softmax(xr, dim=-1), 1e-5)
        check(F.softmax(x, dim=-1, scale=0.5), TF.softmax(xr * 0.5, dim=-1), 1e-5)
        check(F.softmax(x, dim=-1, scale=2.0), TF.softmax(xr * 2.0, dim=-1), 1e-5)
        check(F.log_softmax(x, dim=-1), TF.log_softmax(xr, dim=-1), 1e-5)
        check(F.softmax(x, dim=1), TF.softmax(xr, dim=1), 1e-5)
        check(F.softmax(xs, dim=-1), TF.softmax(xsr, dim=-1), 1e-5)
    w, wr = pair((64,), rng)
    b, br = pair((64,), rng)
    for _ in range(2):
        for eps in (1e-5, 0.5):
            check(F.layer_norm(x, (64,), w, b, eps=eps), TF.layer_norm(xr, (64,), wr, br, eps=eps), 1e-4)
            check(F.layer_norm(x, 64, w, None, eps=eps), TF.layer_norm(xr, (64,), wr, None, eps=eps), 1e-4)
            check(F.layer_norm(xs, (64,), None, b, eps=eps), TF.layer_norm(xsr, (64,), None, br, eps=eps), 1e-4)
