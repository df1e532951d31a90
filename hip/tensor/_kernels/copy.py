"""The casting copy: the kernel `y = x` between any dtypes and layouts, and the array copy made
with it (ndarray.copy and .astype, through the array's dispatch table)."""
from __future__ import annotations

from .._core.array import ndarray, register
from .._core.device import current_stream
from .._core.dtypes import DType
from .._core.memory import memcpy
from .elementwise import ElementwiseKernel

__all__: list[str] = []


def copy(x: ndarray, dtype: DType) -> ndarray:
    """A C-contiguous copy of `x` as `dtype`: a device memcpy when nothing changes, else the cast kernel."""
    out = ndarray._empty(x.shape, dtype, x.device_id)
    if out.size == 0:
        return out
    if dtype is x.dtype and x.is_c_contiguous:
        memcpy(out.ptr, x.ptr, out.nbytes, "d2d", current_stream(x.device_id))
        return out
    copy_kernel()(x, out)
    return out


_copy_kernel = None


def copy_kernel() -> ElementwiseKernel:
    """The casting copy kernel `y = x` (any dtypes, any layouts)."""
    global _copy_kernel
    if _copy_kernel is None:
        _copy_kernel = ElementwiseKernel("X x", "Y y", "y = ht_cast<Y>(x)", "ht_copy", vectorize=True)
    return _copy_kernel


register(copy=copy)
