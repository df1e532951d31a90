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


def has_headers(include_dir: str, spec: specmod.Spec) -> bool:
    """Whether include_dir holds every header the spec parses."""
    return all(os.path.isfile(os.path.join(include_dir, h)) for h in spec.headers)


def available(include_dir: str, spec_dir: str = specmod.SPEC_DIR) -> tuple[list[str], list[str]]:
    """(libraries include_dir has the headers of, with those of their dependencies; the others),
    both in dependency order: what "every library" means for one ROCm installation."""
    have, missing = [], []
    for lib in specmod.all_libraries(spec_dir):
        s = specmod.load(lib, spec_dir)
        ok = has_headers(include_dir, s) and all(d in have for d in s.depends)
        (have if ok else missing).append(lib)
    return have, missing


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
    types = TypeIndex(module, deps, handles)
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


def ignore_file(all_specs: dict[str, specmod.Spec]) -> str:
    """The .gitignore written beside the generated files: every file the generator may write
    there, for every library that has a spec (generating a few must not un-ignore the others)."""
    names = ["/.gitignore", "/_coverage/"]
    for s in all_specs.values():
        names += [f"/{s.cimport_module}.pxd", f"/{s.cimport_module}.pyx", f"/{s.python_module}.pyx",
                  f"/{s.python_module}.pyi"]
    return "# Written by codegen: what it generates here (never committed).\n" + "\n".join(names) + "\n"


def analyse_all(include_dir: str, libraries: list[str], spec_dir: str = specmod.SPEC_DIR
                ) -> tuple[dict[str, specmod.Spec], dict[str, tuple[ir.Module, TypeIndex]]]:
    """Every spec, scoped to the headers' ROCm version, and the analysed IR (module, TypeIndex)
    of `libraries` and what they depend on, in dependency order."""
    version = header_version(include_dir)
    order = specmod.all_libraries(spec_dir)
    all_specs = {n: specmod.load(n, spec_dir, version) for n in order}
    wanted = set(libraries)
    for lib in libraries:   # dependencies are analysed too (their IR is needed)
        wanted.update(all_specs[lib].depends)
    out: dict[str, tuple[ir.Module, TypeIndex]] = {}
    for lib in order:
        if lib in wanted:
            spec = all_specs[lib]
            deps = [out[d][0] for d in spec.depends]
            module = build_ir(spec, include_dir, all_specs, deps)
            out[lib] = (module, analyse(module, spec, deps, all_specs))
    return all_specs, out


def generate_all(include_dir: str, libraries: list[str], out_dir: str, dump_ir: str | None = None,
                 spec_dir: str = specmod.SPEC_DIR, unmatched: dict | None = None,
                 write_ignore_file: bool = True) -> list[str]:
    """Generate `libraries` (and what they depend on) into out_dir; return the files written.
    `unmatched`, when given, receives each library's spec entries that match nothing in these
    headers (specmod.unmatched); `write_ignore_file` writes out_dir/.gitignore (ignore_file)."""
    return emit_all(*analyse_all(include_dir, libraries, spec_dir), out_dir, dump_ir, unmatched, write_ignore_file)


def emit_all(all_specs: dict[str, specmod.Spec], analysed: dict[str, tuple[ir.Module, TypeIndex]], out_dir: str,
             dump_ir: str | None = None, unmatched: dict | None = None, write_ignore_file: bool = True) -> list[str]:
    """The second half of generate_all: write what analyse_all returned."""
    from .emit import cdecl, clayer, coverage, pylayer, stubs
    written: list[str] = []
    os.makedirs(out_dir, exist_ok=True)
    for lib, (module, types) in analysed.items():
        spec = all_specs[lib]
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
        if unmatched is not None:
            unmatched[lib] = specmod.unmatched(spec, module, types)
    if write_ignore_file:
        _write(os.path.join(out_dir, ".gitignore"), ignore_file(all_specs), written)
    return written
