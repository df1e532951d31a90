"""The tracing half of `ht.fuse`: proxy values (`FusedArray`, `FusedScalar`) that record each
operation of a fused function as a node of a `_Trace`, with eager evaluation's type rules
(`_api.elementwise._OPS[...].resolve`, `_core.dtypes.result_type`, the `_api.statistical` helpers), so that
every node carries the dtype eager evaluation would give it."""
from __future__ import annotations

import numpy as np

from .._api import elementwise as _ew
from .._api import statistical as _st
from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.shapes import normalize_axes

__all__: list[str] = []

_PY_SCALARS = (bool, int, float, complex)
_REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")
_SUPPORTED = ("fused functions take hip.tensor's element-wise operations and functions, where, astype, "
              "clip with scalar bounds, Python/NumPy scalars and one final reduction "
              f"({', '.join(_REDUCTIONS)})")


def _error(msg: str) -> TypeError:
    return TypeError(f"ht.fuse: {msg}")


# -- the trace ------------------------------------------------------------------------------------
class _Node:
    """One value of the trace: kind 'in' (array argument), 'scalar' (a kernel scalar parameter),
    'op', 'cast', 'where', 'clip' or 'reduce'; `dtype` is the dtype eager evaluation gives it."""

    __slots__ = ("kind", "dtype", "operands", "info", "id")

    def __init__(self, kind, dtype, operands=(), info=None):
        self.kind, self.dtype, self.operands, self.info = kind, dtype, tuple(operands), info
        self.id = -1


class _Trace:
    def __init__(self, name: str):
        self.name = name
        self.nodes: list[_Node] = []
        self.scalars: list[tuple] = []          # (source, dtype, conv): source ('arg', i) or ('const', v)
        self._scalar_ids: dict = {}
        self.int_checks: set = set()            # (arg index, dtype): a Python int meeting an integer array
        self.reduce: _Node | None = None

    def add(self, node: _Node) -> _Node:
        node.id = len(self.nodes)
        self.nodes.append(node)
        return node

    def scalar(self, source, value, dtype: _dt.DType, exact: bool = False) -> _Node:
        """The kernel parameter holding `value` converted as eager converts it to `dtype` (exact:
        rounded to `dtype` on the host, held in its compute type, for where's operands)."""
        key = (source if source[0] == "arg" else ("const", type(value), repr(value)), dtype, exact)
        n = self._scalar_ids.get(key)
        if n is None:
            param = _ew.math_dtype(dtype) if exact else dtype
            self.scalars.append((source, param, dtype if exact else None))
            n = self._scalar_ids[key] = self.add(_Node("scalar", param, info=len(self.scalars) - 1))
        return n


class FusedArray:
    """An array while a fused function is traced: its dtype and ndim are known, its values not."""

    __slots__ = ("_trace", "_node", "dtype", "ndim", "_after_reduce", "_arg")
    __array_ufunc__ = None
    __hash__ = None

    def __init__(self, trace, node, ndim, after_reduce=False, arg=None):
        self._trace, self._node, self.dtype, self.ndim = trace, node, node.dtype, ndim
        self._after_reduce, self._arg = after_reduce, arg

    def __repr__(self):
        return f"<FusedArray {self.dtype.name} {self.ndim}-d (traced by ht.fuse)>"

    def _unknown(self, what, values=True):
        raise _error(f"{what} of a traced array is not known while tracing (a fused function is traced once "
                     "per argument dtypes and ndims" + ("; no data-dependent Python control flow: use ht.where)"
                                                        if values else ")"))

    def __bool__(self): self._unknown("the truth value")
    def __float__(self): self._unknown("float()")
    def __int__(self): self._unknown("int()")
    def __complex__(self): self._unknown("complex()")
    def __index__(self): self._unknown("the index value")
    def __len__(self): self._unknown("len()", False)
    def __iter__(self): self._unknown("iteration", False)
    def __array__(self, *a, **k): self._unknown("a NumPy copy")

    @property
    def shape(self): self._unknown("the shape", False)

    @property
    def size(self): self._unknown("the size", False)

    def __getitem__(self, key):
        raise _error("indexing is not supported inside a fused function; " + _SUPPORTED)

    def __setitem__(self, key, value):
        raise _error("item assignment is not supported inside a fused function; " + _SUPPORTED)

    def __getattr__(self, name):
        raise AttributeError(f"ht.fuse: '{name}' is not supported on a traced array inside a fused function; "
                             + _SUPPORTED)

    # -- methods ----------------------------------------------------------------------------------
    def astype(self, dtype, copy=True):
        return _astype(self, dtype)

    def conj(self):
        return _apply("conj", (self,))

    @property
    def real(self):
        return _apply("real", (self,))

    @property
    def imag(self):
        return _apply("imag", (self,))

    def clip(self, min=None, max=None):
        return _clip(self, min, max)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return _reduce("sum", self, axis, keepdims, dtype)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return _reduce("prod", self, axis, keepdims, dtype)

    def mean(self, axis=None, keepdims=False):
        return _reduce("mean", self, axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return _reduce("max", self, axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return _reduce("min", self, axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return _reduce("any", self, axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return _reduce("all", self, axis, keepdims)

    def var(self, *a, **k):
        raise _error("var is not fused (it needs the mean first); " + _SUPPORTED)

    std = var

    def __matmul__(self, o):
        raise _error("matmul (@) is not element-wise; " + _SUPPORTED)

    __rmatmul__ = __matmul__

    # -- operators: eager's names, eager's rules ---------------------------------------------------
    def __neg__(self): return _apply("negative", (self,))
    def __pos__(self): return _apply("positive", (self,))
    def __abs__(self): return _apply("abs", (self,))
    def __invert__(self): return _apply("bitwise_invert", (self,))


def _binary(name):
    def f(self, o):
        return _apply(name, (self, o))

    def r(self, o):
        return _apply(name, (o, self))
    return f, r


def _no_inplace(symbol):
    def f(self, o):
        raise _error(f"the in-place operator {symbol} is not supported inside a fused function "
                     f"(write x = x {symbol[:-1]} y: fused functions return their results)")
    return f


for _dunder, _name, _sym in (("add", "add", "+"), ("sub", "subtract", "-"), ("mul", "multiply", "*"),
                             ("truediv", "divide", "/"), ("floordiv", "floor_divide", "//"),
                             ("mod", "remainder", "%"), ("pow", "pow", "**"), ("and", "bitwise_and", "&"),
                             ("or", "bitwise_or", "|"), ("xor", "bitwise_xor", "^"),
                             ("lshift", "bitwise_left_shift", "<<"), ("rshift", "bitwise_right_shift", ">>")):
    _f, _r = _binary(_name)
    setattr(FusedArray, f"__{_dunder}__", _f)
    setattr(FusedArray, f"__r{_dunder}__", _r)
    setattr(FusedArray, f"__i{_dunder}__", _no_inplace(_sym + "="))
for _dunder, _name in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                       ("eq", "equal"), ("ne", "not_equal")):
    setattr(FusedArray, f"__{_dunder}__", _binary(_name)[0])


class FusedScalar:
    """A scalar argument while a fused function is traced (its type is known, its value not)."""

    __slots__ = ("_trace", "_arg", "_type")
    __array_ufunc__ = None
    __hash__ = None

    def __init__(self, trace, arg, typ):
        self._trace, self._arg, self._type = trace, arg, typ

    def __repr__(self):
        return f"<FusedScalar {getattr(self._type, '__name__', self._type)} (argument {self._arg}, traced by ht.fuse)>"

    def _only_scalars(self, *a):
        raise _error(f"an operation on scalar argument {self._arg} with no array: compute scalar-only "
                     "expressions outside the fused function and pass the result")

    def __bool__(self):
        raise _error(f"the value of scalar argument {self._arg} is not known while tracing "
                     "(no data-dependent Python control flow: use ht.where)")

    __float__ = __int__ = __index__ = __complex__ = __bool__
    __neg__ = __pos__ = __abs__ = __invert__ = _only_scalars


def _scalar_binary(name):
    def f(self, o):
        if isinstance(o, FusedArray):
            return NotImplemented
        self._only_scalars()
    return f


for _dunder in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift",
                "rshift", "lt", "le", "gt", "ge", "eq", "ne", "matmul"):
    setattr(FusedScalar, f"__{_dunder}__", _scalar_binary(_dunder))
    if _dunder not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(FusedScalar, f"__r{_dunder}__", _scalar_binary(_dunder))
del _dunder, _name, _sym, _f, _r


# -- operations on traced values -----------------------------------------------------------------------
def _trace_of(args):
    t = None
    for a in args:
        if isinstance(a, (FusedArray, FusedScalar)):
            if t is not None and a._trace is not t:
                raise _error("values of two different traces meet (a traced value kept from another call?)")
            t = a._trace
    return t


class _Operands:
    """The operands of one operation: nodes (scalars made parameters later, once the compute
    type is known) and what result_type needs from each, as _elementwise._checked gives it."""

    def __init__(self, trace, name, args):
        self.items, self.types, self.after_reduce, self.arrays = [], [], False, []
        for a in args:
            if isinstance(a, FusedArray):
                self.items.append(("node", a._node))
                self.types.append(a.dtype)
                self.arrays.append(a)
                self.after_reduce |= a._after_reduce
            elif isinstance(a, FusedScalar):
                if isinstance(a._type, _dt.DType):               # a NumPy scalar argument: strong
                    self.items.append(("arg", a._arg))
                    self.types.append(a._type)
                else:
                    self.items.append(("arg", a._arg))
                    self.types.append(a._type(0))                # weak; its range is checked per call
            elif isinstance(a, np.generic) and not isinstance(a, np.ndarray):
                self.items.append(("const", a))
                self.types.append(_dt.dtype(a.dtype))
            elif isinstance(a, _PY_SCALARS):
                self.items.append(("const", a))
                self.types.append(a)
            elif isinstance(a, ndarray):
                raise _error(f"{name}: an array that is not an argument of the fused function "
                             "(pass it as an argument)")
            else:
                raise _error(f"{name}: expected traced arrays or Python/NumPy scalars, got {type(a).__name__}"
                             + (" (move NumPy data to the device with hip.tensor.asarray and pass it as an "
                                "argument)" if isinstance(a, (np.ndarray, list, tuple)) else ""))
        if not self.arrays:
            raise _error(f"{name} has no array operand: compute scalar-only expressions outside the fused "
                         "function and pass the result")
        if self.after_reduce and any(not a._after_reduce for a in self.arrays):
            raise _error(f"{name} combines the result of the reduction with an array: only scalar operations "
                         f"may follow the final reduction ({trace.reduce.info['name']})")
        self.ndim = max(a.ndim for a in self.arrays)

    def result_type(self, trace, args, subset=None) -> _dt.DType:
        """The eager result_type of the operands (all, or the indices in `subset`), recording the
        range checks eager's weak Python ints make."""
        idx = range(len(self.types)) if subset is None else subset
        strong = None
        for i in idx:
            t = self.types[i]
            if isinstance(t, _dt.DType):
                strong = t if strong is None else _dt.promote_types(strong, t)
        for i in idx:
            kind, src = self.items[i]
            if kind == "arg" and type(self.types[i]) is int and strong is not None and strong.kind in "iu":
                trace.int_checks.add((src, strong))
        return _dt.result_type(*[self.types[i] for i in idx])

    def node(self, trace, i, dtype, args, exact=False) -> _Node:
        kind, v = self.items[i]
        if kind == "node":
            return v
        if kind == "arg":
            return trace.scalar(("arg", v), None, dtype, exact)
        return trace.scalar(("const", v), v, dtype, exact)


def _result(trace, node, ops) -> FusedArray:
    return FusedArray(trace, trace.add(node), ops.ndim, ops.after_reduce)


def _apply(name: str, args) -> FusedArray:
    """An eager element-wise function (_elementwise._OPS[name]) on traced operands."""
    trace = _trace_of(args)
    op = _ew._OPS[name]
    ops = _Operands(trace, name, args)
    c, y = op.resolve(ops.result_type(trace, args))
    # eager converts a scalar operand to the compute type C on the host (scalar_value(v, c))
    nodes = [ops.node(trace, i, c, args) for i in range(len(args))]
    return _result(trace, _Node("op", y, nodes, (op, c)), ops)


def _astype(x, dtype) -> FusedArray:
    trace = _trace_of((x,))
    ops = _Operands(trace, "astype", (x,))
    return _result(trace, _Node("cast", _dt.dtype(dtype), [x._node]), ops)


def _where(cond, x1, x2) -> FusedArray:
    """Eager where's rules (_searching.where): an array condition of any dtype, the result
    result_type(x1, x2), scalar operands converted to it on the host (scalar_value(v, y))."""
    if not isinstance(cond, FusedArray):
        raise TypeError(f"where: expected a hip.tensor array, got {type(cond).__name__}")
    trace = _trace_of((cond, x1, x2))
    ops = _Operands(trace, "where", (cond, x1, x2))
    y = ops.result_type(trace, (cond, x1, x2), subset=(1, 2))
    nodes = [ops.node(trace, 0, _dt.bool, None), ops.node(trace, 1, y, None, exact=True),
             ops.node(trace, 2, y, None, exact=True)]
    return _result(trace, _Node("where", y, nodes), ops)


def _clip(x, lo, hi) -> FusedArray:
    """Eager clip's rules: x's dtype, computed in math_dtype(x); bounds are scalars here."""
    if not isinstance(x, FusedArray):
        raise _error(f"clip: x must be a traced array, got {type(x).__name__}")
    trace = x._trace
    if x.dtype.kind == "c":
        raise TypeError("clip is not defined for complex inputs")
    bounds = [v for v in (lo, hi) if v is not None]
    for v in bounds:
        if isinstance(v, FusedArray):
            raise _error("clip with array bounds is not fused (its shape check needs the shapes): "
                         "use ht.minimum/ht.maximum")
    ops = _Operands(trace, "clip", (x, *bounds))
    c = _ew.math_dtype(x.dtype)
    nodes = [x._node] + [ops.node(trace, i + 1, c, None) for i in range(len(bounds))]
    return _result(trace, _Node("clip", x.dtype, nodes, (c, lo is not None, hi is not None)), ops)


def _reduce(name: str, x, axis, keepdims, dtype=None) -> FusedArray:
    """The one reduction of a fused function, with _statistical's type rules."""
    if not isinstance(x, FusedArray):
        raise _error(f"{name}: expected a traced array, got {type(x).__name__}")
    trace = x._trace
    if trace.reduce is not None:
        raise _error(f"{name} after {trace.reduce.info['name']}: a fused function holds one reduction, "
                     "its last array operation")
    axes = normalize_axes(axis, x.ndim)
    d = x.dtype
    if name in ("sum", "prod"):
        y = _st._sum_dtype(d, dtype)
        a, proto = _ew.math_dtype(y), (_st._sum_k if name == "sum" else _st._prod_k)
        identity = proto.identity
    elif name == "mean":
        y = _st._float_of(d)
        a, proto, identity = _ew.math_dtype(y), _st._mean_k, _st._mean_k.identity
    elif name in ("max", "min"):
        if d.kind == "c":
            raise TypeError(f"{name} is not defined for complex arrays")
        y, a = d, _ew.math_dtype(d)
        proto = _st._max_k if name == "max" else _st._min_k
        identity = _st._limit(d, name == "max")
    else:
        y = a = _dt.bool
        proto = _st._any_k if name == "any" else _st._all_k
        identity = proto.identity
    ndim = x.ndim if keepdims else x.ndim - len(axes)
    node = trace.add(_Node("reduce", y, [x._node], dict(name=name, axes=axes, keepdims=bool(keepdims),
                                                            A=a, proto=proto, identity=identity)))
    trace.reduce = node
    return FusedArray(trace, node, ndim, True)
