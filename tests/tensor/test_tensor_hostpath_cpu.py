"""The per-call decisions hip.tensor keeps by key (`_core.plans`), without a GPU: views of arrays
made over no memory (shapes, strides and addresses are host data) against NumPy's views of the same
layout; a later call whose key differs in a stride, a dtype, a device, a flag or a value type gets
its own decision (or the error the checks raise), never the cached one. The results on a device:
tests/tensor/test_tensor_hostpath_gpu.py."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from hip.tensor._api import indexing, linalg, manipulation
from hip.tensor._core import dtypes as _dt
from hip.tensor._core.array import ndarray
from hip.tensor._core.plans import PlanCache, all_ints, layout
from hip.tensor._core.shapes import c_strides
from hip.tensor._kernels import elementwise
from hip.tensor.nn import _activation, _conv, _norm, _pool, _softmax

BASE = 0x7f0000000000


def fake(shape, dtype="float32", strides=None, device_id=0, ptr=BASE) -> ndarray:
    """An array over no memory (never read): its layout is all a view or a plan looks at."""
    d = _dt.dtype(dtype)
    shape = tuple(shape)
    return ndarray._view_of(None, ptr, shape, strides or c_strides(shape, d.itemsize), d, device_id)


def same_view(got: ndarray, want: np.ndarray, host: np.ndarray):
    """got (a view of an array at BASE) has want's shape, strides and offset (want a view of host)."""
    assert got.shape == want.shape and got.strides == want.strides
    offset = want.__array_interface__["data"][0] - host.__array_interface__["data"][0]
    assert got.ptr - BASE == offset


def test_plan_cache_keeps_at_most_its_limit_dropping_the_oldest():
    c = PlanCache(3)
    for i in range(5):
        assert c.put(i, str(i)) == str(i)
    assert list(c) == [2, 3, 4]
    assert all_ints((1, 2)) and not all_ints((1, 2.0)) and not all_ints((True,)) and not all_ints((np.int64(1),))


BASIC_KEYS = [0, -1, (slice(None), slice(None), 0), (Ellipsis, 1), (None, 0, Ellipsis, None),
              (slice(1, None, 2), Ellipsis, slice(None, None, -1)), (slice(5, 2),), (1, 2, 2, 4),
              (Ellipsis,), (), (slice(None), None, -2)]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=str)
def test_basic_indexing_is_numpys_view(key):
    host = np.empty((4, 5, 3, 6), np.float32)
    x = fake(host.shape)
    k = key if isinstance(key, tuple) else (key,)
    view_key = k if Ellipsis in k else k + (Ellipsis,)     # NumPy: a 0-d view, not a scalar, for all ints
    for _ in range(2):                  # the second call as the first
        same_view(x[key], host[view_key], host)
    t = host.transpose(2, 0, 3, 1)      # other strides, same key
    same_view(fake(t.shape, strides=t.strides)[key], t[view_key], host)


@pytest.mark.parametrize("key,error", [((0, 0, 0, 0, 0), IndexError), ((4,), IndexError), ((0, -6), IndexError),
                                       ((Ellipsis, Ellipsis), IndexError), ((slice(None, None, 0),), ValueError),
                                       ((1.0,), IndexError)])
def test_basic_indexing_errors_stay(key, error):
    x = fake((4, 5, 3, 6))
    with pytest.raises(error):
        x[key]


def test_keys_the_fast_path_leaves_to_the_general_one():
    """bool and NumPy integer items are not `int`: the general parser reads them, as NumPy does."""
    host = np.empty((4, 5), np.float32)
    x = fake(host.shape)
    same_view(x[np.int64(2)], host[np.int64(2)], host)
    same_view(x[np.int32(1), 1:3], host[np.int32(1), 1:3], host)
    assert indexing._basic(x, (True,)) is None and indexing._basic(x, (np.int64(0),)) is None


def test_permutations_are_checked_once_per_key_and_never_for_another():
    host = np.empty((2, 3, 4, 5), np.float16)
    x = fake(host.shape, "float16")
    for axes in [(0, 2, 1, 3), (-1, 0, 1, 2), (0, 2, 1, 3)]:
        same_view(x.transpose(*axes), host.transpose(*axes), host)
        same_view(manipulation.permute_dims(x, list(axes)), host.transpose(*axes), host)
    same_view(x.mT, np.swapaxes(host, -1, -2), host)
    same_view(x.mT.mT, host, host)
    with pytest.raises(TypeError):      # (0.0, 2.0, ...) == (0, 2, ...): floats must not find the ints' entry
        manipulation.permute_dims(x, (0.0, 2.0, 1.0, 3.0))
    with pytest.raises(ValueError):
        manipulation.permute_dims(x, (0, 0, 1, 3))
    with pytest.raises(IndexError):
        manipulation.permute_dims(fake((2, 3)), (0, 2, 1, 3))    # the 4-d entry is not the 2-d one's
    with pytest.raises(ValueError):
        fake((3,)).mT


def test_reshape_views_are_cached_by_the_strides_they_come_from():
    host = np.empty((8, 4, 6), np.float32)
    x = fake(host.shape)
    for _ in range(2):
        same_view(x.reshape((32, 6)), host.reshape((32, 6)), host)
    t = host.transpose(1, 0, 2)                     # the same shape, strides that need a copy
    with pytest.raises(ValueError, match="needs a copy"):
        manipulation.reshape(fake(t.shape, strides=t.strides), (32, 6), copy=False)
    with pytest.raises(TypeError):                  # floats equal the ints of the cached key
        x.reshape((32.0, 6.0))
    with pytest.raises(ValueError):
        x.reshape((32, 7))
    same_view(x.reshape((-1, 6)), host.reshape((-1, 6)), host)
    h16 = np.empty((8, 4, 6), np.float16)           # another itemsize: its own strides
    same_view(fake(h16.shape, "float16").reshape((32, 6)), h16.reshape((32, 6)), h16)


def test_linear_plan_follows_layout_dtype_activation_bias_and_device():
    x, w, b = fake((64, 32), "bfloat16"), fake((48, 32), "bfloat16"), fake((48,), "bfloat16")
    plan = _activation._check_linear(x, w, b, "relu", None)
    assert plan == ("relu", True, 64, 48, 32, (64, 48), "relu", None)
    assert _activation._check_linear(x, w, b, "gelu", None)[6:] == ("identity", "gelu")
    assert _activation._check_linear(x, w, None, None, None)[6:] == ("identity", None)
    xt = fake((64, 32), "bfloat16", strides=(2, 128))          # a transposed input: hipBLAS's gemm
    assert _activation._check_linear(xt, w, b, "relu", None)[1] is False
    x64, w64 = fake((64, 32), "float64"), fake((48, 32), "float64")
    assert _activation._check_linear(x64, w64, None, "relu", None)[1] is False
    keys = {_activation._key(*args) for args in [(x, w, b, "relu", None), (xt, w, b, "relu", None),
                                                 (x, w, b, "gelu", None), (x, w, None, "relu", None),
                                                 (fake((64, 32), "float16"), w, b, "relu", None),
                                                 (fake((64, 32), "bfloat16", device_id=1), w, b, "relu", None),
                                                 (x, w, b, "relu", fake((64, 48), "bfloat16"))]}
    assert len(keys) == 7
    assert _activation._key(x, w, b, ["relu"], None) is None and _activation._key(np.empty(3), w, b, None, None) is None


def test_linear_checks_run_for_each_new_key():
    x, w = fake((64, 32), "float32"), fake((48, 32), "float32")
    key = _activation._key(x, w, None, None, None)
    _activation._plans.put(key, _activation._check_linear(x, w, None, None, None))
    try:
        with pytest.raises(TypeError, match="weight is float16"):
            _activation.linear(x, fake((48, 32), "float16"))
        with pytest.raises(ValueError, match="different devices"):
            _activation.linear(x, fake((48, 32), device_id=1))
        with pytest.raises(ValueError, match="unknown activation"):
            _activation.linear(x, w, activation="swish")
        with pytest.raises(ValueError, match="residual"):
            _activation.linear(x, w, residual=fake((64, 47)))
        with pytest.raises(TypeError):
            _activation.linear(np.zeros((64, 32), np.float32), w)
    finally:
        _activation._plans.pop(key, None)


@pytest.mark.parametrize("a_shape,a_perm,b_shape,b_perm,arrays", [
    ((8, 512, 3, 16, 64), "q", (8, 512, 3, 16, 64), "kT", True),
    ((8, 16, 512, 64), None, (8, 16, 64, 512), None, False),
    ((64, 32), None, (32, 48), None, False)])
def test_matmul_layout_follows_the_strides(a_shape, a_perm, b_shape, b_perm, arrays):
    def view(x, how):
        if how == "q":
            return x[:, :, 0].transpose(0, 2, 1, 3)
        if how == "kT":
            return x[:, :, 1].transpose(0, 2, 1, 3).mT
        return x
    a, b = view(fake(a_shape, "float16"), a_perm), view(fake(b_shape, "float16", ptr=BASE + (1 << 30)), b_perm)
    batch = a.shape[:-2]
    how = linalg._gemm_layout(a, b, batch, c_strides(batch + (a.shape[-2], b.shape[-1]), 2)[:-2], 2)
    m, n, k, tb, ta, ldb, lda, bshape, sa, sb, sc, arr, nb = how
    assert (m, n, k, arr) == (a.shape[-2], b.shape[-1], a.shape[-1], arrays)
    assert nb == int(np.prod(batch or (1,)))
    assert ta is False and tb is (b_perm == "kT")
    # the same shapes with C-contiguous strides: another key, and the strided-batched layout
    ac, bc = fake(a.shape, "float16"), fake(b.shape, "float16")
    key = lambda x, y: (layout(x), layout(y))     # noqa: E731  (matmul's)
    assert (key(ac, bc) == key(a, b)) is (a_perm is None and b_perm is None)
    assert linalg._gemm_layout(ac, bc, batch, c_strides(batch + (m, n), 2)[:-2], 2)[11] is False


def test_softmax_route_and_key():
    for n, inner, warp in [(512, 1, True), (4096, 1, False), (64, 8, False)]:
        route = _softmax._route(_dt.float32, False, n, inner, 1024, False)
        assert route[0] is warp
        assert route[3][1] == n and (len(route[3]) == 2) is warp
    x = fake((4, 8), "float16")
    with pytest.raises(TypeError, match="dim must be given"):
        _softmax.softmax(x)
    with pytest.raises(TypeError, match="scale"):
        _softmax.softmax(x, dim=-1, scale="2")
    with pytest.raises(TypeError, match="floating"):
        _softmax.softmax(x, dim=-1, dtype="int32")
    with pytest.raises(IndexError):
        _softmax.softmax(x, dim=2)


def test_layer_norm_checks_run_for_each_new_key():
    x, w = fake((16, 32), "float32"), fake((32,), "float32")
    key = (layout(x), (32,), layout(w), None)
    _norm._plans.put(key, _norm._route(16, 32, False, 1, 0, 1))
    try:
        with pytest.raises(ValueError, match="eps"):
            _norm.layer_norm(x, (32,), w, eps=-1.0)
        with pytest.raises(ValueError, match="eps"):
            _norm.layer_norm(x, (32,), w, eps=float("nan"))
        with pytest.raises(TypeError, match="weight is float16"):
            _norm.layer_norm(x, (32,), fake((32,), "float16"))
        with pytest.raises(ValueError, match="normalized_shape"):
            _norm.layer_norm(x, (16,), w)
        with pytest.raises(ValueError, match="weight must have shape"):
            _norm.layer_norm(x, (32,), fake((31,), "float32"))
    finally:
        _norm._plans.pop(key, None)


def test_keys_hold_no_unhashable_arguments():
    """A list where a tuple is usual goes the checked way (no TypeError from the cache itself)."""
    host = np.empty((6, 4), np.float32)
    x = fake(host.shape)
    same_view(manipulation.reshape(x, [4, 6]), host.reshape([4, 6]), host)
    same_view(x.transpose([1, 0]), host.transpose([1, 0]), host)
    for shape in itertools.permutations((2, 3, 4)):
        same_view(x.reshape(shape), host.reshape(shape), host)


class _Specs:
    """A TemplateKernel's `function` that hands back its specialization instead of compiling (the
    plan's decisions are the specializations it asks for; the kernels run in the GPU tests)."""

    def __init__(self, monkeypatch, *kernels):
        for k in kernels:
            monkeypatch.setattr(k, "function", lambda dev, *spec, _k=k: (_k.name, dev) + spec)


def _conv_args(**over):
    args = dict(nd=2, x=fake((8, 16, 14, 14)), w=fake((32, 16, 3, 3), ptr=BASE + (1 << 30)), b=None, stride=1,
                padding=1, dilation=1, groups=1, act=None, r=None)
    args.update(over)
    return args


def _conv_key(**over):
    a = _conv_args(**over)
    return _conv._key(a["nd"], a["x"], a["w"], a["b"], a["stride"], a["padding"], a["dilation"], a["groups"],
                      a["act"], a["r"])


def test_conv_key_follows_every_decision(monkeypatch):
    base = _conv_key()
    changed = [dict(stride=2), dict(stride=(1, 2)), dict(padding=0), dict(padding="same"), dict(dilation=2),
               dict(groups=2, w=fake((32, 8, 3, 3))), dict(act="relu"), dict(b=fake((32,))),
               dict(b=fake((32,), "float16")), dict(r=fake((8, 32, 14, 14))),
               dict(r=fake((8, 32, 14, 14), ptr=BASE + 4)), dict(x=fake((8, 16, 14, 14), "float16")),
               dict(x=fake((8, 16, 14, 14), device_id=1)), dict(x=fake((4, 16, 14, 14))),
               dict(x=fake((8, 16, 14, 14), strides=(4, 8 * 14 * 14 * 4, 14 * 4, 4))),
               dict(w=fake((32, 16, 3, 3), "float16"))]
    keys = {base} | {_conv_key(**c) for c in changed}
    assert None not in keys and len(keys) == len(changed) + 1
    monkeypatch.setattr(_conv, "ONE_GEMM", not _conv.ONE_GEMM)
    assert _conv_key() != base
    monkeypatch.setattr(_conv, "COL_BYTES", 1 << 20)
    monkeypatch.setattr(_conv, "ONE_GEMM", not _conv.ONE_GEMM)
    assert _conv_key() != base
    # values the key does not hold exactly go the checked way each call
    for c in [dict(stride=[1, 1]), dict(stride=np.int64(1)), dict(padding=(1.0, 1)), dict(groups=True),
              dict(dilation=(1, True)), dict(act=["relu"]), dict(x=np.empty((8, 16, 14, 14), np.float32))]:
        assert _conv_key(**c) is None


def _plan(**over):
    a = _conv_args(**over)
    return _conv._plan(a["nd"], a["x"], a["w"], a["b"], a["stride"], a["padding"], a["dilation"], a["groups"],
                       a["act"], a["r"])


def test_conv_plan_routes_chunks_and_passes(monkeypatch):
    _Specs(monkeypatch, _conv.IM2COL, _conv.POST)
    monkeypatch.setattr(_conv, "ONE_GEMM", True)
    # as written (no pass): per-sample gemms into NCHW, no pass
    p = _plan()
    route, out_shape, d, dev, act, N, cin, cout, kc, P, G, flat, after, chunks, one, tmp, scratch = p
    assert (route, out_shape, act, N, cout, kc, P, flat, after, one) == \
        ("im2col", (8, 32, 14, 14), "identity", 8, 32, 144, 196, True, None, False)
    assert len(chunks) == 1 and chunks[0][:4] == (0, 8, 0, 0) and chunks[0][6] is None
    assert chunks[0][4] == ("htnn_im2col", 0, d, 2, (16, (14, 14), (14, 14), (3, 3), (1, 1), (1, 1), (1, 1)), 8, 2,
                            False, False)
    assert scratch * 4 == 8 * 144 * 196 * 4
    # fused (bias, residual, relu): one gemm, its pass reads (cout, m, P) transposed
    p = _plan(b=fake((32,)), act="relu", r=fake((8, 32, 14, 14)))
    assert p[0] == "im2col" and p[12] is None and p[14] is True
    n0, m, xoff, ooff, im2col, grid, post = p[13][0]
    assert im2col[-1] is True                   # samples-inner col
    assert post[0][:3] == ("htnn_conv_post", 0, d) and post[0][3:] == ("relu", True, True, 32, 196, 8, True, 4, False)
    assert p[15] % _conv.SCRATCH_ALIGN == 0 and p[15] >= 8 * 144 * 196 * 4
    assert p[16] * 4 >= p[15] + 32 * 8 * 196 * 4
    # ONE_GEMM off: per-sample gemms and the pass in place over the output
    monkeypatch.setattr(_conv, "ONE_GEMM", False)
    p = _plan(b=fake((32,)), act="relu")
    assert p[14] is False and p[12][0][3:] == ("relu", True, False, 32, 196, 8, False, 4, False)
    # a residual 4 bytes off 16: the pass reads it one element at a time
    p = _plan(r=fake((8, 32, 14, 14), ptr=BASE + 4))
    assert p[12][0][-2] == 1
    # 1x1, stride 1: x is its own col; groups: views, per-group gemms, no one-gemm form
    monkeypatch.setattr(_conv, "ONE_GEMM", True)
    assert _plan(w=fake((32, 16, 1, 1)), padding=0, act="relu")[0] == "1x1"
    p = _plan(w=fake((32, 8, 3, 3)), groups=2, act="relu")
    assert p[0] == "im2col" and p[11] is False and p[14] is False and p[12] is not None
    # chunks bound col: offsets in bytes of the input and output, the last chunk shorter
    monkeypatch.setattr(_conv, "COL_BYTES", 3 * 144 * 196 * 4)
    p = _plan(act="relu")
    assert [c[:4] for c in p[13]] == [(0, 3, 0, 0), (3, 3, 3 * 16 * 196 * 4, 3 * 32 * 196 * 4),
                                      (6, 2, 6 * 16 * 196 * 4, 6 * 32 * 196 * 4)]
    assert [c[6][0][-4] for c in p[13]] == [3, 3, 2]        # each pass compiled for its chunk's samples
    # unbatched input; no output elements
    p = _plan(x=fake((16, 14, 14)), act="relu")
    assert p[1] == (32, 14, 14) and p[5] == 1
    assert _plan(x=fake((0, 16, 14, 14)))[0] == "empty"


def test_conv_checks_run_for_each_new_key(monkeypatch):
    """A plan kept for good arguments never answers for bad ones: each changes the key (or has
    none), so the checks run and raise before anything is allocated or launched."""
    _Specs(monkeypatch, _conv.IM2COL, _conv.POST)
    a = _conv_args()
    key = _conv_key()
    _conv._plans.put(key, _plan())
    x, w = a["x"], a["w"]
    try:
        with pytest.raises(TypeError, match="weight is float16"):
            _conv.conv2d(x, fake((32, 16, 3, 3), "float16"), padding=1)
        with pytest.raises(TypeError, match="bias is float16"):
            _conv.conv2d(x, w, fake((32,), "float16"), padding=1)
        with pytest.raises(ValueError, match="bias must have shape"):
            _conv.conv2d(x, w, fake((31,)), padding=1)
        with pytest.raises(ValueError, match="different devices"):
            _conv.conv2d(x, fake((32, 16, 3, 3), device_id=1), padding=1)
        with pytest.raises(ValueError, match="different devices"):
            _conv.conv2d(x, w, padding=1, residual=fake((8, 32, 14, 14), device_id=1))
        with pytest.raises(ValueError, match="residual must have"):
            _conv.conv2d(x, w, padding=1, residual=fake((8, 32, 14, 13)))
        with pytest.raises(TypeError, match="residual is float16"):
            _conv.conv2d(x, w, padding=1, residual=fake((8, 32, 14, 14), "float16"))
        with pytest.raises(ValueError, match="unknown activation"):
            _conv.conv2d(x, w, padding=1, activation="swish")
        with pytest.raises(ValueError, match="padding='same' needs stride 1"):
            _conv.conv2d(x, w, stride=2, padding="same")
        with pytest.raises(ValueError, match="stride must be >= 1"):
            _conv.conv2d(x, w, stride=0, padding=1)
        with pytest.raises(ValueError, match="groups"):
            _conv.conv2d(x, w, padding=1, groups=3)
        with pytest.raises(ValueError, match="smaller than"):
            _conv.conv2d(fake((8, 16, 2, 2)), w)
        with pytest.raises(TypeError, match="must be float16"):
            _conv.conv2d(fake((8, 16, 14, 14), "int32"), w, padding=1)
        with pytest.raises(ValueError, match="padding must be"):
            _conv.conv2d(x, w, padding="full")
    finally:
        _conv._plans.pop(key, None)


def test_batch_norm_plan_and_checks(monkeypatch):
    _Specs(monkeypatch, _norm.BN)
    x = fake((8, 64, 7, 7))
    rm, rv, w, b = (fake((64,), ptr=BASE + i * 4096) for i in range(4))
    launch = _norm._bn_launch(x, rm, rv, w, b, 64, 49)
    assert launch[0][2:] == (_dt.float32, ("float32",) * 4, 64, 49, 8, 1, False)
    x16 = fake((8, 64, 56, 56), "bfloat16")
    launch = _norm._bn_launch(x16, rm, rv, None, fake((64,), "bfloat16"), 64, 56 * 56)
    assert launch[0][3:] == (("float32", "float32", None, "bfloat16"), 64, 3136, 8, 4, False)
    assert _norm._bn_launch(fake((8, 64, 56, 56), ptr=BASE + 4), rm, rv, w, b, 64, 3136)[0][-2] == 1
    key = (layout(x), 0, layout(rm), layout(rv), layout(w), layout(b))
    _norm._bn_plans.put(key, (launch, _dt.float32))
    try:
        with pytest.raises(ValueError, match="eps"):
            _norm.batch_norm(x, rm, rv, w, b, eps=-1.0)
        with pytest.raises(ValueError, match="running_mean must have shape"):
            _norm.batch_norm(x, fake((63,)), rv, w, b)
        with pytest.raises(ValueError, match="weight is on device 1"):
            _norm.batch_norm(x, rm, rv, fake((64,), device_id=1), b)
        with pytest.raises(ValueError, match="required when training=False"):
            _norm.batch_norm(x, None, rv, w, b)
        with pytest.raises(TypeError, match="must be float16"):
            _norm.batch_norm(fake((8, 64, 7, 7), "int32"), rm, rv, w, b)
        with pytest.raises(ValueError, match="expected more than 1 value"):
            _norm.batch_norm(fake((1, 64, 1, 1)), rm, rv, w, b, training=True)
    finally:
        _norm._bn_plans.pop(key, None)


def test_pool_keys_and_checks(monkeypatch):
    _Specs(monkeypatch, _pool.KERNEL)
    monkeypatch.setitem(elementwise._grid_cap, 0, 132 * 32)      # the grid's cap: no device to ask
    x = fake((2, 4, 9, 9))
    keys = [_pool._key("max_pool2d", x, (3, 2, 1, 1), (False, False)),
            _pool._key("max_pool2d", x, (3, 2, 0, 1), (False, False)),
            _pool._key("max_pool2d", x, (3, 2, 1, 1), (True, False)),
            _pool._key("avg_pool2d", x, (3, 2, 1, None), (False, True)),
            _pool._key("max_pool2d", fake((2, 4, 9, 9), "float16"), (3, 2, 1, 1), (False, False)),
            _pool._key("adaptive_avg_pool2d", x, ((1, 1),), ())]
    assert None not in keys and len(set(keys)) == len(keys)
    for sizes, flags in [((True, 2, 1, 1), (False, False)), ((3, [2, 2], 1, 1), (False, False)),
                         ((3, 2, 1, 1), (0, False)), ((3, 2, 1.0, 1), (False, False))]:
        assert _pool._key("max_pool2d", x, sizes, flags) is None
    plan = _pool._plan("max", x, 2, (5, 5), (3, 3), (2, 2), (1, 1), (1, 1))
    assert plan[0] == (2, 4, 5, 5) and plan[1][2:] == (_dt.float32, 2, "max") and int(plan[3][0]) == 200
    assert _pool._plan("max", fake((0, 4, 9, 9)), 2, (5, 5), (3, 3), (2, 2), (1, 1), (1, 1))[1] is None
    key = keys[0]
    _pool._plans.put(key, plan)
    try:
        with pytest.raises(NotImplementedError):
            _pool.max_pool2d(x, 3, 2, 1, return_indices=True)
        with pytest.raises(ValueError, match="padding"):
            _pool.max_pool2d(x, 3, 2, 2)
        with pytest.raises(TypeError, match="must be float16"):
            _pool.max_pool2d(fake((2, 4, 9, 9), "int32"), 3, 2, 1)
        with pytest.raises(ValueError, match="expected input"):
            _pool.max_pool2d(fake((9, 9)), 3, 2, 1)
        with pytest.raises(ValueError, match="divisor_override"):
            _pool.avg_pool2d(x, 3, 2, 1, divisor_override=0)
        with pytest.raises(ValueError, match="output_size"):
            _pool.adaptive_avg_pool2d(x, (0, 1))
    finally:
        _pool._plans.pop(key, None)
