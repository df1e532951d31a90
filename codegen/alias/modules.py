"""The `cuda` alias's modules: CUDA's headers analysed as cuda.bindings' modules, and the files of
each (codegen.generate.generate_alias writes them)."""
from __future__ import annotations

import os

from .. import clang_parse, generate as hipgen, ir, plan, spec as specmod
from ..ir_builder import Builder
from ..bridge import cuda_ir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_DIR = os.path.join(ROOT, "hip_as_cuda", "specs")
OUT_DIR = os.path.join(ROOT, "hip_as_cuda", "cuda", "bindings")


def load_specs(spec_dir: str = SPEC_DIR) -> dict[str, specmod.Spec]:
    return {n: specmod.load(n, spec_dir) for n in specmod.all_libraries(spec_dir)}


def build_ir(spec: specmod.Spec, cuda_include: str) -> tuple[ir.Module, list]:
    """The module's IR: every declaration in the files the spec owns (paths under cuda_include),
    and the types of those it owns_types (its include_dirs' stand-ins: EGL/, GL/, vdpau/). The
    headers are one translation unit, in the spec's order, as the compiled module includes them.
    Returned with the parsed translation units."""
    dirs = [cuda_include, *spec.include_paths()]
    paths = [cuda_ir.find_header(dirs, h) for h in spec.headers]
    tus = [clang_parse.parse_together(paths, dirs, spec.defines, spec.language)]
    owners = {prefix: spec.library for prefix in (*spec.owns, *spec.owns_types)}
    mod = Builder(spec.library, dirs, owners, None, set(spec.owns_types)).build(
        tus, spec.headers, cuda_ir.cuda_version([cuda_include]), spec.language)
    mod.api = "CUDA"
    cuda_ir.add_wrapped_aliases(mod, tus)
    return mod, tus


def _parameter_tokens(tokens: list[str]) -> list[list[str]]:
    """A function declaration's tokens split into its parameters' (after the first '(')."""
    out, depth, cur = [], 0, None
    for t in tokens:
        if cur is None:
            if t == "(":
                cur, depth = [], 1
            continue
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
            if depth == 0:
                break
        if t == "," and depth == 1:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    return out + ([cur] if cur else [])


def type_spellings(mod: ir.Module, tus) -> tuple[dict, dict]:
    """The header's type macros (`#define cudaStreamAttrID cudaLaunchAttributeID`: name -> the
    type), and (function, parameter) -> the macro a parameter's declaration spells (the IR has the
    type it expands to)."""
    names = {t.name for t in mod.typedefs} | {e.name for e in mod.enums} | {r.name for r in mod.records}
    macros = {}
    for tu in tus:
        for name, toks in clang_parse.macro_definitions(tu):
            if len(toks) == 2 and toks[1] in names and name not in names:
                macros[name] = ir.CType("typedef", toks[1]) if any(t.name == toks[1] for t in mod.typedefs) \
                    else ir.CType("enum" if any(e.name == toks[1] for e in mod.enums) else "record", toks[1])
    functions = {f.name for f in mod.functions}
    spelled = {}
    for tu in tus:
        for c in tu.cursor.get_children():
            if c.kind.name != "FUNCTION_DECL" or c.spelling not in functions:
                continue
            # The declaration's tokens, not each parameter's: a parameter whose type is a macro
            # has an extent libclang gives no tokens for.
            for p, words in zip(c.get_arguments(), _parameter_tokens([t.spelling for t in c.get_tokens()])):
                words = [w for w in words if w not in ("const", "struct", "enum")]
                if words and words[0] in macros:
                    spelled[(c.spelling, p.spelling)] = words[0]
    used = set(spelled.values())
    return {k: v for k, v in macros.items() if k in used}, spelled


def analyse(spec: specmod.Spec, cuda_include: str) -> hipgen.Library:
    module, tus = build_ir(spec, cuda_include)
    # Python names cuda.bindings gives C parameters that clash with Python's (`type` -> `typename`):
    # renamed in the IR, before the spec's intents (which use the new names) apply.
    renames = spec.conventions.param_names
    macros, spelled = type_spellings(module, tus) if spec.cimport is not None and spec.cimport.type_macros == "typedef" else ({}, {})
    spelled = {(f, renames.get(p, p)): m for (f, p), m in spelled.items()}
    for f in module.functions:
        for p in f.params:
            p.name = renames.get(p.name, p.name)
    header_types = name_struct_handles(module) if spec.conventions.handle_classes == "typedef" else {}
    types = hipgen.analyse(module, spec, [], {spec.library: spec})
    from ..emit import cdecl
    return hipgen.Library(spec, module, types, cdecl.Style.of(module, spec, macros, spelled, header_types))


def name_struct_handles(module: ir.Module) -> dict:
    """A parameter written `struct X*` (`struct cudaGraphicsResource **resource` of the runtime's
    interop registrations) where one typedef of the module names that opaque struct's pointer
    (cudaGraphicsResource_t) is that typedef, the same C type: the call takes and returns the
    typedef's handle class, as cuda.bindings' does. Returns (function, parameter) -> the type the
    header wrote, which the cimport layer keeps."""
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
    header = {}
    for f in module.functions:
        for p in f.params:
            t = named(p.type)
            if t != p.type:
                header[(f.name, p.name)], p.type = p.type, t
    return header


def handle_bases(spec: specmod.Spec, libs: dict, all_specs: dict, cuda_include: str) -> dict[str, str]:
    """Struct tag -> the handle class of the module `conventions.handle_bases` names, for the
    structs both modules' handle typedefs point at (runtime's cudaStream_t and driver's CUstream
    are both `struct CUstream_st*`): cuda.bindings derives the one from the other."""
    base = spec.conventions.handle_bases
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


def cimport_manual(library: str) -> str:
    """The hand-written end of a cimport layer's .pxd (hip_as_cuda/manual/<library>.pxd): functions
    cuda.bindings' cy* module has that its header does not declare (cyruntime's make_cudaPos)."""
    path = os.path.join(ROOT, "hip_as_cuda", "manual", f"{library}.pxd")
    return open(path).read() if os.path.exists(path) else ""


def module_files(spec: specmod.Spec, all_specs: dict[str, specmod.Spec], libs: dict, hip_sides: dict,
                 cuda_include: str, rocm_include: str) -> list[tuple[str, str]]:
    """The files of one module: (path under the output folder, text). `libs` (module -> its
    analysed Library) and `hip_sides` (HIP library -> its bridge.HipSide) are shared by the
    modules of one generation."""
    from ..emit import cdecl, pylayer, stubs
    from . import bridge
    lib = libs[spec.library] = analyse(spec, cuda_include)
    if spec.bridge.hip not in hip_sides:
        hip_sides[spec.bridge.hip] = bridge.hip_side(spec.bridge.hip, rocm_include, cuda_include,
                                                     list(all_specs.values()))
    c = spec.cimport_module
    b = bridge.Bridge(lib, hip_sides[spec.bridge.hip], cuda_include)
    bridge_c = b.c_source()   # first: it decides which functions are not supported
    plans = plan.build(lib.module, spec, lib.types, frozenset(
        n for n, cov in b.coverage.items() if cov["status"] == "not_supported"))
    bases = handle_bases(spec, libs, all_specs, cuda_include)
    py = spec.python_module
    return [(f"{c}.pxd", cdecl.emit(lib.module, spec, lib.types, all_specs, lib.style) + cimport_manual(spec.library)),
            (f"_bridge_{spec.library}.c", bridge_c),
            (f"{c}.pyx", b.cy_source()),
            (f"{py}.pxd", pylayer.declarations(lib.module, spec, lib.types, bases)),
            (f"{py}.pyx", pylayer.emit(lib.module, spec, lib.types, all_specs, plans, bases,
                                       python_manual(py, "pyx"), lib.style)),
            (f"{py}.pyi", stubs.emit(lib.module, spec, lib.types, plans) + python_manual(py, "pyi")),
            (f"_coverage/{spec.library}.json", b.coverage_json())]
