"""The array API's inspection namespace (`__array_namespace_info__`), its version string, its
constants (e, pi, inf, nan, newaxis), and the namespace per requested version.

hip.tensor itself follows 2025.12. `x.__array_namespace__(api_version=V)` gives an earlier version's
behaviour through one table, `CHANGED`: each name whose behaviour a version changed, the version, and
how the versions before it had it (2025.12 made meshgrid, broadcast_arrays and the inspection
namespace's devices() return tuples: lists before). An earlier version's namespace is a module object
that takes every other name from hip.tensor; names added later stay visible in it.
"""
from __future__ import annotations

import functools
import math
import types

from .._core import device as _device
from .._core import dtypes as _dt
from .._core.array import ops, register

__all__ = ["__array_api_version__", "__array_namespace_info__", "e", "pi", "inf", "nan", "newaxis"]

API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
__array_api_version__ = API_VERSIONS[-1]
e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

# the standard's dtypes: what dtypes() lists (float16 and bfloat16 are hip.tensor's own)
_STANDARD = tuple(d for d in _dt.ALL if d not in (_dt.float16, _dt.bfloat16))


class __array_namespace_info__:
    """What this namespace supports: `capabilities()`, `default_device()`, `devices()` (a tuple),
    `default_dtypes(device=)`, `dtypes(device=, kind=)` (the standard's dtypes: hip.tensor.float16
    and hip.tensor.bfloat16 exist beyond them, on every device)."""

    __slots__ = ()

    def capabilities(self) -> dict:
        # boolean masks index (_indexing); nonzero/unique give data-dependent shapes; no rank limit
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> _device.Device:
        return _device.Device()

    def devices(self) -> tuple:
        return tuple(_device.Device(i) for i in range(_device.device_count()))

    def default_dtypes(self, *, device=None) -> dict:
        return {"real floating": _dt.default_float, "complex floating": _dt.default_complex,
                "integral": _dt.default_int, "indexing": _dt.int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        return {d.name: d for d in _STANDARD if kind is None or _dt.isdtype(d, kind)}


def _as_list(f):
    """f returning a list of what it returns (a tuple since 2025.12)."""
    @functools.wraps(f)
    def listed(*args, **kwargs):
        return list(f(*args, **kwargs))
    return listed


class _InfoBefore2025(__array_namespace_info__):
    __slots__ = ()
    devices = _as_list(__array_namespace_info__.devices)


_InfoBefore2025.__name__ = _InfoBefore2025.__qualname__ = "__array_namespace_info__"

# name -> (the version that changed it to hip.tensor's behaviour, what the versions before it have)
CHANGED = {
    "meshgrid": ("2025.12", _as_list),
    "broadcast_arrays": ("2025.12", _as_list),
    "__array_namespace_info__": ("2025.12", lambda _: _InfoBefore2025),
}


class _VersionNamespace(types.ModuleType):
    """hip.tensor as an earlier version of the standard states it (see CHANGED)."""

    def __init__(self, base: types.ModuleType, version: str):
        super().__init__(base.__name__, base.__doc__)
        self._base = base
        self.__array_api_version__ = version
        for name, (since, before) in CHANGED.items():
            if version < since:
                setattr(self, name, before(getattr(base, name)))

    def __getattr__(self, name):
        if name == "_base":             # not set yet (a half-built object, a copy): no recursion
            raise AttributeError(name)
        return getattr(self._base, name)

    def __dir__(self):
        return sorted(set(dir(self._base)) | set(self.__dict__) - {"_base"})

    def __repr__(self):
        return f"<hip.tensor namespace, array API {self.__array_api_version__}>"


_namespaces: dict = {}


def array_namespace(api_version: str | None = None):
    """hip.tensor as the array API version `api_version` states it (None: the newest,
    hip.tensor itself); what `ndarray.__array_namespace__` returns."""
    if api_version is None or api_version == __array_api_version__:
        return ops.namespace
    if api_version not in API_VERSIONS:
        raise ValueError(f"unsupported array API version {api_version!r} (supported: {', '.join(API_VERSIONS)})")
    ns = _namespaces.get(api_version)
    if ns is None:
        ns = _namespaces[api_version] = _VersionNamespace(ops.namespace, api_version)
    return ns


register(array_namespace=array_namespace)
