"""Per-library specs (YAML): what to parse, what to load, how parameters are used.

A spec is data; docs/spec_format.rst documents the format. `defaults.yaml`
holds the intent rules every library shares; a library's own rules come first.

The `Spec` dataclass is the schema (codegen/schema.py): each field names the YAML key it is
read from and the shape of its value (`_key`), and `load()` refuses any key no field names.
An entry (an intent rule, an override, a callback, ...) written as a mapping may
carry `rocm: '>=6'`: it then applies only to headers of those ROCm versions.
`unmatched()` lists the entries that name nothing in a library's IR.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field

from .bridge.spec import AliasBridge
from .schema import (SCOPE, SpecError, Unmatched, _check, _get, _key, _scoped, _version, build,  # noqa: F401
                     in_scope, key_of, parse_scope, read_yaml)

SPEC_DIR = os.path.join(os.path.dirname(__file__), "specs")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the project's root (include_dirs)


# -- the spec -----------------------------------------------------------------------------------
@dataclass
class IntentRule:
    match: re.Pattern          # regex over the parameter's type class (see intent.py)
    name: re.Pattern | None    # regex over the parameter name
    function: re.Pattern | None
    intent: str
    shape: str
    entry: str = ""            # where it is written: 'intent_rules[2]', 'defaults.yaml intent_rules[0]'

    def applies(self, tclass: str, pname: str, fname: str) -> bool:
        return bool(self.match.fullmatch(tclass)
                    and (self.name is None or self.name.fullmatch(pname))
                    and (self.function is None or self.function.fullmatch(fname)))


_RULE = {"match": str, "name": str, "function": str, "as": str, SCOPE: str}
_DESTROY = {"function": str, "param": str, SCOPE: str}


@dataclass
class DestroyRule:
    """A function (regex) that frees its handle parameter (regex over the name; None: its first
    handle parameter): the handle object passed is marked destroyed after a successful call."""
    function: re.Pattern
    param: re.Pattern | None = None
    entry: str = ""            # where it is written: 'destroys[0]', 'defaults.yaml destroys[0]'


_STRS = [str]


def _choice(*values: str, default: str = ""):
    """A field whose YAML key is its name and whose value is one of `values` (`default`: left out)."""
    return field(default=default, metadata=_key("", values))


@dataclass(frozen=True)
class Conventions:
    """Where a library's Python layer follows another binding's conventions than HIP Python's (the
    `cuda` alias: cuda.bindings'); the defaults are HIP Python's. docs/spec_format.rst has each."""
    outputs_on_error: str = _choice("none")         # every output None unless the call succeeded
    enum_names: str = _choice("typedef")            # an enum's class named by its typedef (CUresult)
    enum_style: str = _choice("cuda")               # str() is repr(), a value's later name wins
    pointer_results: str = _choice("int")           # a void* the call returns is an int
    string_results: str = _choice("bytes")          # C strings returned as bytes, not CStr
    # integer typedefs returned as objects with int() and getPtr() (CUdeviceptr)
    value_classes: list[str] = field(default_factory=list, metadata=_key("value_classes", _STRS))
    empty_out_arrays: str = _choice("null")         # an array the call fills, of 0 elements, is NULL
    # 'function.param' regex -> the Python default of an in or inout number
    defaults: dict[str, str] = field(default_factory=dict, metadata=_key("defaults", {str: str}))
    # C parameter name -> Python name, where C's clashes with Python's (`type`)
    param_names: dict[str, str] = field(default_factory=dict, metadata=_key("param_names", {str: str}))
    handle_classes: str = _choice("tag", "typedef", default="tag")   # a handle class per struct tag or typedef
    # a module of the package whose handle class of the same struct a handle class derives from
    handle_bases: str = field(default="", metadata=_key("handle_bases", str))
    # handle typedefs whose class is this module's own all the same (cuda.bindings' cudaKernel_t)
    own_handles: list[str] = field(default_factory=list, metadata=_key("own_handles", _STRS))
    kernel_params: str = _choice("cuda")            # kernelParams only as cuda.bindings takes them
    text_results: str = _choice("spaced")           # an `out text` buffer whole, spaces after its NUL
    # enum -> {enumerator regex -> type}: what a `void*` output means for each attribute value
    typed_values: dict[str, dict[str, str]] = field(default_factory=dict,
                                                    metadata=_key("typed_values", {str: {str: str}}))
    struct_lists: str = _choice("packed")           # a list of structs is packed into one C array
    strings: str = _choice("bytes")                 # a `const char*` input takes bytes, bytearray only
    struct_typedefs: str = _choice("subclass")      # a struct typedef: a subclass of what it names
    lazy_classes: str = _choice("first_use")        # classes only bodies use made on first use
    integers: str = _choice("truncate")             # integer arguments as cuda.bindings converts them
    # handle classes given __cuda_stream__
    stream_classes: list[str] = field(default_factory=list, metadata=_key("stream_classes", _STRS))
    struct_style: str = _choice("cuda")             # cuda.bindings' struct classes (fields, repr)
    anonymous_names: str = _choice("cuda_bindings")  # anonymous records also anon_struct<i>, anon_union<i>


@dataclass(frozen=True)
class Cimport:
    """Where the cimport layer's C API follows another binding's (the `cuda` alias: cuda.bindings'
    cydriver, whose __pyx_capi__ compiled Cython imports by name and signature); codegen/emit/cdecl.py's
    `Style` applies it."""
    # 'api': a function by the name its header's #define gives it (cuMemAlloc for cuMemAlloc_v2)
    names: str = field(default="", metadata=_key("names", ("api",)))
    sentinel: str = field(default="", metadata=_key("sentinel", str))    # the `except?` value of a status
    # 'cuda_bindings': no const on a pointer itself, a const pointee innermost, an unnamed
    # function-pointer parameter void*
    spelling: str = field(default="", metadata=_key("spelling", ("cuda_bindings",)))
    # headers, or folders ending in '/', whose types are declared in Cython, not `cdef extern`
    cython_level: list[str] = field(default_factory=list, metadata=_key("cython_level", _STRS))
    # 'typedef': `#define A B` of a type is a Cython typedef the parameters spelled with it keep
    type_macros: str = field(default="", metadata=_key("type_macros", ("typedef",)))


@dataclass
class Spec:
    library: str = field(metadata=_key("library", str, True))            # 'hip', 'hiprtc', ...
    python_module: str = field(metadata=_key("python_module", str, True))    # 'hip' -> hip/hip.pyx
    cimport_module: str = field(metadata=_key("cimport_module", str, True))  # 'chip' -> hip/chip.pxd
    headers: list[str] = field(metadata=_key("headers", _STRS, True))
    owns: list[str] = field(metadata=_key("owns", _STRS, True))
    # prefixes whose types (not functions) are ours
    owns_types: list[str] = field(default_factory=list, metadata=_key("owns_types", _STRS))
    # folders of this project (relative to its root) on the include path when the headers are
    # parsed and the modules compiled: stand-ins for system headers the headers include
    include_dirs: list[str] = field(default_factory=list, metadata=_key("include_dirs", _STRS))
    # tags of system headers' structs the library's structs embed by value (`struct timespec`)
    system_records: list[str] = field(default_factory=list, metadata=_key("system_records", _STRS))
    language: str = field(default="c", metadata=_key("language", str))
    depends: list[str] = field(default_factory=list, metadata=_key("depends", _STRS))
    defines: list[str] = field(default_factory=list, metadata=_key("defines", _STRS))   # after the defaults'
    library_env: str = field(default="", metadata=_key("shared_library.env", str))
    library_names: dict[int, list[str]] = field(default_factory=dict, metadata=_key("shared_library.names", {int: _STRS}))
    library_bare: str = field(default="", metadata=_key("shared_library.bare", str))
    error_type: str = field(default="", metadata=_key("error_type", str))       # the status enum functions return
    success: str = field(default="", metadata=_key("success", str))             # its success enumerator
    # its invalid-value enumerator: what a call the binding refuses before C returns (docs/spec_format.rst)
    invalid_value: str = field(default="", metadata=_key("invalid_value", str))
    error_string: str = field(default="", metadata=_key("error_string", str))   # status -> message (hipGetErrorString)
    # a value result returns (success, value), not (value,)
    value_result_with_success: bool = field(default=False, metadata=_key("value_result_with_success", bool))
    # function regex -> why it differs from AMD's; written as {why: ..., amd_form: PARAMS} where
    # the function also takes AMD's call form, PARAMS (a regex over parameter names) the ones
    # AMD's form returns (one element each) instead of taking them: `amd_forms` below
    parity_deviations: dict[str, str] = field(default_factory=dict, metadata=_key("parity_deviations", {str: object}))
    amd_forms: dict[str, re.Pattern] = field(default_factory=dict)   # function regex -> PARAMS
    # name regex -> why ours lacks a name (or an enum member) of AMD's module, or gives it another value
    parity_name_deviations: dict[str, str] = field(default_factory=dict,
                                                   metadata=_key("parity_name_deviations", {str: str}))
    rules: list[IntentRule] = field(default_factory=list, metadata=_key("intent_rules", [_RULE]))   # then the defaults'
    overrides: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict,
                                                             metadata=_key("intent_overrides", {str: {str: str}}))
    callbacks: dict[str, dict] = field(default_factory=dict, metadata=_key(
        "callbacks", {str: {"callback": str, "data": str, "once": bool, SCOPE: str}}))
    skip: dict[str, str] = field(default_factory=dict, metadata=_key("skip", {str: str}))   # function -> why
    struct_defaults: dict[str, dict] = field(default_factory=dict, metadata=_key("struct_defaults", {str: {str: object}}))
    # records an int argument stands for
    struct_from_int: list[str] = field(default_factory=list, metadata=_key("struct_from_int", _STRS))
    # regexes over 'Record.field': char[N] holding bytes, not text
    binary_fields: list[str] = field(default_factory=list, metadata=_key("binary_fields", _STRS))
    # {query, device, functions}: refuse results returned through host locals in device pointer mode
    pointer_mode_guard: dict = field(default_factory=dict, metadata=_key(
        "pointer_mode_guard", {"query": str, "device": str, "functions": str}))
    device_allocations: dict[str, str] = field(default_factory=dict, metadata=_key("device_allocations", {str: str}))
    handles: list[str] = field(default_factory=list, metadata=_key("handles", _STRS))   # void* typedefs: opaque handles
    # device_allocations whose memory the host can read too (managed): their arrays export the buffer protocol
    host_accessible_allocations: list[str] = field(default_factory=list, metadata=_key("host_accessible_allocations", _STRS))
    # 'function.param': a non-const pointer the call only reads (read-only buffers, `bytes`, accepted)
    read_only_params: list[str] = field(default_factory=list, metadata=_key("read_only_params", _STRS))
    # name -> library: another library's class or enum this module offers too (AMD's hiprtc has hipJitOption)
    reexports: dict[str, str] = field(default_factory=dict, metadata=_key("reexports", {str: str}))
    # Argument checks (docs/spec_format.rst, "Refusing bad input"):
    # handle types a NULL (None) is valid for
    nullable_handles: list[str] = field(default_factory=list, metadata=_key("nullable_handles", _STRS))
    # calls that free a handle argument (then the defaults')
    destroys: list[DestroyRule] = field(default_factory=list, metadata=_key("destroys", [_DESTROY]))
    # 'function.param': None is NULL, valid
    nullable_args: list[re.Pattern] = field(default_factory=list, metadata=_key("nullable_args", _STRS))
    # 'function.param' of floats where NaN/inf are refused
    finite_floats: re.Pattern | None = field(default=None, metadata=_key("finite_floats", str))
    # function regex -> size function
    buffer_size_queries: dict[str, str] = field(default_factory=dict, metadata=_key("buffer_size_queries", {str: str}))
    # enumerator -> why the library fails on it
    unsupported_values: dict[str, str] = field(default_factory=dict, metadata=_key("unsupported_values", {str: str}))
    # Debian packages: `dev` has the headers (fetched when no ROCm is installed), `runtime` is
    # bookworm's ROCm 5.2 runtime (the tests run against it on a machine without ROCm).
    debian_dev: list[str] = field(default_factory=list, metadata=_key("debian.dev", _STRS))
    debian_runtime: list[str] = field(default_factory=list, metadata=_key("debian.runtime", _STRS))
    doc: str = field(default="", metadata=_key("doc", str))
    # Python-layer conventions where they differ from HIP Python's (the `cuda` alias follows
    # cuda.bindings')
    conventions: Conventions = field(default_factory=Conventions, metadata=_key("conventions", Conventions))
    # The cimport layer's C API where it follows another binding's (None: the header's)
    cimport: Cimport | None = field(default=None, metadata=_key("cimport", Cimport))
    # The package the modules are imported from ('cuda.bindings' for the `cuda` alias's specs).
    package: str = field(default="hip", metadata=_key("package", str))
    # The `cuda` alias only (hip_as_cuda/specs): how the CUDA functions reach HIP's
    # (codegen/bridge/spec.py; docs/alias.rst)
    bridge: AliasBridge | None = field(default=None, metadata=_key("bridge", AliasBridge))
    scopes: dict[str, str] = field(default_factory=dict)   # entry -> its `rocm:` range (the entries kept)

    def include_paths(self) -> list[str]:
        """`include_dirs` as absolute paths."""
        return [os.path.join(ROOT, d) for d in self.include_dirs]

    def rule_for(self, tclass: str, pname: str, fname: str) -> IntentRule | None:
        """The first rule that applies to a parameter (overrides are the caller's business)."""
        return next((r for r in self.rules if r.applies(tclass, pname, fname)), None)

    def is_binary_field(self, record: str, name: str) -> bool:
        return any(re.fullmatch(p, f"{record}.{name}") for p in self.binary_fields)


@dataclass
class Defaults:
    """defaults.yaml: what every library shares."""
    defines: list[str] = field(default_factory=list, metadata=_key("defines", _STRS))
    rules: list[IntentRule] = field(default_factory=list, metadata=_key("intent_rules", [_RULE]))
    destroys: list[DestroyRule] = field(default_factory=list, metadata=_key("destroys", [_DESTROY]))


SHAPES = ("scalar", "array", "string", "string_array", "buffer", "packed", "kernel_params", "ref", "number", "text",
          "typed")


def _intent(text: str) -> tuple[str, str]:
    """'out scalar' -> ('out', 'scalar'); 'out array[ndev]' keeps the length parameter in the shape."""
    parts = text.split()
    intent, shape = parts[0], (parts[1] if len(parts) > 1 else "scalar")
    if intent not in ("in", "out", "inout") or shape.split("[")[0] not in SHAPES:
        raise ValueError(f"bad intent {text!r}: want '<in|out|inout> <{'|'.join(SHAPES)}>'")
    return intent, shape


def _rules(d: dict, prefix: str = "") -> list[IntentRule]:
    items = d.get("intent_rules") or []
    index = d.get("_intent_rules_index", range(len(items)))
    rules = []
    for i, r in zip(index, items):
        for k in ("match", "as"):
            if k not in r:
                raise SpecError(f"{prefix}intent_rules[{i}]: missing {k!r}")
        rules.append(IntentRule(re.compile(r["match"]), re.compile(r["name"]) if "name" in r else None,
                                re.compile(r["function"]) if "function" in r else None, *_intent(r["as"]),
                                entry=f"{prefix}intent_rules[{i}]"))
    return rules


def _destroys(d: dict, prefix: str = "") -> list[DestroyRule]:
    items = d.get("destroys") or []
    out = []
    for i, r in zip(d.get("_destroys_index", range(len(items))), items):
        if "function" not in r:
            raise SpecError(f"{prefix}destroys[{i}]: missing 'function'")
        out.append(DestroyRule(re.compile(r["function"]), re.compile(r["param"]) if "param" in r else None,
                               f"{prefix}destroys[{i}]"))
    return out


def _deviations(d: dict) -> tuple[dict[str, str], dict[str, re.Pattern]]:
    """parity_deviations: {function regex: why} and {function regex: the parameters AMD's form
    returns} of the entries written `{why: ..., amd_form: PARAMS}`."""
    why, forms = {}, {}
    for k, v in d.items():
        if isinstance(v, dict):
            _check(v, {"why": str, "amd_form": str}, f"parity_deviations.{k}")
            if "why" not in v:
                raise ValueError(f"parity_deviations.{k}: missing 'why'")
            if "amd_form" in v:
                forms[k] = re.compile(v["amd_form"])
            v = v["why"]
        elif not isinstance(v, str):
            raise ValueError(f"parity_deviations.{k}: expected a reason or {{why, amd_form}}, got {v!r}")
        why[k] = v
    return why, forms


def load(library: str, spec_dir: str = SPEC_DIR, rocm: str | None = None) -> Spec:
    """The spec of `library`, for headers of ROCm version `rocm` (None: every entry, whatever its
    `rocm:` scope). The shared rules come from spec_dir's defaults.yaml, or the shipped one where
    spec_dir has none (test specs are judged by the real rules)."""
    path = os.path.join(spec_dir, f"{library}.yaml")
    d, scopes = _scoped(read_yaml(path, Spec), Spec, os.path.basename(path), rocm)
    defaults_path = os.path.join(spec_dir, "defaults.yaml")
    if not os.path.exists(defaults_path):
        defaults_path = os.path.join(SPEC_DIR, "defaults.yaml")
    defaults, default_scopes = _scoped(read_yaml(defaults_path, Defaults), Defaults, "defaults.yaml", rocm)
    scopes.update({f"defaults.yaml {k}": v for k, v in default_scopes.items()})
    if d["library"] != library:
        raise SpecError(f"{library}.yaml: library is {d['library']!r}, not the file's name")
    kw = {f.name: _get(d, key_of(f)) for f in dataclasses.fields(Spec)
          if "yaml" in f.metadata and _get(d, key_of(f)) is not None}
    for f in dataclasses.fields(Spec):   # the typed parts: conventions, cimport, bridge
        if f.name in kw and dataclasses.is_dataclass(f.metadata["shape"]):
            kw[f.name] = build(f.metadata["shape"], kw[f.name])
    try:
        kw["rules"] = _rules(d) + _rules(defaults, "defaults.yaml ")
        kw["overrides"] = {fn: {p: _intent(v) for p, v in params.items()} for fn, params in kw.get("overrides", {}).items()}
        kw["destroys"] = _destroys(d) + _destroys(defaults, "defaults.yaml ")
        kw["nullable_args"] = [re.compile(x) for x in kw.get("nullable_args", [])]
        if "finite_floats" in kw:
            kw["finite_floats"] = re.compile(kw["finite_floats"])
        kw["parity_deviations"], kw["amd_forms"] = _deviations(kw.get("parity_deviations", {}))
    except (ValueError, re.error) as e:
        raise SpecError(f"{library}.yaml: {e}") from None
    kw["defines"] = (defaults.get("defines") or []) + kw.get("defines", [])
    kw.setdefault("library_env", f"HIP_PYTHON_{library.upper()}_LIBRARY")
    return Spec(**kw, scopes=scopes)


def all_libraries(spec_dir: str = SPEC_DIR) -> list[str]:
    """Library names in dependency order (each after what it depends on)."""
    names = sorted(f[:-5] for f in os.listdir(spec_dir) if f.endswith(".yaml") and f != "defaults.yaml")
    deps = {n: load(n, spec_dir).depends for n in names}
    order: list[str] = []

    def visit(n):
        if n not in order:
            for dep in deps[n]:
                if dep not in deps:
                    raise SpecError(f"{n}.yaml: depends on {dep!r}, which has no spec")
                visit(dep)
            order.append(n)
    for n in names:
        visit(n)
    return order


# -- entries that match nothing -----------------------------------------------------------------
def entries(spec: Spec) -> list[str]:
    """Every entry `unmatched` judges, by the name it reports it under."""
    out = [r.entry for r in spec.rules]
    out += [f"intent_overrides.{k}" for k in spec.overrides] + [f"callbacks.{k}" for k in spec.callbacks]
    out += [f"skip.{k}" for k in spec.skip] + [f"struct_defaults.{k}" for k in spec.struct_defaults]
    out += [f"device_allocations.{k}" for k in spec.device_allocations]
    for key in ("struct_from_int", "binary_fields", "handles", "system_records"):
        out += [f"{key}: {v}" for v in getattr(spec, key)]
    out += [k for k in ("error_type", "success", "error_string", "pointer_mode_guard") if getattr(spec, k)]
    out += [r.entry for r in spec.destroys] + [f"nullable_handles: {h}" for h in spec.nullable_handles]
    out += [f"nullable_args: {r.pattern}" for r in spec.nullable_args]
    out += ["finite_floats"] * (spec.finite_floats is not None)
    out += [f"buffer_size_queries.{k}" for k in spec.buffer_size_queries]
    out += [f"unsupported_values.{k}" for k in spec.unsupported_values]
    out += [f"host_accessible_allocations: {k}" for k in spec.host_accessible_allocations]
    out += [f"read_only_params: {k}" for k in spec.read_only_params]
    out += [f"reexports.{k}" for k in spec.reexports]
    out += [f"parity_deviations.{k}.amd_form" for k in spec.amd_forms]
    return out


def unmatched(spec: Spec, module, types) -> list[Unmatched]:
    """The entries of `spec` that name nothing in `module` (its IR after intent analysis, `types`
    its TypeIndex): functions, parameters, records, fields, typedefs, enumerators the headers do
    not declare, and intent rules that decide no parameter (none matches, or an earlier rule or
    an override decides every one that does). One spec serves several ROCm versions, so an
    entry may match nothing in one header set; what matches nothing in any is dead."""
    out: list[Unmatched] = []
    fns = {f.name: f for f in module.functions}
    params = {f.name: {p.name for p in f.params} for f in module.functions}

    def function(entry, name, *pnames):
        if name not in fns:
            out.append(Unmatched(entry, f"no function {name}"))
            return
        for p in pnames:
            if p and p not in params[name]:
                out.append(Unmatched(entry, f"{name} has no parameter {p}"))

    decided = set()
    for f in module.functions:
        over = spec.overrides.get(f.name, {})
        for p in f.params:
            if p.name not in over:
                rule = spec.rule_for(types.tclass(p.type), p.name, f.name)
                if rule is not None:
                    decided.add(rule.entry)
    out += [Unmatched(r.entry, "decides no parameter") for r in spec.rules if r.entry not in decided]
    for name, over in spec.overrides.items():
        function(f"intent_overrides.{name}", name, *over)
    for name, cb in spec.callbacks.items():
        function(f"callbacks.{name}", name, cb.get("callback"), cb.get("data"))
    for name in spec.skip:
        function(f"skip.{name}", name)
    for name, size in spec.device_allocations.items():
        function(f"device_allocations.{name}", name, size)
    for rx, params_rx in spec.amd_forms.items():
        hit = [f for n, f in fns.items() if re.fullmatch(rx, n)]
        bare = [f.name for f in hit if not any(params_rx.fullmatch(p.name) for p in f.params)]
        if not hit or bare:
            out.append(Unmatched(f"parity_deviations.{rx}.amd_form", "matches no function" if not hit else
                                 f"names no parameter of {', '.join(bare)}"))
    for name, values in spec.struct_defaults.items():
        rec = types.records.get(name)
        if rec is None:
            out.append(Unmatched(f"struct_defaults.{name}", f"no record {name}"))
            continue
        missing = sorted(set(values) - {x.name for x in rec.fields})
        if missing:
            out.append(Unmatched(f"struct_defaults.{name}", f"{name} has no field(s) {', '.join(missing)}"))
    out += [Unmatched(f"struct_from_int: {name}", f"no record {name}")
            for name in spec.struct_from_int if name not in types.records]
    out += [Unmatched(f"system_records: {name}", f"no struct of the library embeds {name}")
            for name in spec.system_records if name not in types.records]
    fields = [f"{r.name}.{x.name}" for r in module.records for x in r.fields]
    out += [Unmatched(f"binary_fields: {p}", "matches no Record.field")
            for p in spec.binary_fields if not any(re.fullmatch(p, f) for f in fields)]
    out += [Unmatched(f"handles: {h}", f"no typedef {h}") for h in spec.handles if h not in types.typedefs]
    if spec.error_type and spec.error_type not in types.enums and spec.error_type not in types.typedefs:
        out.append(Unmatched("error_type", f"no enum {spec.error_type}"))
    if spec.success and spec.success not in types.enumerators:
        out.append(Unmatched("success", f"no enumerator {spec.success}"))
    if spec.invalid_value and spec.invalid_value not in types.enumerators:
        out.append(Unmatched("invalid_value", f"no enumerator {spec.invalid_value}"))
    if spec.error_string and spec.error_string not in fns:
        out.append(Unmatched("error_string", f"no function {spec.error_string}"))
    g = spec.pointer_mode_guard
    if g:
        why = [f"no function {g['query']}"] * (g.get("query") not in fns) \
            + [f"no enumerator {g['device']}"] * (g.get("device") not in types.enumerators) \
            + [f"functions {g['functions']!r} matches no function"] * (not any(re.search(g.get("functions", "$^"), n)
                                                                             for n in fns))
        out += [Unmatched("pointer_mode_guard", w) for w in why]
    # Argument checks: a destroy rule must match a function (and, given one, a parameter of it).
    for r in spec.destroys:
        hit = [f for f in module.functions if r.function.fullmatch(f.name)]
        if not hit or (r.param is not None and not any(r.param.fullmatch(p.name) for f in hit for p in f.params)):
            out.append(Unmatched(r.entry, f"{r.function.pattern!r} matches no function" if not hit else
                                 f"no parameter of the functions it matches matches {r.param.pattern!r}"))
    out += [Unmatched(f"nullable_handles: {h}", f"no typedef {h}") for h in spec.nullable_handles
            if h not in types.typedefs]
    pnames = [f"{f.name}.{p.name}" for f in module.functions for p in f.params]
    out += [Unmatched(f"nullable_args: {r.pattern}", "matches no function.parameter") for r in spec.nullable_args
            if not any(r.fullmatch(n) for n in pnames)]
    floats = [f"{f.name}.{p.name}" for f in module.functions for p in f.params if types.is_float(p.type)]
    if spec.finite_floats is not None and not any(spec.finite_floats.fullmatch(n) for n in floats):
        out.append(Unmatched("finite_floats", "matches no float parameter"))
    out += [Unmatched(f"host_accessible_allocations: {k}", "not in device_allocations")
            for k in spec.host_accessible_allocations if k not in spec.device_allocations]
    for entry in spec.read_only_params:
        name, _, pname = entry.partition(".")
        function(f"read_only_params: {entry}", name, pname)
    for name, lib in spec.reexports.items():
        if lib not in spec.depends:
            out.append(Unmatched(f"reexports.{name}", f"{lib} is not among depends"))
        elif (types.owner.get(name) != lib and (name not in types.enumerators or types.owner.get(
                types.enumerators[name].name) != lib)
              and types.owner.get(re.sub(r"^_(\w+)__Base$", r"\1", name)) != lib):   # an enum's _X__Base
            out.append(Unmatched(f"reexports.{name}", f"{lib} declares no {name}"))
    for rx, template in spec.buffer_size_queries.items():
        hit = [n for n in fns if re.fullmatch(rx, n)]
        lacking = sorted({re.sub(rx, template, n) for n in hit} - set(fns))
        if not hit or lacking:
            out.append(Unmatched(f"buffer_size_queries.{rx}", "matches no function" if not hit else
                                 f"no size function {', '.join(lacking)}"))
    out += [Unmatched(f"unsupported_values.{k}", f"no enumerator {k}") for k in spec.unsupported_values
            if k not in types.enumerators]
    return out
