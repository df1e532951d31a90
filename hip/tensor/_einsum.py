"""einsum for the common contractions: explicit ('ij,jk->ik') or implicit ('ij,jk') subscripts over
any number of operands, contracted pairwise from the left, each pair as one batched matmul (labels
in both operands and the output are the batch, labels in both but not the output are summed by the
product, labels of one operand only that the output drops are summed first); one operand: a
transpose and sums. Not supported (NotImplementedError): '...' and a label repeated within one
operand (diagonals, traces: use linalg.diagonal / trace).
"""
from __future__ import annotations

from . import _dtypes as _dt
from ._array import ndarray
from ._shapes import prod

__all__ = ["einsum"]


def _parse(subscripts: str, operands):
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a str, got {type(subscripts).__name__}")
    s = subscripts.replace(" ", "")
    if "." in s:
        raise NotImplementedError("einsum: '...' (ellipsis) is not supported by hip.tensor yet")
    lhs, arrow, out = s.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise ValueError(f"einsum: {len(ins)} operand subscripts for {len(operands)} operands")
    for t in ins + [out]:
        for c in t:
            if not c.isalpha():
                raise ValueError(f"einsum: invalid subscript character {c!r} in {subscripts!r}")
    sizes: dict = {}
    for t, x in zip(ins, operands):
        if not isinstance(x, ndarray):
            raise TypeError(f"einsum: expected hip.tensor arrays, got {type(x).__name__}")
        if len(t) != x.ndim:
            raise ValueError(f"einsum: subscripts {t!r} for an operand of {x.ndim} dimensions")
        if len(set(t)) != len(t):
            raise NotImplementedError(f"einsum: repeated subscript within {t!r} (a diagonal) is not supported yet")
        for c, e in zip(t, x.shape):
            if sizes.setdefault(c, e) != e:
                raise ValueError(f"einsum: label {c!r} has sizes {sizes[c]} and {e}")
    if not arrow:
        counts = {c: lhs.count(c) for c in set(lhs) if c != ","}
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    if len(set(out)) != len(out):
        raise ValueError(f"einsum: output subscripts {out!r} repeat a label")
    for c in out:
        if c not in sizes:
            raise ValueError(f"einsum: output label {c!r} is in no operand")
    return ins, out, sizes


def _reduce(x: ndarray, labels: str, keep) -> tuple:
    """x summed over the labels not in `keep`."""
    from ._statistical import sum as _sum
    drop = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not drop:
        return x, labels
    return _sum(x, axis=drop, dtype=x.dtype), "".join(c for c in labels if c in keep)


def _pair(a: ndarray, la: str, b: ndarray, lb: str, keep: str, sizes) -> tuple:
    from ._linalg import matmul
    from ._manipulation import permute_dims, reshape
    a, la = _reduce(a, la, set(keep) | set(lb))
    b, lb = _reduce(b, lb, set(keep) | set(la))
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    fa = [c for c in la if c not in lb]
    fb = [c for c in lb if c not in la]
    nb, nc = prod(sizes[c] for c in batch), prod(sizes[c] for c in summed)
    na, nbf = prod(sizes[c] for c in fa), prod(sizes[c] for c in fb)
    A = reshape(permute_dims(a, [la.index(c) for c in batch + fa + summed]), (nb, na, nc))
    B = reshape(permute_dims(b, [lb.index(c) for c in batch + summed + fb]), (nb, nc, nbf))
    labels = batch + fa + fb
    return reshape(matmul(A, B), tuple(sizes[c] for c in labels)), "".join(labels)


def einsum(subscripts: str, /, *operands) -> ndarray:
    """Einstein summation over hip.tensor arrays (see the module docstring for what is supported)."""
    from ._manipulation import permute_dims
    if not operands:
        raise ValueError("einsum: no operands")
    ins, out, sizes = _parse(subscripts, operands)
    d = _dt.result_type(*[x.dtype for x in operands])
    x, lx = operands[0], ins[0]
    for i in range(1, len(operands)):
        later = set(out).union(*ins[i + 1:])
        keep = "".join(c for c in dict.fromkeys(lx + ins[i]) if c in later)
        x, lx = _pair(x, lx, operands[i], ins[i], keep, sizes)
    x, lx = _reduce(x, lx, set(out))
    if lx != out:
        x = permute_dims(x, [lx.index(c) for c in out])
    return x.astype(d, copy=False) if x is not operands[0] else x.copy()
