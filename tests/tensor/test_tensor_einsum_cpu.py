"""ht.einsum's subscript parsing and contraction plan without a device: _parse reads the subscripts
against hip.tensor arrays that describe memory never touched, then the very plan (`contract`) runs
with NumPy's functions and must equal numpy.einsum, for explicit and implicit subscripts, '...'
(NumPy's broadcasting: right-aligned, size-1 dimensions, implicit output order) and labels of size 1;
subscripts NumPy refuses are refused with ValueError too."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._api import einsum as E
from hip.tensor._core.shapes import c_strides

BASE = 1 << 32


def fake(shape, dtype="float64") -> ht.ndarray:
    d = ht.dtype(dtype)
    return ht.ndarray._view_of(None, BASE, tuple(shape), c_strides(tuple(shape), d.itemsize), d, 0)


CASES = [
    # explicit and implicit without '...'
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(6,)] * 2), ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("ij,jk,k->i", [(3, 4), (4, 5), (5,)]), ("Ab,bA", [(2, 3), (3, 2)]), ("aB", [(2, 3)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]), ("i,i", [(3,), (1,)]), ("ij,jk->ik", [(3, 1), (1, 5)]),
    # '...'
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk", [(5, 1, 3, 4), (2, 4, 6)]),
    ("...ij,jk->...ik", [(2, 3, 4), (4, 2)]), ("ij,...jk->...ik", [(3, 4), (6, 2, 4, 5)]),
    ("...i,...i->...", [(2, 3), (3,)]), ("...,...", [(2, 3), (3,)]), ("...", [(2, 3)]),
    ("i...->...", [(3, 2, 5)]), ("i...", [(3, 2, 5)]), ("ba...,a...", [(2, 3, 4), (3, 4)]),
    ("...ij->...ji", [(2, 2, 3, 4)]), ("...ij->ij...", [(2, 5, 3, 4)]), ("ij...->...", [(3, 4, 2)]),
    ("...ij->ij", [(3, 4)]), ("ij->...ij", [(2, 3)]), ("...j", [(2, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]), ("...qd,...kd->...qk", [(2, 3, 4, 8), (3, 5, 8)]),
    ("...d,d->...", [(2, 3, 4), (4,)]), ("i...j,j...k->i...k", [(2, 3, 4), (4, 3, 5)]),
    ("a...b,b...->a...", [(2, 1, 4, 3), (3, 5, 1)]), ("...i,...j->...ij", [(4, 2), (1, 3)]),
    (" ...ij , jk -> ...ik ", [(2, 3, 4), (4, 2)]), ("...ij,...jk,...kl->...il", [(2, 3, 4), (1, 4, 5), (5, 2)]),
    ("ijk,k->ij", [(2, 0, 3), (3,)]), ("...ij,...jk->...ik", [(0, 3, 4), (4, 5)]), ("...,i->...i", [(), (3,)]),
]


def numpy_plan(subscripts, shapes, rng):
    ops = [rng.standard_normal(s) for s in shapes]
    ins, out, sizes = E._parse(subscripts, [fake(s) for s in shapes])
    return E.contract(np, ops, ins, out, sizes), np.einsum(subscripts, *ops)


@pytest.mark.parametrize("subscripts,shapes", CASES, ids=[c[0].strip() for c in CASES])
def test_plan_run_with_numpy_is_numpy_einsum(subscripts, shapes):
    got, want = numpy_plan(subscripts, shapes, np.random.default_rng(7))
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_random_subscripts_with_ellipsis_match_numpy():
    """Random contractions of 1-3 operands over labels of random sizes (1 included), each with or
    without '...' at a random place: the plan, run with NumPy, equals numpy.einsum."""
    rng = np.random.default_rng(11)
    letters = "abcdefg"
    done = 0
    for _ in range(400):
        size = {c: int(rng.integers(1, 4)) for c in letters}
        ell = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3))))
        terms, shapes = [], []
        for _ in range(int(rng.integers(1, 4))):
            labels = "".join(rng.permutation(list(letters))[: int(rng.integers(0, 4))])
            k = int(rng.integers(0, len(ell) + 1)) if rng.random() < 0.7 else None
            shape = [size[c] for c in labels]
            if k is not None:
                at = int(rng.integers(0, len(labels) + 1))
                e = [1 if rng.random() < 0.25 else v for v in ell[len(ell) - k:]]
                labels, shape = labels[:at] + "..." + labels[at:], shape[:at] + e + shape[at:]
            terms.append(labels)
            shapes.append(tuple(shape))
        used = sorted(set("".join(terms)) - {"."})
        subscripts = ",".join(terms)
        if rng.random() < 0.5:
            outl = "".join(c for c in rng.permutation(used) if rng.random() < 0.5)
            if "..." in subscripts:
                at = int(rng.integers(0, len(outl) + 1))
                outl = outl[:at] + "..." + outl[at:]
            subscripts += "->" + outl
        try:
            want = np.einsum(subscripts, *[np.ones(s) for s in shapes])
        except ValueError:
            with pytest.raises(ValueError):
                E._parse(subscripts, [fake(s) for s in shapes])
            continue
        got, want = numpy_plan(subscripts, shapes, rng)
        assert got.shape == want.shape, (subscripts, shapes)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{subscripts} {shapes}")
        done += 1
    assert done > 250, done


@pytest.mark.parametrize("subscripts,shapes,match", [
    ("...ij->ij", [(2, 3, 4)], "no '...'"),
    ("...ij->ij", [(1, 3, 4)], "no '...'"),
    ("...->", [(2, 3)], "no '...'"),
    ("i..j", [(2, 3)], "not part of an ellipsis"),
    ("...i...", [(2, 3)], "not part of an ellipsis"),
    ("ij->i..j", [(2, 3)], "not part of an ellipsis"),
    ("...i,...i->...", [(2, 3), (3, 3)], "broadcast"),
    ("i,i->", [(3,), (4,)], "sizes 3 and 4"),
    ("...ijk", [(2, 3)], "dimensions"),
    ("ij", [(2, 3, 4)], "dimensions"),
    ("...ij->...ij...", [(2, 3, 4)], "not part of an ellipsis"),
    ("...ij->...ii", [(2, 3, 3)], "repeat"),
])
def test_refused_as_numpy_refuses(subscripts, shapes, match):
    with pytest.raises(ValueError):
        np.einsum(subscripts, *[np.ones(s) for s in shapes])
    with pytest.raises(ValueError, match=match):
        ht.einsum(subscripts, *[fake(s) for s in shapes])


def test_implicit_output_puts_ellipsis_first():
    ins, out, sizes = E._parse("ba...,a...", [fake((2, 3, 4)), fake((3, 4))])
    assert len(out) == 2 and sizes[out[0]] == 4 and out[1] == "b"
    assert ins[0][:2] == "ba" and ins[0][2] == ins[1][1] == out[0]


def test_repeated_label_is_still_not_implemented():
    with pytest.raises(NotImplementedError, match="repeated"):
        ht.einsum("...ii->...i", fake((2, 3, 3)))
