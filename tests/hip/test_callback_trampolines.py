"""The generated C trampolines that run Python callbacks, driven through a C function pointer.

Without a GPU the runtime never invokes stream callbacks, so these tests call each
trampoline exactly as the runtime would: a C call with the C arguments and the context
pointer the binding passed as user data. (The GPU test in test_callbacks_deprecation.py
covers the runtime calling them.)
"""
import ctypes
import sys

from hip import hip


def _context(fn, data, once):
    ctx = (fn, data, once)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(ctx))   # the reference the C side owns
    return ctx


def test_stream_callback_trampoline_calls_python_and_releases_its_context():
    addr = hip._callback_trampolines["hipStreamCallback_t"]
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    seen = []
    ctx = _context(lambda stream, status, data: seen.append((stream, status, data)), "tag", True)
    before = sys.getrefcount(ctx)
    proto(addr)(0x1234, int(hip.hipError_t.hipErrorNotReady), id(ctx))
    (stream, status, data), = seen
    assert isinstance(stream, hip.ihipStream_t) and int(stream) == 0x1234
    assert status is hip.hipError_t.hipErrorNotReady
    assert data == "tag"
    assert sys.getrefcount(ctx) == before - 1   # one-shot: the C side's reference is dropped


def test_host_fn_trampoline_passes_user_data():
    addr = hip._callback_trampolines["hipHostFn_t"]
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    seen = []
    ctx = _context(lambda data: seen.append(data), {"k": 1}, True)
    proto(addr)(id(ctx))
    assert seen == [{"k": 1}]


def test_exception_in_callback_is_reported_not_raised_into_c():
    addr = hip._callback_trampolines["hipHostFn_t"]
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    def boom(data):
        raise ValueError("from the callback")
    ctx = _context(boom, None, True)
    hooked = []
    old = sys.unraisablehook
    sys.unraisablehook = hooked.append
    try:
        proto(addr)(id(ctx))
    finally:
        sys.unraisablehook = old
    assert len(hooked) == 1 and isinstance(hooked[0].exc_value, ValueError)
