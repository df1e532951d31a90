"""Type pairs: how a HIP value becomes the CUDA value and back.

`Converter` answers, for a HIP type and the CUDA type in the same place, whether
the bits can be passed as they are (a cast), need a generated converter
(enumerators by name, struct fields by name), or cannot be bridged (with why).
It also spells both sides in C: HIP types get the `hipabi_` prefix (their layout
comes from the ROCm headers), CUDA types keep their names (the CUDA headers are
included).
"""
from __future__ import annotations

from .. import ir
from ..types import TypeIndex, declarator
from . import match
from .spec import NvSpec

PREFIX = "hipabi_"

def has_overlap(rec: ir.Record) -> bool:
    """Fields of an anonymous union (libclang lists them flat, at one offset)."""
    offs = [f.offset_bits for f in rec.fields if f.bit_width < 0]
    return rec.kind == "struct" and len(offs) != len(set(offs))


class NoBridge(Exception):
    """This HIP declaration has no faithful CUDA counterpart (the message says why)."""


class Converter:
    def __init__(self, hip: TypeIndex, cuda: TypeIndex, spec: NvSpec):
        self.h, self.c, self.spec = hip, cuda, spec
        self.names = match.Matcher.for_spec(spec)
        self.enum_maps: dict[tuple[str, str], dict[int, str]] = {}
        self.converters: dict[str, str] = {}          # C function name -> definition
        self.needed_records: set[str] = set()         # HIP records whose full definition the C file needs
        self.unmatched_fields: dict[str, list[str]] = {}
        # The status enum's own name (the spec may name a typedef of it: hiprandStatus_t names
        # the enum hiprandStatus); the spec itself is never changed.
        st = spec.status.type
        self.status_enum = hip.resolve(ir.CType("typedef", st)).name if st in hip.typedefs else st

    # -- enumerators ----------------------------------------------------------------
    def enum_map(self, he: ir.Enum, ce: ir.Enum) -> dict[str, str]:
        key = (he.name, ce.name)
        if key not in self.enum_maps:
            self.enum_maps[key] = self.names.enumerators([(k.name, k.value) for k in he.constants],
                                                         [(k.name, k.value) for k in ce.constants])
        return self.enum_maps[key]

    def enum_identity(self, he: ir.Enum, ce: ir.Enum) -> bool:
        """Every matched pair has the same value and every CUDA value is matched: bits pass as they are."""
        m = self.enum_map(he, ce)
        cval = {k.name: k.value for k in ce.constants}
        hval = {k.name: k.value for k in he.constants}
        return bool(m) and all(hval[hn] == cval[cn] for hn, cn in m.items()) \
            and {cval[c] for c in m.values()} == set(cval.values())

    def enum_embeds(self, he: ir.Enum, ce: ir.Enum) -> bool:
        """Every HIP value is matched to a CUDA enumerator of the same value (CUDA may have more):
        a HIP value passes as it is, and a CUDA value HIP knows comes back as itself."""
        m = self.enum_map(he, ce)
        cval = {k.name: k.value for k in ce.constants}
        hval = {k.name: k.value for k in he.constants}
        return bool(m) and all(hval[hn] == cval[cn] for hn, cn in m.items()) \
            and set(hval.values()) <= {hval[hn] for hn in m}

    @staticmethod
    def conv_name(dst: str, src: str, to_cuda: bool) -> str:
        """hipnv_<dst>_from_<src>; where both sides share a name (RCCL's and NCCL's ncclDataType_t),
        the CUDA side is marked."""
        if dst == src:
            return f"hipnv_cuda_{dst}_from_{src}" if to_cuda else f"hipnv_{dst}_from_cuda_{src}"
        return f"hipnv_{dst}_from_{src}"

    def enum_to_cuda(self, he: ir.Enum, ce: ir.Enum) -> str:
        fn = self.conv_name(ce.name, he.name, True)
        if fn not in self.converters:
            m = self.enum_map(he, ce)
            seen, cases = set(), []
            for k in he.constants:
                if k.name in m and k.value not in seen:
                    seen.add(k.value)
                    cases.append(f"    case {k.value}: return {m[k.name]};  /* {k.name} */")
            cval = {k.name: k.value for k in ce.constants}
            fast = self._success_fast_path(he, any(k.value == 0 and cval.get(m.get(k.name)) == 0
                                                   for k in he.constants))
            self.converters[fn] = self._converter(fn, "int v, int* ok", "v, ok", fast, [
                "    switch (v) {", *cases, "    default: *ok = 0; return 0;", "    }"])
        return fn

    def _success_fast_path(self, he: ir.Enum, zero_is_zero: bool) -> bool:
        """Whether a conversion is of the status enum, with success 0 on both sides."""
        return he.name == self.status_enum and zero_is_zero

    @staticmethod
    def _converter(fn: str, params: str, args: str, fast: bool, body: list[str]) -> str:
        """A converter's C. A status conversion is split: success, what nearly every call
        returns, is tested in an always-inlined wrapper, and the switch is a separate cold
        function. Left whole, gcc kept it out of line in the alias's bridge (inside a large
        Cython module): a call, a stack slot for `ok` and a return on every successful call."""
        if not fast:
            return "\n".join([f"static inline int {fn}({params}) {{", *body, "}"])
        return "\n".join([
            f"static __attribute__((noinline, cold)) int {fn}_other({params}) {{", *body, "}",
            f"static inline __attribute__((always_inline)) int {fn}({params}) {{",
            f"    return v == 0 ? 0 : {fn}_other({args});", "}"])

    def enum_to_hip(self, he: ir.Enum, ce: ir.Enum) -> str:
        fn = self.conv_name(he.name, ce.name, False)
        if fn not in self.converters:
            m = self.enum_map(he, ce)
            cval = {k.name: k.value for k in ce.constants}
            back: dict[int, tuple[str, int]] = {}
            for k in he.constants:           # first HIP name for each CUDA value
                if k.name in m:
                    back.setdefault(cval[m[k.name]], (k.name, k.value))
            default = "v"
            if he.name == self.status_enum and self.spec.status.unknown:
                default = str(self.enumerator_value(he, self.spec.status.unknown))
            cases = [f"    case {cv}: return {hv};  /* {cn} -> {hn} */"
                     for cv, (hn, hv) in sorted(back.items())
                     for cn in [next(c for h_, c in m.items() if cval[c] == cv)]]
            fast = self._success_fast_path(he, back.get(0, ("", -1))[1] == 0)
            self.converters[fn] = self._converter(fn, "int v", "v", fast, [
                "    switch (v) {", *cases, f"    default: return {default};", "    }"])
        return fn

    @staticmethod
    def enumerator_value(e: ir.Enum, name: str) -> int:
        for k in e.constants:
            if k.name == name:
                return k.value
        raise KeyError(f"{name} is not an enumerator of {e.name}")

    # -- compatibility ----------------------------------------------------------------
    def union_embeds(self, hr: ir.Record, cr: ir.Record) -> bool:
        """Two unions whose members, in order, have the same layout, enums embedded (enum_embeds),
        one side perhaps with more (CUDA's `reserved` member): a union cannot be converted member
        by member (which member holds the value is said elsewhere), so its bytes are copied."""
        if hr.kind != "union" or cr.kind != "union" or hr.size < 0 or cr.size < 0:
            return False
        n = min(len(hr.fields), len(cr.fields))
        return n > 0 and all(a.offset_bits == b.offset_bits and a.bit_width == b.bit_width
                             and self.same_bits(a.type, b.type, 1, embed=True)
                             for a, b in zip(hr.fields[:n], cr.fields[:n]))

    def same_bits(self, ht: ir.CType, ct: ir.CType, depth: int = 0, embed: bool = False) -> bool:
        """Whether a HIP value of type ht can be reinterpreted as CUDA's ct unchanged (`embed`: an
        enum whose values CUDA's has with the same meaning will do, as inside a union, which
        cannot be converted member by member)."""
        h, c = self.h.resolve(ht), self.c.resolve(ct)
        if depth > 8:
            return False
        hn, cn = self.h.number_layout(h), self.c.number_layout(c)
        he, ce = self.h.enum_of(h), self.c.enum_of(c)
        if hn and cn:
            return hn == cn
        if he and ce:
            return self.enum_embeds(he, ce) if embed else self.enum_identity(he, ce)
        if (he and cn) or (hn and ce):
            return (hn or (4, False)) == (cn or (4, False))
        if h.kind == "pointer" and c.kind == "pointer":
            return self.same_pointee(h.pointee, c.pointee, depth + 1)
        if (h.kind == "pointer" and cn == (8, False)) or (c.kind == "pointer" and hn == (8, False)):
            return True   # hipDeviceptr_t (void*) ~ CUdeviceptr (unsigned long long)
        if h.kind == "array" and c.kind == "array":
            return h.count == c.count and self.same_bits(h.pointee, c.pointee, depth + 1, embed)
        hr, cr = self.h.record_of(h), self.c.record_of(c)
        if hr and cr:
            return self.same_layout(hr, cr, depth + 1, embed)
        if h.kind == "funcptr" and c.kind == "funcptr":
            return len(h.params) == len(c.params) and all(
                self.same_bits(a, b, depth + 1) for a, b in zip(h.params, c.params)) and (
                (h.result.kind == "void" and c.result.kind == "void") or self.same_bits(h.result, c.result, depth + 1))
        if h.kind == "void" and c.kind == "void":
            return True
        return False

    def same_pointee(self, hp: ir.CType, cp: ir.CType, depth: int) -> bool:
        h, c = self.h.resolve(hp), self.c.resolve(cp)
        if h.kind == "void" or c.kind == "void":
            return True
        hr, cr = self.h.record_of(h), self.c.record_of(c)
        if hr and hr.name in self.spec.opaque and c.kind == "record":
            # HIP defines the struct, but programs only hold pointers to it (CUDA may define its
            # own too, of another size: cuBLASLt's descriptors)
            return True
        if (hr and hr.size < 0) and (cr is None or cr.size < 0):
            return True   # opaque handles on both sides (ihipStream_t* ~ CUstream_st*)
        if hr and cr is None and c.kind == "record":
            return hr.size < 0
        return self.same_bits(h, c, depth)

    def same_layout(self, hr: ir.Record, cr: ir.Record, depth: int = 0, embed: bool = False) -> bool:
        if hr.size < 0 or cr.size < 0:
            return hr.size < 0 and cr.size < 0
        if hr.size != cr.size or len(hr.fields) != len(cr.fields):
            return False
        return all(a.offset_bits == b.offset_bits and a.bit_width == b.bit_width
                   and self.same_bits(a.type, b.type, depth + 1, embed) for a, b in zip(hr.fields, cr.fields))

    # -- struct converters (field by field, by name) ---------------------------------
    def record_converter(self, hr: ir.Record, cr: ir.Record, to_cuda: bool) -> str:
        fn = self.conv_name(cr.name if to_cuda else hr.name, hr.name if to_cuda else cr.name, to_cuda)
        if fn in self.converters:
            return fn
        if has_overlap(hr) or has_overlap(cr):
            raise NoBridge(f"{hr.name} holds an anonymous union")
        self.converters[fn] = ""   # recursion guard
        self.need(hr.name)
        cfields = [f.name for f in cr.fields]
        cby = {f.name: f for f in cr.fields}
        lines, unmatched = [], []
        for f in hr.fields:
            cname = self.names.field(hr.name, f.name, cfields)
            if cname is None:
                split = self.split_vector(f, cby)
                if split:   # HIP's dim3 gridDim where CUDA has gridDimX, gridDimY, gridDimZ
                    for hx, cx in split:
                        dst, src = (f"d->{cx.name}", f"s->{f.name}.{hx.name}") if to_cuda else \
                            (f"d->{f.name}.{hx.name}", f"s->{cx.name}")
                        lines += self.assign(hx.type, cx.type, dst, src, to_cuda)
                    continue
                unmatched.append(f.name)
                continue
            cf = cby[cname]
            dst, src = (f"d->{cname}", f"s->{f.name}") if to_cuda else (f"d->{f.name}", f"s->{cname}")
            fallback = self.spec.field_fallbacks.get(cr.name, {}).get(cname)
            if not to_cuda and fallback:   # the spec's field_fallbacks: CUDA's other field where this one is NULL
                src = f"(s->{cname} ? (void*)s->{cname} : (void*)s->{fallback})"
            try:
                lines += self.assign(f.type, cf.type, dst, src, to_cuda)
            except NoBridge as e:
                unmatched.append(f"{f.name} ({e})")
        if unmatched:
            self.unmatched_fields[hr.name] = unmatched
        dtype = self.cspell_c(ir.CType("record", cr.name)) if to_cuda else self.hspell(ir.CType("record", hr.name))
        stype = self.hspell(ir.CType("record", hr.name)) if to_cuda else self.cspell_c(ir.CType("record", cr.name))
        self.converters[fn] = "\n".join([f"static void {fn}({dtype}* d, const {stype}* s) {{",
                                         *(["    " + l for l in lines] or ["    (void)d; (void)s;"]), "}"])
        return fn

    def split_vector(self, f: ir.Field, cby: dict) -> list[tuple[ir.Field, ir.Field]]:
        """(HIP component, CUDA field) pairs where a HIP field of a struct of numbers x, y, z (dim3
        gridDim) is CUDA's fields named after it and the component (gridDimX, gridDimY, gridDimZ:
        CUDA_KERNEL_NODE_PARAMS, CUDA_LAUNCH_PARAMS); [] where not."""
        r = self.h.record_of(f.type)
        if r is None or [x.name for x in r.fields] != ["x", "y", "z"]:
            return []
        pairs = [(x, cby.get(f.name + x.name.upper())) for x in r.fields]
        if any(c is None or not self.h.number_layout(self.h.resolve(x.type))
               or not self.c.number_layout(self.c.resolve(c.type)) for x, c in pairs):
            return []
        return pairs

    def assign(self, ht: ir.CType, ct: ir.CType, dst: str, src: str, to_cuda: bool) -> list[str]:
        """C statements copying one field between the two layouts."""
        h, c = self.h.resolve(ht), self.c.resolve(ct)
        if h.kind == "array" and c.kind == "array":
            if self.same_bits(h.pointee, c.pointee):
                return [f"memcpy({dst}, {src}, sizeof({dst}) < sizeof({src}) ? sizeof({dst}) : sizeof({src}));"]
            if h.count == c.count:
                inner = self.assign(h.pointee, c.pointee, f"{dst}[i]", f"{src}[i]", to_cuda)
                return [f"for (int i = 0; i < {h.count}; i++) {{ {' '.join(inner)} }}"]
            raise NoBridge("arrays of different element types and lengths")
        hr, cr = self.h.record_of(h), self.c.record_of(c)
        if hr and cr:
            if self.same_layout(hr, cr):
                self.need(hr.name)
                return [f"memcpy(&{dst}, &{src}, sizeof({dst}));"]
            if self.union_embeds(hr, cr):   # the destination is zeroed before (its extra bytes stay 0)
                self.need(hr.name)
                return [f"memcpy(&{dst}, &{src}, sizeof({dst}) < sizeof({src}) ? sizeof({dst}) : sizeof({src}));"]
            if hr.kind == "union" or cr.kind == "union" or has_overlap(hr) or has_overlap(cr):
                raise NoBridge("unions with different layouts")
            if not cr.c_name or hr.anonymous:
                # An anonymous nested struct has no type name to give a converter: assign its fields here.
                lines = []
                for f in hr.fields:
                    cname = self.names.field(hr.name, f.name, [x.name for x in cr.fields])
                    if cname is None:
                        continue
                    cf = next(x for x in cr.fields if x.name == cname)
                    d, s_ = (f"{dst}.{cname}", f"{src}.{f.name}") if to_cuda else (f"{dst}.{f.name}", f"{src}.{cname}")
                    lines += self.assign(f.type, cf.type, d, s_, to_cuda)
                return lines
            return [f"{self.record_converter(hr, cr, to_cuda)}(&{dst}, &{src});"]
        he, ce = self.h.enum_of(h), self.c.enum_of(c)
        if he and ce and not self.enum_identity(he, ce):
            if to_cuda:
                return [f"{{ int ok = 1; {dst} = {self.enum_to_cuda(he, ce)}((int){src}, &ok); }}"]
            return [f"{dst} = {self.enum_to_hip(he, ce)}((int){src});"]
        if self.same_bits(h, c) or (self.h.number_layout(h) and self.c.number_layout(c)):
            target = self.cspell_c(ct) if to_cuda else self.hspell(ht)
            if h.kind == "pointer" or c.kind == "pointer":
                return [f"{dst} = ({target})(uintptr_t){src};"]
            return [f"{dst} = ({target}){src};"]
        raise NoBridge(f"{self.h.tclass(ht)} vs {self.c.tclass(ct)}")

    def need(self, name: str) -> None:
        """The C file must define HIP record `name` (and what it holds by value)."""
        if name in self.needed_records:
            return
        self.needed_records.add(name)
        for f in self.h.records[name].fields:
            t = self.h.resolve(f.type)
            while t.kind == "array":
                t = self.h.resolve(t.pointee)
            if t.kind == "record" and t.name in self.h.records:
                self.need(t.name)

    # -- arrays of values laid out differently (enum option lists) -----------------------
    def array_copy(self, x: str, n: str, t: str, inner: str, conv: str, fail: str, frees: list[str]) -> list[str]:
        """C lines copying the caller's array `x` of `n` values into a malloc'd `t` of the other
        side's type `inner`, each converted by `conv` (a format of `x[k_]` and `&ok_`); `fail` is
        the return for a value with no counterpart (the copies so far are freed first). The
        caller frees `t` after the call (it is appended to `frees`)."""
        def freeing(temps):
            return f"{{ {' '.join(f'free({v});' for v in temps)} {fail} }}" if temps else fail
        lines = [f"{inner}* {t} = NULL;",
                 f"if ({x} && {n} > 0) {{",
                 f"    {t} = ({inner}*)malloc((size_t){n} * sizeof *{t});",
                 f"    if (!{t}) {freeing(frees)}",
                 f"    for (size_t k_ = 0; k_ < (size_t){n}; k_++) {{ int ok_ = 1; {t}[k_] = "
                 f"{conv.format(f'{x}[k_]', '&ok_')}; if (!ok_) {freeing(frees + [t])} }}",
                 "}"]
        frees.append(t)
        return lines

    # -- spelling ----------------------------------------------------------------------
    def hspell(self, t: ir.CType, name: str = "") -> str:
        """C declaration of `name` with HIP's type `t`, in the layer's `hipabi_` names."""
        return declarator(t, name, self._hbase)

    def cspell_c(self, t: ir.CType, name: str = "") -> str:
        """C declaration of `name` with CUDA's type `t`, in CUDA's own names."""
        return declarator(t, name, self._cbase)

    def _hbase(self, t: ir.CType) -> str:
        if t.kind == "record":
            rec = self.h.records.get(t.name)
            return f"{rec.kind if rec else 'struct'} {PREFIX}{t.name}"
        if t.kind in ("typedef", "enum") and (t.name in self.h.typedefs or t.name in self.h.enums):
            return PREFIX + t.name
        return {"_Float16": "unsigned short", "__fp16": "unsigned short"}.get(t.name, t.name) or "void"

    def _cbase(self, t: ir.CType) -> str:
        if t.kind == "record" and t.name in self.c.records:
            rec = self.c.records[t.name]
            return rec.c_name or f"{rec.kind} {t.name}"
        if t.kind == "enum" and t.name in self.c.enums:
            return self.c.enums[t.name].c_name or t.name
        return t.name or "void"
