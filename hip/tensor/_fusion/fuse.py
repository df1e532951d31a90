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
type rules (`_api.elementwise._Op.resolve`, the `_api.statistical` helpers) and C++ expression, scalars
are converted on the host as eager does, every intermediate is rounded to its eager dtype, and an
empty inline-asm barrier after each floating value stops the compiler from contracting a multiply
of one operation with an add of the next into an FMA (eager kernels cannot).
"""
from __future__ import annotations

import functools
import hashlib
import re
import types
from collections.abc import Callable

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.shapes import broadcast_shapes, prod
from .._kernels.elementwise import ElementwiseKernel, scalar_value, spec_for as elementwise_spec
from .._kernels.elementwise_source import tile_layout
from .._kernels.reduction import ReductionKernel, spec_for as reduction_spec
from .names import _retarget
from .trace import FusedArray, FusedScalar, _Node, _PY_SCALARS, _Trace, _error, _trace_of

__all__ = ["fuse"]

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

# No multiply-add contraction: every kernel of the layer is compiled without it
# (_compiler.std_options: NVIDIA's ptxas contracted PTX's mul.f32 + add.f32 across the asm barrier,
# and complex products inside one eager operation, on an H100). Nothing fused kernels need more.
OPTIONS = ()

_EXPR = re.compile(r"y = ht_cast<Y>\((.*)\);$")


def _op_expr(op) -> str:
    """The C++ expression of an eager element-wise function (in `a`, `b`, computing in `C`)."""
    m = _EXPR.search(op.kernel.operation)
    if m is None:                   # _elementwise changed its kernel template: fuse must follow
        raise RuntimeError(f"ht.fuse cannot read the expression of {op.name} from {op.kernel.operation!r}")
    return m.group(1)


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
            # one output written unconditionally: the wide-load, tiled layouts apply (not to several
            # outputs, which the operation passes by reference)
            self.kernel = ElementwiseKernel(", ".join(params), outs_p, operation, kernel_name, preamble=preamble,
                                            options=OPTIONS, vectorize=len(results) == 1)
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
                                      info["identity"], kernel_name, reduce_type="A", preamble=preamble,
                                      options=OPTIONS)

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
            out = []
            layouts = [("contiguous", 0, "unsigned int", None), ("strided2", 2, "unsigned int", None),
                       ("strided3-int64", 3, "long long", None)]
            if self.kernel._vectorizable:
                arrays = [n.dtype for n in self.arrays] + self.out_dtypes
                vec = min(8, 16 // max(d.itemsize for d in arrays))
                if vec > 1:
                    layouts.append(("vector", -vec, "unsigned int", None))
                if self.arrays:
                    tiled = (True,) + (False,) * (len(arrays) - 1)
                    layouts.append(("tile", 2, "unsigned int", tile_layout(tiled, False)))
            for label, nd, index, layout in layouts:
                spec, b = elementwise_spec(self.kernel, dtypes + self.out_dtypes,
                                           kinds + ("array",) * len(self.out_dtypes), nd, index, layout=layout)
                out.append((label, self.kernel.generate(spec, b)[0]))
            return out
        out = []
        wide = tuple("c" for _ in self.arrays)
        for label, kn, rn, lane, split, vec in (("inner", 1, 1, True, False, wide), ("outer", 2, 1, False, False, None),
                                                ("all-split", 1, 1, True, True, wide),
                                                ("strided-split", 1, 2, True, True, None)):
            spec, b = reduction_spec(self.kernel, dtypes + self.out_dtypes, kn, rn, lane, split, vec,
                                     bindings=self.bindings, kinds=kinds)
            out.append((label, self.kernel.generate(spec, b)[0]))
        return out


def _exactly(v, d: _dt.DType, param: _dt.DType):
    """`v` rounded to `d` on the host as eager where converts it (scalar_value(v, d)), held in
    `param` (d's compute type, where that value is exact: no 2-byte float parameters)."""
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


def fuse(fn=None, *, kernel_name: str | None = None) -> "Fused | Callable[[Callable], Fused]":
    """Fuse a function of element-wise hip.tensor operations (and one final reduction) into one
    kernel (see the module docstring): `@ht.fuse` or `@ht.fuse(kernel_name="name")`."""
    if fn is None:
        return lambda f: Fused(f, kernel_name)
    return Fused(fn, kernel_name)
