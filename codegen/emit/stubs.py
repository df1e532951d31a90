"""Emit .pyi stubs: signatures and return shapes for editors and type checkers."""
from __future__ import annotations

from .. import ir, plan
from ..spec import Spec
from ..types import TypeIndex
from . import common, records


def emit(module: ir.Module, spec: Spec, types: TypeIndex, plans: list[plan.FunctionPlan]) -> str:
    out = [common.banner(module), "from typing import Any" + (", overload" if any(fp.amd for fp in plans) else ""),
           "from hip._enum import Enum",
           "from hip._pointer import Pointer, DevicePointer, Handle, CStr", "from hip._struct import Struct", ""]
    for dep in spec.depends:
        out.append(f"from {spec.package}.{dep} import *")
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
        out += [f"    {common.safe_field(f.name)}: Any" for f in r.fields if records.bound(f, spec, types)] or ["    ..."]
        out.append("    def __init__(self, *args: Any, **fields: Any) -> None: ...")
    for name, alias in records.amd_names(module).items():
        out.append(f"{alias} = {name}")
    for m in module.macros:
        out.append(f"{m.name}: {type(common.macro_value(m.value)).__name__}")
    for name, lib in common.reexports(spec, types).items():
        if not name.startswith("_"):   # an enum's base class (_X__Base) is no public name
            out.append(f"from hip.{lib} import {name} as {name}")
    for fp in plans:
        for form in ([fp.amd, fp] if fp.amd else [fp]):   # AMD's HIP Python's call form, then C's
            params = [f"{pp.param.name}: {pp.py_type}" for pp in form.params if pp.py is not None]
            returns = f"tuple[{', '.join(t for _, t in form.returned)}]" if form.returned else "None"
            out += ["@overload"] * (fp.amd is not None)
            out.append(f"def {fp.fn.name}({', '.join(params)}) -> {returns}: ...")
    for a, t in module.aliases.items():
        e = types.enumerators.get(t)
        if e is not None:   # `#define HIPSOLVER_OP_N HIPBLAS_OP_N`: an enum member (a constant if anonymous)
            out.append(f"{a}: {'int' if e.anonymous else e.name}")
        else:
            out.append(f"{a} = {t}")
    if spec.conventions.anonymous_names == "cuda_bindings":
        out += [f"{a} = {r}" for a, r in module.anonymous_names().items()]
    return "\n".join(out) + "\n"
