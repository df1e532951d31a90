"""Python callables as C callbacks (hipStreamAddCallback, hipLaunchHostFunc, ...).

The generated trampoline receives a context tuple (callable, user_data, once)
through the C user-data pointer and calls the Python function with the GIL.
"""
import sys


def callback_context(fn, data, once: bool):
    """A context tuple for a Python callable, or None when `fn` is a raw C function address."""
    if fn is None or isinstance(fn, int):
        return None
    from hip._pointer import Pointer
    if isinstance(fn, Pointer):
        return None
    ct = sys.modules.get("ctypes")
    if ct is not None and isinstance(fn, ct._CFuncPtr):
        return None
    if not callable(fn):
        raise TypeError(f"expected a callable or a C function address, got {type(fn).__name__}")
    return (fn, data, once)


def unraisable(exc: BaseException, fn) -> None:
    """An exception in a callback cannot propagate into C: report it like Python does."""
    # sys.UnraisableHookArgs cannot be built from Python; hooks read these five attributes.
    from types import SimpleNamespace
    sys.unraisablehook(SimpleNamespace(exc_type=type(exc), exc_value=exc, exc_traceback=exc.__traceback__,
                                       err_msg=f"Exception in HIP callback {fn!r}", object=fn))


def deprecated(message: str) -> None:
    import warnings   # imported on first use: keeps `import hip.hip` fast
    # Cython functions have no frame of their own: level 2 is the caller of the hip function.
    warnings.warn(message, DeprecationWarning, stacklevel=2)
