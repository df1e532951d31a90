"""hip.tensor's array arithmetic without a device: views (basic indexing, reshape, transposes,
flips, broadcasting, squeeze/expand_dims, moveaxis, unstack) give NumPy's shapes, strides and
offsets; dimension collapsing keeps the element order; bad input raises a clear Python exception
before any device call (the arrays here describe memory that is never touched)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import shapes as S

BASE = 1 << 32          # a fake device address: views only compute with it


def fake(np_array: np.ndarray) -> ht.ndarray:
    """A hip.tensor array with NumPy's array's layout (memory never read)."""
    d = ht.dtype(np_array.dtype)
    off = np_array.__array_interface__["data"][0] - _owner(np_array).__array_interface__["data"][0]
    return ht.ndarray._view_of(None, BASE + off, np_array.shape, np_array.strides, d, 0)


def _owner(a):
    while a.base is not None and isinstance(a.base, np.ndarray):
        a = a.base
    return a


def same_layout(view: ht.ndarray, ref: np.ndarray):
    assert view.shape == ref.shape
    if ref.size > 1:
        # strides of length-1 axes do not matter; compare where they do
        for n, s, r in zip(ref.shape, view.strides, ref.strides):
            if n > 1:
                assert s == r, (view.strides, ref.strides)
    if ref.size:
        assert view.ptr - BASE == ref.__array_interface__["data"][0] - _owner(ref).__array_interface__["data"][0]


A = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
KEYS = [0, -1, (1, 2), (slice(None), 3), (Ellipsis, 2), (slice(1, None, 2), Ellipsis, slice(None, None, -1)),
        (None, 1, None), (slice(-2, None), slice(None, None, -2), 5), (slice(10, 20),), (slice(3, 1),),
        (Ellipsis, None), (1, Ellipsis, 2, None), (slice(None, None, 3), slice(1, -1), slice(4, 0, -3))]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_basic_indexing_is_numpys_view(key):
    for src in (A, A.transpose(2, 0, 1)[::-1], A[1:, ::-2, 1::2]):
        try:
            ref = src[key]
        except IndexError:
            with pytest.raises(IndexError):
                fake(src)[key]
            continue
        same_layout(fake(src)[key], ref)


def test_python_bools_as_indices_add_an_axis():
    assert fake(A)[True].shape == A[True].shape == (1, 4, 5, 6)
    assert fake(A)[1, False].shape == A[1, False].shape == (0, 5, 6)


@pytest.mark.parametrize("shape", [(120,), (4, 30), (2, 3, 4, 5), (-1, 6), (5, -1, 2), (1, 120, 1)])
def test_reshape_views_where_numpy_views(shape):
    for src in (A, A[:, 1:3], A.transpose(1, 0, 2), A[::2, :, ::3]):
        try:
            ref = src.reshape(shape)
        except ValueError:
            with pytest.raises(ValueError):
                ht.reshape(fake(src), shape)
            continue
        nocopy = np.shares_memory(ref, src)
        strides = S.reshape_strides(src.shape, src.strides, ref.shape, src.itemsize)
        assert (strides is not None) == nocopy, (src.shape, src.strides, shape)
        if nocopy:
            same_layout(ht.reshape(fake(src), shape), ref)


def test_views_of_manipulation():
    x = fake(A)
    same_layout(ht.permute_dims(x, (2, 0, 1)), A.transpose(2, 0, 1))
    same_layout(x.mT, np.swapaxes(A, -1, -2))
    same_layout(ht.flip(x), np.flip(A))
    same_layout(ht.flip(x, axis=1), np.flip(A, axis=1))
    same_layout(ht.flip(x, axis=(0, 2)), np.flip(A, axis=(0, 2)))
    same_layout(ht.moveaxis(x, 0, -1), np.moveaxis(A, 0, -1))
    same_layout(ht.moveaxis(x, (0, 1), (2, 0)), np.moveaxis(A, (0, 1), (2, 0)))
    same_layout(ht.expand_dims(x, axis=1), np.expand_dims(A, 1))
    same_layout(ht.expand_dims(x, axis=-1), np.expand_dims(A, -1))
    same_layout(ht.squeeze(ht.expand_dims(x, axis=0), axis=0), A)
    same_layout(ht.broadcast_to(fake(A[:, :1]), (4, 5, 6)), np.broadcast_to(A[:, :1], (4, 5, 6)))
    for got, ref in zip(ht.unstack(x, axis=1), [A[:, i] for i in range(5)]):
        same_layout(got, ref)
    b = ht.broadcast_arrays(fake(A[0]), fake(A[:, :1, :1]))
    for got, ref in zip(b, np.broadcast_arrays(A[0], A[:, :1, :1])):
        same_layout(got, ref)
    assert x.T if False else True
    with pytest.raises(ValueError):
        x.T                                      # .T is for 2-d arrays (array API)


def test_flags_and_attributes():
    x = fake(A)
    assert x.flags.c_contiguous and not x.flags.f_contiguous and x.size == 120 and x.nbytes == 480
    assert x.ndim == 3 and x.itemsize == 4 and x.dtype is ht.float32
    t = ht.permute_dims(x, (2, 1, 0))
    assert t.flags.f_contiguous and not t.flags.c_contiguous
    assert not ht.broadcast_to(fake(A[:1]), (4, 5, 6)).flags.writeable


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((5,), (2, 1, 5)), ((), (3,)), ((0, 1), (1, 7)),
                                    ((2, 1, 3), (4, 1))])
def test_broadcast_shapes_match_numpy(shapes):
    assert S.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)
    assert ht.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


def test_broadcast_shape_mismatch_raises():
    with pytest.raises(ValueError, match="broadcast"):
        S.broadcast_shapes((3, 4), (5,))


def _walk(shape, strides):
    return [sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*[range(d) for d in shape])]


@pytest.mark.parametrize("view", [lambda a: a, lambda a: a[:, ::2], lambda a: a.transpose(1, 0, 2),
                                  lambda a: a[::-1, 1:4, ::-2], lambda a: a[:1, :, None, 2:3]])
def test_collapse_keeps_the_walk(view):
    """Collapsed dimensions visit the same offsets in the same order, for several arrays at once."""
    a = view(A)
    b = view(np.zeros((4, 5, 6), np.float64))
    shape, (sa, sb) = S.collapse(a.shape, [a.strides, b.strides])
    assert _walk(shape, sa) == _walk(a.shape, a.strides)
    assert _walk(shape, sb) == _walk(b.shape, b.strides)
    assert len(shape) <= a.ndim


def test_contiguous_input_collapses_to_one_dimension():
    shape, (s,) = S.collapse((4, 5, 6), [(120, 24, 4)])
    assert shape == (120,) and s == (4,)


def test_memory_extent_with_negative_strides():
    a = A[::-1, :, ::-2]
    off = a.__array_interface__["data"][0] - A.__array_interface__["data"][0]
    lo, hi = S.memory_extent(BASE + off, a.shape, a.strides, 4)
    assert (lo - BASE, hi - BASE) == (1 * 4, A.nbytes)


# -- bad input raises before the device is touched --------------------------------------------------
def test_bad_indices_raise_index_error():
    x = fake(A)
    with pytest.raises(IndexError, match="out of bounds"):
        x[4]
    with pytest.raises(IndexError, match="out of bounds"):
        x[0, -6]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(IndexError):
        x[1.5]
    with pytest.raises(IndexError):
        x["a"]
    with pytest.raises(IndexError, match="out of bounds"):
        x[np.array([0, 4])]                       # host index arrays are checked on the host
    with pytest.raises(IndexError, match="does not match"):
        x[np.ones((4, 4), bool)]
    with pytest.raises(IndexError):
        x[np.array([0.5])]


def test_bad_shapes_and_axes_raise():
    x = fake(A)
    with pytest.raises(ValueError, match="cannot reshape"):
        ht.reshape(x, (7, -1))
    with pytest.raises(ValueError, match="one unknown"):
        ht.reshape(x, (-1, -1))
    with pytest.raises(ValueError):
        ht.reshape(fake(A.transpose(1, 0, 2)), (120,), copy=False)
    with pytest.raises(ValueError, match="permutation"):
        ht.permute_dims(x, (0, 0, 1))
    with pytest.raises(IndexError, match="out of bounds"):
        ht.flip(x, axis=3)
    with pytest.raises(ValueError, match="squeeze"):
        ht.squeeze(x, axis=0)
    with pytest.raises(ValueError, match="broadcast"):
        ht.broadcast_to(x, (4, 5, 7))
    with pytest.raises(ValueError, match="broadcast"):
        ht.add(x, fake(A[:, :, :5]))              # shapes checked before a kernel is chosen
    with pytest.raises(ValueError, match="differ outside axis"):
        ht.concat([x, fake(A[:, :4, :5])], axis=0)
    with pytest.raises(IndexError):
        ht.sum(x, axis=3)
    with pytest.raises(ValueError, match="repeated"):
        ht.sum(x, axis=(0, 0))
    with pytest.raises(ValueError):
        ht.empty((2, -3))
    with pytest.raises(TypeError):
        ht.empty((2, 1.5))
    with pytest.raises(ValueError, match="axis is required"):
        ht.cumulative_sum(x)
    with pytest.raises(ValueError, match="zero-size"):
        ht.max(fake(np.zeros((0, 3), np.float32)), axis=0)


def test_bad_dtypes_raise_type_error():
    x = fake(A)
    with pytest.raises(TypeError, match="not defined"):
        ht.bitwise_xor(x, x)
    with pytest.raises(TypeError, match="not defined"):
        ht.remainder(fake(np.zeros(3, np.complex64)), fake(np.zeros(3, np.complex64)))
    with pytest.raises(TypeError):
        ht.max(fake(np.zeros(3, np.complex64)))
    with pytest.raises(TypeError, match="hip.tensor.asarray"):
        ht.multiply(x, np.ones((4, 5, 6)))
    with pytest.raises(TypeError):
        ht.sum(np.ones(3))
    with pytest.raises(TypeError):
        ht.ElementwiseKernel("T x", "T y", "y = x")(np.ones(3))
    with pytest.raises(ValueError, match="TYPE name"):
        ht.ElementwiseKernel("T", "T y", "y = 1")
    with pytest.raises(TypeError, match="bound to"):
        ht.ElementwiseKernel("T x, T y", "T z", "z = x + y")(x, fake(np.zeros((4, 5, 6), np.float64)))
    with pytest.raises(TypeError, match="pass the output"):
        ht.ElementwiseKernel("T x", "U y", "y = x")(x)


def test_importing_hip_tensor_loads_no_hip_library():
    from conftest import run_python
    r = run_python("""
        import sys, hip.tensor as ht
        x = ht.float32; ht.result_type(ht.int8, 1.0)
        loaded = [m for m in ('hip.hip', 'hip.hiprtc') if m in sys.modules and sys.modules[m]._library.loaded]
        print(loaded)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_vector_path_only_for_unconditional_writes():
    """Wide loads keep elements in registers: never for operations reading an output or taking an
    address, and only where the kernel says it writes every output."""
    EK = ht.ElementwiseKernel
    assert EK("T x", "T y", "y = x * 2", "k1", vectorize=True)._vectorizable
    assert not EK("T x", "T y", "y = x * 2", "k2")._vectorizable
    assert not EK("T x", "T y", "y += x", "k3", vectorize=True)._vectorizable
    assert not EK("T x", "T y", "y = x; if (y == 0) y = 1", "k4", vectorize=True)._vectorizable
    assert not EK("T x", "T y", "y = *(&x + 1)", "k5", vectorize=True)._vectorizable
    from hip.tensor._api import elementwise as ew, indexing as ix
    assert all(op.kernel._vectorizable for op in ew._OPS.values())
    assert not ix._index_kernel(1)._vectorizable and not ix._index_kernel(2, scatter=True)._vectorizable
    assert not ix._masked_store._vectorizable
