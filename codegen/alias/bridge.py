"""The alias's C layer: each CUDA function of a module, implemented by its HIP counterpart.

This is the HIP-on-CUDA layer (codegen/nvidia) read the other way: the one bridge generator
(codegen/bridge/emit.py) in the direction CUDA -> HIP (`Bridge`). The same pieces do the work:
the name matcher finds, for a CUDA function, the HIP functions whose candidates it is
(`Matcher.functions(..., to=HIP)`); the same Converter pairs each CUDA parameter with the HIP
one in its place (a cast where the bits agree, enumerators and struct fields by name where
they do not); the same prelude re-declares HIP's types with the `hipabi_` prefix beside
CUDA's headers, so no HIP header meets a CUDA one in a translation unit.

Two files per module:
  _bridge_<module>.c   `hipcuda_<cuda function>()`: convert in, call HIP through a pointer
                       resolved on first use, convert out, HIP's status -> CUDA's by name
  <cimport>.pyx        the `cy*` layer: the C API's prototypes (from <cimport>.pxd), each
                       calling its bridge; HIP's functions come from our loader (the
                       `Library` of hip.chip / hip.chiprtc), so the platform (ROCm or the
                       NVIDIA layer) is the one `hip` uses
A symbol missing from the HIP library raises, as every cimport-layer call does: the
resolver sets the Python error and the bridge returns the prototype's `except?` value.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass

from .. import generate as hipgen, ir, spec as specmod
from ..emit import cdecl, common
from ..bridge import cuda_ir, match, spec as nvspec
from ..bridge.convert import NoBridge
from ..bridge.emit import Bridges
from ..nvidia.emit_c import Layer
from ..types import TypeIndex

MANUAL_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "hip_as_cuda", "manual")


# bridge.context_as_device: a CUDA context's device, where HIP takes a device (cuMemcpyPeer's
# contexts; hipMemcpyPeer takes device ordinals). HIP asks only the current context for its device
# (hipCtxGetDevice), so the context is pushed, asked and popped.
def _first_sentence(comment: str) -> str:
    """The first sentence of a Doxygen comment, its markup dropped ('This indicates that ...')."""
    text = re.sub(r"\\[a-z]+\s+|::|</?\w+>", "", comment or "")
    text = " ".join(text.replace("/**<", " ").replace("/**", " ").replace("*/", " ").replace("*", " ").split())
    m = re.match(r"(.+?\.)(\s|$)", text)
    return (m.group(1) if m else text)[:300]


def _c_string(text: str) -> str:
    """A C string literal of text."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


CTX_DEVICE = """/* 0 with *dev set, HIP's status, or -1 when HIP lacks a function (the Python error is set). */
static void* hipcuda_fn(void** slot, const char* name) {
    void* f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f) { f = hipcuda_resolve(name); if (f) __atomic_store_n(slot, f, __ATOMIC_RELEASE); }
    return f;
}
static int hipcuda_ctx_device(void* ctx, int* dev) {
    static void *push_, *get_, *pop_;
    int (*push)(void*) = (int (*)(void*))hipcuda_fn(&push_, "hipCtxPushCurrent");
    int (*get)(int*) = push ? (int (*)(int*))hipcuda_fn(&get_, "hipCtxGetDevice") : NULL;
    int (*pop)(void**) = get ? (int (*)(void**))hipcuda_fn(&pop_, "hipCtxPopCurrent") : NULL;
    void* old = NULL;
    int e;
    if (!pop) return -1;
    e = push(ctx);
    if (e) return e;
    e = get(dev);
    pop(&old);
    return e;
}"""


@dataclass
class HipSide:
    """A HIP library as the bridges see it: its IR and types, its nvidia spec (the name rules),
    and the layer over it whose converters and `hipabi_` declarations the bridges share."""
    name: str
    spec: specmod.Spec
    module: ir.Module
    types: TypeIndex
    nv: nvspec.NvSpec
    layer: Layer
    version: str
    cuda_headers: list[str]


def _unique(items) -> list:
    return list(dict.fromkeys(items))


def hip_side(name: str, rocm_include: str, cuda_include: str, alias_specs: list[specmod.Spec] = ()) -> HipSide:
    """The HIP library `name` as the bridges of the alias modules in alias_specs that go to it see
    it. Its CUDA IR is the layer's headers and those modules' (one translation unit, so what the
    bridges' C includes, in that order); its HIP IR adds their `bridge.hip_headers` (HIP headers
    that `hip` does not bind: the GL interop), parsed after the library's own."""
    version = hipgen.header_version(rocm_include)
    all_specs = hipgen.load_specs(specmod.SPEC_DIR, version)
    mine = [s for s in alias_specs if s.bridge.hip == name]
    dirs = _unique(d for s in mine for d in s.include_paths())
    extra = _unique(h for s in mine for h in s.bridge.hip_headers)
    if extra:
        base = all_specs[name]
        if base.depends:
            raise ValueError(f"bridge.hip_headers: {name} depends on {base.depends}, which hip_side does not parse")
        spec = dataclasses.replace(base, headers=_unique([*base.headers, *extra]),
                                   include_dirs=_unique([*base.include_dirs, *(d for s in mine for d in s.include_dirs)]),
                                   owns_types=_unique([*base.owns_types, *(p for s in mine for p in s.owns_types)]))
        all_specs = {**all_specs, name: spec}
        module = hipgen.build_ir(spec, rocm_include, all_specs, [], together=True)
        lib = hipgen.Library(spec, module, hipgen.analyse(module, spec, [], all_specs))
    else:
        lib = next(l for l in hipgen.analyse_libraries(rocm_include, [name], all_specs) if l.spec.library == name)
    ns = nvspec.load(name, rocm=version)
    headers = _unique([*ns.cuda_headers, *(h for s in mine for h in s.headers)])
    cuda = cuda_ir.build(headers, [cuda_include, *dirs], ns.defines, together=True, type_dirs=dirs)
    return HipSide(name, lib.spec, lib.module, lib.types, ns, Layer(lib.module, lib.types, cuda, ns), version,
                   headers)


class Bridge(Bridges):
    source, target, prefix = "CUDA", "HIP", "hipcuda"
    manual_replaces = False    # the hand-written part (Cython) may call the generated bridge
    out_needs_ok = True

    def __init__(self, lib: hipgen.Library, hip: HipSide, cuda_include: str):
        self.lib, self.hip = lib, hip
        self.layer = hip.layer
        super().__init__(lib.spec.bridge, hip.layer.cv, to_cuda=False)
        self.h, self.c = hip.layer.h, hip.layer.c       # HIP's and CUDA's type indexes (the layer's)
        self.cuda_version = cuda_ir.cuda_version([cuda_include])
        hnames = [f.name for f in hip.module.functions]
        self.hfuncs = {f.name: f for f in hip.module.functions}
        matcher = match.Matcher.for_spec(hip.nv)
        self.matches = matcher.functions(hnames, list(hip.layer.cfuncs), hip.module.aliases,
                                         hip.layer.cuda.aliases, to=match.HIP)
        self.converters: dict[str, str] = {}
        self.bodies = [self.function(f, self.cuda_function(f)) for f in common.bound_functions(lib.module)]

    def manual_reason(self, f: ir.Function) -> str | None:
        """bridge.manual names a function by its C name or by the name the cimport layer gives it
        (`cuGraphAddNode` for `cuGraphAddNode_v2`), as the cimport layer's hand-written part
        defines it."""
        style = self.lib.style or cdecl.Style()
        return self.spec.manual.get(f.name) or self.spec.manual.get(style.name(f))

    # -- statuses --------------------------------------------------------------------------
    def status_of(self, t: ir.CType) -> ir.Enum | None:
        e = self.c.enum_of(self.c.resolve(t))
        return e if e is not None and e.name in self._status_enums() else None

    def _status_enums(self) -> set[str]:
        return {self.c.resolve(ir.CType("typedef", n)).name if n in self.c.typedefs else n
                for n in ("CUresult", "cudaError_t", "nvrtcResult")}

    def source_status(self, t: ir.CType) -> ir.Enum | None:
        return self.status_of(t)

    def status_value(self, e: ir.Enum, key: str) -> int:
        """The CUDA status named by the spec's bridge.status.<key> (not_supported, unknown, invalid;
        success: the module's `success`)."""
        name = getattr(self.spec.status, key) or (self.lib.spec.success if key == "success" else "")
        if not name:
            raise ValueError(f"{self.lib.spec.library}.yaml: bridge.status.{key} is not set")
        return next(k.value for k in e.constants if k.name == name)

    def hip_status_to_cuda(self, f: ir.Function, cres: ir.Enum) -> tuple[str, ir.Enum]:
        he = self.h.enum_of(self.h.resolve(f.result))
        return self.cv.enum_to_cuda(he, cres), he

    # -- enumerators CUDA -> HIP for inputs (an unmatched value is refused, not passed on) ------
    def enum_in(self, ce: ir.Enum, he: ir.Enum) -> str:
        fn = f"hipcuda_{he.name}_from_{ce.name}"
        if fn not in self.converters:
            m = self.cv.enum_map(he, ce)
            cval = {k.name: k.value for k in ce.constants}
            hval = {k.name: k.value for k in he.constants}
            back: dict[int, int] = {}
            for hn, cn in m.items():
                back.setdefault(cval[cn], hval[hn])
            # the spec's CUDA enumerators a differently named HIP one answers (bridge.enumerators)
            for cn, hn in self.spec.enumerators.items():
                if cn in cval and hn in hval:
                    back[cval[cn]] = hval[hn]
            cases = [f"    case {cv}: return {hv};" for cv, hv in sorted(back.items())]
            self.converters[fn] = "\n".join([f"static inline int {fn}(int v, int* ok) {{", "    switch (v) {",
                                             *cases, "    default: *ok = 0; return 0;", "    }", "}"])
        return fn

    def enum_out(self, se: ir.Enum, te: ir.Enum, value: str, ok: str) -> str:
        # HIP's value CUDA has no name for: *ok = 0 (the bridge decides: `unknown`, or 0)
        return f"{self.cv.enum_to_cuda(te, se)}({value}, &{ok})"

    # -- one function -----------------------------------------------------------------------
    def cuda_function(self, f: ir.Function) -> ir.Function:
        """f (of this module's IR) as the layer's CUDA IR has it: the types the bridges share."""
        cf = self.layer.cfuncs.get(f.name)
        if cf is None:
            raise ValueError(f"{f.name}: not in the layer's CUDA IR ({', '.join(self.hip.cuda_headers)})")
        return cf

    def candidates(self, cf: ir.Function) -> tuple[list[ir.Function], None]:
        renamed = self.spec.rename.get(cf.name)
        names = [renamed] if renamed else self.matches.get(cf.name, [])
        return [self.hfuncs[n] for n in names if n in self.hfuncs], None

    def signature(self, cf: ir.Function) -> str:
        params = ", ".join(self.cv.cspell_c(p.type, p.name or f"a{i}") for i, p in enumerate(cf.params)) or "void"
        return f"static {self.cv.cspell_c(cf.result, f'hipcuda_{cf.name}(' + params + ')')}"

    def special(self, f: ir.Function, cf: ir.Function) -> str | None:
        if f.name in self.spec.status_names:
            self.coverage[f.name] = {"status": "bridged", "hip": "", "reason": "CUDA's own enumerator names"}
            return self.status_names(cf)
        return None

    def status_names(self, cf: ir.Function) -> str:
        """cuGetErrorName(error, &name) / cudaGetErrorName(error) / nvrtcGetErrorString(result): the
        CUDA status's enumerator name (HIP's function would name HIP's)."""
        st = self.status_of(cf.params[0].type)
        if st is None:
            raise ValueError(f"{cf.name}: bridge.status_names needs a status as the first parameter")
        x = cf.params[0].name
        body = self.status_switch(st, x, lambda k: k.name)
        if len(cf.params) == 2:      # the status-returning form: the name through the pointer
            out = cf.params[1].name
            body += [f"if (!{out}) {self.zero_return(cf, 'invalid')}", f"*{out} = s_;",
                     f"if (!s_) {self.zero_return(cf, 'invalid')}", "return 0;"]
        else:
            body.append('return s_ ? s_ : "unrecognized error code";')
        return "\n".join([self.signature(cf) + " {", *["    " + b for b in body], "}"])

    @staticmethod
    def status_switch(st: ir.Enum, x: str, text) -> list[str]:
        """C lines that set `const char* s_` to text(enumerator) of the CUDA status x (NULL for a
        value st has no enumerator of)."""
        seen, cases = set(), []
        for k in st.constants:
            if k.value not in seen:
                seen.add(k.value)
                cases.append(f"    case {k.value}: s_ = {_c_string(text(k))}; break;")
        return ["const char* s_ = NULL;", f"switch ((int){x}) {{", *cases, "    default: break;", "}"]

    def status_text(self, cf: ir.Function, st: ir.Enum) -> str:
        """cuGetErrorString / cudaGetErrorString of a CUDA status HIP has no counterpart for
        (bridge.status_texts): the first sentence of its description in CUDA's header, so every
        status has a text (HIP's text for the others)."""
        x = cf.params[0].name
        body = ["{", *["    " + b for b in self.status_switch(st, x, lambda k: _first_sentence(k.comment) or k.name)]]
        if len(cf.params) == 2:
            out = cf.params[1].name
            body += [f"    if (!{out} || !s_) {self.zero_return(cf, 'invalid')}", f"    *{out} = s_;", "    return 0;", "}"]
        else:
            body += ['    return s_ ? s_ : "unrecognized error code";', "}"]
        return "\n    ".join(body)   # lines of their own: one long line would cost gcc its column tracking

    def _bridge_arg(self, style, fn: ir.Function, p: ir.Param) -> str:
        """A cimport-layer parameter as the C bridge takes it: the header's type where the layer
        spells it otherwise (cdecl.Style), void* where it points at a Cython-level type."""
        t = style.param_type(fn, p)
        if p.type.kind == "pointer" and style.mentions_cython_level(t):
            return f"<void*>{p.name}"
        return p.name if t == p.type else f"<{self.lib.types.cy(p.type)}>{p.name}"

    def not_supported_value(self, fn: ir.Function) -> str:
        """The not-supported status as a Cython expression, for a function the cimport layer
        answers itself (one taking a Cython-level record by value: the C bridge cannot take it)."""
        if self.coverage.get(fn.name, {}).get("status") != "not_supported":
            raise ValueError(f"{fn.name} takes a type the spec's cimport.cython_level declares in Cython "
                             "by value, and HIP has it: the bridge cannot be called")
        return f"<{self.lib.types.cy(fn.result)}>{self.status_value(self.status_of(fn.result), 'not_supported')}"

    def refused(self, cf: ir.Function, i: int, p: ir.Param, se: ir.Enum) -> str:
        if i == 0 and cf.name in self.spec.status_texts and self.status_of(p.type) is not None:
            return self.status_text(cf, se)
        return super().refused(cf, i, p, se)

    def convert_param(self, cf: ir.Function, hf: ir.Function, i: int, p: ir.Param, hp: ir.Param,
                      pre: list[str], args: list[str], frees: list[str]) -> bool:
        if not any(re.fullmatch(rx, f"{cf.name}.{p.name}") for rx in self.spec.context_as_device.params):
            return False
        # A context where HIP takes its device (cuMemcpyPeer's dstContext): the context's device,
        # asked of HIP with the context current for a moment.
        x, t = p.name or f"a{i}", f"hipcuda_t{i}"
        if not (self.c.resolve(p.type).kind == "pointer" and self.h.number_layout(self.h.resolve(hp.type))) \
                or self.status_of(cf.result) is None:
            raise NoBridge(f"parameter {x}: context_as_device needs a context where HIP takes a device")
        conv, _ = self.hip_status_to_cuda(hf, self.status_of(cf.result))
        self.helpers["hipcuda_ctx_device"] = CTX_DEVICE
        rt = self.cv.cspell_c(cf.result)
        unknown = self.status_value(self.status_of(cf.result), "unknown")
        pre += [f"int {t} = 0;",
                f"{{ int e_ = hipcuda_ctx_device((void*){x}, &{t}); "
                f"if (e_ < 0) {self.freeing(frees, self.missing(cf))} "
                f"if (e_ > 0) {{ int ok_ = 1; {rt} c_ = ({rt}){conv}(e_, &ok_); "
                f"{self.freeing(frees, f'return ok_ ? c_ : ({rt}){unknown};')} }} }}"]
        args.append(f"({self.cv.hspell(hp.type)}){t}")
        return True

    def call(self, cf: ir.Function, hf: ir.Function, args: list[str]) -> tuple[list[str], list[str], str]:
        """Through HIP's function, resolved on first use."""
        hparams = ", ".join(self.cv.hspell(q.type) for q in hf.params) or "void"
        fptype = self.cv.hspell(hf.result, f"(*)({hparams})")
        exiting = [f"if (__builtin_expect(hipcuda_exited, 0)) {self.zero_return(cf, 'exiting')}"] \
            if self.spec.status.exiting and self.status_of(cf.result) is not None else []
        return exiting, ["static void* fp_;", "void* f_ = __atomic_load_n(&fp_, __ATOMIC_ACQUIRE);",
                         f"if (!f_) {{ f_ = hipcuda_resolve(\"{hf.name}\"); if (!f_) {self.missing(cf)} "
                         "__atomic_store_n(&fp_, f_, __ATOMIC_RELEASE); }"], f"(({fptype})f_)({', '.join(args)})"

    def missing(self, cf: ir.Function) -> str:
        """Return the prototype's except? value: the resolver has set the Python error."""
        r = self.c.resolve(cf.result)
        if r.kind == "void":
            return "return;"
        if r.kind == "record":   # `except *`: Cython checks the error after every call
            return f"{{ {self.cv.cspell_c(cf.result, 'z')}; memset(&z, 0, sizeof z); return z; }}"
        return f"return ({self.cv.cspell_c(cf.result)}){self.except_value(cf)};"

    def except_value(self, cf: ir.Function) -> str:
        fn = next(f for f in self.lib.module.functions if f.name == cf.name)
        clause = cdecl.except_clause(fn, self.lib.types, self.lib.style)
        m = re.match(r"except\? (?:<[^>]*>)?(.+)", clause)
        if not m or m.group(1) == "NULL":
            return "0"
        return m.group(1)

    # -- the files ----------------------------------------------------------------------------
    def c_source(self) -> str:
        layer, cv = self.layer, self.cv
        records = layer.record_definitions()
        conv = [c.split(" {", 1)[0] + ";" for _, c in sorted(cv.converters.items())] + [""] + \
            [c for _, c in sorted(cv.converters.items())] + layer.aliases + [""] + \
            [c for _, c in sorted(self.converters.items())]
        head = [f"/* Generated by codegen.alias from CUDA {self.cuda_version} headers ({', '.join(self.lib.spec.headers)}) "
                f"and ROCm {self.hip.version} headers; do not edit. */",
                "#include <stddef.h>", "#include <stdint.h>", "#include <stdlib.h>", "#include <string.h>",
                *[f"#include <{x}>" for x in self.hip.cuda_headers],
                "#if defined(__GNUC__)", '#pragma GCC diagnostic ignored "-Wunused-function"', "#endif",
                "/* HIP's function by name, from the loader `hip` uses (set by the cy module at import);",
                " * NULL with the Python error set when the library or the symbol is missing. */",
                "static void* (*hipcuda_resolve)(const char* name);",
                "/* Set once Python has finalized (Py_AtExit, the cy module): what compiled code calls",
                "   from its destructors at exit() answers CUDA's status for a runtime already gone",
                "   (bridge.status.exiting) and HIP, which unloads then too, is not called. */",
                "static int hipcuda_exited;", ""]
        helpers = [h for _, h in sorted(self.helpers.items())]
        return "\n".join(head + layer.declarations() + [""] + records + [""] + conv + [""] + helpers + [""]
                         + self.bodies) + "\n"

    def cy_source(self) -> str:
        spec, types = self.lib.spec, self.lib.types
        funcs = common.bound_functions(self.lib.module)
        loader = {"hip": "chip", "hiprtc": "chiprtc"}[self.hip.name]
        out = [common.banner(self.lib.module), "# cython: language_level=3",
               f'"""C layer of the {spec.doc}: the CUDA C API (cimport it), each function bridged to HIP\'s."""',
               "from libc.stdint cimport *", "from libc.stddef cimport wchar_t",
               "from cpython.exc cimport PyErr_SetObject",
               "from hip._loader cimport Library",
               f"from hip import {loader} as _hip_c_layer   # a Python import: loads nothing",
               "",
               f'cdef extern from "_bridge_{spec.library}.c":',
               "    void* (*hipcuda_resolve)(const char*) noexcept nogil",
               "    int hipcuda_exited"]
        style = self.lib.style or cdecl.Style()
        direct = {}   # function -> the status it returns without a bridge call (see below)
        for fn in funcs:
            # A type declared in Cython (style.cython_level) is not the C header's: a pointer to
            # one reaches the bridge as void*; a function taking one by value that HIP lacks
            # answers its not-supported status here.
            if any(style.mentions_cython_level(style.param_type(fn, p)) and p.type.kind != "pointer"
                   and types.resolve(p.type).kind == "record" for p in fn.params):
                direct[fn.name] = self.not_supported_value(fn)
                continue
            params = ", ".join("void*" if p.type.kind == "pointer" and style.mentions_cython_level(
                style.param_type(fn, p)) else types.cy(p.type) for p in fn.params)
            out.append(f"    {types.cy(fn.result)} _b_{fn.name} \"hipcuda_{fn.name}\"({params}) nogil")
        out += ["",
                "cdef Library _lib = _hip_c_layer.library",
                "",
                "cdef extern from \"<dlfcn.h>\":",
                "    void* dlsym(void* handle, const char* symbol) noexcept nogil",
                "",
                "cdef void* _handle = NULL   # the library's, once open: read without Python",
                "",
                "cdef void* _resolve(const char* name) noexcept nogil:",
                "    # Once the library is open, no Python object is touched: a first call at interpreter",
                "    # exit (a destructor of compiled code that holds our function pointers, after this",
                "    # module's globals are cleared) resolves too.",
                "    global _handle",
                "    cdef void* p = dlsym(_handle, name) if _handle != NULL else NULL",
                "    if p != NULL:",
                "        return p",
                "    with gil:",
                "        try:",
                "            p = _lib.symbol(name)",
                "            _handle = _lib.handle",
                "            return p",
                "        except BaseException as e:",
                "            PyErr_SetObject(type(e), e)   # reported by the caller's except? check",
                "            return NULL",
                "",
                "hipcuda_resolve = _resolve",
                "",
                "cdef extern from \"Python.h\":",
                "    int Py_AtExit(void (*func)() noexcept nogil)",
                "",
                "cdef void _exited() noexcept nogil:",
                "    global hipcuda_exited",
                "    hipcuda_exited = 1",
                "",
                "Py_AtExit(_exited)",
                "",
                "class _Library:",
                '    """What `has_symbol` asks: a CUDA function this module bridges to HIP."""',
                f"    bridged = frozenset({sorted(k for k, v in self.coverage.items() if v['status'] == 'bridged')!r})",
                "    def has_symbol(self, name):",
                "        return name in self.bridged",
                "library = _Library()", ""]
        manual = self.spec.manual
        for fn in funcs:
            if fn.name in manual or style.name(fn) in manual:
                continue
            if fn.name in direct:
                out += [f"cdef {cdecl.prototype(fn, types, style=style)}:", f"    return {direct[fn.name]}", ""]
                continue
            args = ", ".join(self._bridge_arg(style, fn, p) for p in fn.params)
            ret = "" if types.resolve(fn.result).kind == "void" else "return "
            out += [f"cdef {cdecl.prototype(fn, types, style=style)}:", f"    {ret}_b_{fn.name}({args})", ""]
        if manual:
            path = os.path.join(MANUAL_DIR, f"{spec.library}.pyx")
            text = open(path).read()
            for name in manual:
                if not re.search(rf"\b{re.escape(name)}\s*\(", text):
                    raise ValueError(f"{spec.library}.yaml: bridge.manual names {name}, which {path} does not define")
            out += [f"# ---- hand-written: hip_as_cuda/manual/{spec.library}.pyx " + "-" * 30, text]
        return "\n".join(out) + "\n"

    def coverage_json(self) -> str:
        st = [v["status"] for v in self.coverage.values()]
        return json.dumps({"module": self.lib.spec.library, "cuda_version": self.cuda_version,
                           "rocm_version": self.hip.version,
                           "summary": {"functions": len(st), "bridged": st.count("bridged"),
                                       "not_supported": st.count("not_supported")},
                           "functions": dict(sorted(self.coverage.items()))}, indent=1) + "\n"
