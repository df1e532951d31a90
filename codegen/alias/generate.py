"""Generation driver of the `cuda` alias: specs + CUDA headers (+ ROCm headers) -> files."""
from __future__ import annotations

import os

from .. import clang_parse, generate as hipgen, ir, plan, spec as specmod
from ..ir_builder import Builder
from ..nvidia import cuda_ir
from ..output import write_if_changed
from ..types import TypeIndex

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_DIR = os.path.join(ROOT, "hip_as_cuda", "specs")
OUT_DIR = os.path.join(ROOT, "hip_as_cuda", "cuda", "bindings")


def load_specs(spec_dir: str = SPEC_DIR) -> dict[str, specmod.Spec]:
    return {n: specmod.load(n, spec_dir) for n in specmod.all_libraries(spec_dir)}


def build_ir(spec: specmod.Spec, cuda_include: str) -> ir.Module:
    """The module's IR: every declaration in the files the spec owns (paths under cuda_include),
    and the types of those it owns_types (its include_dirs' stand-ins: EGL/, GL/, vdpau/). The
    headers are one translation unit, in the spec's order, as the compiled module includes them."""
    dirs = [cuda_include, *spec.include_paths()]
    paths = [cuda_ir.find_header(dirs, h) for h in spec.headers]
    tus = [clang_parse.parse_together(paths, dirs, spec.defines, spec.language)]
    owners = {prefix: spec.library for prefix in (*spec.owns, *spec.owns_types)}
    mod = Builder(spec.library, dirs, owners, None, set(spec.owns_types)).build(
        tus, spec.headers, cuda_ir.cuda_version([cuda_include]), spec.language)
    mod.api = "CUDA"
    cuda_ir.add_wrapped_aliases(mod, tus)
    return mod


def analyse(spec: specmod.Spec, cuda_include: str) -> hipgen.Library:
    module = build_ir(spec, cuda_include)
    # Python names cuda.bindings gives C parameters that clash with Python's (`type` -> `typename`):
    # renamed in the IR, before the spec's intents (which use the new names) apply.
    renames = spec.conventions.get("param_names", {})
    for f in module.functions:
        for p in f.params:
            p.name = renames.get(p.name, p.name)
    if spec.conventions.get("handle_classes") == "typedef":
        name_struct_handles(module)
    types = hipgen.analyse(module, spec, [], {spec.library: spec})
    return hipgen.Library(spec, module, types)


def name_struct_handles(module: ir.Module) -> None:
    """A parameter written `struct X*` (`struct cudaGraphicsResource **resource` of the runtime's
    interop registrations) where one typedef of the module names that opaque struct's pointer
    (cudaGraphicsResource_t) is that typedef, the same C type: the call takes and returns the
    typedef's handle class, as cuda.bindings' does."""
    names: dict[str, list[str]] = {}
    opaque = {r.name for r in module.records if r.size < 0}
    for td in module.typedefs:
        t = td.type
        if t.kind == "pointer" and t.pointee.kind == "record" and not t.pointee.const and t.pointee.name in opaque:
            names.setdefault(t.pointee.name, []).append(td.name)

    def named(t: ir.CType) -> ir.CType:
        if t.kind == "pointer" and t.pointee.kind == "record" and not t.pointee.const \
                and len(names.get(t.pointee.name, ())) == 1:
            return ir.CType("typedef", names[t.pointee.name][0], t.const)
        if t.kind == "pointer":
            return ir.CType("pointer", t.name, t.const, named(t.pointee))
        return t
    for f in module.functions:
        for p in f.params:
            p.type = named(p.type)


def handle_bases(spec: specmod.Spec, libs: dict, all_specs: dict, cuda_include: str) -> dict[str, str]:
    """Struct tag -> the handle class of the module `conventions.handle_bases` names, for the
    structs both modules' handle typedefs point at (runtime's cudaStream_t and driver's CUstream
    are both `struct CUstream_st*`): cuda.bindings derives the one from the other."""
    base = spec.conventions.get("handle_bases")
    if not base:
        return {}
    if base not in libs:
        libs[base] = analyse(all_specs[base], cuda_include)
    other = libs[base]
    out: dict[str, str] = {}
    for td in other.module.typedefs:
        t = ir.CType("typedef", td.name)
        if other.types.is_handle(t):
            r = other.types.resolve(other.types.resolve(t).pointee)
            if r.kind == "record" and not (r.name in other.types.records and other.types.records[r.name].size >= 0):
                out.setdefault(r.name, td.name)
    return out


def python_manual(module: str, ext: str) -> str:
    """The hand-written end of a Python module (hip_as_cuda/manual/py_<module>.pyx) or of its stubs
    (.pyi): cuda.bindings' helpers that are no CUDA library function (make_cudaPos, sizeof)."""
    path = os.path.join(ROOT, "hip_as_cuda", "manual", f"py_{module}.{ext}")
    if not os.path.exists(path):
        return ""
    return f"\n# ---- hand-written: hip_as_cuda/manual/py_{module}.{ext} " + "-" * 30 + "\n" + open(path).read()


def ignore_file(all_specs: dict[str, specmod.Spec]) -> str:
    names = ["/.gitignore", "/_coverage/", "/_bridge_*.c"]
    for s in all_specs.values():
        names += [f"/{s.cimport_module}.pxd", f"/{s.cimport_module}.pyx", f"/{s.python_module}.pxd",
                  f"/{s.python_module}.pyx", f"/{s.python_module}.pyi"]
    return "# Written by codegen.alias: what it generates here (never committed).\n" + "\n".join(names) + "\n"


def generate_all(cuda_include: str, rocm_include: str, modules: list[str] | None = None,
                 out_dir: str = OUT_DIR, spec_dir: str = SPEC_DIR) -> list[str]:
    """Generate the alias modules (all by default) into out_dir; return the files written."""
    from ..emit import cdecl, coverage as _cov, pylayer, stubs
    from . import bridge
    all_specs = load_specs(spec_dir)
    written: list[str] = []
    os.makedirs(out_dir, exist_ok=True)
    hip_libs, libs = {}, {}
    names = modules or list(all_specs)
    # A module whose handle classes derive from another's (runtime's from driver's) comes after it.
    names = sorted(names, key=lambda n: all_specs[n].conventions.get("handle_bases") is not None)
    for name in names:
        spec = all_specs[name]
        lib = libs[name] = analyse(spec, cuda_include)
        hip_name = spec.bridge.get("hip", "hip")
        if hip_name not in hip_libs:
            hip_libs[hip_name] = bridge.hip_side(hip_name, rocm_include, cuda_include, list(all_specs.values()))
        c = spec.cimport_module
        b = bridge.Bridge(lib, hip_libs[hip_name], cuda_include)
        bridge_c = b.c_source()   # first: it decides which functions are not supported
        plans = plan.build(lib.module, spec, lib.types, frozenset(
            n for n, cov in b.coverage.items() if cov["status"] == "not_supported"))
        write_if_changed(os.path.join(out_dir, f"{c}.pxd"), cdecl.emit(lib.module, spec, lib.types, all_specs), written)
        write_if_changed(os.path.join(out_dir, f"_bridge_{spec.library}.c"), bridge_c, written)
        write_if_changed(os.path.join(out_dir, f"{c}.pyx"), b.cy_source(), written)
        bases = handle_bases(spec, libs, all_specs, cuda_include)
        write_if_changed(os.path.join(out_dir, f"{spec.python_module}.pxd"),
                         pylayer.declarations(lib.module, spec, lib.types, bases), written)
        write_if_changed(os.path.join(out_dir, f"{spec.python_module}.pyx"),
                         pylayer.emit(lib.module, spec, lib.types, all_specs, plans, bases,
                                      python_manual(spec.python_module, "pyx")), written)
        write_if_changed(os.path.join(out_dir, f"{spec.python_module}.pyi"),
                         stubs.emit(lib.module, spec, lib.types, plans) + python_manual(spec.python_module, "pyi"),
                         written)
        os.makedirs(os.path.join(out_dir, "_coverage"), exist_ok=True)
        write_if_changed(os.path.join(out_dir, "_coverage", f"{spec.library}.json"), b.coverage_json(), written)
    write_if_changed(os.path.join(out_dir, ".gitignore"), ignore_file(all_specs), written)
    return written
