"""Every function a library's headers export is bound (or listed skipped, with a reason, in its
coverage report): in the built package, and in what the generator makes of the ROCm 5.2 headers.
Every #define alias of a function, type or enumerator names the same object.

The list of functions comes from our own libclang walk (tests/oracles/header_facts.py: external linkage,
declared in a file the library owns, C mode unless the spec says C++), never from the generator's
IR or coverage report. Every test runs for every library that has a spec.
"""
from __future__ import annotations

import json
import os
import re

import pytest

import header_facts
from conftest import ROOT, library_module

LIBS = header_facts.names()

# A few functions each header must export (guards the header walk itself against finding nothing),
# and lower bounds on their number (ROCm 6.4: hipBLAS 1849, hipRAND 30, hipSPARSE 546, hipFFT 33,
# hipSOLVER 526, RCCL 58, rocBLAS 1216 (its beta API included), rocSOLVER 913; Debian sid's hipBLASLt 7.1 24, rocFFT 29, comgr 64, amd-smi 247, MIOpen 258). A library not listed must export at least one function.
MUST = {
    "hip": {"hipGetDeviceCount", "hipMalloc", "hipMemcpy", "hipStreamCreate", "hipModuleLaunchKernel"},
    "hiprtc": {"hiprtcCreateProgram", "hiprtcCompileProgram", "hiprtcGetCode", "hiprtcVersion"},
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
    "roctx": {"roctxMarkA", "roctxRangePushA", "roctxRangePop", "roctxRangeStartA", "roctxRangeStop"},
    "rocblas": {"rocblas_create_handle", "rocblas_destroy_handle", "rocblas_saxpy", "rocblas_sdot", "rocblas_sgemm",
                "rocblas_set_pointer_mode", "rocblas_gemm_ex", "rocblas_status_to_string",
                "rocblas_gemm_ex3", "rocblas_gemm_batched_ex3", "rocblas_gemm_ex_get_solutions"},  # the beta API too
    "rocsolver": {"rocsolver_sgetrf", "rocsolver_dgetrs", "rocsolver_dpotrf", "rocsolver_dgesvd", "rocsolver_dsyevd",
                  "rocsolver_get_version_string"},
    "hipblaslt": {"hipblasLtCreate", "hipblasLtDestroy", "hipblasLtMatmul", "hipblasLtMatmulAlgoGetHeuristic",
                  "hipblasLtMatmulDescSetAttribute", "hipblasLtMatrixLayoutCreate"},
    "rocfft": {"rocfft_setup", "rocfft_plan_create", "rocfft_execute", "rocfft_plan_destroy",
               "rocfft_get_version_string"},
    "amd_comgr": {"amd_comgr_get_version", "amd_comgr_create_data", "amd_comgr_set_data", "amd_comgr_get_data",
                  "amd_comgr_do_action", "amd_comgr_release_data"},
    "amdsmi": {"amdsmi_init", "amdsmi_shut_down", "amdsmi_get_processor_handles", "amdsmi_get_gpu_asic_info",
               "amdsmi_status_code_to_string", "amdsmi_get_cpu_socket_power"},   # the CPU API too
    "miopen": {"miopenCreate", "miopenDestroy", "miopenCreateTensorDescriptor", "miopenConvolutionForwardImmediate",
               "miopenGetVersion", "miopenFindSolutions"},                       # the beta API too
}
AT_LEAST = {"hip": 300, "hiprtc": 10, "hipblas": 1000, "hiprand": 20, "hipsparse": 300, "hipfft": 25,
            "hipsolver": 300, "rccl": 40, "rocblas": 600, "rocsolver": 600, "hipblaslt": 20, "rocfft": 25, "amd_comgr": 50, "amdsmi": 150, "miopen": 200}


def _report(lib):
    path = ROOT / "hip" / "_coverage" / f"{lib}.json"
    if not path.exists():
        pytest.skip(f"{lib} is not generated (no {path})")
    return json.loads(path.read_text())


def _functions(include, lib):
    if not header_facts.available(include, lib):
        pytest.skip(f"{lib}: no {', '.join(header_facts.library(lib).headers)} in {include}")
    return header_facts.functions(include, lib)


# -- the header walk -------------------------------------------------------------------------------
@pytest.mark.parametrize("lib", LIBS)
def test_header_walk_finds_functions(include_any, lib):
    funcs = _functions(include_any, lib)
    assert MUST.get(lib, set()) <= set(funcs), sorted(MUST.get(lib, set()) - set(funcs))
    assert len(funcs) >= AT_LEAST.get(lib, 1)


def test_header_walk_keeps_other_projects_functions_out(include64):
    """hiprand.h includes rocrand.h: rocRAND's own functions are not hipRAND's."""
    funcs = header_facts.functions(include64, "hiprand")
    assert not [n for n in funcs if n.startswith("rocrand_")]
    assert all(f.file.startswith("hiprand/") for f in funcs.values())


# -- the built package -----------------------------------------------------------------------------
@pytest.mark.parametrize("lib", LIBS)
def test_coverage_report_accounts_for_every_header_function(include64, lib):
    funcs = _functions(include64, lib)
    report = _report(lib)
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
    funcs = _functions(include64, lib)
    mod, listed = library_module(lib), _report(lib)["functions"]
    missing = sorted(n for n in funcs if listed.get(n, {}).get("status") == "bound"
                     and not callable(getattr(mod, n, None)))
    assert missing == [], f"{len(missing)} bound functions not callable in hip.{lib}: {missing[:30]}"
    present = sorted(n for n, e in listed.items() if e["status"] == "skipped" and hasattr(mod, n))
    assert present == [], f"skipped functions still defined in hip.{lib}: {present}"


@pytest.mark.parametrize("lib", LIBS)
def test_module_records_header_version(include64, lib):
    with open(os.path.join(include64, "hip", "hip_version.h")) as f:
        text = f.read()
    v = ".".join(re.search(rf"#define HIP_VERSION_{k}\s+(\d+)", text).group(1) for k in ("MAJOR", "MINOR", "PATCH"))
    assert _report(lib)["rocm_version"] == v
    assert library_module(lib).__rocm_version__ == v


@pytest.mark.parametrize("lib", LIBS)
def test_stubs_declare_every_bound_function(include64, lib):
    """hip/<lib>.pyi (what editors and type checkers see) has a `def` for every bound function."""
    funcs, listed = _functions(include64, lib), _report(lib)["functions"]
    text = (ROOT / "hip" / f"{lib}.pyi").read_text()
    defined = set(re.findall(r"^def (\w+)\(", text, re.M))
    missing = sorted(n for n in funcs if listed.get(n, {}).get("status") == "bound" and n not in defined)
    assert missing == [], f"{len(missing)} functions missing from hip/{lib}.pyi: {missing[:20]}"


# -- generation from ROCm 5.2 ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def generated52(include52, tmp_path_factory):
    from codegen import generate
    out = tmp_path_factory.mktemp("gen52")
    libs = [lib for lib in LIBS if header_facts.available(include52, lib)]
    try:
        generate.generate_bindings(include52, libs, str(out))
    except Exception as e:   # reported by each test as a failure, not a fixture error
        return e
    return out


@pytest.mark.parametrize("lib", LIBS)
def test_generation_from_rocm52_binds_every_header_function(include52, generated52, lib):
    funcs = _functions(include52, lib)
    if isinstance(generated52, Exception):
        pytest.fail(f"generate_bindings failed on the ROCm 5.2 headers: {type(generated52).__name__}: {generated52}")
    report = json.loads((generated52 / "_coverage" / f"{lib}.json").read_text())
    assert report["rocm_version"].startswith("5.2")
    listed = report["functions"]
    problems = {n: listed.get(n, "absent") for n in funcs if listed.get(n, {}).get("status") != "bound"}
    assert problems == {}, f"ROCm 5.2 functions not bound: {problems}"
    assert sorted(set(listed) - set(funcs)) == []


# -- #define aliases ---------------------------------------------------------------------------------
def _aliases(include, lib):
    if not header_facts.available(include, lib):
        pytest.skip(f"{lib}: not in {include}")
    return header_facts.macros(include, lib)[1]


@pytest.mark.parametrize("lib", LIBS)
def test_function_aliases_from_define(include64, lib):
    """`#define hipGetDeviceProperties hipGetDevicePropertiesR0600`: the alias is the same function."""
    funcs = header_facts.functions(include64, lib) if header_facts.available(include64, lib) else {}
    aliases = {a: t for a, t in _aliases(include64, lib).items() if t in funcs}
    if lib == "hip":
        assert aliases.get("hipGetDeviceProperties") == "hipGetDevicePropertiesR0600"
    if not aliases:
        pytest.skip(f"{lib}: no function aliases")
    mod = library_module(lib)
    wrong = [a for a, t in aliases.items() if getattr(mod, a, None) is not getattr(mod, t)]
    assert wrong == [], f"aliases not the same function in hip.{lib}: {wrong}"


@pytest.mark.parametrize("lib", LIBS)
def test_type_aliases_from_define(include64, lib):
    """`#define hipDeviceProp_t hipDeviceProp_tR0600` (hip), `#define hiprtcJITInputType
    hipJitInputType` (hiprtc, a type of hip's): the alias names the same class."""
    aliases = _aliases(include64, lib)
    mod = library_module(lib)
    hip = library_module("hip")
    targets = {a: getattr(mod, t, None) or getattr(hip, t, None) for a, t in aliases.items()}
    targets = {a: c for a, c in targets.items() if isinstance(c, type)}
    if lib == "hip":
        assert "hipDeviceProp_t" in targets, "expected type aliases such as hipDeviceProp_t in the 6.4 headers"
    if not targets:
        pytest.skip(f"{lib}: no type aliases")
    wrong = [f"hip.{lib}.{a} should be {aliases[a]}" for a, c in targets.items() if getattr(mod, a, None) is not c]
    assert wrong == []


@pytest.mark.parametrize("lib", LIBS)
def test_enumerator_aliases_from_define(include64, lib):
    """`#define HIPSOLVER_OP_N HIPBLAS_OP_N`, `#define HIPRTC_JIT_MAX_REGISTERS hipJitOptionMaxRegisters`
    (an enumerator of hip's): C code may use either spelling, so may Python, with the same value."""
    aliases = _aliases(include64, lib)
    mod = library_module(lib)
    values = {}
    for owner in dict.fromkeys(["hip", lib]):
        om = library_module(owner)
        for e in header_facts.enums(include64, owner):
            for k in e.constants:
                values[k] = getattr(getattr(om, e.py_name), k) if e.py_name else getattr(om, k)
    aliases = {a: t for a, t in aliases.items() if t in values}
    if lib == "hipsolver":
        assert aliases.get("HIPSOLVER_OP_N") == "HIPBLAS_OP_N"
    if lib in ("hip", "hiprtc"):
        assert aliases, f"expected enumerator aliases in the 6.4 {lib} headers"
    missing = sorted(a for a in aliases if not hasattr(mod, a))
    assert missing == [], f"{len(missing)} enumerator aliases missing from hip.{lib}: {missing[:10]}"
    wrong = [a for a, t in aliases.items() if getattr(mod, a) != values[t] or type(getattr(mod, a)) is not
             type(values[t])]
    assert wrong == []
