"""libNVVM's function availability: HIP has no NVVM IR compiler, so the alias runs none of them
(what NVIDIA's answers where a function is missing: 0; NVIDIA's checks such as
`_inspect_function_pointer("__nvvmCreateProgram") != 0` then take their no-libNVVM path)."""
from ._availability import Inspector

# nvvm.h's functions (CUDA 13).
_NAMES = ("nvvmGetErrorString", "nvvmVersion", "nvvmIRVersion", "nvvmCreateProgram", "nvvmDestroyProgram",
          "nvvmAddModuleToProgram", "nvvmLazyAddModuleToProgram", "nvvmCompileProgram", "nvvmVerifyProgram",
          "nvvmGetCompiledResultSize", "nvvmGetCompiledResult", "nvvmGetProgramLogSize", "nvvmGetProgramLog",
          "nvvmLLVMVersion")

_inspector = Inspector(lambda: {f"__{name}": 0 for name in _NAMES})


def _inspect_function_pointers() -> dict:
    """{'__nvvmCreateProgram': 0, ...}: every libNVVM function, none available on HIP."""
    return _inspector.all()


def _inspect_function_pointer(name) -> int:
    """0 for every libNVVM function `name` ('__nvvmCreateProgram'): HIP has no NVVM."""
    return _inspector.one(name)
