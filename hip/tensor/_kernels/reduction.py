"""`ReductionKernel`: reductions over any axes from C++ snippets, in CuPy's style.

    sum_sq = ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_sq")
    sum_sq(x, axis=(0, 2), keepdims=True)

`map_expr` maps the inputs to a value of the reduce type (`reduce_type`, default the first
output's type), `reduce_expr` combines two such values `a` and `b`, `post_map_expr` stores the
result `a` into the outputs; `identity` is the reduce type's neutral value (None: the reduction
starts from the first element, and an empty reduction raises). In the snippets, `_in_ind.size()`
and `_out_ind.size()` are the input and output element counts, `_type_reduce` the reduce type.

Kernel: the reduced axes and the kept axes are each collapsed to the fewest dimensions. `G`
threads (lanes, a power of two) reduce one output, each into PACK independent accumulators (memory
parallelism without reordering by the compiler), then a tree in shared memory combines the G lanes
with a barrier per level (no warp-width assumption). Inner layout (reduced axes innermost): lanes
are adjacent and take packs of PACK consecutive elements in turn; where every input is contiguous
(or constant) along the one reduced dimension the pack is one wide load (16 bytes for float32) when
aligned, else PACK scalar loads of the same elements. Outer layout: adjacent threads take adjacent
outputs (coalesced rows) and lanes interleave over the reduced extent. With one reduced dimension
an element's address is a product, never a division. When the outputs are too few to fill the
device, the reduced extent is split over `P` blocks per group of outputs; the last block of a group
to finish (a counter, `__threadfence`) reduces the group's partials: one launch. The plan (M, R,
layout) alone fixes each element's lane and accumulator, so the sum's grouping does not depend on
the loads taken (fused == eager bit for bit).
"""
from __future__ import annotations

import ctypes

import numpy as np

from .._core import dtypes as _dtypes
from .._core import memory as _memory
from .._core.array import ndarray
from .._core.device import Device, Stream, current_stream
from .._core.shapes import broadcast_shapes, broadcast_strides, collapse, normalize_axes, prod
from . import compiler as _compiler
from .elementwise import (_IDENT, _common_device, _digest, _on_device, bind_types, grid_for, is_scalar, parse_params,
                          scalar_dtype, scalar_value)
from .source import PRELUDE

__all__ = ["ReductionKernel"]

_INT32_LIMIT = 2 ** 31 - 1
MAX_BLOCK = 256                 # reduction block at most: a power of two (the device may lower it)
PACK = 4                        # accumulators per thread (inner layout: consecutive elements per load)
OUTER_OUTPUTS = 64              # outer layout: adjacent outputs per block (a row segment per warp/wavefront)
_MIN_PER_LANE = 32              # split the reduced extent only where each lane keeps this much work
_LINE = 128                     # bytes: partials of different groups never share a cache line


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


class _RSpec:
    __slots__ = ("types", "kinds", "mem", "kn", "rn", "index", "lane_major", "split", "vec", "reduce", "key")

    def __init__(self, types, kinds, mem, kn, rn, index, lane_major, split, vec, reduce):
        self.types, self.kinds, self.mem, self.kn, self.rn = types, kinds, mem, kn, rn
        self.index, self.lane_major, self.split, self.vec, self.reduce = index, lane_major, split, vec, reduce
        self.key = (types, kinds, mem, kn, rn, index, lane_major, split, vec, reduce)


class _Call:
    """What a call needs beyond its arguments: output shape and types, the kernel, its launch
    geometry and the arguments that do not change between calls of one signature."""
    __slots__ = ("device_id", "out_shape", "out_types", "fn", "inputs", "grid", "block", "shared", "tail",
                 "split", "gstride", "part_bytes")

    def __init__(self, device_id, out_shape, out_types):
        self.device_id, self.out_shape, self.out_types = device_id, out_shape, out_types
        self.fn, self.inputs, self.split = None, [], False


class ReductionKernel:
    """A typed reduction kernel (see the module docstring)."""

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity, name: str = "reduce", reduce_type: str | None = None,
                 preamble: str = "", options=()):
        if not _IDENT.match(name):
            raise ValueError(f"kernel name {name!r} is not a C identifier")
        self.in_params = parse_params(in_params)
        self.out_params = parse_params(out_params)
        if not self.in_params or not self.out_params:
            raise ValueError("a ReductionKernel needs at least one input and one output parameter")
        if any(p.raw for p in self.in_params + self.out_params):
            raise ValueError("raw parameters are not supported by ReductionKernel")
        for s, what in ((map_expr, "map_expr"), (reduce_expr, "reduce_expr"), (post_map_expr, "post_map_expr")):
            if not isinstance(s, str):
                raise TypeError(f"{what} must be a string of C++")
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = None if identity is None else str(identity)
        self.name, self.preamble, self.options = name, preamble, tuple(options)
        if reduce_type is None:
            p = self.out_params[0]
            reduce_type = p.placeholder or p.dtype.name
        self.reduce_type = reduce_type
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self._functions: dict = {}
        self._calls: dict = {}

    def __repr__(self):
        return f"<ReductionKernel {self.name}>"

    def _reduce_dtype(self, bindings):
        t = bindings.get(self.reduce_type)
        if t is not None:
            return t
        try:
            return _dtypes.dtype(self.reduce_type)
        except TypeError:
            raise TypeError(f"{self.name}: reduce type {self.reduce_type!r} is neither a dtype nor a bound "
                            "placeholder") from None

    def __call__(self, *args, axis=None, keepdims=False, stream=None, _bindings=None):
        nd = ndarray
        try:                    # the per-call path: a call like an earlier one reuses its plan and kernel
            key = (tuple([(a._shape, a._strides, a._dtype, a._device_id, a._ptr & 63) if type(a) is nd
                          else (type(a), p.dtype or scalar_dtype(a)) for p, a in zip(self.in_params, args)]),
                   len(args), axis, keepdims, tuple(_bindings.items()) if _bindings else None)
            call = self._calls.get(key)
        except (TypeError, AttributeError, ValueError):     # odd arguments: the full path says what is wrong
            key = call = None
        if call is None:
            call = self._prepare(args, axis, keepdims, _bindings)
            if key is not None:
                if len(self._calls) > 1024:
                    self._calls.clear()
                self._calls[key] = call
        device_id = call.device_id
        outs = [nd._empty(call.out_shape, t, device_id) for t in call.out_types]
        if call.fn is not None:
            kargs = []
            for a, c in zip(args, call.inputs):
                if type(c) is tuple:
                    kargs += [a, c[0], c[1]]
                else:
                    kargs.append(scalar_value(a, c))
            kargs += outs
            if stream is None:
                stream = current_stream(device_id)
            if call.split:
                part, cnt = _scratch(device_id, stream, call.grid[0], call.part_bytes)
                kargs += [part, cnt, call.gstride]
            kargs += call.tail
            with _on_device(device_id):
                call.fn.launch(call.grid, call.block, kargs, call.shared, stream)
        return outs[0] if self.nout == 1 else tuple(outs)

    # -- planning ---------------------------------------------------------------------------------
    def _prepare(self, args, axis, keepdims, _bindings) -> "_Call":
        """Check the arguments, plan the reduction and compile its kernel: all that depends on the
        arguments' types, shapes, strides and alignment, nothing on their addresses or values."""
        nin = self.nin
        if len(args) != nin:
            raise TypeError(f"{self.name}: takes {nin} inputs, got {len(args)} (outputs are allocated)")
        nd = ndarray
        ins = list(args)
        for p, a in zip(self.in_params, ins):
            if not isinstance(a, nd) and not is_scalar(a):
                raise TypeError(f"{self.name}: argument {p.name} must be a hip.tensor array or a scalar, "
                                f"got {type(a).__name__}")
        if not any(isinstance(a, nd) for a in ins):
            raise TypeError(f"{self.name}: at least one input must be an array")
        bindings = dict(_bindings) if _bindings else {}
        bind_types(self.in_params, ins, bindings)
        rtype = self._reduce_dtype(bindings)
        shape = broadcast_shapes(*[a.shape for a in ins if isinstance(a, nd)])
        axes = normalize_axes(axis, len(shape))
        kept_axes = [d for d in range(len(shape)) if d not in axes]
        kshape = tuple(shape[d] for d in kept_axes)
        rshape = tuple(shape[d] for d in axes)
        out_shape = tuple(1 if d in axes else shape[d] for d in range(len(shape))) if keepdims else kshape
        M, R = prod(kshape), prod(rshape)
        if R == 0 and self.identity is None and M:
            raise ValueError(f"{self.name}: zero-size reduction with no identity")
        device_id = _common_device(ins)
        out_types = []
        for p in self.out_params:
            t = p.dtype or bindings.get(p.placeholder)
            if t is None:
                raise TypeError(f"{self.name}: cannot tell the type {p.placeholder} of output {p.name}")
            out_types.append(t)
        call = _Call(device_id, out_shape, out_types)
        if M:
            with _on_device(device_id):
                self._plan_call(call, ins, out_types, shape, axes, kept_axes, M, R, rtype, bindings, device_id)
        return call

    def _plan_call(self, call, ins, out_types, shape, axes, kept_axes, M, R, rtype, bindings, device_id):
        nd = ndarray
        arrays = [a for a in ins if isinstance(a, nd)]
        bstr = [broadcast_strides(a.shape, a.strides, shape) for a in arrays]
        kshape = tuple(shape[d] for d in kept_axes)
        rshape = tuple(shape[d] for d in axes)
        ck, kstr = collapse(kshape, [tuple(s[d] for d in kept_axes) for s in bstr])
        cr, rstr = collapse(rshape, [tuple(s[d] for d in axes) for s in bstr])
        if not ck:
            ck, kstr = (1,), [(0,) for _ in arrays]
        if not cr:
            cr, rstr = (1,), [(0,) for _ in arrays]
        span = max([M * R] + [abs(s) * d for st in kstr for s, d in zip(st, ck)]
                   + [abs(s) * d for st in rstr for s, d in zip(st, cr)])
        index = "unsigned int" if span <= _INT32_LIMIT else "long long"
        lane_major = abs(rstr[0][-1]) <= abs(kstr[0][-1]) or M == 1
        params = self.in_params + self.out_params
        types = tuple((p.dtype or bindings[p.placeholder]).name for p in params)
        kinds = tuple("array" if isinstance(a, nd) else "scalar" for a in ins) + ("array",) * self.nout
        mem = tuple(a.dtype.name if isinstance(a, nd) else None for a in ins) + tuple(t.name for t in out_types)

        plan_key = (device_id, M, R, lane_major)
        plan = _plans.get(plan_key)
        if plan is None:
            plan = _plans[plan_key] = _plan(device_id, M, R, lane_major)
        block, G, blocks, P, chunk = plan

        # the vector path: every input contiguous (or constant) along the one reduced dimension; whether
        # the loads may be wide (aligned) is a kernel argument, the summation order does not depend on it
        vec, vok = None, 0
        if lane_major and len(cr) == 1:
            forms = tuple("c" if rs[0] == a.itemsize else "0" if rs[0] == 0 else None for a, rs in zip(arrays, rstr))
            if None not in forms and "c" in forms:
                vec, vok = forms, 1
                for a, f, ks in zip(arrays, forms, kstr):
                    w = PACK * a.itemsize
                    if f == "c" and (a.ptr % w or any(s % w for s, d in zip(ks, ck) if d > 1)):
                        vok = 0
        idx = np.uint32 if index == "unsigned int" else np.int64
        call.fn = self._function(device_id, _RSpec(types, kinds, mem, len(ck), len(cr), index, lane_major, P > 1,
                                                   vec, rtype.name), bindings)
        k = 0
        for a, t in zip(ins, types):
            if isinstance(a, nd):
                call.inputs.append((_dims(kstr[k]), _dims(rstr[k])))
                k += 1
            else:
                call.inputs.append(_dtypes.dtype(t))
        call.grid, call.block = (blocks, P, 1), (block, 1, 1)
        call.shared = block * rtype.itemsize + (block if self.identity is None else 0)
        call.tail = [_dims(ck), _dims(cr), idx(M), idx(R), idx(chunk), np.int32(G)] + \
            ([np.int32(vok)] if vec else []) + [np.int64(M * R), np.int64(M)]
        if P > 1:
            per = block // G
            gstride = _round_up(per * P * rtype.itemsize, _LINE) // rtype.itemsize
            call.split, call.gstride, call.part_bytes = True, np.int64(gstride), blocks * gstride * rtype.itemsize

    def _function(self, device_id, spec: _RSpec, bindings):
        extra = tuple(sorted((k, v.name) for k, v in bindings.items()))
        key = (device_id, spec.key, extra)
        fn = self._functions.get(key)
        if fn is None:
            body, fname = self.generate(spec, bindings)
            fn = self._functions[key] = _compiler.compile_module(PRELUDE + "\n" + body, self.options) \
                .get_function(fname)
        return fn

    # -- source ------------------------------------------------------------------------------------
    def generate(self, spec: _RSpec, bindings: dict) -> tuple[str, str]:
        """(kernel source without the prelude, kernel name) for one specialization."""
        digest = _digest(repr((spec.key, sorted((k, v.name) for k, v in bindings.items()))))
        fname = f"{self.name}_{digest}"
        ns = f"ht_ns_{fname}"
        rt = _dtypes.dtype(spec.reduce).ctype
        idx = spec.index
        kn, rn = spec.kn, spec.rn
        typedefs = "".join(f"typedef {v.ctype} {k};\n" for k, v in sorted(bindings.items()))
        sig, arrays = [], []
        for k, (p, t, kind, m) in enumerate(zip(self.in_params, spec.types, spec.kinds, spec.mem)):
            ct = _dtypes.dtype(t).ctype
            if kind == "scalar":
                sig.append(f"{ct} {p.name}")
                continue
            mt = _dtypes.dtype(m).ctype
            sig.append(f"const char* __restrict__ _p{k}, ht_dims<{kn}> _ks{k}, ht_dims<{rn}> _rs{k}")
            arrays.append((k, p.name, ct, mt))
        outs = []
        for k, (p, t, m) in enumerate(zip(self.out_params, spec.types[self.nin:], spec.mem[self.nin:])):
            ct, mt = _dtypes.dtype(t).ctype, _dtypes.dtype(m).ctype
            sig.append(f"{mt}* _q{k}")
            if ct == mt:
                outs.append((f"{ct} &{p.name} = _q{k}[_o];", ""))
            else:
                outs.append((f"{ct} {p.name};", f"_q{k}[_o] = ht_cast<{mt}>({p.name});"))
        if spec.split:
            sig += [f"{ns}::_type_reduce* _part", "unsigned int* _cnt", "long long _gstride"]
        sig += [f"ht_dims<{kn}> _kshape", f"ht_dims<{rn}> _rshape", f"{idx} _M", f"{idx} _R", f"{idx} _chunk",
                "int _G"] + (["int _vok"] if spec.vec else []) + ["long long _in_size", "long long _out_size"]
        valid = self.identity is None

        def combine(acc, ok, b):
            """acc (valid flag ok) absorbs b."""
            if not valid:
                return f"{acc} = _reduce({acc}, {b});"
            return f"if ({ok}) {acc} = _reduce({acc}, {b}); else {{ {acc} = {b}; {ok} = true; }}"

        def element(r, j, loads=None):
            """One element at reduced index `r` into accumulator j, loaded by address (or `loads`)."""
            if loads is None:
                loads = []
                if rn == 1:
                    for k, name, ct, mt in arrays:
                        at = f"ht_at<{mt}>(_b{k}, (long long)({r}) * _rs{k}.v[0])"
                        loads.append(f"const {ct} {name} = {at if mt == ct else f'ht_cast<{ct}>({at})'};")
                else:
                    loads.append(" ".join(f"long long _ro{k} = 0;" for k, *_ in arrays))
                    loads.append(f"{{ {idx} _u = {r};\n#pragma unroll\n"
                                 f"  for (int _d = {rn} - 1; _d >= 0; --_d) {{\n"
                                 f"    {idx} _e = ({idx})_rshape.v[_d], _c = _u % _e; _u /= _e;\n"
                                 + "".join(f"    _ro{k} += (long long)_c * _rs{k}.v[_d];\n" for k, *_ in arrays)
                                 + "  } }")
                    for k, name, ct, mt in arrays:
                        at = f"ht_at<{mt}>(_b{k}, _ro{k})"
                        loads.append(f"const {ct} {name} = {at if mt == ct else f'ht_cast<{ct}>({at})'};")
            return ("{ " + "\n".join(loads)
                    + f"\n  const _type_reduce _b = ht_cast<_type_reduce>({self.map_expr});\n"
                    f"  {combine(f'_a{j}', f'_v{j}', '_b')} }}\n")

        acc_init = (" ".join(f"_type_reduce _a{j}; bool _v{j} = false;" for j in range(PACK)) if valid else
                    " ".join(f"_type_reduce _a{j} = ht_cast<_type_reduce>({self.identity});" for j in range(PACK)))
        bases = "".join(f"    const char* _b{k} = _p{k} + _ko{k};\n" for k, *_ in arrays)
        kinit = ("    " + " ".join(f"long long _ko{k} = 0;" for k, *_ in arrays) + "\n"
                 + (f"    {{ {idx} _u = _o;\n#pragma unroll\n"
                    f"      for (int _d = {kn} - 1; _d >= 0; --_d) {{\n"
                    f"        {idx} _e = ({idx})_kshape.v[_d], _c = _u % _e; _u /= _e;\n"
                    + "".join(f"        _ko{k} += (long long)_c * _ks{k}.v[_d];\n" for k, *_ in arrays)
                    + "    } }\n" if arrays else "") + bases)
        if spec.lane_major:
            # lanes take packs of PACK consecutive elements in turn; element j of a pack goes to accumulator j
            loop = (f"    const {idx} _step = ({idx})_G * {PACK};\n"
                    f"    {idx} _q = _rb + ({idx})_lane * {PACK};\n")
            scalar = (f"    for (; _q + {PACK} <= _re; _q += _step) {{\n"
                      + "".join(element(f"_q + {j}", j) for j in range(PACK)) + "    }\n")
            if spec.vec:
                wide, per_j = [], {j: [] for j in range(PACK)}
                for (k, name, ct, mt), form in zip(arrays, spec.vec):
                    if form == "c":
                        wide.append(f"const ht_vec<{mt}, {PACK}> _w{k} = *reinterpret_cast<const ht_vec<{mt}, {PACK}>*>"
                                    f"(_b{k} + (long long)_q * (long long)sizeof({mt}));")
                        for j in range(PACK):
                            at = f"_w{k}.v[{j}]"
                            per_j[j].append(f"const {ct} {name} = {at if mt == ct else f'ht_cast<{ct}>({at})'};")
                    else:
                        wide.append(f"const {mt} _w{k} = ht_at<{mt}>(_b{k}, 0);")
                        for j in range(PACK):
                            per_j[j].append(f"const {ct} {name} = {f'_w{k}' if mt == ct else f'ht_cast<{ct}>(_w{k})'};")
                loop += (f"    if (_vok) {{\n#pragma unroll 4\n      for (; _q + {PACK} <= _re; _q += _step) {{\n"
                         + "".join(f"      {w}\n" for w in wide)
                         + "".join(element(None, j, per_j[j]) for j in range(PACK))
                         + f"      }}\n    }} else {{\n{scalar}    }}\n")
            else:
                loop += scalar
            loop += (f"    if (_q < _re) {{\n{element('_q', 0)}"
                     f"      if (_q + 1 < _re) {{\n{element('_q + 1', 1)}"
                     f"        if (_q + 2 < _re) {{\n{element('_q + 2', 2)}        }}\n      }}\n    }}\n")
        else:
            # lanes interleave over the reduced extent; the k-th element of a lane goes to accumulator k % PACK
            g = [f"_g{j}" for j in range(PACK)]
            loop = (f"    const {idx} " + ", ".join(f"_g{j} = ({idx})_G * {j}" for j in range(PACK))
                    + f", _step = ({idx})_G * {PACK};\n"
                    f"    {idx} _r = _rb + ({idx})_lane;\n"
                    f"#pragma unroll 2\n    for (; _r + _g{PACK - 1} < _re; _r += _step) {{\n"
                    + "".join(element(f"_r + {g[j]}", j) for j in range(PACK)) + "    }\n"
                    f"    if (_r < _re) {{\n{element('_r', 0)}"
                    f"      if (_r + _g1 < _re) {{\n{element('_r + _g1', 1)}"
                    f"        if (_r + _g2 < _re) {{\n{element('_r + _g2', 2)}        }}\n      }}\n    }}\n")
        merge = ("  _type_reduce _acc = _a0;" + (" bool _valid = _v0;" if valid else "") + "\n"
                 + "".join(f"  {{ {f'if (_v{j}) ' if valid else ''}{{ {combine('_acc', '_valid', f'_a{j}')} }} }}\n"
                           for j in range(1, PACK)))
        lstride = "1" if spec.lane_major else "_per"
        if valid:
            tree = (f"  _sdata[_tid] = _acc; _svalid[_tid] = _valid;\n  __syncthreads();\n"
                    f"  for (int _s = _G >> 1; _s > 0; _s >>= 1) {{\n"
                    f"    if (_lane < _s) {{ int _j = _tid + _s * {lstride};\n"
                    f"      if (_svalid[_j]) {{\n"
                    f"        _sdata[_tid] = _svalid[_tid] ? _reduce(_sdata[_tid], _sdata[_j]) : _sdata[_j];\n"
                    f"        _svalid[_tid] = true; }} }}\n"
                    f"    __syncthreads();\n  }}\n")
        else:
            tree = (f"  _sdata[_tid] = _acc;\n  __syncthreads();\n"
                    f"  for (int _s = _G >> 1; _s > 0; _s >>= 1) {{\n"
                    f"    if (_lane < _s) _sdata[_tid] = _reduce(_sdata[_tid], _sdata[_tid + _s * {lstride}]);\n"
                    f"    __syncthreads();\n  }}\n")
        store = (f"  if (_lane == 0 && _o < _M) {{\n"
                 + ("    if (!_svalid[_tid]) return;\n" if valid else "")
                 + "    _type_reduce a = _sdata[_tid];\n"
                 + "".join(f"    {d}\n" for d, _ in outs)
                 + f"    {self.post_map_expr};\n"
                 + "".join(f"    {s}\n" for _, s in outs if s) + "  }\n")
        if spec.split:
            # each block leaves its partials; the last block of a group of outputs to finish (a counter
            # per group, reset by that block for the next launch on the stream) reduces them in order.
            # Groups' partials start on separate cache lines: no group reads a line cached before it was final.
            finish = (f"  _type_reduce* _pg = _part + (long long)blockIdx.x * _gstride + (long long)_ol * gridDim.y;\n"
                      f"  if (_lane == 0 && _o < _M) _pg[blockIdx.y] = _sdata[_tid];\n"
                      f"  __threadfence();\n  __syncthreads();\n"
                      f"  if (_tid == 0) _ht_last = atomicAdd(_cnt + blockIdx.x, 1u) == gridDim.y - 1;\n"
                      f"  __syncthreads();\n  if (!_ht_last) return;\n"
                      f"  if (_tid == 0) _cnt[blockIdx.x] = 0u;\n  __threadfence();\n"
                      + (f"  _valid = false;\n" if valid else f"  _acc = ht_cast<_type_reduce>({self.identity});\n")
                      + f"  if (_o < _M) for (unsigned int _p = _lane; _p < gridDim.y; _p += _G) {{\n"
                      f"    const _type_reduce _b = _pg[_p];\n    {combine('_acc', '_valid', '_b')}\n  }}\n"
                      + tree)
        else:
            finish = ""
        src = (f"{self.preamble}\n"
               f"namespace {ns} {{\n{typedefs}typedef {rt} _type_reduce;\n"
               f"__device__ __forceinline__ _type_reduce _reduce(const _type_reduce& a, const _type_reduce& b) "
               f"{{ return ({self.reduce_expr}); }}\n"
               f"struct _size_t {{ long long n; __device__ long long size() const {{ return n; }} }};\n}}\n"
               f"extern \"C\" __global__ void {fname}({', '.join(sig)}) {{\n"
               f"  using namespace {ns};\n"
               f"  extern __shared__ unsigned char _smem[];\n"
               + ("  __shared__ bool _ht_last;\n" if spec.split else "")
               + f"  _type_reduce* _sdata = reinterpret_cast<_type_reduce*>(_smem);\n"
               + (f"  bool* _svalid = reinterpret_cast<bool*>(_sdata + blockDim.x);\n" if valid else "")
               + f"  const _size_t _in_ind = {{_in_size}}, _out_ind = {{_out_size}}; (void)_in_ind; (void)_out_ind;\n"
               f"  const int _tid = threadIdx.x, _per = blockDim.x / _G;\n"
               f"  const int _lane = {'_tid % _G' if spec.lane_major else '_tid / _per'};\n"
               f"  const int _ol = {'_tid / _G' if spec.lane_major else '_tid % _per'};\n"
               f"  const {idx} _o = ({idx})blockIdx.x * _per + _ol;\n"
               f"  const {idx} _rb = ({idx})blockIdx.y * _chunk;\n"
               f"  const {idx} _re = (_R - _rb < _chunk) ? _R : _rb + _chunk;\n"
               f"  {acc_init}\n"
               f"  if (_o < _M) {{\n{kinit}{loop}  }}\n"
               f"{merge}{tree}{finish}{store}}}\n")
        return src, fname


_plans: dict = {}
# Blocks per multiprocessor of a reduction split over blocks, measured on an H100 with
# benchmarks/gpu/sweep_reduction.py (PyTorch: 358 and 361 us): the sum of 2^28 float32 took 413/395/366 us
# with 4/8/16 blocks of 256 threads per SM; sum(axis=0) of 16384^2 took 433/501/412/453 us with 4/8/12/16.
SPLIT_BLOCKS_PER_SM = 16
OUTER_SPLIT_BLOCKS_PER_SM = 12


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def _plan(device_id: int, M: int, R: int, lane_major: bool):
    """(block, G lanes per output, blocks, P blocks per output, chunk of R per block).

    The plan alone fixes which thread and accumulator each element reaches, hence the summation
    order: eager and fused reductions of one shape give the same bits whatever their loads."""
    cap = _block_cap(device_id)
    if lane_major:
        G = min(cap, _pow2_ceil(-(-R // PACK)))
    else:
        per = min(OUTER_OUTPUTS, _pow2_ceil(M))
        G = min(cap // per, _pow2_ceil(R))
    block = max(G, min(cap, G * _pow2_ceil(M)))
    per = block // G
    blocks = (M + per - 1) // per
    target = grid_for(1 << 62, device_id, 1) // 32 * (SPLIT_BLOCKS_PER_SM if lane_major else OUTER_SPLIT_BLOCKS_PER_SM)
    P = 1
    if blocks < target and R >= 2 * G * _MIN_PER_LANE:
        P = min((target + blocks - 1) // blocks, R // (G * _MIN_PER_LANE), 65535)
    chunk = max(1, (R + P - 1) // P)        # R == 0 (an empty reduced extent): one pass of identities
    if lane_major:
        chunk = _round_up(chunk, PACK)      # packs stay aligned with the start of each output's run
    P = max(1, (R + chunk - 1) // chunk)
    if len(_plans) > 4096:
        _plans.clear()
    return block, G, blocks, P, chunk


_caps: dict = {}


def _block_cap(device_id: int) -> int:
    """Threads of a reduction block: MAX_BLOCK, or the device's limit if lower (a power of two)."""
    cap = _caps.get(device_id)
    if cap is None:
        limit = Device(device_id).max_threads_per_block
        cap = MAX_BLOCK
        while cap > limit:
            cap //= 2
        _caps[device_id] = cap
    return cap


_scratches: dict = {}
_MAX_SCRATCHES = 8


def _scratch(device_id: int, stream, groups: int, part_bytes: int):
    """(partials, counters) of a split reduction on `stream`: kept per stream (kernels of one stream
    run in order) for a few streams at a time, the counters zeroed once and left zero by every
    launch; grown on demand (a few KiB for a full reduction)."""
    if isinstance(stream, Stream):
        key = (device_id, stream.uid)
    else:                               # a raw handle: from_handle makes a new uid per call
        key, stream = (device_id, "handle", int(stream)), Stream.from_handle(int(stream), device_id)
    s = _scratches.get(key)
    if s is None or s[0].size < part_bytes or s[1].size < 4 * groups:
        if s is not None:
            part_bytes, groups = max(part_bytes, s[0].size), max(groups, s[1].size // 4)
        _scratches.pop(key, None)
        if len(_scratches) >= _MAX_SCRATCHES:       # the oldest goes (its memory holds its stream alive);
            _scratches.pop(next(iter(_scratches)))  # the pool frees in stream order: in-flight kernels are safe
        cnt = _memory.alloc(4 * groups, stream)
        _memory.memset(cnt, 0, 4 * groups, stream)
        s = _scratches[key] = (_memory.alloc(part_bytes, stream), cnt)
    return s


def _dims(values):
    return (ctypes.c_longlong * len(values))(*values)


def spec_for(kernel: ReductionKernel, dtypes, kn=1, rn=1, lane_major=True, split=False, vec=None,
             index="unsigned int", bindings=None, kinds=None):
    """A specialization without arrays (the CPU compile check): `dtypes` per input then output;
    `vec` ('c' contiguous or '0' constant per array input) asks for the wide-load path."""
    params = kernel.in_params + kernel.out_params
    b = dict(bindings or {})
    for p, d in zip(params, dtypes):
        if p.placeholder and p.placeholder not in b:
            b[p.placeholder] = _dtypes.dtype(d)
    types = tuple((p.dtype or b[p.placeholder]).name for p in params)
    kinds = tuple(kinds or ("array",) * len(kernel.in_params)) + ("array",) * kernel.nout
    mem = tuple(_dtypes.dtype(d).name if k == "array" else None for d, k in zip(dtypes, kinds))
    if vec is not None:
        vec = tuple(vec)
    return _RSpec(types, kinds, mem, kn, rn, index, lane_major, split, vec, kernel._reduce_dtype(b).name), b
