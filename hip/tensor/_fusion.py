"""`fuse`: a Python function of element-wise hip.tensor operations as ONE kernel.

    @ht.fuse
    def f(x, y):
        return (x * y + x) * y - x          # one ElementwiseKernel: reads x and y once

    @ht.fuse
    def sq_dev(x, m):
        return ((x - m) ** 2).sum(axis=1)   # one ReductionKernel whose map is the chain

The function is traced once per (array dtypes and ndims, scalar types) with proxy values; the
trace becomes one `ElementwiseKernel` (or one `ReductionKernel` when it ends in a reduction),
cached on the fused object. Inside: the array operators, the element-wise functions of
hip.tensor (`ht.sin`, `ht.add`, ...), `ht.where`, `astype`, `clip` with scalar bounds, Python and
NumPy scalars, and at most one reduction (`sum`, `prod`, `mean`, `max`, `min`, `any`, `all`,
with axis/keepdims) which only scalar operations may follow. Anything else raises TypeError
naming the operation (no silent fallback to eager evaluation).

Results equal eager evaluation exactly, dtype and bits: every step uses the eager function's own
type rules (`_elementwise._Op.resolve`, the `_statistical` helpers) and C++ expression, scalars
are converted on the host as eager does, every intermediate is rounded to its eager dtype, and an
empty inline-asm barrier after each floating value stops the compiler from contracting a multiply
of one operation with an add of the next into an FMA (eager kernels cannot).
"""
from __future__ import annotations

import functools
import hashlib
import re
import sys
import types

import numpy as np

from . import _dtypes as _dt
from . import _elementwise as _ew
from . import _statistical as _st
from ._array import ndarray
from ._elementwise_kernel import ElementwiseKernel, scalar_value
from ._reduction_kernel import ReductionKernel
from ._shapes import broadcast_shapes, normalize_axes, prod

__all__ = ["fuse"]

_PY_SCALARS = (bool, int, float, complex)
_REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")
_SUPPORTED = ("fused functions take hip.tensor's element-wise operations and functions, where, astype, "
              "clip with scalar bounds, Python/NumPy scalars and one final reduction "
              f"({', '.join(_REDUCTIONS)})")

# Empty asm that makes a value opaque to the optimizer: no FMA across two eager operations.
_BARRIER = r"""
#ifndef HT_FUSE_KEEP
#define HT_FUSE_KEEP
template <class T> HT_D void ht_fuse_keep(T&) {}
#if defined(HT_NVIDIA)
HT_D void ht_fuse_keep(float& v) { asm("" : "+f"(v)); }
HT_D void ht_fuse_keep(double& v) { asm("" : "+d"(v)); }
#else
HT_D void ht_fuse_keep(float& v) { asm("" : "+v"(v)); }
HT_D void ht_fuse_keep(double& v) { asm("" : "+v"(v)); }
#endif
template <class T> HT_D void ht_fuse_keep(ht_complex<T>& v) { ht_fuse_keep(v.re); ht_fuse_keep(v.im); }
#endif
"""

_EXPR = re.compile(r"y = ht_cast<Y>\((.*)\);$")


def _op_expr(op) -> str:
    """The C++ expression of an eager element-wise function (in `a`, `b`, computing in `C`)."""
    m = _EXPR.search(op.kernel.operation)
    if m is None:                   # _elementwise changed its kernel template: fuse must follow
        raise RuntimeError(f"ht.fuse cannot read the expression of {op.name} from {op.kernel.operation!r}")
    return m.group(1)


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
    trace = _trace_of((cond, x1, x2))
    if trace is None:
        raise _error("where: no traced operand")
    ops = _Operands(trace, "where", (cond, x1, x2))
    y = ops.result_type(trace, (cond, x1, x2), subset=(1, 2))      # NumPy's: the condition plays no part
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


# -- code generation -------------------------------------------------------------------------------
def _emit(node: _Node, name: str, names: dict) -> str:
    """C++ statements computing `node` into a local `name`, as its eager kernel does."""
    y = node.dtype.ctype
    o = [names[n.id] for n in node.operands]
    if node.kind == "op":
        op, c = node.info
        ct = c.ctype
        loads = f"const {ct} a = ht_cast<{ct}>({o[0]});" + (f" const {ct} b = ht_cast<{ct}>({o[1]});"
                                                            if len(o) > 1 else "")
        return f"{y} {name}; {{ {loads} {name} = ht_cast<{y}>({_op_expr(op)}); }} ht_fuse_keep({name});"
    if node.kind == "cast":
        return f"{y} {name} = ht_cast<{y}>({o[0]}); ht_fuse_keep({name});"
    if node.kind == "where":
        return (f"{y} {name} = ht_cast<bool>({o[0]}) ? ht_cast<{y}>({o[1]}) : ht_cast<{y}>({o[2]}); "
                f"ht_fuse_keep({name});")
    if node.kind == "clip":
        c, has_lo, has_hi = node.info
        ct = c.ctype
        expr, k = "a", 1
        if has_lo:
            expr, k = f"ht_maximum({expr}, ht_cast<{ct}>({o[k]}))", k + 1
        if has_hi:
            expr = f"ht_minimum({expr}, ht_cast<{ct}>({o[k]}))"
        return f"{y} {name}; {{ const {ct} a = ht_cast<{ct}>({o[0]}); {name} = ht_cast<{y}>({expr}); }} " \
               f"ht_fuse_keep({name});"
    raise AssertionError(node.kind)


def _reachable(roots, stop=None) -> list[_Node]:
    """The nodes the roots depend on, in trace order (not looking past `stop`)."""
    seen, stack = {}, list(roots)
    while stack:
        n = stack.pop()
        if n.id not in seen:
            seen[n.id] = n
            if n is not stop:
                stack.extend(n.operands)
    return [seen[k] for k in sorted(seen)]


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _c_name(name: str) -> str:
    s = re.sub(r"\W", "_", name).strip("_") or "f"
    return s if not s[0].isdigit() else "f_" + s


class _Plan:
    """One traced specialization: the kernel and how a call's arguments become its arguments."""

    def __init__(self, trace: _Trace, outs, kernel_name: str):
        self.trace = trace
        self.reduce = trace.reduce
        roots = list(outs)
        pre = [self.reduce.operands[0]] if self.reduce is not None else roots
        chain = _reachable(pre)
        self.arrays = [n for n in chain if n.kind == "in"]                  # kernel array inputs
        post = [n for n in _reachable(roots, self.reduce) if n is not self.reduce] if self.reduce is not None else []
        used = {n.id for n in chain} | {n.id for n in post}
        self.scalar_nodes = [n for n in trace.nodes if n.kind == "scalar" and n.id in used]
        self.int_checks = sorted(trace.int_checks)
        names = {n.id: f"in{k}" for k, n in enumerate(self.arrays)}
        names.update({n.id: f"s{k}" for k, n in enumerate(self.scalar_nodes)})
        params = [f"{n.dtype.name} {names[n.id]}" for n in self.arrays + self.scalar_nodes]
        chain_ids = {n.id for n in chain}
        fin = self.arrays + [n for n in self.scalar_nodes if n.id in chain_ids]     # the chain's inputs
        fargs = ", ".join(names[n.id] for n in fin)
        fparams = ", ".join(f"const {n.dtype.ctype} {names[n.id]}" for n in fin)
        body = []
        for n in chain:
            if n.id not in names:
                names[n.id] = f"t{n.id}"
                body.append("    " + _emit(n, names[n.id], names))
        results = pre
        fname = None
        if self.reduce is None and len(results) > 1:
            outs_c = ", ".join(f"{r.dtype.ctype}& _out{k}" for k, r in enumerate(results))
            text = "\n".join(body) + "\n" + "".join(f"    _out{k} = {names[r.id]};\n"
                                                    for k, r in enumerate(results))
            fdef = f"HT_D void @({fparams}, {outs_c}) {{\n{text}}}\n"
        else:
            r = results[0]
            fdef = f"HT_D {r.dtype.ctype} @({fparams}) {{\n" + "\n".join(body) + f"\n    return {names[r.id]};\n}}\n"
        fname = f"ht_fz_{_digest(fdef)}"
        fdef = fdef.replace("@", fname, 1)
        preamble = _BARRIER + f"#ifndef {fname.upper()}\n#define {fname.upper()}\n{fdef}#endif\n"
        self.out_dtypes = [r.dtype for r in roots]
        if self.reduce is None:
            outs_p = ", ".join(f"{r.dtype.name} out{k}" for k, r in enumerate(results))
            if len(results) == 1:
                operation = f"out0 = {fname}({fargs})"
            else:
                operation = f"{fname}({fargs}, {', '.join(f'out{k}' for k in range(len(results)))})"
            self.kernel = ElementwiseKernel(", ".join(params), outs_p, operation, kernel_name, preamble=preamble)
            self.shape_groups = None
            if len(results) > 1:        # outputs must have one shape (checked per call, from their inputs)
                groups = [tuple(self.arrays.index(n) for n in _reachable([r]) if n.kind == "in") for r in results]
                self.shape_groups = groups if len(set(groups)) > 1 else None
            return
        info = self.reduce.info
        self.axes, self.keepdims, self.name = info["axes"], info["keepdims"], info["name"]
        proto = info["proto"]
        map_expr = re.sub(r"\bx\b", f"{fname}({fargs})", proto.map_expr)
        if post:
            names[self.reduce.id] = "_fz_r"
            lines = [f"Y _fz_r; {{ Y& y = _fz_r; {proto.post_map_expr}; }} ht_fuse_keep(_fz_r);"]
            for n in post:
                if n.id not in names:
                    names[n.id] = f"t{n.id}"
                    lines.append(_emit(n, names[n.id], names))
            final = roots[0]
            post_map = " ".join(lines) + f" out0 = {names[final.id]}"
            out_p = f"{final.dtype.name} out0"
        else:
            post_map, out_p = proto.post_map_expr, "Y y"
        self.bindings = {"A": info["A"], "Y": self.reduce.dtype}
        self.kernel = ReductionKernel(", ".join(params), out_p, map_expr, proto.reduce_expr, post_map,
                                      info["identity"], kernel_name, reduce_type="A", preamble=preamble)

    # -- the call ---------------------------------------------------------------------------------------
    def kernel_args(self, args) -> list:
        for i, d in self.int_checks:
            v = args[i]
            info = _dt.iinfo(d)
            if not info.min <= v <= info.max:
                raise OverflowError(f"Python integer {v} out of bounds for {d.name}")
        kargs = [args[n.info] for n in self.arrays]
        for n in self.scalar_nodes:
            (kind, v), param, exact = self.trace.scalars[n.info]
            if kind == "arg":
                v = args[v]
            if exact is not None:
                v = _exactly(v, exact, param)
            kargs.append(v)
        return kargs

    def __call__(self, args):
        kargs = self.kernel_args(args)
        if self.reduce is None:
            if self.shape_groups is not None:
                shapes = {broadcast_shapes(*[kargs[i].shape for i in g]) for g in self.shape_groups}
                if len(shapes) > 1:
                    raise ValueError(f"ht.fuse: the results have different shapes {sorted(shapes)}; "
                                     "fuse them in separate functions")
            return self.kernel(*kargs)
        if self.name in ("max", "min"):
            shape = broadcast_shapes(*[a.shape for a in kargs[:len(self.arrays)]])
            if prod(shape) == 0 and (not self.axes or prod(shape[a] for a in self.axes) == 0):
                raise ValueError(f"zero-size array to reduction operation {self.name} which has no identity")
        return self.kernel(*kargs, axis=self.axes, keepdims=self.keepdims, _bindings=self.bindings)

    # -- sources, for the compile check without a GPU --------------------------------------------------
    def sources(self) -> list[tuple[str, str]]:
        """(label, kernel body without the prelude) for each layout the kernel can take."""
        dtypes = [n.dtype for n in self.arrays + self.scalar_nodes]
        kinds = ("array",) * len(self.arrays) + ("scalar",) * len(self.scalar_nodes)
        if self.reduce is None:
            from ._elementwise_kernel import spec_for
            out = []
            for label, nd, index in (("contiguous", 0, "unsigned int"), ("strided2", 2, "unsigned int"),
                                     ("strided3-int64", 3, "long long")):
                spec, b = spec_for(self.kernel, dtypes + self.out_dtypes, kinds + ("array",) * len(self.out_dtypes),
                                   nd, index)
                out.append((label, self.kernel.generate(spec, b)[0]))
            return out
        from ._reduction_kernel import spec_for
        out = []
        for label, kn, rn, mode, lane in (("inner", 1, 1, "full", True), ("outer", 2, 1, "full", False),
                                          ("all-pass1", 1, 2, "partial", True), ("all-pass2", 1, 1, "final", True)):
            spec, b = spec_for(self.kernel, dtypes + self.out_dtypes, kn, rn, mode, lane, bindings=self.bindings,
                               kinds=kinds)
            out.append((label, self.kernel.generate(spec, b)[0]))
        return out


def _exactly(v, d: _dt.DType, param: _dt.DType):
    """`v` rounded to `d` on the host (as NumPy converts a scalar to the result dtype), held in
    `param` (d's compute type, where that value is exact)."""
    x = scalar_value(v, d)
    if d is _dt.bfloat16:
        x = _dt.bfloat16_bits_to_float32(np.uint16(x))[()]
    return scalar_value(x, param)


# -- the decorator ---------------------------------------------------------------------------------------
def _arg_key(a):
    if isinstance(a, ndarray):
        return (a._dtype, len(a._shape))
    t = type(a)
    if t in _PY_SCALARS:
        return t
    if isinstance(a, np.generic):
        return _dt.dtype(a.dtype)
    for s in (bool, int, float, complex):       # subclasses (IntEnum, ...) count as their base
        if isinstance(a, s):
            return s
    raise TypeError(f"ht.fuse: arguments are hip.tensor arrays or Python/NumPy scalars, got {type(a).__name__}"
                    + (" (move NumPy data to the device with hip.tensor.asarray)"
                       if isinstance(a, (np.ndarray, list, tuple)) else ""))


class Fused:
    """A fused function: call it as the function (positional arguments); `lower(*specs)` traces
    without running (a spec is an array, a (dtype, ndim) pair, a scalar or a scalar type)."""

    def __init__(self, fn, kernel_name=None):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"ht.fuse takes a Python function, got {type(fn).__name__}")
        self._fn = fn
        self._kernel_name = "ht_fuse_" + _c_name(kernel_name or fn.__name__)
        self._plans: dict = {}
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return f"<ht.fuse {self._fn.__qualname__}: {len(self._plans)} specialization(s)>"

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"ht.fuse({self._fn.__name__}): pass arguments positionally")
        try:
            key = tuple(map(_arg_key, args))
        except TypeError:
            if _trace_of(args) is not None:     # called inside another fused function: inline
                return _retarget(self._fn)(*args)
            raise
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._trace(key)
        return plan(args)

    def lower(self, *specs) -> _Plan:
        """The traced specialization for these argument specs (traces without a device)."""
        key = []
        for s in specs:
            if isinstance(s, tuple) and len(s) == 2:
                key.append((_dt.dtype(s[0]), int(s[1])))
            elif isinstance(s, type) and (s in _PY_SCALARS or issubclass(s, np.generic)):
                key.append(s if s in _PY_SCALARS else _dt.dtype(s))
            else:
                key.append(_arg_key(s))
        key = tuple(key)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._trace(key)
        return plan

    def _trace(self, key) -> _Plan:
        trace = _Trace(self._fn.__name__)
        proxies = []
        for i, k in enumerate(key):
            if isinstance(k, tuple):
                proxies.append(FusedArray(trace, trace.add(_Node("in", k[0], info=i)), k[1], arg=i))
            else:
                proxies.append(FusedScalar(trace, i, k))
        if not any(isinstance(p, FusedArray) for p in proxies):
            raise _error(f"{self._fn.__name__} needs at least one hip.tensor array argument")
        try:
            out = _retarget(self._fn)(*proxies)
        except TypeError as e:
            if "Fused" in str(e) and not str(e).startswith("ht.fuse"):
                raise TypeError(f"ht.fuse({self._fn.__name__}): a traced value reached code that fuse cannot "
                                f"trace ({e}); use hip.tensor's functions (ht.sin(x), hip.tensor.sin, names "
                                "imported from hip.tensor), not NumPy's, nor a module imported inside the "
                                "function") from e
            raise
        outs = out if isinstance(out, tuple) else (out,)
        if not outs or not all(isinstance(o, FusedArray) and o._trace is trace for o in outs):
            raise _error(f"{self._fn.__name__} must return a traced array (or a tuple of them) computed from "
                         f"its array arguments, got {type(out).__name__}")
        if trace.reduce is not None:
            if len(outs) != 1:
                raise _error("a fused function that reduces returns one result")
            if not outs[0]._after_reduce:
                raise _error(f"the result does not come from the reduction {trace.reduce.info['name']}: "
                             "a fused reduction returns the reduction (or scalar operations on it)")
        return _Plan(trace, [o._node for o in outs], self._kernel_name)


def fuse(fn=None, *, kernel_name=None):
    """Fuse a function of element-wise hip.tensor operations (and one final reduction) into one
    kernel (see the module docstring): `@ht.fuse` or `@ht.fuse(kernel_name="name")`."""
    if fn is None:
        return lambda f: Fused(f, kernel_name)
    return Fused(fn, kernel_name)
