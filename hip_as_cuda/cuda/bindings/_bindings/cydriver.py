"""The driver's `_inspect_function_pointer(s)` where cuda-bindings 13.x has them (cuda.bindings._internal.driver)."""
from .._internal.driver import _inspect_function_pointer, _inspect_function_pointers  # noqa: F401
