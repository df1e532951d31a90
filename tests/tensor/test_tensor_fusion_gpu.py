"""ht.fuse on a GPU: fused == eager (values bit for bit, and dtype) for the chains of
tests/oracles/fusion_chains.py over every dtype they take and over layouts (contiguous, broadcast, strided,
transposed, negative strides, 0-d, empty); one kernel launch for an element-wise chain (counted by
hip.tensor._core.launch.launches(), which every path's launch adds to) and no memory for
intermediates; a fused reduction launches what the reduction alone launches; scalar arguments,
multiple results, per-call checks eager makes.

Reductions over a non-contiguous layout may group the float sum differently from eager (which
reduces a contiguous intermediate): there fused is compared with eager within the dtype's
tolerance; everywhere else the bits must be equal."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import launch as _launch

from fusion_chains import CHAINS, REDUCTIONS

from gpu_tensor import ALL, KIND, assert_matches, to_device, tolerance, values

pytestmark = pytest.mark.gpu

HAS_EAGER_WHERE = hasattr(ht, "where")


@pytest.fixture
def rng():
    return np.random.default_rng(11)


_FUSED: dict = {}


def fused(name):
    if name not in _FUSED:
        _FUSED[name] = ht.fuse(CHAINS[name][0](ht), kernel_name=name)
    return _FUSED[name]


def _data(dtype, shape, rng):
    return values(dtype, shape, rng, low=-2.0, high=2.0, int_low=-6, int_high=6)


def _layout(label, dtype, rng):
    """(host x, host y, device x, device y) of one layout."""
    def pair(sx, sy, vx=lambda a: a, vy=lambda a: a):
        hx, hy = _data(dtype, sx, rng), _data(dtype, sy, rng)
        return vx(hx), vy(hy), vx(to_device(hx, dtype)), vy(to_device(hy, dtype))
    return {
        "contiguous": lambda: pair((5, 7), (5, 7)),
        "broadcast": lambda: pair((5, 7), (7,)),
        "outer": lambda: pair((5, 1), (1, 7)),
        "strided": lambda: pair((5, 14), (7, 5), lambda a: a[:, ::2], lambda a: a.T),
        "negative": lambda: pair((5, 7), (5, 14), lambda a: a[::-1], lambda a: a[::-1, ::-2]),
        "0-d": lambda: pair((), ()),
        "empty": lambda: pair((0, 7), (0, 7)),
    }[label]()


def _run(fn, *args):
    """fn(*args), or the exception it raises (fused must raise what eager raises)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    except Exception as e:          # noqa: BLE001 (compared below)
        return e


def _check(name, dtype, layout, rng):
    make, kinds, extra = CHAINS[name]
    if KIND[dtype] not in kinds:
        pytest.skip(f"{name} is not defined for {dtype}")
    hx, hy, x, y = _layout(layout, dtype, rng)
    got = _run(fused(name), x, y, *extra)
    if name == "where" and not HAS_EAGER_WHERE:         # no eager ht.where yet: NumPy is the reference
        assert not isinstance(got, Exception), got
        assert_matches(got, np.asarray(make(np)(hx, hy, *extra)), dtype if KIND[dtype] == "f" else None)
        return
    want = _run(make(ht), x, y, *extra)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (got, want)
        return
    assert not isinstance(got, Exception), got
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    g, w = got.get(), want.get()
    if name in REDUCTIONS and layout not in ("contiguous", "broadcast", "0-d", "empty") \
            and got.dtype.kind in "fc" and name not in ("max_inner",):
        np.testing.assert_allclose(g, w, equal_nan=True, **_reduction_tol(got.dtype.name))
    else:
        _assert_same_bits(g, w)


def _assert_same_bits(g, w):
    np.testing.assert_array_equal(g, w)                 # values first: the readable message
    if g.dtype.kind in "fc":                            # then the bits (signed zeros, NaN payloads)
        u = f"u{g.dtype.itemsize}" if g.dtype.kind == "f" else f"u{g.dtype.itemsize // 2}"
        np.testing.assert_array_equal(np.ascontiguousarray(g).view(u), np.ascontiguousarray(w).view(u))


def _reduction_tol(name):
    t = dict(tolerance(name))
    t["rtol"] = max(t["rtol"], 1e-6)
    return t


# every dtype on one layout; every layout on five dtypes (each new layout is a kernel to compile)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", sorted(CHAINS))
def test_chain_equals_eager(name, dtype, rng):
    _check(name, dtype, "contiguous", rng)


@pytest.mark.parametrize("layout", ["broadcast", "outer", "strided", "negative", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "complex64", "bool"])
@pytest.mark.parametrize("name", sorted(CHAINS))
def test_layouts(name, dtype, layout, rng):
    _check(name, dtype, layout, rng)


@pytest.mark.parametrize("shape", [(5, 7), (70, 45)])      # (70, 45): y.T through the shared-memory tile
@pytest.mark.parametrize("dtype", ["float32", "int32", "float16", "int8"])
def test_cast_chain_on_strided_and_transposed_operands_equals_numpy(dtype, shape, rng):
    """The cast chain reads x[:, ::2] in two types next to y.T: fused and eager both equal NumPy
    (eager once read x as contiguous in `t - x`, float64 - float32, whose byte strides matched)."""
    make = CHAINS["cast"][0]
    a, b = _data(dtype, (shape[0], 2 * shape[1]), rng), _data(dtype, shape[::-1], rng)
    hx, hy, x, y = a[:, ::2], b.T, to_device(a, dtype)[:, ::2], to_device(b, dtype).T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.asarray(make(np)(hx, hy))
    for got in (fused("cast")(x, y), make(ht)(x, y)):
        assert got.dtype.name == want.dtype.name, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got.get(), want)


# -- one kernel, nothing intermediate ------------------------------------------------------------------
class _Launches:
    """len(): the kernels launched since the last clear() (the C per-op path's included)."""

    def __init__(self):
        self.start = _launch.launches()

    def clear(self):
        self.start = _launch.launches()

    def __len__(self):
        return _launch.launches() - self.start


@pytest.fixture
def launches():
    return _Launches()


def test_fused_chain_is_one_launch_and_writes_no_intermediate(launches):
    n = 1 << 20
    x = ht.asarray(np.linspace(-1, 1, n, dtype=np.float32))
    y = ht.asarray(np.linspace(2, 3, n, dtype=np.float32))
    f = ht.fuse(lambda x, y: (x * y + x) * y - x)
    f(x, y)                                     # compiles
    eager = (x * y + x) * y - x
    ht.synchronize()
    launches.clear()
    ht.reset_peak_memory_stats()
    base = ht.memory_allocated()
    r = f(x, y)
    fused_peak = ht.max_memory_allocated() - base
    assert len(launches) == 1
    launches.clear()
    del r
    ht.synchronize()
    ht.reset_peak_memory_stats()
    base = ht.memory_allocated()
    e = (x * y + x) * y - x
    eager_peak = ht.max_memory_allocated() - base
    assert len(launches) == 4                   # the control: eager is four kernels ...
    assert eager_peak >= 2 * e.nbytes           # ... and holds an intermediate at its peak
    assert fused_peak < 2 * e.nbytes            # fused holds only its result
    _assert_same_bits(f(x, y).get(), eager.get())


def test_fused_reduction_launches_what_the_reduction_alone_launches(launches):
    rng = np.random.default_rng(3)
    for shape, axis in (((64, 1000), 1), ((1000, 64), 0), ((1 << 20,), None)):
        x = ht.asarray(rng.standard_normal(shape).astype(np.float32))
        m = ht.asarray(np.float32(0.25))
        f = ht.fuse(lambda x, m: ((x - m) ** 2).sum(axis=axis))
        f(x, m)
        d = (x - m) ** 2
        ht.sum(d, axis=axis)
        launches.clear()
        f(x, m)
        n_fused = len(launches)
        launches.clear()
        ht.sum(d, axis=axis)
        assert n_fused == len(launches) and n_fused in (1, 2)


def test_multiple_results_one_launch(launches, rng):
    x, y = to_device(_data("float32", (6, 5), rng), "float32"), to_device(_data("float32", (5,), rng), "float32")
    f = ht.fuse(lambda x, y: (x + y, ht.sin(x) * y > 0))
    f(x, y)
    launches.clear()
    a, b = f(x, y)
    assert len(launches) == 1
    np.testing.assert_array_equal(a.get(), (x + y).get())
    assert b.dtype == ht.bool
    np.testing.assert_array_equal(b.get(), (ht.sin(x) * y > 0).get())
    with pytest.raises(ValueError, match="different shapes"):
        ht.fuse(lambda x, y: (x + 1, x * y))(to_device(_data("float32", (5, 1), rng), "float32"), y)


def test_fused_helper_inlines(launches, rng):
    inner = ht.fuse(lambda x: x * 2 + 1)
    outer = ht.fuse(lambda x, y: inner(x) * y)
    x, y = (to_device(_data("float64", (40,), rng), "float64") for _ in range(2))
    outer(x, y)
    launches.clear()
    r = outer(x, y)
    assert len(launches) == 1
    _assert_same_bits(r.get(), ((x * 2 + 1) * y).get())


# -- arguments ----------------------------------------------------------------------------------------------
def test_scalar_arguments_reuse_the_kernel(rng):
    f = fused("scalar_arg")
    x, y = (to_device(_data("float32", (8, 3), rng), "float32") for _ in range(2))
    for s in (0.75, -2.0, 1e30):
        _assert_same_bits(f(x, y, s).get(), (x ** 2 * s + y).get())
    assert sum(1 for k in f._plans if k[:2] == ((ht.float32, 2), (ht.float32, 2))) == 1
    np.testing.assert_array_equal(f(x, y, np.float64(3)).get(), (x ** 2 * np.float64(3) + y).get())
    assert f(x, y, np.float64(3)).dtype == ht.float64


def test_python_int_range_is_checked_per_call_as_eager():
    f = ht.fuse(lambda x, s: x + s)
    x = ht.asarray(np.arange(4, dtype=np.int8))
    np.testing.assert_array_equal(f(x, 5).get(), (x + 5).get())
    with pytest.raises(OverflowError):
        x + 300
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        f(x, 300)


def test_empty_max_raises_as_eager():
    f = ht.fuse(lambda x: (x + 1).max())
    with pytest.raises(ValueError, match="zero-size"):
        f(ht.zeros((0, 3), dtype=ht.float32))
    g = ht.fuse(lambda x: (x + 1).max(axis=1))
    assert g(ht.zeros((0, 3), dtype=ht.float32)).shape == (0,)


def test_cupy_style_chain_matches_numpy(rng):
    """The issue's two examples against NumPy itself (float64, where NumPy is exact enough)."""
    hx, hy = rng.standard_normal(1000), rng.standard_normal(1000)
    x, y = ht.asarray(hx), ht.asarray(hy)
    chain = ht.fuse(lambda x, y: (x * y + x) * y - x)
    np.testing.assert_allclose(chain(x, y).get(), (hx * hy + hx) * hy - hx, rtol=1e-15, atol=1e-15)
    m = ht.asarray(np.float64(hx.mean()))
    sq = ht.fuse(lambda x, m: ((x - m) ** 2).sum())
    np.testing.assert_allclose(sq(x, m).get(), ((hx - hx.mean()) ** 2).sum(), rtol=1e-12)
    assert_matches(sq(x, m), np.asarray(((hx - hx.mean()) ** 2).sum()))
