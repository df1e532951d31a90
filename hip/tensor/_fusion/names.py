"""`hip.tensor` as a function traced by `ht.fuse` sees it: the function is re-made with its
globals and closure cells that hold `hip.tensor` (or `hip`, or functions imported from
hip.tensor) pointing at a namespace whose element-wise functions, where, astype, clip and
reductions record into the trace when given traced values; other hip.tensor functions raise
TypeError naming themselves when given traced values; plain Python helper functions are re-made
the same way when called with traced values."""
from __future__ import annotations

import functools
import sys
import types

from .._api import elementwise as _ew
from .trace import _REDUCTIONS, _SUPPORTED, _apply, _astype, _clip, _error, _reduce, _trace_of, _where

__all__: list[str] = []


# -- hip.tensor as a traced function sees it ------------------------------------------------------------
def _ht():
    return sys.modules["hip.tensor"]


def _eager_or(name, traced):
    """`traced` when an argument is a traced value, else hip.tensor's own function."""
    def f(*args, **kwargs):
        if _trace_of(list(args) + list(kwargs.values())) is None:
            return getattr(_ht(), name)(*args, **kwargs)
        return traced(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


def _op_tracer(name):
    nin = _ew._OPS[name].nin

    def traced(*args):
        if len(args) != nin:
            raise TypeError(f"{name}() takes {nin} positional argument{'s' if nin > 1 else ''}, got {len(args)}")
        return _apply(name, args)
    return _eager_or(name, traced)


def _reduction_tracer(name):
    def traced(x, /, *, axis=None, keepdims=False, **kw):
        if set(kw) - ({"dtype"} if name in ("sum", "prod") else set()):
            raise TypeError(f"{name}() got unexpected keyword arguments {sorted(kw)}")
        return _reduce(name, x, axis, keepdims, kw.get("dtype"))
    return _eager_or(name, traced)


def _tracers() -> dict:
    t = {name: _op_tracer(name) for name in _ew._OPS}
    t.update({name: _reduction_tracer(name) for name in _REDUCTIONS})
    t["where"] = _eager_or("where", _where)
    t["astype"] = _eager_or("astype", lambda x, dtype, /, *, copy=True, device=None: _astype(x, dtype))
    t["clip"] = _eager_or("clip", lambda x, /, min=None, max=None: _clip(x, min, max))
    return t


_TRACERS: dict = {}


def _guard(name, fn):
    """A hip.tensor function fuse does not trace: an error naming it when given a traced value."""
    @functools.wraps(fn)
    def f(*args, **kwargs):
        vals = list(args) + list(kwargs.values())
        vals += [v for a in vals if isinstance(a, (list, tuple)) for v in a]
        if _trace_of(vals) is not None:
            raise _error(f"hip.tensor.{name} cannot be fused; " + _SUPPORTED)
        return fn(*args, **kwargs)
    return f


class _TensorNamespace:
    """`hip.tensor` inside a traced function: traced element-wise functions, guarded others."""

    def __getattr__(self, name):
        if not _TRACERS:
            _TRACERS.update(_tracers())
        t = _TRACERS.get(name)
        if t is not None:
            return t
        obj = getattr(_ht(), name)
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
            return _guard(name, obj)
        return obj

    def __repr__(self):
        return "<hip.tensor as seen by ht.fuse while tracing>"


class _HipNamespace:
    """The `hip` package inside a traced function (for code that writes hip.tensor.sin)."""

    def __getattr__(self, name):
        if name == "tensor":
            return _NS
        return getattr(sys.modules["hip"], name)


_NS = _TensorNamespace()
_HIP_NS = _HipNamespace()


def _helper(fn):
    """A Python function called from a traced one: traced the same way when given traced values."""
    @functools.wraps(fn)
    def f(*args, **kwargs):
        if _trace_of(list(args) + list(kwargs.values())) is None:
            return fn(*args, **kwargs)
        return _retarget(fn)(*args, **kwargs)
    return f


def _replacement(v):
    """What a global or free variable `v` of a traced function becomes (None: itself)."""
    if isinstance(v, types.ModuleType):
        if v is sys.modules.get("hip.tensor"):
            return _NS
        if v is sys.modules.get("hip"):
            return _HIP_NS
        return None
    if isinstance(v, types.FunctionType):
        module = getattr(v, "__module__", None) or ""
        if module.startswith("hip.tensor."):
            return getattr(_NS, v.__name__) if getattr(_ht(), v.__name__, None) is v else None
        if module != "hip" and not module.startswith("hip."):
            return _helper(v)
    return None


def _retarget(fn: types.FunctionType) -> types.FunctionType:
    """`fn` with hip.tensor (and names imported from it) in its globals and closure replaced by
    their traced versions."""
    g = fn.__globals__
    new_g = None
    for k, v in g.items():
        r = _replacement(v)
        if r is not None:
            if new_g is None:
                new_g = dict(g)
            new_g[k] = r
    closure = fn.__closure__
    if closure:
        cells = []
        for c in closure:
            try:
                r = _replacement(c.cell_contents)
            except ValueError:          # an empty cell
                r = None
            cells.append(c if r is None else types.CellType(r))
        closure = tuple(cells)
    out = types.FunctionType(fn.__code__, g if new_g is None else new_g, fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__ = fn.__kwdefaults__
    return out
