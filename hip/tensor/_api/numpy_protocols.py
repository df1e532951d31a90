"""NumPy's override protocols on hip.tensor arrays, as CuPy has them: `__array_ufunc__` (NEP 13)
and `__array_function__` (NEP 18, and NEP 35's `like=`). `np.sin(x)`, `np.add(x, 1, out=y)`,
`np.concatenate([x, y])`, `np.linalg.solve(a, b)` or `np.ones(3, like=x)` with hip.tensor arrays run
hip.tensor's function on the GPU and return hip.tensor arrays.

One table maps what NumPy passes (a ufunc or an API function object) to hip.tensor's callable. It is
derived from what hip.tensor exports, at first use: for each overridable NumPy object of `numpy`,
`numpy.linalg` and `numpy.fft`, the hip.tensor function of the same module and of its NumPy name
(`np.sum` -> `ht.sum`), else the ndarray method of that name (`np.transpose` -> `x.transpose`),
else the hip.tensor function under one of NumPy's aliases of the object (`np.arccos` is `np.acos`
-> `ht.acos`; `np.concatenate` is `np.concat` -> `ht.concat`). NumPy's arguments are bound to
NumPy's signature and passed on by position or name; an argument hip.tensor's function lacks is
dropped when it has NumPy's default value and is a TypeError otherwise; a `dtype=` hip.tensor's
function lacks casts the array operands first (NumPy computes in it). Arguments left out take
NumPy's defaults where they differ from hip.tensor's (`np.add.reduce` sums over axis 0).
`out=` is written after the call, with NumPy's same_kind rule. What the table lacks, and ufunc
methods hip.tensor has no counterpart for (`reduceat`, `at`, `maximum.accumulate`, ...), return
NotImplemented: NumPy then raises its TypeError.
"""
from __future__ import annotations

import ast
import builtins
import inspect

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray, ops, register
from .._core.shapes import broadcast_shapes
from .elementwise import _same_kind

__all__: list = []

_P = inspect.Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
_SCALARS = (bool, int, float, complex, np.generic)
_HANDLED = (ndarray, np.ndarray)        # NumPy arrays reach hip.tensor's functions, which refuse them

# NumPy's names for one parameter where the array API (hip.tensor) uses another: NumPy 2 accepts
# both spellings itself (np.std(correction=), np.clip(min=, max=))
_SYNONYMS = {"ddof": "correction", "a_min": "min", "a_max": "max"}

# ufunc methods by the reduction NumPy itself defines them as (np.sum is np.add.reduce, np.cumsum
# np.add.accumulate, ...); an entry whose function hip.tensor lacks is left out of the table
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
           "logical_or": "any"}
_ACCUMULATE = {"add": "cumulative_sum", "multiply": "cumulative_prod"}


class Entry:
    """One NumPy object's hip.tensor counterpart: `target` (a function, or an ndarray method
    taking the array first), with the two signatures the arguments are bound through."""

    __slots__ = ("numpy", "label", "target", "name", "np_sig", "sig", "method")

    def __init__(self, numpy_obj, target, name: str, method: bool = False, label: str | None = None):
        self.numpy, self.target, self.name, self.method = numpy_obj, target, name, method
        self.label = label or _np_name(numpy_obj)
        self.np_sig = signature(numpy_obj)
        self.sig = signature(target)

    def __repr__(self):
        return f"Entry({self.label} -> {self.name})"

    def arguments(self, args, kwargs) -> tuple[list, dict, object]:
        """hip.tensor's (positional, keyword) arguments for NumPy's call, and its `out` (or None)."""
        if self.np_sig is None or self.sig is None:     # no signatures (an old NumPy): CuPy's way
            kwargs = dict(kwargs)
            out = kwargs.pop("out", None)
            return list(args), kwargs, out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return _translate(self, args, kwargs)

    def __call__(self, args, kwargs):
        pos, kw, out = self.arguments(args, kwargs)
        if self.method and not (pos and isinstance(pos[0], ndarray)):
            raise TypeError(f"{self.label}: expected a hip.tensor array first, got "
                            f"{type(pos[0]).__name__ if pos else 'nothing'}")
        result = self.target(*pos, **kw)
        return result if out is None else _store(result, out, self.label)


def signature(f) -> inspect.Signature | None:
    """f's signature; for a C function without a text signature, the one its docstring opens
    with (NumPy's `fromstring(string, dtype=float, count=-1, *, sep, like=None)`), else None."""
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        pass
    name = getattr(f, "__name__", None)
    line = (getattr(f, "__doc__", None) or "").lstrip().partition("\n")[0]
    if not name or not line.startswith(name + "("):
        return None
    try:
        return inspect.Signature(_parameters(ast.parse(f"def _{line[len(name):]}: pass").body[0].args))
    except (SyntaxError, ValueError, AttributeError):
        return None


def _parameters(args: ast.arguments) -> list:
    def value(node):                    # a literal, or a builtin's name (dtype=float)
        return getattr(builtins, node.id) if isinstance(node, ast.Name) else ast.literal_eval(node)

    positional = args.posonlyargs + args.args
    defaults = [_P.empty] * (len(positional) - len(args.defaults)) + [value(d) for d in args.defaults]
    params = [_P(a.arg, _P.POSITIONAL_ONLY if i < len(args.posonlyargs) else _P.POSITIONAL_OR_KEYWORD, default=d)
              for i, (a, d) in enumerate(zip(positional, defaults))]
    if args.vararg:
        params.append(_P(args.vararg.arg, _P.VAR_POSITIONAL))
    params += [_P(a.arg, _P.KEYWORD_ONLY, default=_P.empty if d is None else value(d))
               for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        params.append(_P(args.kwarg.arg, _P.VAR_KEYWORD))
    return params



def _np_name(obj) -> str:
    mod = getattr(obj, "__module__", None) or "numpy"
    if isinstance(obj, np.ufunc):
        return f"numpy.{obj.__name__}"
    return f"{mod.replace('numpy._core', 'numpy').replace('numpy.linalg._linalg', 'numpy.linalg')}.{obj.__name__}"


def _is_default(value, default) -> bool:
    if value is default:
        return True
    simple = (str, int, float, bool, type(None), tuple)
    return type(value) is type(default) and isinstance(value, simple) and value == default


def _translate(entry: Entry, args, kwargs):
    what = entry.label
    try:
        given = entry.np_sig.bind(*args, **kwargs).arguments
    except TypeError as e:
        # NEP 35's creation functions are C functions taking more positionally than their text
        # signatures say (np.arange(start, stop, step, dtype, like=...)): their keyword-only
        # parameters, in order, may come by position
        try:
            given = _positional(entry.np_sig).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            raise TypeError(f"{what}: {e}") from None
    params = entry.sig.parameters
    n_pos = 0
    for p in params.values():
        if p.kind not in _POSITIONAL:
            break
        n_pos += 1
    var_pos = any(p.kind is _P.VAR_POSITIONAL for p in params.values())
    var_kw = any(p.kind is _P.VAR_KEYWORD for p in params.values())
    pos: list = []
    kw: dict = {}
    out = cast = None

    def keyword(name, value, default):
        nonlocal out, cast
        target = name if name in params else _SYNONYMS.get(name, name)
        hp = params.get(target)
        if hp is not None and hp.kind in (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY):
            kw[target] = value
        elif hp is None and var_kw:
            kw[name] = value
        elif name == "dtype" and value is not None:
            cast = value                    # the type NumPy computes in: the operands cast first
        elif name == "out":
            out = value[0] if isinstance(value, tuple) and len(value) == 1 else value
            if isinstance(out, tuple):
                raise TypeError(f"{what}: hip.tensor takes one output array, got {len(out)}")
        elif name == "kind" and value in ("stable", "mergesort") and "stable" in params:
            kw["stable"] = True             # NumPy's stable kinds are the array API's stable=True
        elif not (_is_default(value, default) or (name == "order" and value == "C")):
            # (hip.tensor makes C-ordered arrays: order='C' asks for what it does)
            accepted = "" if default is _P.empty else f"; only NumPy's default {default!r} is accepted"
            raise TypeError(f"{what}: hip.tensor's {entry.name} has no argument {name!r} "
                            f"(given {_describe(value)}{accepted})")

    for i, (name, p) in enumerate(entry.np_sig.parameters.items()):
        if p.kind is _P.VAR_POSITIONAL:
            values = given.get(name, ())
            if values and (len(pos) != i or not var_pos and len(pos) + len(values) > n_pos):
                raise TypeError(f"{what}: hip.tensor's {entry.name} does not take these arguments")
            pos.extend(values)
        elif p.kind is _P.VAR_KEYWORD:
            for k, v in given.get(name, {}).items():
                keyword(k, v, _P.empty)
        elif name in given:
            value = given[name]
            if p.kind in _POSITIONAL and len(pos) == i and (i < n_pos or var_pos) and name != "out":
                pos.append(value)           # the i-th parameter of both
            else:
                keyword(name, value, p.default)
        elif p.default is not _P.empty and p.default is not None and p.default is not np._NoValue:
            # left out: NumPy's default, where hip.tensor's differs or it has none
            hp = params.get(_SYNONYMS.get(name, name) if name not in params else name)
            if hp is not None and hp.kind in (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY) and \
                    (hp.default is _P.empty or not _is_default(p.default, hp.default)):
                kw[hp.name] = p.default
    if cast is not None:
        pos = [_cast(a, cast, what) for a in pos]
    return pos, kw, out


def _positional(sig: inspect.Signature) -> inspect.Signature:
    return sig.replace(parameters=[p.replace(kind=_P.POSITIONAL_OR_KEYWORD) if p.kind is _P.KEYWORD_ONLY else p
                                   for p in sig.parameters.values()])


def _cast(a, dtype, what: str):
    """An operand cast to NumPy's `dtype=` (NumPy's same_kind rule); sequences element-wise."""
    if isinstance(a, (list, tuple)):
        return type(a)(_cast(x, dtype, what) for x in a)
    if not isinstance(a, ndarray):
        return a
    d = _dt.dtype(dtype)
    if not _same_kind(a.dtype, d):
        raise TypeError(f"{what}: cannot cast {a.dtype.name} to dtype={d.name} (NumPy's same_kind rule)")
    return a.astype(d, copy=False)


def _describe(value) -> str:
    if isinstance(value, (ndarray, np.ndarray)):       # (a repr would copy a device array to the host)
        return f"{'a hip.tensor' if isinstance(value, ndarray) else 'a NumPy'} array of shape {value.shape}"
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


def _store(result, out, what: str):
    """`result` written into NumPy's `out` array (NumPy's same_kind rule, broadcast to out's shape)."""
    if not isinstance(out, ndarray):
        raise TypeError(f"{what}: out must be a hip.tensor array, got {type(out).__name__}")
    if not isinstance(result, ndarray):
        raise TypeError(f"{what}: out= is supported for functions returning one array")
    if not _same_kind(result.dtype, out.dtype):
        raise TypeError(f"{what}: cannot cast the result ({result.dtype.name}) to out's dtype "
                        f"{out.dtype.name} (NumPy's same_kind rule)")
    if broadcast_shapes(result.shape, out.shape) != out.shape:
        raise ValueError(f"{what}: the result's shape {result.shape} does not fit out's {out.shape}")
    out[...] = result
    return out


# -- the table ------------------------------------------------------------------------------------
class Table:
    """What NumPy calls -> hip.tensor: `functions` (ufuncs and API functions, by object),
    `reduce` and `accumulate` (ufunc methods, by ufunc)."""

    def __init__(self, functions: dict, reduce: dict, accumulate: dict):
        self.functions, self.reduce, self.accumulate = functions, reduce, accumulate


_table: Table | None = None


def _exports(mod) -> dict:
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    out = {}
    for n in names:
        f = getattr(mod, n, None)
        if callable(f) and not isinstance(f, type) and str(getattr(f, "__module__", "")).startswith("hip.tensor"):
            out[n] = f
    return out


def _overridable(obj) -> bool:
    """A NumPy object whose calls reach an array's overrides: a ufunc, an array function (NEP 18's
    `_implementation`), or a creation function with NEP 35's `like=`."""
    if isinstance(obj, np.ufunc) or hasattr(obj, "_implementation"):
        return True
    if not callable(obj) or isinstance(obj, type):
        return False
    sig = signature(obj)
    return sig is not None and "like" in sig.parameters


def _methods() -> dict:
    """ndarray's public methods (not properties) by name."""
    return {n: f for n, f in vars(ndarray).items() if not n.startswith("_") and inspect.isfunction(f)}


def build() -> Table:
    """The table, from hip.tensor's exports (ndarray's namespace entry must be registered)."""
    ns = ops.namespace
    functions: dict = {}
    methods = _methods()
    for np_mod, ht_mod, with_methods in ((np, ns, True), (np.linalg, ns.linalg, False), (np.fft, ns.fft, False)):
        exports = _exports(ht_mod)
        names_of: dict = {}                 # id(NumPy object) -> its names in np_mod
        objects: dict = {}
        for n in sorted(dir(np_mod)):
            if n.startswith("_"):
                continue
            obj = getattr(np_mod, n, None)
            if obj is None or not _overridable(obj):
                continue
            names_of.setdefault(id(obj), []).append(n)
            objects[id(obj)] = obj
        for key, obj in objects.items():
            if obj in functions:
                continue
            canonical = getattr(obj, "__name__", None)
            if canonical in exports:
                functions[obj] = Entry(obj, exports[canonical], _qual(ht_mod, canonical))
            elif with_methods and canonical in methods:
                functions[obj] = Entry(obj, methods[canonical], f"ndarray.{canonical}", method=True)
            else:
                alias = next((n for n in names_of[key] if n in exports), None)
                if alias is not None:
                    functions[obj] = Entry(obj, exports[alias], _qual(ht_mod, alias))
    ns_exports = _exports(ns)
    reduce = {}
    accumulate = {}
    for table, names in ((reduce, _REDUCE), (accumulate, _ACCUMULATE)):
        for uname, fname in names.items():
            u = getattr(np, uname)
            method = getattr(u, "reduce" if table is reduce else "accumulate")
            if fname in ns_exports:
                table[u] = Entry(method, ns_exports[fname], f"hip.tensor.{fname}", label=f"numpy.{uname}.{method.__name__}")
    return Table(functions, reduce, accumulate)


def _qual(mod, name: str) -> str:
    return f"{mod.__name__}.{name}"


def table() -> Table:
    global _table
    if _table is None:
        _table = build()
    return _table


# -- the protocols -------------------------------------------------------------------------------
def _operand_ok(x) -> bool:
    return isinstance(x, _HANDLED) or isinstance(x, _SCALARS)


def array_ufunc(ufunc, method: str, inputs: tuple, kwargs: dict):
    """ndarray.__array_ufunc__: NotImplemented for operands or methods hip.tensor does not take."""
    out = kwargs.get("out")
    outs = out if isinstance(out, tuple) else () if out is None else (out,)
    if not all(_operand_ok(x) for x in inputs) or not all(o is None or isinstance(o, _HANDLED) for o in outs):
        return NotImplemented
    t = table()
    if method == "__call__":
        entry = t.functions.get(ufunc)
        return NotImplemented if entry is None else entry(inputs, kwargs)
    if method in ("reduce", "accumulate"):
        entry = (t.reduce if method == "reduce" else t.accumulate).get(ufunc)
        return NotImplemented if entry is None else entry(inputs, kwargs)
    if method == "outer":
        entry = t.functions.get(ufunc)
        if entry is None or ufunc.nin != 2 or len(inputs) != 2:
            return NotImplemented
        a, b = inputs
        if isinstance(a, ndarray) and isinstance(b, ndarray):
            a = a.reshape(a.shape + (1,) * b.ndim)
        return entry((a, b), kwargs)
    return NotImplemented               # reduceat, at


def array_function(func, types, args, kwargs):
    """ndarray.__array_function__: NotImplemented for functions hip.tensor lacks or foreign types."""
    entry = table().functions.get(func)
    if entry is None or not all(issubclass(t, _HANDLED) for t in types):
        return NotImplemented
    return entry(args, kwargs)


register(array_ufunc=array_ufunc, array_function=array_function)
