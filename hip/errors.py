"""Exceptions shared by every hip module."""
from __future__ import annotations


class HipPythonError(Exception):
    """Base of every exception this package raises itself."""


class LibraryNotFoundError(HipPythonError, OSError):
    """A shared library (libamdhip64, libhipblas, ...) could not be loaded.

    `library` is the short name, `tried` the list of (path, reason) attempts.
    """

    def __init__(self, library: str, env: str, tried: list[tuple[str, str]]):
        self.library, self.env, self.tried = library, env, tried
        lines = "\n".join(f"  {p}: {why}" for p, why in tried)
        super().__init__(f"could not load the {library} library; set {env} to its path. Tried:\n{lines}")


class SymbolNotFoundError(HipPythonError, AttributeError):
    """The library loaded but lacks a function (older ROCm than the headers, say)."""

    def __init__(self, symbol: str, path: str):
        self.symbol, self.path = symbol, path
        super().__init__(f"function {symbol} not found in {path} (the library is older than the headers "
                         "the bindings were generated from?)")


class HipError(HipPythonError, RuntimeError):
    """A call returned an error status: `code` (the enum member), `name`, `message`."""

    def __init__(self, code, message: str | None = None, function: str | None = None):
        self.code = code
        self.name = getattr(code, "name", str(code))
        self.message = message or self.name
        self.function = function
        where = f"{function}: " if function else ""
        detail = f": {self.message}" if self.message != self.name else ""
        super().__init__(f"{where}{self.name} ({int(code)}){detail}")


_describers = {}   # enum class -> callable(code) -> message (hipGetErrorString, ...)


def register_describer(enum_cls, fn) -> None:
    _describers[enum_cls] = fn


def check(result):
    """Turn a `(status, values...)` result into the values, or raise HipError.

    `check(hip.hipGetDeviceCount())` -> count; `check(hip.hipMemcpy(...))` -> None;
    several outputs come back as a tuple.
    """
    if isinstance(result, tuple):
        status, rest = (result[0], result[1:]) if result else (0, ())
    else:
        status, rest = result, ()
    if status != 0 and hasattr(status, "_name_"):   # only library status enums
        describe = _describers.get(type(status))
        msg = None
        if describe is not None:
            try:
                msg = describe(status)
            except Exception:   # the describer needs the library; the status alone still says a lot
                msg = None
        raise HipError(status, msg)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest
