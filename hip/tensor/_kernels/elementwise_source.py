"""ElementwiseKernel's layouts: which one a call takes (from the collapsed strides), the launch
geometry, and the generated C++ of each.

Layouts (a hashable tuple, part of the kernel's cache key):
  ("flat", V, U, B)           every array contiguous: block b handles B*U consecutive V-element
                              vectors (thread t the vectors t, t+B, ... of it, so each load
                              instruction is coalesced), all loads issued before any store; the grid
                              covers the array (a chunk loop only past the grid limit); the n % V
                              last elements in a scalar tail.
  ("nd", N, V, U, B, cls)     strided over N collapsed dimensions, the same chunks; offsets from
                              the flat index (N - 1 divisions). V > 1 when every array is
                              contiguous or broadcast (stride 0) along the innermost dimension
                              (x + row, x + column): cls[k] is 'v' (vector loads) or 'b' (one
                              element repeated) per array.
  ("tile", T, swapped, E, H)  2-D, an input walked along its outer dimension (x.T + y): T[k] says
                              which inputs go through a padded E x (E + 1) shared-memory tile, read
                              coalesced along their own contiguous dimension (block E x H threads,
                              E / H elements each); the other arrays are read and written with the
                              inner index on threadIdx.x. `swapped`:
                              the index space is the transpose of the broadcast shape (so that the
                              outputs are walked along their rows); `i` stays the C-order index.
Register forms (values loaded into registers, outputs stored whole) are for kernels that write
every output unconditionally and take no addresses (`ElementwiseKernel(vectorize=True)`); the others
take the reference form (each element a reference into memory) of "flat"/"nd" with V = U = 1.
No layout depends on the warp or wavefront width; blocks are multiples of 64 threads.
"""
from __future__ import annotations

from .._core import dtypes as _dtypes

__all__: list[str] = []

BLOCK = 128                     # threads of the flat and N-d loops (a multiple of 64)
THREAD_BYTES = 32               # bytes a thread moves per array per chunk (two 16-byte loads)
VECTOR_MAX = 8                  # elements per wide load ...
VECTOR_MIN = 1 << 14            # ... taken from this many elements on (16-byte loads at most)
TILE = 32                       # edge of the transposed operand's tile
TILE_ROWS = 8                   # block (TILE, TILE_ROWS): each thread handles TILE / TILE_ROWS elements
TILE_SMEM = 32 * 1024           # shared memory the tiles of one block may take
GRID_MAX = (1 << 31) - 1        # blocks (x) at most: CUDA's limit; AMD's is 2^32 work-items


def _grid(items: int, per_block: int, block: int) -> int:
    """Blocks covering `items` (the loops go round past GRID_MAX work-items)."""
    return max(1, min(-(-items // per_block), GRID_MAX // block))


def _per_thread(vec: int, itemsize: int) -> int:
    """Vectors per thread: THREAD_BYTES of the widest array, at most 16 elements and 4 vectors
    (each is a copy of the operation in the unrolled code)."""
    return max(1, min(THREAD_BYTES // (vec * itemsize), 16 // vec, 4))


def choose(kernel, arrays, outs_from: int, n: int, contiguous: bool, cshape, cstrides):
    """(layout, cshape, cstrides, grid, block) for one call. `arrays`: the non-raw array arguments
    in parameter order (those from index `outs_from` on are outputs); `cshape`/`cstrides`: the
    collapsed walk (None when every array is C-contiguous with the full shape)."""
    if contiguous:
        layout, grid, block = flat(kernel, arrays, n)
        return layout, None, None, grid, block
    sizes = [a._dtype.itemsize for a in arrays]
    big = max(sizes)
    reg = kernel._vectorizable
    ndim = len(cshape)
    if reg and ndim == 2 and kernel._tileable:
        t = _tile(arrays, outs_from, sizes, cshape, cstrides)
        if t is not None:
            tiled, swapped = t
            if swapped:
                cshape = cshape[::-1]
                cstrides = [s[::-1] for s in cstrides]
            tiles = -(-cshape[0] // TILE) * -(-cshape[1] // TILE)
            return (tile_layout(tiled, swapped), cshape, cstrides,
                    (_grid(tiles, 1, TILE * TILE_ROWS), 1, 1), (TILE, TILE_ROWS, 1))
    vec, cls = 1, ()
    if reg and n >= VECTOR_MIN:
        inner = cshape[-1]
        vec = min([VECTOR_MAX] + [16 // s for s in sizes])
        if all(s[-1] in (0, z) for s, z in zip(cstrides, sizes)) and all(
                s[-1] == z for s, z in zip(cstrides[outs_from:], sizes[outs_from:])):
            while vec > 1 and (inner % vec or any(
                    s[-1] and (a._ptr % (vec * z) or any(d % (vec * z) for d in s[:-1]))
                    for a, s, z in zip(arrays, cstrides, sizes))):
                vec //= 2
        else:
            vec = 1
        if vec > 1:
            cls = tuple("v" if s[-1] else "b" for s in cstrides)
    per = _per_thread(vec, big) if reg else 1
    return (("nd", ndim, vec, per, BLOCK, cls), cshape, cstrides,
            (_grid(n // vec, BLOCK * per, BLOCK), 1, 1), (BLOCK, 1, 1))


def flat(kernel, arrays, n: int):
    """(layout, grid, block) of a call whose arrays are all C-contiguous of n elements."""
    reg = kernel._vectorizable
    vec, big = 1, 1
    for a in arrays:
        big = max(big, a._dtype.itemsize)
    if reg and n >= VECTOR_MIN:
        vec = min(VECTOR_MAX, 16 // big)
        while vec > 1 and any(a._ptr % (vec * a._dtype.itemsize) for a in arrays):
            vec //= 2
    per = _per_thread(vec, big) if reg else 1
    return ("flat", vec, per, BLOCK), (_grid(n // vec, BLOCK * per, BLOCK), 1, 1), (BLOCK, 1, 1)


def _tile(arrays, outs_from, sizes, cshape, cstrides):
    """(tiled flags, swapped) when some input is walked along its outer dimension, else None."""
    def transposed(s, z):
        return abs(s[0]) == z and abs(s[1]) not in (0, z)

    outs = range(outs_from, len(arrays))
    swapped = False
    if any(transposed(cstrides[k], sizes[k]) for k in outs):
        swapped = True
        cstrides = [s[::-1] for s in cstrides]
        cshape = cshape[::-1]
        if any(transposed(cstrides[k], sizes[k]) for k in outs):
            return None
    if min(cshape) < TILE:
        return None
    flags, budget = [], TILE_SMEM
    for k in range(len(arrays)):
        need = TILE * (TILE + 1) * sizes[k]
        on = k < outs_from and transposed(cstrides[k], sizes[k]) and need <= budget
        budget -= need if on else 0
        flags.append(on)
    return (tuple(flags), swapped) if any(flags) else None


def tile_layout(tiled, swapped: bool) -> tuple:
    """The "tile" layout with this module's tile geometry."""
    return ("tile", tuple(tiled), bool(swapped), TILE, TILE_ROWS)


def default_layout(ndim: int, sizes, reg: bool = True) -> tuple:
    """The layout spec.ndim stands for where no call chose one (the CPU compile check): 0 flat,
    -V flat with V-element loads, N > 0 strided over N dimensions; `reg`: the register form's
    vectors per thread (else one element per thread, as `choose` takes)."""
    big = max(sizes or [1])
    if ndim <= 0:
        vec = -ndim or 1
        return ("flat", vec, _per_thread(vec, big) if reg else 1, BLOCK)
    return ("nd", ndim, 1, _per_thread(1, big) if reg else 1, BLOCK, ())


# -- source ------------------------------------------------------------------------------------------
def _lines(items, pad):
    return "".join(f"{pad}{x}\n" for x in items)


def _element(arrays, at):
    """Declarations, then stores, of one element whose storage `at(k)` names."""
    decl, store = [], []
    for k, name, ct, mt, is_out in arrays:
        if is_out and mt == ct:
            decl.append(f"{ct} &{name} = {at(k)};")
        elif is_out:
            decl.append(f"{ct} {name};")
            store.append(f"{at(k)} = ht_cast<{mt}>({name});")
        elif mt == ct:      # a reference: &x is the element's address (gather/scatter use it)
            decl.append(f"const {ct} &{name} = {at(k)};")
        else:
            decl.append(f"const {ct} {name} = ht_cast<{ct}>({at(k)});")
    return decl, store


def _offsets(ks, nd, idx, flat, pad, slot=False):
    """Byte offsets _o{k} of flat element index `flat` in the N-d walk (N - 1 divisions); `slot`:
    stored into the per-slot arrays _o{k}[_w] (summed in _a{k} first)."""
    acc = "_a" if slot else "_o"
    out = [f"{{ {idx} _r = {flat};"] + ([f"  long long _a{k} = 0;" for k in ks] if slot else [])
    if nd > 1:
        out.append(f"#pragma unroll\n{pad}  for (int _d = {nd} - 1; _d > 0; --_d) {{")
        out.append(f"  {idx} _e = ({idx})_shape.v[_d], _q = _r / _e, _c = _r - _q * _e; _r = _q;")
        out += [f"  {acc}{k} += (long long)_c * _s{k}.v[_d];" for k in ks]
        out.append("}")
    if slot:
        out += [f"  _o{k}[_w] = _a{k} + (long long)_r * _s{k}.v[0];" for k in ks]
    else:
        out += [f"  _o{k} += (long long)_r * _s{k}.v[0];" for k in ks]
    out.append("}")
    return out if slot else [f"long long _o{k} = 0;" for k in ks] + out


def signature(params, spec, nin):
    """(C++ parameter list, arrays) where arrays are (k, name, compute type, memory type, is_out)."""
    strided = spec.layout[0] != "flat"
    nd = spec.layout[1] if spec.layout[0] == "nd" else 2
    sig, arrays = [], []
    for k, (p, t, kind, m) in enumerate(zip(params, spec.types, spec.kinds, spec.mem)):
        ct = _dtypes.dtype(t).ctype
        is_out = k >= nin
        if kind == "scalar":
            sig.append(f"{ct} {p.name}")
            continue
        mt = _dtypes.dtype(m).ctype
        if kind == "raw":
            if mt != ct:
                raise TypeError(f"raw parameter {p.name} is {t}, the array is {m}")
            sig.append(f"{'const ' if not is_out else ''}{ct}* {p.name}")
            continue
        q = "" if is_out else "const "
        sig.append(f"{q}char* _p{k}, ht_dims<{nd}> _s{k}" if strided else f"{q}{mt}* _p{k}")
        arrays.append((k, p.name, ct, mt, is_out))
    if strided:
        sig.append(f"ht_dims<{nd}> _shape")
    return sig, arrays


def loop_source(arrays, operation, idx, layout, reg):
    """The body of a "flat" or "nd" layout (register form when `reg`)."""
    flat = layout[0] == "flat"
    if flat:
        _, vec, per, block = layout
        nd, cls = 0, ()
    else:
        _, nd, vec, per, block, cls = layout
    chunk = block * per
    ks = [a[0] for a in arrays]
    head = (f"    const {idx} _nv = _n / {vec}, _nc = (_nv + {chunk - 1}) / {chunk};\n"
            f"    for ({idx} _b = blockIdx.x; _b < _nc; _b += gridDim.x) {{\n"
            f"      const {idx} _j0 = _b * {chunk} + threadIdx.x;\n")
    if not reg:                 # reference form: one element at a time, straight in memory
        if vec != 1:
            raise ValueError(f"layout {layout}: wide loads need a kernel that writes every output unconditionally")
        if flat:
            decl, store = _element(arrays, lambda k: f"_p{k}[_j]")
            offs = []
        else:
            mts = {a[0]: a[3] for a in arrays}
            decl, store = _element(arrays, lambda k: f"ht_at<{mts[k]}>(_p{k}, _o{k})")
            offs = _offsets(ks, nd, idx, "_j", "          ")
        body = (f"#pragma unroll\n      for (int _w = 0; _w < {per}; ++_w) {{\n"
                f"        const {idx} _j = _j0 + ({idx})(_w * {block});\n"
                f"        if (_j < _n) {{\n          const long long i = (long long)_j; (void)i;\n"
                + _lines(offs + decl, "          ") + f"          {operation};\n"
                + _lines(store, "          ") + "        }\n      }\n")
        return head + body + "    }\n"
    vt = {k: f"ht_vec<{mt}, {vec}>" for k, _, _, mt, _ in arrays}
    klass = dict(zip(ks, cls)) if cls else {}
    loads, stores = [], []
    for k, _, _, mt, is_out in arrays:
        if flat:
            where = f"reinterpret_cast<{'' if is_out else 'const '}{vt[k]}*>(_p{k})[_j]"
        else:
            where = f"*reinterpret_cast<{'' if is_out else 'const '}{vt[k]}*>(_p{k} + _o{k}[_w])"
        if is_out:
            stores.append(f"{where} = _v{k}[_w];")
        elif klass.get(k) == "b":
            loads.append(f"{{ const {mt} _t = ht_at<{mt}>(_p{k}, _o{k}[_w]);\n#pragma unroll\n"
                         f"            for (int _u = 0; _u < {vec}; ++_u) _v{k}[_w].v[_u] = _t; }}")
        else:
            loads.append(f"_v{k}[_w] = {where};")
    offs = [] if flat else _offsets(ks, nd, idx, f"_j * {vec}", "          ", slot=True)
    decl, store = _element(arrays, lambda k: f"_v{k}[_w].v[_u]")
    regs = [f"{vt[k]} _v{k}[{per}];" for k in ks] + ([f"long long _o{k}[{per}];" for k in ks] if not flat else [])

    def guarded(items, pad):
        return (f"{pad}#pragma unroll\n{pad}for (int _w = 0; _w < {per}; ++_w) {{\n"
                f"{pad}  const {idx} _j = _j0 + ({idx})(_w * {block});\n{pad}  if (_j < _nv) {{\n"
                + _lines(items, pad + "    ") + f"{pad}  }}\n{pad}}}\n")

    compute = ([f"#pragma unroll\n          for (int _u = 0; _u < {vec}; ++_u) {{",
                f"  const long long i = (long long)_j * {vec} + _u; (void)i;"]
               + ["  " + d for d in decl] + [f"  {operation};"] + ["  " + s for s in store] + ["}"])

    # every load of the chunk issued before any store: U vectors per array in flight per thread
    pad = "      "
    src = (head + _lines(regs, pad) + guarded(offs + loads, pad) + guarded(compute, pad) + guarded(stores, pad)
           + "    }\n")
    if flat and vec > 1:        # the n % V last elements
        decl1, store1 = _element(arrays, lambda k: f"_p{k}[_i]")
        src += (f"    for ({idx} _i = _nv * {vec} + blockIdx.x * {block} + threadIdx.x; _i < _n; "
                f"_i += ({idx})gridDim.x * {block}) {{\n        const long long i = (long long)_i; (void)i;\n"
                + _lines(decl1, "        ") + f"        {operation};\n" + _lines(store1, "        ") + "    }\n")
    return src


def tile_source(arrays, operation, idx, layout):
    """The body of a "tile" layout (register form)."""
    _, tiled, swapped, edge, rows = layout
    q = edge // rows
    ks = [a[0] for a in arrays]
    flag = dict(zip(ks, tiled))
    src = [f"const {idx} _R = ({idx})_shape.v[0], _C = ({idx})_shape.v[1];",
           f"const {idx} _tc = (_C + {edge - 1}) / {edge}, _nt = ((_R + {edge - 1}) / {edge}) * _tc;"]
    src += [f"__shared__ {mt} _t{k}[{edge}][{edge + 1}];" for k, _, _, mt, _ in arrays if flag[k]]
    loop = [f"const {idx} _r0 = (_b / _tc) * {edge}, _c0 = (_b - (_b / _tc) * _tc) * {edge};"]
    loop += [f"{mt} _v{k}[{q}];" for k, _, _, mt, _ in arrays]

    def at(k, r, c):
        return f"_p{k} + (long long)({r}) * _s{k}.v[0] + (long long)({c}) * _s{k}.v[1]"

    # phase 1: tiled inputs read along their own rows (r on threadIdx.x), the others along ours
    loads, down = [], f"threadIdx.y + _w * {rows}"
    for k, _, _, mt, is_out in arrays:
        if is_out:
            continue
        r, c = ("threadIdx.x", down) if flag[k] else (down, "threadIdx.x")
        loads.append(f"{{ const {idx} _r = _r0 + {r}, _c = _c0 + {c};\n            if (_r < _R && _c < _C) "
                     f"_v{k}[_w] = *reinterpret_cast<const {mt}*>({at(k, '_r', '_c')}); }}")
    loop += ["#pragma unroll", f"for (int _w = 0; _w < {q}; ++_w) {{"]
    loop += ["  " + x for x in loads] + ["}"]
    if any(tiled):
        loop += ["#pragma unroll", f"for (int _w = 0; _w < {q}; ++_w) {{"]
        loop.append(f"  if (_r0 + threadIdx.x < _R && _c0 + threadIdx.y + _w * {rows} < _C) {{")
        loop += [f"    _t{k}[threadIdx.y + _w * {rows}][threadIdx.x] = _v{k}[_w];" for k in ks if flag[k]]
        loop.append("  }")
        loop += ["}", "__syncthreads();"]
    # phase 2: every element (r, c) with c on threadIdx.x
    decl, store = _element(arrays, lambda k: f"_t{k}[threadIdx.x][threadIdx.y + _w * {rows}]" if flag[k]
                           else f"_v{k}[_w]")
    i = "(long long)_c * _R + _r" if swapped else "(long long)_r * _C + _c"
    outs = [f"*reinterpret_cast<{mt}*>({at(k, '_r', '_c')}) = _v{k}[_w];"
            for k, _, _, mt, is_out in arrays if is_out]
    loop += ["#pragma unroll", f"for (int _w = 0; _w < {q}; ++_w) {{"]
    loop.append(f"  const {idx} _r = _r0 + threadIdx.y + _w * {rows}, _c = _c0 + threadIdx.x;")
    loop.append(f"  if (_r < _R && _c < _C) {{")
    loop += [f"    const long long i = {i}; (void)i;"] + ["    " + d for d in decl] + [f"    {operation};"]
    loop += ["    " + s for s in store] + ["    " + s for s in outs] + ["  }", "}"]
    if any(tiled):
        loop.append("__syncthreads();          /* the tile is rewritten by the next iteration */")
    return (_lines(src, "    ") + f"    for ({idx} _b = blockIdx.x; _b < _nt; _b += gridDim.x) {{\n"
            + _lines(loop, "        ") + "    }\n")
