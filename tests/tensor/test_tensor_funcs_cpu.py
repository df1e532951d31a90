"""hip.tensor's searching, sorting, set and linear-algebra functions without a device: bad input
raises a clear Python exception before any device call (the arrays here describe memory that is
never touched); the sort's launch geometry and the BLAS layout of every kind of matrix view are
pure arithmetic, checked against NumPy's own views."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import dtypes as dt
from hip.tensor._api import linalg as la
from hip.tensor._api import sorting as so

BASE = 1 << 32


def fake(shape, dtype="float32", strides=None) -> ht.ndarray:
    """An array of `shape` at a fake address (memory never read)."""
    d = ht.dtype(dtype)
    if strides is None:
        strides = np.empty(shape, d.numpy).strides if d is not dt.bfloat16 else np.empty(shape, np.uint16).strides
    return ht.ndarray._view_of(None, BASE, shape, strides, d, 0)


X = fake((3, 4))
V = fake((4,))
S = fake(())


@pytest.mark.parametrize("call,exc", [
    (lambda: ht.sort(np.zeros(3)), TypeError),
    (lambda: ht.sort(S), ValueError),
    (lambda: ht.argsort(X, axis=2), IndexError),
    (lambda: ht.argsort(X, axis=-3), IndexError),
    (lambda: ht.sort(X, axis=1.0), TypeError),
    (lambda: ht.sort(X, descending="yes"), TypeError),
    (lambda: ht.argsort(X, stable=None), TypeError),
    (lambda: ht.argmax([1, 2]), TypeError),
    (lambda: ht.argmax(X, axis=(0, 1)), TypeError),
    (lambda: ht.argmin(X, axis=2), IndexError),
    (lambda: ht.argmax(fake((0, 3))), ValueError),
    (lambda: ht.argmin(fake((0, 3)), axis=0), ValueError),
    (lambda: ht.argmax(fake((2, 0)), axis=1, keepdims=True), ValueError),
    (lambda: ht.nonzero(S), ValueError),
    (lambda: ht.nonzero(np.ones(3)), TypeError),
    (lambda: ht.where(np.ones(3, bool), X, X), TypeError),
    (lambda: ht.where(X, X, "a"), TypeError),
    (lambda: ht.where(X, [1], X), TypeError),
    (lambda: ht.where(fake((4,), "int8"), fake((4,), "int8"), 300), OverflowError),
    (lambda: ht.searchsorted(X, V), ValueError),
    (lambda: ht.searchsorted(V, V, side="up"), ValueError),
    (lambda: ht.searchsorted(V, V, sorter=np.arange(4)), TypeError),
    (lambda: ht.searchsorted(V, V, sorter=fake((3,), "int64")), ValueError),
    (lambda: ht.searchsorted(V, V, sorter=fake((4,), "float32")), ValueError),
    (lambda: ht.searchsorted(np.zeros(4), V), TypeError),
    (lambda: ht.count_nonzero(X, axis=3), IndexError),
    (lambda: ht.count_nonzero(X, axis=(0, 0)), ValueError),
    (lambda: ht.unique_all([1, 2]), TypeError),
    (lambda: ht.unique_values(None), TypeError),
    (lambda: ht.matmul(X, S), ValueError),
    (lambda: ht.matmul(X, X), ValueError),
    (lambda: ht.matmul(fake((2, 3, 4)), fake((3, 4, 5))), ValueError),
    (lambda: ht.matmul(V, fake((5,))), ValueError),
    (lambda: ht.matmul(X, np.zeros((4, 2))), TypeError),
    (lambda: ht.tensordot(X, X, axes=-1), ValueError),
    (lambda: ht.tensordot(X, X, axes=3), ValueError),
    (lambda: ht.tensordot(X, X, axes=([0], [1])), ValueError),
    (lambda: ht.tensordot(X, X, axes=([0, 1], [0])), ValueError),
    (lambda: ht.tensordot(X, X, axes=([0, 0], [0, 0])), ValueError),
    (lambda: ht.tensordot(X, X, axes="x"), TypeError),
    (lambda: ht.vecdot(X, fake((3,))), ValueError),
    (lambda: ht.vecdot(X, V, axis=0), ValueError),
    (lambda: ht.vecdot(S, S), ValueError),
    (lambda: ht.vecdot(X, np.zeros(4)), TypeError),
    (lambda: ht.matrix_transpose(V), ValueError),
    (lambda: ht.linalg.diagonal(V), ValueError),
    (lambda: ht.linalg.outer(X, V), ValueError),
    (lambda: ht.linalg.cross(X, X), ValueError),
    (lambda: ht.linalg.cross(fake((3,), "bool"), fake((3,), "bool")), TypeError),
    (lambda: ht.linalg.vector_norm(X, ord="fro"), TypeError),
    (lambda: ht.linalg.vector_norm(X, ord=math.nan), ValueError),
    (lambda: ht.linalg.vector_norm(X, axis=2), IndexError),
    (lambda: ht.linalg.matrix_norm(V), ValueError),
    (lambda: ht.linalg.matrix_norm(fake((3, 4), "float16"), ord="nuc"), TypeError),
    (lambda: ht.linalg.matrix_norm(fake((3, 4), "bfloat16"), ord=2), TypeError),
    (lambda: ht.linalg.matrix_norm(X, ord=3), ValueError),
    (lambda: ht.linalg.matrix_norm(X, ord="max"), ValueError),
    (lambda: ht.linalg.matrix_power(X, 2), ValueError),
    (lambda: ht.linalg.matrix_power(fake((3, 3), "float16"), -1), TypeError),
    (lambda: ht.linalg.matrix_power(fake((3, 3)), 1.5), TypeError),
], ids=itertools.count())
def test_bad_input_raises_before_any_device_call(call, exc):
    with pytest.raises(exc):
        call()


def test_views_need_no_device():
    t = ht.matrix_transpose(fake((2, 3, 4)))
    assert t.shape == (2, 4, 3) and t.strides == (48, 4, 16)
    d = ht.linalg.diagonal(fake((3, 4)), offset=1)
    ref = np.lib.stride_tricks.as_strided(np.empty(0), shape=(3,), strides=(20,))
    assert d.shape == ref.shape and d.strides == (20,) and d.ptr == BASE + 4
    assert ht.linalg.diagonal(fake((3, 4)), offset=-2).ptr == BASE + 32
    assert ht.linalg.diagonal(fake((3, 4)), offset=5).shape == (0,)


@pytest.mark.parametrize("d", dt.ALL, ids=lambda d: d.name)
def test_sort_plan_covers_every_element_within_limits(d):
    for n, L in itertools.product([1, 2, 3, 7, 16, 100, 511, 1024, 1025, 4096, 4097, 10_000, 100_000],
                                  [1, 2, 5, 64, 1000, 70_000]):
        p = so.tile_plan(n, L, d)
        P, E, segs = p["P"], p["E"], p["segs"]
        assert P & (P - 1) == 0 and E & (E - 1) == 0 and E % P == 0 and E >= 16
        assert p["shared"] <= so.SMEM_BUDGET and p["shared"] == E * (so.key_type(d)[1] + (4 if p["index"] == "int" else 8))
        assert 1 <= p["threads"] <= so.MAX_THREADS and p["threads"] <= E // 2
        assert segs * P >= n and (segs == 1 or P == E)                  # every row covered
        assert (segs - 1) * P < n                                       # no empty segment
        assert p["blocks"] * (E // P) >= L * segs                       # every segment has a block
        assert p["blocks"] < 2 ** 31


def test_sort_index_type_switches_below_the_sentinel():
    assert so.index_type(2 ** 31 - 2) == "int" and so.index_type(2 ** 31 - 1) == "long long"


def _numpy_views():
    a = np.empty((6, 8, 10), np.float32)
    b = np.empty((10, 8), np.complex128)
    return [a[0], a[0].T, a[0, ::2], a[0, :, ::2], a[0, ::-1], a[:, 0], a[:, 0].T, a[0, :1], a[0, :, :1],
            a[0, :1].T, a[0, 2:3, 4:5], b, b.T, b[::3], b[:, 1:7].T, np.broadcast_to(b[0], (4, 8)),
            np.broadcast_to(b[:, :1], (10, 5)), a[0, 1:5, 2:9], np.empty((1, 1), np.float16)]


@pytest.mark.parametrize("view", _numpy_views(), ids=itertools.count())
def test_blas_layout_addresses_every_element_as_numpy(view):
    """Where blas_layout accepts a view, BLAS's column-major addressing of the matrix it sees
    (the transpose for 'N') reaches exactly NumPy's element addresses; it refuses only layouts
    no leading dimension describes."""
    rows, cols = view.shape
    rs, cs = view.strides
    isz = view.itemsize
    lay = la.blas_layout(rows, cols, rs, cs, isz)
    addresses = {(r, c): r * rs + c * cs for r in range(rows) for c in range(cols)}
    describable = any(
        all(addr == (r * ld + c if op == "N" else r + c * ld) * isz for (r, c), addr in addresses.items())
        and ld >= (cols if op == "N" else rows)
        for op in ("N", "T") for ld in range(1, 200))
    if lay is None:
        assert not describable or any(s < 0 for s in view.strides) or 0 in view.strides
        return
    op, ld = lay
    assert ld >= max(1, cols if op == "N" else rows)
    for (r, c), addr in addresses.items():
        assert addr == (r * ld + c if op == "N" else r + c * ld) * isz, (op, ld, r, c)
