"""hip.tensor.fft's hipFFT layouts without a device: every layout the planner gives (hipFFT's
advanced layout: n, inembed, istride, idist, onembed, ostride, odist, batch, plus one call per
pointer offset) is replayed with NumPy by the address formula hipFFT documents, and the result must
equal numpy.fft over the same axes of the same strided view; every output element is written once.
Random views (transposed, sliced with steps, reversed, broadcast) and the layouts the brief names
(an axis of a C-contiguous array: stride prod(shape[k+1:]), the trailing axes as batch, dist 1)."""
from __future__ import annotations

import numpy as np
import pytest

from hip.tensor import fft as F
from hip.tensor._libs.fft_layout import MAX_CALLS, out_lengths, plan_layout


def _offsets(lengths, embed, stride):
    """hipFFT's element offsets of a block of `lengths` (outer first) in C order:
    stride * (i_{r-1} + embed[r-1] * (i_{r-2} + embed[r-2] * (... + embed[1] * i_0)))."""
    idx = np.indices(lengths).reshape(len(lengths), -1)
    lin = idx[0].copy()
    for j in range(1, len(lengths)):
        lin = lin * embed[j] + idx[j]
    return lin * stride


def replay(kind, flat, start, shape, strides, axes, n_last=None):
    """What hipFFT computes with plan_layout's layout of the view (flat[start], shape, strides),
    as a NumPy array of the output's shape (None: the planner declined)."""
    lay = plan_layout(kind, shape, strides, axes, n_last)
    if lay is None:
        return None
    n, inembed, istride, idist, onembed, ostride, odist, batch = lay.plan
    r = len(n)
    assert len(inembed) == len(onembed) == r <= 3 and batch >= 1
    assert len(lay.calls) <= MAX_CALLS
    in_len = list(n[:-1]) + [n[-1] // 2 + 1] if kind == "c2r" else list(n)
    out_len = list(n[:-1]) + [n[-1] // 2 + 1] if kind == "r2c" else list(n)
    size = int(np.prod(lay.alloc_shape))
    out = np.zeros(size, np.float64 if kind == "c2r" else np.complex128)
    written = np.zeros(size, np.int64)
    ioff, ooff = _offsets(in_len, inembed, istride), _offsets(out_len, onembed, ostride)
    for ic, oc in lay.calls:
        for b in range(batch):
            block = flat[start + ic + b * idist + ioff].reshape(in_len)
            if kind == "c2c":
                res = np.fft.fftn(block)
            elif kind == "r2c":
                res = np.fft.rfftn(block)
            else:
                res = np.fft.irfftn(block, s=n, axes=tuple(range(r)))
            dst = oc + b * odist + ooff
            assert dst.min() >= 0 and dst.max() < size
            out[dst] = res.ravel()
            written[dst] += 1
    assert (written == 1).all(), "every output element exactly once"
    order = lay.order
    assert tuple(sorted(order)) == tuple(range(len(shape)))
    return out.reshape(lay.alloc_shape).transpose([order.index(a) for a in range(len(shape))])


def numpy_view(base: np.ndarray, view: np.ndarray):
    """(start, strides) in elements of `view` within the flat `base`."""
    isz = base.itemsize
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // isz
    return start, tuple(s // isz for s in view.strides)


def reference(kind, v, axes, n_last=None):
    if kind == "c2c":
        return np.fft.fftn(v, axes=axes)
    if kind == "r2c":
        return np.fft.rfftn(v, axes=axes)
    return np.fft.irfftn(v, s=[v.shape[a] for a in axes[:-1]] + [n_last], axes=axes)


def check_view(kind, base, v, axes, n_last=None):
    start, strides = numpy_view(base, v)
    got = replay(kind, base.ravel(), start, v.shape, strides, axes, n_last)
    if got is None:
        return False
    want = reference(kind, v, axes, n_last)
    assert got.shape == want.shape == out_lengths(kind, v.shape, axes, n_last)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * max(1.0, np.abs(want).max()))
    return True


def random_view(rng, kind):
    nd = int(rng.integers(1, 5))
    shape = tuple(int(rng.integers(1, 7)) for _ in range(nd))
    base = rng.standard_normal(shape)
    if kind != "r2c":
        base = base + 1j * rng.standard_normal(shape)
    v = base.transpose(rng.permutation(nd)) if rng.random() < 0.4 else base
    if rng.random() < 0.5:
        sl = []
        for d in v.shape:
            step = int(rng.choice([1, 1, 2, -1, -2]))
            lo = int(rng.integers(0, max(1, d // 2)))
            sl.append(slice(lo, None, step) if step > 0 else slice(d - 1 - lo, None, step))
        v = v[tuple(sl)]
    if rng.random() < 0.15 and v.ndim >= 2:           # a broadcast axis (stride 0)
        k = int(rng.integers(0, v.ndim))
        v = np.broadcast_to(v[(slice(None),) * k + (slice(0, 1),)], v.shape[:k] + (3,) + v.shape[k + 1:])
    return np.ascontiguousarray(base) if base.base is not None else base, v


@pytest.mark.parametrize("kind", ["c2c", "r2c", "c2r"])
def test_random_views_replay_as_numpy(kind):
    rng = np.random.default_rng({"c2c": 1, "r2c": 2, "c2r": 3}[kind])
    planned = declined = 0
    for _ in range(600):
        base, v = random_view(rng, kind)
        if v.size == 0:
            continue
        r = int(rng.integers(1, min(3, v.ndim) + 1))
        axes = tuple(int(a) for a in rng.permutation(v.ndim)[:r])
        n_last = None
        if kind == "c2r":
            n_last = 2 * (v.shape[axes[-1]] - 1) + int(rng.integers(0, 2))
            if n_last < 1:
                continue
        if check_view(kind, base, v, axes, n_last):
            planned += 1
        else:
            declined += 1
    assert planned > 200, (planned, declined)       # about half the random views need no copy


@pytest.mark.parametrize("shape", [(7,), (4, 6), (3, 4, 5), (2, 3, 4, 5), (16, 8)])
def test_every_axis_of_a_c_contiguous_array(shape):
    """Axis k of a C-contiguous array: istride = prod(shape[k+1:]), the trailing axes are the
    batch with distance 1 (the leading ones folded in where k is last, else walked by calls)."""
    base = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * (1 + 0.5j)
    for k in range(len(shape)):
        lay = plan_layout("c2c", shape, tuple(s // 16 for s in base.strides), (k,))
        trailing, leading = int(np.prod(shape[k + 1:])), int(np.prod(shape[:k]))
        assert lay.plan[0] == (shape[k],) and lay.plan[2] == trailing
        if trailing > 1:
            assert lay.plan[3] == 1 and lay.plan[7] == trailing and len(lay.calls) == leading
        else:
            assert lay.plan[3] == shape[k] and lay.plan[7] == leading and len(lay.calls) == 1
        assert lay.order == tuple(range(len(shape)))            # a C-contiguous result
        assert check_view("c2c", base, base, (k,))


def test_large_1d_and_the_benchmark_shapes():
    lay = plan_layout("c2c", (1 << 24,), (1,), (0,))
    assert lay.plan == ((1 << 24,), (1 << 24,), 1, 1 << 24, (1 << 24,), 1, 1 << 24, 1) and lay.calls == ((0, 0),)
    lay = plan_layout("c2c", (4096, 1024), (1024, 1), (0,))     # fft along axis 0: no copy
    assert lay.plan == ((4096,), (4096,), 1024, 1, (4096,), 1024, 1, 1024) and len(lay.calls) == 1
    lay = plan_layout("r2c", (1024, 4096), (4096, 1), (1,))
    assert lay.plan == ((4096,), (4096,), 1, 4096, (2049,), 1, 2049, 1024)
    lay = plan_layout("c2c", (4096, 4096), (4096, 1), (0, 1))
    assert lay.plan == ((4096, 4096), (4096, 4096), 1, 16777216, (4096, 4096), 1, 16777216, 1)


def test_contiguous_axes_last_always_plans():
    """The copy fallback (the axes moved last, C-contiguous) always has a one-call layout."""
    for shape in [(3, 4, 5), (1, 5), (6,), (2, 1, 3, 4)]:
        for r in range(1, min(3, len(shape)) + 1):
            axes = tuple(range(len(shape) - r, len(shape)))
            for kind in ("c2c", "r2c", "c2r"):
                strides = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
                n_last = 2 * (shape[-1] - 1) if kind == "c2r" else None
                if n_last == 0:
                    continue
                lay = plan_layout(kind, shape, strides, axes, n_last)
                assert lay is not None and len(lay.calls) == 1, (shape, axes, kind)


def test_declines_what_the_layout_cannot_express():
    assert plan_layout("c2c", (4, 5), (-5, 1), (0,)) is None                 # a reversed transformed axis
    assert plan_layout("c2c", (4, 6), (2, 3), (0, 1)) is None                # strides that do not divide
    assert plan_layout("c2c", (4, 6), (1, 3), (0, 1)) is None                # axes that overlap
    assert plan_layout("r2c", (4, 6), (1, 4), (0, 1)) is None                # the halved axis not innermost
    assert plan_layout("c2c", (40, 4, 40), (160, 40, 1), (1,)) is None       # 40 calls: a copy is cheaper
    assert plan_layout("c2c", (2 ** 31, 2), (2, 1), (0,)) is None            # beyond 32-bit plans
    # an empty array: no call, the output's shape only
    lay = plan_layout("r2c", (0, 8), (8, 1), (1,))
    assert lay.calls == () and lay.alloc_shape == (0, 5)


def test_fft_module_refuses_misaligned_call_offsets():
    """The per-call addresses keep cuFFT's 16-byte alignment, else fft copies (_layout is None)."""
    assert F._layout("c2c", (3, 4, 5), (160, 40, 8), 8, (1,), None) is not None      # trailing batch, 1 call
    assert F._layout("c2c", (2, 3, 3), (72, 24, 8), 8, (1,), None) is None        # calls 72 bytes apart
    assert F._layout("c2c", (2, 3, 3), (144, 48, 16), 16, (1,), None) is not None  # complex128: 144
    assert F._layout("c2c", (4, 4), (33, 8), 8, (1,), None) is None                  # not whole elements


def test_plan_keys_include_the_layout():
    """Plans are cached by layout: the same lengths in two layouts are two plans, the same memory
    described two ways (a transposed view of the same bytes) is one."""
    rows = plan_layout("c2c", (8, 16), (16, 1), (1,))
    cols = plan_layout("c2c", (16, 8), (8, 1), (0,))
    same = plan_layout("c2c", (16, 8), (1, 16), (0,))
    assert rows.plan[0] == cols.plan[0] == (16,) and rows.plan != cols.plan
    assert same.plan == rows.plan
