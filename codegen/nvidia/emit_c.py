"""Writes one layer library's C source and its coverage report.

Layout of the file: CUDA headers; HIP's types re-declared with the `hipabi_`
prefix (sizes and offsets asserted against libclang's layout); enum and struct
converters; the hand-written part (manual/<lib>.c); one exported function per
HIP function: a bridge to its CUDA counterpart, or a stub returning the
library's not-supported status.
"""
from __future__ import annotations

import re

from .. import ir
from ..types import TypeIndex
from ..bridge import match
from ..bridge.convert import PREFIX, Converter, NoBridge
from ..bridge.spec import NvSpec


class Layer:
    def __init__(self, module: ir.Module, hip_types: TypeIndex, cuda_module: ir.Module, spec: NvSpec):
        self.m, self.spec, self.cuda = module, spec, cuda_module
        self.h = hip_types
        self.c = TypeIndex(cuda_module)
        self.cv = Converter(self.h, self.c, spec)
        self.cfuncs = {f.name: f for f in cuda_module.functions}
        self.coverage: dict[str, dict] = {}
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

    def status_value(self, key: str) -> int | None:
        name = getattr(self.spec.status, key)
        if not name:
            return None
        return Converter.enumerator_value(self.h.enums[self.cv.status_enum], name)

    def returns_status(self, f: ir.Function) -> bool:
        return self.h.is_enum(f.result, self.cv.status_enum)

    # -- one function ----------------------------------------------------------------
    def signature(self, f: ir.Function) -> str:
        for t in [f.result] + [p.type for p in f.params]:
            r = self.h.resolve(t)
            if r.kind == "record" and r.name in self.h.records:
                self.cv.need(r.name)   # passed by value: C needs its definition
        params = ", ".join(self.cv.hspell(p.type, p.name or f"a{i}") for i, p in enumerate(f.params)) or "void"
        return f"HIPNV_EXPORT {self.cv.hspell(f.result, f.name + '(' + params + ')')}"

    def zero_return(self, f: ir.Function, status_key: str) -> str:
        r = self.h.resolve(f.result)
        if r.kind == "void":
            return "return;"
        if self.returns_status(f):
            return f"return {self.status_value(status_key)};"
        if r.kind == "record":
            return f"{{ {self.cv.hspell(f.result, 'z')}; memset(&z, 0, sizeof z); return z; }}"
        return f"return ({self.cv.hspell(f.result)})0;"

    def bridge(self, f: ir.Function, cf: ir.Function) -> str:
        if f.variadic or cf.variadic:
            raise NoBridge("variadic")
        dropped = {n for rx, names in self.spec.drop.items() if re.fullmatch(rx, f.name) for n in names}
        kept = [(i, p) for i, p in enumerate(f.params) if p.name not in dropped]
        # CUDA parameters HIP lacks, passed as 0/NULL (the spec's `fill`: CUDA 13's cuCtxCreate params)
        filled = {n for rx, names in self.spec.fill.items() if re.fullmatch(rx, f.name) for n in names}
        cparams = [cp for cp in cf.params if cp.name not in filled]
        if len(kept) != len(cparams):
            raise NoBridge(f"{cf.name} takes {len(cf.params)} parameters, HIP's {len(kept)}")
        cv, h, c = self.cv, self.h, self.c
        invalid = self.zero_return(f, "invalid")
        pre, args, post = [f"(void){p.name};" for p in f.params if p.name in dropped], [], []
        frees: list[str] = []   # copies made for the call, freed after it
        for (i, p), cp in zip(kept, cparams):
            x = p.name or f"a{i}"
            ht, ct = h.resolve(p.type), c.resolve(cp.type)
            cspell = cv.cspell_c(cp.type)
            t = f"hipnv_t{i}"
            loc = self.spec.device_as_location
            if ct.kind == "record" and h.number_layout(ht) and any(
                    re.fullmatch(rx, f"{f.name}.{p.name}") for rx in loc.params):
                # A device ordinal where CUDA 13 takes a memory location (hipMemAdvise's device).
                pre.append(f"{cv.cspell_c(cp.type, t)} = {{ .type = ({x} == -1 ? {loc.host} : {loc.device}), "
                           f".id = ({x} == -1 ? 0 : {x}) }};")
                args.append(t)
                continue
            if cv.same_bits(p.type, cp.type):
                if ht.kind == "record":
                    cv.need(ht.name)
                    args.append(f"*({cspell}*)&{x}")
                elif (ht.kind == "pointer") != (ct.kind == "pointer"):
                    args.append(f"({cspell})(uintptr_t){x}")
                else:
                    args.append(f"({cspell}){x}")
                continue
            he, ce = h.enum_of(ht), c.enum_of(ct)
            hn, cn = h.number_layout(ht), c.number_layout(ct)
            if he and ce:
                pre += [f"int ok{i} = 1;",
                        f"{cspell} {t} = ({cspell}){cv.enum_to_cuda(he, ce)}((int){x}, &ok{i});",
                        f"if (!ok{i}) {invalid}"]
                args.append(t)
                continue
            if (he or hn) and (ce or cn):
                args.append(f"({cspell}){x}")
                continue
            if (ht.kind == "pointer" and cn and not cn[1]) or (ct.kind == "pointer" and hn and not hn[1]):
                args.append(f"({cspell})(intptr_t){x}")   # hipfftHandle (a pointer) ~ cufftHandle (an int)
                continue
            hr, cr = h.record_of(ht), c.record_of(ct)
            if hr and cr:
                pre += [f"{cspell} {t}; memset(&{t}, 0, sizeof {t});",
                        f"{cv.record_converter(hr, cr, True)}(&{t}, &{x});"]
                args.append(t)
                continue
            if ht.kind == "pointer" and ct.kind == "pointer" and p.shape.startswith("array[") \
                    and p.intent == "in" and self._array_convertible(ht.pointee, ct.pointee):
                # An input array of values CUDA lays out differently (hipModuleLoadDataEx's
                # hipJitOption options): converted element by element into a copy of the count.
                hp, cpt = h.resolve(ht.pointee), c.resolve(ct.pointee)
                he, ce = h.enum_of(hp), c.enum_of(cpt)
                n = next((q for q in p.shape[len("array["):-1].split("|") if q in {y.name for y in f.params}), "")
                if not n:
                    raise NoBridge(f"parameter {x}: an array of {h.tclass(hp)} without its count")
                cinner = cv.cspell_c(ct.pointee).replace("const ", "")
                conv = f"({cinner}){cv.enum_to_cuda(he, ce)}((int){{0}}, {{1}})" if he and ce else f"({cinner}){{0}}"
                pre += cv.array_copy(x, n, t, cinner, conv, invalid, frees)
                args.append(t)
                continue
            if ht.kind == "pointer" and ct.kind == "pointer":
                hp, cpt = h.resolve(ht.pointee), c.resolve(ct.pointee)
                if p.shape not in ("scalar", "ref", "number"):
                    raise NoBridge(f"parameter {x}: an array of {h.tclass(hp)} that CUDA lays out differently")
                cinner = cv.cspell_c(ct.pointee).replace("const ", "")
                hinner = cv.hspell(ht.pointee).replace("const ", "")
                hr, cr = h.record_of(hp), c.record_of(cpt)
                he, ce = h.enum_of(hp), c.enum_of(cpt)
                hn, cn = h.number_layout(hp), c.number_layout(cpt)
                # C decides the direction: a pointer to non-const may be written (whatever the
                # Python API takes); only what the caller fills in is converted on the way in.
                do_in, do_out = p.intent != "out", not ht.pointee.const
                if hr and cr and hr.size > 0 and cr.size > 0:
                    to_c, to_h = (cv.record_converter(hr, cr, True) if do_in else None,
                                  cv.record_converter(hr, cr, False) if do_out else None)
                    pre.append(f"{cinner} {t}; memset(&{t}, 0, sizeof {t});")
                    if to_c:
                        pre.append(f"if ({x}) {to_c}(&{t}, {x});")
                    if to_h:
                        post.append(f"if ({x}) {{ memset({x}, 0, sizeof *{x}); {to_h}({x}, &{t}); }}")
                elif (he or hn) and (ce or cn):
                    pre.append(f"{cinner} {t}; memset(&{t}, 0, sizeof {t});")
                    if do_in:
                        if he and ce:
                            pre += [f"int ok{i} = 1;",
                                    f"if ({x}) {t} = ({cinner}){cv.enum_to_cuda(he, ce)}((int)*{x}, &ok{i});"]
                            if not do_out:   # an inout value may hold anything before the call
                                pre.append(f"if (!ok{i}) {invalid}")
                        else:
                            pre.append(f"if ({x}) {t} = ({cinner})*{x};")
                    if do_out:
                        conv = f"{cv.enum_to_hip(he, ce)}((int){t})" if he and ce else t
                        post.append(f"if ({x}) *{x} = ({hinner}){conv};")
                elif hp.kind == "pointer" and cn and not cn[1]:   # hipfftHandle* ~ cufftHandle*
                    pre.append(f"{cinner} {t} = 0;")
                    if do_in:
                        pre.append(f"if ({x}) {t} = ({cinner})(intptr_t)*{x};")
                    if do_out:
                        post.append(f"if ({x}) *{x} = ({hinner})(intptr_t){t};")
                else:
                    raise NoBridge(f"parameter {x}: {h.tclass(p.type)} vs CUDA's {c.tclass(cp.type)}")
                args.append(f"{x} ? &{t} : NULL")
                continue
            raise NoBridge(f"parameter {x}: {h.tclass(p.type)} vs CUDA's {c.tclass(cp.type)}")
        if filled:   # the filled parameters' zeros in CUDA's order
            given = iter(args)
            args = [f"({cv.cspell_c(cp.type)})0" if cp.name in filled else next(given) for cp in cf.params]
        # The result.
        hres, cres = h.resolve(f.result), c.resolve(cf.result)
        body = [*pre]
        if self.spec.dlopen:
            cname = f"hipnv_cuda_{cf.name}" if cf.name in self.collisions else cf.name
            body[:0] = [f"__typeof__(&{cname}) fp_ = (__typeof__(&{cname}))hipnv_sym(\"{cf.name}\", &hipnv_fp_{cf.name});",
                        f"if (!fp_) {self.zero_return(f, 'not_supported')}"]
            self.fps.add(cf.name)
            call = f"fp_({', '.join(args)})"
        else:
            call = f"{cf.name}({', '.join(args)})"
        prologue = [s for rx, s in self.spec.prologue.items() if re.match(rx, cf.name)]
        if hres.kind == "void":
            body.append(f"{call};")
            ret = None
        elif self.returns_status(f) and cres.kind == "void":
            body.append(f"{call};")
            ret = str(self.status_value("success"))
        elif h.enum_of(hres) and c.enum_of(cres):
            body.append(f"{cv.cspell_c(cf.result)} r_ = {call};")
            ret = f"({cv.hspell(f.result)}){cv.enum_to_hip(h.enum_of(hres), c.enum_of(cres))}((int)r_)"
        elif cv.same_bits(f.result, cf.result) or (h.number_layout(hres) and c.number_layout(cres)):
            body.append(f"{cv.cspell_c(cf.result)} r_ = {call};")
            ret = f"({cv.hspell(f.result)})r_"
        elif h.record_of(hres) and c.record_of(cres):   # hipCreateChannelDesc: a struct by value
            conv = cv.record_converter(h.record_of(hres), c.record_of(cres), False)
            body += [f"{cv.cspell_c(cf.result)} r_ = {call};",
                     f"{cv.hspell(f.result, 'hr_')}; memset(&hr_, 0, sizeof hr_); {conv}(&hr_, &r_);"]
            ret = "hr_"
        else:
            raise NoBridge(f"result: {h.tclass(f.result)} vs CUDA's {c.tclass(cf.result)}")
        after = next((self.spec.after[n] for n in self.names(f) if n in self.spec.after), None)
        if ret is not None and ret != "hr_":
            body.append(f"{cv.hspell(f.result, 'hr_')} = {ret};")
        body += post
        body += [f"free({v});" for v in frees]
        if after:
            body.append(after)
        if ret is not None:
            body.append("return hr_;")
        # Declared weak: a function the headers declare but this CUDA's library lacks (cuSPARSE
        # dropped many) leaves the layer loadable and answers "not supported".
        guard = []
        if not self.spec.dlopen:
            self.weak.add(cf.name)
            guard = [f"if (!&{cf.name}) {self.zero_return(f, 'not_supported')}"]
        lines = [self.signature(f) + " {", *["    " + s for s in guard + prologue + body], "}"]
        return "\n".join(lines)

    def _array_convertible(self, ht: ir.CType, ct: ir.CType) -> bool:
        """Elements that convert one by one: enums by name, or numbers of another layout."""
        hp, cp = self.h.resolve(ht), self.c.resolve(ct)
        he, ce = self.h.enum_of(hp), self.c.enum_of(cp)
        return bool(he and ce) or bool((he or self.h.number_layout(hp)) and (ce or self.c.number_layout(cp))
                                       and not self.cv.same_bits(ht, ct))

    def zero_outputs(self, f: ir.Function, reason: str, params: str) -> str:
        body = []
        for i, p in enumerate(f.params):
            t = self.h.resolve(p.type)
            # Only the outputs the spec names (lwork): the other pointers may be device memory.
            if re.fullmatch(params, p.name) and t.kind == "pointer" and not t.pointee.const \
                    and self.h.number_layout(t.pointee):
                body.append(f"if ({p.name or f'a{i}'}) *{p.name or f'a{i}'} = 0;")
            else:
                body.append(f"(void){p.name or f'a{i}'};")
        return "\n".join([f"/* {reason} */", self.signature(f) + " {", *["    " + b for b in body],
                          f"    {self.zero_return(f, 'success')}", "}"])

    def stub(self, f: ir.Function, reason: str) -> str:
        params = [p.name or f"a{i}" for i, p in enumerate(f.params)]
        unused = " ".join(f"(void){n};" for n in params)
        return "\n".join([f"/* Not supported on CUDA: {reason.replace('*/', '* /')} */",
                          self.signature(f) + " {", f"    {unused}".rstrip(),
                          f"    {self.zero_return(f, 'not_supported')}", "}"])

    # -- the file --------------------------------------------------------------------
    def functions(self) -> list[str]:
        out = []
        for f in self.m.functions:
            if f.name in self.spec.manual:
                self.coverage[f.name] = {"status": "manual", "reason": self.spec.manual[f.name]}
                continue
            if f.name in self.spec.unsupported:
                reason = self.spec.unsupported[f.name]
                self.coverage[f.name] = {"status": "not_supported", "reason": reason}
                out.append(self.stub(f, reason))
                continue
            zero = next((z for rx, z in self.spec.zero_outputs.items() if re.fullmatch(rx, f.name)), None)
            if zero:
                self.coverage[f.name] = {"status": "bridged", "cuda": "", "reason": zero["why"]}
                out.append(self.zero_outputs(f, zero["why"], zero["params"]))
                continue
            cf, tried = self.cuda_function(f)
            if cf is None:
                reason = f"no CUDA counterpart (tried {', '.join(dict.fromkeys(tried)) or 'nothing'})"
                self.coverage[f.name] = {"status": "not_supported", "reason": reason}
                out.append(self.stub(f, reason))
                continue
            try:
                text = self.bridge(f, cf)
                self.coverage[f.name] = {"status": "bridged", "cuda": cf.name}
            except NoBridge as e:
                reason = f"{cf.name}: {e}"
                self.coverage[f.name] = {"status": "not_supported", "cuda": cf.name, "reason": reason}
                text = self.stub(f, reason)
            out.append(text)
        return out

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
