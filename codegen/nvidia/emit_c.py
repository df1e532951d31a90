"""Writes one layer library's C source and its coverage report.

Layout of the file: CUDA headers; HIP's types re-declared with the `hipabi_`
prefix (sizes and offsets asserted against libclang's layout); enum and struct
converters; the hand-written part (manual/<lib>.c); one exported function per
HIP function: a bridge to its CUDA counterpart, or a stub returning the
library's not-supported status. The bridges are codegen/bridge/emit.py's, in the
direction HIP -> CUDA (`Layer`): CUDA's function is linked (weakly) or, where the
spec says `dlopen`, looked up in CUDA's library on first use.
"""
from __future__ import annotations

import json
import re

from .. import ir
from ..types import TypeIndex
from ..bridge import match
from ..bridge.convert import PREFIX, Converter
from ..bridge.emit import Bridges
from ..bridge.spec import NvSpec


class Layer(Bridges):
    source, target, prefix = "HIP", "CUDA", "hipnv"

    def __init__(self, module: ir.Module, hip_types: TypeIndex, cuda_module: ir.Module, spec: NvSpec):
        self.m, self.cuda = module, cuda_module
        self.h = hip_types
        self.c = TypeIndex(cuda_module)
        super().__init__(spec, Converter(self.h, self.c, spec), to_cuda=True)
        self.cfuncs = {f.name: f for f in cuda_module.functions}
        self.aliases: list[str] = []
        self.weak: set[str] = set()
        self.fps: set[str] = set()
        # CUDA functions named like HIP ones (NCCL and RCCL): CUDA's are renamed while its headers are read.
        self.collisions = sorted({f.name for f in module.functions} & set(self.cfuncs)) if spec.dlopen else []
        self.required_hip_enums: list[ir.Enum] = []     # their enumerators are #defined too
        for pair in spec.require:
            self._enum_pair(*pair)
        for name in spec.require_records:     # the hand-written part's (hipKernelNodeParams)
            r = self.h.records.get(name) or (self.h.record_of(self.h.typedefs[name].type)
                                             if name in self.h.typedefs else None)
            if r is not None:
                self.cv.need(r.name)

    # -- lookups ---------------------------------------------------------------------
    def _enum_pair(self, hname: str, cname: str):
        # A HIP name may be a #define of another enum in some ROCm versions (hiprtcJIT_option is
        # hipJitOption from ROCm 6): resolved here, the hand-written part keeps the spec's name.
        he, ce = self.h.enum_named(self.m.aliases.get(hname, hname)), self.c.enum_named(cname)
        if ce is None:
            raise ValueError(f"{self.spec.library}: 'require' names no CUDA enum {cname}")
        if he is None:   # older headers (hiprtc's linker enums came in ROCm 5.3)
            return
        # The hand-written part compiles what uses the pair only where the headers have it.
        self.aliases.append(f"#define HIPNV_HAS_{hname} 1")
        if he not in self.required_hip_enums:
            self.required_hip_enums.append(he)
        to_h, to_c = self.cv.enum_to_hip(he, ce), self.cv.enum_to_cuda(he, ce)
        # The spec's names for the hand-written part (CUresult's enum is cudaError_enum in the IR).
        for alias, fn in ((f"hipnv_{hname}_from_{cname}", to_h), (f"hipnv_{cname}_from_{hname}", to_c)):
            if alias != fn:
                self.aliases.append(f"#define {alias} {fn}")

    def names(self, f: ir.Function) -> list[str]:
        """The function's name, then HIP's #define aliases of it (hipGetDeviceProperties for
        hipGetDevicePropertiesR0600): specs use the name every HIP version has."""
        return match.known_names(f.name, self.m.aliases)

    def cuda_function(self, f: ir.Function) -> tuple[ir.Function | None, list[str]]:
        tried = self.spec.cuda_candidates(self.names(f))
        for n in tried:
            n = match.resolve_alias(n, self.cfuncs, self.cuda.aliases)   # cuMemcpyHtoD -> cuMemcpyHtoD_v2
            if n in self.cfuncs:
                return self.cfuncs[n], tried
        return None, tried

    # -- the direction's part of the bridges ------------------------------------------------
    def candidates(self, f: ir.Function) -> tuple[list[ir.Function], list[str]]:
        cf, tried = self.cuda_function(f)
        return ([cf] if cf else []), tried

    def source_status(self, t: ir.CType) -> ir.Enum | None:
        return self.h.enums[self.cv.status_enum] if self.h.is_enum(t, self.cv.status_enum) else None

    def enum_in(self, se: ir.Enum, te: ir.Enum) -> str:
        return self.cv.enum_to_cuda(se, te)

    def enum_out(self, se: ir.Enum, te: ir.Enum, value: str, ok: str) -> str:
        # CUDA's value HIP has no name for: the status `unknown`, or the value as it is
        return f"{self.cv.enum_to_hip(se, te)}({value})"

    def call(self, f: ir.Function, cf: ir.Function, args: list[str]) -> tuple[list[str], list[str], str]:
        if self.spec.dlopen:
            cname = f"hipnv_cuda_{cf.name}" if cf.name in self.collisions else cf.name
            return [], [f"__typeof__(&{cname}) fp_ = (__typeof__(&{cname}))hipnv_sym(\"{cf.name}\", &hipnv_fp_{cf.name});",
                        f"if (!fp_) {self.zero_return(f, 'not_supported')}"], f"fp_({', '.join(args)})"
        # Declared weak: a function the headers declare but this CUDA's library lacks (cuSPARSE
        # dropped many) leaves the layer loadable and answers "not supported".
        return [f"if (!&{cf.name}) {self.zero_return(f, 'not_supported')}"], [], f"{cf.name}({', '.join(args)})"

    def bridged(self, cf: ir.Function) -> None:
        (self.fps if self.spec.dlopen else self.weak).add(cf.name)

    # -- one function ----------------------------------------------------------------
    def signature(self, f: ir.Function) -> str:
        for t in [f.result] + [p.type for p in f.params]:
            r = self.h.resolve(t)
            if r.kind == "record" and r.name in self.h.records:
                self.cv.need(r.name)   # passed by value: C needs its definition
        params = ", ".join(self.cv.hspell(p.type, p.name or f"a{i}") for i, p in enumerate(f.params)) or "void"
        return f"HIPNV_EXPORT {self.cv.hspell(f.result, f.name + '(' + params + ')')}"

    # -- the file --------------------------------------------------------------------
    def functions(self) -> list[str]:
        return [t for t in (self.function(f, f) for f in self.m.functions) if t]

    def declarations(self) -> list[str]:
        h = self.h
        out = ["/* HIP's types with HIP's layout (from the ROCm headers), prefixed to sit beside CUDA's. */"]
        for name in sorted(h.records):
            out.append(f"{h.records[name].kind} {PREFIX}{name};")
        for name in sorted(h.enums):
            out.append(f"typedef {h.enums[name].underlying} {PREFIX}{name};")
        for t in h.typedefs.values():
            if t.name in h.enums or t.name in h.records:
                continue
            out.append(f"typedef {self.cv.hspell(t.type, PREFIX + t.name)};")
        # HIP's #define aliases of types and enumerators (hipDeviceProp_t -> hipDeviceProp_tR0600 on
        # ROCm 6): the hand-written part names what every HIP version has.
        funcs = {f.name for f in self.m.functions}
        out += [f"#define {PREFIX}{a} {PREFIX}{t}" for a, t in self.m.aliases.items() if t not in funcs]
        # Enumerators of this library's enums, and of the enums `require` names (hiprtc's linker
        # takes hip's hipJitOption), for the hand-written part (hipabi_hipSuccess ...).
        defined = set()
        for e in list(self.m.enums) + self.required_hip_enums:
            for k in e.constants:
                if k.name not in defined:
                    defined.add(k.name)
                    out.append(f"#define {PREFIX}{k.name} ({k.value})")
        for name in self.spec.name_tables:
            seen, cases = set(), []
            for k in h.enums[name].constants:
                if k.value not in seen:
                    seen.add(k.value)
                    cases.append(f'    case {k.value}: return "{k.name}";')
            out += [f"static const char* hipnv_name_{name}(int v) {{", "    switch (v) {", *cases,
                    "    default: return NULL;", "    }", "}"]
        return out

    def record_definitions(self) -> list[str]:
        h, done, out = self.h, set(), []

        def visit(name):
            if name in done:
                return
            done.add(name)
            rec = h.records[name]
            for f in rec.fields:
                t = h.resolve(f.type)
                while t.kind == "array":
                    t = h.resolve(t.pointee)
                if t.kind == "record" and t.name in h.records:
                    visit(t.name)
            fields, i = [], 0
            fl = rec.fields
            if not rec.public or not fl:   # a C++ class with private members (__half): its bytes
                fl = []
                fields = [f"    unsigned char hipnv_bytes[{rec.size}];"]
            while i < len(fl):
                # libclang lists an anonymous union's members flat, at one offset: group them again.
                j = i + 1
                while rec.kind == "struct" and fl[i].bit_width < 0 and j < len(fl) \
                        and fl[j].offset_bits == fl[i].offset_bits:
                    j += 1
                group = [self._field(f, k) for k, f in enumerate(fl[i:j], i)]
                fields += group if j == i + 1 else ["    union {", *["    " + g for g in group], "    };"]
                i = j
            out.append(f"{rec.kind} {PREFIX}{name} {{\n" + "\n".join(fields) +
                       f"\n}} __attribute__((aligned({rec.align})));")
            out.append(f"_Static_assert(sizeof({rec.kind} {PREFIX}{name}) == {rec.size}, \"{name}: HIP's size\");")
            for f in fl:
                if f.bit_width < 0 and f.name:
                    out.append(f"_Static_assert(offsetof({rec.kind} {PREFIX}{name}, {f.name}) == "
                               f"{f.offset_bits // 8}, \"{name}.{f.name}: HIP's offset\");")
            out.extend(f"#define HIPNV_FIELD_{PREFIX}{name}_{f.name} 1" for f in fl if f.name)
        for n in sorted(self.cv.needed_records):
            if h.records[n].size >= 0:
                visit(n)
        return out

    def _field(self, f: ir.Field, i: int) -> str:
        bits = f" : {f.bit_width}" if f.bit_width >= 0 else ""
        return f"    {self.cv.hspell(f.type, f.name or f'hipnv_anon{i}')}{bits};"

    def emit(self, hip_version: str, cuda_version: str, cuda_headers: list[str]) -> str:
        funcs = self.functions()          # plans everything: converters and needed records follow
        manual = ""
        if self.spec.manual_source:
            manual = open(self.spec.manual_source).read()
        for name in self.spec.manual:
            if not re.search(rf"\b{re.escape(name)}\s*\(", manual):
                raise ValueError(f"{self.spec.library}: manual function {name} is not defined in "
                                 f"{self.spec.manual_source}")
        conv = [c.split(" {", 1)[0] + ";" for _, c in sorted(self.cv.converters.items())] + [""] + \
            [c for _, c in sorted(self.cv.converters.items())] + self.aliases
        records = self.record_definitions()
        head = [f"/* Generated by codegen.nvidia from ROCm {hip_version} headers ({', '.join(self.m.headers)}) "
                f"and CUDA {cuda_version} headers ({', '.join(cuda_headers)}); do not edit. */",
                "#define _GNU_SOURCE 1   /* dladdr: the hand-written parts find libraries beside CUDA's */",
                "#include <stddef.h>", "#include <stdint.h>", "#include <stdlib.h>", "#include <string.h>",
                *[f"#define {n} hipnv_cuda_{n}" for n in self.collisions],
                *[f"#include <{x}>" for x in cuda_headers],
                *[f"#undef {n}" for n in self.collisions],
                '#define HIPNV_EXPORT __attribute__((visibility("default")))',
                "/* `#if HIPNV_HAS_FIELD(hipDeviceProp_t, deviceOverlap)`: 1 where these headers' struct has the",
                " * field (ROCm 5's lacks some), through HIP's aliases; for the hand-written part. */",
                "#define HIPNV_HAS_FIELD(rec, field) HIPNV_HAS_FIELD_(hipabi_##rec, field)",
                "#define HIPNV_HAS_FIELD_(rec, field) HIPNV_HAS_FIELD__(rec, field)   /* expands the alias */",
                "#define HIPNV_HAS_FIELD__(rec, field) HIPNV_FIELD_##rec##_##field", ""]
        if self.spec.dlopen:
            names = ", ".join(f'"{n}"' for n in self.spec.dlopen)
            head += ["#include <dlfcn.h>",
                     "/* CUDA's library, opened privately on first use (its names equal the layer's). */",
                     "static void* hipnv_sym(const char* name, void** cache) {",
                     "    static void* lib;",
                     f"    static const char* const names[] = {{{names}}};",
                     "    void* p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);",
                     "    if (p) return p;",
                     "    if (!__atomic_load_n(&lib, __ATOMIC_ACQUIRE)) {",
                     "        for (size_t i = 0; i < sizeof names / sizeof *names && !lib; i++) {",
                     "            void* h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);",
                     "            if (h) __atomic_store_n(&lib, h, __ATOMIC_RELEASE);",
                     "        }",
                     "        if (!lib) return NULL;",
                     "    }",
                     "    p = dlsym(lib, name);",
                     "    __atomic_store_n(cache, p, __ATOMIC_RELEASE);",
                     "    return p;",
                     "}", ""]
        return "\n".join(head + self.declarations() + [""] + records + [""] + conv + [""] +
                         ["/* ---- hand-written part: codegen/nvidia/manual/" + f"{self.spec.library}.c ---- */",
                          manual, "/* ---- generated bridges ---- */"] +
                         [f"#pragma weak {n}" for n in sorted(self.weak)] +
                         [f"static void* hipnv_fp_{n};" for n in sorted(self.fps)] + funcs) + "\n"

    def coverage_report(self, hip_version: str, cuda_version: str) -> dict:
        st = [v["status"] for v in self.coverage.values()]
        counterpart = [k for k, v in self.coverage.items() if "cuda" in v or v["status"] == "manual"]
        bridged = [k for k in counterpart if self.coverage[k]["status"] in ("bridged", "manual")]
        return {
            "library": self.spec.library, "rocm_version": hip_version, "cuda_version": cuda_version,
            "summary": {"functions": len(st), "bridged": st.count("bridged"), "manual": st.count("manual"),
                        "not_supported": st.count("not_supported"), "with_cuda_counterpart": len(counterpart),
                        "bridged_of_counterpart_pct": round(100 * len(bridged) / max(1, len(counterpart)), 1)},
            "functions": dict(sorted(self.coverage.items())),
            "struct_fields_not_bridged": dict(sorted(self.cv.unmatched_fields.items())),
        }


def library_files(lib, ns: NvSpec, cuda: ir.Module, hip_version: str, cuda_version: str) -> list[tuple[str, str]]:
    """The layer of one analysed HIP library (codegen.generate.Library) against CUDA's IR: its C
    source and its coverage report, as (file name, text)."""
    layer = Layer(lib.module, lib.types, cuda, ns)
    text = layer.emit(hip_version, cuda_version, ns.cuda_headers)
    report = layer.coverage_report(hip_version, cuda_version)
    return [(f"hipnv_{ns.library}.c", text), (f"hipnv_{ns.library}.json", json.dumps(report, indent=1) + "\n")]
