"""The specs are valid and every entry in them names something.

Format: unknown keys, wrong shapes and bad version ranges are errors when a spec loads
(codegen/spec.py, codegen/bridge/spec.py). Content: generation (no compiling) over the three
header sets the tests use (ROCm 5.2, 5.7 and 6.4) reports, per set, the entries that match
nothing there (`spec.unmatched`); one spec serves them all, so an entry may miss in some set,
but one that matches in none is dead, and one scoped with `rocm:` must match in every set of
its range.
"""
from __future__ import annotations

import os
import re
import textwrap
from collections import defaultdict

import pytest

from conftest import cuda_includes
from codegen import generate, spec as specmod
from codegen.bridge import cuda_ir, spec as nvspec

SETS = ("include52", "include57", "include64")


# -- format ---------------------------------------------------------------------------------------
def _write(tmp_path, name, text):
    (tmp_path / f"{name}.yaml").write_text(textwrap.dedent(text))


MINIMAL = """\
    library: tiny
    python_module: tiny
    cimport_module: ctiny
    headers: [tiny.h]
    owns: [tiny.h]
"""


def test_every_shipped_spec_loads():
    for lib in specmod.all_libraries():
        assert specmod.load(lib).library == lib
    for lib in nvspec.all_libraries():
        assert nvspec.load(lib).library == lib
        assert lib in specmod.all_libraries(), f"nvidia/{lib}.yaml has no library spec"


@pytest.mark.parametrize("extra,message", [
    ("intent_overides: {}\n", "unknown key 'intent_overides'"),
    ("shared_library: {names: {6: [libtiny.so.6]}, base: libtiny.so}\n", "unknown key 'base'"),
    ("intent_rules:\n  - {match: '.*', as: in scalar, nmae: x}\n", "unknown key 'nmae'"),
    ("callbacks:\n  f: {callback: cb, userdata: d}\n", "unknown key 'userdata'"),
    ("debian: {dev: [x], rutnime: [y]}\n", "unknown key 'rutnime'"),
    ("headers: tiny.h\n", "expected a list"),
    ("handles: [1]\n", "expected str"),
    ("callbacks:\n  f: {callback: cb, once: 'yes'}\n", "expected bool"),
    ("intent_overrides:\n  f: {x: out scalar, rocm: 'after 6'}\n", "bad ROCm version range"),
    ("intent_rules:\n  - {as: in scalar}\n", "missing 'match'"),
    ("conventions: {strngs: bytes}\n", "conventions: unknown key 'strngs'"),
    ("conventions: {strings: text}\n", r"conventions.strings: expected one of 'bytes', got 'text'"),
    ("cimport: {names: api, sentinal: X}\n", "cimport: unknown key 'sentinal'"),
    ("bridge: {status: {not_suported: X}}\n", "bridge.status: unknown key 'not_suported'"),
    ("bridge: {drop: {f: p}}\n", r"bridge.drop.f: expected a list"),
])
def test_spec_format_errors(tmp_path, extra, message):
    text = textwrap.dedent(MINIMAL)
    if extra.split(":")[0] + ":" in text:   # replace a key, not add it twice
        text = "\n".join(l for l in text.splitlines() if not l.startswith(extra.split(":")[0] + ":")) + "\n"
    (tmp_path / "tiny.yaml").write_text(text + extra)
    with pytest.raises(specmod.SpecError, match=message) as e:
        specmod.load("tiny", str(tmp_path))
    assert "tiny.yaml" in str(e.value)


def test_spec_missing_required_key(tmp_path):
    _write(tmp_path, "tiny", "\n".join(l for l in MINIMAL.splitlines() if "owns" not in l))
    with pytest.raises(specmod.SpecError, match="missing required key.*owns"):
        specmod.load("tiny", str(tmp_path))


def test_nvidia_spec_format_errors(tmp_path):
    _write(tmp_path, "tiny", """\
        library: tiny
        cuda_headers: [cutiny.h]
        renmae: {tinyA: cuA}
    """)
    with pytest.raises(specmod.SpecError, match="nvidia/tiny.yaml: unknown key 'renmae'"):
        nvspec.load("tiny", str(tmp_path))
    _write(tmp_path, "tiny", """\
        library: tiny
        cuda_headers: [cutiny.h]
        rules: [{hip: 'tiny(.+)', cuda: 7}]
    """)
    with pytest.raises(specmod.SpecError, match=r"rules\[0\]"):
        nvspec.load("tiny", str(tmp_path))


@pytest.mark.parametrize("scope,version,inside", [
    (">=6", "6.4.43484", True), (">=6", "5.7.31921", False), ("<6", "5.7.31921", True),
    ("<6", "6.0.0", False), ("<6.2", "6.1.9", True), (">5.7", "5.7.1", False), (">=5.7,<7", "6.4.1", True),
    ("==5.2", "5.2.21153", True), ("!=5.2", "5.2.3", False),
])
def test_rocm_scopes(scope, version, inside):
    assert specmod.in_scope(scope, version) is inside


def test_scoped_entries_apply_only_in_range(tmp_path):
    _write(tmp_path, "tiny", MINIMAL + """\
    intent_rules:
      - {match: 'ptr\\(char\\)', as: out scalar, rocm: '>=6'}
      - {match: 'ptr\\(int\\)', as: out scalar}
    intent_overrides:
      f: {x: in array, rocm: '<6'}
      g: {y: in array}
    callbacks:
      h: {callback: cb, data: d, rocm: '>=6.2'}
    """)
    new, old, every = (specmod.load("tiny", str(tmp_path), v) for v in ("6.4.0", "5.7.1", None))
    assert [r.entry for r in new.rules if not r.entry.startswith("defaults")] == ["intent_rules[0]", "intent_rules[1]"]
    assert [r.entry for r in old.rules if not r.entry.startswith("defaults")] == ["intent_rules[1]"]
    assert set(new.overrides) == {"g"} and set(old.overrides) == {"f", "g"} and set(every.overrides) == {"f", "g"}
    assert set(new.callbacks) == {"h"} and old.callbacks == {} and "rocm" not in new.callbacks["h"]
    assert new.scopes == {"intent_rules[0]": ">=6", "callbacks.h": ">=6.2"}
    assert old.scopes == {"intent_overrides.f": "<6"}


# -- content: every entry names something in some header set ------------------------------------
@pytest.fixture(scope="module")
def header_sets(request, tmp_path_factory):
    """{version: (include, scoped specs, {lib: (module, types)}, {lib: unmatched}, files written)}:
    every library whose headers the set has, analysed and generated (nothing compiled)."""
    out = {}
    for name in SETS:
        include = request.getfixturevalue(name)
        version = generate.header_version(include)
        all_specs = generate.load_specs(rocm=version)
        folder, written, analysed, report = tmp_path_factory.mktemp(name), [], {}, {}
        for lib in generate.analyse_libraries(include, generate.available(include)[0], all_specs):
            generate.write(generate.library_files(lib, all_specs), str(folder), written)
            analysed[lib.spec.library] = (lib.module, lib.types)
            report[lib.spec.library] = specmod.unmatched(lib.spec, lib.module, lib.types)
        out[version] = (include, all_specs, analysed, report, (folder, written))
    return out


def _dead(checked: dict, missed: dict, scopes: dict) -> list[str]:
    """Entries that miss wherever they were checked, and scoped ones that miss anywhere in range.
    checked: entry -> {where}; missed: entry -> {where: why}; scopes: entry -> range."""
    out = []
    for entry, where in sorted(checked.items()):
        miss = missed.get(entry, {})
        if set(miss) == where:
            out.append(f"{entry}: matches nothing in any header set ({'; '.join(f'{w}: {y}' for w, y in sorted(miss.items()))})")
        elif entry in scopes and miss:
            out.append(f"{entry} (rocm: {scopes[entry]!r}): matches nothing in {', '.join(sorted(miss))}")
    return out


@pytest.mark.parametrize("lib", specmod.all_libraries())
def test_library_spec_entries_match_something(header_sets, lib):
    checked, missed, scopes = defaultdict(set), defaultdict(dict), {}
    for version, (include, all_specs, analysed, report, _) in header_sets.items():
        if lib not in analysed:
            continue
        spec = all_specs[lib]
        scopes.update(spec.scopes)
        for e in specmod.entries(spec):
            if not e.startswith("defaults.yaml"):
                checked[e].add(version)
        for u in report[lib]:
            if not u.entry.startswith("defaults.yaml"):
                missed[u.entry][version] = u.why
    if not any(lib in a for _, _, a, _, _ in header_sets.values()):
        pytest.skip(f"{lib}: its headers ({', '.join(specmod.load(lib).headers)}) are in none of the header "
                    f"sets ({', '.join(header_sets)}): fetch them (python -m build_support.rocm headers)")
    dead = _dead(checked, missed, scopes)
    assert dead == [], f"{lib}.yaml:\n" + "\n".join(dead)
    never = sorted(set(specmod.entries(specmod.load(lib))) - set(checked) - {
        e for e in specmod.entries(specmod.load(lib)) if e.startswith("defaults.yaml")})
    assert never == [], f"{lib}.yaml: entries whose rocm: range admits none of the header sets: {never}"


def test_shared_rules_decide_something(header_sets):
    """defaults.yaml's rules serve every library: dead when no library in no set uses one."""
    checked, missed, scopes = defaultdict(set), defaultdict(dict), {}
    for version, (include, all_specs, analysed, report, _) in header_sets.items():
        for lib in analysed:
            scopes.update(all_specs[lib].scopes)
            for e in specmod.entries(all_specs[lib]):
                if e.startswith("defaults.yaml"):
                    checked[e].add(f"{version} {lib}")
            for u in report[lib]:
                if u.entry.startswith("defaults.yaml"):
                    missed[u.entry][f"{version} {lib}"] = u.why
    assert _dead(checked, missed, {}) == []


@pytest.fixture(scope="module")
def cuda_side():
    """{library: CUDA IR of its layer's headers}, or {} without CUDA headers."""
    incs = cuda_includes()
    out = {}
    for lib in nvspec.all_libraries():
        ns = nvspec.load(lib)
        if incs and all(any(os.path.exists(os.path.join(d, h)) for d in incs) for h in ns.cuda_headers):
            out[lib] = cuda_ir.build(ns.cuda_headers, incs, ns.defines)
    return out


@pytest.mark.parametrize("lib", nvspec.all_libraries())
def test_nvidia_spec_entries_match_something(header_sets, cuda_side, lib):
    """The layer's entries name HIP functions, enumerators, records of some header set; and,
    where CUDA's headers are here, CUDA functions and enumerators that exist."""
    checked, missed = defaultdict(set), defaultdict(dict)
    for version, (include, all_specs, analysed, report, _) in header_sets.items():
        if lib not in analysed:
            continue
        ns = nvspec.load(lib, rocm=version)
        for e in nvspec.entries(ns):
            checked[e].add(version)
        for u in nvspec.unmatched(ns, *analysed[lib]):
            missed[u.entry][version] = u.why
    dead = _dead(checked, missed, {})
    if lib in cuda_side:
        version = max(header_sets, key=specmod._version)
        ns = nvspec.load(lib, rocm=version)
        hip_only = {(u.entry, u.why) for u in nvspec.unmatched(ns, *header_sets[version][2][lib])}
        dead += [f"{u.entry}: {u.why}" for u in nvspec.unmatched(ns, *header_sets[version][2][lib], cuda=cuda_side[lib])
                 if (u.entry, u.why) not in hip_only]
    assert dead == [], f"nvidia/{lib}.yaml:\n" + "\n".join(dead)


def test_unmatched_names_what_is_missing(header_sets):
    """The report itself: a spec with typos in every kind of entry lists each one."""
    version = max(header_sets, key=specmod._version)
    include, all_specs, analysed, _, _ = header_sets[version]
    module, types = analysed["hip"]
    spec = specmod.load("hip", rocm=version)
    spec.overrides = {**spec.overrides, "hipNoSuchFunction": {"x": ("out", "scalar")}}
    spec.callbacks = {**spec.callbacks, "hipStreamAddCallback": {"callback": "cb", "data": "userData"}}
    spec.skip = {"hipMaloc": "typo"}
    spec.handles = ["hipStream_t", "hipNoSuchHandle_t"]
    spec.binary_fields = ["hipUUID_t.bytes", r"hipUUID_t\.nope"]
    spec.struct_defaults = {"dim3": {"x": 1, "w": 1}, "dim4": {"x": 1}}
    spec.rules = [specmod.IntentRule(re.compile("nothing"), None, None, "in", "scalar", "intent_rules[99]")] + spec.rules
    spec.nullable_handles = ["hipStream_t", "hipNoSuch_t"]
    spec.unsupported_values = {"HIP_NO_SUCH_VALUE": "typo"}
    spec.buffer_size_queries = {"hipNoSuch(Code)": r"hipNoSuch\1Size"}
    got = {str(u) for u in specmod.unmatched(spec, module, types)}
    assert {"intent_overrides.hipNoSuchFunction: no function hipNoSuchFunction",
            "callbacks.hipStreamAddCallback: hipStreamAddCallback has no parameter cb",
            "skip.hipMaloc: no function hipMaloc",
            "handles: hipNoSuchHandle_t: no typedef hipNoSuchHandle_t",
            r"binary_fields: hipUUID_t\.nope: matches no Record.field",
            "struct_defaults.dim3: dim3 has no field(s) w",
            "struct_defaults.dim4: no record dim4",
            "intent_rules[99]: decides no parameter",
            "nullable_handles: hipNoSuch_t: no typedef hipNoSuch_t",
            "unsupported_values.HIP_NO_SUCH_VALUE: no enumerator HIP_NO_SUCH_VALUE",
            "buffer_size_queries.hipNoSuch(Code): matches no function"} <= got
    assert not any(e.startswith(("handles: hipStream_t", "binary_fields: hipUUID_t.bytes")) for e in got)


def test_ignore_file_lists_every_generated_file(header_sets):
    version = max(header_sets, key=specmod._version)
    include, all_specs, analysed, _, (folder, written) = header_sets[version]
    patterns = generate.ignore_file(all_specs).splitlines()
    for path in written:
        rel = "/" + os.path.relpath(path, folder)
        assert any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in patterns if p.startswith("/")), rel
    for lib in specmod.all_libraries():   # libraries not generated here are listed too
        assert f"/{specmod.load(lib).python_module}.pyx" in patterns
    assert "/.gitignore" in patterns
