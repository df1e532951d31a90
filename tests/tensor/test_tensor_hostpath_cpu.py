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
from hip.tensor._core.plans import PlanCache, all_ints
from hip.tensor._core.shapes import c_strides
from hip.tensor.nn import _activation, _norm, _softmax

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
    layout = linalg._gemm_layout(a, b, batch, c_strides(batch + (a.shape[-2], b.shape[-1]), 2)[:-2], 2)
    m, n, k, tb, ta, ldb, lda, bshape, sa, sb, sc, arr, nb = layout
    assert (m, n, k, arr) == (a.shape[-2], b.shape[-1], a.shape[-1], arrays)
    assert nb == int(np.prod(batch or (1,)))
    assert ta is False and tb is (b_perm == "kT")
    # the same shapes with C-contiguous strides: another key, and the strided-batched layout
    ac, bc = fake(a.shape, "float16"), fake(b.shape, "float16")
    key = lambda x, y: (x._shape, x._strides, x._dtype.name, x._device_id, y._shape, y._strides,     # noqa: E731
                        y._dtype.name, y._device_id)
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
    key = (x._shape, x._strides, x._dtype.name, x._device_id, (32,), _norm._layout(w), None)
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
