"""Every kernel of hip.tensor.nn, compiled without a GPU by the real ROCm hiprtc (gfx90a) and, where
the build fetched NVIDIA's wheel, by NVRTC (sm_90): activations (plain, bias-fused in the strided
layout, bias+residual-fused, dropout), softmax/log_softmax (also with scaled reads; the block
kernels and the warp kernels of every row shape and load width) and the
layer/group-norm row kernels (every block size; element, 16-byte vector and register-cached rows),
batch_norm's pass and running-statistics kernels, the losses, pooling (max, avg, adaptive; 1-3
spatial dims), im2col (32- and 64-bit indices; per-sample and samples-inner layouts)/col2im
(1-3 spatial dims) and the pass after a convolution's gemm (every activation; bias, residual,
transposed reads), for float16, bfloat16, float32 and float64, as the library's own generators
write them. Plus: importing hip.tensor does not import hip.tensor.nn."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import elementwise as ek
from hip.tensor.nn import _activation as act
from hip.tensor.nn import _conv as cv
from hip.tensor.nn import _loss as ls
from hip.tensor.nn import _norm as nm
from hip.tensor.nn import _pool as pl
from hip.tensor.nn import _softmax as sm

from test_tensor_kernels_compile import check_hiprtc, check_nvrtc, no_disk_cache, nvrtc  # noqa: F401

FLOATS = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
BATCH = 60


def _ew(kernel, dtypes, kinds=None, ndim=0, bindings=None):
    spec, b = ek.spec_for(kernel, dtypes, kinds=kinds, ndim=ndim, bindings=bindings)
    return kernel.generate(spec, b)[0]


def warp_softmax_kernels(d):
    """The warp softmax for every row shape up to its longest row (n a power of two: each lane
    count, elements per lane and rows per group) and every load width the row may allow; log and
    scaled with the widest load and with element loads."""
    out = []
    n = 1
    while n <= sm.warp_max(d):
        lanes, per_lane, batch = sm.warp_shape(n)
        widest = min(16 // d.itemsize, per_lane)
        variants = [(v, False, False) for v in (1, 2, 4, 8) if v <= widest]
        variants += [(widest, True, True), (1, True, False)] + ([(1, False, True)] if widest > 1 else [])
        for vec, log, scaled in variants:
            out.append((f"softmax_warp[{d.name},log={log},n={n},v{vec}{',scaled' if scaled else ''}]",
                        sm.WARP_KERNEL.source(d, log, lanes, per_lane, batch, vec, scaled)))
        n *= 2
    return out


def nn_matrix():
    out = []
    for d in FLOATS:
        c = dt.float32 if d.itemsize == 2 else d
        b = {"C": c, "Y": d}
        for name, k in act.UNARY.items():
            out.append((f"{name}[{d.name}]/contiguous", _ew(k, (d, d), bindings=b)))
            out.append((f"{name}[{d.name}]/vector", _ew(k, (d, d), ndim=-min(8, 16 // d.itemsize),
                                                        bindings=b)))
            out.append((f"{name}[{d.name}]/strided3", _ew(k, (d, d), ndim=3, bindings=b)))
        for name, k in act.BIAS_ACT.items():
            out.append((f"bias_{name}[{d.name}]/strided2", _ew(k, (d, d, d), ndim=2, bindings=b)))
            out.append((f"bias_{name}[{d.name}]/strided3", _ew(k, (d, d, d), ndim=3, bindings=b)))
            out.append((f"bias_{name}[{d.name}]/scalar-bias", _ew(k, (d, c, d), kinds=("array", "scalar", "array"),
                                                                   ndim=3, bindings=b)))
        for name, k in act.BIAS_RESIDUAL_ACT.items():
            out.append((f"bias_residual_{name}[{d.name}]/strided3", _ew(k, (d, d, d, d), ndim=3, bindings=b)))
        out.append((f"dropout[{d.name}]", _ew(act.DROPOUT, (d, dt.uint64, dt.uint32, c, d),
                                              kinds=("array", "scalar", "scalar", "scalar", "array"), bindings=b)))
        variants = [(1, 0, b) for b in sm.BLOCKS] + [(16 // d.itemsize, 0, b) for b in sm.BLOCKS]
        variants += [(16 // d.itemsize, c, b) for c in range(1, sm.CACHE_MAX + 1) for b in (sm.BLOCKS[0], sm.BLOCKS[-1])]
        for vec, cache, block in variants:
            for log in (False, True):
                out.append((f"softmax[{d.name},log={log},{block},v{vec},c{cache}]",
                            sm.KERNEL.source(d, log, block, vec, cache)))
                if block == sm.BLOCKS[-1]:      # softmax(x * scale): attention's
                    out.append((f"softmax_scaled[{d.name},log={log},{block},v{vec},c{cache}]",
                                sm.KERNEL.source(d, log, block, vec, cache, True)))
            for grouped in (False, True):
                out.append((f"rownorm[{d.name},grouped={grouped},{block},v{vec},c{cache}]",
                            nm.KERNEL.source(d, grouped, block, vec, cache)))
        out += warp_softmax_kernels(d)
        wide_vec = min(4, 16 // d.itemsize)
        for stats, vec, wide in (((c.name, c.name, d.name, d.name), wide_vec, False),
                                 ((d.name, d.name, None, None), 1, True),
                                 (("float32", "float64", None, d.name), 2, False)):
            out.append((f"batch_norm[{d.name},{stats},v{vec},{'i64' if wide else 'i32'}]",
                        nm.BN.source(d, stats, 64, 49 * vec, 3, vec, wide)))
        out.append((f"running_update[{d.name}]", _ew(nm._UPDATE, (c, dt.float64, dt.float64, d),
                                                     kinds=("array", "scalar", "scalar", "array"), bindings={"R": d})))
        for y in ((d,) if c is d else (d, c)):
            out.append((f"mse[{d.name}->{y.name}]", _ew(ls._MSE, (d, d, y), bindings={"A": c, "Y": y})))
        for idx in (dt.int64, dt.int32, dt.uint8):
            out.append((f"nll[{d.name},{idx.name}]", _ew(ls._NLL, (d, idx, c, dt.int64, dt.int64, dt.int64, c, c,
                                                                   dt.bool),
                                                         kinds=("raw", "array", "raw", "scalar", "scalar", "scalar",
                                                                "array", "array", "array"), bindings={"A": c})))
        out.append((f"bce[{d.name}]/scalar-weight", _ew(ls._BCE, (d, d, c, c), kinds=("array", "array", "scalar", "array"),
                                                        bindings={"A": c, "W": c})))
        out.append((f"bce[{d.name}]/weight", _ew(ls._BCE, (d, d, d, c), ndim=2, bindings={"A": c})))
        for nd in (1, 2, 3):
            for kind in ("max", "avg", "adaptive"):
                out.append((f"{kind}_pool{nd}d[{d.name}]", pl.KERNEL.source(d, nd, kind)))
            # im2col is compiled per chunk geometry: (cin, input, output, kernel, stride, padding, dilation)
            geom = (3, (9, 8, 7)[:nd], (5, 4, 8)[:nd], (3, 2, 3)[:nd], (2, 2, 1)[:nd], (1, 0, 2)[:nd], (1, 2, 1)[:nd])
            for vec, wide, inner in ((1, False, False), (2, True, False), (4, False, False), (1, False, True),
                                     (4, True, True)):
                if vec * d.itemsize <= 16:
                    out.append((f"im2col{nd}d[{d.name},vec{vec},{'i64' if wide else 'i32'}{',kn' if inner else ''}]",
                                cv.IM2COL.source(d, nd, geom, 2, vec, wide, inner)))
            out.append((f"col2im{nd}d[{d.name}]", cv.COL2IM.source(d, nd)))
        # the pass after a conv's gemm, compiled per plan: (cout, P, samples); transposed: the one-gemm form
        for a in act.ACTIVATIONS:
            out.append((f"conv_post[{d.name},{a},bias]", cv.POST.source(d, a, True, False, 64, 196, 8, False,
                                                                         wide_vec, False)))
        for a, bias, res, transposed, vec, wide in (("relu", True, True, True, wide_vec, False),
                                                     ("identity", False, True, False, 1, True),
                                                     ("gelu", False, True, True, 2, True),
                                                     ("relu", True, True, False, wide_vec, False)):
            out.append((f"conv_post[{d.name},{a},b{bias:d}r{res:d}t{transposed:d},v{vec},{wide:d}]",
                        cv.POST.source(d, a, bias, res, 96, 49 * vec, 32, transposed, vec, wide)))
    return out


MATRIX = nn_matrix()
BATCHES = [MATRIX[i:i + BATCH] for i in range(0, len(MATRIX), BATCH)]


def test_matrix_covers_every_kernel():
    names = {label.split("[")[0] for label, _ in MATRIX}
    assert set(act.UNARY) <= names
    assert {f"bias_{n}" for n in act.BIAS_ACT} | {f"bias_residual_{n}" for n in act.BIAS_RESIDUAL_ACT} <= names
    assert {"dropout", "softmax", "softmax_warp", "rownorm", "batch_norm", "running_update", "mse", "nll", "bce", "im2col2d",
            "col2im2d", "max_pool3d", "avg_pool1d", "adaptive_pool2d"} <= names
    assert "conv_post" in names
    kernel_names = [m for _, body in MATRIX for m in re.findall(r'__global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', body)]
    assert len(kernel_names) == len(set(kernel_names)) == len(MATRIX)


@pytest.mark.runtime
@pytest.mark.parametrize("batch", range(len(BATCHES)))
def test_nn_batch_compiles_with_hiprtc_for_gfx90a(batch, no_disk_cache):
    check_hiprtc(BATCHES[batch])


@pytest.mark.parametrize("batch", range(len(BATCHES)))
def test_nn_batch_compiles_with_nvrtc_for_sm90(batch, nvrtc):
    check_nvrtc(nvrtc, BATCHES[batch])


def test_importing_hip_tensor_does_not_import_nn():
    code = "import sys, hip.tensor as ht; assert 'hip.tensor.nn' not in sys.modules; ht.nn.functional.softmax; " \
           "assert 'hip.tensor.nn' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
