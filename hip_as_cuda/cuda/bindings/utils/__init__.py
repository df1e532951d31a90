"""cuda.bindings.utils on HIP: handle addresses, PTX version helpers, the driver version check.

Unlike NVIDIA's, the driver and runtime modules do not register their handle classes here at
import (importing them stays as fast as it is): get_cuda_native_handle recognises the alias's
handle classes itself.
"""
from ._nvvm_utils import check_nvvm_compiler_options
from ._ptx_utils import get_minimal_required_cuda_ver_from_ptx_ver, get_ptx_ver
from ._version_check import warn_if_cuda_major_version_mismatch

__all__ = ["check_nvvm_compiler_options", "get_cuda_native_handle", "get_minimal_required_cuda_ver_from_ptx_ver",
           "get_ptx_ver", "warn_if_cuda_major_version_mismatch"]

# type -> getter(obj) -> int: NVIDIA's registry, kept for code that registers its own types; the
# alias's handle classes are added on first use.
_handle_getters: dict = {}

_HANDLE_MODULES = ("cuda.bindings.driver", "cuda.bindings.runtime")   # as NVIDIA's: not nvrtcProgram


def _add_cuda_native_handle_getter(t: type, getter) -> None:
    _handle_getters[t] = getter


def get_cuda_native_handle(obj) -> int:
    """The address a driver or runtime handle object holds (`CUstream`, `cudaEvent_t`, ...), as
    an int. TypeError for any other object (integer types such as CUdeviceptr included), and for
    subclasses: the type must be the binding's own, as in NVIDIA's."""
    t = type(obj)
    getter = _handle_getters.get(t)
    if getter is None:
        if not _is_handle_class(t):
            raise TypeError("Unknown type: " + str(t))
        getter = _handle_getters[t] = int   # a handle's int() is its address
    return getter(obj)


def _is_handle_class(t: type) -> bool:
    import sys
    if t.__module__ not in _HANDLE_MODULES or t.__name__.startswith("_"):
        return False
    if getattr(sys.modules.get(t.__module__), t.__name__, None) is not t:
        return False   # a class made elsewhere in that module's name
    from hip._pointer import Handle   # loaded already: the driver imports it
    return issubclass(t, Handle)
