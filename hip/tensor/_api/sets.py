"""The array API's set functions (2025.12): unique_all, unique_counts, unique_inverse,
unique_values, isin; sort-based.

x is flattened (C order) and sorted stably (`_api.sorting.sort_along`); a group starts where a value
differs from the one before it (`!=`, so every NaN is its own group, as the standard says and
NumPy 2 does; -0.0 and +0.0 are one group); a scan of the group starts numbers the groups, and one
scatter writes values, first positions, inverse indices and group starts. Values come out sorted
(NaNs last), `indices` are first occurrences, `inverse_indices` has x's shape. The number of
groups is read back once (a synchronization) to size the results.

isin sorts x2's values (flattened) and finds each element of x1 in them by a binary search in the
sort's order, one kernel: a match is a value equal (`==`) to the first one not below it, so NaN is in
nothing and -0.0 is in [+0.0], as `equal` says.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._kernels.elementwise import ElementwiseKernel, _common_device, is_scalar, scalar_value
from .._kernels.template import TemplateKernel, launch_flat
from .creation import full
from .elementwise import equal, math_dtype, not_equal
from .manipulation import reshape
from .sorting import SORT_KEYS, sort_along
from .statistical import cumulative_sum

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values", "isin",
           "UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])

# a group starts at 0 and wherever the value differs from the previous one (NaN != NaN)
_starts_k = ElementwiseKernel("raw T s", "bool f", "f = (i == 0) || !(ht_cast<M>(s[i]) == ht_cast<M>(s[i - 1]))",
                              "ht_unique_starts")


def _scatter_source(d: _dt.DType):
    name = f"ht_unique_scatter_{d.name}"
    T = d.ctype
    src = f"""
extern "C" __global__ void {name}(const bool* __restrict__ f, const long long* __restrict__ g,
        const {T}* __restrict__ s, const long long* __restrict__ perm, long long n,
        {T}* values, long long* first, long long* starts, long long* inverse) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        const long long k = g[i] - 1;
        if (inverse) inverse[perm[i]] = k;
        if (!f[i]) continue;
        if (values) values[k] = s[i];
        if (first) first[k] = perm[i];
        if (starts) starts[k] = i;
    }}
}}
"""
    return src, name


def _counts_source():
    name = "ht_unique_counts"
    src = f"""
extern "C" __global__ void {name}(const long long* __restrict__ starts, long long k, long long n, long long* counts) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += (long long)blockDim.x * gridDim.x)
        counts[i] = (i + 1 < k ? starts[i + 1] : n) - starts[i];
}}
"""
    return src, name


SCATTER = TemplateKernel("ht_unique_scatter", _scatter_source)
COUNTS = TemplateKernel("ht_unique_counts", _counts_source)


def _unique(x, name: str, want_indices: bool, want_inverse: bool, want_counts: bool):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")
    dev = x.device_id
    flat = reshape(x, (-1,))
    n = flat.shape[0]
    i64 = _dt.int64
    if n == 0:
        empty = ndarray._empty((0,), x.dtype, dev)
        return (empty, ndarray._empty((0,), i64, dev), ndarray._empty(x.shape, i64, dev), ndarray._empty((0,), i64, dev))
    s, perm = sort_along(flat, 0, False, True, True)
    f = _starts_k(s, size=n, _bindings={"M": math_dtype(x.dtype)})
    g = cumulative_sum(f)
    k = int(g[n - 1])
    values = ndarray._empty((k,), x.dtype, dev)
    first = ndarray._empty((k,), i64, dev) if want_indices else None
    starts = ndarray._empty((k,), i64, dev) if want_counts else None
    inverse = ndarray._empty((n,), i64, dev) if want_inverse else None
    launch_flat(SCATTER.function(dev, x.dtype), n, [f, g, s, perm, n, values, first, starts, inverse], dev)
    counts = None
    if want_counts:
        counts = ndarray._empty((k,), i64, dev)
        launch_flat(COUNTS.function(dev), k, [starts, k, n, counts], dev)
    if inverse is not None:
        inverse = reshape(inverse, x.shape)
    return values, first, inverse, counts


def unique_all(x, /) -> UniqueAllResult:
    """(values, indices of first occurrences, inverse_indices (x's shape), counts)."""
    return UniqueAllResult(*_unique(x, "unique_all", True, True, True))


def unique_counts(x, /) -> UniqueCountsResult:
    v, _, _, c = _unique(x, "unique_counts", False, False, True)
    return UniqueCountsResult(v, c)


def unique_inverse(x, /) -> UniqueInverseResult:
    v, _, inv, _ = _unique(x, "unique_inverse", False, True, False)
    return UniqueInverseResult(v, inv)


def unique_values(x, /) -> ndarray:
    return _unique(x, "unique_values", False, False, False)[0]


# -- isin: a binary search of each x1 value in sorted x2 ------------------------------------------------------
_isin_k = ElementwiseKernel(
    "raw C a, V v, int64 n, bool inv", "bool y",
    "const C _v = ht_cast<C>(v); const auto _key = ht_skey(_v); long long _lo = 0, _hi = n; "
    "while (_lo < _hi) { const long long _mid = (_lo + _hi) >> 1; "
    "if (ht_kless(ht_skey(a[_mid]), _key)) _lo = _mid + 1; else _hi = _mid; } "
    "y = (_lo < n && ht_cast<M>(a[_lo]) == ht_cast<M>(_v)) != inv", "ht_isin", preamble=SORT_KEYS)


def _out_of_range(v, d: _dt.DType) -> bool:
    """Whether the Python int v cannot be a value of the integer dtype d (so equals none of them)."""
    if d.kind not in "iu" or isinstance(v, bool) or not isinstance(v, int):
        return False
    info = _dt.iinfo(d)
    return not info.min <= v <= info.max


def isin(x1, x2, /, *, invert: bool = False) -> ndarray:
    """Whether each element of x1 equals some element of x2 (`equal`'s test, after promotion; not,
    with invert=True): bool, x1's shape (0-d for a scalar x1). One of them may be a Python scalar."""
    if not isinstance(invert, (bool, np.bool_)):
        raise TypeError(f"isin: invert must be a bool, got {type(invert).__name__}")
    for v, what in ((x1, "x1"), (x2, "x2")):
        if not isinstance(v, ndarray) and not is_scalar(v):
            raise TypeError(f"isin: {what} must be a hip.tensor array or a Python scalar, got {type(v).__name__}")
    if not isinstance(x1, ndarray) and not isinstance(x2, ndarray):
        raise TypeError("isin: at least one of x1 and x2 must be a hip.tensor array")
    arr = x1 if isinstance(x1, ndarray) else x2
    scalar = x2 if arr is x1 else x1
    if arr is x1 and not isinstance(x2, ndarray):
        # one value: an element-wise comparison; an int outside x1's range equals nothing
        if _out_of_range(x2, x1.dtype):
            return full(x1.shape, bool(invert), dtype=_dt.bool, device=x1.device_id)
        return not_equal(x1, x2) if invert else equal(x1, x2)
    if arr is x2 and _out_of_range(scalar, x2.dtype):   # before promotion, which refuses it
        return full((), bool(invert), dtype=_dt.bool, device=x2.device_id)
    c = _dt.result_type(x1.dtype if arr is x1 else x1, x2.dtype)
    if arr is x1:
        _common_device([x1, x2])
    flat = reshape(x2, (-1,)).astype(c, copy=False)
    a = sort_along(flat, 0, False, True, False)[0]
    b = {"C": c, "M": math_dtype(c)}
    if arr is x1:
        return _isin_k(a, x1, np.int64(a.shape[0]), np.bool_(invert), _bindings=b)
    return _isin_k(a, scalar_value(x1, c), np.int64(a.shape[0]), np.bool_(invert), _bindings={**b, "V": c})
