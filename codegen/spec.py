"""Per-library specs (YAML): what to parse, what to load, how parameters are used.

A spec is data; docs/spec_format.rst documents the format. `defaults.yaml`
holds the intent rules every library shares; a library's own rules come first.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import yaml

SPEC_DIR = os.path.join(os.path.dirname(__file__), "specs")


@dataclass
class IntentRule:
    match: re.Pattern          # regex over the parameter's type class (see intent.py)
    name: re.Pattern | None    # regex over the parameter name
    function: re.Pattern | None
    intent: str
    shape: str

    def applies(self, tclass: str, pname: str, fname: str) -> bool:
        return bool(self.match.fullmatch(tclass)
                    and (self.name is None or self.name.fullmatch(pname))
                    and (self.function is None or self.function.fullmatch(fname)))


@dataclass
class DestroyRule:
    """A function (regex) that frees its handle parameter (regex over the name; None: its first
    handle parameter): the handle object passed is marked destroyed after a successful call."""
    function: re.Pattern
    param: re.Pattern | None = None


@dataclass
class Spec:
    library: str                       # 'hip', 'hiprtc', ...
    python_module: str                 # 'hip'     -> hip/hip.pyx
    cimport_module: str                # 'chip'    -> hip/chip.pxd
    headers: list[str]
    owns: list[str]
    owns_types: list[str] = field(default_factory=list)   # prefixes whose types (not functions) are ours
    language: str = "c"
    depends: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    library_env: str = ""
    library_names: dict[int, list[str]] = field(default_factory=dict)
    library_bare: str = ""
    error_type: str = ""               # the status enum functions return, if any
    success: str = ""                  # its success enumerator
    error_string: str = ""             # function giving a status's message (hipGetErrorString)
    value_result_with_success: bool = False   # a value result returns (success, value), not (value,)
    parity_deviations: dict[str, str] = field(default_factory=dict)   # function regex -> why it differs from AMD's
    rules: list[IntentRule] = field(default_factory=list)
    overrides: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    callbacks: dict[str, dict] = field(default_factory=dict)
    skip: dict[str, str] = field(default_factory=dict)
    struct_defaults: dict[str, dict] = field(default_factory=dict)
    struct_from_int: list[str] = field(default_factory=list)   # records an int argument stands for
    binary_fields: list[str] = field(default_factory=list)   # 'Record.field': char[N] holding bytes, not text
    # {query, device, functions}: refuse results returned through host locals in device pointer mode
    pointer_mode_guard: dict = field(default_factory=dict)
    device_allocations: dict[str, str] = field(default_factory=dict)
    handles: list[str] = field(default_factory=list)   # void* typedefs that are opaque handles
    # device_allocations whose memory the host can read too (managed): their arrays export the buffer protocol
    host_accessible_allocations: list[str] = field(default_factory=list)
    # 'function.param': a non-const pointer the call only reads (read-only buffers, `bytes`, accepted)
    read_only_params: list[str] = field(default_factory=list)
    # name -> library: another library's class or enum this module offers too (AMD's hiprtc has hipJitOption)
    reexports: dict[str, str] = field(default_factory=dict)
    # Argument checks (docs/spec_format.rst, "Refusing bad input"):
    nullable_handles: list[str] = field(default_factory=list)   # handle types a NULL (None) is valid for
    destroys: list[DestroyRule] = field(default_factory=list)   # calls that free a handle argument
    nullable_args: list[re.Pattern] = field(default_factory=list)   # 'function.param': None is NULL, valid
    finite_floats: re.Pattern | None = None    # 'function.param' of floats where NaN/inf are refused
    buffer_size_queries: dict[str, str] = field(default_factory=dict)   # function regex -> size function
    unsupported_values: dict[str, str] = field(default_factory=dict)   # enumerator -> why the library fails on it
    # Debian packages: `dev` has the headers (fetched when no ROCm is installed), `runtime` is
    # bookworm's ROCm 5.2 runtime (the tests run against it on a machine without ROCm).
    debian_dev: list[str] = field(default_factory=list)
    debian_runtime: list[str] = field(default_factory=list)
    doc: str = ""


SHAPES = ("scalar", "array", "string", "string_array", "buffer", "packed", "kernel_params", "ref", "number", "text")


def _intent(text: str) -> tuple[str, str]:
    """'out scalar' -> ('out', 'scalar'); 'out array[ndev]' keeps the length parameter in the shape."""
    parts = text.split()
    intent, shape = parts[0], (parts[1] if len(parts) > 1 else "scalar")
    if intent not in ("in", "out", "inout") or shape.split("[")[0] not in SHAPES:
        raise ValueError(f"bad intent {text!r}: want '<in|out|inout> <{'|'.join(SHAPES)}>'")
    return intent, shape


def _rules(items) -> list[IntentRule]:
    rules = []
    for r in items or ():
        rules.append(IntentRule(re.compile(r["match"]), re.compile(r["name"]) if "name" in r else None,
                                re.compile(r["function"]) if "function" in r else None, *_intent(r["as"])))
    return rules


def load(library: str, spec_dir: str = SPEC_DIR) -> Spec:
    """The spec of `library`; the shared rules come from spec_dir's defaults.yaml, or the
    shipped one where spec_dir has none (test specs are judged by the real rules)."""
    with open(os.path.join(spec_dir, f"{library}.yaml")) as f:
        d = yaml.safe_load(f)
    defaults_path = os.path.join(spec_dir, "defaults.yaml")
    if not os.path.exists(defaults_path):
        defaults_path = os.path.join(SPEC_DIR, "defaults.yaml")
    with open(defaults_path) as f:
        defaults = yaml.safe_load(f)
    lib = d.get("shared_library", {})
    spec = Spec(
        library=d["library"], python_module=d["python_module"], cimport_module=d["cimport_module"],
        headers=d["headers"], owns=d["owns"], owns_types=d.get("owns_types", []), language=d.get("language", "c"),
        depends=d.get("depends", []), defines=defaults.get("defines", []) + d.get("defines", []),
        library_env=lib.get("env", f"HIP_PYTHON_{library.upper()}_LIBRARY"),
        library_names={int(k): v for k, v in lib.get("names", {}).items()},
        library_bare=lib.get("bare", ""), error_type=d.get("error_type", ""), success=d.get("success", ""),
        error_string=d.get("error_string", ""), value_result_with_success=bool(d.get("value_result_with_success")),
        parity_deviations=d.get("parity_deviations") or {},
        rules=_rules(d.get("intent_rules")) + _rules(defaults.get("intent_rules")),
        overrides={fn: {p: _intent(v) for p, v in params.items()}
                   for fn, params in (d.get("intent_overrides") or {}).items()},
        callbacks=d.get("callbacks") or {}, skip=d.get("skip") or {},
        struct_defaults=d.get("struct_defaults") or {}, struct_from_int=d.get("struct_from_int") or [],
        binary_fields=d.get("binary_fields") or [],
        pointer_mode_guard=d.get("pointer_mode_guard") or {},
        device_allocations=d.get("device_allocations") or {}, handles=d.get("handles") or [], doc=d.get("doc", ""),
        host_accessible_allocations=d.get("host_accessible_allocations") or [],
        read_only_params=d.get("read_only_params") or [], reexports=d.get("reexports") or {},
        nullable_handles=d.get("nullable_handles") or [],
        destroys=[DestroyRule(re.compile(r["function"]), re.compile(r["param"]) if "param" in r else None)
                  for r in (d.get("destroys") or []) + (defaults.get("destroys") or [])],
        nullable_args=[re.compile(x) for x in d.get("nullable_args") or []],
        finite_floats=re.compile(d["finite_floats"]) if d.get("finite_floats") else None,
        buffer_size_queries=d.get("buffer_size_queries") or {},
        unsupported_values=d.get("unsupported_values") or {},
        debian_dev=(d.get("debian") or {}).get("dev") or [], debian_runtime=(d.get("debian") or {}).get("runtime") or [])
    return spec


def all_libraries(spec_dir: str = SPEC_DIR) -> list[str]:
    """Library names in dependency order (each after what it depends on)."""
    names = sorted(f[:-5] for f in os.listdir(spec_dir) if f.endswith(".yaml") and f != "defaults.yaml")
    deps = {n: load(n, spec_dir).depends for n in names}
    order: list[str] = []

    def visit(n):
        if n not in order:
            for dep in deps[n]:
                visit(dep)
            order.append(n)
    for n in names:
        visit(n)
    return order
