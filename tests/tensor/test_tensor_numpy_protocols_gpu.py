"""NumPy-API code on hip.tensor arrays: each case below is written against NumPy only (`np.sin`,
`np.add.reduce`, `np.concatenate`, `np.linalg.solve`, `np.ones(like=)`, ...) and runs twice, on
NumPy arrays and on hip.tensor arrays of the same values; the hip.tensor run must return hip.tensor
arrays (the work ran on the GPU) equal to NumPy's results, of NumPy's dtypes. Also `out=`,
pickling, copies, and implicit conversion refused. The table and argument rules without a device:
test_tensor_numpy_protocols_cpu.py."""
from __future__ import annotations

import copy
import io
import pickle
import warnings

import numpy as np
import pytest

import hip.tensor as ht

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(5)
A = RNG.uniform(-1, 1, (6, 5)).astype(np.float32)          # in [-1, 1]: every function's domain
B = RNG.uniform(-1, 1, (6, 5)).astype(np.float32)
POS = RNG.uniform(0.5, 2.0, (6, 5)).astype(np.float64)
V = RNG.uniform(-1, 1, 4).astype(np.float64)
W = RNG.uniform(-1, 1, 3).astype(np.float64)
I = RNG.integers(-20, 20, (4, 7)).astype(np.int32)
J = RNG.integers(1, 5, (4, 7)).astype(np.int32)
M = RNG.standard_normal((5, 5)) + 5 * np.eye(5)
SPD = M @ M.T
MASK = RNG.random((6, 5)) < 0.5
NANS = A.copy()
NANS[0, 1] = NANS[3, :2] = NANS[5, 4] = NANS[2, 0] = np.nan        # no slice all NaN
CNANS = (NANS + 1j * B).astype(np.complex64)
XP = np.array([0.0, 1.0, 1.0, 2.5, 4.0])                            # increasing, one repeated point
FP = np.array([1.0, 3.0, 2.0, -1.0, 0.5])
XI = np.array([-1.0, 0.0, 0.5, 1.0, 1.7, 2.5, 3.9, 4.0, 5.0, np.nan])

# name -> (function of NumPy arrays written with np.*, its inputs)
CASES = {
    # ufuncs, called
    **{f"ufunc.{u}": (lambda a, u=u: getattr(np, u)(a), (A,)) for u in (
        "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arctanh",
        "exp", "expm1", "log1p", "absolute", "negative", "positive", "square", "floor", "ceil", "trunc",
        "sign", "signbit", "isnan", "isinf", "isfinite", "reciprocal")},
    **{f"ufunc.{u}": (lambda a, u=u: getattr(np, u)(a), (POS,)) for u in ("log", "log2", "log10", "sqrt")},
    "ufunc.arccosh": (lambda a: np.arccosh(a + 1), (POS,)),
    **{f"ufunc.{u}": (lambda a, b, u=u: getattr(np, u)(a, b), (A, B)) for u in (
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "arctan2", "hypot", "copysign",
        "logaddexp", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "nextafter")},
    **{f"ufunc.{u}": (lambda a, b, u=u: getattr(np, u)(a, b), (I, J)) for u in (
        "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "remainder", "floor_divide")},
    "ufunc.power": (lambda a, b: np.power(a, b), (POS, POS)),
    "ufunc.dtype": (lambda i, j: np.add(i, j, dtype=np.float64) + np.multiply(i, 3, dtype=np.int64), (I, J)),
    "mean_dtype": (lambda a: np.mean(a, axis=0, dtype=np.float64), (A,)),
    "like.arange_positional_dtype": (lambda a: np.arange(1, 9, 2, np.int32, like=a), (A,)),
    "ufunc.invert": (lambda a: np.invert(a), (I,)),
    "ufunc.logical": (lambda m: np.logical_xor(np.logical_and(m, ~m), np.logical_or(m, np.logical_not(m))), (MASK,)),
    "ufunc.matmul": (lambda a, b: np.matmul(a, b.T), (A, B)),
    "ufunc.vecdot": (lambda a, b: np.vecdot(a, b), (A, B)),
    "ufunc.numpy_scalars": (lambda a: np.float32(2) * a + np.float32(1) - a / np.float32(4), (A,)),
    "operators.numpy_scalar_first": (lambda a: np.float64(0.5) ** a, (POS,)),
    # ufunc methods
    "reduce.add": (lambda a: np.add.reduce(a), (A,)),
    "reduce.add_axis1": (lambda a: np.add.reduce(a, axis=1, keepdims=True), (A,)),
    "reduce.multiply": (lambda a: np.multiply.reduce(a, axis=None), (POS,)),
    "reduce.maximum": (lambda a: np.maximum.reduce(a, axis=1), (A,)),
    "reduce.minimum": (lambda a: np.minimum.reduce(a), (A,)),
    "reduce.logical_or": (lambda m: np.logical_or.reduce(m, axis=0), (MASK,)),
    "reduce.logical_and": (lambda m: np.logical_and.reduce(m, axis=1), (MASK,)),
    "accumulate.add": (lambda a: np.add.accumulate(a), (A,)),
    "accumulate.multiply": (lambda a: np.multiply.accumulate(a, axis=1), (POS,)),
    "outer.multiply": (lambda v, w: np.multiply.outer(v, w), (V, W)),
    "outer.subtract": (lambda v, w: np.subtract.outer(v, w), (V, W)),
    "outer.add_2d": (lambda a, w: np.add.outer(a, w), (A, W)),
    # statistical functions
    "sum": (lambda a: np.sum(a), (A,)),
    "sum_axis": (lambda a: np.sum(a, 0), (A,)),
    "sum_dtype": (lambda a: np.sum(a, axis=1, dtype=np.float64, keepdims=True), (A,)),
    "sum_int": (lambda i: np.sum(i, axis=1), (I,)),
    "prod": (lambda a: np.prod(a, axis=0), (POS,)),
    "mean": (lambda a: np.mean(a, axis=1), (A,)),
    "var": (lambda a: np.var(a, axis=0), (A,)),
    "std_ddof": (lambda a: np.std(a, ddof=1), (POS,)),
    "max_min": (lambda a: np.max(a, axis=1) - np.min(a, axis=1), (A,)),
    "argmax": (lambda a: np.argmax(a, axis=0), (A,)),
    "argmin": (lambda a: np.argmin(a), (A,)),
    "any_all": (lambda m: np.logical_and(np.any(m, axis=0), np.all(m | ~m, axis=0)), (MASK,)),
    "count_nonzero": (lambda m: np.count_nonzero(m, axis=1), (MASK,)),
    "cumsum": (lambda a: np.cumsum(a, axis=1), (A,)),
    "cumulative_sum": (lambda a: np.cumulative_sum(a, axis=0), (A,)),
    "diff": (lambda a: np.diff(a, 2, axis=1), (A,)),
    # NumPy's nan-functions
    "nansum": (lambda a: np.nansum(a), (NANS,)),
    "nansum_axis_dtype": (lambda a: np.nansum(a, axis=1, dtype=np.float64, keepdims=True), (NANS,)),
    "nanprod": (lambda a: np.nanprod(a * 0.5 + 1, axis=0), (NANS,)),
    "nanmean": (lambda a: np.nanmean(a, axis=0), (NANS,)),
    "nanmean_all_dtype": (lambda a: np.nanmean(a, dtype=np.float64), (NANS,)),
    "nanvar": (lambda a: np.nanvar(a, axis=1), (NANS,)),
    "nanstd_ddof": (lambda a: np.nanstd(a, axis=0, ddof=1, keepdims=True), (NANS,)),
    "nanvar_complex": (lambda c: np.nanvar(c, axis=0), (CNANS,)),
    "nanmax_nanmin": (lambda a: np.nanmax(a, axis=1) - np.nanmin(a, axis=1), (NANS,)),
    "nanmax_all": (lambda a: np.nanmax(a), (NANS,)),
    "nanargmax": (lambda a: np.nanargmax(a, axis=0), (NANS,)),
    "nanargmin": (lambda a: np.nanargmin(a), (NANS,)),
    "nanargmax_keepdims": (lambda a: np.nanargmax(a, axis=1, keepdims=True), (NANS,)),
    "nancumsum": (lambda a: np.nancumsum(a, axis=1), (NANS,)),
    "nancumsum_flat": (lambda a: np.nancumsum(a), (NANS,)),
    "nancumprod": (lambda a: np.nancumprod(a * 0.5 + 1, axis=0), (NANS,)),
    "nan_ints": (lambda i: np.nansum(i, axis=0) + np.nanmax(i) - np.nanargmin(i, axis=0), (I,)),
    "nanmean_int": (lambda i: np.nanmean(i, axis=1), (I,)),
    # interp, unravel_index, ravel_multi_index
    "interp": (lambda x, xp, fp: np.interp(x, xp, fp), (XI, XP, FP)),
    "interp_left_right": (lambda x, xp, fp: np.interp(x, xp, fp, left=-7.0, right=9.0), (XI, XP, FP)),
    "interp_float32": (lambda a, xp, fp: np.interp(a * 3, xp, fp), (A, XP, FP)),
    "interp_period": (lambda x, xp, fp: np.interp(x * 90, xp * 50, fp, period=360), (XI, XP, FP)),
    "interp_complex": (lambda x, xp, fp: np.interp(x[:-1], xp, fp + 2j * fp[::-1]), (XI, XP, FP)),
    "interp_one_point": (lambda x, xp, fp: np.interp(x, xp[:1], fp[:1]), (XI, XP, FP)),
    "interp_scalar_x": (lambda xp, fp: np.interp(1.7, xp, fp), (XP, FP)),
    "unravel_ravel": (lambda i: np.ravel_multi_index(np.unravel_index(np.abs(i), (5, 8))[::-1], (8, 5)), (I,)),
    "unravel_index_F": (lambda i: np.unravel_index(np.abs(i), (5, 8), order="F")[1], (I,)),
    "ravel_multi_index_modes": (lambda i, j: np.ravel_multi_index((i, j), (7, 3), mode=("wrap", "clip")), (I, J)),
    "ravel_multi_index_F": (lambda i, j: np.ravel_multi_index((j, j - 1), (5, 4), order="F"), (I, J)),
    # manipulation, indexing, searching, sorting
    "concatenate": (lambda a, b: np.concatenate([a, b]), (A, B)),
    "concatenate_axis1": (lambda a, b: np.concatenate((a, b), axis=1), (A, B)),
    "stack": (lambda a, b: np.stack([a, b], axis=1), (A, B)),
    "transpose": (lambda a: np.transpose(a) + 0, (A,)),
    "reshape": (lambda a: np.reshape(a, (5, 6)) * 1, (A,)),
    "ravel": (lambda a: np.ravel(np.transpose(a)), (A,)),
    "swapaxes_expand_squeeze": (lambda a: np.squeeze(np.expand_dims(np.swapaxes(a, 0, 1), 0)) + 0, (A,)),
    "broadcast_to": (lambda v: np.broadcast_to(v, (3, 4)) + 0, (V,)),
    "moveaxis": (lambda a, b: np.moveaxis(np.stack([a, b]), 0, -1) + 0, (A, B)),
    "flip_roll": (lambda a: np.roll(np.flip(a, axis=0), 2, axis=1), (A,)),
    "repeat_tile": (lambda v: np.tile(np.repeat(v, 2), 3), (V,)),
    "tril_triu": (lambda m: np.tril(m, -1) + np.triu(m, 1), (M,)),
    "where": (lambda a, b: np.where(a > b, a, b), (A, B)),
    "where_scalar": (lambda a: np.where(a > 0, a, 0.0), (A,)),
    "clip": (lambda a: np.clip(a, -0.5, 0.5), (A,)),
    "clip_keywords": (lambda a: np.clip(a, a_min=-0.25, a_max=None), (A,)),
    "round": (lambda a: np.round(a * 10), (A,)),
    "take": (lambda a, i: np.take(a, np.abs(i[0, :3]) % 6, axis=0), (A, I)),
    "take_along_axis": (lambda a: np.take_along_axis(a, np.argsort(a, axis=1), axis=1), (A,)),
    "sort": (lambda a: np.sort(a, axis=0), (A,)),
    "argsort": (lambda a: np.argsort(a, axis=1, stable=True), (A,)),
    "searchsorted": (lambda v, w: np.searchsorted(np.sort(v), w), (V, W)),
    "isin": (lambda i, j: np.isin(i, j), (I, J)),
    "unique_values": (lambda i: np.sort(np.unique_values(i)), (I,)),     # (NumPy's order is unspecified)
    "nonzero": (lambda m: np.nonzero(m)[1], (MASK,)),
    # linear algebra and einsum
    "dot": (lambda a, b: np.dot(a, b.T), (A, B)),
    "inner_vdot": (lambda v: np.inner(v, v) + np.vdot(v, v), (V,)),
    "tensordot": (lambda a, b: np.tensordot(a, b, axes=([1], [1])), (A, B)),
    "einsum": (lambda a, b: np.einsum("ij,kj->ik", a, b), (A, B)),
    "linalg.solve": (lambda m: np.linalg.solve(m, np.sum(m, axis=1)), (M,)),
    "linalg.inv": (lambda m: np.linalg.inv(m), (M,)),
    "linalg.det": (lambda m: np.linalg.det(m), (M,)),
    "linalg.slogdet": (lambda m: np.linalg.slogdet(m).logabsdet, (M,)),
    "linalg.cholesky": (lambda s: np.linalg.cholesky(s), (SPD,)),
    "linalg.eigvalsh": (lambda s: np.linalg.eigvalsh(s), (SPD,)),
    "linalg.svdvals": (lambda m: np.linalg.svdvals(m), (M,)),
    "linalg.matrix_norm": (lambda m: np.linalg.matrix_norm(m), (M,)),
    "linalg.vector_norm": (lambda v: np.linalg.vector_norm(v, ord=1), (V,)),
    "linalg.outer_cross": (lambda v: np.linalg.cross(v[:3], v[1:]) + np.linalg.outer(v, v)[0, :3], (V,)),
    "linalg.trace_diagonal": (lambda m: np.linalg.trace(m) + np.linalg.diagonal(m).sum(), (M,)),
    "linalg.matrix_power": (lambda m: np.linalg.matrix_power(m, 3), (M,)),
    # fft
    "fft.fft": (lambda a: np.fft.fft(a, axis=0), (A,)),
    "fft.rfft_irfft": (lambda v: np.fft.irfft(np.fft.rfft(v), n=4), (V,)),
    "fft.fft2_norm": (lambda m: np.fft.fft2(m, norm="ortho"), (M,)),
    "fft.fftshift": (lambda v: np.fft.fftshift(v), (V,)),
    # creation, by like= and from arrays
    "like.ones": (lambda a: np.ones((2, 3), dtype=np.float32, like=a), (A,)),
    "like.zeros": (lambda a: np.zeros(4, like=a), (A,)),
    "like.full": (lambda a: np.full((2, 2), 7, dtype=np.int16, like=a), (A,)),
    "like.arange": (lambda a: np.arange(2, 11, 3, like=a), (A,)),
    "like.asarray": (lambda a: np.asarray([[1.5, 2.0]], like=a), (A,)),
    "like.eye": (lambda a: np.eye(3, k=1, like=a), (A,)),
    "like.array": (lambda a: np.array([[1, 2], [3, 4]], dtype=np.float32, like=a), (A,)),
    "like.array_ndmin": (lambda a: np.array([], dtype=np.int64, ndmin=2, like=a), (A,)),     # Dask's array_safe
    "like.array_of_array": (lambda a: np.array(a.T, np.float64, order="F", like=a), (A,)),
    "like.array_of_numpy": (lambda a: np.array(np.asfortranarray(I), like=a), (A,)),
    "like.array_of_arrays": (lambda a: np.array([a[0], a[1]], like=a), (A,)),
    "like.asanyarray": (lambda a: np.asanyarray(a[:, ::2], order="C", like=a), (A,)),
    "like.ascontiguousarray": (lambda a: np.ascontiguousarray(a.T, dtype=np.float64, like=a), (A,)),
    "like.ascontiguousarray_0d": (lambda a: np.ascontiguousarray(2.5, like=a), (A,)),
    "like.asfortranarray": (lambda a: np.asfortranarray(a, like=a), (A,)),
    "like.require": (lambda a: np.require(a.T, np.float64, ["F", "W", "O"], like=a), (A,)),
    "like.identity": (lambda a: np.identity(4, dtype=np.int32, like=a), (A,)),
    "like.tri": (lambda a: np.tri(3, 5, 1, like=a), (A,)),
    "like.tri_bool": (lambda a: np.tri(4, k=-1, dtype=bool, like=a), (A,)),
    "like.fromfunction": (lambda a: np.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=np.int64, like=a), (A,)),
    "like.fromfunction_kwargs": (lambda a: np.fromfunction(lambda i, j, s: (i - j) * s, (2, 3), s=0.5, like=a), (A,)),
    "like.frombuffer": (lambda a: np.frombuffer(bytes(range(8)), dtype=np.uint16, count=3, offset=2, like=a), (A,)),
    "like.fromiter": (lambda a: np.fromiter((i * i for i in range(5)), np.float32, like=a), (A,)),
    "like.fromstring": (lambda a: np.fromstring("1 2 3.5", sep=" ", like=a), (A,)),
    "like.loadtxt": (lambda a: np.loadtxt(io.StringIO("1 2\n3 4\n5 6"), unpack=True, like=a), (A,)),
    "like.genfromtxt": (lambda a: np.genfromtxt(io.StringIO("1,2\n3,\n5,6"), delimiter=",", like=a), (A,)),
    "ones_like_shape": (lambda a: np.ones_like(a, shape=(3,), dtype=np.float64), (A,)),
    "zeros_full_like": (lambda a: np.zeros_like(a) + np.full_like(a, 3.0), (A,)),
    "empty_like_shape": (lambda a: np.empty_like(a, shape=(0, 2)), (A,)),
    "copy": (lambda a: np.copy(a), (A,)),
    "astype": (lambda a: np.astype(a, np.float64), (A,)),
}


def _host(r):
    assert isinstance(r, ht.ndarray), f"a {type(r).__name__}, not a hip.tensor array: the call left the GPU"
    return r.get()


@pytest.mark.parametrize("name", list(CASES))
def test_numpy_api_code_gives_numpys_results_on_hip_tensor_arrays(name):
    f, inputs = CASES[name]
    want = np.asarray(f(*inputs))
    got = _host(f(*[ht.asarray(i) for i in inputs]))
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    elif name.startswith("empty_like"):
        pass
    else:
        single = want.dtype in (np.float32, np.complex64)
        np.testing.assert_allclose(got, want, rtol=2e-5 if single else 1e-10, atol=2e-6 if single else 1e-12)


def test_out_is_written_and_returned():
    x, y = ht.asarray(A), ht.asarray(B)
    o = ht.empty((6, 5), dtype=ht.float32)
    assert np.add(x, y, out=o) is o
    np.testing.assert_allclose(o.get(), A + B, rtol=1e-6)
    o64 = ht.empty((6, 5), dtype=ht.float64)          # float32 -> float64: NumPy's same_kind allows it
    assert np.sin(x, out=(o64,)) is o64
    np.testing.assert_allclose(o64.get(), np.sin(A).astype(np.float64), rtol=1e-6)
    row = ht.empty((3, 6, 5), dtype=ht.float32)       # out of a larger shape: the result broadcasts
    np.multiply(x, 2, out=row)
    np.testing.assert_allclose(row.get(), np.broadcast_to(A * 2, (3, 6, 5)), rtol=1e-6)
    s = ht.empty((5,), dtype=ht.float32)
    assert np.sum(x, axis=0, out=s) is s
    np.testing.assert_allclose(s.get(), A.sum(axis=0), rtol=1e-5)
    with pytest.raises(TypeError, match="same_kind"):
        np.divide(ht.asarray(I), ht.asarray(J), out=ht.empty((4, 7), dtype=ht.int32))   # float64 into int32
    with pytest.raises(ValueError):
        np.add(x, y, out=ht.empty((5,), dtype=ht.float32))
    with pytest.raises(TypeError, match="hip.tensor array"):
        np.add(x, y, out=np.empty((6, 5), np.float32))


def test_what_hip_tensor_lacks_raises_numpys_type_error():
    x = ht.asarray(A)
    with pytest.raises(TypeError):
        np.frexp(x)
    with pytest.raises(TypeError):
        np.maximum.accumulate(x)
    with pytest.raises(TypeError):
        np.median(x)
    with pytest.raises(TypeError, match="has no argument"):
        np.sum(x, where=ht.asarray(MASK))


def _warned(f, *args, **kwargs):
    """f's result and the warnings it gave: (category, message, file)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = f(*args, **kwargs)
    return r, [(w.category, str(w.message), w.filename) for w in rec]


def test_all_nan_slices_warn_or_raise_as_numpy():
    a = A[:3, :4].copy()
    a[1] = np.nan
    x = ht.asarray(a)
    nans = np.full((2, 3), np.nan, np.float32)
    empty = np.zeros((2, 0))
    for f, data, kwargs in ((np.nanmax, a, {"axis": 1}), (np.nanmin, a, {"axis": 1}), (np.nanmean, a, {"axis": 1}),
                            (np.nanvar, a, {"axis": 1}), (np.nanstd, a, {"axis": 1}),
                            (np.nanvar, a, {"axis": 0, "ddof": 3}), (np.nanmax, nans, {}),
                            (np.nanmin, nans, {"axis": 0}),
                            (np.nanmean, nans, {}), (np.nanmean, empty, {"axis": 1}), (np.nansum, nans, {"axis": 1}),
                            (np.nanmax, A, {"axis": 0})):
        want, want_w = _warned(f, data, **kwargs)
        got, got_w = _warned(f, ht.asarray(data), **kwargs)
        got = got.get()
        # NumPy's warnings, one each (none where NumPy gives none), pointing at this file
        assert [w[:2] for w in got_w] == [w[:2] for w in want_w], (f.__name__, kwargs, got_w, want_w)
        assert all(w[2] == __file__ for w in got_w), got_w
        np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)
        assert got.dtype == want.dtype
    for f in (np.nanargmax, np.nanargmin):
        with pytest.raises(ValueError, match="All-NaN slice"):
            f(a, axis=1)
        with pytest.raises(ValueError, match="All-NaN slice"):
            f(x, axis=1)
        assert f(x, axis=0).get().tolist() == f(a, axis=0).tolist()
    assert float(np.nansum(ht.asarray(np.full(3, np.nan))).get()) == 0.0
    with pytest.raises(ValueError):
        np.unravel_index(ht.asarray(np.array([3, 6])), (2, 3))          # 6 is past the end, as NumPy
    with pytest.raises(ValueError):
        np.ravel_multi_index((ht.asarray(np.array([0, 2])), ht.asarray(np.array([1, 1]))), (2, 3))


def test_np_array_copies_and_np_asarray_does_not():
    x = ht.asarray(A)
    y = np.array(x, like=x)                         # NumPy's default: a copy
    assert isinstance(y, ht.ndarray) and y.ptr != x.ptr
    assert np.array(x, copy=None, like=x) is x and np.asarray(x, like=x) is x and np.asanyarray(x, like=x) is x
    z = np.array(x, np.float64, copy=None, like=x)  # a dtype needs a copy
    x[0, 0] = 100.0
    assert y.get()[0, 0] == A[0, 0] and z.get()[0, 0] == np.float64(A[0, 0])
    r = np.require(x[::2], requirements="C", like=x)
    np.testing.assert_array_equal(r.get(), x.get()[::2])
    assert r.flags.c_contiguous and np.require(x, requirements="OW", like=x) is x


@pytest.mark.parametrize("layout", ["C", "F", "permuted", "sliced", "reversed"])
@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
def test_np_array_copies_in_numpys_layout(layout, order):
    base = RNG.uniform(-1, 1, (3, 4, 5)).astype(np.float32)
    views = {"C": lambda a: a, "F": lambda a: a.transpose(2, 1, 0), "permuted": lambda a: a.transpose(1, 2, 0),
             "sliced": lambda a: a[:, ::2, 1:], "reversed": lambda a: a[::-1, :, ::-2].transpose(2, 0, 1)}
    src = base.transpose(2, 1, 0).copy() if layout == "F" else base         # F: the transpose of a C array
    a, x = views[layout](src), views[layout](ht.asarray(src))
    want = np.array(a, order=order)
    for got in (np.array(x, order=order, like=x), np.array(a, order=order, like=x)):   # a device or a host source
        assert got.strides == want.strides, (got.strides, want.strides)
        np.testing.assert_array_equal(got.get(), want)
    if layout == "F":
        assert np.asfortranarray(x, like=x) is x and np.ascontiguousarray(x, like=x).flags.c_contiguous


def test_fromfile_reads_on_the_host(tmp_path):
    path = tmp_path / "data.bin"
    I.tofile(path)
    got = np.fromfile(path, dtype=np.int32, count=10, like=ht.asarray(A))
    assert isinstance(got, ht.ndarray)
    np.testing.assert_array_equal(got.get(), np.fromfile(path, dtype=np.int32, count=10))
    with pytest.raises(TypeError, match="masked"):
        np.genfromtxt(io.StringIO("1,2\n3,\n"), delimiter=",", usemask=True, like=ht.asarray(A))


def test_implicit_conversion_is_refused_and_get_is_the_way_out():
    x = ht.asarray(A)
    for convert in (np.asarray, np.array, lambda a: np.array([a])):
        with pytest.raises(TypeError, match=r"\.get\(\)"):
            convert(x)
    np.testing.assert_array_equal(x.get(), A)
    np.testing.assert_array_equal(ht.asnumpy(x), A)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "complex128", "int8", "bool"])
def test_pickle_and_copies(dtype):
    src = (A * 8).astype(np.float32) if dtype not in ("complex128", "bool") else A
    x = ht.asarray(src, dtype=dtype)[::2]
    for y in (pickle.loads(pickle.dumps(x, protocol=5)), copy.copy(x), copy.deepcopy(x)):
        assert isinstance(y, ht.ndarray) and y.dtype == x.dtype and y.shape == x.shape and y.ptr != x.ptr
        np.testing.assert_array_equal(y.get(), x.get())


def test_asarray_stacks_sequences_of_arrays():
    a, b = ht.asarray(V), ht.asarray(V * 2)
    np.testing.assert_array_equal(ht.asarray([a, b]).get(), np.stack([V, V * 2]))
    s = ht.asarray([ht.asarray(1.0), 2, ht.asarray(np.float32(3))])
    assert s.dtype == ht.float64 and s.get().tolist() == [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(ht.asarray([[a, a]], dtype=ht.float32).get(), np.stack([[V, V]]).astype(np.float32))
    with pytest.raises(ValueError):
        ht.asarray([a, ht.asarray(W)])                     # ragged
