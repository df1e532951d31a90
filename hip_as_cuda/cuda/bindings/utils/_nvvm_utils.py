"""check_nvvm_compiler_options: HIP has no libNVVM."""
from __future__ import annotations

from collections.abc import Sequence   # not typing: importing it costs milliseconds


def check_nvvm_compiler_options(options: Sequence[str]) -> bool:
    """Whether libNVVM accepts compiler `options` (["-arch=compute_90", "-g"]). Always False on
    the alias: HIP has no NVVM IR compiler (cuda.bindings._internal.nvvm answers 0 for each of its
    functions), and False is what NVIDIA's answers where libNVVM is missing."""
    return False
