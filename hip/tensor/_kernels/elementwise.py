"""`ElementwiseKernel`: typed element-wise kernels from C++ snippets, in CuPy's style.

    add = ElementwiseKernel("T x, T y", "T z", "z = x + y", "add")
    z = add(x, y)                       # broadcasts, allocates z, specializes T per dtype

Parameters are "TYPE name" (or "raw TYPE name": a pointer to the array's first element, indexed
by the operation itself in C order; a non-contiguous array is copied first); TYPE is a dtype name or a placeholder such as `T` bound by the arguments'
dtypes. In the operation, `i` is the flat index and `_ind.size()` the element count.

Each call collapses the broadcast shape to the fewest dimensions and takes a layout from the
strides (no copies; `_kernels.elementwise_source` chooses it, sets the launch geometry and writes the
loop): flat when every array is contiguous, wide loads along the rows for row/column broadcasts,
a shared-memory tile for a transposed operand, else a strided N-d loop. A kernel is generated per
(types, layout, index width), compiled through `_kernels.compiler.compile_module` and cached here per
device; `Function.launch` runs it.
"""
from __future__ import annotations

import ctypes
import hashlib
import re

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import ndarray
from .._core.device import Device, _error, current_stream as _current_stream, get_device_id as _get_device_id, \
    on_device as _on_device
from .._core.dtypes import DType
from .._core.memory import MemoryPointer
from .._core.shapes import broadcast_shapes, broadcast_strides, collapse, is_c_contiguous, memory_extent, prod
from . import compiler as _compiler
from ._elementwise import Launch as _Launch, Signature as _Signature, bind as _bind_hot, call as _call_contiguous
from . import elementwise_source as _src
from .source import PRELUDE

__all__ = ["ElementwiseKernel"]

BLOCK = 256                     # grid_for/launch's block (other kernels of the layer): a multiple of 64
VECTOR_MAX = _src.VECTOR_MAX    # elements per wide load in the vector layouts ...
VECTOR_MIN = _src.VECTOR_MIN    # ... taken from this many elements on (16-byte loads at most)
_INT32_LIMIT = 2 ** 31 - 1
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Param:
    """One kernel parameter: its name, its type (a DType, or a placeholder name) and kind."""

    __slots__ = ("name", "dtype", "placeholder", "raw")

    def __init__(self, name: str, dtype: DType | None, placeholder: str | None, raw: bool):
        self.name, self.dtype, self.placeholder, self.raw = name, dtype, placeholder, raw

    def __repr__(self):
        return f"Param({'raw ' if self.raw else ''}{self.placeholder or self.dtype.name} {self.name})"


def parse_params(text: str) -> tuple[Param, ...]:
    """'T x, raw float32 y' -> Params; ValueError on a malformed list."""
    if not isinstance(text, str):
        raise TypeError(f"parameters are a string such as 'T x, float32 y', got {type(text).__name__}")
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        words = part.split()
        raw = words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2 or not _IDENT.match(words[1]):
            raise ValueError(f"bad parameter {part!r}: expected '[raw] TYPE name'")
        t, name = words
        try:
            if len(t) == 1:             # one letter is a placeholder, never NumPy's type code ('D', 'f')
                raise TypeError
            d = _dtypes.dtype(t)
            out.append(Param(name, d, None, raw))
        except TypeError:
            if not _IDENT.match(t):
                raise ValueError(f"bad type {t!r} in parameter {part!r}") from None
            out.append(Param(name, None, t, raw))
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ValueError(f"repeated parameter name in {text!r}")
    return tuple(out)


def scalar_dtype(v) -> DType:
    """The dtype a scalar argument takes when nothing binds its type (NumPy scalars keep theirs)."""
    if isinstance(v, np.generic):
        return _dtypes.dtype(v.dtype)
    return _dtypes.result_type(v)


def scalar_value(v, d: DType):
    """A Python/NumPy scalar as a NumPy scalar of `d` (bfloat16: its uint16 bits)."""
    t = d.numpy.type
    if type(v) is t and d is not _dtypes.bfloat16:
        return v
    if d is _dtypes.bfloat16:
        return np.uint16(_dtypes.float32_to_bfloat16_bits(np.float32(v.real if isinstance(v, (complex, np.complexfloating))
                                                                      else v))[()])
    if d.kind != "c" and isinstance(v, (complex, np.complexfloating)):
        v = v.real
    if type(v) in (float, int, bool):
        return t(v)
    with np.errstate(over="ignore", invalid="ignore"):
        return t(v)


def bind_types(params, args, bindings: dict) -> dict:
    """Placeholder -> DType from the arrays among `args` (then the scalars for still unbound ones).
    A placeholder bound twice to different dtypes raises TypeError, as CuPy."""
    nd = ndarray
    for p, a in zip(params, args):
        if p.placeholder is None or not isinstance(a, nd):
            continue
        t = bindings.get(p.placeholder)
        if t is None:
            bindings[p.placeholder] = a.dtype
        elif t is not a.dtype:
            raise TypeError(f"type {p.placeholder} is bound to {t.name} and to {a.dtype.name} "
                            f"(parameter {p.name})")
    for p, a in zip(params, args):
        if p.placeholder is not None and a is not None and not isinstance(a, nd) \
                and p.placeholder not in bindings:
            bindings[p.placeholder] = scalar_dtype(a)
    return bindings


def _bind(bindings: dict, p: Param, a) -> None:
    t = bindings.get(p.placeholder)
    if t is None:
        bindings[p.placeholder] = a._dtype
    elif t is not a._dtype:
        raise TypeError(f"type {p.placeholder} is bound to {t.name} and to {a._dtype.name} (parameter {p.name})")


def is_scalar(a) -> bool:
    return isinstance(a, (bool, int, float, complex, np.generic))


class _Spec:
    """What a generated kernel depends on: every parameter's type and kind and the layout
    (`_kernels.elementwise_source`'s layout tuple; by default the one `ndim` stands for)."""

    __slots__ = ("types", "kinds", "mem", "ndim", "index", "layout", "key")

    def __init__(self, types, kinds, mem, ndim, index, layout=None):
        if layout is None:
            layout = _src.default_layout(ndim, [_dtypes.dtype(m).itemsize for m, k in zip(mem, kinds)
                                                if k == "array"])
        self.types, self.kinds, self.mem, self.ndim, self.index, self.layout = types, kinds, mem, ndim, index, layout
        self.key = (types, kinds, mem, index, layout)


def _dims_type(n: int):
    return ctypes.c_longlong * n


class ElementwiseKernel:
    """A typed element-wise kernel over broadcast arrays (see the module docstring)."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel",
                 preamble: str = "", options=(), loop_prep: str = "", after_loop: str = "",
                 vectorize: bool = False):
        if not isinstance(operation, str):
            raise TypeError("operation must be a string of C++")
        if not _IDENT.match(name):
            raise ValueError(f"kernel name {name!r} is not a C identifier")
        self.in_params = parse_params(in_params)
        self.out_params = parse_params(out_params)
        if not self.out_params:
            raise ValueError("an ElementwiseKernel needs at least one output parameter")
        names = [p.name for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise ValueError(f"a parameter name is both an input and an output: {names}")
        if any(p.raw for p in self.out_params):
            raise ValueError("raw output parameters are not supported: pass the array as a raw input")
        self.operation = operation
        self.name = name
        self.preamble = preamble
        self.options = tuple(options)
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self._params = self.in_params + self.out_params
        self._placeholders = {p.placeholder for p in self._params if p.placeholder}
        self._has_raw = any(p.raw for p in self.in_params)
        self._functions: dict = {}
        # The vector path keeps each element in a register and stores every output element: it is
        # for operations that write their outputs unconditionally (`vectorize=True` says so), and
        # never where one reads an output (z += x, z == 0) or takes a parameter's address (&x).
        text = operation + loop_prep + after_loop
        takes_address = any(re.search(rf"&\s*{p.name}\b", text) for p in self.in_params + self.out_params)
        reads_output = any(re.search(rf"\b{p.name}\b(?!\s*=(?!=))", text) or
                           re.search(rf"\b{p.name}\s*(\+|-|\*|/|%|&|\||\^|<<|>>)=", text) for p in self.out_params)
        self._vectorizable = bool(vectorize) and not (takes_address or reads_output)
        self._tileable = not takes_address      # a tiled input's element lives in shared memory

    def __repr__(self):
        return f"<ElementwiseKernel {self.name}>"

    # -- the call ----------------------------------------------------------------------------
    def __call__(self, *args, size=None, stream=None, _bindings=None):
        """Run on `args` (inputs, then optionally outputs); returns the output(s)."""
        nin, nout = self.nin, self.nout
        nargs = len(args)
        if nargs != nin and nargs != nin + nout:
            raise TypeError(f"{self.name}: takes {nin} inputs (and optionally {nout} outputs), got {nargs} arguments")
        nd = ndarray
        outs = list(args[nin:]) if nargs > nin else [None] * nout
        bindings = dict(_bindings) if _bindings else {}
        shapes = []
        devices = set()
        loose = []                   # scalars whose placeholder no array binds
        for p, a in zip(self.in_params, args):
            if isinstance(a, nd):
                if p.placeholder is not None:
                    _bind(bindings, p, a)
                if not p.raw:
                    shapes.append(a._shape)
                devices.add(a._device_id)
            elif is_scalar(a):
                if p.raw:
                    raise TypeError(f"{self.name}: raw argument {p.name} must be an array")
                if p.placeholder is not None:
                    loose.append((p, a))
            else:
                raise TypeError(f"{self.name}: argument {p.name} must be a hip.tensor array or a scalar, "
                                f"got {type(a).__name__}")
        for p, a in zip(self.out_params, outs):
            if a is None:
                continue
            if not isinstance(a, nd):
                raise TypeError(f"{self.name}: output {p.name} must be a hip.tensor array, got {type(a).__name__}")
            if p.placeholder is not None:
                _bind(bindings, p, a)
            shapes.append(a._shape)
            devices.add(a._device_id)
        for p, a in loose:
            if p.placeholder not in bindings:
                bindings[p.placeholder] = scalar_dtype(a)
        if size is not None:
            shapes.append((int(size),))
        shape = broadcast_shapes(*shapes)
        if len(devices) > 1:
            raise ValueError(f"arrays on different devices ({sorted(devices)}): copy them to one with .to_device()")
        if devices:
            device_id = devices.pop()
        else:
            device_id = _get_device_id()
        for k, (p, a) in enumerate(zip(self.out_params, outs)):
            if a is None:
                t = p.dtype or bindings.get(p.placeholder)
                if t is None:
                    raise TypeError(f"{self.name}: cannot tell the type {p.placeholder} of output {p.name}: "
                                    "pass the output array")
                outs[k] = nd._empty(shape, t, device_id)
            elif a._shape != shape:
                raise ValueError(f"{self.name}: output {p.name} has shape {a._shape}, the inputs broadcast to {shape}")
        ins = _resolve_overlap(self.in_params, args[:nin], outs)
        if self._has_raw:           # a raw parameter is indexed by the operation in C order
            ins = [a.copy() if p.raw and not a.flags.c_contiguous else a for p, a in zip(self.in_params, ins)]
        n = prod(shape)
        if n:
            with _on_device(device_id):
                self._launch(ins, outs, shape, n, bindings, device_id, stream)
        return outs[0] if nout == 1 else tuple(outs)

    def _launch(self, ins, outs, shape, n, bindings, device_id, stream):
        """Pick the layout, fetch (or build) the kernel, launch it: the per-call hot path."""
        nd = ndarray
        params = self._params
        args = (*ins, *outs)
        arrays = [a for p, a in zip(params, args) if isinstance(a, nd) and not p.raw]
        if all(a._shape == shape for a in arrays) and all(
                is_c_contiguous(a._shape, a._strides, a._dtype.itemsize) for a in arrays):
            cshape, cstrides, contiguous = (n,), None, True
        else:
            cshape, cstrides = collapse(shape, [broadcast_strides(a._shape, a._strides, shape) for a in arrays])
            contiguous = len(cshape) <= 1 and all((not s) or s[0] == a._dtype.itemsize
                                                  for s, a in zip(cstrides, arrays))
        outs_from = len(arrays) - len(outs)
        layout, cshape, cstrides, grid, block = _src.choose(self, arrays, outs_from, n, contiguous, cshape, cstrides)
        ndim = 0 if contiguous else len(cshape)
        index = "unsigned int" if n <= _INT32_LIMIT else "long long"
        types, kinds, mem = [], [], []
        for p, a in zip(params, args):
            types.append((p.dtype or bindings[p.placeholder]).name)
            if isinstance(a, nd):
                kinds.append("raw" if p.raw else "array")
                mem.append(a._dtype.name)
            else:
                kinds.append("scalar")
                mem.append(None)
        types, kinds, mem = tuple(types), tuple(kinds), tuple(mem)
        extra = tuple(sorted((k, v.name) for k, v in bindings.items() if k not in self._placeholders)) \
            if len(bindings) > len(self._placeholders) else ()
        fn = self._function(device_id, types, kinds, mem, ndim, index, extra, bindings, layout)
        kargs = []
        k = 0
        dims = _dims_type(ndim) if ndim > 0 else None
        for p, a, t in zip(params, args, types):
            if isinstance(a, nd):
                kargs.append(a)
                if dims is not None and not p.raw:
                    kargs.append(dims(*cstrides[k]))
                    k += 1
            else:
                kargs.append(scalar_value(a, _dtypes.dtype(t)))
        if dims is not None:
            kargs.append(dims(*cshape))
        kargs.append(np.uint32(n) if index == "unsigned int" else np.int64(n))
        launch(fn, n, kargs, device_id, stream, block, grid)

    def _function(self, device_id, types, kinds, mem, ndim, index, extra, bindings, layout=None):
        spec = _Spec(types, kinds, mem, ndim, index, layout)
        key = (device_id, spec.key, extra)
        fn = self._functions.get(key)
        if fn is None:
            fn = self._functions[key] = self._compile(spec, bindings)
        return fn

    # -- the fast path: repeat calls on C-contiguous arrays of one shape --------------------------
    def signature(self, args, bindings: dict | None = None) -> "_Signature | None":
        """What every call on inputs of these types (arrays' dtypes, scalars' types) under
        `bindings` shares, for `call_contiguous`; None where the general path must decide (raw
        parameters, bad arguments, unbound types). Made once per signature by the caller."""
        nd = ndarray
        if self._has_raw or len(args) != self.nin:
            return None
        b = dict(bindings) if bindings else {}
        try:
            bind_types(self.in_params, args, b)
        except TypeError:
            return None
        types, kinds, mem, arrays, scalars, outs = [], [], [], [], [], []
        for k, (p, a) in enumerate(zip(self.in_params, args)):
            t = p.dtype or b.get(p.placeholder)
            if t is None:
                return None
            types.append(t.name)
            if isinstance(a, nd):
                kinds.append("array")
                mem.append(a._dtype.name)
                arrays.append(k)
            elif is_scalar(a):
                kinds.append("scalar")
                mem.append(None)
                scalars.append((k, t))
            else:
                return None
        if not arrays:
            return None
        for p in self.out_params:
            t = p.dtype or b.get(p.placeholder)
            if t is None:
                return None
            types.append(t.name)
            kinds.append("array")
            mem.append(t.name)
            outs.append(t)
        extra = tuple(sorted((k, v.name) for k, v in b.items() if k not in self._placeholders)) \
            if len(b) > len(self._placeholders) else ()
        return _Signature(b, (tuple(types), tuple(kinds), tuple(mem)), extra, tuple(arrays), tuple(scalars),
                          tuple(outs))

    def call_contiguous(self, sig: "_Signature", args):
        """Run on inputs of `sig`'s types when they are C-contiguous arrays of one shape on the
        current device (and scalars) with a fresh output: the per-op hot path, in C
        (`_kernels._elementwise`). None (nothing done) otherwise, and the caller takes the
        general path."""
        return _call_contiguous(self, sig, args if type(args) is tuple else tuple(args))

    def _flat_hit(self, sig: "_Signature", arrays, n: int, dev: int) -> "_Launch":
        """The Launch (device, grid, block, Function, count argument) of a call_contiguous on
        `arrays` (inputs then outputs) of n elements: the kernel built or found; kept in
        `sig.layouts` under VECTOR_MIN elements, where the addresses do not matter (one launch
        per size)."""
        layout, grid, block = _src.flat(self, arrays, n)
        index = "unsigned int" if n <= _INT32_LIMIT else "long long"
        fn = sig.functions.get((dev, layout, index))
        if fn is None:
            fn = sig.functions[(dev, layout, index)] = self._function(
                dev, *sig.part, -layout[1] if layout[1] > 1 else 0, index, sig.extra, sig.bindings, layout)
        hit = _Launch(dev, grid, block, fn, np.uint32(n) if index == "unsigned int" else np.int64(n))
        if n < VECTOR_MIN:
            if len(sig.layouts) > 64:
                sig.layouts.clear()
            sig.layouts[n] = hit
        return hit

    # -- source --------------------------------------------------------------------------------
    def kernel_name(self, spec: _Spec, bindings: dict) -> str:
        return f"{self.name}_{_digest(repr((spec.key, sorted((k, v.name) for k, v in bindings.items()))))}"

    def generate(self, spec: _Spec, bindings: dict) -> tuple[str, str]:
        """(kernel source without the prelude, kernel name) for one specialization (its layout's
        loop from `_kernels.elementwise_source`)."""
        params = self.in_params + self.out_params
        fname = self.kernel_name(spec, bindings)
        idx = spec.index
        try:
            sig, arrays = _src.signature(params, spec, self.nin)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None
        if spec.layout[0] == "tile":
            loop = _src.tile_source(arrays, self.operation, idx, spec.layout)
        else:
            loop = _src.loop_source(arrays, self.operation, idx, spec.layout, self._vectorizable)
        sig.append(f"{idx} _n")
        typedefs = "".join(f"    typedef {v.ctype} {k};\n" for k, v in sorted(bindings.items()))
        uses_ind = "_ind" in self.operation + self.loop_prep + self.after_loop
        src = (f"{self.preamble}\n"
               f"extern \"C\" __global__ void {fname}({', '.join(sig)}) {{\n"
               f"{typedefs}"
               + ("    struct { long long n; __device__ long long size() const { return n; } } _ind = {(long long)_n};\n"
                  if uses_ind else "")
               + f"    {self.loop_prep}\n{loop}    {self.after_loop}\n}}\n")
        return src, fname

    def _compile(self, spec: _Spec, bindings: dict):
        body, fname = self.generate(spec, bindings)
        module = _compiler.compile_module(PRELUDE + "\n" + body, self.options)
        return module.get_function(fname)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def spec_for(kernel: ElementwiseKernel, dtypes, kinds=None, ndim=0, index="unsigned int", bindings=None,
             layout=None):
    """A specialization without arrays (the CPU compile check): `dtypes` per parameter (inputs
    then outputs: the arrays' dtypes), `kinds` 'array'/'scalar'/'raw', `ndim` 0 for contiguous,
    -V contiguous with V-element loads, N strided; `layout` one of `_kernels.elementwise_source`'s (it
    overrides ndim)."""
    params = kernel.in_params + kernel.out_params
    kinds = kinds or tuple("raw" if p.raw else "array" for p in params)
    b = dict(bindings or {})
    for p, d in zip(params, dtypes):
        if p.placeholder and p.placeholder not in b:
            b[p.placeholder] = _dtypes.dtype(d)
    types = tuple((p.dtype or b[p.placeholder]).name for p in params)
    mem = tuple(_dtypes.dtype(d).name if k != "scalar" else None for d, k in zip(dtypes, kinds))
    if layout is not None:
        ndim = 0 if layout[0] == "flat" else (layout[1] if layout[0] == "nd" else 2)
    else:
        layout = _src.default_layout(ndim, [_dtypes.dtype(m).itemsize for m, k in zip(mem, kinds) if k == "array"],
                                     kernel._vectorizable)
    return _Spec(types, tuple(kinds), mem, ndim, index, layout), b


# -- helpers shared by the kernels of the layer --------------------------------------------------
def _common_device(arrays) -> int:
    nd = ndarray
    ids = {a.device_id for a in arrays if isinstance(a, nd)}
    if len(ids) > 1:
        raise ValueError(f"arrays on different devices ({sorted(ids)}): copy them to one with .to_device()")
    if ids:
        return ids.pop()
    return _get_device_id()


def _resolve_overlap(in_params, ins, outs):
    """Copy an input that shares memory with an output in another layout (x[1:] += x[:-1]);
    the same layout is safe, each element being read before it is written."""
    nd = ndarray
    res = None
    for k, (p, a) in enumerate(zip(in_params, ins)):
        if not isinstance(a, nd) or p.raw:
            continue
        extent = None
        for o in outs:
            if o is a or (a._data is not o._data and type(a._data) is MemoryPointer
                          and type(o._data) is MemoryPointer):
                continue            # separate allocations of our pool never overlap
            if o.size == 0:
                continue
            if extent is None:
                extent = memory_extent(a._ptr, a._shape, a._strides, a.itemsize)
            olo, ohi = memory_extent(o._ptr, o._shape, o._strides, o.itemsize)
            if extent[0] < ohi and olo < extent[1]:
                same = (a._ptr == o._ptr and a.itemsize == o.itemsize
                        and broadcast_strides(a._shape, a._strides, o._shape) == o._strides)
                if not same:
                    res = list(ins) if res is None else res
                    res[k] = a.copy()
                    break
    return ins if res is None else res


_grid_cap: dict = {}


def grid_for(n: int, device_id: int, block: int = BLOCK) -> int:
    """Blocks for a grid-stride loop over n items: enough to fill the device, no more."""
    cap = _grid_cap.get(device_id)
    if cap is None:
        cap = _grid_cap[device_id] = max(1, Device(device_id).multiprocessor_count) * 32
    return max(1, min((n + block - 1) // block, cap))


def launch(fn, n: int, kargs, device_id: int, stream=None, block=BLOCK, grid=None):
    """Launch `fn` over n items on `stream` (the current one of the arrays' device): `grid` and
    `block` as given (3-tuples), else a grid-stride grid_for(n) of `block` threads."""
    if stream is None:
        stream = _current_stream(device_id)
    if grid is None:
        grid, block = (grid_for(n, device_id, block), 1, 1), (block, 1, 1)
    fn.launch(grid, block, kargs, 0, stream)


_bind_hot(ndarray, scalar_value, _error, VECTOR_MIN)   # what the C hot path calls back
