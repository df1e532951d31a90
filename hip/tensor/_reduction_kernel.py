"""`ReductionKernel`: reductions over any axes from C++ snippets, in CuPy's style.

    sum_sq = ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_sq")
    sum_sq(x, axis=(0, 2), keepdims=True)

`map_expr` maps the inputs to a value of the reduce type (`reduce_type`, default the first
output's type), `reduce_expr` combines two such values `a` and `b`, `post_map_expr` stores the
result `a` into the outputs; `identity` is the reduce type's neutral value (None: the reduction
starts from the first element, and an empty reduction raises). In the snippets, `_in_ind.size()`
and `_out_ind.size()` are the input and output element counts, `_type_reduce` the reduce type.

Kernel: the reduced axes and the kept axes are each collapsed to the fewest dimensions; `G`
threads (a power of two) reduce one output, each walking the reduced extent with stride G, then a
tree in shared memory combines the G partials with a barrier per level (no warp-width
assumption). Threads of a group are adjacent when the reduced axes are the inner ones, interleaved
otherwise, so loads coalesce either way. When the outputs are too few to fill the device, the
reduced extent is split over `P` blocks per output and a second pass reduces the P partials.
"""
from __future__ import annotations

import ctypes

import numpy as np

from . import _dtypes
from ._elementwise_kernel import (_IDENT, _common_device, _digest, _ndarray, _on_device, bind_types, grid_for,
                                  is_scalar, parse_params, scalar_value)
from ._kernel_source import PRELUDE
from ._shapes import broadcast_shapes, broadcast_strides, collapse, normalize_axes, prod

__all__ = ["ReductionKernel"]

_INT32_LIMIT = 2 ** 31 - 1
MAX_BLOCK = 256                 # reduction block at most: a power of two (the device may lower it)
_MIN_PER_LANE = 32              # split the reduced extent only where each lane keeps this much work


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


class _RSpec:
    __slots__ = ("types", "kinds", "mem", "kn", "rn", "index", "mode", "lane_major", "reduce", "key")

    def __init__(self, types, kinds, mem, kn, rn, index, mode, lane_major, reduce):
        self.types, self.kinds, self.mem, self.kn, self.rn = types, kinds, mem, kn, rn
        self.index, self.mode, self.lane_major, self.reduce = index, mode, lane_major, reduce
        self.key = (types, kinds, mem, kn, rn, index, mode, lane_major, reduce)


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
        nin, nout = self.nin, self.nout
        if len(args) != nin:
            raise TypeError(f"{self.name}: takes {nin} inputs, got {len(args)} (outputs are allocated)")
        nd = _ndarray()
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
        outs = []
        for p in self.out_params:
            t = p.dtype or bindings.get(p.placeholder)
            if t is None:
                raise TypeError(f"{self.name}: cannot tell the type {p.placeholder} of output {p.name}")
            outs.append(nd._empty(out_shape, t, device_id))
        if M:
            with _on_device(device_id):
                self._run(ins, outs, shape, axes, kept_axes, M, R, rtype, bindings, device_id, stream)
        return outs[0] if nout == 1 else tuple(outs)

    # -- planning and launching ------------------------------------------------------------------
    def _run(self, ins, outs, shape, axes, kept_axes, M, R, rtype, bindings, device_id, stream):
        nd = _ndarray()
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
        mem = tuple(a.dtype.name if isinstance(a, nd) else None for a in ins) + tuple(o.dtype.name for o in outs)

        plan_key = (device_id, M, R, lane_major)
        plan = _plans.get(plan_key)
        if plan is None:
            plan = _plans[plan_key] = _plan(device_id, M, R, lane_major)
        block, G, blocks, P, chunk = plan

        scal = [scalar_value(a, _dtypes.dtype(t)) for a, t, k in zip(ins, types, kinds) if k == "scalar"]
        geometry = [_dims(ck), _dims(cr)]
        counts = [np.int64(M * R), np.int64(M)]
        rsize = rtype.itemsize
        shared = block * rsize + (block if self.identity is None else 0)
        idx = np.uint32 if index == "unsigned int" else np.int64
        if P == 1:
            fn = self._function(device_id, _RSpec(types, kinds, mem, len(ck), len(cr), index, "full",
                                                  lane_major, rtype.name), bindings)
            kargs = self._array_args(ins, types, kstr, rstr) + list(outs) + geometry + \
                [idx(M), idx(R), idx(chunk), np.int32(G)] + counts
            self._launch(fn, (blocks, 1, 1), block, kargs, shared, device_id, stream)
            return
        partial = nd._empty((M, P), rtype, device_id)
        fn = self._function(device_id, _RSpec(types, kinds, mem, len(ck), len(cr), index, "partial",
                                              lane_major, rtype.name), bindings)
        kargs = self._array_args(ins, types, kstr, rstr) + [partial] + geometry + \
            [idx(M), idx(R), idx(chunk), np.int32(G)] + counts
        self._launch(fn, (blocks, P, 1), block, kargs, shared, device_id, stream)
        # second pass: the P partials of each output, contiguous
        cap = _block_cap(device_id)
        G2 = min(cap, _pow2_ceil(P))
        block2 = max(G2, min(cap, G2 * _pow2_ceil(M)))
        per2 = block2 // G2
        fn2 = self._function(device_id, _RSpec(types, kinds, mem, 1, 1, index, "final", True, rtype.name), bindings)
        kargs2 = [partial] + scal + list(outs) + [_dims((M,)), _dims((P,)), idx(M), idx(P), idx(P),
                                                 np.int32(G2)] + counts
        shared2 = block2 * rsize + (block2 if self.identity is None else 0)
        self._launch(fn2, ((M + per2 - 1) // per2, 1, 1), block2, kargs2, shared2, device_id, stream)

    def _array_args(self, ins, types, kstr, rstr):
        nd = _ndarray()
        out, k = [], 0
        for a, t in zip(ins, types):
            if isinstance(a, nd):
                out += [a, _dims(kstr[k]), _dims(rstr[k])]
                k += 1
            else:
                out.append(scalar_value(a, _dtypes.dtype(t)))
        return out

    def _launch(self, fn, grid, block, kargs, shared, device_id, stream):
        from ._device import current_stream
        if stream is None:
            stream = current_stream(device_id)
        fn.launch(grid, (block, 1, 1), kargs, shared, stream)

    def _function(self, device_id, spec: _RSpec, bindings):
        extra = tuple(sorted((k, v.name) for k, v in bindings.items()))
        key = (device_id, spec.key, extra)
        fn = self._functions.get(key)
        if fn is None:
            from . import _compiler
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
        sig, loads, koffs = [], [], []
        params = self.in_params + self.out_params
        final = spec.mode == "final"
        if final:
            sig.append(f"const {ns}::_type_reduce* _part_in")
        for k, (p, t, kind, m) in enumerate(zip(self.in_params, spec.types, spec.kinds, spec.mem)):
            ct = _dtypes.dtype(t).ctype
            if kind == "scalar":
                sig.append(f"{ct} {p.name}")
                continue
            if final:
                continue
            mt = _dtypes.dtype(m).ctype
            sig.append(f"const char* _p{k}, ht_dims<{kn}> _ks{k}, ht_dims<{rn}> _rs{k}")
            koffs.append(k)
            at = f"ht_at<{mt}>(_p{k}, _ko{k} + _ro{k})"
            loads.append(f"const {ct} {p.name} = {at if mt == ct else f'ht_cast<{ct}>({at})'};")
        outs = []
        if spec.mode == "partial":
            sig.append(f"{ns}::_type_reduce* _part_out")
        else:
            for k, (p, t, m) in enumerate(zip(self.out_params, spec.types[self.nin:], spec.mem[self.nin:])):
                ct, mt = _dtypes.dtype(t).ctype, _dtypes.dtype(m).ctype
                sig.append(f"{mt}* _q{k}")
                if ct == mt:
                    outs.append((f"{ct} &{p.name} = _q{k}[_o];", ""))
                else:
                    outs.append((f"{ct} {p.name};", f"_q{k}[_o] = ht_cast<{mt}>({p.name});"))
        sig += [f"ht_dims<{kn}> _kshape", f"ht_dims<{rn}> _rshape", f"{idx} _M", f"{idx} _R", f"{idx} _chunk",
                "int _G", "long long _in_size", "long long _out_size"]

        def unravel(var, n, shape, strides_prefix, offs_prefix, ks):
            if not ks:
                return ""
            return (f"      {{ {idx} _u = {var};\n"
                    f"#pragma unroll\n"
                    f"        for (int _d = {n} - 1; _d >= 0; --_d) {{\n"
                    f"          {idx} _e = ({idx}){shape}.v[_d], _c = _u % _e; _u /= _e;\n"
                    + "".join(f"          {offs_prefix}{k} += (long long)_c * {strides_prefix}{k}.v[_d];\n" for k in ks)
                    + "        } }\n")

        valid = self.identity is None
        init = "_type_reduce _acc;\n      bool _valid = false;" if valid else \
            f"_type_reduce _acc = ht_cast<_type_reduce>({self.identity});"
        combine = ("if (_valid) _acc = _reduce(_acc, _b); else { _acc = _b; _valid = true; }" if valid
                   else "_acc = _reduce(_acc, _b);")
        if final:
            load_b = "const _type_reduce _b = _part_in[(long long)_o * _R + _r];"
            inner = f"    for ({idx} _r = _rb + _lane; _r < _re; _r += _G) {{\n      {load_b}\n      {combine}\n    }}\n"
            kinit = ""
        else:
            kinit = ("      " + " ".join(f"long long _ko{k} = 0;" for k in koffs) + "\n"
                     + unravel("_o", kn, "_kshape", "_ks", "_ko", koffs))
            inner = (f"    for ({idx} _r = _rb + _lane; _r < _re; _r += _G) {{\n"
                     "      " + " ".join(f"long long _ro{k} = 0;" for k in koffs) + "\n"
                     + unravel("_r", rn, "_rshape", "_rs", "_ro", koffs)
                     + "".join(f"      {x}\n" for x in loads)
                     + f"      const _type_reduce _b = ht_cast<_type_reduce>({self.map_expr});\n"
                     f"      {combine}\n    }}\n")
        lstride = "1" if spec.lane_major else "_per"
        if valid:
            tree = (f"    _sdata[_tid] = _acc; _svalid[_tid] = _valid;\n    __syncthreads();\n"
                    f"    for (int _s = _G >> 1; _s > 0; _s >>= 1) {{\n"
                    f"      if (_lane < _s) {{ int _j = _tid + _s * {lstride};\n"
                    f"        if (_svalid[_j]) {{ _sdata[_tid] = _svalid[_tid] ? _reduce(_sdata[_tid], _sdata[_j]) : _sdata[_j];"
                    f" _svalid[_tid] = true; }} }}\n"
                    f"      __syncthreads();\n    }}\n")
        else:
            tree = (f"    _sdata[_tid] = _acc;\n    __syncthreads();\n"
                    f"    for (int _s = _G >> 1; _s > 0; _s >>= 1) {{\n"
                    f"      if (_lane < _s) _sdata[_tid] = _reduce(_sdata[_tid], _sdata[_tid + _s * {lstride}]);\n"
                    f"      __syncthreads();\n    }}\n")
        if spec.mode == "partial":
            store = "      _part_out[(long long)_o * gridDim.y + blockIdx.y] = _sdata[_tid];\n"
        else:
            store = ("      _type_reduce a = _sdata[_tid];\n"
                     + "".join(f"      {d}\n" for d, _ in outs)
                     + f"      {self.post_map_expr};\n"
                     + "".join(f"      {s}\n" for _, s in outs if s))
        src = (f"{self.preamble}\n"
               f"namespace {ns} {{\n{typedefs}typedef {rt} _type_reduce;\n"
               f"__device__ __forceinline__ _type_reduce _reduce(const _type_reduce& a, const _type_reduce& b) "
               f"{{ return ({self.reduce_expr}); }}\n"
               f"struct _size_t {{ long long n; __device__ long long size() const {{ return n; }} }};\n}}\n"
               f"extern \"C\" __global__ void {fname}({', '.join(sig)}) {{\n"
               f"  using namespace {ns};\n"
               f"  extern __shared__ unsigned char _smem[];\n"
               f"  _type_reduce* _sdata = reinterpret_cast<_type_reduce*>(_smem);\n"
               + (f"  bool* _svalid = reinterpret_cast<bool*>(_sdata + blockDim.x);\n" if valid else "")
               + f"  const _size_t _in_ind = {{_in_size}}, _out_ind = {{_out_size}}; (void)_in_ind; (void)_out_ind;\n"
               f"  const int _tid = threadIdx.x, _per = blockDim.x / _G;\n"
               f"  const int _lane = {'_tid % _G' if spec.lane_major else '_tid / _per'};\n"
               f"  const int _ol = {'_tid / _G' if spec.lane_major else '_tid % _per'};\n"
               f"  const {idx} _o = ({idx})blockIdx.x * _per + _ol;\n"
               f"  const {idx} _rb = ({idx})blockIdx.y * _chunk;\n"
               f"  const {idx} _re = (_R - _rb < _chunk) ? _R : _rb + _chunk;\n"
               f"  {init}\n"
               f"  if (_o < _M) {{\n{kinit}{inner}  }}\n"
               f"{tree}"
               f"  if (_lane == 0 && _o < _M) {{\n"
               + (f"    if (!_svalid[_tid]) return;\n" if valid else "")
               + f"{store}  }}\n}}\n")
        return src, fname


_plans: dict = {}


def _plan(device_id: int, M: int, R: int, lane_major: bool):
    """(block, G threads per output, blocks, P blocks per output, chunk of R per block)."""
    block = _block_cap(device_id)
    if lane_major:
        G = min(block, _pow2_ceil(R))
    else:
        per = min(32, _pow2_ceil(M))
        G = min(block // per, _pow2_ceil(R))
    block = max(G, min(block, G * _pow2_ceil(M)))
    per = block // G
    blocks = (M + per - 1) // per
    target = grid_for(1 << 62, device_id, 1) // 8          # ~4 blocks per multiprocessor
    P = 1
    if blocks < target and R >= 2 * G * _MIN_PER_LANE:
        P = min((target + blocks - 1) // blocks, R // (G * _MIN_PER_LANE), 65535)
    chunk = max(1, (R + P - 1) // P)        # R == 0 (an empty reduced extent): one pass of identities
    P = max(1, (R + chunk - 1) // chunk)
    if len(_plans) > 4096:
        _plans.clear()
    return block, G, blocks, P, chunk


_caps: dict = {}


def _block_cap(device_id: int) -> int:
    """Threads of a reduction block: MAX_BLOCK, or the device's limit if lower (a power of two)."""
    cap = _caps.get(device_id)
    if cap is None:
        from ._device import Device
        limit = Device(device_id).max_threads_per_block
        cap = MAX_BLOCK
        while cap > limit:
            cap //= 2
        _caps[device_id] = cap
    return cap


def _dims(values):
    return (ctypes.c_longlong * len(values))(*values)


def spec_for(kernel: ReductionKernel, dtypes, kn=1, rn=1, mode="full", lane_major=True,
             index="unsigned int", bindings=None, kinds=None):
    """A specialization without arrays (the CPU compile check): `dtypes` per input then output."""
    params = kernel.in_params + kernel.out_params
    b = dict(bindings or {})
    for p, d in zip(params, dtypes):
        if p.placeholder and p.placeholder not in b:
            b[p.placeholder] = _dtypes.dtype(d)
    types = tuple((p.dtype or b[p.placeholder]).name for p in params)
    kinds = tuple(kinds or ("array",) * len(kernel.in_params)) + ("array",) * kernel.nout
    mem = tuple(_dtypes.dtype(d).name if k == "array" else None for d, k in zip(dtypes, kinds))
    return _RSpec(types, kinds, mem, kn, rn, index, mode, lane_major, kernel._reduce_dtype(b).name), b
