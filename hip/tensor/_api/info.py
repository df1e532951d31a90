"""The array API's inspection namespace (`__array_namespace_info__`, 2023.12), its version string and
its constants (e, pi, inf, nan, newaxis)."""
from __future__ import annotations

import math

from .._core import device as _device
from .._core import dtypes as _dt

__all__ = ["__array_api_version__", "__array_namespace_info__", "e", "pi", "inf", "nan", "newaxis"]

__array_api_version__ = "2023.12"
e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None


class __array_namespace_info__:
    """What this namespace supports: `capabilities()`, `default_device()`, `devices()`,
    `default_dtypes(device=)`, `dtypes(device=, kind=)` (float16 and bfloat16 included: every dtype
    `hip.tensor` arrays hold, on every device)."""

    __slots__ = ()

    def capabilities(self) -> dict:
        # boolean masks index (_indexing); nonzero/unique give data-dependent shapes
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self) -> _device.Device:
        return _device.Device()

    def devices(self) -> list:
        return [_device.Device(i) for i in range(_device.device_count())]

    def default_dtypes(self, *, device=None) -> dict:
        return {"real floating": _dt.default_float, "complex floating": _dt.default_complex,
                "integral": _dt.default_int, "indexing": _dt.int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        return {d.name: d for d in _dt.ALL if kind is None or _dt.isdtype(d, kind)}
