"""Every function the headers export is bound: the built 6.4 package, and generation from 5.2.

The list of functions comes from our own libclang walk (tests/header_facts.py:
C mode, external linkage, declared in a file the library owns), never from the
generator's IR or coverage report.
"""
from __future__ import annotations

import json

import pytest

import header_facts
from conftest import ROOT

LIBS = ["hip", "hiprtc"]


def _module(lib):
    from hip import hip, hiprtc
    return {"hip": hip, "hiprtc": hiprtc}[lib]


@pytest.mark.parametrize("lib", LIBS)
def test_header_walk_finds_functions(include_any, lib):
    funcs = header_facts.functions(include_any, lib)
    must = {"hip": {"hipGetDeviceCount", "hipMalloc", "hipMemcpy", "hipStreamCreate", "hipModuleLaunchKernel"},
            "hiprtc": {"hiprtcCreateProgram", "hiprtcCompileProgram", "hiprtcGetCode", "hiprtcVersion"}}[lib]
    assert must <= set(funcs)
    assert len(funcs) > (300 if lib == "hip" else 10)


@pytest.mark.parametrize("lib", LIBS)
def test_built_package_binds_every_header_function(include64, lib):
    mod = _module(lib)
    funcs = header_facts.functions(include64, lib)
    missing = sorted(n for n in funcs if not callable(getattr(mod, n, None)))
    assert missing == [], f"{len(missing)} header functions not in hip.{lib}: {missing[:30]}"


@pytest.mark.parametrize("lib", LIBS)
def test_coverage_report_lists_every_header_function_as_bound(include64, lib):
    with open(ROOT / "hip" / "_coverage" / f"{lib}.json") as f:
        report = json.load(f)
    funcs = header_facts.functions(include64, lib)
    listed = report["functions"]
    absent = sorted(set(funcs) - set(listed))
    assert absent == [], f"not in the coverage report: {absent[:30]}"
    unbound = {n: listed[n] for n in funcs if listed[n]["status"] != "bound"}
    assert unbound == {}, f"header functions not bound: {unbound}"
    extra = sorted(set(listed) - set(funcs))
    assert extra == [], f"coverage report lists functions the header does not export: {extra[:30]}"
    assert report["functions_total"] == len(funcs)
    assert report["functions_bound"] == len(funcs)


@pytest.fixture(scope="module")
def generated52(include52, tmp_path_factory):
    from codegen import generate
    out = tmp_path_factory.mktemp("gen52")
    try:
        generate.generate_all(include52, LIBS, str(out))
    except Exception as e:   # reported by each test as a failure, not a fixture error
        return e
    return out


@pytest.mark.parametrize("lib", LIBS)
def test_generation_from_rocm52_binds_every_header_function(include52, generated52, lib):
    if isinstance(generated52, Exception):
        pytest.fail(f"generate_all failed on the ROCm 5.2 headers: {type(generated52).__name__}: {generated52}")
    with open(generated52 / "_coverage" / f"{lib}.json") as f:
        report = json.load(f)
    assert report["rocm_version"].startswith("5.2")
    funcs = header_facts.functions(include52, lib)
    listed = report["functions"]
    problems = {n: listed.get(n, "absent") for n in funcs if listed.get(n, {}).get("status") != "bound"}
    assert problems == {}, f"ROCm 5.2 functions not bound: {problems}"
    assert sorted(set(listed) - set(funcs)) == []


def _alias_targets(include, lib):
    _, aliases = header_facts.macros(include, lib)
    return aliases


def test_function_aliases_from_define(include64):
    """`#define hipGetDeviceProperties hipGetDevicePropertiesR0600`: the alias is the same function."""
    from hip import hip
    funcs = header_facts.functions(include64, "hip")
    aliases = {a: t for a, t in _alias_targets(include64, "hip").items() if t in funcs}
    assert aliases.get("hipGetDeviceProperties") == "hipGetDevicePropertiesR0600"
    for a, t in aliases.items():
        assert getattr(hip, a, None) is getattr(hip, t), f"hip.{a} should be hip.{t}"


def test_type_aliases_from_define(include64):
    """`#define hipDeviceProp_t hipDeviceProp_tR0600` and friends name the same class."""
    from hip import hip
    recs = header_facts.records(include64, "hip")
    rec_names = {n for r in recs.values() for n in r.py_names}
    enum_names = {e.py_name for e in header_facts.enums(include64, "hip") if e.py_name}
    aliases = {a: t for a, t in _alias_targets(include64, "hip").items() if t in rec_names | enum_names}
    assert aliases, "expected type aliases such as hipDeviceProp_t in the 6.4 headers"
    for a, t in aliases.items():
        assert getattr(hip, a, None) is getattr(hip, t), f"hip.{a} should be hip.{t}"


@pytest.mark.parametrize("lib", LIBS)
def test_enumerator_aliases_from_define(include64, lib):
    """`#define hipKernelNodeAttributeCooperative hipLaunchAttributeCooperative` (hip) and
    `#define HIPRTC_JIT_MAX_REGISTERS hipJitOptionMaxRegisters` (hiprtc): C code may use either
    spelling, so the module should offer both, with the same value."""
    mod = _module(lib)
    values = {}
    for owner in {"hip", lib}:
        om = _module(owner)
        for e in header_facts.enums(include64, owner):
            for k in e.constants:
                values[k] = getattr(getattr(om, e.py_name), k) if e.py_name else getattr(om, k)
    aliases = {a: t for a, t in _alias_targets(include64, lib).items() if t in values}
    assert aliases, f"expected enumerator aliases in the 6.4 {lib} headers"
    missing = sorted(a for a in aliases if not hasattr(mod, a))
    assert missing == [], f"{len(missing)} enumerator aliases missing from hip.{lib}: {missing[:10]}"
    for a, t in aliases.items():
        assert getattr(mod, a) == values[t]


def test_hiprtc_type_alias_from_define(include64):
    """hiprtc.h: `#define hiprtcJITInputType hipJitInputType` (a type owned by hip)."""
    from hip import hip, hiprtc
    aliases = _alias_targets(include64, "hiprtc")
    for a, t in aliases.items():
        target = getattr(hiprtc, t, None) or getattr(hip, t, None)
        if target is None:
            continue
        assert getattr(hiprtc, a, None) is target, f"hip.hiprtc.{a} should be {t}"
