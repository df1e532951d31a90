"""NumPy's protocols on hip.tensor arrays without a device: the table from NumPy's objects to
hip.tensor's functions (derived from hip.tensor's exports and NumPy's aliases), how NumPy's
arguments reach them, what is refused (NotImplemented, so NumPy raises; TypeError for arguments
hip.tensor lacks), NumPy's view functions on arrays whose memory is never touched, and implicit
conversion to NumPy refused. The GPU half: test_tensor_numpy_protocols_gpu.py."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._api import nanfunctions as N
from hip.tensor._api import numpy_creation as C
from hip.tensor._api import numpy_protocols as P

BASE = 1 << 32          # a fake device address: these arrays are views whose memory is never read


def fake(shape, dtype=ht.float32, strides=None) -> ht.ndarray:
    d = ht.dtype(dtype)
    if strides is None:
        strides = np.empty(shape, d.numpy).strides if d is not ht.bfloat16 else np.empty(shape, np.uint16).strides
    return ht.ndarray._view_of(None, BASE, tuple(shape), tuple(strides), d, 0)


X = fake((2, 3))
T = P.table()


def target(obj):
    return T.functions[obj].target


@pytest.mark.parametrize("numpy_obj, ht_obj", [
    (np.sin, ht.sin), (np.add, ht.add), (np.sum, ht.sum), (np.where, ht.where), (np.matmul, ht.matmul),
    # NumPy's names of the array API's functions: NumPy's own aliases give them
    (np.arccos, ht.acos), (np.absolute, ht.abs), (np.power, ht.pow), (np.invert, ht.bitwise_invert),
    (np.left_shift, ht.bitwise_left_shift), (np.arctan2, ht.atan2), (np.conjugate, ht.conj),
    (np.concatenate, ht.concat), (np.true_divide, ht.divide),
    # creation functions reached by like= (NEP 35)
    (np.ones, ht.ones), (np.asarray, ht.asarray), (np.arange, ht.arange), (np.empty_like, ht.empty_like),
    (np.array, ht.array), (np.asanyarray, ht.asanyarray), (np.ascontiguousarray, ht.ascontiguousarray),
    (np.identity, ht.identity), (np.fromstring, ht.fromstring), (np.loadtxt, ht.loadtxt),
    # the extensions' modules
    (np.linalg.solve, ht.linalg.solve), (np.linalg.svd, ht.linalg.svd), (np.linalg.matmul, ht.linalg.matmul),
    (np.fft.fft, ht.fft.fft), (np.fft.irfftn, ht.fft.irfftn),
    # NumPy's functions outside the array API that hip.tensor has (Dask calls them on chunks)
    (np.nansum, ht.nansum), (np.nanprod, ht.nanprod), (np.nanmean, ht.nanmean), (np.nanvar, ht.nanvar),
    (np.nanstd, ht.nanstd), (np.nanmax, ht.nanmax), (np.nanmin, ht.nanmin), (np.nanargmax, ht.nanargmax),
    (np.nanargmin, ht.nanargmin), (np.nancumsum, ht.nancumsum), (np.nancumprod, ht.nancumprod),
    (np.interp, ht.interp), (np.unravel_index, ht.unravel_index), (np.ravel_multi_index, ht.ravel_multi_index),
    (np.argsort, ht.argsort), (np.searchsorted, ht.searchsorted), (np.take, ht.take), (np.diff, ht.diff),
])
def test_numpy_objects_map_to_hip_tensor_functions(numpy_obj, ht_obj):
    assert target(numpy_obj) is ht_obj


@pytest.mark.parametrize("numpy_obj, method", [(np.transpose, "transpose"), (np.cumsum, "cumsum"),
                                               (np.ravel, "ravel"), (np.swapaxes, "swapaxes"), (np.copy, "copy")])
def test_numpy_functions_without_a_hip_tensor_namesake_use_the_array_method(numpy_obj, method):
    e = T.functions[numpy_obj]
    assert e.method and e.target is vars(ht.ndarray)[method]


def test_every_hip_tensor_function_with_a_numpy_namesake_is_in_the_table():
    for np_mod, ht_mod in ((np, ht), (np.linalg, ht.linalg), (np.fft, ht.fft)):
        for name, f in P._exports(ht_mod).items():
            obj = getattr(np_mod, name, None)
            if obj is not None and P._overridable(obj):
                assert obj in T.functions, f"{np_mod.__name__}.{name}"
                if T.functions[obj].target is not f:     # a NumPy name of its own, or a method, won
                    e = T.functions[obj]
                    assert e.method or obj.__name__ in P._exports(ht_mod), (name, e)


def test_every_target_is_hip_tensors():
    for obj, e in T.functions.items():
        assert e.target.__module__.startswith("hip.tensor"), e
        assert e.np_sig is not None and e.sig is not None, e      # NumPy 2 gives every signature


@pytest.mark.parametrize("call, error, match", [
    (lambda: np.nansum(X, axis=2), Exception, "axis"),
    (lambda: np.nanmax(X, axis=(0, 0)), ValueError, "repeated"),
    (lambda: np.nanargmax(X, axis=(0, 1)), TypeError, "axis must be an integer"),
    (lambda: np.nanmean(X, where=True), TypeError, "has no argument"),
    (lambda: np.nancumsum(X, axis=5), Exception, "axis"),
    (lambda: np.interp(X, fake((0,), ht.float64), fake((0,), ht.float64)), ValueError, "empty"),
    (lambda: np.interp(X, fake((3,), ht.float64), fake((4,), ht.float64)), ValueError, "same length"),
    (lambda: np.interp(X, fake((2, 2), ht.float64), fake((2, 2), ht.float64)), ValueError, "1D"),
    (lambda: np.interp(X, fake((3,), ht.float64), fake((3,), ht.float64), period=0), ValueError, "period"),
    (lambda: np.unravel_index(X, (2, 3)), TypeError, "int indices"),
    (lambda: np.unravel_index(fake((3,), ht.int64), (2, 3), order="K"), ValueError, "order"),
    (lambda: np.unravel_index(fake((3,), ht.int64), (2, -3)), ValueError, "non-negative"),
    (lambda: np.ravel_multi_index((fake((3,), ht.int64),), (2, 3)), ValueError, "length 2"),
    (lambda: np.ravel_multi_index((fake((3,), ht.int64),) * 2, (2, 3), mode="bounce"), ValueError, "mode"),
    (lambda: ht.nansum(np.zeros(3)), TypeError, "hip.tensor array"),
])
def test_numpys_extra_functions_check_their_arguments_before_any_device_work(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                                  "nanargmax", "nanargmin", "nancumsum", "nancumprod", "interp",
                                  "unravel_index", "ravel_multi_index"])
def test_numpys_extra_functions_take_numpys_parameter_names(name):
    # every parameter hip.tensor's function has is NumPy's (or its array API synonym): a call
    # written for NumPy binds to it
    np_params = set(inspect.signature(getattr(np, name)).parameters)
    ours = set(inspect.signature(getattr(ht, name)).parameters)
    renamed = {P._SYNONYMS.get(n, n) for n in np_params}
    assert ours - {"x"} <= np_params | renamed, ours - np_params - renamed


@pytest.mark.parametrize("numpy_obj", [np.median, np.percentile, np.fmod, np.frexp, np.divmod, np.isclose,
                                       np.linalg.norm, np.fft.fftfreq, np.outer, np.rint, np.cbrt])
def test_what_hip_tensor_lacks_is_not_in_the_table(numpy_obj):
    assert numpy_obj not in T.functions


@pytest.mark.parametrize("ufunc, name", sorted(P._REDUCE.items()))
def test_reduce_is_numpys_reduction(ufunc, name):
    # the table's pairs are NumPy's: np.<name> equals np.<ufunc>.reduce
    u = getattr(np, ufunc)
    a = np.random.default_rng(0).integers(0, 2, size=(5, 4)).astype(bool if name in ("all", "any") else float)
    np.testing.assert_array_equal(u.reduce(a, axis=0), getattr(np, name)(a, axis=0))
    assert T.reduce[u].target is getattr(ht, name)


@pytest.mark.parametrize("ufunc, name", sorted(P._ACCUMULATE.items()))
def test_accumulate_is_numpys_cumulative_function(ufunc, name):
    u = getattr(np, ufunc)
    a = np.arange(1.0, 13.0).reshape(3, 4)
    np.testing.assert_array_equal(u.accumulate(a, axis=1), getattr(np, name)(a, axis=1))
    assert T.accumulate[u].target is getattr(ht, name)


def _args(obj, *args, **kwargs):
    return T.functions[obj].arguments(args, kwargs)


@pytest.mark.parametrize("call, pos, kw", [
    (lambda: _args(np.sum, X, 0), [X], {"axis": 0}),                          # axis is keyword-only in hip.tensor
    (lambda: _args(np.sum, X, axis=1, keepdims=True, out=None), [X], {"axis": 1, "keepdims": True}),
    (lambda: _args(np.clip, X, 0, 1), [X, 0, 1], {}),
    (lambda: _args(np.clip, X, a_max=3), [X], {"max": 3}),                   # NumPy's synonym
    (lambda: _args(np.std, X, ddof=1), [X], {"correction": 1}),
    (lambda: _args(np.linspace, 0, 1), [0, 1], {"num": 50}),                # NumPy's default: hip.tensor has none
    (lambda: _args(np.eye, 3), [3], {"dtype": float}),
    (lambda: _args(np.transpose, X), [X], {}),
    (lambda: _args(np.transpose, X, (1, 0)), [X, (1, 0)], {}),
    (lambda: _args(np.einsum, "ij->j", X), ["ij->j", X], {}),
    (lambda: _args(np.ones, 3, dtype=None, order="C", device=None), [3], {"dtype": None, "device": None}),
    (lambda: _args(np.concatenate, [X, X], 1), [[X, X]], {"axis": 1}),
    (lambda: _args(np.where, X, X, 1.0), [X, X, 1.0], {}),
    (lambda: _args(np.linalg.matrix_rank, X, None, True), [X, None, True], {}),
    (lambda: _args(np.fft.fft, X, None, 0), [X, None, 0], {}),
    (lambda: T.reduce[np.add].arguments((X,), {}), [X], {"axis": 0}),        # ufunc.reduce's axis=0
    (lambda: T.reduce[np.maximum].arguments((X,), {"keepdims": True}), [X], {"axis": 0, "keepdims": True}),
    (lambda: T.accumulate[np.multiply].arguments((X,), {"axis": 1}), [X], {"axis": 1}),
    (lambda: _args(np.nanvar, X, 0, None, None, 1), [X], {"axis": 0, "correction": 1}),     # ddof by position
    (lambda: _args(np.nanstd, X, axis=1, keepdims=True), [X], {"axis": 1, "keepdims": True, "correction": 0}),
    (lambda: _args(np.nansum, X, 1, np.float64), [X], {"axis": 1, "dtype": np.float64}),
    (lambda: _args(np.nanargmax, X, 1, keepdims=True), [X], {"axis": 1, "keepdims": True}),
    (lambda: _args(np.nancumsum, X, 1), [X, 1], {}),
    (lambda: _args(np.interp, X, X, X, 0.0, period=None), [X, X, X, 0.0], {"period": None}),
    (lambda: _args(np.unravel_index, X, (2, 3)), [X, (2, 3)], {}),
    (lambda: _args(np.ravel_multi_index, (X, X), (2, 3), "wrap"), [(X, X), (2, 3), "wrap"], {}),
    # Dask's merge of chunk percentiles (dask.array.percentile.merge_percentiles)
    (lambda: _args(np.argsort, X), [X], {}),                                  # hip.tensor's: stable
    (lambda: _args(np.take, X, X), [X, X], {}),
    (lambda: _args(np.cumsum, X), [X], {}),
    (lambda: _args(np.diff, X), [X], {}),
    (lambda: _args(np.searchsorted, X, X, side="right"), [X, X], {"side": "right"}),
    (lambda: _args(np.searchsorted, X, X, "left"), [X, X], {"side": "left"}),
    (lambda: _args(np.interp, X, X, X), [X, X, X], {}),
])
def test_numpy_arguments_reach_hip_tensor_by_position_or_name(call, pos, kw):
    got_pos, got_kw, out = call()
    assert out is None
    assert len(got_pos) == len(pos) and all(a is b or a == b for a, b in zip(got_pos, pos) if not isinstance(a, list))
    assert got_kw == kw


def test_np_argsort_is_hip_tensors_stable_sort():
    # NumPy's default kind (quicksort) orders equal values as it happens to; hip.tensor's order is
    # the stable one, and Dask's merge of chunk percentiles depends on it (test_tensor_dask_gpu.py)
    e = T.functions[np.argsort]
    assert e.target is ht.argsort and e.arguments((X,), {"kind": None})[1] == {}
    assert inspect.signature(ht.argsort).parameters["stable"].default is True
    assert e.arguments((X,), {"stable": True})[1] == {"stable": True}
    # NumPy's stable kinds ask for what hip.tensor's sorts always are (quicksort, heapsort: refused, as CuPy)
    for f in (np.argsort, np.sort):
        for kind in ("stable", "mergesort"):
            assert T.functions[f].arguments((X,), {"kind": kind})[1] == {"stable": True}
        with pytest.raises(TypeError, match="kind"):
            T.functions[f].arguments((X,), {"kind": "quicksort"})


def test_out_is_taken_apart_from_the_call():
    for kwargs in ({"out": (X,)}, {"out": X}):
        pos, kw, out = T.functions[np.add].arguments((X, 1), kwargs)
        assert out is X and kw == {} and pos[1] == 1
    pos, kw, out = T.functions[np.add].arguments((X, 1, X), {})          # positional out
    assert out is X and len(pos) == 2


@pytest.mark.parametrize("call", [
    lambda: np.sum(X, where=True),
    lambda: np.sum(X, initial=0.0),
    lambda: np.add(X, 1, where=False),
    lambda: np.sort(X, kind="heapsort"),
    lambda: np.ravel(X, order="F"),
    lambda: np.linalg.svd(X, compute_uv=False),
    lambda: np.linalg.eigh(X, UPLO="U"),
])
def test_arguments_hip_tensor_lacks_are_a_type_error_before_any_device_work(call):
    with pytest.raises(TypeError, match="has no argument"):
        call()


def test_dtype_hip_tensor_lacks_casts_the_operands_with_numpys_rule():
    pos, kw, _ = T.functions[np.add].arguments((X, 1), {"dtype": np.float32})     # X's own: no copy
    assert pos[0] is X and pos[1] == 1 and kw == {}
    with pytest.raises(TypeError, match="same_kind"):
        np.add(X, 1, dtype=np.int32)                        # float32 -> int32: refused, as NumPy
    with pytest.raises(TypeError, match="same_kind"):
        np.concatenate([X, X], dtype=np.int8)


def test_creation_functions_take_numpys_positional_dtype():
    # np.arange(start, stop, step, dtype, like=x): NumPy's C function takes dtype by position
    pos, kw, _ = T.functions[np.arange].arguments((3, 40, 2, np.dtype("int32")), {})
    assert pos == [3, 40, 2] and kw == {"dtype": np.dtype("int32")}


def test_numpys_defaults_given_explicitly_are_accepted():
    # order='C' (hip.tensor's layout), subok, casting='same_kind', ... at NumPy's defaults
    assert np.reshape(X, (3, 2), order="C").shape == (3, 2)
    assert np.swapaxes(X, 0, 1).strides == (4, 12)
    pos, kw, _ = T.functions[np.concatenate].arguments(([X, X],), {"casting": "same_kind", "dtype": None})
    assert kw == {}


@pytest.mark.parametrize("call", [
    lambda x: x.__array_ufunc__(np.frexp, "__call__", x),                  # hip.tensor has no frexp
    lambda x: x.__array_ufunc__(np.add, "reduceat", x, [0, 1]),
    lambda x: x.__array_ufunc__(np.add, "at", x, [0], 1.0),
    lambda x: x.__array_ufunc__(np.maximum, "accumulate", x),              # no cumulative maximum
    lambda x: x.__array_ufunc__(np.subtract, "reduce", x),                 # no counterpart in the table
    lambda x: x.__array_ufunc__(np.add, "__call__", x, object()),          # another library's operand
    lambda x: x.__array_ufunc__(np.add, "__call__", x, [1, 2]),
    lambda x: x.__array_function__(np.median, (ht.ndarray,), (x,), {}),
    lambda x: x.__array_function__(np.sum, (ht.ndarray, type("Other", (), {})), (x,), {}),
])
def test_what_hip_tensor_cannot_do_is_notimplemented(call):
    assert call(X) is NotImplemented


def test_numpy_raises_its_type_error_for_functions_hip_tensor_lacks():
    with pytest.raises(TypeError, match="no implementation found for 'numpy.median'"):
        np.median(X)


@pytest.mark.parametrize("f", [
    lambda a: np.transpose(a), lambda a: np.transpose(a, (1, 0)), lambda a: np.permute_dims(a, (1, 0)),
    lambda a: np.reshape(a, (3, 2)), lambda a: np.reshape(a, (-1,)), lambda a: np.swapaxes(a, 0, 1),
    lambda a: np.expand_dims(a, 0), lambda a: np.squeeze(np.expand_dims(a, 1)), lambda a: np.moveaxis(a, 0, -1),
    lambda a: np.broadcast_to(a, (4, 2, 3)), lambda a: np.matrix_transpose(a), lambda a: np.linalg.matrix_transpose(a),
    lambda a: np.expand_dims(a, (0, 2)),
])
def test_numpys_view_functions_give_hip_tensor_views_with_numpys_layout(f):
    ref = f(np.empty((2, 3), np.float32))
    got = f(X)
    assert isinstance(got, ht.ndarray) and got.shape == ref.shape
    assert [s for s, n in zip(got.strides, got.shape) if n > 1] == [s for s, n in zip(ref.strides, ref.shape) if n > 1]


def test_broadcast_arrays_and_result_type_through_numpy():
    a, b = np.broadcast_arrays(X, fake((3,)))
    assert isinstance(a, ht.ndarray) and a.shape == b.shape == (2, 3) and b.strides == (0, 4)
    assert np.result_type(X, fake((1,), ht.float64)) == ht.float64


@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda a: np.array([a, a]), lambda a: np.zeros((2, 3)) + np.array(a)])
def test_implicit_conversion_to_numpy_is_a_type_error(convert):
    with pytest.raises(TypeError, match=r"Implicit conversion to a NumPy array is not allowed.*\.get\(\)"):
        convert(X)


def test_numpy_operands_are_refused_with_a_pointer_to_asarray():
    with pytest.raises(TypeError, match="hip.tensor.asarray"):
        np.add(X, np.ones(3, np.float32))
    with pytest.raises(TypeError):
        np.ones(3, np.float32) + X


def test_dtypes_are_numpy_dtypes_too():
    assert np.dtype(ht.float32) == np.float32 and np.dtype(ht.complex128) == np.complex128
    assert np.zeros(1, dtype=ht.int8).dtype == np.int8
    assert np.dtype("f4") == ht.float32 and ht.float32 == np.dtype("f4")
    assert ht.float64.type is np.float64 and np.issubdtype(ht.float32, np.floating)
    assert np.result_type(ht.float32, np.float64) == np.float64
    with pytest.raises(TypeError):
        np.dtype(ht.bfloat16)                       # NumPy has no bfloat16
    assert ht.can_cast(ht.bfloat16, ht.float32) and ht.finfo(ht.bfloat16).bits == 16


def test_protocol_methods_are_documented_and_the_table_is_built_once():
    assert "NEP 13" in ht.ndarray.__array_ufunc__.__doc__ and "NEP 18" in ht.ndarray.__array_function__.__doc__
    assert P.table() is T
    assert inspect.signature(ht.empty_like).parameters["shape"].kind is inspect.Parameter.KEYWORD_ONLY


# -- NEP 35's creation functions (like=) ------------------------------------------------------------
LIKE = sorted(n for n in dir(np) if callable(getattr(np, n)) and not isinstance(getattr(np, n), type)
              and (P.signature(getattr(np, n)) or inspect.Signature()).parameters.get("like") is not None)


def test_numpys_creation_functions_taking_like_are_found():
    # NumPy's own list, read from the signatures (np.fromstring's from its docstring: it has no
    # text signature); those hip.tensor lacked made np.array(q, like=x) a TypeError in Dask
    assert {"array", "asanyarray", "ascontiguousarray", "asfortranarray", "identity", "tri", "require",
            "fromfunction", "frombuffer", "fromfile", "fromiter", "fromstring", "loadtxt", "genfromtxt",
            "ones", "arange"} <= set(LIKE)
    assert str(P.signature(np.fromstring)) == "(string, dtype=<class 'float'>, count=-1, *, sep, like=None)"


@pytest.mark.parametrize("name", LIKE)
def test_every_numpy_function_taking_like_has_its_hip_tensor_namesake(name):
    f = getattr(ht, name)
    assert target(getattr(np, name)) is f
    ours = inspect.signature(f).parameters
    theirs = P.signature(getattr(np, name)).parameters
    named = {n for n, p in ours.items() if p.kind is not inspect.Parameter.POSITIONAL_ONLY}
    assert named - {"device"} <= set(theirs), name                  # a call naming NumPy's parameters binds
    if name in C.__all__ and name.startswith(("from", "load", "genfrom")):     # the readers: NumPy's signature
        assert list(ours) == [n for n in theirs if n != "like"]


@pytest.mark.parametrize("call, pos, kw", [
    (lambda: _args(np.array, [1, 2], np.float32, copy=False, ndmin=2), [[1, 2], np.float32],
     {"copy": False, "ndmin": 2}),
    (lambda: _args(np.array, X, order="F", subok=False, ndmax=0), [X], {"order": "F"}),
    (lambda: _args(np.asanyarray, X, None, "A"), [X, None, "A"], {}),
    (lambda: _args(np.require, X, None, "CW"), [X, None, "CW"], {}),
    (lambda: _args(np.identity, 3, dtype=None), [3, None], {}),
    (lambda: _args(np.tri, 3, None, 0, float), [3, None, 0, float], {}),
    (lambda: _args(np.fromstring, "1 2", sep=" "), ["1 2"], {"sep": " "}),
    (lambda: _args(np.fromfunction, abs, (3,), dtype=float, scale=2), [abs, (3,)], {"dtype": float, "scale": 2}),
])
def test_creation_arguments_reach_hip_tensor(call, pos, kw):
    got_pos, got_kw, out = call()
    assert out is None and got_pos == pos and got_kw == kw


def test_np_array_without_a_copy_is_the_array_or_a_view_of_it():
    # copy=None (NumPy: only where needed): no device work, so the fake arrays do
    F = X.T                                                         # F-contiguous
    assert np.array(X, copy=None, like=X) is X and np.asarray(X, like=X) is X
    assert np.asanyarray(X, like=X) is X and np.ascontiguousarray(X, like=X) is X
    assert np.asfortranarray(F, like=X) is F and np.array(F, copy=None, order="A", like=X) is F
    assert np.require(X, None, "CAWE", like=X) is X and np.require(F, requirements=["F_CONTIGUOUS"], like=X) is F
    v = np.array(X, copy=False, ndmin=4, like=X)                    # leading axes of length 1: a view
    ref = np.array(np.empty((2, 3), np.float32), copy=False, ndmin=4)
    assert v.shape == ref.shape == (1, 1, 2, 3) and v.ptr == X.ptr and v.strides[2:] == ref.strides[2:]


@pytest.mark.parametrize("call, error, match", [
    (lambda: np.array(X.T, copy=False, order="C", like=X), ValueError, "needs a copy"),
    (lambda: np.array(X, np.float64, copy=False, like=X), ValueError, "needs a copy"),
    (lambda: np.array([1.0], copy=False, like=X), ValueError, "only by a copy"),
    (lambda: np.array(X, subok=True, like=X), TypeError, "numpy.array: .* no argument 'subok'"),
    (lambda: np.array(X, ndmax=1, like=X), TypeError, "numpy.array: .* no argument 'ndmax'"),
    (lambda: ht.array(X, order="Q"), ValueError, "order must be one of"),
    (lambda: np.asanyarray(X, order="Q", like=X), ValueError, "order must be one of"),
    (lambda: np.require(X, requirements="CF", like=X), ValueError, 'both "C" and "F"'),
    (lambda: np.require(X, requirements="Z", like=X), KeyError, "Z"),
])
def test_what_np_array_cannot_do_is_a_clear_error_before_any_device_work(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("layout", ["C", "F", "permuted", "sliced", "reversed", "size-1"])
@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
def test_copies_lay_out_their_axes_as_numpys(layout, order):
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    a = {"C": a, "F": np.asfortranarray(a), "permuted": a.transpose(1, 2, 0), "sliced": a[:, ::2, 1:],
         "reversed": a[::-1, :, ::-2].transpose(2, 0, 1), "size-1": a[:1].transpose(2, 0, 1)}[layout]
    want = np.array(a, order=order)                     # NumPy's copy in that order
    axes = C._axes_in_memory(a, order)
    assert want.transpose(axes).flags.c_contiguous, (axes, want.strides)


def _warned_from(module_name):
    """A function of a module named `module_name` calling the nan-functions' warning."""
    ns = {"__name__": module_name, "_warn": N._warn}
    exec("def f():\n    _warn('All-NaN slice encountered')\n", ns)
    return ns["f"]


@pytest.mark.parametrize("module_name, here", [("hip.tensor._api.x", True), ("elsewhere", False)])
def test_nan_function_warnings_point_at_the_first_caller_outside_hip_tensor(module_name, here):
    # as NumPy's point at the line calling np.nanmax (through NumPy's __array_function__ too)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        _warned_from(module_name)()
    assert [str(w.message) for w in rec] == ["All-NaN slice encountered"] and rec[0].category is RuntimeWarning
    assert (rec[0].filename == __file__) is here
