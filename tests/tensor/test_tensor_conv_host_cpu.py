"""The kernels a conv or an eval batch_norm plan compiles with its sizes as constants, run without a
device: their generated C++ with the prelude, compiled for the host by g++ (blocks of host
threads, tests/oracles/host_kernels.py), against NumPy. The pass after the gemm: act(x + bias[c] +
residual) read as (samples, cout, P) in place or transposed from the one gemm's (cout, samples, P),
each vector width, 32- and 64-bit indices, a grid-stride loop over more items than threads;
batch_norm: per-channel statistics of their own dtypes, no weight or bias. Runs on the device:
tests/tensor/test_tensor_nn_gpu.py."""
from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import source as ks
from hip.tensor.nn import _conv as cv
from hip.tensor.nn import _norm as nm
from host_kernels import build_host_library, from_bf16_bits, to_bf16_bits

GRID, BLOCK = 3, 32             # fewer threads than items: every thread loops
DTYPES = (dt.float32, dt.bfloat16)
# (act, bias, residual, cout, P, samples, transposed, vec, wide)
POST = [("relu", True, True, 6, 20, 3, True, 4, False), ("relu", True, True, 6, 20, 3, False, 4, False),
        ("gelu", True, False, 5, 7, 4, False, 1, True), ("identity", False, True, 3, 14, 5, True, 2, True),
        ("silu", False, False, 4, 12, 2, True, 4, False), ("sigmoid", True, False, 2, 9, 3, True, 1, False),
        ("tanh", False, True, 7, 8, 2, False, 2, False), ("gelu_tanh", True, True, 3, 16, 3, True, 4, True)]
# (stats' dtypes: mean, var, weight, bias; C, S, N, vec, wide)
BN = [(("float32", "float32", "float32", "float32"), 5, 12, 3, 4, False),
      (("float32", "float32", None, "float32"), 4, 7, 3, 1, True),
      (("float64", "float32", "X", None), 3, 10, 2, 2, False)]
ACT = {"identity": lambda a: a, "relu": lambda a: np.maximum(a, 0), "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
       "tanh": np.tanh, "gelu": lambda a: 0.5 * a * (1 + np.vectorize(math.erf)(a / math.sqrt(2))),
       "gelu_tanh": lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3))),
       "silu": lambda a: a / (1 + np.exp(-a))}


def _bn_stats(stats, d):
    return tuple(d.name if t == "X" else t for t in stats)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    body, names = [ks.PRELUDE], {}
    for d in DTYPES:
        T, A = d.ctype, cv.compute_dtype(d).ctype
        for v in POST:
            src, name = cv.POST.generate(d, *v)
            body.append(src)
            body.append(f'extern "C" void run_{name}(const void* X, const void* B, const void* R, void* Y) {{ '
                        f'ht_host_launch({GRID}, {BLOCK}, [=] {{ {name}((const {T}*)X, (const {T}*)B, (const {T}*)R, '
                        f'({T}*)Y); }}); }}')
            names[d.name, "post", v] = f"run_{name}"
        for v in BN:
            stats, C, S, N, vec, wide = v
            stats = _bn_stats(stats, d)
            src, name = nm.BN.generate(d, stats, C, S, N, vec, wide)
            types = [dt.dtype(t or d.name).ctype for t in stats]
            body.append(src)
            body.append(f'extern "C" void run_{name}(const void* X, const void* M, const void* V, const void* W, '
                        f'const void* B, void* Y, double eps) {{ ht_host_launch({GRID}, {BLOCK}, [=] {{ '
                        f'{name}((const {T}*)X, (const {types[0]}*)M, (const {types[1]}*)V, (const {types[2]}*)W, '
                        f'(const {types[3]}*)B, ({T}*)Y, ({A})eps); }}); }}')
            names[d.name, "bn", v] = f"run_{name}"
    return build_host_library(tmp_path_factory, "conv_host", body), names


def _host(a, d):
    """(the dtype's host array, the float64 values it holds)."""
    if d is dt.bfloat16:
        bits = to_bf16_bits(a)
        return bits, from_bf16_bits(bits).astype(np.float64)
    h = a.astype(d.numpy)
    return h, h.astype(np.float64)


def _values(d):
    return from_bf16_bits(d).astype(np.float64) if d.dtype == np.uint16 else d.astype(np.float64)


@pytest.mark.parametrize("variant", POST, ids=lambda v: f"{v[0]}-b{v[1]:d}r{v[2]:d}t{v[6]:d}v{v[7]}-{v[8]:d}")
@pytest.mark.parametrize("dtype", [d.name for d in DTYPES])
def test_conv_pass_after_the_gemm(lib, dtype, variant):
    so, names = lib
    d = dt.dtype(dtype)
    act, bias, res, cout, P, m, transposed, _, _ = variant
    rng = np.random.default_rng(7)
    x, xv = _host(rng.uniform(-3, 3, (cout, m, P) if transposed else (m, cout, P)), d)
    b, bv = _host(rng.uniform(-1, 1, cout), d)
    r, rv = _host(rng.uniform(-1, 1, (m, cout, P)), d)
    y = np.zeros((m, cout, P), x.dtype)
    fn = getattr(so, names[dtype, "post", variant])
    fn.argtypes = [ctypes.c_void_p] * 4
    fn(x.ctypes.data, b.ctypes.data if bias else None, r.ctypes.data if res else None, y.ctypes.data)
    a = (xv.transpose(1, 0, 2) if transposed else xv) + (bv[None, :, None] if bias else 0) + (rv if res else 0)
    want = ACT[act](a.astype(np.float32).astype(np.float64))
    tol = 1e-2 if d is dt.bfloat16 else 2e-6
    np.testing.assert_allclose(_values(y), want, rtol=tol, atol=tol)


def test_conv_pass_in_place(lib):
    """The per-sample form runs in place over the gemm's output (Y is X)."""
    so, names = lib
    v = POST[1]
    rng = np.random.default_rng(8)
    x = rng.uniform(-3, 3, (3, 6, 20)).astype(np.float32)
    b, r = rng.uniform(-1, 1, 6).astype(np.float32), rng.uniform(-1, 1, (3, 6, 20)).astype(np.float32)
    want = np.maximum(x + b[None, :, None] + r, 0)
    fn = getattr(so, names["float32", "post", v])
    fn.argtypes = [ctypes.c_void_p] * 4
    fn(x.ctypes.data, b.ctypes.data, r.ctypes.data, x.ctypes.data)
    np.testing.assert_allclose(x, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("variant", BN, ids=lambda v: f"{v[0]}-v{v[4]}-{v[5]:d}")
@pytest.mark.parametrize("dtype", [d.name for d in DTYPES])
def test_batch_norm_pass(lib, dtype, variant):
    so, names = lib
    d = dt.dtype(dtype)
    stats, C, S, N, _, _ = variant
    stats = _bn_stats(stats, d)
    rng = np.random.default_rng(9)
    x, xv = _host(rng.uniform(-3, 3, (N, C, S)), d)
    per = [None if t is None else _host(rng.uniform(lo, hi, C), dt.dtype(t))
           for t, (lo, hi) in zip(stats, ((-1, 1), (0.5, 2), (0.5, 1.5), (-0.5, 0.5)))]
    y = np.zeros_like(x)
    fn = getattr(so, names[dtype, "bn", variant])
    fn.argtypes = [ctypes.c_void_p] * 6 + [ctypes.c_double]
    fn(x.ctypes.data, *(None if p is None else p[0].ctypes.data for p in per), y.ctypes.data, 1e-3)
    f = np.float32
    mean, var, w, b = (np.full(C, dflt, f) if p is None else p[1].astype(f) for p, dflt in zip(per, (0, 0, 1, 0)))
    invstd = f(1) / np.sqrt(var + f(1e-3))
    want = ((xv.astype(f) - mean[:, None]) * invstd[:, None] * w[:, None] + b[:, None]).astype(np.float64)
    tol = 1e-2 if d is dt.bfloat16 else 1e-6
    np.testing.assert_allclose(_values(y), want, rtol=tol, atol=tol)
