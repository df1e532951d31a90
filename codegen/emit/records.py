"""Struct/union layout tables for hip/_struct.pyx (offsets and sizes from the C compiler)."""
from __future__ import annotations

from .. import ir
from ..types import TypeIndex
from . import common


def field_kind(t: ir.CType, types: TypeIndex) -> tuple[str, str]:
    """(kind, sub-type name) of a scalar field type; see hip/_struct.pyx KINDS."""
    if types.is_handle(t):
        return "ptr", common.handle_class(t.name, types)
    r = types.resolve(t)
    if r.kind == "pointer":
        pr = types.resolve(r.pointee)
        if pr.kind == "builtin" and pr.name == "char":
            return "cstr", ""
        return "ptr", ""
    if r.kind == "funcptr":
        return "ptr", ""
    if r.kind == "enum":
        return "enum", r.name
    if r.kind == "record":
        return "record", r.name
    if r.kind == "builtin":
        if r.name == "_Bool":
            return "bool", ""
        if r.name in ("float", "double"):
            return "float", ""
        if r.name.startswith("unsigned") or r.name in ("char16_t", "char32_t", "__fp16", "_Float16"):
            return "uint", ""
        return "int", ""
    if r.kind == "typedef" and types.system_typedef(r.name):
        return ("uint" if r.name.startswith("u") or r.name == "size_t" else "int"), ""
    raise ValueError(f"no field kind for {t}")


def emit(module: ir.Module, types: TypeIndex, spec) -> tuple[str, str]:
    """(C layout arrays as a verbatim extern block, Python definitions)."""
    paths = common.record_paths(module)
    c_lines, py_lines = [], []
    for r in common.records_in_order(module):
        if r.size < 0:
            continue
        if not r.public:   # a C++ class with protected fields (__half): no offsetof, a sized value only
            arr = f"hip_py_layout_{r.name}"
            c_lines.append(f"    static const size_t {arr}[] = {{sizeof({r.c_name or r.name})}};")
            py_lines.append((r, arr, [], None))
            continue
        if r.c_name:
            root, base = r.c_name, ""
        elif r.name in paths:
            root, base = paths[r.name]
            base += "."
        else:
            continue   # an anonymous record no named record reaches (never happens in HIP)
        ref = f"(({root}*)0)->{base.rstrip('.')}" if base else f"(*({root}*)0)"
        off0 = f"offsetof({root}, {base.rstrip('.')})" if base else "0"
        vals = [f"sizeof({ref})"]
        rows = []
        for f in r.fields:
            t = f.type
            count = 0
            while t.kind == "array":
                count = (count or 1) * (t.count or 1)
                t = t.pointee
            if f.bit_width >= 0:
                # Bitfields have no address: offsets come from libclang's layout (tests compare).
                word = f.offset_bits // 32 * 4
                rows.append((f.name, None, "bits", 4, 0, "", f.offset_bits % 32, f.bit_width, word))
                continue
            member = f"{base}{f.name}"
            vals.append(f"offsetof({root}, {member}) - {off0}")
            r_t = types.resolve(t)
            if count and r_t.kind == "builtin" and r_t.name == "char" and f.type.pointee.kind != "array":
                # text up to its NUL, unless the spec says the bytes are data (UUIDs, IPC handles)
                kind, sub = ("bytes" if f"{r.name}.{f.name}" in spec.binary_fields else "chars"), ""
            else:
                kind, sub = field_kind(t, types)
            elsize = f"sizeof({ref}.{f.name}{'[0]' * _dims(f.type)})" if not base else \
                f"sizeof((({root}*)0)->{member}{'[0]' * _dims(f.type)})"
            vals.append(elsize)
            rows.append((common.safe_field(f.name), len(vals) - 2, kind, None, count, sub, 0, -1, None))
            # row index i: offset at vals[i], element size at vals[i + 1]
        arr = f"hip_py_layout_{r.name}"
        c_lines.append(f"    static const size_t {arr}[] = {{{', '.join(vals)}}};")
        cols = []
        for name, idx, kind, elsize, count, sub, bitoff, bitw, word in rows:
            off = f"{arr}[{idx}]" if idx is not None else str(word)
            es = f"{arr}[{idx + 1}]" if idx is not None else str(elsize)
            cols.append(f"({name!r}, {off}, {kind!r}, {es}, {count}, {sub or None}, {bitoff}, {bitw})")
        defaults = spec.struct_defaults.get(r.name)
        py_lines.append((r, arr, cols, defaults))
    return "\n".join(c_lines), py_lines


def _dims(t: ir.CType) -> int:
    n = 0
    while t.kind == "array":
        n += 1
        t = t.pointee
    return n
