"""Emit .pyi stubs: signatures and return shapes for editors and type checkers."""
from __future__ import annotations

from .. import ir
from ..spec import Spec
from ..types import TypeIndex
from . import common, records


def _pytype(t: ir.CType, types: TypeIndex) -> str:
    r = types.resolve(t)
    if types.is_handle(t):
        return records.handle_class(t.name, types)
    if r.kind == "enum":
        return r.name
    if types.is_float(t):
        return "float"
    if types.is_numeric(t):
        return "int"
    if r.kind == "record":
        return r.name
    return "object"


def emit(module: ir.Module, spec: Spec, types: TypeIndex) -> str:
    out = [common.banner(module), "from typing import Any", "from hip._enum import Enum",
           "from hip._pointer import Pointer, DevicePointer, Handle", "from hip._struct import Struct", ""]
    for dep in spec.depends:
        out.append(f"from hip.{dep} import *")
    for e in module.enums:
        if e.anonymous:
            out += [f"{k.name}: int" for k in e.constants]
            continue
        out.append(f"class {e.name}(Enum):")
        out += [f"    {k.name}: {e.name}" for k in e.constants] or ["    ..."]
    for r in module.records:
        if r.size < 0:
            continue
        out.append(f"class {r.name}(Struct):")
        out += [f"    {common.safe_field(f.name)}: Any" for f in r.fields] or ["    ..."]
        out.append("    def __init__(self, *args: Any, **fields: Any) -> None: ...")
    for m in module.macros:
        out.append(f"{m.name}: {type(m.value).__name__}")
    status = spec.error_type or "Any"
    # The status enum's own name (hiprandStatus for `typedef enum hiprandStatus hiprandStatus_t`):
    # a function returning either spelling returns the status, not an extra output.
    status_names = {spec.error_type, types.resolve(ir.CType("typedef", spec.error_type)).name} \
        if spec.error_type else set()
    for fn in common.bound_functions(module):
        params, outs = [], []
        for p in fn.params:
            r = types.resolve(p.type)
            if p.intent == "out":
                tgt = r.pointee
                if types.is_handle(tgt) or types.resolve(tgt).kind not in ("pointer", "void"):
                    value = _pytype(tgt, types)
                else:
                    value = "DevicePointer" if fn.name in spec.device_allocations else "Pointer"
                # "out array[n]" (ncclCommInitAll's communicators): a list of n values.
                outs.append(f"list[{value}]" if p.shape.startswith("array[") else value)
            else:
                params.append(f"{p.name}: {_pytype(p.type, types) if (types.is_numeric(p.type) or types.resolve(p.type).kind == 'enum') else 'Any'}")
        res = types.resolve(fn.result)
        if not (res.kind == "enum" and res.name in status_names) and res.kind != "void":
            outs.insert(0, "bytes | None" if res.kind == "pointer" else _pytype(fn.result, types))
        ret = f"tuple[{', '.join([status] + outs)}]"
        out.append(f"def {fn.name}({', '.join(params)}) -> {ret}: ...")
    for a, t in module.aliases.items():
        e = types.enumerators.get(t)
        if e is not None:   # `#define HIPSOLVER_OP_N HIPBLAS_OP_N`: an enum member (a constant if anonymous)
            out.append(f"{a}: {'int' if e.anonymous else e.name}")
        else:
            out.append(f"{a} = {t}")
    return "\n".join(out) + "\n"
