"""Generation driver: specs + headers -> IR -> emitted files."""
from __future__ import annotations

import os
import re

from . import clang_parse, intent, ir, spec as specmod
from .ir_builder import Builder
from .types import TypeIndex


def header_version(include_dir: str) -> str:
    """ROCm/HIP version of the headers, from hip/hip_version.h."""
    path = os.path.join(include_dir, "hip", "hip_version.h")
    v = {}
    with open(path) as f:
        for m in re.finditer(r"#define HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", f.read()):
            v[m.group(1)] = m.group(2)
    return f"{v['MAJOR']}.{v['MINOR']}.{v['PATCH']}"


def build_ir(spec: specmod.Spec, include_dir: str, all_specs: dict[str, specmod.Spec]) -> ir.Module:
    owners = {}
    for s in all_specs.values():
        for prefix in s.owns:
            owners[prefix] = s.library
    version = header_version(include_dir)
    tus = []
    for h in spec.headers:
        path = os.path.join(include_dir, h)
        tus.append(clang_parse.parse(path, [include_dir], spec.defines, spec.language))
    b = Builder(spec.library, include_dir, owners)
    module = None
    for tu in tus:   # one builder over every header: declarations seen once
        module = b.build(tu, spec.headers, version, spec.language) if module is None else module
    return module


def analyse(module: ir.Module, spec: specmod.Spec, deps: list[ir.Module]) -> TypeIndex:
    types = TypeIndex(module, deps)
    bound = {f.name for f in module.functions} | set(types.records) | set(types.typedefs) | set(types.enums)
    module.aliases = {a: t for a, t in sorted(module.aliases.items()) if t in bound and a not in bound}
    intent.apply(module, spec, types)
    return types
