"""Emit the cimport layer's declarations: hip/<cimport_module>.pxd.

C types come from the real header (`cdef extern from`), so layouts are the
compiler's. Functions are *our* lazily loaded wrappers, defined in the
matching .pyx by clayer.py; cimport users call them like the C API.

Where a spec's `cimport` says the layer follows another binding's C API (the `cuda` alias follows
cuda.bindings' cydriver), `Style` spells it so: compiled Cython that cimports that binding finds
each function in our `__pyx_capi__` under the same name and signature string.
"""
from __future__ import annotations

import dataclasses

from .. import ir
from ..spec import Spec
from ..types import TypeIndex
from ..ir_builder import safe
from . import common


@dataclasses.dataclass
class Style:
    """The spec's `cimport` conventions, resolved against one module."""
    names: dict[str, str] = dataclasses.field(default_factory=dict)   # function -> its cimport name
    sentinel: str = ""                        # the `except?` value ('' : one the result type never takes)
    spelling: str = ""                        # 'cuda_bindings', or '' (the header's)
    cython_level: frozenset = frozenset()     # type names declared in Cython, not `cdef extern`
    type_macros: dict = dataclasses.field(default_factory=dict)   # '#define A B' type name -> B's CType
    spelled: dict = dataclasses.field(default_factory=dict)       # (function, param) -> type macro it spells
    header: dict = dataclasses.field(default_factory=dict)        # (function, param) -> the header's type, where
                                                                  # the Python layer's IR names it otherwise

    @classmethod
    def of(cls, module: ir.Module, spec: Spec, type_macros: dict | None = None,
           spelled: dict | None = None, header: dict | None = None) -> "Style":
        cfg = spec.cimport
        if cfg is None:
            return cls()
        return cls(common.cimport_names(module, spec), cfg.sentinel, cfg.spelling,
                   frozenset(_cython_level_types(module, cfg.cython_level)),
                   dict(type_macros or {}), dict(spelled or {}), dict(header or {}))

    def name(self, fn: ir.Function) -> str:
        return self.names.get(fn.name, fn.name)

    def param_type(self, fn: ir.Function, p: ir.Param, macros: bool = True) -> ir.CType:
        """The parameter's type as the layer spells it; `macros=False`: without type macros."""
        macro = self.spelled.get((fn.name, p.name)) if macros else None
        t = self.header.get((fn.name, p.name), p.type)
        if macro:
            t = _respell(t, macro)
        if self.spelling == "cuda_bindings":
            t = _cuda_bindings_spelling(t)
        return t

    def mentions_cython_level(self, t: ir.CType) -> bool:
        while t.kind in ("pointer", "array"):
            t = t.pointee
        return t.name in self.cython_level or t.name in self.type_macros


def _respell(t: ir.CType, macro: str) -> ir.CType:
    """The type with its innermost named type spelled `macro` (what the header wrote)."""
    if t.kind in ("pointer", "array"):
        return dataclasses.replace(t, pointee=_respell(t.pointee, macro))
    return ir.CType("typedef", macro, t.const)


def _cuda_bindings_spelling(t: ir.CType) -> ir.CType:
    """cuda.bindings' generator writes a pointer's own `const` nowhere and any const of the type at
    its innermost pointee (`void *const *dsts` is `const void**`), and an unnamed function-pointer
    parameter as `void*` (nvrtcSetFlowCallback)."""
    if t.kind == "funcptr":
        return ir.CType("pointer", pointee=ir.CType("void", "void"))
    if t.kind != "pointer":
        return t
    const, chain, u = False, [], t
    while u.kind == "pointer":
        const |= u.const
        chain.append(u)
        u = u.pointee
    inner = dataclasses.replace(u, const=u.const or const)
    for p in reversed(chain):
        inner = dataclasses.replace(p, const=False, pointee=inner)
    return inner


def _cython_level_types(module: ir.Module, where: list[str]) -> set[str]:
    def owned(f: str) -> bool:
        return any(f == w or (w.endswith("/") and f.startswith(w)) for w in where)
    return {x.name for coll in (module.enums, module.records, module.typedefs) for x in coll if owned(x.file)}


def except_clause(fn: ir.Function, types: TypeIndex, style: Style | None = None) -> str:
    """How a missing library/symbol surfaces from a nogil C-layer call."""
    r = types.resolve(fn.result)
    if style is not None and style.sentinel and r.kind == "enum":
        return f"except? {style.sentinel}"
    if r.kind == "enum":
        values = {c.value for c in types.enums[r.name].constants} if r.name in types.enums else set()
        sentinel = -1
        while sentinel in values:
            sentinel -= 1
        return f"except? <{types.cy(fn.result)}>{sentinel}"
    if r.kind == "pointer":
        return "except? NULL"
    if types.is_float(fn.result):
        return "except? -1.0"
    if types.is_numeric(fn.result):
        return "except? <{}>-1".format(types.cy(fn.result)) if r.kind == "builtin" and r.name.startswith("unsigned") \
            else "except? -1"
    return "except *"


def prototype(fn: ir.Function, types: TypeIndex, q=None, style: Style | None = None) -> str:
    style = style or Style()
    params = ", ".join(types.cy(style.param_type(fn, p), p.name, q) for p in fn.params) or ""
    if fn.variadic:
        params += ", ..."
    return f"{types.cy(fn.result, '', q)} {style.name(fn)}({params}) {except_clause(fn, types, style)} nogil"


def _typedef_order(typedefs: list[ir.Typedef]) -> list[ir.Typedef]:
    by_name = {t.name: t for t in typedefs}
    done: list[ir.Typedef] = []
    seen: set[str] = set()

    def refs(t: ir.CType):
        if t.kind == "typedef" and t.name in by_name:
            yield t.name
        for sub in [t.pointee, t.result, *t.params]:
            if sub is not None:
                yield from refs(sub)

    def visit(td: ir.Typedef):
        if td.name in seen:
            return
        seen.add(td.name)
        for r in refs(td.type):
            visit(by_name[r])
        done.append(td)
    for td in typedefs:
        visit(td)
    return done


def emit(module: ir.Module, spec: Spec, types: TypeIndex, all_specs: dict[str, Spec],
         style: Style | None = None) -> str:
    style = style or Style()
    out = [common.banner(module), "# cython: language_level=3",
           "from libc.stdint cimport *", "from libc.stddef cimport wchar_t"]
    for dep in spec.depends:
        out.append(f"from {all_specs[dep].package}.{all_specs[dep].cimport_module} cimport *")
    out.append("")
    header = spec.headers[0]
    out.append(f'cdef extern from "{header}":')
    extern = [x for x in (*module.enums, *module.records, *module.typedefs) if x.name not in style.cython_level]
    out += _declarations(module, types, extern, "    ")
    for extra in spec.headers[1:]:   # further headers the spec parses: included, declared above
        out.append(f'cdef extern from "{extra}":\n    pass')
    cython_level = [x for x in (*module.enums, *module.records, *module.typedefs) if x.name in style.cython_level]
    if cython_level or style.type_macros:
        # Declared in Cython (C names of their own), as the binding this layer follows declares them.
        opaque = [r for r in module.records if r.name in style.cython_level and r.size < 0]
        if opaque:
            out.append("cdef extern from *:")
            out += [_record_head(r, forward=True) for r in opaque]
        out += _declarations(module, types, [x for x in cython_level if not (isinstance(x, ir.Record) and x.size < 0)],
                             "", values=True)
        out += [f"ctypedef {types.cy(t, name)}" for name, t in sorted(style.type_macros.items())]
    out.append("")
    for fn in common.bound_functions(module):
        out.append(f"cdef {prototype(fn, types, style=style)}")
    return "\n".join(out) + "\n"


def _declarations(module: ir.Module, types: TypeIndex, wanted: list, indent: str, values: bool = False) -> list[str]:
    """Enums, records (forward-declared first, so typedefs and fields may name any of them), then
    typedefs and record bodies, of the `wanted` declarations. `values`: enumerators with their
    values (a Cython-level enum's are Cython's to define)."""
    keep = {id(x) for x in wanted}
    body = []
    for e in module.enums:
        if id(e) not in keep:
            continue
        if e.anonymous:
            body.append("enum:")
        elif e.c_name.startswith("enum "):
            body.append(f'cdef enum {e.name}:')
        else:
            body.append(f"ctypedef enum {e.name}:")
        names = [f"{c.name} = {c.value}" if values else c.name for c in e.constants] or ["pass"]
        body += [f"    {n}" for n in names]
    def head(r: ir.Record, forward: bool) -> str:
        if values:   # declared in Cython: its own struct, whatever C calls it
            return f"cdef {r.kind} {r.name}" + ("" if forward else ":")
        return _record_head(r, forward).strip()
    for r in module.records:
        if id(r) in keep:
            body.append(head(r, True))
    for td in _typedef_order(module.typedefs):
        if id(td) in keep:
            body.append(f"ctypedef {types.cy(td.type, td.name)}")
    for r in common.records_in_order(module):
        if id(r) not in keep or r.size < 0 or not r.fields:
            continue
        body.append(head(r, False))
        for f in r.fields:
            py = safe(f.name)
            body.append(f"    {types.cy(f.type, py)}" + (f' "{f.name}"' if py != f.name else ""))
    return [indent + line for line in body]


def _record_head(r: ir.Record, forward: bool) -> str:
    kw = r.kind
    colon = "" if forward else ":"
    if r.c_name.startswith(("struct ", "union ")):
        return f"    cdef {kw} {r.name}{colon}"
    # typedef'd anonymous record (typedef struct {...} X) or a synthetic name for a nested one
    return f"    ctypedef {kw} {r.name}{colon}"
