"""File names of the HIP-on-CUDA layer (codegen.nvidia): the one place they are decided.

The loader (hip/_loader.pyx) finds `hip/_nvidia/libhip-nvidia-<lib>.so` through
these functions, and the generator (codegen/nvidia) names what it builds with
them: it reads this file by path, so it needs neither the compiled package nor
an importable `hip`. Plain Python, no imports.
"""

NVIDIA_DIRNAME = "_nvidia"          # hip/_nvidia/: where build_pkgs.sh builds the layer
_PREFIX, _SUFFIX = "libhip-nvidia-", ".so"


def nvidia_soname(library: str) -> str:
    """The layer's file for HIP library `library`: 'hip' -> 'libhip-nvidia-hip.so'."""
    return f"{_PREFIX}{library}{_SUFFIX}"


def nvidia_library(filename: str):
    """The HIP library a layer file is for ('libhip-nvidia-hipblas.so' -> 'hipblas'), else None."""
    if filename.startswith(_PREFIX) and filename.endswith(_SUFFIX) and len(filename) > len(_PREFIX + _SUFFIX):
        return filename[len(_PREFIX):-len(_SUFFIX)]
    return None
