"""Specs of the HIP-on-CUDA layer: codegen/specs/nvidia/<library>.yaml.

As for the library specs (codegen/spec.py), the NvSpec dataclass is the schema: `load()`
refuses keys no field names, and `unmatched()` lists the entries that name nothing in the
HIP headers (and, given its IR, in CUDA's).
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field

from ..spec import SCOPE, SpecError, Unmatched, _get, _key, _scoped, read_yaml
from . import match
from ..nvidia.layer_names import nvidia_soname

SPEC_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "specs", "nvidia")
MANUAL_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "nvidia", "manual")


@dataclass
class Rule:
    hip: re.Pattern
    cuda: list[str]           # templates for re.Match.expand
    entry: str = ""           # 'rules[2]'


_STRS = [str]
_STATUS = {"type": str, "success": str, "not_supported": str, "unknown": str, "invalid": str}


@dataclass
class NvSpec:
    library: str = field(metadata=_key("library", str, True))             # the HIP library ('hip', 'hipblas', ...)
    cuda_headers: list[str] = field(metadata=_key("cuda_headers", _STRS, True))
    link: list[str] = field(default_factory=list, metadata=_key("link", _STRS))   # -l names the layer links against
    # of `link`: linked from lib<name>_static.a where the library dirs have it (else as the others)
    link_static: list[str] = field(default_factory=list, metadata=_key("link_static", _STRS))
    status: dict[str, str] = field(default_factory=dict, metadata=_key("status", _STATUS))
    # regex over the HIP name -> CUDA names tried in order (a string or a list)
    rules: list[Rule] = field(default_factory=list, metadata=_key("rules", [{"hip": str, "cuda": object, SCOPE: str}]))
    rename: dict[str, str] = field(default_factory=dict, metadata=_key("rename", {str: str}))     # HIP -> CUDA function
    manual: dict[str, str] = field(default_factory=dict, metadata=_key("manual", {str: str}))     # -> why hand-written
    unsupported: dict[str, str] = field(default_factory=dict, metadata=_key("unsupported", {str: str}))   # -> why not
    after: dict[str, str] = field(default_factory=dict, metadata=_key("after", {str: str}))       # -> C run after
    enumerators: dict[str, str] = field(default_factory=dict, metadata=_key("enumerators", {str: str}))   # HIP -> CUDA
    # HIP record -> {HIP field: CUDA field}
    fields: dict[str, dict[str, str]] = field(default_factory=dict, metadata=_key("fields", {str: {str: str}}))
    # CUDA record -> {CUDA field: the CUDA field read instead where it is NULL}, for HIP's field
    field_fallbacks: dict[str, dict[str, str]] = field(default_factory=dict,
                                                       metadata=_key("field_fallbacks", {str: {str: str}}))
    prologue: dict[str, str] = field(default_factory=dict, metadata=_key("prologue", {str: str}))   # CUDA regex -> C
    defines: list[str] = field(default_factory=list, metadata=_key("defines", _STRS))
    # regex over HIP name -> params CUDA lacks
    drop: dict[str, list[str]] = field(default_factory=dict, metadata=_key("drop", {str: _STRS}))
    # regex over HIP name -> CUDA params HIP lacks, passed as 0 / NULL
    fill: dict[str, list[str]] = field(default_factory=dict, metadata=_key("fill", {str: _STRS}))
    # 'function.param' regexes of HIP device ordinals CUDA takes as a memory location (hipMemAdvise's
    # device: hipCpuDeviceId (-1) is the host), with the location type enumerators
    device_as_location: dict = field(default_factory=dict, metadata=_key(
        "device_as_location", {"params": _STRS, "host": str, "device": str}))
    # Call CUDA's library through dlopen/dlsym instead of linking it: RCCL and NCCL export the
    # same names (ncclAllReduce), so a linked call would land on the layer's own export.
    dlopen: list[str] = field(default_factory=list, metadata=_key("dlopen", _STRS))
    # regex -> {why, params}: succeed, write 0 to the parameters `params` names
    zero_outputs: dict[str, dict] = field(default_factory=dict,
                                          metadata=_key("zero_outputs", {str: {"why": str, "params": str}}))
    opaque: list[str] = field(default_factory=list, metadata=_key("opaque", _STRS))   # HIP records used via pointers
    require: list[list[str]] = field(default_factory=list, metadata=_key("require", [_STRS]))   # [HIP, CUDA] enums
    # HIP records the hand-written part uses that no generated bridge may define (hipKernelNodeParams)
    require_records: list[str] = field(default_factory=list, metadata=_key("require_records", _STRS))
    name_tables: list[str] = field(default_factory=list, metadata=_key("name_tables", _STRS))  # value -> name functions
    soname: str = ""                  # the built file: hip/_layer_names.py decides it, not the spec

    @property
    def manual_source(self) -> str | None:
        p = os.path.join(MANUAL_DIR, f"{self.library}.c")
        return p if os.path.exists(p) else None

    def cuda_candidates(self, hip_names: list[str]) -> list[str]:
        """CUDA function names to try for a HIP function known by `hip_names` (name, then aliases)."""
        return match.function_candidates(hip_names, self.rules, self.rename)


def load(library: str, spec_dir: str = SPEC_DIR, rocm: str | None = None) -> NvSpec:
    """The layer spec of `library`, for HIP headers of ROCm version `rocm` (None: every entry)."""
    path = os.path.join(spec_dir, f"{library}.yaml")
    name = f"nvidia/{library}.yaml"
    d, _ = _scoped(read_yaml(path, NvSpec, name), NvSpec, name, rocm)
    kw = {f.name: _get(d, f.metadata["yaml"]) for f in dataclasses.fields(NvSpec)
          if "yaml" in f.metadata and _get(d, f.metadata["yaml"]) is not None}
    rules = []
    for i, r in zip(d.get("_rules_index", ()), d.get("rules") or ()):
        cuda = r.get("cuda")
        cuda = [cuda] if isinstance(cuda, str) else cuda
        if "hip" not in r or not isinstance(cuda, list) or not all(isinstance(c, str) for c in cuda):
            raise SpecError(f"{name}: rules[{i}]: want {{hip: REGEX, cuda: TEMPLATE or [TEMPLATE, ...]}}")
        rules.append(Rule(re.compile(r["hip"]), cuda, f"rules[{i}]"))
    kw["rules"] = rules
    if any(len(pair) != 2 for pair in kw.get("require", [])):
        raise SpecError(f"{name}: require: want [HIP enum, CUDA enum] pairs")
    kw["soname"] = nvidia_soname(library)
    return NvSpec(**kw)


def all_libraries(spec_dir: str = SPEC_DIR) -> list[str]:
    return sorted(f[:-5] for f in os.listdir(spec_dir) if f.endswith(".yaml"))


def unmatched(ns: NvSpec, module, types, cuda=None) -> list[Unmatched]:
    """The entries of `ns` that name nothing in the HIP library's IR (`module`, `types` its
    TypeIndex) and, given `cuda` (the CUDA headers' IR), on the CUDA side: functions (by name or
    HIP's #define alias), enumerators, records, fields and enums."""
    out: list[Unmatched] = []
    fns = {f.name: f for f in module.functions}
    names = set(fns) | {a for a, t in module.aliases.items() if t in fns}
    enums = set(types.enums) | set(types.typedefs)
    out += [Unmatched(r.entry, f"{r.hip.pattern!r} matches no function") for r in ns.rules
            if not any(r.hip.fullmatch(n) for n in names)]
    for key in ("rename", "manual", "unsupported", "after"):
        out += [Unmatched(f"{key}.{n}", f"no function {n}") for n in getattr(ns, key) if n not in names]
    out += [Unmatched(f"enumerators.{e}", f"no enumerator {e}") for e in ns.enumerators if e not in types.enumerators]
    for rec, flds in ns.fields.items():
        r = types.records.get(rec)
        missing = sorted(set(flds) - {x.name for x in r.fields}) if r else []
        if r is None or missing:
            out.append(Unmatched(f"fields.{rec}", f"no record {rec}" if r is None else f"no field(s) {', '.join(missing)}"))
    for rx, params in ns.drop.items():
        hit = [f for f in module.functions if re.fullmatch(rx, f.name)]
        lacking = sorted({p for f in hit for p in params if p not in {q.name for q in f.params}})
        if not hit or lacking:
            out.append(Unmatched(f"drop.{rx}", "matches no function" if not hit else
                                 f"a function it matches lacks {', '.join(lacking)}"))
    out += [Unmatched(f"fill.{rx}", "matches no function") for rx in ns.fill
            if not any(re.fullmatch(rx, n) for n in fns)]
    out += [Unmatched(f"device_as_location: {rx}", "matches no function parameter") for rx in
            ns.device_as_location.get("params", ())
            if not any(re.fullmatch(rx, f"{f.name}.{q.name}") for f in module.functions for q in f.params)]
    out += [Unmatched(f"zero_outputs.{rx}", "matches no function") for rx in ns.zero_outputs
            if not any(re.fullmatch(rx, n) for n in fns)]
    out += [Unmatched(f"opaque: {r}", f"no record {r}") for r in ns.opaque if r not in types.records]
    out += [Unmatched(f"require[{i}]", f"no enum {h}") for i, (h, _) in enumerate(ns.require) if h not in enums]
    out += [Unmatched(f"require_records: {r}", f"no record {r}") for r in ns.require_records
            if r not in types.records and not (r in types.typedefs and types.record_of(types.typedefs[r].type))]
    out += [Unmatched(f"name_tables: {e}", f"no enum {e}") for e in ns.name_tables if e not in enums]
    st = ns.status
    if st.get("type") and st["type"] not in enums:
        out.append(Unmatched("status", f"no enum {st['type']}"))
    out += [Unmatched("status", f"no enumerator {st[k]}") for k in ("success", "not_supported", "unknown", "invalid")
            if st.get(k) and st[k] not in types.enumerators]
    if cuda is not None:
        from ..types import TypeIndex
        ct = TypeIndex(cuda)
        cfns = {f.name for f in cuda.functions} | set(cuda.aliases)
        cenums = set(ct.enums) | set(ct.typedefs)
        out += [Unmatched(f"rename.{h}", f"CUDA has no function {c}") for h, c in ns.rename.items() if c not in cfns]
        out += [Unmatched(f"enumerators.{h}", f"CUDA has no enumerator {c}") for h, c in ns.enumerators.items()
                if c not in ct.enumerators]
        out += [Unmatched(f"require[{i}]", f"CUDA has no enum {c}") for i, (_, c) in enumerate(ns.require)
                if c not in cenums]
        out += [Unmatched(f"prologue.{rx}", "matches no CUDA function") for rx in ns.prologue
                if not any(re.match(rx, n) for n in cfns)]
        cparams = {q.name for f in cuda.functions for q in f.params}
        out += [Unmatched(f"fill.{rx}", f"no CUDA function has a parameter {p}") for rx, ps in ns.fill.items()
                for p in ps if p not in cparams]
    return out


def entries(ns: NvSpec) -> list[str]:
    """Every entry `unmatched` judges, by the name it reports it under."""
    out = [r.entry for r in ns.rules]
    for key in ("rename", "manual", "unsupported", "after", "enumerators", "fields", "drop", "fill",
                "zero_outputs", "prologue"):
        out += [f"{key}.{k}" for k in getattr(ns, key)]
    out += [f"device_as_location: {rx}" for rx in ns.device_as_location.get("params", ())]
    out += [f"opaque: {r}" for r in ns.opaque] + [f"require[{i}]" for i in range(len(ns.require))]
    out += [f"require_records: {r}" for r in ns.require_records]
    out += [f"name_tables: {e}" for e in ns.name_tables] + (["status"] if ns.status else [])
    return out
