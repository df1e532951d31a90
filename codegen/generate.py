"""Generation driver: specs + headers -> IR -> emitted files."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterator

from . import clang_parse, intent, ir, plan, spec as specmod
from .ir_builder import Builder
from .output import write_if_changed
from .types import TypeIndex


def header_version(include_dir: str) -> str:
    """ROCm/HIP version of the headers, from hip/hip_version.h."""
    path = os.path.join(include_dir, "hip", "hip_version.h")
    v = {}
    with open(path) as f:
        for m in re.finditer(r"#define HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", f.read()):
            v[m.group(1)] = m.group(2)
    return f"{v['MAJOR']}.{v['MINOR']}.{v['PATCH']}"


def has_headers(include_dir: str, spec: specmod.Spec) -> bool:
    """Whether include_dir holds every header the spec parses."""
    return all(os.path.isfile(os.path.join(include_dir, h)) for h in spec.headers)


def available(include_dir: str, spec_dir: str = specmod.SPEC_DIR) -> tuple[list[str], list[str]]:
    """(libraries include_dir has the headers of, with those of their dependencies; the others),
    both in dependency order: what "every library" means for one ROCm installation."""
    have, missing = [], []
    for lib, s in load_specs(spec_dir).items():
        ok = has_headers(include_dir, s) and all(d in have for d in s.depends)
        (have if ok else missing).append(lib)
    return have, missing


def build_ir(spec: specmod.Spec, include_dir: str, all_specs: dict[str, specmod.Spec],
             deps: list[ir.Module] | None = None, together: bool = False) -> ir.Module:
    """The library's IR from its headers, each parsed on its own, or (together) all in one
    translation unit in the spec's order, as a program including them would be (the `cuda`
    alias's bridge adds HIP's GL interop header, which uses GL's and HIP's types unincluded)."""
    owners, types_only = {}, set()
    for s in all_specs.values():
        for prefix in s.owns:
            owners[prefix] = s.library
        for prefix in s.owns_types:
            owners[prefix] = s.library
            types_only.add(prefix)
    version = header_version(include_dir)
    dirs = [include_dir, *spec.include_paths()]
    if together:   # a header may be one of include_dirs' (the GL stand-in before HIP's GL interop)
        paths = [next((p for p in (os.path.join(d, h) for d in dirs) if os.path.isfile(p)),
                      os.path.join(include_dir, h)) for h in spec.headers]
        tus = [clang_parse.parse_together(paths, dirs, spec.defines, spec.language)]
    else:
        tus = [clang_parse.parse(os.path.join(include_dir, h), dirs, spec.defines, spec.language) for h in spec.headers]
    # One builder over every header: a declaration included by several is seen once.
    defined = None
    if deps is not None:
        defined = {x.name for m in deps for x in (*m.typedefs, *m.records, *m.enums)}
    return Builder(spec.library, dirs, owners, defined, types_only).build(
        tus, spec.headers, version, spec.language)


def analyse(module: ir.Module, spec: specmod.Spec, deps: list[ir.Module],
            all_specs: dict[str, specmod.Spec] | None = None) -> TypeIndex:
    specs = all_specs or {d.library: specmod.load(d.library) for d in deps}
    handles = [h for d in deps for h in specs[d.library].handles] + spec.handles
    nullable = [h for d in deps for h in specs[d.library].nullable_handles] + spec.nullable_handles
    types = TypeIndex(module, deps, handles, nullable)
    types.handle_classes = spec.conventions.handle_classes
    bound = {f.name for f in module.functions} | set(types.records) | set(types.typedefs) | set(types.enums) \
        | set(types.enumerators)
    module.aliases = {a: t for a, t in sorted(module.aliases.items()) if t in bound and a not in bound}
    module.unused_overrides = intent.apply(module, spec, types)
    return types


@dataclass
class Library:
    """One library after analysis: its spec, its IR (intents applied) and the type index over it
    and its dependencies."""
    spec: specmod.Spec
    module: ir.Module
    types: TypeIndex
    style: object = None     # codegen.emit.cdecl.Style: how the cimport layer spells its C API


def load_specs(spec_dir: str = specmod.SPEC_DIR, rocm: str | None = None) -> dict[str, specmod.Spec]:
    """Every spec in `spec_dir`, in dependency order (each after what it depends on); with `rocm`
    (header_version()), each keeps only the entries whose `rocm:` range admits that version."""
    return {n: specmod.load(n, spec_dir, rocm) for n in specmod.all_libraries(spec_dir)}


def ignore_file(all_specs: dict[str, specmod.Spec]) -> str:
    """The .gitignore written beside the generated files: every file the generator may write
    there, for every library that has a spec (generating a few must not un-ignore the others)."""
    names = ["/.gitignore", "/_coverage/"]
    for s in all_specs.values():
        names += [f"/{s.cimport_module}.pxd", f"/{s.cimport_module}.pyx", f"/{s.python_module}.pxd",
                  f"/{s.python_module}.pyx", f"/{s.python_module}.pyi"]
    return "# Written by codegen: what it generates here (never committed).\n" + "\n".join(names) + "\n"


def analyse_libraries(include_dir: str, names: list[str], all_specs: dict[str, specmod.Spec]) -> Iterator[Library]:
    """Parse and analyse the libraries `names` and every library they depend on, in dependency
    order (a library's IR needs its dependencies' IR), from the headers under `include_dir`.

    Yields each as it is ready; dependencies are yielded too (generate_all emits them as well).
    `all_specs` is load_specs()'s dict (its order is the dependency order)."""
    wanted: set[str] = set()

    def want(n):
        if n not in wanted:
            wanted.add(n)
            for d in all_specs[n].depends:
                want(d)
    for n in names:
        want(n)
    modules: dict[str, ir.Module] = {}
    for lib, spec in all_specs.items():
        if lib not in wanted:
            continue
        deps = [modules[d] for d in spec.depends]
        module = build_ir(spec, include_dir, all_specs, deps)
        types = analyse(module, spec, deps, all_specs)
        modules[lib] = module
        yield Library(spec, module, types)


def generate_all(include_dir: str, libraries: list[str], out_dir: str, dump_ir: str | None = None,
                 spec_dir: str = specmod.SPEC_DIR, unmatched: dict | None = None,
                 write_ignore_file: bool = True) -> list[str]:
    """Generate `libraries` (and what they depend on) into out_dir, with the specs scoped to the
    headers' ROCm version; return the files written. `unmatched`, when given, receives each
    library's spec entries that match nothing in these headers (spec.unmatched);
    `write_ignore_file` writes out_dir/.gitignore (ignore_file)."""
    all_specs = load_specs(spec_dir, header_version(include_dir))
    written: list[str] = []
    for lib in analyse_libraries(include_dir, libraries, all_specs):
        emit_library(lib, all_specs, out_dir, written, dump_ir)
        if unmatched is not None:
            unmatched[lib.spec.library] = specmod.unmatched(lib.spec, lib.module, lib.types)
    if write_ignore_file:
        write_if_changed(os.path.join(out_dir, ".gitignore"), ignore_file(all_specs), written)
    return written


def emit_library(lib: Library, all_specs: dict[str, specmod.Spec], out_dir: str, written: list[str],
                 dump_ir: str | None = None) -> None:
    """Write one analysed library's files (its IR too, into `dump_ir`); append their paths to `written`."""
    from .emit import cdecl, clayer, coverage, pylayer, stubs
    spec, module, types = lib.spec, lib.module, lib.types
    os.makedirs(out_dir, exist_ok=True)
    if dump_ir:
        os.makedirs(dump_ir, exist_ok=True)
        write_if_changed(os.path.join(dump_ir, f"{spec.library}.json"), module.to_json(), written)
    plans = plan.build(module, spec, types)
    c = spec.cimport_module
    write_if_changed(os.path.join(out_dir, f"{c}.pxd"), cdecl.emit(module, spec, types, all_specs), written)
    write_if_changed(os.path.join(out_dir, f"{c}.pyx"), clayer.emit(module, spec, types), written)
    write_if_changed(os.path.join(out_dir, f"{spec.python_module}.pxd"), pylayer.declarations(module, spec, types),
                     written)
    write_if_changed(os.path.join(out_dir, f"{spec.python_module}.pyx"),
                     pylayer.emit(module, spec, types, all_specs, plans), written)
    write_if_changed(os.path.join(out_dir, f"{spec.python_module}.pyi"),
                     stubs.emit(module, spec, types, plans), written)
    os.makedirs(os.path.join(out_dir, "_coverage"), exist_ok=True)
    write_if_changed(os.path.join(out_dir, "_coverage", f"{spec.library}.json"),
                     coverage.emit(module, spec, types), written)
