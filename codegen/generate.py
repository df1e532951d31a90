"""Generation driver: specs + headers -> IR -> emitted files."""
from __future__ import annotations

import os
import re

from . import clang_parse, intent, ir, plan, spec as specmod
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


def build_ir(spec: specmod.Spec, include_dir: str, all_specs: dict[str, specmod.Spec],
             deps: list[ir.Module] | None = None) -> ir.Module:
    owners, types_only = {}, set()
    for s in all_specs.values():
        for prefix in s.owns:
            owners[prefix] = s.library
        for prefix in s.owns_types:
            owners[prefix] = s.library
            types_only.add(prefix)
    version = header_version(include_dir)
    tus = []
    for h in spec.headers:
        path = os.path.join(include_dir, h)
        tus.append(clang_parse.parse(path, [include_dir], spec.defines, spec.language))
    # One builder over every header: a declaration included by several is seen once.
    defined = None
    if deps is not None:
        defined = {x.name for m in deps for x in (*m.typedefs, *m.records, *m.enums)}
    return Builder(spec.library, include_dir, owners, defined, types_only).build(
        tus, spec.headers, version, spec.language)


def analyse(module: ir.Module, spec: specmod.Spec, deps: list[ir.Module],
            all_specs: dict[str, specmod.Spec] | None = None) -> TypeIndex:
    specs = all_specs or {d.library: specmod.load(d.library) for d in deps}
    handles = [h for d in deps for h in specs[d.library].handles] + spec.handles
    nullable = [h for d in deps for h in specs[d.library].nullable_handles] + spec.nullable_handles
    types = TypeIndex(module, deps, handles, nullable)
    bound = {f.name for f in module.functions} | set(types.records) | set(types.typedefs) | set(types.enums) \
        | set(types.enumerators)
    module.aliases = {a: t for a, t in sorted(module.aliases.items()) if t in bound and a not in bound}
    module.unused_overrides = intent.apply(module, spec, types)
    return types


def _write(path: str, text: str, written: list[str]) -> None:
    """Write only when the content changed (keeps build tools from recompiling)."""
    try:
        with open(path) as f:
            if f.read() == text:
                written.append(path)
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)
    written.append(path)


def generate_all(include_dir: str, libraries: list[str], out_dir: str, dump_ir: str | None = None,
                 spec_dir: str = specmod.SPEC_DIR) -> list[str]:
    from .emit import cdecl, clayer, coverage, pylayer, stubs
    order = specmod.all_libraries(spec_dir)
    all_specs = {n: specmod.load(n, spec_dir) for n in order}
    wanted = set(libraries)
    for lib in libraries:   # dependencies are generated too (their IR is needed)
        wanted.update(all_specs[lib].depends)
    modules: dict[str, ir.Module] = {}
    written: list[str] = []
    os.makedirs(out_dir, exist_ok=True)
    for lib in order:
        if lib not in wanted:
            continue
        spec = all_specs[lib]
        deps = [modules[d] for d in spec.depends]
        module = build_ir(spec, include_dir, all_specs, deps)
        types = analyse(module, spec, deps, all_specs)
        modules[lib] = module
        if dump_ir:
            os.makedirs(dump_ir, exist_ok=True)
            _write(os.path.join(dump_ir, f"{lib}.json"), module.to_json(), written)
        plans = plan.build(module, spec, types)
        c = spec.cimport_module
        _write(os.path.join(out_dir, f"{c}.pxd"), cdecl.emit(module, spec, types, all_specs), written)
        _write(os.path.join(out_dir, f"{c}.pyx"), clayer.emit(module, spec, types), written)
        _write(os.path.join(out_dir, f"{spec.python_module}.pyx"), pylayer.emit(module, spec, types, all_specs, plans), written)
        _write(os.path.join(out_dir, f"{spec.python_module}.pyi"), stubs.emit(module, spec, types, plans), written)
        os.makedirs(os.path.join(out_dir, "_coverage"), exist_ok=True)
        _write(os.path.join(out_dir, "_coverage", f"{lib}.json"), coverage.emit(module, spec, types), written)
    return written
