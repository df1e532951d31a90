"""ht.einsum on a GPU against numpy.einsum: '...' (NumPy's broadcasting: right-aligned, size-1
dimensions, implicit output order), labels of size 1 broadcast, several operands, empty operands,
mixed dtypes; the planning is also checked without a GPU (tests/tensor/test_tensor_einsum_cpu.py)."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht

from gpu_tensor import values as rand

pytestmark = pytest.mark.gpu

EPS = {"float32": 1.2e-7, "float64": 2.3e-16, "complex64": 1.2e-7, "complex128": 2.3e-16,
       "int64": 0.0}            # integer matmuls are exact (a tiled integer kernel, not hipBLAS)


@pytest.fixture
def rng():
    return np.random.default_rng(31)


def close(got, want, name):
    assert isinstance(got, ht.ndarray)
    g = got.get()
    assert g.shape == want.shape, (g.shape, want.shape)
    assert got.dtype.name == want.dtype.name, (got.dtype.name, want.dtype)
    tol = 1e3 * EPS[name] * max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(g.astype(np.complex128), want.astype(np.complex128), rtol=0, atol=tol)


CASES = [
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk", [(5, 1, 3, 4), (2, 4, 6)]),
    ("...ij,jk->...ik", [(2, 3, 4), (4, 2)]), ("ij,...jk->...ik", [(3, 4), (6, 2, 4, 5)]),
    ("...i,...i->...", [(2, 3), (3,)]), ("...,...", [(2, 3), (3,)]), ("...", [(2, 3)]),
    ("i...->...", [(3, 2, 5)]), ("ba...,a...", [(2, 3, 4), (3, 4)]), ("...ij->...ji", [(2, 2, 3, 4)]),
    ("...ij->ij...", [(2, 5, 3, 4)]), ("...qd,...kd->...qk", [(2, 3, 4, 8), (3, 5, 8)]),
    ("i...j,j...k->i...k", [(2, 3, 4), (4, 3, 5)]), ("a...b,b...->a...", [(2, 1, 4, 3), (3, 5, 1)]),
    ("...i,...j->...ij", [(4, 2), (1, 3)]), ("...ij,...jk,...kl->...il", [(2, 3, 4), (1, 4, 5), (5, 2)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]), ("ij,jk->ik", [(3, 1), (1, 5)]), ("...ij,...jk->...ik", [(0, 3, 4), (4, 5)]),
    ("...,i->...i", [(), (3,)]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]),
]


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "int64"])
@pytest.mark.parametrize("subscripts,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_ellipsis_and_broadcasting(name, subscripts, shapes, rng):
    ops = [rand(name, s, rng) for s in shapes]
    got = ht.einsum(subscripts, *[ht.asarray(o) for o in ops])
    close(got, np.einsum(subscripts, *ops), name)


def test_non_contiguous_and_mixed_dtype_operands(rng):
    a = rand("float64", (4, 3, 2, 5), rng)
    b = rand("float32", (5, 6), rng)
    x = ht.asarray(a).transpose(2, 0, 1, 3)                # (2, 4, 3, 5), a view
    want = np.einsum("...k,kl->...l", a.transpose(2, 0, 1, 3), b)
    close(ht.einsum("...k,kl->...l", x, ht.asarray(b)), want, "float64")


def test_bad_ellipsis_on_device(rng):
    x = ht.asarray(rand("float64", (2, 3, 4), rng))
    with pytest.raises(ValueError, match="no '...'"):
        ht.einsum("...ij->ij", x)
    with pytest.raises(ValueError, match="broadcast"):
        ht.einsum("...i,...i->...", x, ht.asarray(rand("float64", (2, 4), rng)))   # (2, 3) with (2,)
