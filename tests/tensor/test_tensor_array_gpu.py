"""hip.tensor arrays on a device against NumPy: transfers for every dtype, creation functions,
basic and advanced indexing (get and set; zero-size masks as the array API has them), take and
take_along_axis, manipulation (views and copies), one-element conversions, the namespace per array
API version, DLPack and __cuda_array_interface__ round trips, repr, bad input."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht

from gpu_tensor import ALL, KIND, assert_matches, host_dtype, to_device, values

pytestmark = pytest.mark.gpu


@pytest.fixture
def rng():
    return np.random.default_rng(11)


@pytest.mark.parametrize("dtype", ALL)
def test_round_trip_every_dtype_and_layout(dtype, rng):
    a = values(dtype, (6, 10), rng)
    x = to_device(a, dtype)
    assert x.dtype.name == dtype and x.shape == (6, 10) and x.flags.c_contiguous
    np.testing.assert_array_equal(x.get(), a)
    with pytest.raises(TypeError, match="Implicit conversion"):      # explicit copies only (as CuPy)
        np.asarray(x)
    np.testing.assert_array_equal(x[::2, ::-3].get(), a[::2, ::-3])          # non-contiguous: copied first
    np.testing.assert_array_equal(x.T.get(), a.T)
    np.testing.assert_array_equal(x.copy().get(), a)
    np.testing.assert_array_equal(x[3, 4].get(), a[3, 4])                      # 0-d
    np.testing.assert_array_equal(x[:0].get(), a[:0])                          # empty
    np.testing.assert_array_equal(ht.asnumpy(x[1:3]), a[1:3])


@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float64", "float16"), ("float64", "bfloat16"), ("bfloat16", "float32"),
                                     ("int32", "float32"), ("float32", "int8"), ("complex64", "float64"),
                                     ("float32", "complex128"), ("bool", "float32"), ("float32", "bool"),
                                     ("uint8", "int64"), ("float16", "bfloat16"), ("int64", "uint16")])
def test_astype_matches_numpy(src, dst, rng):
    a = values(src, (5, 8), rng)
    x = to_device(a, src)[:, ::2]
    got = x.astype(dst)
    assert got.dtype.name == dst
    if dst == "bfloat16":
        from gpu_tensor import round_bf16
        want = round_bf16(a[:, ::2].astype(np.float32).real if a.dtype.kind == "c" else a[:, ::2].astype(np.float32))
    else:
        with np.errstate(all="ignore"):
            src_vals = a[:, ::2]
            want = (src_vals.real if src_vals.dtype.kind == "c" and KIND[dst] != "c" else src_vals).astype(host_dtype(dst))
    np.testing.assert_array_equal(got.get(), want)


def test_creation_functions():
    assert_matches(ht.zeros((3, 4)), np.zeros((3, 4)))
    assert_matches(ht.ones((2, 5), dtype=ht.int16), np.ones((2, 5), np.int16))
    assert_matches(ht.full((3,), 2.5, dtype=ht.float32), np.full(3, 2.5, np.float32))
    assert_matches(ht.full((2, 2), 7), np.full((2, 2), 7))
    assert_matches(ht.full((2,), True), np.full(2, True))
    assert_matches(ht.full((2,), 1 + 2j), np.full(2, 1 + 2j))
    assert ht.empty((4, 0)).shape == (4, 0) and ht.empty(()).shape == ()
    assert_matches(ht.arange(10), np.arange(10))
    assert_matches(ht.arange(2, 11, 3), np.arange(2, 11, 3))
    assert_matches(ht.arange(5, 0, -1), np.arange(5, 0, -1))
    assert_matches(ht.arange(0.5, 3.1, 0.25), np.arange(0.5, 3.1, 0.25))
    assert_matches(ht.arange(4, dtype=ht.float32), np.arange(4, dtype=np.float32))
    assert ht.arange(3, 1).shape == (0,)
    assert_matches(ht.linspace(0, 1, num=11), np.linspace(0, 1, 11))
    assert_matches(ht.linspace(-2, 3, num=7, endpoint=False), np.linspace(-2, 3, 7, endpoint=False))
    assert_matches(ht.linspace(0, 1, num=1), np.linspace(0, 1, 1))
    assert ht.linspace(1, 2, num=0).shape == (0,)
    assert_matches(ht.linspace(0, 1j, num=5), np.linspace(0, 1j, 5))
    assert_matches(ht.eye(4), np.eye(4))
    assert_matches(ht.eye(3, 5, k=1, dtype=ht.int32), np.eye(3, 5, k=1, dtype=np.int32))
    assert_matches(ht.eye(5, 3, k=-2), np.eye(5, 3, k=-2))
    x = ht.asarray(np.arange(6.0).reshape(2, 3))
    assert_matches(ht.zeros_like(x), np.zeros((2, 3)))
    assert_matches(ht.ones_like(x, dtype=ht.uint8), np.ones((2, 3), np.uint8))
    assert_matches(ht.full_like(x, 3), np.full((2, 3), 3.0))
    assert ht.empty_like(x).shape == (2, 3)
    a = np.arange(24.0).reshape(2, 3, 4)
    for k in (-1, 0, 2):
        assert_matches(ht.tril(ht.asarray(a), k=k), np.tril(a, k))
        assert_matches(ht.triu(ht.asarray(a)[:, ::-1], k=k), np.triu(a[:, ::-1], k))
    g = ht.meshgrid(ht.arange(3), ht.arange(4))
    assert type(g) is tuple                       # 2025.12 (and NumPy 2); a list for 2023.12:
    old = g[0].__array_namespace__(api_version="2023.12")
    assert type(old.meshgrid(ht.arange(3), ht.arange(4))) is list
    assert type(ht.broadcast_arrays(g[0], g[1])) is tuple and type(old.broadcast_arrays(g[0], g[1])) is list
    gx, gy = g
    nx, ny = np.meshgrid(np.arange(3), np.arange(4))
    assert_matches(gx, nx)
    assert_matches(gy, ny)
    gi = ht.meshgrid(ht.arange(3), ht.arange(4), ht.arange(2), indexing="ij")
    for g, n in zip(gi, np.meshgrid(np.arange(3), np.arange(4), np.arange(2), indexing="ij")):
        assert_matches(g, n)


def test_asarray_from_python_and_numpy():
    assert_matches(ht.asarray([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    assert_matches(ht.asarray([1.5, 2]), np.array([1.5, 2]))
    assert_matches(ht.asarray(3.0), np.asarray(3.0))
    assert_matches(ht.asarray([True, False]), np.array([True, False]))
    assert_matches(ht.asarray([1, 2], dtype=ht.float32), np.array([1, 2], np.float32))
    assert_matches(ht.asarray(np.arange(10)[::-3]), np.arange(10)[::-3])
    x = ht.asarray(np.arange(4.0))
    assert ht.asarray(x) is x
    assert ht.asarray(x, copy=True) is not x
    assert ht.asarray(x, dtype=ht.float32).dtype is ht.float32
    with pytest.raises(ValueError):
        ht.asarray(x, dtype=ht.float32, copy=False)
    with pytest.raises(ValueError):
        ht.asarray(np.ones(3), copy=False)
    with pytest.raises(TypeError):
        ht.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        ht.asarray(np.ones(2, np.float128 if hasattr(np, "float128") else object))
    with pytest.raises(OverflowError):
        ht.asarray(300, dtype=ht.uint8)


def test_basic_setitem(rng):
    a = values("float32", (6, 7), rng)
    x = to_device(a, "float32")
    x[1] = 5.0
    a[1] = 5.0
    x[:, ::3] = ht.asarray(np.arange(6, dtype=np.float32)[:, None])
    a[:, ::3] = np.arange(6, dtype=np.float32)[:, None]
    x[2:4, 1:3] = np.array([[1, 2], [3, 4]])          # host data is uploaded
    a[2:4, 1:3] = [[1, 2], [3, 4]]
    x[..., -1] = ht.asarray(np.arange(6))             # int64 into float32: cast
    a[..., -1] = np.arange(6)
    x[::-1, 0] = x[:, 0]                              # overlapping: the old values are read
    a[::-1, 0] = a[:, 0].copy()
    np.testing.assert_array_equal(x.get(), a)
    i = ht.zeros((3,), dtype=ht.int8)
    with pytest.raises(OverflowError):
        i[0] = 1000
    with pytest.raises(ValueError):
        x[0] = ht.ones((3,))
    x.fill(2)
    np.testing.assert_array_equal(x.get(), np.full((6, 7), 2, np.float32))


def test_advanced_getitem(rng):
    a = values("int32", (6, 7, 5), rng)
    x = to_device(a, "int32")
    i = np.array([0, 4, -1, 2])
    j = np.array([[1, 0], [4, -5]])
    for key in ([1, 3], (slice(None), i), (i, slice(1, 4), i), (i[:, None], slice(None), j[0]),
                (1, i, slice(None)), (Ellipsis, [4, 0]), (j, 2), (slice(None), j, [0, 1])):
        np.testing.assert_array_equal(x[key].get(), a[key], err_msg=repr(key))
    di = ht.asarray(i)
    np.testing.assert_array_equal(x[di].get(), a[i])
    np.testing.assert_array_equal(x[:, ht.asarray(j)].get(), a[:, j])
    m = a > 0
    np.testing.assert_array_equal(x[ht.asarray(m)].get(), a[m])
    np.testing.assert_array_equal(x[ht.asarray(m[:, :, 0])].get(), a[m[:, :, 0]])
    np.testing.assert_array_equal(x[1, ht.asarray(m[1, :, 0])].get(), a[1, m[1, :, 0]])
    np.testing.assert_array_equal(x[m[..., 0]].get(), a[m[..., 0]])
    with pytest.raises(IndexError):
        x[ht.asarray(np.array([0, 6]))]               # device indices: checked by a reduction
    with pytest.raises(IndexError):
        x[ht.asarray(np.array([-7]))]
    with pytest.raises(IndexError):
        x[ht.asarray(np.array([1.0]))]


def test_zero_size_masks_select_nothing(rng):
    """The array API (not NumPy): a mask dimension of size 0 matches any dimension."""
    a = values("float32", (3, 4), rng)
    x = to_device(a, "float32")
    for mshape, want in (((0,), (0, 4)), ((0, 4), (0,)), ((3, 0), (0,)), ((0, 0), (0,))):
        m = ht.asarray(np.zeros(mshape, bool))
        r = x[m]
        assert r.shape == want and r.dtype == ht.float32, mshape
        x[m] = 5.0                                    # selects nothing: x unchanged
    assert ht.asarray(np.ones(1, np.int8))[ht.asarray(np.zeros(0, bool))].shape == (0,)
    np.testing.assert_array_equal(x.get(), a)
    with pytest.raises(IndexError):
        x[ht.asarray(np.zeros(2, bool))]


def test_advanced_setitem(rng):
    a = values("float64", (6, 7), rng)
    x = to_device(a, "float64")
    x[[0, 2, -1]] = 1.0
    a[[0, 2, -1]] = 1.0
    x[:, ht.asarray(np.array([1, 3]))] = ht.asarray(np.array([[5.0, 6.0]]))
    a[:, [1, 3]] = [[5.0, 6.0]]
    x[np.array([1, 2]), np.array([4, 5])] = ht.asarray(np.array([-1.0, -2.0]))
    a[[1, 2], [4, 5]] = [-1.0, -2.0]
    m = a > 0.5
    x[ht.asarray(m)] = 0.25                          # mask with a scalar: one masked store
    a[m] = 0.25
    m2 = a < 0
    x[m2] = ht.asarray(np.arange(int(m2.sum()), dtype=np.float64))
    a[m2] = np.arange(int(m2.sum()))
    np.testing.assert_array_equal(x.get(), a)
    with pytest.raises(ValueError):
        x[[0, 1]] = ht.ones((3,))
    with pytest.raises(IndexError):
        x[[7]] = 1.0


def test_take(rng):
    a = values("float32", (5, 6), rng)
    x = to_device(a, "float32")
    np.testing.assert_array_equal(ht.take(x, ht.asarray(np.array([4, 0, -1])), axis=1).get(), np.take(a, [4, 0, -1], axis=1))
    np.testing.assert_array_equal(ht.take(x[0], ht.asarray(np.array([2, 2]))).get(), np.take(a[0], [2, 2]))
    with pytest.raises(ValueError):
        ht.take(x, ht.asarray(np.array([0])))
    with pytest.raises(IndexError):
        ht.take(x, ht.asarray(np.array([9])), axis=0)


@pytest.mark.parametrize("dtype", ALL)
def test_take_along_axis_every_dtype(dtype, rng):
    a = values(dtype, (4, 5, 6), rng)
    x = to_device(a, dtype)
    for axis in (0, 1, 2, -1):
        n = a.shape[axis]
        shape = list(a.shape)
        shape[axis] = 7
        i = rng.integers(-n, n, size=shape)
        got = ht.take_along_axis(x, ht.asarray(i), axis=axis)
        assert got.dtype.name == dtype
        np.testing.assert_array_equal(got.get(), np.take_along_axis(a, i, axis=axis))


def test_take_along_axis_broadcasts_and_views(rng):
    a = values("float64", (5, 6), rng)
    x = to_device(a, "float64")
    s = np.argsort(a, axis=1)
    np.testing.assert_array_equal(ht.take_along_axis(x, ht.argsort(x, axis=1), axis=1).get(), np.sort(a, axis=1))
    np.testing.assert_array_equal(ht.take_along_axis(x, ht.asarray(s), axis=-1).get(), np.take_along_axis(a, s, -1))
    i = np.array([[0], [5], [-1], [2], [3]], np.int32)                      # one index per row
    np.testing.assert_array_equal(ht.take_along_axis(x, ht.asarray(i)).get(), np.take_along_axis(a, i, axis=1))
    j = np.array([[4], [-5]], np.int8)                                      # one column, broadcast to the six
    np.testing.assert_array_equal(ht.take_along_axis(x, ht.asarray(j), axis=0).get(),
                                  np.take_along_axis(a, j, axis=0))
    b = ht.asarray(np.ascontiguousarray(s[::-1].T)).mT[::-1]                 # a transposed, reversed view
    np.testing.assert_array_equal(ht.take_along_axis(x[:, ::-1], b, axis=1).get(),
                                  np.take_along_axis(a[:, ::-1], s, axis=1))
    assert ht.take_along_axis(x, ht.asarray(np.zeros((5, 0), np.int64)), axis=1).shape == (5, 0)
    with pytest.raises(IndexError):
        ht.take_along_axis(x, ht.asarray(np.array([[6]])), axis=1)          # checked on the device
    with pytest.raises(IndexError):
        ht.take_along_axis(x, ht.asarray(np.array([[-7]])), axis=1)


def test_manipulation_copies(rng):
    a = values("float32", (4, 5, 6), rng)
    x = to_device(a, "float32")
    b = values("float32", (4, 2, 6), rng)
    assert_matches(ht.concat([x, to_device(b, "float32")], axis=1), np.concatenate([a, b], axis=1))
    assert_matches(ht.concat([x, x], axis=None), np.concatenate([a, a], axis=None))
    assert_matches(ht.concat([x[:, :, ::-1], ht.asarray(np.ones((4, 5, 2), np.int16))], axis=-1),
                   np.concatenate([a[:, :, ::-1], np.ones((4, 5, 2), np.int16)], axis=-1))
    assert_matches(ht.stack([x[0], x[1], x[2]], axis=1), np.stack([a[0], a[1], a[2]], axis=1))
    assert_matches(ht.reshape(ht.permute_dims(x, (2, 1, 0)), (6, 20)), np.reshape(a.T, (6, 20)))   # a copy
    assert_matches(ht.reshape(x, (-1,)), a.reshape(-1))
    for shift, axis in ((2, None), (-3, 0), ((1, 2), (0, 2)), (7, 1), (0, 2)):
        assert_matches(ht.roll(x, shift, axis=axis), np.roll(a, shift, axis=axis))
    assert_matches(ht.tile(x[0], (2, 1, 3)), np.tile(a[0], (2, 1, 3)))
    assert_matches(ht.tile(x, 2), np.tile(a, 2))
    assert_matches(ht.repeat(x, 3, axis=1), np.repeat(a, 3, axis=1))
    assert_matches(ht.repeat(x[0, 0], ht.asarray(np.array([1, 0, 2, 3, 1, 1]))), np.repeat(a[0, 0], [1, 0, 2, 3, 1, 1]))
    assert_matches(ht.repeat(x, 2), np.repeat(a, 2))
    assert_matches(ht.flip(x, axis=1).copy(), np.flip(a, axis=1))
    assert_matches(ht.broadcast_to(x[:, :1], (4, 5, 6)).copy(), np.broadcast_to(a[:, :1], (4, 5, 6)))
    us = ht.unstack(x, axis=2)
    assert len(us) == 6
    assert_matches(us[3].copy(), a[:, :, 3])
    with pytest.raises(ValueError):
        ht.broadcast_to(x[:, :1], (4, 5, 6))[0, 0, 0] = 1.0   # broadcast views are read-only


def test_one_element_conversions():
    x = ht.asarray(np.array([[3.5]]))
    assert float(x) == 3.5 and int(x) == 3 and bool(x) and complex(x) == 3.5
    assert int(ht.asarray(np.int64(7))) == 7 and [1, 2, 3][ht.asarray(np.int32(1))] == 2
    assert x.item() == 3.5 and ht.asarray([1, 2]).tolist() == [1, 2]
    with pytest.raises(ValueError):
        bool(ht.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        float(ht.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        [0][ht.asarray(np.float32(0))]
    with pytest.raises(TypeError):
        len(ht.asarray(1.0))
    assert len(ht.zeros((4, 2))) == 4
    assert [v.tolist() for v in ht.asarray(np.arange(3))] == [0, 1, 2]


def test_repr_and_namespace():
    x = ht.asarray(np.array([1.5, 2.0], np.float32))
    assert repr(x) == "array([1.5, 2. ], dtype=float32)"
    assert "bfloat16" in repr(x.astype(ht.bfloat16))
    assert x.__array_namespace__() is ht
    from hip.tensor._core.device import Device
    assert x.device == Device(x.device_id)
    assert x.to_device(x.device_id) is x


def test_dlpack_round_trip_is_a_view():
    x = ht.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))[:, 1:]
    y = ht.from_dlpack(x)
    assert y.ptr == x.ptr and y.strides == x.strides and y.shape == x.shape
    x[0, 0] = 100.0
    assert float(y[0, 0]) == 100.0
    assert x.__dlpack_device__()[0] in (2, 10)
    c = ht.from_dlpack(x, copy=True)
    assert c.ptr != x.ptr
    np.testing.assert_array_equal(c.get(), x.get())
    h = np.from_dlpack(x, device="cpu", copy=True)          # the producer copies to the host
    np.testing.assert_array_equal(h, x.get())
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    b = ht.asarray(np.ones((2, 3)), dtype=ht.bfloat16)
    z = ht.from_dlpack(b)
    assert z.dtype is ht.bfloat16
    np.testing.assert_array_equal(z.get(), np.ones((2, 3), np.float32))


def test_cuda_array_interface_round_trip():
    x = ht.asarray(np.arange(20, dtype=np.int16).reshape(4, 5))[::-1, ::2]
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == np.dtype(np.int16).str and cai["shape"] == (4, 3)
    assert cai["strides"] == x.strides and cai["data"] == (x.ptr, False) and cai["stream"] != 0

    class Foreign:
        __cuda_array_interface__ = cai

    y = ht.asarray(Foreign())
    assert y.ptr == x.ptr and y.strides == x.strides
    np.testing.assert_array_equal(y.get(), np.arange(20, dtype=np.int16).reshape(4, 5)[::-1, ::2])
    assert ht.asarray(np.ones(3)).__cuda_array_interface__["strides"] is None
    assert not hasattr(ht.zeros((2,), dtype=ht.bfloat16), "__cuda_array_interface__")


def test_views_share_memory():
    x = ht.zeros((4, 4))
    v = x[1:3, ::2]
    v[...] = 1.0
    assert v.data is x.data and v.base is x
    expect = np.zeros((4, 4))
    expect[1:3, ::2] = 1.0
    np.testing.assert_array_equal(x.get(), expect)
    r = ht.reshape(x, (2, 8))
    assert r.data is x.data


def test_public_constructor_and_device_moves():
    a = ht.ndarray((2, 3), dtype=ht.float32)
    assert a.shape == (2, 3) and a.dtype is ht.float32 and a.flags.c_contiguous and a.base is None
    a[...] = 1.5
    v = ht.ndarray((3,), dtype=ht.float32, memptr=a.data, strides=(8,))      # a view of a's memory
    np.testing.assert_array_equal(v.get(), np.full(3, 1.5, np.float32))
    assert a.to_device(a.device_id) is a
    from hip.tensor._core.device import device_count
    if device_count() > 1:
        b = a.to_device(1)
        assert b.device_id == 1
        np.testing.assert_array_equal(b.get(), a.get())
        assert (b + 1).device_id == 1
        with pytest.raises(ValueError, match="different devices"):
            a + b


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    return torch


def test_dlpack_with_torch():
    """A real consumer and producer: torch takes our arrays without a copy, and we take its tensors."""
    torch = _torch_cuda()
    x = ht.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.ptr and tuple(t.shape) == (3, 4)
    np.testing.assert_array_equal(t.cpu().numpy(), x.get())
    u = torch.arange(20, dtype=torch.int64, device="cuda").reshape(4, 5)[:, 1:]
    y = ht.from_dlpack(u)
    assert y.ptr == u.data_ptr() and y.dtype is ht.int64 and y.strides == (40, 8)
    np.testing.assert_array_equal((y * 2).get(), (u * 2).cpu().numpy())
    b = torch.ones(3, dtype=torch.bfloat16, device="cuda")
    np.testing.assert_array_equal(ht.from_dlpack(b).get(), np.ones(3, np.float32))
    z = ht.asarray(u)                                 # asarray takes DLPack producers too
    assert z.ptr == u.data_ptr()


def test_cuda_array_interface_with_cupy():
    cp = pytest.importorskip("cupy")
    try:
        c = cp.arange(10, dtype=cp.float64)[::2]
    except Exception as e:                            # noqa: BLE001 (no usable CUDA for CuPy)
        pytest.skip(f"CuPy cannot allocate: {e}")
    x = ht.asarray(c)
    assert x.ptr == c.data.ptr and x.strides == c.strides
    np.testing.assert_array_equal(x.get(), cp.asnumpy(c))
    back = cp.asarray(x)                              # CuPy reads our __cuda_array_interface__
    assert back.data.ptr == x.ptr
    np.testing.assert_array_equal(cp.asnumpy(back), x.get())
