"""einsum for the common contractions: explicit ('ij,jk->ik') or implicit ('ij,jk') subscripts over
any number of operands, with NumPy's broadcasting: '...' stands for an operand's unnamed leading or
trailing dimensions (right-aligned across operands; implicit output: those dimensions first, then the
labels used once, sorted), and a dimension of size 1 broadcasts against its label's size.
Contracted pairwise from the left, each pair as one batched matmul (labels in both operands and the
output are the batch, labels in both but not the output are summed by the product, labels of one
operand only that the output drops are summed first); one operand: a transpose and sums. Not
supported (NotImplementedError): a label repeated within one operand (diagonals, traces: use
linalg.diagonal / trace).
"""
from __future__ import annotations

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.shapes import prod
from .linalg import matmul
from .manipulation import permute_dims, reshape, squeeze
from .statistical import sum as _sum

__all__ = ["einsum"]

_ELLIPSIS = "..."
_ELL_BASE = 0xE000          # '...' dimensions become labels from Unicode's private use area: no clash


def _check_chars(term: str, where: str, subscripts: str) -> None:
    rest = term.replace(_ELLIPSIS, "", 1)
    if "." in rest:
        raise ValueError(f"einsum: a '.' that is not part of an ellipsis ('...') in {where} of {subscripts!r}")
    for c in rest:
        if not c.isalpha():
            raise ValueError(f"einsum: invalid subscript character {c!r} in {subscripts!r}")


def _parse(subscripts: str, operands):
    """(labels of each operand with '...' expanded, output labels, size of each label). A label's
    size is the largest of its dimensions; the others must be that size or 1 (broadcast)."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a str, got {type(subscripts).__name__}")
    s = subscripts.replace(" ", "")
    lhs, arrow, out = s.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise ValueError(f"einsum: {len(ins)} operand subscripts for {len(operands)} operands")
    for i, t in enumerate(ins):
        _check_chars(t, f"operand {i}", subscripts)
    if arrow:
        _check_chars(out, "the output", subscripts)
    extra = []                                      # each operand's '...' dimensions
    for t, x in zip(ins, operands):
        if not isinstance(x, ndarray):
            raise TypeError(f"einsum: expected hip.tensor arrays, got {type(x).__name__}")
        named = len(t) - (len(_ELLIPSIS) if _ELLIPSIS in t else 0)
        k = x.ndim - named
        if k < 0 or (k and _ELLIPSIS not in t):
            raise ValueError(f"einsum: subscripts {t!r} for an operand of {x.ndim} dimensions")
        extra.append(k)
    ell = "".join(chr(_ELL_BASE + i) for i in range(max(extra, default=0)))
    ins = [t.replace(_ELLIPSIS, ell[len(ell) - k:]) for t, k in zip(ins, extra)]
    sizes: dict = {}
    for t, x in zip(ins, operands):
        if len(set(t)) != len(t):
            raise NotImplementedError(f"einsum: repeated subscript within {t!r} (a diagonal) is not supported yet")
        for c, e in zip(t, x.shape):
            have = sizes.get(c)
            if have is None or have == 1:
                sizes[c] = e
            elif e not in (1, have):
                if c in ell:
                    raise ValueError(f"einsum: operands could not be broadcast together: '...' dimensions "
                                     f"of sizes {have} and {e}")
                raise ValueError(f"einsum: label {c!r} has sizes {have} and {e}")
    if not arrow:
        named = [c for c in lhs if c.isalpha()]
        out = ell + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    elif _ELLIPSIS in out:
        out = out.replace(_ELLIPSIS, ell)
    elif any(extra):
        raise ValueError("einsum: the output has no '...' for the operands' '...' dimensions")
    if len(set(out)) != len(out):
        raise ValueError(f"einsum: output subscripts {out!r} repeat a label")
    for c in out:
        if c not in sizes:
            raise ValueError(f"einsum: output label {c!r} is in no operand")
    return ins, out, sizes


def _reduce(xp, x, labels: str, keep) -> tuple:
    """x summed over the labels not in `keep`."""
    drop = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not drop:
        return x, labels
    return xp.sum(x, axis=drop, dtype=x.dtype), "".join(c for c in labels if c in keep)


def _pair(xp, a, la: str, b, lb: str, keep: str, sizes) -> tuple:
    a, la = _reduce(xp, a, la, set(keep) | set(lb))
    b, lb = _reduce(xp, b, lb, set(keep) | set(la))
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    fa = [c for c in la if c not in lb]
    fb = [c for c in lb if c not in la]
    nb, nc = prod(sizes[c] for c in batch), prod(sizes[c] for c in summed)
    na, nbf = prod(sizes[c] for c in fa), prod(sizes[c] for c in fb)
    A = xp.reshape(xp.permute_dims(a, [la.index(c) for c in batch + fa + summed]), (nb, na, nc))
    B = xp.reshape(xp.permute_dims(b, [lb.index(c) for c in batch + summed + fb]), (nb, nc, nbf))
    labels = batch + fa + fb
    return xp.reshape(xp.matmul(A, B), tuple(sizes[c] for c in labels)), "".join(labels)


def contract(xp, operands, ins, out: str, sizes):
    """The contraction _parse planned, with the array namespace `xp` (hip.tensor's functions, or
    NumPy's: the CPU test runs this very plan against numpy.einsum), labelled `out`."""
    ops, labs = [], []
    for x, t in zip(operands, ins):
        # a size-1 dimension broadcast against a larger one: dropped here, the label lives on in
        # the operands that have it (a free label of theirs), which is what broadcasting means
        drop = tuple(i for i, c in enumerate(t) if x.shape[i] == 1 and sizes[c] != 1)
        if drop:
            x, t = xp.squeeze(x, axis=drop), "".join(c for i, c in enumerate(t) if i not in drop)
        ops.append(x)
        labs.append(t)
    x, lx = ops[0], labs[0]
    for i in range(1, len(ops)):
        later = set(out).union(*labs[i + 1:])
        keep = "".join(c for c in dict.fromkeys(lx + labs[i]) if c in later)
        x, lx = _pair(xp, x, lx, ops[i], labs[i], keep, sizes)
    x, lx = _reduce(xp, x, lx, set(out))
    if lx != out:
        x = xp.permute_dims(x, [lx.index(c) for c in out])
    return x


class _HT:
    """hip.tensor's functions under the array API names `contract` uses."""

    @staticmethod
    def sum(x, axis, dtype):
        return _sum(x, axis=axis, dtype=dtype)

    @staticmethod
    def matmul(a, b):
        return matmul(a, b)

    @staticmethod
    def permute_dims(x, axes):
        return permute_dims(x, axes)

    @staticmethod
    def reshape(x, shape):
        return reshape(x, shape)

    @staticmethod
    def squeeze(x, axis):
        return squeeze(x, axis=axis)


def einsum(subscripts: str, /, *operands) -> ndarray:
    """Einstein summation over hip.tensor arrays (see the module docstring for what is supported)."""
    if not operands:
        raise ValueError("einsum: no operands")
    ins, out, sizes = _parse(subscripts, operands)
    d = _dt.result_type(*[x.dtype for x in operands])
    x = contract(_HT, operands, ins, out, sizes)
    return x.astype(d, copy=False) if x is not operands[0] else x.copy()
