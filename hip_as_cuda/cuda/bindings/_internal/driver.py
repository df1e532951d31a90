"""The driver's function availability (NVIDIA's main branch moved it here from _bindings.cydriver)."""
from ._availability import Inspector, bridged_module

_inspector = Inspector(lambda: bridged_module("driver"))


def _inspect_function_pointers() -> dict:
    """{'__cuInit': 1, ...}: 1 for each CUDA driver function the alias runs on HIP here, else 0."""
    return _inspector.all()


def _inspect_function_pointer(name) -> int:
    """1 if the alias runs driver function `name` ('__cuGetErrorString') on HIP here, else 0."""
    return _inspector.one(name)
