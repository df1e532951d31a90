"""The one bridge generator: a C function per function of one API (the source) that implements it
with its counterpart in the other (the target), for both directions:

  codegen/nvidia/emit_c.py  `Layer`   HIP's functions on CUDA's (the HIP-on-CUDA layer)
  codegen/alias/bridge.py   `Bridge`  CUDA's functions on HIP's (the `cuda` alias)

`Bridges` decides everything that does not depend on the direction: which functions are bridged,
stubbed or hand-written (and the coverage entry of each), how each parameter crosses (a cast where
the bits agree; enumerators, numbers, structs and arrays converted; a callback through a
trampoline; a device ordinal <-> a memory location), the parameters one side lacks (the spec's
`drop`, `fill`, `fixed`) and the result. A direction names its two sides and supplies what differs
between them: how the target is called (`call`), how a function is exported (`signature`), the
source's statuses, and the enum converters (inputs refuse a value the target has no counterpart
of; outputs follow the direction's rule for one the source lacks). The spec is a
codegen/bridge/spec.py `BridgeSpec`.
"""
from __future__ import annotations

import re

from .. import ir
from .convert import Converter, NoBridge
from .spec import BridgeSpec


class Bridges:
    # Set by each direction.
    source = target = ""          # 'HIP', 'CUDA': in messages and the coverage entries ('hip', 'cuda')
    prefix = ""                   # of the C locals and helpers of this direction's bridges: 'hipnv', 'hipcuda'
    # A hand-written function has no generated bridge (the layer's are C), or keeps one that its
    # hand-written part may call (the alias's are Cython).
    manual_replaces = True
    # Whether `enum_out` reports an unmatched value through an `ok` flag (else it maps it itself).
    out_needs_ok = False

    def __init__(self, spec: BridgeSpec, cv: Converter, to_cuda: bool):
        self.spec, self.cv, self.to_cuda = spec, cv, to_cuda
        # s: the source's types, t: the target's
        self.s, self.t = (cv.h, cv.c) if to_cuda else (cv.c, cv.h)
        self.coverage: dict[str, dict] = {}
        self.helpers: dict[str, str] = {}     # C the bridges use (trampolines, ...), by name

    # -- what each direction says ------------------------------------------------------------
    def candidates(self, f: ir.Function) -> tuple[list[ir.Function], list[str] | None]:
        """The target functions that may implement source function f, best first, and the names
        tried (None: not reported)."""
        raise NotImplementedError

    def signature(self, f: ir.Function) -> str:
        raise NotImplementedError

    def call(self, f: ir.Function, tf: ir.Function, args: list[str]) -> tuple[list[str], list[str], str]:
        """(lines before the prologue, lines after it, the call expression) of a call of tf."""
        raise NotImplementedError

    def bridged(self, tf: ir.Function) -> None:
        """Note that a bridge calls target function tf."""

    def source_status(self, t: ir.CType) -> ir.Enum | None:
        """The source's status enum, where t is it."""
        raise NotImplementedError

    def status_value(self, e: ir.Enum, key: str) -> int:
        """The source status the spec's `status.<key>` names."""
        name = getattr(self.spec.status, key)
        if not name:
            raise ValueError(f"the spec's status.{key} is not set")
        return Converter.enumerator_value(e, name)

    def enum_in(self, se: ir.Enum, te: ir.Enum) -> str:
        """The converter `(int v, int* ok)` of a source value to the target's (*ok = 0: none)."""
        raise NotImplementedError

    def enum_out(self, se: ir.Enum, te: ir.Enum, value: str, ok: str) -> str:
        """C converting a target value to the source's (`ok`: the flag it may clear, out_needs_ok)."""
        raise NotImplementedError

    def special(self, f: ir.Function, sf: ir.Function) -> str | None:
        """The C of a function this direction writes otherwise (its coverage set), or None."""
        return None

    def refused(self, sf: ir.Function, i: int, p: ir.Param, se: ir.Enum) -> str:
        """What a bridge returns for input i, an enumerator of `se` the target has no counterpart of."""
        return self.zero_return(sf, "invalid")

    def convert_param(self, sf: ir.Function, tf: ir.Function, i: int, p: ir.Param, tp: ir.Param,
                      pre: list[str], args: list[str], frees: list[str]) -> bool:
        """A parameter this direction converts itself (True: done)."""
        return False

    # -- the two sides ------------------------------------------------------------------------
    def sspell(self, t: ir.CType, name: str = "") -> str:
        return self.cv.hspell(t, name) if self.to_cuda else self.cv.cspell_c(t, name)

    def tspell(self, t: ir.CType, name: str = "") -> str:
        return self.cv.cspell_c(t, name) if self.to_cuda else self.cv.hspell(t, name)

    def hip_cuda(self, source, target) -> tuple:
        """(HIP's, CUDA's) of a source thing and a target thing (the Converter's order)."""
        return (source, target) if self.to_cuda else (target, source)

    def same_bits(self, st: ir.CType, tt: ir.CType) -> bool:
        return self.cv.same_bits(*self.hip_cuda(st, tt))

    def record_in(self, sr: ir.Record, tr: ir.Record) -> str:
        """The converter of a source struct into the target's."""
        return self.cv.record_converter(*self.hip_cuda(sr, tr), self.to_cuda)

    def record_out(self, sr: ir.Record, tr: ir.Record) -> str:
        return self.cv.record_converter(*self.hip_cuda(sr, tr), not self.to_cuda)

    def target_value(self, text: str) -> str:
        """A `fixed` value as C: a target enumerator's value, or the text as it is (a number)."""
        e = self.t.enumerators.get(text)
        if e is not None:
            return str(next(k.value for k in e.constants if k.name == text))
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError(f"fixed value {text!r} is no {self.target} enumerator or number")
        return text

    # -- the functions --------------------------------------------------------------------------
    def function(self, f: ir.Function, sf: ir.Function) -> str:
        """The C of source function sf (f: the same function where its parameters carry the spec's
        intents and shapes, by position); '' where it is hand-written."""
        manual = self.manual_reason(f)
        if manual and self.manual_replaces:
            self.coverage[f.name] = {"status": "manual", "reason": manual}
            return ""
        text = self._function(f, sf)
        if manual:   # hand-written: it runs on the target whatever the generated bridge says
            self.coverage[f.name] = {"status": "bridged", self.target.lower():
                                     self.coverage[f.name].get(self.target.lower(), ""), "manual": manual}
        return text

    def manual_reason(self, f: ir.Function) -> str | None:
        """Why the spec's bridge.manual hand-writes f (keyed by its C name), else None."""
        return self.spec.manual.get(f.name)

    def _function(self, f: ir.Function, sf: ir.Function) -> str:
        text = self.special(f, sf)
        if text is not None:
            return text
        why = self.spec.unsupported.get(f.name)
        if why:
            self.coverage[f.name] = {"status": "not_supported", "reason": why}
            return self.stub(sf, why)
        zero = next((z for rx, z in self.spec.zero_outputs.items() if re.fullmatch(rx, f.name)), None)
        if zero:
            self.coverage[f.name] = {"status": "bridged", self.target.lower(): "", "reason": zero["why"]}
            return self.zero_outputs(sf, zero["why"], zero["params"])
        cands, tried = self.candidates(sf)
        if not cands:
            reason = f"no {self.target} counterpart"
            if tried is not None:
                reason += f" (tried {', '.join(dict.fromkeys(tried)) or 'nothing'})"
            self.coverage[f.name] = {"status": "not_supported", "reason": reason}
            return self.stub(sf, reason)
        errors = []
        for tf in cands:
            try:
                text = self.bridge(sf, tf, f)
                self.coverage[f.name] = {"status": "bridged", self.target.lower(): tf.name}
                return text
            except NoBridge as e:
                errors.append(f"{tf.name}: {e}")
        reason = "; ".join(errors)
        self.coverage[f.name] = {"status": "not_supported", self.target.lower(): cands[0].name, "reason": reason}
        return self.stub(sf, reason)

    def zero_return(self, sf: ir.Function, key: str) -> str:
        """Return from source function sf: the spec's status `key` where it returns the source's
        status, else a zero value."""
        r = self.s.resolve(sf.result)
        if r.kind == "void":
            return "return;"
        st = self.source_status(sf.result)
        if st is not None:
            return f"return {self.status_value(st, key)};"
        if r.kind == "record":
            return f"{{ {self.sspell(sf.result, 'z')}; memset(&z, 0, sizeof z); return z; }}"
        return f"return ({self.sspell(sf.result)})0;"

    def stub(self, sf: ir.Function, reason: str) -> str:
        unused = " ".join(f"(void){p.name or f'a{i}'};" for i, p in enumerate(sf.params))
        return "\n".join([f"/* Not supported on {self.target}: {reason.replace('*/', '* /')} */",
                          self.signature(sf) + " {", f"    {unused}".rstrip(),
                          f"    {self.zero_return(sf, 'not_supported')}", "}"])

    def zero_outputs(self, sf: ir.Function, reason: str, params: str) -> str:
        """Success without a call, 0 written to the number outputs `params` (a regex) names (the
        other pointers may be device memory)."""
        body = []
        for i, p in enumerate(sf.params):
            t = self.s.resolve(p.type)
            x = p.name or f"a{i}"
            if re.fullmatch(params, p.name) and t.kind == "pointer" and not t.pointee.const \
                    and self.s.number_layout(t.pointee):
                body.append(f"if ({x}) *{x} = 0;")
            else:
                body.append(f"(void){x};")
        return "\n".join([f"/* {reason} */", self.signature(sf) + " {", *["    " + b for b in body],
                          f"    {self.zero_return(sf, 'success')}", "}"])

    @staticmethod
    def freeing(temps: list[str], ret: str) -> str:
        """A return that frees the copies made so far."""
        return f"{{ {' '.join(f'free({t});' for t in temps)} {ret} }}" if temps else ret

    # -- one bridge -----------------------------------------------------------------------------
    def bridge(self, sf: ir.Function, tf: ir.Function, f: ir.Function) -> str:
        """sf -> tf; f: sf where its parameters carry the spec's intents and shapes (by position:
        f's parameters may be renamed, `len` -> `length` as cuda.bindings')."""
        if sf.variadic or tf.variadic:
            raise NoBridge("variadic")
        shapes = {sp.name: (q.intent, q.shape) for sp, q in zip(sf.params, f.params)}
        # `name`, or `name[count]`: an array whose element count the spec names
        drops = [re.fullmatch(r"(\w+)(?:\[(\w+)\])?", n).groups()
                 for rx, names in self.spec.drop.items() if re.fullmatch(rx, sf.name) for n in names]
        dropped = {n for n, _ in drops}
        shapes.update({n: (shapes.get(n, ("in", ""))[0], f"array[{k}]") for n, k in drops if k})
        kept = [(i, p) for i, p in enumerate(sf.params) if p.name not in dropped]
        # target parameters the source lacks, given one value (0 / NULL: `fill`)
        fixed = {n: "0" for rx, names in self.spec.fill.items() if re.fullmatch(rx, sf.name) for n in names}
        fixed.update({n: v for rx, vals in self.spec.fixed.items() if re.fullmatch(rx, sf.name)
                      for n, v in vals.items()})
        tkept = [tp for tp in tf.params if tp.name not in fixed]
        if len(kept) != len(tkept):
            raise NoBridge(f"takes {len(tkept)} parameters, {self.source}'s {len(kept)}")
        cv, s, t = self.cv, self.s, self.t
        invalid = self.zero_return(sf, "invalid")
        pre, args, post = [f"(void){p.name};" for p in sf.params if p.name in dropped], [], []
        pre += self.zero_dropped(sf, dropped, shapes)
        frees: list[str] = []     # copies made for the call, freed on every way out
        on_fail: list[str] = []   # what a failed call must undo (a callback's closure)
        data_args: dict[str, str] = {}   # a callback's data parameter -> what the target gets instead
        for (i, p), tp in zip(kept, tkept):
            x = p.name or f"a{i}"
            if x in data_args:
                args.append(data_args[x])
                continue
            intent, shape = shapes.get(p.name, ("in", "scalar"))
            st, tt = s.resolve(p.type), t.resolve(tp.type)
            tspell = self.tspell(tp.type)
            tmp = f"{self.prefix}_t{i}"
            if self.convert_param(sf, tf, i, p, tp, pre, args, frees):
                continue
            if any(re.fullmatch(rx, f"{sf.name}.{p.name}") for rx in self.spec.device_as_location.params):
                loc = self.spec.device_as_location
                if tt.kind == "record" and s.number_layout(st):
                    # A device ordinal where CUDA takes a memory location (hipMemAdvise's device).
                    pre.append(f"{self.tspell(tp.type, tmp)} = {{ .type = ({x} == -1 ? {loc.host} : {loc.device}), "
                               f".id = ({x} == -1 ? 0 : {x}) }};")
                    args.append(tmp)
                    continue
                if st.kind == "record" and t.number_layout(tt):
                    # A memory location where HIP takes a device (cudaMemAdvise's location): the
                    # host is HIP's hipCpuDeviceId (-1), a device its ordinal.
                    args.append(f"({tspell})({x}.type == {loc.host} ? -1 : {x}.id)")
                    continue
            if self.same_bits(p.type, tp.type):
                if st.kind == "record":
                    cv.need(self.hip_cuda(st, tt)[0].name)
                    args.append(f"*({tspell}*)&{x}")
                elif (st.kind == "pointer") != (tt.kind == "pointer"):
                    args.append(f"({tspell})(uintptr_t){x}")
                else:
                    args.append(f"({tspell}){x}")
                continue
            se, te = s.enum_of(st), t.enum_of(tt)
            sn, tn = s.number_layout(st), t.number_layout(tt)
            if se and te:
                pre += [f"int ok{i} = 1;", f"{tspell} {tmp} = ({tspell}){self.enum_in(se, te)}((int){x}, &ok{i});",
                        f"if (!ok{i}) {self.freeing(frees, self.refused(sf, i, p, se))}"]
                args.append(tmp)
                continue
            if (se or sn) and (te or tn):
                args.append(f"({tspell}){x}")
                continue
            if (tt.kind == "pointer" and sn and not sn[1]) or (st.kind == "pointer" and tn and not tn[1]):
                args.append(f"({tspell})(intptr_t){x}")   # cufftHandle (an int) ~ hipfftHandle (a pointer)
                continue
            sr, tr = s.record_of(st), t.record_of(tt)
            if sr and tr:
                pre += [f"{tspell} {tmp}; memset(&{tmp}, 0, sizeof {tmp});", f"{self.record_in(sr, tr)}(&{tmp}, &{x});"]
                args.append(tmp)
                continue
            if st.kind == "pointer" and tt.kind == "pointer" and shape.startswith("array"):
                # An array of values the target lays out differently (cuModuleLoadDataEx's
                # CUjit_option options): converted element by element into a copy of the count the
                # call takes; written back only where the spec makes the array the call's output.
                spt, tpt = s.resolve(st.pointee), t.resolve(tt.pointee)
                se, te = s.enum_of(spt), t.enum_of(tpt)
                sn, tn = s.number_layout(spt), t.number_layout(tpt)
                n = shape[len("array["):-1] if shape.startswith("array[") else ""
                n = next((q for q in n.split("|") if q in {y.name for y in sf.params}), "")
                if not n or not ((se or sn) and (te or tn)):
                    raise NoBridge(f"parameter {x}: an array of {s.tclass(spt)} that {self.target} lays out differently")
                tinner = self.tspell(tt.pointee).replace("const ", "")
                sinner = self.sspell(st.pointee).replace("const ", "")
                conv_in = f"({tinner}){self.enum_in(se, te)}((int){{0}}, {{1}})" if se and te else f"({tinner}){{0}}"
                pre += cv.array_copy(x, n, tmp, tinner, conv_in, invalid, frees)
                if intent != "in" and not st.pointee.const:
                    back = (f"({sinner}){self.enum_out(se, te, f'(int){tmp}[k_]', 'okc_')}" if se and te
                            else f"({sinner}){tmp}[k_]")
                    post.append(f"if ({tmp}) for (size_t k_ = 0; k_ < (size_t){n}; k_++) {{ int okc_ = 1; "
                                f"{x}[k_] = {back}; (void)okc_; }}")
                args.append(tmp)
                continue
            if st.kind == "pointer" and tt.kind == "pointer":
                spt, tpt = s.resolve(st.pointee), t.resolve(tt.pointee)
                tinner = self.tspell(tt.pointee).replace("const ", "")
                sinner = self.sspell(st.pointee).replace("const ", "")
                sr, tr = s.record_of(spt), t.record_of(tpt)
                se, te = s.enum_of(spt), t.enum_of(tpt)
                sn, tn = s.number_layout(spt), t.number_layout(tpt)
                # C decides the direction: a pointer to non-const may be written (whatever the
                # Python API takes); only what the caller fills in is converted on the way in.
                do_in, do_out = intent != "out", not st.pointee.const
                if sr and tr and sr.size > 0 and tr.size > 0:
                    pre.append(f"{tinner} {tmp}; memset(&{tmp}, 0, sizeof {tmp});")
                    if do_in:
                        pre.append(f"if ({x}) {self.record_in(sr, tr)}(&{tmp}, {x});")
                    if do_out:
                        post.append(f"if ({x}) {{ memset({x}, 0, sizeof *{x}); {self.record_out(sr, tr)}({x}, &{tmp}); }}")
                elif (se or sn) and (te or tn):
                    pre.append(f"{tinner} {tmp}; memset(&{tmp}, 0, sizeof {tmp});")
                    if do_in:
                        if se and te:
                            pre += [f"int ok{i} = 1;",
                                    f"if ({x}) {tmp} = ({tinner}){self.enum_in(se, te)}((int)*{x}, &ok{i});"]
                            if not do_out:   # an inout value may hold anything before the call
                                pre.append(f"if (!ok{i}) {self.freeing(frees, invalid)}")
                        else:
                            pre.append(f"if ({x}) {tmp} = ({tinner})*{x};")
                    if do_out:
                        if se and te and self.out_needs_ok:
                            post.append(f"if ({x}) {{ int okc{i} = 1; *{x} = ({sinner})"
                                        f"{self.enum_out(se, te, f'(int){tmp}', f'okc{i}')}; }}")
                        elif se and te:
                            post.append(f"if ({x}) *{x} = ({sinner}){self.enum_out(se, te, f'(int){tmp}', '')};")
                        else:
                            post.append(f"if ({x}) *{x} = ({sinner}){tmp};")
                elif spt.kind == "pointer" and tn and not tn[1]:   # hipfftHandle* ~ cufftHandle*
                    pre.append(f"{tinner} {tmp} = 0;")
                    if do_in:
                        pre.append(f"if ({x}) {tmp} = ({tinner})(intptr_t)*{x};")
                    if do_out:
                        post.append(f"if ({x}) *{x} = ({sinner})(intptr_t){tmp};")
                else:
                    raise NoBridge(f"parameter {x}: {s.tclass(p.type)} vs {self.target}'s {t.tclass(tp.type)}")
                args.append(f"{x} ? &{tmp} : NULL")
                continue
            if st.kind == "funcptr" and tt.kind == "funcptr":
                # A one-shot callback whose arguments the target gives in its own types
                # (cuStreamAddCallback's status): a trampoline converts them; the source's callback
                # and its data ride in a closure the target passes as the data, freed when the
                # callback ran, or the call failed.
                data = self.callback_data(sf, i)
                tramp, closure = self.trampoline(p.type, tp.type)
                pre.append(f"{closure}* cl{i} = NULL;")
                pre.append(f"if ({x}) {{ cl{i} = ({closure}*)malloc(sizeof *cl{i}); "
                           f"if (!cl{i}) {self.freeing(frees, self.zero_return(sf, 'unknown'))} "
                           f"cl{i}->fn = {x}; cl{i}->data = (void*){data}; }}")
                on_fail.append(f"free(cl{i});")
                args.append(f"{x} ? ({tspell}){tramp} : NULL")
                data_args[data] = f"{x} ? (void*)cl{i} : (void*){data}"
                continue
            raise NoBridge(f"parameter {x}: {s.tclass(p.type)} vs {self.target}'s {t.tclass(tp.type)}")
        for k, tp in enumerate(tf.params):   # the fixed values, in the target's order
            if tp.name in fixed:
                args.insert(k, f"({self.tspell(tp.type)}){self.target_value(fixed[tp.name])}")
        if on_fail and self.source_status(sf.result) is None:
            raise NoBridge("a callback closure needs a status to tell a failed call")
        head, resolve, call = self.call(sf, tf, args)
        prologue = [c for rx, c in self.spec.prologue.items() if re.match(rx, tf.name)]
        body = [*head, *prologue, *resolve, *pre, *self.result(sf, tf, call, on_fail), *post,
                *[f"free({v});" for v in frees]]
        self.bridged(tf)
        after = next((self.spec.after[n] for n in self.names(sf) if n in self.spec.after), None)
        if after:
            body.append(after)
        if self.s.resolve(sf.result).kind != "void":
            body.append(f"return {self.result_var};")
        return "\n".join([self.signature(sf) + " {", *["    " + b for b in body], "}"])

    def names(self, sf: ir.Function) -> list[str]:
        """The names the spec may use for sf (HIP's #define aliases too: the layer's)."""
        return [sf.name]

    @property
    def result_var(self) -> str:
        """The source's result, named after its side: hr_ (HIP), cr_ (CUDA)."""
        return f"{self.source[0].lower()}r_"

    def result(self, sf: ir.Function, tf: ir.Function, call: str, on_fail: list[str]) -> list[str]:
        """The call's lines: the target's result converted into the source's (result_var)."""
        s, t, r = self.s, self.t, self.result_var
        sres, tres = s.resolve(sf.result), t.resolve(tf.result)
        sst = self.source_status(sf.result)
        sspell = self.sspell(sf.result)
        if sres.kind == "void":
            return [f"{call};"]
        if sst is not None and tres.kind == "void":
            return [f"{call};", f"{self.sspell(sf.result, r)} = {self.status_value(sst, 'success')};"]
        se, te = s.enum_of(sres), t.enum_of(tres)
        if se and te:
            if not self.out_needs_ok:
                return [f"{self.tspell(tf.result)} r_ = {call};",
                        f"{self.sspell(sf.result, r)} = ({sspell}){self.enum_out(se, te, '(int)r_', '')};"]
            lines = [f"int r_ = (int){call};", "int ok_ = 1;",
                     f"{self.sspell(sf.result, r)} = ({sspell}){self.enum_out(se, te, 'r_', 'ok_')};"]
            if sst is not None:
                lines.append(f"if (!ok_) {r} = ({sspell}){self.status_value(sst, 'unknown')};")
                if on_fail:
                    lines.append(f"if (r_ != 0) {{ {' '.join(on_fail)} }}")
            return lines
        if self.same_bits(sf.result, tf.result) or (s.number_layout(sres) and t.number_layout(tres)):
            return [f"{self.sspell(sf.result, r)} = ({sspell}){call};"]
        sr, tr = s.record_of(sres), t.record_of(tres)
        if sr and tr:   # hipCreateChannelDesc: a struct by value
            return [f"{self.tspell(tf.result, 'r_')} = {call};",
                    f"{self.sspell(sf.result, r)}; memset(&{r}, 0, sizeof {r}); {self.record_out(sr, tr)}(&{r}, &r_);"]
        raise NoBridge(f"result: {s.tclass(sf.result)} vs {self.target}'s {t.tclass(tf.result)}")

    def zero_dropped(self, sf: ir.Function, dropped: set[str], shapes: dict) -> list[str]:
        """An array parameter the target lacks (CUDA 13's edge data of the graph calls) means what
        the target does only where it is all zero: an output is zeroed, as many elements as the call
        may write (a graph edge without data is all zero); an input that holds anything else
        answers not-supported, as the target would ignore it."""
        out = []
        names = {p.name: p for p in sf.params}
        for p in sf.params:
            intent, shape = shapes.get(p.name, ("in", "scalar"))
            st = self.s.resolve(p.type)
            if p.name not in dropped or st.kind != "pointer" or not shape.startswith("array["):
                continue
            cnt = next((names[n] for n in shape[len("array["):-1].split("|") if n in names), None)
            if cnt is None:
                continue
            n = f"({cnt.name} ? *{cnt.name} : 0)" if self.s.resolve(cnt.type).kind == "pointer" else cnt.name
            if intent == "out" and not st.pointee.const:
                out.append(f"if ({p.name}) memset({p.name}, 0, (size_t){n} * sizeof *{p.name});")
            elif intent == "in":
                out.append(f"if ({p.name}) {{ const unsigned char* b_ = (const unsigned char*){p.name}; "
                           f"for (size_t k_ = 0; k_ < (size_t){n} * sizeof *{p.name}; ++k_) "
                           f"if (b_[k_]) {self.zero_return(sf, 'not_supported')} }}")
        return out

    # -- callbacks ------------------------------------------------------------------------------
    def callback_data(self, sf: ir.Function, i: int) -> str:
        """The `void*` parameter after callback parameter i that the callback is given back."""
        for q in sf.params[i + 1:]:
            r = self.s.resolve(q.type)
            if r.kind == "pointer" and self.s.resolve(r.pointee).kind == "void":
                return q.name
        raise NoBridge(f"parameter {sf.params[i].name}: a callback without a data parameter after it")

    def trampoline(self, spelled: ir.CType, tt_: ir.CType) -> tuple[str, str]:
        """(trampoline, closure type) calling a source callback of type `spelled` from the target's
        tt_: arguments of the same bits passed on, statuses and enums converted, the last void*
        the closure."""
        s, t = self.s, self.t
        sf_, tf_ = s.resolve(spelled), t.resolve(tt_)
        name = spelled.name if spelled.kind == "typedef" else f"cb{len(self.helpers)}"
        tramp, closure = f"{self.prefix}_tramp_{name}", f"{self.prefix}_closure_{name}"
        if tramp in self.helpers:
            return tramp, closure
        if len(sf_.params) != len(tf_.params) or sf_.result.kind != "void" or tf_.result.kind != "void":
            raise NoBridge(f"callback {name}: {self.target}'s takes other arguments or returns a value")
        data = max((k for k, a in enumerate(sf_.params) if s.resolve(a).kind == "pointer"
                    and s.resolve(s.resolve(a).pointee).kind == "void"), default=None)
        if data is None:
            raise NoBridge(f"callback {name}: no void* for its data")
        targs, sargs, convs = [], [], []
        for k, (ta, sa) in enumerate(zip(tf_.params, sf_.params)):
            targs.append(self.tspell(ta, f"a{k}"))
            te, se = t.enum_of(t.resolve(ta)), s.enum_of(s.resolve(sa))
            if k == data:
                sargs.append("cl_.data")
            elif self.same_bits(sa, ta) or (t.resolve(ta).kind == "pointer" and s.resolve(sa).kind == "pointer"):
                sargs.append(f"({self.sspell(sa)})a{k}")
            elif te and se:
                # a value without a source counterpart: the status 'unknown' (an enum's 0 otherwise)
                st = self.source_status(sa)
                fallback = self.status_value(st, "unknown") if st is not None else 0
                convs += [f"    int ok{k} = 1, c{k} = {self.enum_out(se, te, f'(int)a{k}', f'ok{k}')};",
                          f"    if (!ok{k}) c{k} = {fallback};"]
                sargs.append(f"({self.sspell(sa)})c{k}")
            else:
                raise NoBridge(f"callback {name}: argument {k} is {t.tclass(ta)} vs {self.source}'s {s.tclass(sa)}")
        self.helpers[tramp] = "\n".join([
            f"typedef struct {{ {self.sspell(spelled, 'fn')}; void* data; }} {closure};",
            f"static void {tramp}({', '.join(targs)}) {{",
            f"    {closure} cl_ = *({closure}*)a{data};",
            f"    free(a{data});   /* one-shot: {self.target} calls it once */",
            *convs,
            f"    cl_.fn({', '.join(sargs)});",
            "}"])
        return tramp, closure
