"""The alias's C layer: each CUDA function of a module, implemented by its HIP counterpart.

This is the HIP-on-CUDA layer (codegen/nvidia) read the other way. The same pieces do the
work: the name matcher finds, for a CUDA function, the HIP functions whose candidates it is
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


class Bridge:
    def __init__(self, lib: hipgen.Library, hip: HipSide, cuda_include: str):
        self.lib, self.hip = lib, hip
        self.spec, self.cfg = lib.spec, lib.spec.bridge
        self.layer, self.cv = hip.layer, hip.layer.cv
        self.h, self.c = hip.layer.h, hip.layer.c       # HIP's and CUDA's type indexes (the layer's)
        self.cuda_version = cuda_ir.cuda_version([cuda_include])
        hnames = [f.name for f in hip.module.functions]
        self.hfuncs = {f.name: f for f in hip.module.functions}
        matcher = match.Matcher.for_spec(hip.nv)
        self.matches = matcher.functions(hnames, list(hip.layer.cfuncs), hip.module.aliases,
                                         hip.layer.cuda.aliases, to=match.HIP)
        self.coverage: dict[str, dict] = {}
        self.converters: dict[str, str] = {}
        self.helpers: dict[str, str] = {}    # C helpers a bridge uses (hipcuda_ctx_device), by name
        self.bodies = [self.function(f) for f in common.bound_functions(lib.module)]

    # -- statuses --------------------------------------------------------------------------
    def status_of(self, t: ir.CType) -> ir.Enum | None:
        e = self.c.enum_of(self.c.resolve(t))
        return e if e is not None and e.name in self._status_enums() else None

    def _status_enums(self) -> set[str]:
        return {self.c.resolve(ir.CType("typedef", n)).name if n in self.c.typedefs else n
                for n in ("CUresult", "cudaError_t", "nvrtcResult")}

    def status_value(self, e: ir.Enum, key: str) -> int:
        """The CUDA status named by the spec's bridge.status.<key> (not_supported, unknown, invalid)."""
        name = getattr(self.cfg.status, key)
        if not name:
            raise ValueError(f"{self.spec.library}.yaml: bridge.status.{key} is not set")
        return next(k.value for k in e.constants if k.name == name)

    def hip_status_to_cuda(self, f: ir.Function, cres: ir.Enum) -> tuple[str, ir.Enum]:
        he = self.h.enum_of(self.h.resolve(f.result))
        return self.cv.enum_to_cuda(he, cres), he

    # -- enumerators CUDA -> HIP for inputs (an unmatched value is refused, not passed on) ------
    def enum_in(self, he: ir.Enum, ce: ir.Enum) -> str:
        fn = f"hipcuda_{he.name}_from_{ce.name}"
        if fn not in self.converters:
            m = self.cv.enum_map(he, ce)
            cval = {k.name: k.value for k in ce.constants}
            hval = {k.name: k.value for k in he.constants}
            back: dict[int, int] = {}
            for hn, cn in m.items():
                back.setdefault(cval[cn], hval[hn])
            # the spec's CUDA enumerators a differently named HIP one answers (bridge.enumerators)
            for cn, hn in self.cfg.enumerators.items():
                if cn in cval and hn in hval:
                    back[cval[cn]] = hval[hn]
            cases = [f"    case {cv}: return {hv};" for cv, hv in sorted(back.items())]
            self.converters[fn] = "\n".join([f"static inline int {fn}(int v, int* ok) {{", "    switch (v) {",
                                             *cases, "    default: *ok = 0; return 0;", "    }", "}"])
        return fn

    # -- one function -----------------------------------------------------------------------
    def candidates(self, cf: ir.Function) -> list[ir.Function]:
        renamed = self.cfg.rename.get(cf.name)
        names = [renamed] if renamed else self.matches.get(cf.name, [])
        return [self.hfuncs[n] for n in names if n in self.hfuncs]

    def signature(self, cf: ir.Function) -> str:
        params = ", ".join(self.cv.cspell_c(p.type, p.name or f"a{i}") for i, p in enumerate(cf.params)) or "void"
        return f"static {self.cv.cspell_c(cf.result, f'hipcuda_{cf.name}(' + params + ')')}"

    def function(self, f: ir.Function) -> str:
        text = self._function(f)
        why = self.cfg.manual.get(f.name)
        if why:   # hand-written (hip_as_cuda/manual/): it runs on HIP whatever the generated bridge says
            self.coverage[f.name] = {"status": "bridged", "hip": self.coverage[f.name].get("hip", ""),
                                     "manual": why}
        return text

    def _function(self, f: ir.Function) -> str:
        cf = self.layer.cfuncs.get(f.name)
        if cf is None:
            raise ValueError(f"{f.name}: not in the layer's CUDA IR ({', '.join(self.hip.cuda_headers)})")
        if f.name in self.cfg.status_names:
            self.coverage[f.name] = {"status": "bridged", "hip": "", "reason": "CUDA's own enumerator names"}
            return self.status_names(cf)
        why = self.cfg.unsupported.get(f.name)
        if why:
            self.coverage[f.name] = {"status": "not_supported", "reason": why}
            return self.stub(cf, why)
        cands = self.candidates(cf)
        if not cands:
            reason = "no HIP counterpart"
            self.coverage[f.name] = {"status": "not_supported", "reason": reason}
            return self.stub(cf, reason)
        errors = []
        for hf in cands:
            try:
                text = self.bridge(cf, hf, f)
                self.coverage[f.name] = {"status": "bridged", "hip": hf.name}
                return text
            except NoBridge as e:
                errors.append(f"{hf.name}: {e}")
        reason = "; ".join(errors)
        self.coverage[f.name] = {"status": "not_supported", "hip": cands[0].name, "reason": reason}
        return self.stub(cf, reason)

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

    def callback_data(self, cf: ir.Function, i: int) -> str:
        """The `void*` parameter after callback parameter i that the callback is given back."""
        for q in cf.params[i + 1:]:
            r = self.c.resolve(q.type)
            if r.kind == "pointer" and self.c.resolve(r.pointee).kind == "void":
                return q.name
        raise NoBridge(f"parameter {cf.params[i].name}: a callback without a data parameter after it")

    def trampoline(self, ct: ir.CType, ht: ir.CType, spelled: ir.CType) -> tuple[str, str]:
        """(trampoline, closure type) calling a CUDA callback of type ct from HIP's ht: arguments
        of the same bits passed on, statuses and enums converted, the last void* the closure."""
        c, h, cv = self.c, self.h, self.cv
        cf_, hf_ = c.resolve(ct), h.resolve(ht)
        name = spelled.name if spelled.kind == "typedef" else f"cb{len(self.helpers)}"
        tramp, closure = f"hipcuda_tramp_{name}", f"hipcuda_closure_{name}"
        if tramp in self.helpers:
            return tramp, closure
        if len(cf_.params) != len(hf_.params) or cf_.result.kind != "void" or hf_.result.kind != "void":
            raise NoBridge(f"callback {name}: HIP's takes other arguments or returns a value")
        data = max((k for k, t in enumerate(cf_.params) if c.resolve(t).kind == "pointer"
                    and c.resolve(c.resolve(t).pointee).kind == "void"), default=None)
        if data is None:
            raise NoBridge(f"callback {name}: no void* for its data")
        hargs, cargs, convs = [], [], []
        for k, (hta, cta) in enumerate(zip(hf_.params, cf_.params)):
            hargs.append(cv.hspell(hta, f"a{k}"))
            he, ce = h.enum_of(h.resolve(hta)), c.enum_of(c.resolve(cta))
            if k == data:
                cargs.append("cl_.data")
            elif cv.same_bits(hta, cta) or (h.resolve(hta).kind == "pointer" and c.resolve(cta).kind == "pointer"):
                cargs.append(f"({cv.cspell_c(cta)})a{k}")
            elif he and ce:
                # a value without a CUDA counterpart: the status 'unknown' (an enum's 0 otherwise)
                fallback = self.status_value(ce, "unknown") if ce.name in self._status_enums() else 0
                convs += [f"    int ok{k} = 1, c{k} = {cv.enum_to_cuda(he, ce)}((int)a{k}, &ok{k});",
                          f"    if (!ok{k}) c{k} = {fallback};"]
                cargs.append(f"({cv.cspell_c(cta)})c{k}")
            else:
                raise NoBridge(f"callback {name}: argument {k} is {h.tclass(hta)} vs CUDA's {c.tclass(cta)}")
        self.helpers[tramp] = "\n".join([
            f"typedef struct {{ {cv.cspell_c(spelled, 'fn')}; void* data; }} {closure};",
            f"static void {tramp}({', '.join(hargs)}) {{",
            f"    {closure} cl_ = *({closure}*)a{data};",
            f"    free(a{data});   /* one-shot: HIP calls it once */",
            *convs,
            f"    cl_.fn({', '.join(cargs)});",
            "}"])
        return tramp, closure

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

    def zero_return(self, cf: ir.Function, key: str) -> str:
        r = self.c.resolve(cf.result)
        if r.kind == "void":
            return "return;"
        st = self.status_of(cf.result)
        if st is not None:
            return f"return ({self.cv.cspell_c(cf.result)}){self.status_value(st, key)};"
        if r.kind == "record":
            return f"{{ {self.cv.cspell_c(cf.result, 'z')}; memset(&z, 0, sizeof z); return z; }}"
        return f"return ({self.cv.cspell_c(cf.result)})0;"

    def _bridge_arg(self, style, fn: ir.Function, p: ir.Param) -> str:
        """A cimport-layer parameter as the C bridge takes it: the header's type where the layer
        spells it otherwise (cdecl.Style), void* where it points at a Cython-level type."""
        t = style.param_type(fn, p)
        if p.type.kind == "pointer" and style.mentions_cython_level(t):
            return f"<void*>{p.name}"
        return p.name if t == p.type else f"<{self.lib.types.cy(p.type)}>{p.name}"

    def hip_value(self, text: str) -> str:
        """A bridge.fixed value as C: a HIP enumerator's value, or the text as it is (a number)."""
        e = self.h.enumerators.get(text)
        if e is not None:
            return str(next(k.value for k in e.constants if k.name == text))
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError(f"{self.spec.library}.yaml: bridge.fixed value {text!r} is no HIP enumerator or number")
        return text

    def not_supported_value(self, fn: ir.Function) -> str:
        """The not-supported status as a Cython expression, for a function the cimport layer
        answers itself (one taking a Cython-level record by value: the C bridge cannot take it)."""
        if self.coverage.get(fn.name, {}).get("status") != "not_supported":
            raise ValueError(f"{fn.name} takes a type the spec's cimport.cython_level declares in Cython "
                             "by value, and HIP has it: the bridge cannot be called")
        return f"<{self.lib.types.cy(fn.result)}>{self.status_value(self.status_of(fn.result), 'not_supported')}"

    def stub(self, cf: ir.Function, reason: str) -> str:
        unused = " ".join(f"(void){p.name or f'a{i}'};" for i, p in enumerate(cf.params))
        return "\n".join([f"/* Not supported on HIP: {reason.replace('*/', '* /')} */", self.signature(cf) + " {",
                          f"    {unused}".rstrip(), f"    {self.zero_return(cf, 'not_supported')}", "}"])

    def bridge(self, cf: ir.Function, hf: ir.Function, f: ir.Function) -> str:
        """cf: the CUDA declaration as the layer's IR has it (types); f: the same function in this
        module's IR, whose parameters carry the spec's intents and shapes."""
        # by position: the module's IR may rename a parameter (`len` -> `length`, as cuda.bindings)
        shapes = {cp.name: (q.intent, q.shape) for cp, q in zip(cf.params, f.params)}
        if cf.variadic or hf.variadic:
            raise NoBridge("variadic")
        # `name`, or `name[count]`: an array whose element count the spec names
        drops = [re.fullmatch(r"(\w+)(?:\[(\w+)\])?", n).groups()
                 for rx, names in self.cfg.drop.items() if re.fullmatch(rx, cf.name) for n in names]
        dropped = {n for n, _ in drops}
        shapes.update({n: (shapes.get(n, ("in", ""))[0], f"array[{k}]") for n, k in drops if k})
        kept = [(i, p) for i, p in enumerate(cf.params) if p.name not in dropped]
        # HIP parameters CUDA has no counterpart of, given one value (bridge.fixed: cuMemcpyAsync
        # is hipMemcpyAsync of kind hipMemcpyDefault, the direction unified addresses say)
        fixed = {n: v for rx, vals in self.cfg.fixed.items() if re.fullmatch(rx, cf.name)
                 for n, v in vals.items()}
        hkept = [hp for hp in hf.params if hp.name not in fixed]
        if len(kept) != len(hkept):
            raise NoBridge(f"takes {len(hkept)} parameters, CUDA's {len(kept)}")
        cv, h, c = self.cv, self.h, self.c
        invalid = self.zero_return(cf, "invalid")
        pre, args, post = [f"(void){p.name};" for p in cf.params if p.name in dropped], [], []
        pre += self.zero_dropped(cf, dropped, shapes)
        frees: list[str] = []   # copies made for the call, freed on every way out
        on_fail: list[str] = []  # what a failed call must undo (a callback's closure)
        data_args: dict[str, str] = {}   # a callback's data parameter -> what HIP gets instead
        for (i, p), hp in zip(kept, hkept):
            x = p.name or f"a{i}"
            if x in data_args:
                args.append(data_args[x])
                continue
            intent, shape = shapes.get(p.name, ("in", "scalar"))
            ct, ht = c.resolve(p.type), h.resolve(hp.type)
            hspell = cv.hspell(hp.type)
            t = f"hipcuda_t{i}"
            if any(re.fullmatch(rx, f"{cf.name}.{p.name}") for rx in self.cfg.context_as_device.params):
                # A context where HIP takes its device (cuMemcpyPeer's dstContext): the context's
                # device, asked of HIP with the context current for a moment.
                if not (ct.kind == "pointer" and h.number_layout(ht)) or self.status_of(cf.result) is None:
                    raise NoBridge(f"parameter {x}: context_as_device needs a context where HIP takes a device")
                conv, _ = self.hip_status_to_cuda(hf, self.status_of(cf.result))
                self.helpers["hipcuda_ctx_device"] = CTX_DEVICE
                rt = cv.cspell_c(cf.result)
                unknown = self.status_value(self.status_of(cf.result), "unknown")
                pre += [f"int {t} = 0;",
                        f"{{ int e_ = hipcuda_ctx_device((void*){x}, &{t}); "
                        f"if (e_ < 0) {self.freeing(frees, self.missing(cf))} "
                        f"if (e_ > 0) {{ int ok_ = 1; {rt} c_ = ({rt}){conv}(e_, &ok_); "
                        f"{self.freeing(frees, f'return ok_ ? c_ : ({rt}){unknown};')} }} }}"]
                args.append(f"({hspell}){t}")
                continue
            if cv.same_bits(hp.type, p.type):
                if ct.kind == "record":
                    cv.need(ht.name)
                    args.append(f"*({hspell}*)&{x}")
                elif (ht.kind == "pointer") != (ct.kind == "pointer"):
                    args.append(f"({hspell})(uintptr_t){x}")
                else:
                    args.append(f"({hspell}){x}")
                continue
            loc = self.cfg.device_as_location
            if ct.kind == "record" and h.number_layout(ht) and any(
                    re.fullmatch(rx, f"{cf.name}.{p.name}") for rx in loc.params):
                # A memory location where HIP takes a device (cudaMemAdvise's location): the host
                # is HIP's hipCpuDeviceId (-1), a device its ordinal.
                args.append(f"({hspell})({x}.type == {loc.host} ? -1 : {x}.id)")
                continue
            he, ce = h.enum_of(ht), c.enum_of(ct)
            hn, cn = h.number_layout(ht), c.number_layout(ct)
            if he and ce:
                fail = invalid
                if i == 0 and cf.name in self.cfg.status_texts and self.status_of(p.type) is not None:
                    fail = self.status_text(cf, ce)
                pre += [f"int ok{i} = 1;", f"{hspell} {t} = ({hspell}){self.enum_in(he, ce)}((int){x}, &ok{i});",
                        f"if (!ok{i}) {self.freeing(frees, fail)}"]
                args.append(t)
                continue
            if (he or hn) and (ce or cn):
                args.append(f"({hspell}){x}")
                continue
            if (ht.kind == "pointer" and cn and not cn[1]) or (ct.kind == "pointer" and hn and not hn[1]):
                args.append(f"({hspell})(intptr_t){x}")
                continue
            hr, cr = h.record_of(ht), c.record_of(ct)
            if hr and cr:
                pre += [f"{hspell} {t}; memset(&{t}, 0, sizeof {t});", f"{cv.record_converter(hr, cr, False)}(&{t}, &{x});"]
                args.append(t)
                continue
            if ht.kind == "pointer" and ct.kind == "pointer" and shape.startswith("array"):
                # An array of values HIP lays out differently (cuModuleLoadDataEx's CUjit_option
                # options): converted element by element into a copy of the count the call takes;
                # written back only where the spec makes the array the call's output.
                hpt, cpt = h.resolve(ht.pointee), c.resolve(ct.pointee)
                he, ce = h.enum_of(hpt), c.enum_of(cpt)
                hn, cn = h.number_layout(hpt), c.number_layout(cpt)
                n = shape[len("array["):-1] if shape.startswith("array[") else ""
                n = next((q for q in n.split("|") if q in {x.name for x in cf.params}), "")
                if not n or not ((he or hn) and (ce or cn)):
                    raise NoBridge(f"parameter {x}: an array of {c.tclass(cpt)} that HIP lays out differently")
                hinner = cv.hspell(ht.pointee).replace("const ", "")
                cinner = cv.cspell_c(ct.pointee).replace("const ", "")
                conv_in = f"({hinner}){self.enum_in(he, ce)}((int){{0}}, {{1}})" if he and ce else f"({hinner}){{0}}"
                pre += cv.array_copy(x, n, t, hinner, conv_in, invalid, frees)
                if intent != "in" and not ct.pointee.const:
                    back = (f"({cinner}){cv.enum_to_cuda(he, ce)}((int){t}[k_], &okc_)" if he and ce
                            else f"({cinner}){t}[k_]")
                    post.append(f"if ({t}) for (size_t k_ = 0; k_ < (size_t){n}; k_++) {{ int okc_ = 1; "
                                f"{x}[k_] = {back}; (void)okc_; }}")
                args.append(t)
                continue
            if ht.kind == "pointer" and ct.kind == "pointer":
                if shape.startswith("array"):
                    raise NoBridge(f"parameter {x}: an array of {c.tclass(ct.pointee)} that HIP lays out differently")
                hpt, cpt = h.resolve(ht.pointee), c.resolve(ct.pointee)
                hinner = cv.hspell(ht.pointee).replace("const ", "")
                cinner = cv.cspell_c(ct.pointee).replace("const ", "")
                hr, cr = h.record_of(hpt), c.record_of(cpt)
                he, ce = h.enum_of(hpt), c.enum_of(cpt)
                hn, cn = h.number_layout(hpt), c.number_layout(cpt)
                # C decides the direction: what points at non-const may be written.
                do_in, do_out = intent != "out", not ct.pointee.const
                if hr and cr and hr.size > 0 and cr.size > 0:
                    pre.append(f"{hinner} {t}; memset(&{t}, 0, sizeof {t});")
                    if do_in:
                        pre.append(f"if ({x}) {cv.record_converter(hr, cr, False)}(&{t}, {x});")
                    if do_out:
                        post.append(f"if ({x}) {{ memset({x}, 0, sizeof *{x}); "
                                    f"{cv.record_converter(hr, cr, True)}({x}, &{t}); }}")
                elif (he or hn) and (ce or cn):
                    pre.append(f"{hinner} {t}; memset(&{t}, 0, sizeof {t});")
                    if do_in:
                        if he and ce:
                            pre += [f"int ok{i} = 1;",
                                    f"if ({x}) {t} = ({hinner}){self.enum_in(he, ce)}((int)*{x}, &ok{i});"]
                            if not do_out:
                                pre.append(f"if (!ok{i}) {self.freeing(frees, invalid)}")
                        else:
                            pre.append(f"if ({x}) {t} = ({hinner})*{x};")
                    if do_out:
                        if he and ce:
                            post.append(f"if ({x}) {{ int okc{i} = 1; *{x} = ({cinner}){cv.enum_to_cuda(he, ce)}"
                                        f"((int){t}, &okc{i}); }}")
                        else:
                            post.append(f"if ({x}) *{x} = ({cinner}){t};")
                elif cpt.kind == "pointer" and hn and not hn[1]:
                    pre.append(f"{hinner} {t} = 0;")
                    if do_in:
                        pre.append(f"if ({x}) {t} = ({hinner})(intptr_t)*{x};")
                    if do_out:
                        post.append(f"if ({x}) *{x} = ({cinner})(intptr_t){t};")
                else:
                    raise NoBridge(f"parameter {x}: {c.tclass(p.type)} vs HIP's {h.tclass(hp.type)}")
                args.append(f"{x} ? &{t} : NULL")
                continue
            if ht.kind == "funcptr" and ct.kind == "funcptr":
                # A one-shot callback whose arguments HIP gives in its own types (cuStreamAddCallback's
                # status): a trampoline converts them; the CUDA callback and its data ride in a
                # closure HIP passes as the data, freed when the callback ran, or the call failed.
                data = self.callback_data(cf, i)
                tramp, closure = self.trampoline(ct, ht, p.type)
                pre.append(f"{closure}* cl{i} = NULL;")
                pre.append(f"if ({x}) {{ cl{i} = ({closure}*)malloc(sizeof *cl{i}); "
                           f"if (!cl{i}) {self.freeing(frees, self.zero_return(cf, 'unknown'))} "
                           f"cl{i}->fn = {x}; cl{i}->data = (void*){data}; }}")
                on_fail.append(f"free(cl{i});")
                args.append(f"{x} ? ({hspell}){tramp} : NULL")
                data_args[data] = f"{x} ? (void*)cl{i} : (void*){data}"
                continue
            raise NoBridge(f"parameter {x}: {c.tclass(p.type)} vs HIP's {h.tclass(hp.type)}")
        # The call, through HIP's function resolved on first use.
        hparams = ", ".join(cv.hspell(q.type) for q in hf.params) or "void"
        fptype = cv.hspell(hf.result, f"(*)({hparams})")
        exiting = [f"if (__builtin_expect(hipcuda_exited, 0)) {self.zero_return(cf, 'exiting')}"] \
            if self.cfg.status.exiting and self.status_of(cf.result) is not None else []
        body = [*exiting, f"static void* fp_;",
                "void* f_ = __atomic_load_n(&fp_, __ATOMIC_ACQUIRE);",
                f"if (!f_) {{ f_ = hipcuda_resolve(\"{hf.name}\"); if (!f_) {self.missing(cf)} "
                "__atomic_store_n(&fp_, f_, __ATOMIC_RELEASE); }", *pre]
        for k, hp in enumerate(hf.params):   # in HIP's order, among the converted arguments
            if hp.name in fixed:
                args.insert(k, f"({cv.hspell(hp.type)}){self.hip_value(fixed[hp.name])}")
        call = f"(({fptype})f_)({', '.join(args)})"
        if on_fail and self.status_of(cf.result) is None:
            raise NoBridge("a callback closure needs a status to tell a failed call")
        hres, cres = h.resolve(hf.result), c.resolve(cf.result)
        cst = self.status_of(cf.result)
        ret = None
        if cres.kind == "void":
            body.append(f"{call};")
        elif cst is not None and h.enum_of(hres):
            conv, _ = self.hip_status_to_cuda(hf, cst)
            body += [f"int r_ = (int){call};", "int ok_ = 1;",
                     f"{cv.cspell_c(cf.result, 'cr_')} = ({cv.cspell_c(cf.result)}){conv}(r_, &ok_);",
                     f"if (!ok_) cr_ = ({cv.cspell_c(cf.result)}){self.status_value(cst, 'unknown')};"]
            if on_fail:
                body.append(f"if (r_ != 0) {{ {' '.join(on_fail)} }}")
            ret = "cr_"
        elif cst is not None and hres.kind == "void":
            body.append(f"{call};")
            ret = f"({cv.cspell_c(cf.result)})0"
        elif h.enum_of(hres) and c.enum_of(cres):
            body += [f"int r_ = (int){call};", "int ok_ = 1;",
                     f"{cv.cspell_c(cf.result, 'cr_')} = ({cv.cspell_c(cf.result)})"
                     f"{cv.enum_to_cuda(h.enum_of(hres), c.enum_of(cres))}(r_, &ok_);"]
            ret = "cr_"
        elif cv.same_bits(hf.result, cf.result) or (h.number_layout(hres) and c.number_layout(cres)):
            body.append(f"{cv.cspell_c(cf.result, 'cr_')} = ({cv.cspell_c(cf.result)}){call};")
            ret = "cr_"
        elif h.record_of(hres) and c.record_of(cres):
            conv = cv.record_converter(h.record_of(hres), c.record_of(cres), True)
            body += [f"{cv.hspell(hf.result, 'hr_')} = {call};",
                     f"{cv.cspell_c(cf.result, 'cr_')}; memset(&cr_, 0, sizeof cr_); {conv}(&cr_, &hr_);"]
            ret = "cr_"
        else:
            raise NoBridge(f"result: {c.tclass(cf.result)} vs HIP's {h.tclass(hf.result)}")
        body += post
        body += [f"free({t});" for t in frees]
        if ret is not None:
            body.append(f"return {ret};")
        return "\n".join([self.signature(cf) + " {", *["    " + s for s in body], "}"])

    def zero_dropped(self, cf: ir.Function, dropped: set[str], shapes: dict) -> list[str]:
        """An array parameter HIP's function lacks (CUDA 13's edge data of the graph calls) means
        what HIP does only where it is all zero: an output is zeroed, as many elements as the call
        may write (a graph edge without data is all zero); an input that holds anything else
        answers not-supported, as HIP would ignore it."""
        out = []
        names = {p.name: p for p in cf.params}
        for p in cf.params:
            intent, shape = shapes.get(p.name, ("in", "scalar"))
            ct = self.c.resolve(p.type)
            if p.name not in dropped or ct.kind != "pointer" or not shape.startswith("array["):
                continue
            cnt = next((names[n] for n in shape[len("array["):-1].split("|") if n in names), None)
            if cnt is None:
                continue
            n = f"({cnt.name} ? *{cnt.name} : 0)" if self.c.resolve(cnt.type).kind == "pointer" else cnt.name
            if intent == "out" and not ct.pointee.const:
                out.append(f"if ({p.name}) memset({p.name}, 0, (size_t){n} * sizeof *{p.name});")
            elif intent == "in":
                out.append(f"if ({p.name}) {{ const unsigned char* b_ = (const unsigned char*){p.name}; "
                           f"for (size_t k_ = 0; k_ < (size_t){n} * sizeof *{p.name}; ++k_) "
                           f"if (b_[k_]) {self.zero_return(cf, 'not_supported')} }}")
        return out

    @staticmethod
    def freeing(temps: list[str], ret: str) -> str:
        """A return that frees the copies made so far."""
        return f"{{ {' '.join(f'free({t});' for t in temps)} {ret} }}" if temps else ret

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
        head = [f"/* Generated by codegen.alias from CUDA {self.cuda_version} headers ({', '.join(self.spec.headers)}) "
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
        spec, types = self.spec, self.lib.types
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
        manual = self.cfg.manual
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
        return json.dumps({"module": self.spec.library, "cuda_version": self.cuda_version,
                           "rocm_version": self.hip.version,
                           "summary": {"functions": len(st), "bridged": st.count("bridged"),
                                       "not_supported": st.count("not_supported")},
                           "functions": dict(sorted(self.coverage.items()))}, indent=1) + "\n"
