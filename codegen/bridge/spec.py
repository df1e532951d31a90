"""The bridge specs' schema: how the functions of one API are implemented by another's.

Both directions speak one vocabulary, `BridgeSpec`; the source is the API a bridge exports, the
target the API it calls:

  NvSpec        the HIP-on-CUDA layer, codegen/specs/nvidia/<library>.yaml (its keys at the top
                level): HIP's functions (source) on CUDA's (target). It also holds the library's
                CUDA<->HIP name rules (`rules`, `rename`, `enumerators`, `fields`, `require`),
                which the `cuda` alias reads backwards.
  AliasBridge   the `cuda` alias, the `bridge:` key of hip_as_cuda/specs/<module>.yaml: CUDA's
                functions (source) on HIP's (target).

As for the library specs (codegen/spec.py), the dataclasses are the schema (codegen/schema.py):
loading refuses keys no field names, and `unmatched()` lists the entries that name nothing in the
source's headers (and, given its IR, the target's). docs/spec_format.rst documents every key.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..schema import SCOPE, SpecError, Unmatched, _key, _scoped, build, read_yaml
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


@dataclass(frozen=True)
class Statuses:
    """The source's status enumerators a bridge answers with."""
    type: str = field(default="", metadata=_key("type", str))     # the status enum (the layer's; the alias's
                                                                  # is its library spec's error_type)
    success: str = field(default="", metadata=_key("success", str))
    not_supported: str = field(default="", metadata=_key("not_supported", str))   # the target lacks the function
    unknown: str = field(default="", metadata=_key("unknown", str))   # a target status the source has no name for
    invalid: str = field(default="", metadata=_key("invalid", str))   # a value the target has no counterpart of
    exiting: str = field(default="", metadata=_key("exiting", str))   # a call after Python finalized (the alias)
    # a NULL handle where C needs one, refused by the Python layer before the call (the alias)
    null_handle: str = field(default="", metadata=_key("null_handle", str))


@dataclass(frozen=True)
class Params:
    """Parameters by 'function.param' regular expressions over the source's names."""
    params: list[str] = field(default_factory=list, metadata=_key("params", _STRS))


@dataclass(frozen=True)
class Locations(Params):
    """Parameters where HIP takes a device ordinal (hipCpuDeviceId, -1: the host) and CUDA a memory
    location, with CUDA's location types of the host and of a device."""
    host: str = field(default="", metadata=_key("host", str))
    device: str = field(default="", metadata=_key("device", str))


@dataclass(kw_only=True)
class BridgeSpec:
    """What one direction's bridges need that the headers do not say (source: the API exported)."""
    # source function -> target function, where the name rules do not lead there
    rename: dict[str, str] = field(default_factory=dict, metadata=_key("rename", {str: str}))
    # source function -> why it is hand-written (the layer: codegen/nvidia/manual/<library>.c;
    # the alias: hip_as_cuda/manual/<module>.pyx)
    manual: dict[str, str] = field(default_factory=dict, metadata=_key("manual", {str: str}))
    # source function -> why it answers not-supported
    unsupported: dict[str, str] = field(default_factory=dict, metadata=_key("unsupported", {str: str}))
    # source enumerator -> the target's that answers it where their names differ
    enumerators: dict[str, str] = field(default_factory=dict, metadata=_key("enumerators", {str: str}))
    # source function regex -> source parameters the target lacks; `name[count]`: an array of
    # `count` elements that means what the target does only where it is all zero
    drop: dict[str, list[str]] = field(default_factory=dict, metadata=_key("drop", {str: _STRS}))
    # source function regex -> target parameters the source lacks, passed as 0 / NULL
    fill: dict[str, list[str]] = field(default_factory=dict, metadata=_key("fill", {str: _STRS}))
    # source function regex -> {target parameter the source lacks: a target enumerator or a number}
    fixed: dict[str, dict[str, str]] = field(default_factory=dict, metadata=_key("fixed", {str: {str: str}}))
    status: Statuses = field(default_factory=Statuses, metadata=_key("status", Statuses))
    # where HIP takes a device ordinal and CUDA a memory location
    device_as_location: Locations = field(default_factory=Locations, metadata=_key("device_as_location", Locations))
    # target function regex (re.match) -> C run first
    prologue: dict[str, str] = field(default_factory=dict, metadata=_key("prologue", {str: str}))
    # source function -> C run after the call (hr_: the source's result)
    after: dict[str, str] = field(default_factory=dict, metadata=_key("after", {str: str}))
    # source function regex -> {why, params}: succeed, write 0 to the parameters `params` names
    zero_outputs: dict[str, dict] = field(default_factory=dict,
                                          metadata=_key("zero_outputs", {str: {"why": str, "params": str}}))


@dataclass(kw_only=True)
class NvSpec(BridgeSpec):
    """A HIP library's layer spec: HIP's functions on CUDA's, and the library's name rules."""
    library: str = field(metadata=_key("library", str, True))             # the HIP library ('hip', 'hipblas', ...)
    cuda_headers: list[str] = field(metadata=_key("cuda_headers", _STRS, True))
    link: list[str] = field(default_factory=list, metadata=_key("link", _STRS))   # -l names the layer links against
    # of `link`: linked from lib<name>_static.a where the library dirs have it (else as the others)
    link_static: list[str] = field(default_factory=list, metadata=_key("link_static", _STRS))
    # regex over the HIP name -> CUDA names tried in order (a string or a list)
    rules: list[Rule] = field(default_factory=list, metadata=_key("rules", [{"hip": str, "cuda": object, SCOPE: str}]))
    # HIP record -> {HIP field: CUDA field}
    fields: dict[str, dict[str, str]] = field(default_factory=dict, metadata=_key("fields", {str: {str: str}}))
    # CUDA record -> {CUDA field: the CUDA field read instead where it is NULL}, for HIP's field
    field_fallbacks: dict[str, dict[str, str]] = field(default_factory=dict,
                                                       metadata=_key("field_fallbacks", {str: {str: str}}))
    defines: list[str] = field(default_factory=list, metadata=_key("defines", _STRS))
    # Call CUDA's library through dlopen/dlsym instead of linking it: RCCL and NCCL export the
    # same names (ncclAllReduce), so a linked call would land on the layer's own export.
    dlopen: list[str] = field(default_factory=list, metadata=_key("dlopen", _STRS))
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


@dataclass(kw_only=True)
class AliasBridge(BridgeSpec):
    """A `cuda` alias module's bridge (the `bridge:` key of its spec): CUDA's functions on HIP's."""
    hip: str = field(default="hip", metadata=_key("hip", str))     # the HIP library the module's bridges call
    # HIP headers the HIP library's spec does not parse (its GL interop), parsed after its own
    hip_headers: list[str] = field(default_factory=list, metadata=_key("hip_headers", _STRS))
    # functions naming a CUDA status: CUDA's own enumerator names (HIP's would name HIP's)
    status_names: list[str] = field(default_factory=list, metadata=_key("status_names", _STRS))
    # functions describing a CUDA status: for one HIP has no counterpart of, the first sentence of
    # its description in CUDA's header
    status_texts: list[str] = field(default_factory=list, metadata=_key("status_texts", _STRS))
    # CUDA contexts where HIP takes their device (the context pushed, hipCtxGetDevice, popped)
    context_as_device: Params = field(default_factory=Params, metadata=_key("context_as_device", Params))


def load(library: str, spec_dir: str = SPEC_DIR, rocm: str | None = None) -> NvSpec:
    """The layer spec of `library`, for HIP headers of ROCm version `rocm` (None: every entry)."""
    path = os.path.join(spec_dir, f"{library}.yaml")
    name = f"nvidia/{library}.yaml"
    d, _ = _scoped(read_yaml(path, NvSpec, name), NvSpec, name, rocm)
    rules = []
    for i, r in zip(d.get("_rules_index", ()), d.get("rules") or ()):
        cuda = r.get("cuda")
        cuda = [cuda] if isinstance(cuda, str) else cuda
        if "hip" not in r or not isinstance(cuda, list) or not all(isinstance(c, str) for c in cuda):
            raise SpecError(f"{name}: rules[{i}]: want {{hip: REGEX, cuda: TEMPLATE or [TEMPLATE, ...]}}")
        rules.append(Rule(re.compile(r["hip"]), cuda, f"rules[{i}]"))
    if any(len(pair) != 2 for pair in d.get("require") or []):
        raise SpecError(f"{name}: require: want [HIP enum, CUDA enum] pairs")
    return build(NvSpec, d, rules=rules, soname=nvidia_soname(library))


def all_libraries(spec_dir: str = SPEC_DIR) -> list[str]:
    return sorted(f[:-5] for f in os.listdir(spec_dir) if f.endswith(".yaml"))


def _param_names(entries: list[str]) -> list[str]:
    """`drop`'s parameter names (`name[count]` -> name)."""
    return [e.split("[", 1)[0] for e in entries]


def unmatched_bridge(bs: BridgeSpec, module, types, target=None, prefix: str = "") -> list[Unmatched]:
    """The entries of the keys both directions share that name nothing in the source's IR
    (`module`, `types` its TypeIndex; a function by its name or a #define alias of it) and, given
    `target` (the target's IR), in the target's. `prefix` starts each entry's name ('bridge.')."""
    out: list[Unmatched] = []
    fns = {f.name: f for f in module.functions}
    names = set(fns) | {a for a, t in module.aliases.items() if t in fns}
    for key in ("rename", "manual", "unsupported", "after"):
        out += [Unmatched(f"{prefix}{key}.{n}", f"no function {n}") for n in getattr(bs, key) if n not in names]
    out += [Unmatched(f"{prefix}enumerators.{e}", f"no enumerator {e}") for e in bs.enumerators
            if e not in types.enumerators]
    for rx, params in bs.drop.items():
        hit = [f for f in module.functions if re.fullmatch(rx, f.name)]
        lacking = sorted({p for f in hit for p in _param_names(params) if p not in {q.name for q in f.params}})
        if not hit or lacking:
            out.append(Unmatched(f"{prefix}drop.{rx}", "matches no function" if not hit else
                                 f"a function it matches lacks {', '.join(lacking)}"))
    for key in ("fill", "fixed", "zero_outputs"):
        out += [Unmatched(f"{prefix}{key}.{rx}", "matches no function") for rx in getattr(bs, key)
                if not any(re.fullmatch(rx, n) for n in fns)]
    out += [Unmatched(f"{prefix}device_as_location: {rx}", "matches no function parameter")
            for rx in bs.device_as_location.params
            if not any(re.fullmatch(rx, f"{f.name}.{q.name}") for f in module.functions for q in f.params)]
    st = bs.status
    if st.type and st.type not in set(types.enums) | set(types.typedefs):
        out.append(Unmatched(f"{prefix}status", f"no enum {st.type}"))
    out += [Unmatched(f"{prefix}status", f"no enumerator {getattr(st, k)}")
            for k in ("success", "not_supported", "unknown", "invalid", "exiting", "null_handle")
            if getattr(st, k) and getattr(st, k) not in types.enumerators]
    if target is not None:
        from ..types import TypeIndex
        tt = TypeIndex(target)
        tfns = {f.name for f in target.functions} | set(target.aliases)
        side = "CUDA" if isinstance(bs, NvSpec) else "HIP"
        out += [Unmatched(f"{prefix}rename.{n}", f"{side} has no function {t}") for n, t in bs.rename.items()
                if t not in tfns]
        out += [Unmatched(f"{prefix}enumerators.{n}", f"{side} has no enumerator {t}")
                for n, t in bs.enumerators.items() if t not in tt.enumerators]
        out += [Unmatched(f"{prefix}prologue.{rx}", f"matches no {side} function") for rx in bs.prologue
                if not any(re.match(rx, n) for n in tfns)]
        tparams = {q.name for f in target.functions for q in f.params}
        fixed = [(rx, p) for rx, ps in bs.fill.items() for p in ps] + \
            [(rx, p) for rx, ps in bs.fixed.items() for p in ps]
        out += [Unmatched(f"{prefix}{'fill' if rx in bs.fill else 'fixed'}.{rx}",
                          f"no {side} function has a parameter {p}") for rx, p in fixed if p not in tparams]
    return out


def unmatched(ns: NvSpec, module, types, cuda=None) -> list[Unmatched]:
    """The entries of `ns` that name nothing in the HIP library's IR (`module`, `types` its
    TypeIndex) and, given `cuda` (the CUDA headers' IR), on the CUDA side: functions (by name or
    HIP's #define alias), enumerators, records, fields and enums."""
    out = unmatched_bridge(ns, module, types, cuda)
    fns = {f.name: f for f in module.functions}
    names = set(fns) | {a for a, t in module.aliases.items() if t in fns}
    enums = set(types.enums) | set(types.typedefs)
    out += [Unmatched(r.entry, f"{r.hip.pattern!r} matches no function") for r in ns.rules
            if not any(r.hip.fullmatch(n) for n in names)]
    for rec, flds in ns.fields.items():
        r = types.records.get(rec)
        missing = sorted(set(flds) - {x.name for x in r.fields}) if r else []
        if r is None or missing:
            out.append(Unmatched(f"fields.{rec}", f"no record {rec}" if r is None else f"no field(s) {', '.join(missing)}"))
    out += [Unmatched(f"opaque: {r}", f"no record {r}") for r in ns.opaque if r not in types.records]
    out += [Unmatched(f"require[{i}]", f"no enum {h}") for i, (h, _) in enumerate(ns.require) if h not in enums]
    out += [Unmatched(f"require_records: {r}", f"no record {r}") for r in ns.require_records
            if r not in types.records and not (r in types.typedefs and types.record_of(types.typedefs[r].type))]
    out += [Unmatched(f"name_tables: {e}", f"no enum {e}") for e in ns.name_tables if e not in enums]
    if cuda is not None:
        from ..types import TypeIndex
        cenums = set(TypeIndex(cuda).enums) | set(TypeIndex(cuda).typedefs)
        out += [Unmatched(f"require[{i}]", f"CUDA has no enum {c}") for i, (_, c) in enumerate(ns.require)
                if c not in cenums]
    return out


def unmatched_alias(ab: AliasBridge, module, types, hip=None) -> list[Unmatched]:
    """The entries of an alias module's `bridge:` that name nothing in its CUDA IR (`module`,
    `types`) and, given `hip` (the HIP library's IR), in HIP's."""
    out = unmatched_bridge(ab, module, types, hip, "bridge.")
    fns = {f.name for f in module.functions}
    for key in ("status_names", "status_texts"):
        out += [Unmatched(f"bridge.{key}: {n}", f"no function {n}") for n in getattr(ab, key) if n not in fns]
    out += [Unmatched(f"bridge.context_as_device: {rx}", "matches no function parameter")
            for rx in ab.context_as_device.params
            if not any(re.fullmatch(rx, f"{f.name}.{q.name}") for f in module.functions for q in f.params)]
    return out


def entries(bs: BridgeSpec, prefix: str = "") -> list[str]:
    """Every entry `unmatched` (an NvSpec) or `unmatched_alias` (an AliasBridge, prefix 'bridge.')
    judges, by the name it reports it under."""
    out = []
    for key in ("rename", "manual", "unsupported", "after", "enumerators", "drop", "fill", "fixed",
                "zero_outputs", "prologue"):
        out += [f"{prefix}{key}.{k}" for k in getattr(bs, key)]
    out += [f"{prefix}device_as_location: {rx}" for rx in bs.device_as_location.params]
    out += [f"{prefix}status"] * (bs.status != Statuses())
    if isinstance(bs, NvSpec):
        out += [r.entry for r in bs.rules] + [f"fields.{k}" for k in bs.fields]
        out += [f"opaque: {r}" for r in bs.opaque] + [f"require[{i}]" for i in range(len(bs.require))]
        out += [f"require_records: {r}" for r in bs.require_records]
        out += [f"name_tables: {e}" for e in bs.name_tables]
    if isinstance(bs, AliasBridge):
        out += [f"bridge.{key}: {n}" for key in ("status_names", "status_texts") for n in getattr(bs, key)]
        out += [f"bridge.context_as_device: {rx}" for rx in bs.context_as_device.params]
    return out
