"""Deprecated functions warn; Python callables become C callbacks without leaking or crashing."""
from __future__ import annotations

import ctypes
import gc
import sys
import threading
import warnings

import pytest

import header_facts
import hip as pkg
from hip import hip


@pytest.fixture(scope="module")
def clib():
    return ctypes.CDLL(hip._library.load())


def _deprecated_without_params(include64, clib):
    """Functions the 6.4 header marks deprecated, take no arguments and the loaded library has."""
    facts = header_facts.functions(include64, "hip")
    names = sorted(n for n, f in facts.items() if f.deprecated and f.nparams == 0 and hasattr(clib, n))
    if not names:
        pytest.skip("no argument-less deprecated function in both the header and the library")
    return names


def test_header_marks_functions_deprecated(include64):
    facts = header_facts.functions(include64, "hip")
    deprecated = {n for n, f in facts.items() if f.deprecated}
    assert len(deprecated) > 10
    assert not facts["hipGetDeviceCount"].deprecated


@pytest.mark.runtime
def test_deprecated_functions_warn(include64, clib):
    for name in _deprecated_without_params(include64, clib):
        with pytest.warns(DeprecationWarning, match=name):
            result = getattr(hip, name)()
        assert isinstance(result[0], hip.hipError_t)


@pytest.mark.runtime
def test_deprecation_warning_points_at_the_caller(include64, clib):
    """stacklevel must name the line that called the deprecated function (so that Python's
    default filter shows it in scripts, and -W error::DeprecationWarning:mymodule works)."""
    name = _deprecated_without_params(include64, clib)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(hip, name)()
    dep = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert dep, f"{name} did not warn"
    assert dep[0].filename == __file__, f"warning attributed to {dep[0].filename}:{dep[0].lineno}"


@pytest.mark.runtime
def test_non_deprecated_function_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        hip.hipGetDeviceCount()
        hip.hipRuntimeGetVersion()


# -- callbacks ------------------------------------------------------------------------------------
def _settled_refcount(obj) -> int:
    gc.collect()
    return sys.getrefcount(obj)


@pytest.mark.runtime
def test_stream_callback_failing_call_releases_the_callable():
    def cb(stream, status, data):
        pass
    before = _settled_refcount(cb)
    result = hip.hipStreamAddCallback(None, cb, None, 0)
    assert isinstance(result[0], hip.hipError_t)
    if result[0] is hip.hipError_t.hipSuccess:
        pytest.skip("the call succeeded (a device is present): the callback owns the reference now")
    assert _settled_refcount(cb) == before


@pytest.mark.runtime
def test_host_func_failing_call_releases_the_callable():
    """hipLaunchHostFunc: an error status, or SymbolNotFoundError on runtimes older than the
    headers; either way the callable's reference taken for the C side must be dropped."""
    def fn(data):
        pass
    before = _settled_refcount(fn)
    try:
        result = hip.hipLaunchHostFunc(None, fn, None)
    except pkg.SymbolNotFoundError:
        result = None
    if result is not None and result[0] is hip.hipError_t.hipSuccess:
        pytest.skip("the call succeeded (a device is present)")
    assert _settled_refcount(fn) == before


def test_bad_later_argument_releases_the_callable():
    """The callable is converted before the stream: a bad stream must not leak it."""
    def cb(stream, status, data):
        pass
    before = _settled_refcount(cb)
    with pytest.raises(TypeError):
        hip.hipStreamAddCallback("not a stream", cb, None, 0)
    assert _settled_refcount(cb) == before


@pytest.mark.runtime
def test_user_data_is_not_leaked():
    data = object()
    before = _settled_refcount(data)
    result = hip.hipStreamAddCallback(None, lambda *a: None, data, 0)
    if result[0] is hip.hipError_t.hipSuccess:
        pytest.skip("the call succeeded (a device is present)")
    assert _settled_refcount(data) == before


@pytest.mark.parametrize("bad", [5.0, "callback", b"callback", [1, 2]])
def test_non_callable_callback_raises(bad):
    with pytest.raises(TypeError):
        hip.hipStreamAddCallback(None, bad, None, 0)


@pytest.mark.runtime
def test_c_function_pointer_is_accepted():
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    called = []
    cfn = proto(lambda s, st, d: called.append(st))
    result = hip.hipStreamAddCallback(None, cfn, None, 0)
    assert isinstance(result[0], hip.hipError_t)
    if result[0] is hip.hipError_t.hipSuccess:
        hip.hipStreamSynchronize(None)
        assert called


@pytest.mark.gpu
def test_stream_callback_runs():
    done = threading.Event()
    seen = []

    def cb(stream, status, data):
        seen.append((status, data))
        done.set()

    err, stream = hip.hipStreamCreate()
    assert err is hip.hipError_t.hipSuccess
    try:
        pkg.check(hip.hipStreamAddCallback(stream, cb, "payload", 0))
        pkg.check(hip.hipStreamSynchronize(stream))
        assert done.wait(10)
        assert seen == [(hip.hipError_t.hipSuccess, "payload")]
    finally:
        hip.hipStreamDestroy(stream)


@pytest.mark.gpu
def test_host_func_runs():
    done = threading.Event()
    seen = []

    def fn(data):
        seen.append(data)
        done.set()

    if not hip.has_symbol("hipLaunchHostFunc"):
        pytest.skip("runtime has no hipLaunchHostFunc")
    pkg.check(hip.hipLaunchHostFunc(None, fn, 42))
    pkg.check(hip.hipDeviceSynchronize())
    assert done.wait(10)
    assert seen == [42]
