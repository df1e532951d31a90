"""The block softmax kernel (hip.tensor.nn's long rows and other dims) run without a device: its
generated C++, with the prelude, compiled for the host by g++, each block's threads run as host
threads and __syncthreads a barrier across them (shared memory: the kernel's statics), against
PyTorch's rules in NumPy: exp(x - max) / sum with -inf giving 0; a row with a NaN or a +inf, and
a row of -inf, all NaN. Rows of special values that spread over many threads (a lone finite value
among -inf, -inf at every other place) check the block's combine of the threads' (max, sum)
pairs. Runs on the device: tests/tensor/test_tensor_nn_gpu.py."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import source as ks
from hip.tensor.nn import _softmax as sm
from host_kernels import build_host_library, from_bf16_bits, softmax_special_rows, to_bf16_bits

N = 3000                    # the block path for every dtype (the warp path ends at 2048)
STRIDED = (40, 3)           # rows of 40 along a dim that is not the last: stride 3, element loads
DTYPES = (dt.float32, dt.float16, dt.bfloat16, dt.float64)
GRID = 5                    # fewer blocks than rows: each block loops over rows


def _variants(d):
    """(log, block, vec, cache, scaled, n, inner): the planner's choice for contiguous aligned
    rows of N (softmax plain, log_softmax scaled) and for strided rows (scaled softmax)."""
    vec = 16 // d.itemsize if N % (16 // d.itemsize) == 0 else 1
    block = sm.block_for(N)
    cache = sm.cache_for(N, vec, block)
    n, inner = STRIDED
    return [(False, block, vec, cache, False, N, 1), (True, block, vec, cache, True, N, 1),
            (False, sm.block_for(n), 1, 0, True, n, inner)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    body, names = [ks.PRELUDE], {}
    for x in DTYPES:
        a = sm.compute_dtype(x).ctype
        for v in _variants(x):
            log, block, vec, cache, scaled, _, _ = v
            src, name = sm._source(x, log, block, vec, cache, scaled)
            body.append(src)
            body.append(f'extern "C" void run_{name}(const {x.ctype}* X, {x.ctype}* out, long long rows, '
                        f'long long n, long long inner, double sc) {{ ht_host_launch({GRID}, {block}, [=] '
                        f'{{ {name}(X, out, rows, n, inner{", (" + a + ")sc" if scaled else ""}); }}); }}')
            names[x.name, v] = f"run_{name}"
    return build_host_library(tmp_path_factory, "softmax_host", body), names


def special_rows(n):
    """The GPU test's rows and more -inf patterns, as float64."""
    a = np.concatenate([softmax_special_rows(n), np.tile(np.linspace(-1.0, 1.0, n), (4, 1))])
    a[8, ::2] = -np.inf
    a[9] = -np.inf
    a[9, n - 1] = 3.0
    a[10, : n // 2] = -np.inf
    a[11] = -np.inf
    a[11, n - 2] = np.nan
    return a


def reference(v, log):
    """PyTorch's softmax / log_softmax of float64 rows."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = v.max(axis=1, keepdims=True)
        s = np.exp(v - m).sum(axis=1, keepdims=True)
        out = v - m - np.log(s) if log else np.exp(v - m) / s
    bad = np.isnan(v).any(axis=1) | (v == np.inf).any(axis=1) | (v == -np.inf).all(axis=1)
    out[bad] = np.nan
    return out


@pytest.mark.parametrize("variant", [0, 1, 2], ids=["softmax", "log_softmax-scaled", "strided-scaled"])
@pytest.mark.parametrize("dtype", [x.name for x in DTYPES])
def test_block_softmax_special_rows(lib, dtype, variant):
    so, names = lib
    x = dt.dtype(dtype)
    v = _variants(x)[variant]
    log, _, _, _, scaled, n, inner = v
    sc = 0.37 if scaled else 1.0
    rows = special_rows(n)                                  # (r, n): softmax along axis 1
    a = np.ascontiguousarray(np.repeat(rows[:, :, None], inner, axis=2))   # (r, n, inner)
    if inner > 1:
        a[:, :, 1] = a[:, ::-1, 0]                          # another pattern in each column
    if x is dt.bfloat16:
        host = to_bf16_bits(a)
        read = from_bf16_bits(host)
    else:
        host = a.astype(x.numpy)
        read = host
    acc = np.float64 if x is dt.float64 else np.float32
    with np.errstate(invalid="ignore"):
        vals = (read.astype(acc) * acc(sc)).astype(np.float64)  # what the kernel reads: T -> A, times sc
    out = np.zeros_like(host)
    fn = getattr(so, names[dtype, v])
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_longlong,
                   ctypes.c_double]
    fn(host.ctypes.data, out.ctypes.data, a.shape[0] * inner, n, inner, sc)
    got = (from_bf16_bits(out) if x is dt.bfloat16 else out).astype(np.float64)
    want = reference(vals.transpose(0, 2, 1).reshape(-1, n), log).reshape(a.shape[0], inner, n).transpose(0, 2, 1)
    tol = {"float16": 2e-3, "bfloat16": 1e-2}.get(dtype, 1e-5)
    for r in range(a.shape[0]):
        np.testing.assert_allclose(got[r], want[r], rtol=tol, atol=tol, equal_nan=True, err_msg=f"row {r}")
