"""NVRTC's `_inspect_function_pointer(s)` where cuda-bindings 13.0 has them (cuda.bindings._internal.nvrtc)."""
from .._internal.nvrtc import _inspect_function_pointer, _inspect_function_pointers  # noqa: F401
