"""Specs of the HIP-on-CUDA layer: codegen/specs/nvidia/<library>.yaml."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import yaml

from . import match
from .layer_names import nvidia_soname

SPEC_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "specs", "nvidia")
MANUAL_DIR = os.path.join(os.path.dirname(__file__), "manual")


@dataclass
class Rule:
    hip: re.Pattern
    cuda: list[str]           # templates for re.Match.expand


@dataclass
class NvSpec:
    library: str                              # the HIP library ('hip', 'hipblas', ...)
    cuda_headers: list[str]
    link: list[str]                           # -l names the layer links against
    status: dict[str, str]                    # type, not_supported, unknown, invalid
    rules: list[Rule]
    rename: dict[str, str] = field(default_factory=dict)          # HIP function -> CUDA function
    manual: dict[str, str] = field(default_factory=dict)          # HIP function -> why hand-written
    unsupported: dict[str, str] = field(default_factory=dict)     # HIP function -> why not bridged
    after: dict[str, str] = field(default_factory=dict)           # HIP function -> C statement run after
    enumerators: dict[str, str] = field(default_factory=dict)     # HIP enumerator -> CUDA enumerator
    fields: dict[str, dict[str, str]] = field(default_factory=dict)  # HIP record -> {HIP field: CUDA field}
    prologue: dict[str, str] = field(default_factory=dict)        # regex over CUDA name -> C statement
    defines: list[str] = field(default_factory=list)
    drop: dict[str, list[str]] = field(default_factory=dict)    # regex over HIP name -> params CUDA lacks
    # Call CUDA's library through dlopen/dlsym instead of linking it: RCCL and NCCL export the
    # same names (ncclAllReduce), so a linked call would land on the layer's own export.
    dlopen: list[str] = field(default_factory=list)
    zero_outputs: dict[str, dict] = field(default_factory=dict)  # regex -> {why, params}: succeed, params 0
    opaque: list[str] = field(default_factory=list)            # HIP records used only through pointers
    require: list[list[str]] = field(default_factory=list)       # [HIP enum, CUDA enum] converters to emit
    name_tables: list[str] = field(default_factory=list)         # HIP enums given a value -> name function
    soname: str = ""                  # the built file: hip/_layer_names.py decides it, not the spec

    @property
    def manual_source(self) -> str | None:
        p = os.path.join(MANUAL_DIR, f"{self.library}.c")
        return p if os.path.exists(p) else None

    def cuda_candidates(self, hip_names: list[str]) -> list[str]:
        """CUDA function names to try for a HIP function known by `hip_names` (name, then aliases)."""
        return match.function_candidates(hip_names, self.rules, self.rename)


def load(library: str, spec_dir: str = SPEC_DIR) -> NvSpec:
    with open(os.path.join(spec_dir, f"{library}.yaml")) as f:
        d = yaml.safe_load(f)
    rules = [Rule(re.compile(r["hip"]), r["cuda"] if isinstance(r["cuda"], list) else [r["cuda"]])
             for r in d.get("rules", [])]
    return NvSpec(library=d["library"], cuda_headers=d["cuda_headers"], link=d.get("link", []),
                  status=d.get("status", {}), rules=rules, rename=d.get("rename") or {},
                  manual=d.get("manual") or {}, unsupported=d.get("unsupported") or {},
                  after=d.get("after") or {}, enumerators=d.get("enumerators") or {},
                  fields=d.get("fields") or {}, prologue=d.get("prologue") or {},
                  defines=d.get("defines") or [], require=d.get("require") or [], opaque=d.get("opaque") or [], drop=d.get("drop") or {}, zero_outputs=d.get("zero_outputs") or {},
                  dlopen=d.get("dlopen") or [],
                  name_tables=d.get("name_tables") or [], soname=nvidia_soname(library))


def all_libraries(spec_dir: str = SPEC_DIR) -> list[str]:
    return sorted(f[:-5] for f in os.listdir(spec_dir) if f.endswith(".yaml"))
