"""Struct/union layout tables for hip/_struct.pyx (offsets and sizes from the C compiler)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .. import ir
from ..types import TypeIndex
from . import common


def field_kind(t: ir.CType, types: TypeIndex, spec=None) -> tuple[str, str]:
    """(kind, sub-type name) of a scalar field type; see hip/_struct.pyx KINDS. Where the spec's
    conventions.struct_style is 'cuda' (cuda.bindings' struct classes), a pointer to anything but
    void is an 'addr' (its value prints in decimal, a void*'s in hex), an integer typedef of
    conventions.value_classes reads as that class (CUdeviceptr) and a pointer to one as that class
    viewing the value it points to (a 'valptr')."""
    cuda = spec is not None and spec.conventions.struct_style == "cuda"
    if types.is_handle(t):
        return "ptr", common.handle_class(t.name, types)
    if cuda and t.kind == "typedef" and t.name in spec.conventions.value_classes:
        return field_kind(types.resolve(t), types)[0], t.name
    r = types.resolve(t)
    if cuda and t.kind == "typedef" and (r.kind == "funcptr" or (r.kind == "pointer" and types.resolve(
            r.pointee).kind == "funcptr")):
        return "ptr", t.name     # the function pointer typedef's class (CUhostFn)
    if cuda and r.kind == "pointer" and r.pointee.kind == "typedef" and r.pointee.name in spec.conventions.value_classes:
        return "valptr", r.pointee.name   # that class viewing the value there (CUmemDecompressParams.dstActBytes)
    if r.kind == "pointer":
        pr = types.resolve(r.pointee)
        if pr.kind == "builtin" and pr.name == "char":
            return "cstr", ""
        return ("addr" if cuda and pr.kind != "void" else "ptr"), ""
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


def bound(f: ir.Field, spec, types: TypeIndex) -> bool:
    """Whether field f gets a Field: all do, except where conventions.struct_style is 'cuda' an
    array whose extent the header writes with the size of an enum (the launch attribute's `char
    pad[8 - sizeof(CUlaunchAttributeID)]`: C leaves an enum's size to the compiler), which
    cuda.bindings leaves out (it keeps `reserved[64 - sizeof(CUcheckpointGpuPair *) - ...]`)."""
    if spec is None or spec.conventions.struct_style != "cuda":
        return True
    for name in re.findall(r"\bsizeof \( (?:enum )?(\w+) \)", f.extent):
        if name in types.enums or types.resolve(ir.CType("typedef", name)).kind == "enum":
            return False
    return True


@dataclass
class Row:
    """One field of a layout table: the columns of hip/_struct.pyx's Field."""
    name: str
    offset: str                 # a C expression (an element of the layout array) or a number
    kind: str                   # see hip/_struct.pyx KINDS
    elsize: str
    count: int                  # 0: a single value, else a fixed array of that many
    sub: str                    # bare type name of a handle, enum or record field ('' for none)
    bitoff: int = 0
    bitwidth: int = -1
    elem: str = ''              # a pointer to complete records: their name (_struct.point_to)


@dataclass
class Layout:
    record: ir.Record
    array: str                  # the C array of the record's size, then each field's offset and element size
    values: list[str]           # its C initialisers
    rows: list[Row]
    defaults: dict | None       # the spec's struct_defaults
    from_int: bool = False      # the spec's struct_from_int
    props: tuple | None = None  # AMD's PROPERTIES() where it lists fewer fields than rows (amd_property)


def layouts(module: ir.Module, types: TypeIndex, spec) -> list[Layout]:
    """Layout tables of the module's complete records, embedded records first."""
    paths = common.record_paths(module)
    out = []
    for r in common.records_in_order(module):
        if r.size < 0:
            continue
        arr = f"hip_py_layout_{r.name}"
        if not r.public:   # a C++ class with protected fields (__half): no offsetof, a sized value only
            out.append(Layout(r, arr, [f"sizeof({r.c_name or r.name})"], [], None))
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
        fields = [f for f in r.fields if bound(f, spec, types)]
        for f in fields:
            t = f.type
            count = 0
            while t.kind == "array":
                count = (count or 1) * (t.count or 1)
                t = t.pointee
            if f.bit_width >= 0:
                # Bitfields have no address: offsets come from libclang's layout (tests compare).
                # Read through a unit of the declared type's size (a bitfield does not cross one):
                # 4 bytes would read past a 1-byte struct of uint8_t bitfields (amd-smi's).
                unit = min((types.number_layout(f.type) or (4, False))[0], 4) \
                    if f.offset_bits % 32 + f.bit_width <= 32 else 8
                bits = unit * 8
                rows.append(Row(common.safe_field(f.name), str(f.offset_bits // bits * unit), "bits", str(unit), 0, "",
                                f.offset_bits % bits, f.bit_width))
                continue
            member = f"{base}{f.name}"
            r_t = types.resolve(t)
            binary = spec.is_binary_field(r.name, f.name)
            if count and r_t.kind == "builtin" and f.type.pointee.kind != "array" and (
                    r_t.name == "char" or binary and r_t.name in ("unsigned char", "signed char")):
                # text up to its NUL, unless the spec says the bytes are data (UUIDs, IPC handles;
                # the alias's unsigned char arrays too: cudaGraphEdgeData.reserved is bytes in cuda.bindings)
                kind, sub = ("bytes" if binary else "chars"), ""
            else:
                kind, sub = field_kind(t, types, spec)
            elsize = f"sizeof({ref}.{f.name}{'[0]' * _dims(f.type)})" if not base else \
                f"sizeof((({root}*)0)->{member}{'[0]' * _dims(f.type)})"
            rows.append(Row(common.safe_field(f.name), f"{arr}[{len(vals)}]", kind, f"{arr}[{len(vals) + 1}]",
                            count, sub, elem=_pointee_record(t, types) if kind in ("ptr", "addr") and not count else ""))
            vals += [f"offsetof({root}, {member}) - {off0}", elsize]
        props = tuple(common.safe_field(f.name) for f in fields if amd_property(f, types))
        out.append(Layout(r, arr, vals, rows, defaults(r, types, spec), r.name in spec.struct_from_int,
                          props if props != tuple(row.name for row in rows) else None))
    return out


def defaults(r: ir.Record, types: TypeIndex, spec, depth: int = 0) -> dict | None:
    """The field values a new `r` starts with: the spec's struct_defaults, and where
    conventions.struct_style is 'cuda' and `r` is a struct with no union member, its record
    members' defaults too ({'gridDim': {'x': 1, ...}}): cuda.bindings' class of such a struct holds
    it by value, made by C++'s constructor (a dim3 member is (1, 1, 1)); one with a union member
    is zeroed memory, as is a union."""
    out = dict(spec.struct_defaults.get(r.name) or {})
    if spec.conventions.struct_style != "cuda" or r.kind != "struct" or r.lifted_union or depth > 16:
        return out or None
    subs = [(f, types.resolve(f.type)) for f in r.fields if bound(f, spec, types) and f.type.kind != "array"]
    recs = [(f, types.records[t.name]) for f, t in subs if t.kind == "record" and t.name in types.records]
    if any(sub.kind == "union" for _, sub in recs):
        return out or None
    for f, sub in recs:
        d = defaults(sub, types, spec, depth + 1)
        if d and common.safe_field(f.name) not in out:
            out[common.safe_field(f.name)] = d
    return out or None


def _pointee_record(t: ir.CType, types: TypeIndex) -> str:
    """The record a pointer field points to, where it is complete (`CUlaunchAttribute *attrs`), or
    `handle:<typedef>` for a pointer to handles (`CUexternalSemaphore *extSemArray`), else ''."""
    if types.is_handle(t):
        return ""
    r = types.resolve(t)
    if r.kind != "pointer":
        return ""
    if r.pointee.kind == "typedef" and types.is_handle(r.pointee) and not r.pointee.const:
        return f"handle:{r.pointee.name}"
    pr = types.resolve(r.pointee)
    if pr.kind == "record" and pr.name in types.records and types.records[pr.name].size >= 0:
        return pr.name
    return ""


def _dims(t: ir.CType) -> int:
    n = 0
    while t.kind == "array":
        n += 1
        t = t.pointee
    return n


def amd_names(module: ir.Module) -> dict[str, str]:
    """Our record name -> AMD's HIP Python's name for it, where they differ: nested records are
    <outer>_<key>, the key the nested record's tag or union_<i>/struct_<i> (ir.Record.nested_key)."""
    recs = {r.name: r for r in module.records}

    def amd(r: ir.Record, depth: int = 0) -> str:
        if not r.parent or r.parent not in recs or depth > 16:
            return r.name
        return f"{amd(recs[r.parent], depth + 1)}_{r.nested_key}"
    out = {}
    for r in module.records:
        if r.size < 0:
            continue
        a = amd(r)
        if a != r.name:
            out[r.name] = a
    return out


def amd_property(f: ir.Field, types: TypeIndex) -> bool:
    """Whether AMD's HIP Python makes field f a property (and lists it in PROPERTIES()): not for
    handles, function pointers, pointers to records, arrays of enums or records, nor the members of
    anonymous struct/union members. (Ours binds every field; PROPERTIES(), obj[i] and positional
    constructor arguments follow AMD's list.)"""
    if f.lifted:
        return False
    t = f.type
    arr = False
    while t.kind == "array":
        t, arr = t.pointee, True
    if types.is_handle(t):
        return False
    r = types.resolve(t)
    if r.kind == "funcptr" or (r.kind == "pointer" and types.resolve(r.pointee).kind in ("funcptr", "record")):
        return False
    if arr and r.kind in ("enum", "record"):
        return False
    return True
