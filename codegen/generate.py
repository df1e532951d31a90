"""The one generation driver: specs + headers -> analysed IR -> files, for the three generations.

  generate_bindings  ROCm headers -> hip/<module>.pxd, .pyx, .pyi and _coverage/<library>.json
  generate_layer     ROCm + CUDA headers -> the HIP-on-CUDA layer: hipnv_<library>.c and its
                     coverage report (codegen/nvidia)
  generate_alias     CUDA + ROCm headers -> the `cuda` alias: hip_as_cuda/cuda/bindings/ (codegen/alias)

Each loads its specs, analyses the libraries (in dependency order) and hands each library's
files, as (path, text), to `write`, which writes only what changed (codegen/output.py).
`python -m codegen` is its command line.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

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
    return Builder(spec.library, dirs, owners, defined, types_only, set(spec.system_records)).build(
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


def ignore_file(all_specs: dict[str, specmod.Spec], extra: tuple[str, ...] = ()) -> str:
    """The .gitignore written beside the generated files: every file the generator may write
    there, for every library that has a spec (generating a few must not un-ignore the others)."""
    names = ["/.gitignore", "/_coverage/", *extra]
    for s in all_specs.values():
        names += [f"/{s.cimport_module}.pxd", f"/{s.cimport_module}.pyx", f"/{s.python_module}.pxd",
                  f"/{s.python_module}.pyx", f"/{s.python_module}.pyi"]
    return "# Written by codegen: what it generates here (never committed).\n" + "\n".join(names) + "\n"


def write(files: Iterable[tuple[str, str]], out_dir: str, written: list[str]) -> list[str]:
    """Write each (path under out_dir, text) whose file does not hold that text yet; append every
    path to `written`, the files this run produced (and return it)."""
    for rel, text in files:
        path = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_if_changed(path, text, written)
    return written


def analyse_libraries(include_dir: str, names: list[str], all_specs: dict[str, specmod.Spec]) -> Iterator[Library]:
    """Parse and analyse the libraries `names` and every library they depend on, in dependency
    order (a library's IR needs its dependencies' IR), from the headers under `include_dir`.

    Yields each as it is ready; dependencies are yielded too (generate_bindings emits them as well).
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


def generate_bindings(include_dir: str, libraries: list[str], out_dir: str, dump_ir: str | None = None,
                      spec_dir: str = specmod.SPEC_DIR, unmatched: dict | None = None,
                      write_ignore_file: bool = True) -> list[str]:
    """Generate `libraries` (and what they depend on) into out_dir, with the specs scoped to the
    headers' ROCm version; return the files written. `dump_ir` receives each library's IR as JSON;
    `unmatched`, when given, each library's spec entries that match nothing in these headers
    (spec.unmatched); `write_ignore_file` writes out_dir/.gitignore (ignore_file)."""
    all_specs = load_specs(spec_dir, header_version(include_dir))
    written: list[str] = []
    for lib in analyse_libraries(include_dir, libraries, all_specs):
        if dump_ir:
            write([(f"{lib.spec.library}.json", lib.module.to_json())], dump_ir, written)
        write(library_files(lib, all_specs), out_dir, written)
        if unmatched is not None:
            unmatched[lib.spec.library] = specmod.unmatched(lib.spec, lib.module, lib.types)
    if write_ignore_file:
        write([(".gitignore", ignore_file(all_specs))], out_dir, written)
    return written


def library_files(lib: Library, all_specs: dict[str, specmod.Spec]) -> list[tuple[str, str]]:
    """One analysed library's files: (path, text)."""
    from .emit import cdecl, clayer, coverage, pylayer, stubs
    spec, module, types = lib.spec, lib.module, lib.types
    plans = plan.build(module, spec, types)
    c, py = spec.cimport_module, spec.python_module
    return [(f"{c}.pxd", cdecl.emit(module, spec, types, all_specs)),
            (f"{c}.pyx", clayer.emit(module, spec, types)),
            (f"{py}.pxd", pylayer.declarations(module, spec, types)),
            (f"{py}.pyx", pylayer.emit(module, spec, types, all_specs, plans)),
            (f"{py}.pyi", stubs.emit(module, spec, types, plans)),
            (f"_coverage/{spec.library}.json", coverage.emit(module, spec, types))]


def generate_layer(hip_include: str, cuda_includes: list[str], libraries: list[str], out_dir: str,
                   spec_dir: str = specmod.SPEC_DIR, nv_spec_dir: str | None = None) -> list[str]:
    """The HIP-on-CUDA layer of `libraries` into out_dir: hipnv_<library>.c and its coverage
    report hipnv_<library>.json (codegen/nvidia); return the files written."""
    from .bridge import cuda_ir, spec as bridgespec
    from .nvidia.emit_c import library_files as layer_files
    hip_version = header_version(hip_include)
    all_specs = load_specs(spec_dir, hip_version)
    analysed = {lib.spec.library: lib for lib in analyse_libraries(hip_include, libraries, all_specs)}
    cuda_version = cuda_ir.cuda_version(cuda_includes)
    written: list[str] = []
    for name in libraries:
        ns = bridgespec.load(name, nv_spec_dir or bridgespec.SPEC_DIR, hip_version)
        cuda = cuda_ir.build(ns.cuda_headers, cuda_includes, ns.defines)
        write(layer_files(analysed[name], ns, cuda, hip_version, cuda_version), out_dir, written)
    return written


def generate_alias(cuda_include: str, rocm_include: str, modules: list[str] | None = None,
                   out_dir: str | None = None, spec_dir: str | None = None) -> list[str]:
    """The `cuda` alias's modules (all by default) into out_dir (hip_as_cuda/cuda/bindings/), from
    the specs in spec_dir (hip_as_cuda/specs/); return the files written."""
    from .alias import modules as alias
    all_specs = alias.load_specs(spec_dir or alias.SPEC_DIR)
    out_dir = out_dir or alias.OUT_DIR
    written: list[str] = []
    libs, hip_sides = {}, {}
    # A module whose handle classes derive from another's (runtime's from driver's) comes after it.
    for name in sorted(modules or list(all_specs), key=lambda n: all_specs[n].conventions.handle_bases != ""):
        write(alias.module_files(all_specs[name], all_specs, libs, hip_sides, cuda_include, rocm_include),
              out_dir, written)
    write([(".gitignore", ignore_file(all_specs, ("/_bridge_*.c",)))], out_dir, written)
    return written
