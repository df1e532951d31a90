"""Parity with AMD's HIP Python release for the same ROCm version (the oracle).

Functions: for every function both bind, the same parameters (names, order, count, defaults) and
the same returned tuple (length, and whether it starts with a status), read from AMD's own Cython
sources (its `return` statements, not its docstrings) and from our generated ones. The exceptions
are the specs' `parity_deviations` (AMD's binding contradicts the C declaration), each of which
must still match a function that differs: a stale entry fails too. Those with an `amd_form` also
take AMD's call form: its parameters and returned tuple are AMD's, and both forms are called.

Names: every module-level name and every enum member (aliases included) of AMD's modules, read by
importing them (a child interpreter: their libraries load on first call only), is ours too, with
AMD's value (enumerators, constants). Not required: what our headers never mention (AMD generated
from newer headers, or let glibc's FP_NAN through), the modules AMD's modules import, and the
specs' `parity_name_deviations`, each of which must still match a name that differs.
"""
from __future__ import annotations

import functools
import json
import os
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import amd_hip_python as amd  # noqa: E402
import parity_report  # noqa: E402

import header_facts  # noqa: E402
from codegen import spec as specmod  # noqa: E402
from codegen.generate import header_version  # noqa: E402


def _release(include):
    version = ".".join(header_version(include).split(".")[:2])
    try:
        return amd.find_release(version)
    except amd.NoRelease as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def facts(include64):
    """(AMD's, ours): the static facts of AMD's modules and of ours built here."""
    A = amd.load(_release(include64), values=False)
    O = amd.load_ours(str(ROOT / "hip"))     # the libraries built here (each test skips the others)
    return A, O


@pytest.fixture(scope="module")
def compared(facts, include64):
    return parity_report.compare_functions(*facts, parity_report.CSide(str(ROOT), include64))


def _deviations(lib):
    return specmod.load(lib).parity_deviations if lib in specmod.all_libraries() else {}


@pytest.mark.parametrize("lib", amd.MODULES)
def test_functions_match_amds(compared, lib):
    if lib not in compared["diffs"]:
        pytest.skip(f"{lib} is not built here, or AMD's HIP Python has no {lib} module")
    dev = _deviations(lib)
    left = [d for d in compared["diffs"][lib]
            if not any(re.fullmatch(p, d["function"]) for p in dev)]
    assert not left, "\n".join(
        f"{d['function']}: AMD {d['amd_sig']} -> {d['amd_returns']} ({d['amd_first']}), "
        f"ours {d['our_sig']} -> {d['our_returns']} ({d['our_first']})" for d in left[:30])


@pytest.mark.parametrize("lib", amd.MODULES)
def test_every_deviation_is_still_one(compared, lib):
    if lib not in compared["diffs"]:
        pytest.skip(f"{lib} is not built here, or AMD's HIP Python has no {lib} module")
    differing = [d["function"] for d in compared["diffs"][lib]]
    stale = [p for p in _deviations(lib) if not any(re.fullmatch(p, f) for f in differing)]
    assert not stale, f"{lib}.yaml parity_deviations match no differing function: {stale}"


def _amd_forms(lib):
    return specmod.load(lib).amd_forms if lib in specmod.all_libraries() else {}


@pytest.mark.parametrize("lib", amd.MODULES)
def test_amd_forms_are_amds(facts, lib):
    """A deviation whose spec entry has an amd_form takes AMD's call form too: the same parameters
    and the same returned tuple as AMD's release (C's form is the function's own signature)."""
    A, O = facts
    if lib not in O:
        pytest.skip(f"{lib} is not built here")
    if lib not in A:
        pytest.skip(f"AMD's release has no {lib} module")
    a, o = A[lib], O[lib]
    forms = _amd_forms(lib)
    want = sorted(n for n in o.functions if any(re.fullmatch(rx, n) for rx in forms))
    assert sorted(o.amd_forms) == want
    bad = [f"{n}: AMD {a.functions[n].params} -> {a.functions[n].returns} ({a.functions[n].first}), "
           f"ours {f.params} -> {f.returns} ({f.first})" for n, f in sorted(o.amd_forms.items())
           if n in a.functions and (f.params, f.returns, f.first) != (a.functions[n].params, a.functions[n].returns,
                                                                      a.functions[n].first)]
    assert not bad, "\n".join(bad)


_CALL_BOTH = """
import ctypes, importlib, json, sys
import hip as _pkg
from hip import hip
cases = json.loads(sys.argv[1])
page = ctypes.create_string_buffer(4096)        # a handle's stand-in: zeros C may read
PAGE = ctypes.addressof(page)
def value(p):
    role, cls = p["role"], p.get("cls", "")
    if p.get("htype"):
        return PAGE
    if role in ("int", "inout_number", "number"):
        return 0
    if role == "float":
        return 0.0
    mod, _, name = cls.partition(":")
    if role in ("enum", "inout_enum"):
        return next(iter(getattr(importlib.import_module("hip." + mod), name)))
    if role in ("struct", "struct_pointer"):
        return getattr(importlib.import_module("hip." + mod), name)()
    return {"string": b"x", "string_array": []}.get(role)
out = {}
for fn, params, amd_names, n_amd, n_c in cases:
    f = getattr(hip, fn)
    got = []
    for names, want in ((amd_names, n_amd), ([p["name"] for p in params], n_c)):
        args = [value(p) for name in names for p in params if p["name"] == name]
        try:
            r = f(*args)
            got.append("ok" if isinstance(r, tuple) and len(r) == want else f"returned {r!r}, want {want} items")
        except _pkg.SymbolNotFoundError:
            got.append("ok")          # converted, and the runtime here is older than the headers
        except Exception as e:
            got.append(f"{type(e).__name__}: {e}")
    out[fn] = got
print(json.dumps(out))
"""


@pytest.mark.runtime
def test_both_forms_are_called(facts, include64):
    """Each function with AMD's form, called in both forms against the runtime (no GPU needed: the
    calls fail in C, with a tuple of the form's length), the arguments neutral values of each
    parameter's role (tests/fuzz/signatures)."""
    from conftest import run_python
    from tests.fuzz import signatures
    A, O = facts
    if "hip" not in O:
        pytest.skip("hip is not built here")
    table = signatures.load(include64, ["hip"])["functions"]["hip"]
    cases = [(n, table[n]["params"], [x for x, _ in A["hip"].functions[n].params], A["hip"].functions[n].returns[0],
              O["hip"].functions[n].returns[0]) for n in sorted(O["hip"].amd_forms) if n in A["hip"].functions]
    assert cases
    r = run_python("", args=["-c", _CALL_BOTH, json.dumps(cases)], timeout=300)
    assert r.returncode == 0, f"the child died (exit {r.returncode}): {r.stderr[-3000:]}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    bad = {fn: got for fn, got in out.items() if got != ["ok", "ok"]}
    assert not bad, bad


def test_only_amd_functions_are_missing_from_our_headers(compared):
    """A function AMD binds and we do not is one our headers lack (an older library), never one we skip."""
    bad = {m: [(n, why) for n, why in v if "not in our headers" not in why]
           for m, v in compared["only_amd"].items()}
    assert not any(bad.values()), bad


# -- names -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def names(include64):
    """(AMD's, ours): {module: the probe's facts} of every module built here, each side imported."""
    wheel = _release(include64)
    tag = re.search(r"-cp(\d)(\d+)-", os.path.basename(wheel))
    if tag and (int(tag.group(1)), int(tag.group(2))) != sys.version_info[:2]:
        pytest.skip(f"{os.path.basename(wheel)} cannot be imported by Python {sys.version_info[0]}.{sys.version_info[1]}")
    built = [m for m in amd.MODULES if (ROOT / "hip" / f"{m}.pyx").is_file()]
    everything = {m: {} for m in amd.MODULES}      # no names given: every enum and constant
    unpacked = amd._Source(wheel).unpacked()
    released = [m for m in amd.MODULES if os.path.isfile(os.path.join(unpacked, "hip", f"{m}.pyx"))]
    A = amd.probe(unpacked, released, everything)   # (AMD's 6.4 has no hipblaslt)
    O = amd.probe(str(ROOT), built, everything)
    for side, facts in (("AMD's", A), ("our", O)):
        bad = {m: f["error"] for m, f in facts.items() if "error" in f}
        assert not bad, f"{side} modules do not import: {bad}"
    return A, O


@functools.lru_cache(maxsize=None)
def _header_words(include: str, lib: str) -> frozenset:
    """Every identifier in the headers whose declarations belong to `lib` (its `owns`, `owns_types`)."""
    L = header_facts.library(lib)
    s = specmod.load(lib)
    words = set()
    for top in {p.split("/")[0] for p in (*s.owns, *s.owns_types)}:
        for d, _, files in os.walk(os.path.join(include, top)):
            for f in files:
                path = os.path.join(d, f)
                rel = os.path.relpath(path, include)
                if L.owns(rel) or L.types(rel):
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        words.update(re.findall(r"[A-Za-z_]\w*", fh.read()))
    return frozenset(words)


def _name_differences(A, O, include, lib):
    """AMD's names (and enum members) our module lacks or values differently: [(name, what)]."""
    s = specmod.load(lib)
    a, o = A[s.python_module], O[s.python_module]
    words = _header_words(include, lib)
    ours = set(o["names"]) | set(o["enums"]) | set(o["constants"]) | set(o["callables"])
    out = []
    for n in sorted(set(a["names"]) - set(a["modules"])):
        # a nested record's class (hipResourceDesc_union_0_struct_3) is mentioned as its outer record
        if n not in ours and re.split(r"_(?:union|struct)_", n)[0] in words:
            out.append((n, "missing"))
    for e, members in sorted(a["enums"].items()):
        if e not in o["enums"]:
            continue            # the enum itself: a name (above)
        for k, v in members.items():
            if k not in o["enums"][e]:
                if k in words:
                    out.append((f"{e}.{k}", "missing"))
            elif o["enums"][e][k] != v:
                out.append((f"{e}.{k}", f"AMD {v}, ours {o['enums'][e][k]}"))
    for k, v in sorted(a["constants"].items()):
        if k in o["constants"] and o["constants"][k] != v:
            out.append((k, f"AMD {v!r}, ours {o['constants'][k]!r}"))
    return out


def _built(names, lib):
    if specmod.load(lib).python_module not in names[1]:
        pytest.skip(f"{lib} is not built here")
    if specmod.load(lib).python_module not in names[0]:
        pytest.skip(f"AMD's release has no {lib} module")


@pytest.mark.parametrize("lib", specmod.all_libraries())
def test_every_amd_name_is_ours(names, include64, lib):
    """#define constants and aliases, enum members (aliases too), classes, functions: AMD's are ours,
    with AMD's values."""
    _built(names, lib)
    dev = specmod.load(lib).parity_name_deviations
    left = [(n, why) for n, why in _name_differences(*names, include64, lib)
            if not any(re.fullmatch(p, n) for p in dev)]
    assert not left, f"{len(left)} of AMD's names differ in ours: " + ", ".join(f"{n} ({w})" for n, w in left[:40])


@pytest.mark.parametrize("lib", specmod.all_libraries())
def test_every_name_deviation_is_still_one(names, include64, lib):
    _built(names, lib)
    differing = [n for n, _ in _name_differences(*names, include64, lib)]
    stale = [p for p in specmod.load(lib).parity_name_deviations if not any(re.fullmatch(p, n) for n in differing)]
    assert not stale, f"{lib}.yaml parity_name_deviations match no differing name: {stale}"
