"""The six ROCm libraries (hipBLAS, hipRAND, hipSPARSE, hipFFT, hipSOLVER, RCCL): every function
their headers export is bound, or listed skipped with a reason in the coverage report.

The list of functions comes from our own libclang walk (tests/header_facts.py: external linkage,
declared in the library's own include folder, C mode except hipRAND's C++), never from the
generator's IR or coverage report.
"""
from __future__ import annotations

import importlib
import json
import os
import re

import pytest

import header_facts
from conftest import ROOT

LIBS = header_facts.SIX

# A few functions each header must export (guards the header walk itself against finding nothing).
MUST = {
    "hipblas": {"hipblasCreate", "hipblasDestroy", "hipblasSaxpy", "hipblasSdot", "hipblasSgemm",
                "hipblasSetPointerMode", "hipblasZgemmStridedBatched"},
    "hiprand": {"hiprandCreateGenerator", "hiprandDestroyGenerator", "hiprandGenerateUniform",
                "hiprandSetPseudoRandomGeneratorSeed", "hiprandGetVersion"},
    "hipsparse": {"hipsparseCreate", "hipsparseDestroy", "hipsparseCreateCsr", "hipsparseSpMV",
                  "hipsparseCreateMatDescr", "hipsparseGetVersion"},
    "hipfft": {"hipfftPlan1d", "hipfftPlanMany", "hipfftExecC2C", "hipfftDestroy", "hipfftGetVersion"},
    "hipsolver": {"hipsolverCreate", "hipsolverDestroy", "hipsolverDgetrf", "hipsolverDgetrs",
                  "hipsolverDgetrf_bufferSize", "hipsolverDnCreate"},
    "rccl": {"ncclGetUniqueId", "ncclCommInitRank", "ncclCommInitAll", "ncclAllReduce", "ncclGroupStart",
             "ncclGroupEnd", "ncclGetVersion"},
}
# Lower bounds on the number of exported functions (ROCm 6.4: 1849, 30, 546, 33, 526, 58).
AT_LEAST = {"hipblas": 1000, "hiprand": 20, "hipsparse": 300, "hipfft": 25, "hipsolver": 300, "rccl": 40}


def _module(lib):
    return importlib.import_module(f"hip.{lib}")


def _report(lib):
    with open(ROOT / "hip" / "_coverage" / f"{lib}.json") as f:
        return json.load(f)


@pytest.mark.parametrize("lib", LIBS)
def test_header_walk_finds_functions(include64, lib):
    funcs = header_facts.functions(include64, lib)
    assert MUST[lib] <= set(funcs), sorted(MUST[lib] - set(funcs))
    assert len(funcs) >= AT_LEAST[lib]


def test_header_walk_keeps_other_projects_functions_out(include64):
    """hiprand.h includes rocrand.h: rocRAND's own functions are not hipRAND's."""
    funcs = header_facts.functions(include64, "hiprand")
    assert not [n for n in funcs if n.startswith("rocrand_")]
    assert all(f.file.startswith("hiprand/") for f in funcs.values())


@pytest.mark.parametrize("lib", LIBS)
def test_coverage_report_accounts_for_every_header_function(include64, lib):
    report = _report(lib)
    funcs = header_facts.functions(include64, lib)
    listed = report["functions"]
    absent = sorted(set(funcs) - set(listed))
    assert absent == [], f"{len(absent)} header functions missing from the {lib} coverage report: {absent[:30]}"
    extra = sorted(set(listed) - set(funcs))
    assert extra == [], f"{lib} report lists functions the header does not export: {extra[:30]}"
    bad = {n: e for n, e in listed.items()
           if e.get("status") not in ("bound", "skipped")
           or (e["status"] == "skipped" and not str(e.get("reason", "")).strip())}
    assert bad == {}, f"entries neither bound nor skipped with a reason: {bad}"
    skipped = sorted(n for n, e in listed.items() if e["status"] == "skipped")
    assert len(skipped) < 0.01 * len(funcs), f"{lib}: {len(skipped)} of {len(funcs)} skipped (>= 1%): {skipped}"
    assert report["functions_total"] == len(funcs)
    assert report["functions_bound"] == len(funcs) - len(skipped)
    assert report["library"] == lib
    assert report["unused_overrides"] == [], f"spec overrides name functions the headers lack: " \
                                             f"{report['unused_overrides']}"


@pytest.mark.parametrize("lib", LIBS)
def test_built_module_binds_every_reported_function(include64, lib):
    """Bound means callable in hip.<lib>; skipped means absent (not a stub that crashes)."""
    mod = _module(lib)
    listed = _report(lib)["functions"]
    funcs = header_facts.functions(include64, lib)
    missing = sorted(n for n in funcs if listed.get(n, {}).get("status") == "bound"
                     and not callable(getattr(mod, n, None)))
    assert missing == [], f"{len(missing)} bound functions not callable in hip.{lib}: {missing[:30]}"
    present = sorted(n for n, e in listed.items() if e["status"] == "skipped" and hasattr(mod, n))
    assert present == [], f"skipped functions still defined in hip.{lib}: {present}"


@pytest.mark.parametrize("lib", LIBS)
def test_module_records_header_version(include64, lib):
    with open(os.path.join(include64, "hip", "hip_version.h")) as f:
        text = f.read()
    v = [re.search(rf"#define HIP_VERSION_{k}\s+(\d+)", text).group(1) for k in ("MAJOR", "MINOR", "PATCH")]
    assert _module(lib).__rocm_version__ == ".".join(v)
    assert _report(lib)["rocm_version"] == ".".join(v)


@pytest.mark.parametrize("lib", LIBS)
def test_stubs_declare_every_bound_function(include64, lib):
    """hip/<lib>.pyi (what editors and type checkers see) has a `def` for every bound function."""
    text = (ROOT / "hip" / f"{lib}.pyi").read_text()
    defined = set(re.findall(r"^def (\w+)\(", text, re.M))
    listed = _report(lib)["functions"]
    missing = sorted(n for n in header_facts.functions(include64, lib)
                     if listed.get(n, {}).get("status") == "bound" and n not in defined)
    assert missing == [], f"{len(missing)} functions missing from hip/{lib}.pyi: {missing[:20]}"
