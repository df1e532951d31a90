"""NumPy's NaN-ignoring functions (`numpy/lib/_nanfunctions_impl.py`): nansum, nanprod, nanmean,
nanvar, nanstd, nanmax, nanmin, nanargmax, nanargmin, nancumsum, nancumprod. Outside the array
API; they are what `np.nansum(x)` & co. run on hip.tensor arrays (and Dask's `da.nansum` & co. on
hip.tensor chunks).

Each is NumPy's own formulation over the reductions of `statistical` and `searching`: NaNs
replaced by the operation's neutral value (`where(isnan(x), 0, x)`), counts by `count_nonzero`.
Integer and bool arrays have no NaN: their nan-function is the plain one. As NumPy: an all-NaN
slice gives NaN with a RuntimeWarning (nanmax, nanmin; nanmean "Mean of empty slice"; nanvar and
nanstd "Degrees of freedom <= 0") and a ValueError in nanargmax/nanargmin; telling needs one
boolean read back (a synchronization) where the input has NaNs to count.
"""
from __future__ import annotations

import sys
import warnings

from .._core.array import ndarray
from .._core.shapes import normalize_axes
from .elementwise import isnan, logical_not, real, sqrt
from .manipulation import reshape
from .searching import argmax, argmin, count_nonzero, where
from .statistical import all as _all, any as _any, cumulative_prod, cumulative_sum, max as _max, mean, min as _min
from .statistical import prod, std, sum, var

__all__ = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
           "nancumsum", "nancumprod"]

_INF = float("inf")
_NAN = float("nan")


def _need_array(x, name, axis=None):
    """Checks the operand and the axes before any device work."""
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")
    return normalize_axes(axis, x.ndim)


def _has_nan(x) -> bool:
    return x.dtype.kind in "fc"


def _replaced(x, value):
    """x with its NaNs replaced by `value`, and the NaN mask."""
    mask = isnan(x)
    return where(mask, value, x), mask


def _warn(message: str) -> None:
    """NumPy's RuntimeWarning, attributed as NumPy's: to the first caller outside hip.tensor (the
    line calling `np.nanmax` or `ht.nanmax`), so that the same filters and the same once-per-line
    reporting apply to both."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and (frame.f_globals.get("__name__", "") + ".").startswith("hip.tensor."):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, RuntimeWarning, stacklevel=level)


def nansum(x, /, *, axis=None, dtype=None, keepdims=False) -> ndarray:
    """The sum treating NaNs as zero (all-NaN or empty slices give 0)."""
    _need_array(x, "nansum", axis)
    if _has_nan(x):
        x = _replaced(x, 0)[0]
    return sum(x, axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(x, /, *, axis=None, dtype=None, keepdims=False) -> ndarray:
    """The product treating NaNs as one."""
    _need_array(x, "nanprod", axis)
    if _has_nan(x):
        x = _replaced(x, 1)[0]
    return prod(x, axis=axis, dtype=dtype, keepdims=keepdims)


def _count(mask, axis, keepdims):
    """The number of non-NaN elements (int64) over `axis`."""
    return count_nonzero(logical_not(mask), axis=axis, keepdims=keepdims)


def nanmean(x, /, *, axis=None, keepdims=False) -> ndarray:
    """The mean of the non-NaN elements; NaN (and a RuntimeWarning) for a slice without any."""
    _need_array(x, "nanmean", axis)
    if not _has_nan(x):
        return mean(x, axis=axis, keepdims=keepdims)
    arr, mask = _replaced(x, 0)
    cnt = _count(mask, axis, keepdims)
    tot = sum(arr, axis=axis, keepdims=keepdims)
    if bool(_any(cnt == 0)):
        _warn("Mean of empty slice")
    return tot / cnt.astype(tot.dtype)


def _nanvar(name, x, axis, correction, keepdims, root):
    axes = _need_array(x, name, axis)
    if not _has_nan(x):
        return (std if root else var)(x, axis=axis, correction=correction, keepdims=keepdims)
    arr, mask = _replaced(x, 0)
    cnt = _count(mask, axis, True)
    avg = sum(arr, axis=axis, keepdims=True) / cnt.astype(arr.dtype)
    d = where(mask, 0, arr - avg)
    sq = real(d * d.conj()) if x.dtype.kind == "c" else d * d
    dof = cnt.astype(sq.dtype) - correction
    if bool(_any(dof <= 0)):
        _warn("Degrees of freedom <= 0 for slice.")
    r = where(dof > 0, sum(sq, axis=axis, keepdims=True) / dof, _NAN)
    if root:
        r = sqrt(r)
    if not keepdims:
        r = reshape(r, tuple(n for i, n in enumerate(r.shape) if i not in axes))
    return r


def nanvar(x, /, *, axis=None, correction=0.0, keepdims=False) -> ndarray:
    """The variance of the non-NaN elements (N - correction in the denominator; NaN and a
    RuntimeWarning where that is not positive); complex gives real."""
    return _nanvar("nanvar", x, axis, correction, keepdims, False)


def nanstd(x, /, *, axis=None, correction=0.0, keepdims=False) -> ndarray:
    """The standard deviation of the non-NaN elements (as nanvar)."""
    return _nanvar("nanstd", x, axis, correction, keepdims, True)


def _nanextreme(name, x, axis, keepdims, is_max):
    _need_array(x, name, axis)
    ext = _max if is_max else _min
    if not _has_nan(x):
        return ext(x, axis=axis, keepdims=keepdims)
    arr, mask = _replaced(x, -_INF if is_max else _INF)
    r = ext(arr, axis=axis, keepdims=keepdims)          # (an empty reduction raises ValueError here)
    empty = _all(mask, axis=axis, keepdims=keepdims)
    if bool(_any(empty)):
        _warn("All-NaN slice encountered")
        r = where(empty, _NAN, r)
    return r


def nanmax(x, /, *, axis=None, keepdims=False) -> ndarray:
    """The maximum ignoring NaNs; NaN (and a RuntimeWarning) for an all-NaN slice."""
    return _nanextreme("nanmax", x, axis, keepdims, True)


def nanmin(x, /, *, axis=None, keepdims=False) -> ndarray:
    """The minimum ignoring NaNs; NaN (and a RuntimeWarning) for an all-NaN slice."""
    return _nanextreme("nanmin", x, axis, keepdims, False)


def _nanarg(name, x, axis, keepdims, is_max):
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"{name}: axis must be an integer or None")
    _need_array(x, name, axis)
    arg = argmax if is_max else argmin
    if not _has_nan(x):
        return arg(x, axis=axis, keepdims=keepdims)
    arr, mask = _replaced(x, -_INF if is_max else _INF)
    if mask.size and bool(_any(_all(mask, axis=axis))):
        raise ValueError("All-NaN slice encountered")
    return arg(arr, axis=axis, keepdims=keepdims)


def nanargmax(x, /, *, axis=None, keepdims=False) -> ndarray:
    """The index of the maximum ignoring NaNs (as NumPy, NaNs count as -inf); ValueError for an
    all-NaN slice."""
    return _nanarg("nanargmax", x, axis, keepdims, True)


def nanargmin(x, /, *, axis=None, keepdims=False) -> ndarray:
    """The index of the minimum ignoring NaNs (as NumPy, NaNs count as +inf); ValueError for an
    all-NaN slice."""
    return _nanarg("nanargmin", x, axis, keepdims, False)


def _nancum(name, scan, neutral, x, axis, dtype):
    _need_array(x, name, axis)
    if axis is None:                    # NumPy's: over the flattened array
        x, axis = reshape(x, (-1,)), 0
    if _has_nan(x):
        x = _replaced(x, neutral)[0]
    return scan(x, axis=axis, dtype=dtype)


def nancumsum(x, /, axis=None, dtype=None) -> ndarray:
    """The cumulative sum treating NaNs as zero (axis None: of the flattened array, as NumPy)."""
    return _nancum("nancumsum", cumulative_sum, 0, x, axis, dtype)


def nancumprod(x, /, axis=None, dtype=None) -> ndarray:
    """The cumulative product treating NaNs as one (axis None: of the flattened array)."""
    return _nancum("nancumprod", cumulative_prod, 1, x, axis, dtype)
