"""NVRTC's function availability (cuda-bindings 13.3 moved it here from _bindings.cynvrtc)."""
from ._availability import Inspector, bridged_module

_inspector = Inspector(lambda: bridged_module("nvrtc"))


def _inspect_function_pointers() -> dict:
    """{'__nvrtcVersion': 1, ...}: 1 for each NVRTC function the alias runs on hiprtc here, else 0."""
    return _inspector.all()


def _inspect_function_pointer(name) -> int:
    """1 if the alias runs NVRTC function `name` ('__nvrtcVersion') on hiprtc here, else 0."""
    return _inspector.one(name)
