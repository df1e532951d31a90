"""Python bindings for AMD's HIP: `from hip import hip, hiprtc`.

Importing loads no shared library; the first call into a module loads its
library. `hip.check(result)` turns a `(status, values...)` tuple into the
values or raises `hip.HipError`.
"""
from hip.errors import HipError, HipPythonError, LibraryNotFoundError, SymbolNotFoundError, check

__version__ = "0.1.0"
__all__ = ["check", "HipError", "HipPythonError", "LibraryNotFoundError", "SymbolNotFoundError", "__version__"]
