"""Exceptions shared by every hip module."""

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
    """A call returned an error status: `status` (the enum member; `code` is the same), `name`,
    `message`, `function` (when the caller named it) and `library` ('hip', 'hiprtc', 'hipblas', ...).

    The library errors of hip.tensor (BlasError, FFTError, ...) derive from it: `check(result,
    function, error=BlasError)` raises them.
    """

    def __init__(self, code, message: "str | None" = None, function: "str | None" = None):
        self.code = code
        self.name = getattr(code, "name", str(code))
        self.message = message or self.name
        self.function = function
        self.library = _library_of(code)
        where = f"{function}: " if function else ""
        detail = f": {self.message}" if self.message != self.name else ""
        super().__init__(f"{where}{self.name} ({int(code)}){detail}")

    @property
    def status(self):
        return self.code


def _library_of(status) -> "str | None":
    # Each status enum lives in its library's module (hip.hipblas.hipblasStatus_t -> 'hipblas'),
    # which is also the name LibraryNotFoundError.library gives.
    module = getattr(type(status), "__module__", "") or ""
    return module[4:] if module.startswith("hip.") else None


_describers = {}   # enum class -> callable(code) -> message (hipGetErrorString, ...)
_status_types = set()   # the libraries' status enums (hipError_t, hipblasStatus_t, ...)


def register_status(enum_cls, describe=None) -> None:
    """`enum_cls` is a status type; `describe(code)` gives a status's message."""
    _status_types.add(enum_cls)
    if describe is not None:
        _describers[enum_cls] = describe


def register_describer(enum_cls, fn) -> None:
    register_status(enum_cls, fn)


def status_error(status, function: "str | None" = None, error: type = HipError) -> HipError:
    """The exception (`error`: HipError or a subclass) for a failed call's `status`, with the
    library's description of it as `message` when the library has a describer."""
    describe = _describers.get(type(status))
    msg = None
    if describe is not None:
        try:
            msg = describe(status)
        except Exception:   # the describer needs the library; the status alone still says a lot
            msg = None
    return error(status, msg, function)


def check(result, function: "str | None" = None, error: type = HipError):
    """Turn a `(status, values...)` result into the values, or raise `error` (HipError by default;
    a subclass such as hip.tensor's BlasError) naming `function`.

    `check(hip.hipGetDeviceCount())` -> count; `check(hip.hipMemcpy(...))` -> None;
    several outputs come back as a tuple. A result that does not start with a status (the C
    function returns a value: `hipsparseGetMatType(descr)` -> `(matrix_type,)`) is all values.
    """
    if not isinstance(result, tuple):
        result = (result,)
    first = result[0] if result else 0
    if type(first) in _status_types or (isinstance(first, int) and not hasattr(first, "_name_")):
        status, rest = first, result[1:]
    else:   # a value (bytes, None, an enum that is no status): the C function returned it
        status, rest = 0, result
    if status != 0 and hasattr(status, "_name_"):   # only library status enums
        raise status_error(status, function, error)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest
