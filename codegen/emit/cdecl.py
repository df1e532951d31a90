"""Emit the cimport layer's declarations: hip/<cimport_module>.pxd.

C types come from the real header (`cdef extern from`), so layouts are the
compiler's. Functions are *our* lazily loaded wrappers, defined in the
matching .pyx by clayer.py; cimport users call them like the C API.
"""
from __future__ import annotations

from .. import ir
from ..spec import Spec
from ..types import TypeIndex
from ..ir_builder import safe
from . import common


def except_clause(fn: ir.Function, types: TypeIndex) -> str:
    """How a missing library/symbol surfaces from a nogil C-layer call."""
    r = types.resolve(fn.result)
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


def prototype(fn: ir.Function, types: TypeIndex, q=None) -> str:
    params = ", ".join(types.cy(p.type, p.name, q) for p in fn.params) or ""
    if fn.variadic:
        params += ", ..."
    return f"{types.cy(fn.result, '', q)} {fn.name}({params}) {except_clause(fn, types)} nogil"


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


def emit(module: ir.Module, spec: Spec, types: TypeIndex, all_specs: dict[str, Spec]) -> str:
    out = [common.banner(module), "# cython: language_level=3",
           "from libc.stdint cimport *", "from libc.stddef cimport wchar_t"]
    for dep in spec.depends:
        out.append(f"from {all_specs[dep].package}.{all_specs[dep].cimport_module} cimport *")
    out.append("")
    header = spec.headers[0]
    out.append(f'cdef extern from "{header}":')
    body = []
    for e in module.enums:
        if e.anonymous:
            body.append("    enum:")
        elif e.c_name.startswith("enum "):
            body.append(f'    cdef enum {e.name}:')
        else:
            body.append(f"    ctypedef enum {e.name}:")
        names = [c.name for c in e.constants] or ["pass"]
        body += [f"        {n}" for n in names]
    # Records: forward declarations first, so typedefs and fields may name any of them.
    for r in module.records:
        body.append(_record_head(r, forward=True))
    for td in _typedef_order(module.typedefs):
        t = td.type
        body.append(f"    ctypedef {types.cy(t, td.name)}")
    for r in common.records_in_order(module):
        if r.size < 0 or not r.fields:
            continue
        body.append(_record_head(r, forward=False))
        for f in r.fields:
            py = safe(f.name)
            body.append(f"        {types.cy(f.type, py)}" + (f' "{f.name}"' if py != f.name else ""))
    out += body
    for extra in spec.headers[1:]:   # further headers the spec parses: included, declared above
        out.append(f'cdef extern from "{extra}":\n    pass')
    out.append("")
    for fn in common.bound_functions(module):
        out.append(f"cdef {prototype(fn, types)}")
    return "\n".join(out) + "\n"


def _record_head(r: ir.Record, forward: bool) -> str:
    kw = r.kind
    colon = "" if forward else ":"
    if r.c_name.startswith(("struct ", "union ")):
        return f"    cdef {kw} {r.name}{colon}"
    # typedef'd anonymous record (typedef struct {...} X) or a synthetic name for a nested one
    return f"    ctypedef {kw} {r.name}{colon}"
