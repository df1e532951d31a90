"""`hip.tensor.linalg`: the array API's linear algebra extension (2025.12): matmul,
matrix_transpose, tensordot, vecdot (the main namespace's), cross, diagonal, outer, trace,
vector_norm, matrix_norm, matrix_power; through hipSOLVER (`_api.decompositions`): solve, inv, det,
slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, pinv, matrix_rank (from svd or eigh), and
NumPy's lstsq; LinAlgError (a ValueError, as NumPy's) for singular or non-positive-definite matrices
and non-matrix shapes. eig and eigvals (2025.12) run on the host: hipSOLVER (ROCm 6.4) has no
general eigensolver (geev), so x is copied to the host, NumPy's geev runs there, and the results come
back to the device.
Norms follow NumPy: integer input gives float64, complex gives its real type, float16/bfloat16
accumulate in float32 (but matrix_norm's 2, -2 and 'nuc' raise TypeError for them, as NumPy's
linalg does: hipSOLVER has no 2-byte floats); NaN propagates.
"""
from __future__ import annotations

import math
import operator

from ._api.creation import eye as _eye
from ._api.decompositions import (EigResult, EighResult, LinAlgError, QRResult, SVDResult, SlogdetResult,
                                  _solver_dtype, cholesky, det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_rank,
                                  pinv, qr, slogdet, solve, svd, svdvals)
from ._api.elementwise import math_dtype, multiply as _multiply, subtract as _subtract
from ._api.linalg import _vector_axis, diagonal, matmul, matrix_transpose, tensordot, vecdot
from ._api.manipulation import (broadcast_to as _broadcast_to, expand_dims as _expand_dims, moveaxis as _moveaxis,
                                squeeze as _squeeze, stack as _stack)
from ._api.statistical import max as _max, min as _min, sum as _sum
from ._core import dtypes as _dt
from ._core.array import ndarray
from ._core.shapes import normalize_axes
from ._kernels.reduction import ReductionKernel

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot", "cross", "diagonal", "outer", "trace",
           "vector_norm", "matrix_norm", "matrix_power", "solve", "inv", "det", "slogdet", "cholesky", "qr", "svd",
           "svdvals", "eigh", "eigvalsh", "lstsq", "pinv", "matrix_rank", "eig", "eigvals", "LinAlgError",
           "SlogdetResult", "QRResult", "SVDResult", "EighResult", "EigResult"]


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


def trace(x, /, *, offset: int = 0, dtype=None) -> ndarray:
    """Sums of the `offset` diagonals of the last two axes (dtype as `sum`'s)."""
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1, x2, /) -> ndarray:
    """The outer product of two 1-d arrays."""
    _need_array(x1, "outer")
    _need_array(x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer needs 1-d arrays, got {x1.ndim}-d and {x2.ndim}-d")
    a = x1._view(x1.ptr, (x1.shape[0], 1), (x1.strides[0], 0))
    b = x2._view(x2.ptr, (1, x2.shape[0]), (0, x2.strides[0]))
    return _multiply(a, b)


def cross(x1, x2, /, *, axis: int = -1) -> ndarray:
    """Cross products of 3-element vectors along `axis` (of the broadcast shape)."""
    _need_array(x1, "cross")
    _need_array(x2, "cross")
    d = _dt.result_type(x1.dtype, x2.dtype)
    if d.kind not in "iufc":
        raise TypeError(f"cross is not defined for {d.name}")
    shape, ax = _vector_axis("cross", x1, x2, axis, 3)
    a = _moveaxis(_broadcast_to(x1, shape), ax, -1)
    b = _moveaxis(_broadcast_to(x2, shape), ax, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = [_subtract(_multiply(a1, b2), _multiply(a2, b1)), _subtract(_multiply(a2, b0), _multiply(a0, b2)),
         _subtract(_multiply(a0, b1), _multiply(a1, b0))]
    return _stack([v.astype(d, copy=False) for v in c], axis=ax)


# -- norms ------------------------------------------------------------------------------------------------
def _norm_kernel(map_expr, reduce_expr, post, identity, name):
    return ReductionKernel("X x, float64 p", "Y y", map_expr, reduce_expr, post, identity, name, reduce_type="R")


_NORMS = {
    "2": _norm_kernel("ht_sqnorm(ht_cast<A>(x))", "a + b", "y = ht_cast<Y>(ht_sqrt(a))", "0", "ht_norm2"),
    "1": _norm_kernel("ht_abs(ht_cast<A>(x))", "a + b", "y = ht_cast<Y>(a)", "0", "ht_norm1"),
    "inf": _norm_kernel("ht_abs(ht_cast<A>(x))", "ht_maximum(a, b)", "y = ht_cast<Y>(a)", None, "ht_norm_inf"),
    "-inf": _norm_kernel("ht_abs(ht_cast<A>(x))", "ht_minimum(a, b)", "y = ht_cast<Y>(a)", None, "ht_norm_ninf"),
    "0": _norm_kernel("ht_cast<bool>(x) ? R(1) : R(0)", "a + b", "y = ht_cast<Y>(a)", "0", "ht_norm0"),
    "p": _norm_kernel("ht_pow(ht_abs(ht_cast<A>(x)), (R)p)", "a + b", "y = ht_cast<Y>(ht_pow(a, (R)(1.0 / p)))", "0",
                      "ht_normp"),
}


def _norm_dtype(d: _dt.DType) -> _dt.DType:
    return (d if d.kind in "fc" else _dt.float64).real_dtype


def _ord_key(ord) -> str:
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"vector_norm: ord must be a number, got {ord!r}")
    if ord == math.inf:
        return "inf"
    if ord == -math.inf:
        return "-inf"
    if ord in (0, 1, 2):
        return str(int(ord))
    if math.isnan(ord):
        raise ValueError("vector_norm: ord is NaN")
    return "p"


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2) -> ndarray:
    """The `ord`-norm over `axis` (None: all elements; a tuple: those axes as one vector)."""
    _need_array(x, "vector_norm")
    if x.dtype.kind not in "biufc":
        raise TypeError(f"vector_norm is not defined for {x.dtype.name}")
    normalize_axes(axis, x.ndim)
    key = _ord_key(ord)
    y = _norm_dtype(x.dtype)
    a = math_dtype(x.dtype if x.dtype.kind in "fc" else y)
    return _NORMS[key](x, float(ord) if key == "p" else 0.0, axis=axis, keepdims=keepdims,
                       _bindings={"A": a, "R": a.real_dtype, "Y": y})


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro") -> ndarray:
    """Norms of the matrices in the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf (2, -2
    and 'nuc' from the singular values)."""
    _need_array(x, "matrix_norm")
    if x.ndim < 2:
        raise ValueError(f"matrix_norm needs at least 2 dimensions, got {x.ndim}")
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(x, axis=(-2, -1), keepdims=keepdims, ord=2)
        if ord == "nuc":
            return _singular_norm(x, _sum, keepdims)
        raise ValueError(f"matrix_norm: unknown ord {ord!r}")
    if ord in (2, -2) and not isinstance(ord, bool):
        return _singular_norm(x, _max if ord > 0 else _min, keepdims)
    if ord in (1, -1):
        sums, over = vector_norm(x, axis=-2, keepdims=True, ord=1), -1
    elif ord in (math.inf, -math.inf):
        sums, over = vector_norm(x, axis=-1, keepdims=True, ord=1), -2
    else:
        raise ValueError(f"matrix_norm: unsupported ord {ord!r}")
    r = (_max if ord > 0 else _min)(sums, axis=over, keepdims=True)
    return r if keepdims else _squeeze(r, axis=(-2, -1))


def _singular_norm(x, reduce, keepdims: bool) -> ndarray:
    """max, min or sum of the singular values (matrix_norm's 2, -2, 'nuc'); integers as float64."""
    _solver_dtype("matrix_norm", x.dtype)      # float16/bfloat16: TypeError naming this function
    s = svdvals(x)
    if s.shape[-1] == 0 and reduce is not _sum:
        raise ValueError(f"matrix_norm: empty matrices of shape {x.shape} have no largest or smallest singular value")
    r = reduce(s, axis=-1)
    return _expand_dims(_expand_dims(r, axis=-1), axis=-1) if keepdims else r


def matrix_power(x, n: int, /) -> ndarray:
    """x (square matrices in the last two axes) to the integer power n by squaring (n < 0: of
    inv(x), which raises LinAlgError for a singular matrix; integer x with n < 0 gives float64)."""
    _need_array(x, "matrix_power")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"matrix_power needs square matrices in the last two axes, got shape {x.shape}")
    if isinstance(n, bool) or not isinstance(n, int):
        n = operator.index(n)
    if n < 0:
        x, n = inv(x), -n
    if n == 0:
        e = _eye(x.shape[-1], dtype=x.dtype, device=x.device_id)
        return _broadcast_to(e, x.shape).copy()
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result if result is not x else x.copy()
