"""The alias's hand-written parts of cuda.bindings: `utils` (handles, PTX versions, the driver
version check), the private `_inspect_function_pointer`s of `_bindings` / `_internal`, and
`_test_helpers`. Where NVIDIA's functions run without a GPU, NVIDIA's release (the oracle, a side
venv: tests/oracles/cuda_bindings_oracle.py) and the alias run the same probe and must agree.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from unittest import mock

import pytest

import cuda_bindings_oracle as oracle
from conftest import ROOT

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")
from cuda.bindings import nvrtc, runtime  # noqa: E402

if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
    pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)", allow_module_level=True)

import cuda.bindings.utils as utils  # noqa: E402
from cuda.bindings._internal import nvjitlink as inner_nvjitlink  # noqa: E402
from cuda.bindings._internal import nvvm as inner_nvvm  # noqa: E402
from cuda.bindings._test_helpers import mempool  # noqa: E402

# -- the probe both bindings run ----------------------------------------------------------------
# Each result is ["value", v] or ["raises", exception type, message].
PROBE = r'''
import importlib, inspect, json, sys
from cuda.bindings import driver, runtime, nvrtc
import cuda.bindings.utils as u

def run(f, *a):
    try:
        return ["value", f(*a)]
    except Exception as e:
        return ["raises", type(e).__name__, str(e)]

out = {}
out["public"] = sorted(n for n in dir(u) if not n.startswith("_") and callable(getattr(u, n))
                       and getattr(getattr(u, n), "__module__", "") != "typing")
out["signatures"] = {n: [[p.name, p.kind.name, repr(p.default)] for p in inspect.signature(getattr(u, n)).parameters.values()]
                     for n in out["public"]}
versions = [f"{a}.{b}" for a in range(0, 15) for b in range(0, 13)]
odd = ["8.10", "08.8", " 8.8", "8.8 ", "8", "8.", ".8", "", "x.y", "9.1.0", "\u0668.\u0668"]
out["min_cuda"] = {s: run(u.get_minimal_required_cuda_ver_from_ptx_ver, s) for s in versions + odd}
out["min_cuda_odd_types"] = {repr(x): run(u.get_minimal_required_cuda_ver_from_ptx_ver, x)
                             for x in (8.8, 9, None, b"8.8", ("8", "8"), [])}
texts = {f"header {v}": f"//\n// Generated\n//\n\n.version {v}\n.target sm_90\n.address_size 64\n" for v in versions[::7]}
texts.update({
    "tabs": ".version\t7.2\n", "spaces": ".version    8.8\n.target sm_75", "glued": ".version8.8",
    "no minor": ".version 7\n", "in a comment": "// .version 6.4\n.version 8.0\n", "prefix": "x.version 7.0",
    "long": ".version 10.12x", "empty": "", "none": ".target sm_90\n", "two": ".version 8.1\n.version 9.0\n",
    "newline between": ".version\n8.5", "unicode space": ".version\u20038.5", "unicode digits": ".version \u0668.\u0668",
})
out["ptx_ver"] = {k: run(u.get_ptx_ver, t) for k, t in texts.items()}
out["ptx_ver_odd_types"] = {repr(x): run(u.get_ptx_ver, x) for x in (None, 5, b".version 8.8", [".version 8.8"])}
handles = {}
for short in ("driver", "runtime", "nvrtc"):
    m = importlib.import_module("cuda.bindings." + short)
    for n in dir(m):
        c = getattr(m, n)
        if n.startswith("_") or not isinstance(c, type):
            continue
        try:
            o = c(5)
        except Exception:
            continue
        handles[f"{short}.{n}"] = run(u.get_cuda_native_handle, o)[:2]   # the message names the class
out["handles"] = handles
class SubStream(driver.CUstream):
    pass
others = {"tuple": (1, 2, 3, 4), "list": [5, 6], "dict": {}, "None": None, "int": 5, "str": "x",
          "NULL CUcontext": driver.CUcontext(), "CUdeviceptr": driver.CUdeviceptr(5), "CUdevice": driver.CUdevice(3),
          "subclass of CUstream": SubStream(9)}
out["other_objects"] = {k: run(u.get_cuda_native_handle, o)[:2] for k, o in others.items()}
from cuda.bindings._bindings.cydriver import _inspect_function_pointer
out["inspect_bad_names"] = {repr(x): run(_inspect_function_pointer, x)[:2] for x in (b"__cuInit", 5, 1.5)}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[dict, dict]:
    """(NVIDIA's answers, ours): the probe in the oracle's venv and through `python -m hip_as_cuda`."""
    try:
        return oracle.probe_both(PROBE, str(tmp_path_factory.mktemp("probe")))
    except oracle.NoRelease as e:
        pytest.skip(str(e))


def _version(s: str):
    parts = s.split(".")
    return tuple(int(p) for p in parts) if len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts) else None


def test_utils_has_nvidia_public_functions(both):
    nv, ours = both
    assert set(nv["public"]) <= set(ours["public"]), sorted(set(nv["public"]) - set(ours["public"]))
    for name in nv["public"]:
        assert ours["signatures"][name] == nv["signatures"][name], name


def test_minimal_cuda_version_matches_nvidia(both):
    """Value by value over PTX versions 0.0-14.12 and odd strings. Past the newest version the
    oracle's table lists, ours may list more (rows of later CUDA releases), each above it."""
    nv, ours = both
    known = [v for v, r in nv["min_cuda"].items() if r[0] == "value" and _version(v)]
    newest = max(known, key=_version)
    assert {"8.8": 12090, "7.2": 11020}.items() <= {v: nv["min_cuda"][v][1] for v in known}.items()
    for s, theirs in nv["min_cuda"].items():
        mine = ours["min_cuda"][s]
        if theirs[0] == "raises" and mine[0] == "value" and _version(s) and _version(s) > _version(newest):
            assert mine[1] > nv["min_cuda"][newest][1], (s, mine)
            continue
        assert mine == theirs, s
    assert ours["min_cuda_odd_types"] == nv["min_cuda_odd_types"]


def test_minimal_cuda_version_grows_with_the_ptx_version(both):
    _, ours = both
    table = sorted((_version(v), r[1]) for v, r in ours["min_cuda"].items() if r[0] == "value" and _version(v))
    assert len(table) > 40 and [c for _, c in table] == sorted(c for _, c in table)


def test_ptx_version_matches_nvidia(both):
    nv, ours = both
    assert ours["ptx_ver"] == nv["ptx_ver"]
    assert ours["ptx_ver_odd_types"] == nv["ptx_ver_odd_types"]


def test_native_handles_match_nvidia(both):
    """Every class both bindings have, given the address 5: the same address back, or TypeError
    from both (integer types, structs, enums, nvrtcProgram: NVIDIA registers driver and runtime
    handles only)."""
    nv, ours = both
    common = set(nv["handles"]) & set(ours["handles"])
    assert len(common) > 300
    assert {k: ours["handles"][k] for k in common} == {k: nv["handles"][k] for k in common}
    assert sum(r == ["value", 5] for r in (nv["handles"][k] for k in common)) >= 40
    assert ours["other_objects"] == nv["other_objects"]


def test_inspect_function_pointer_refuses_what_nvidia_refuses(both):
    nv, ours = both
    assert ours["inspect_bad_names"] == nv["inspect_bad_names"]


# -- without the oracle ------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["CUcontext", "CUstream", "CUevent", "CUmodule", "CUlibrary", "CUfunction",
                                    "CUkernel", "CUgraph", "CUgraphNode", "CUgraphExec", "CUmemoryPool",
                                    "cudaStream_t", "cudaEvent_t", "cudaGraph_t", "cudaGraphNode_t",
                                    "cudaGraphExec_t", "cudaMemPool_t"])
def test_native_handle_is_the_address(target):
    cls = getattr(driver if target.startswith("CU") else runtime, target)
    assert utils.get_cuda_native_handle(cls(0x1234)) == 0x1234
    assert utils.get_cuda_native_handle(cls(0xFFFF_FFFF_FFFF)) == 0xFFFF_FFFF_FFFF


@pytest.mark.parametrize("obj", [(1, 2, 3, 4), [5, 6], {}, None, 7, nvrtc.nvrtcProgram(5), driver.CUdeviceptr(5)])
def test_native_handle_of_anything_else_is_a_type_error(obj):
    with pytest.raises(TypeError, match="Unknown type"):
        utils.get_cuda_native_handle(obj)


def test_registered_getter_is_asked_first():
    class Mine:
        pass
    utils._add_cuda_native_handle_getter(Mine, lambda o: 42)
    try:
        assert utils.get_cuda_native_handle(Mine()) == 42
    finally:
        del utils._handle_getters[Mine]


def test_ptx_examples():
    ptx = ".version 8.8\n.target sm_75\n.address_size 64\n\n.visible .entry empty_kernel()\n{\n\tret;\n}\n"
    assert utils.get_ptx_ver(ptx) == "8.8" and utils.get_minimal_required_cuda_ver_from_ptx_ver("8.8") == 12090
    assert utils.get_minimal_required_cuda_ver_from_ptx_ver("9.0") == 13000
    with pytest.raises(ValueError, match="Unknown or unsupported PTX ISA version: 1.5"):
        utils.get_minimal_required_cuda_ver_from_ptx_ver("1.5")   # a driver's (r190), no CUDA release's
    with pytest.raises(ValueError, match="No .version directive"):
        utils.get_ptx_ver(".target sm_90\n")


def test_nvvm_is_absent():
    assert utils.check_nvvm_compiler_options(["-arch=compute_90"]) is False
    assert utils.check_nvvm_compiler_options([]) is False
    assert inner_nvvm._inspect_function_pointer("__nvvmCreateProgram") == 0
    assert set(inner_nvvm._inspect_function_pointers().values()) == {0}
    with pytest.raises(KeyError):
        inner_nvvm._inspect_function_pointer("__nvvmNoSuchFunction")


def test_c_compiler_is_named():
    from cuda.bindings._internal.utils import get_c_compiler
    c = get_c_compiler()
    assert sum(c.startswith(p) for p in ("GCC", "Clang", "MSVC", "Unknown")) == 1, c
    if sys.platform.startswith("linux") and c != "Unknown":
        assert any(ch.isdigit() for ch in c), c


# -- what _inspect_function_pointer answers ----------------------------------------------------
def test_inspect_tables_cover_the_coverage_reports():
    """One entry per CUDA function of the module's coverage report; not-supported ones are 0."""
    import hip_as_cuda
    from cuda.bindings._internal import driver as inner_driver
    from cuda.bindings._internal import nvrtc as inner_nvrtc
    cov = hip_as_cuda.coverage()
    for module, inner in (("driver", inner_driver), ("nvrtc", inner_nvrtc)):
        try:
            table = inner._inspect_function_pointers()
        except OSError as e:   # LibraryNotFoundError: the HIP library asked is not loadable here
            pytest.skip(str(e).splitlines()[0])
        functions = cov[module]["functions"]
        assert set(table) == {f"__{n}" for n in functions}
        assert set(table.values()) <= {0, 1}
        assert all(table[f"__{n}"] == 0 for n, f in functions.items() if f["status"] != "bridged")
        # CUDA's own answers need no HIP function.
        assert all(table[f"__{n}"] == 1 for n, f in functions.items() if f["status"] == "bridged" and not f["hip"])


@pytest.mark.runtime
def test_inspect_says_whether_the_call_runs():
    """Nonzero exactly where the call reaches HIP (cuGetErrorString needs hipDrvGetErrorString,
    which ROCm 5.2 lacks: SymbolNotFoundError from the call, 0 from the inspector)."""
    from hip.errors import SymbolNotFoundError

    from cuda.bindings._bindings import cydriver, cynvrtc
    from cuda.bindings._internal import driver as inner_driver
    from cuda.bindings._internal import nvrtc as inner_nvrtc
    calls = {"__cuGetErrorString": lambda: driver.cuGetErrorString(driver.CUresult.CUDA_SUCCESS),
             "__cuDriverGetVersion": driver.cuDriverGetVersion, "__cuDeviceGetCount": driver.cuDeviceGetCount,
             "__cuGetErrorName": lambda: driver.cuGetErrorName(driver.CUresult.CUDA_SUCCESS),
             "__nvrtcVersion": nvrtc.nvrtcVersion,
             "__nvrtcGetErrorString": lambda: nvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_SUCCESS)}
    for name, call in calls.items():
        try:
            call()
            runs = True
        except SymbolNotFoundError:
            runs = False
        inspect = (cydriver, inner_driver) if name.startswith("__cu") else (cynvrtc, inner_nvrtc)
        assert [m._inspect_function_pointer(name) != 0 for m in inspect] == [runs, runs], name
    assert cydriver._inspect_function_pointer("__cuCtxAttach") == 0   # no HIP counterpart
    with pytest.raises(KeyError):
        cydriver._inspect_function_pointer("__cuNoSuchFunction")


def test_inspect_without_the_hip_library_raises_the_loaders_error():
    """As NVIDIA's raise where libcuda / libnvrtc cannot be loaded."""
    code = textwrap.dedent("""
        from cuda.bindings._internal.driver import _inspect_function_pointer
        from hip.errors import LibraryNotFoundError
        try:
            _inspect_function_pointer("__cuInit")
        except LibraryNotFoundError:
            print("LibraryNotFoundError")
    """)
    env = dict(os.environ, HIP_PYTHON_HIP_LIBRARY="/nonexistent/libamdhip64.so",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "LibraryNotFoundError", r.stdout + r.stderr[-2000:]


def test_nvjitlink_answers_from_hiprtcs_linker():
    """nvJitLink's functions run where cuda.bindings.nvjitlink exists and hiprtc's linker
    (hiprtcLinkCreate) resolves through `hip`'s loader; linked PTX and LTO IR never (hiprtc makes neither)."""
    import importlib.util

    from hip import chiprtc
    try:
        linker = chiprtc.library.has_symbol("hiprtcLinkCreate")
    except OSError as e:
        pytest.skip(str(e).splitlines()[0])
    expected = int(linker and importlib.util.find_spec("cuda.bindings.nvjitlink") is not None)
    table = inner_nvjitlink._inspect_function_pointers()
    assert inner_nvjitlink._inspect_function_pointer("__nvJitLinkVersion") == expected
    assert inner_nvjitlink._inspect_function_pointer("__nvJitLinkCreate") == expected
    assert [table[f"__nvJitLinkGetLinked{x}"] for x in ("LTOIR", "LTOIRSize", "Ptx", "PtxSize")] == [0] * 4
    with pytest.raises(TypeError):
        inner_nvjitlink._inspect_function_pointer(5)
    with pytest.raises(KeyError):
        inner_nvjitlink._inspect_function_pointer("__nvJitLinkNoSuchFunction")


# -- the driver version check ------------------------------------------------------------------
@pytest.fixture
def fresh_check(monkeypatch):
    from cuda.bindings.utils import _version_check
    monkeypatch.setattr(_version_check, "_major_version_compatibility_checked", False)
    monkeypatch.delenv("CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING", raising=False)


@pytest.mark.parametrize("built,running,warns", [(12090, 13000, False), (12090, 12080, False), (13000, 12080, True)])
def test_version_check(fresh_check, built, running, warns):
    with mock.patch.object(driver, "CUDA_VERSION", built), \
         mock.patch.object(driver, "cuDriverGetVersion", return_value=(driver.CUresult.CUDA_SUCCESS, running)), \
         warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        utils.warn_if_cuda_major_version_mismatch()
        utils.warn_if_cuda_major_version_mismatch()   # once per process
    assert len(w) == int(warns)
    if warns:
        assert "built for CUDA major version 13" in str(w[0].message) and "up to CUDA 12" in str(w[0].message)


def test_version_check_silenced_and_failing(fresh_check, monkeypatch):
    with mock.patch.object(driver, "cuDriverGetVersion",
                           return_value=(driver.CUresult.CUDA_ERROR_NOT_INITIALIZED, 0)):
        with pytest.raises(RuntimeError, match="Failed to query CUDA driver version"):
            utils.warn_if_cuda_major_version_mismatch()
        from cuda.bindings.utils import _version_check
        monkeypatch.setattr(_version_check, "_major_version_compatibility_checked", False)
        monkeypatch.setenv("CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING", "1")
        utils.warn_if_cuda_major_version_mismatch()   # silenced before the driver is asked


# -- test helpers ------------------------------------------------------------------------------
@pytest.mark.parametrize("err", [driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, runtime.cudaError_t.cudaErrorMemoryAllocation,
                                 RuntimeError("CUDA_ERROR_OUT_OF_MEMORY"), driver.CUresult.CUDA_SUCCESS])
def test_mempool_oom_is_never_an_mcdm_xfail(err):
    assert mempool.is_windows_mcdm_device(0) is False
    assert mempool.xfail_if_mempool_oom(err) is None
    assert mempool.xfail_if_mempool_oom(err, "cuMemAllocFromPoolAsync", 0) is None
    assert mempool.xfail_if_mempool_oom(err, 0) is None   # the device in api_name's place


def test_pep723_requirements(tmp_path):
    from cuda.bindings._test_helpers.pep723 import has_package_requirements_or_skip
    ok = tmp_path / "ok.py"
    ok.write_text('# /// script\n# dependencies = ["pytest>=7", "cuda_bindings"]\n# ///\nprint(1)\n')
    with pytest.raises(pytest.skip.Exception, match="cuda_bindings"):   # the alias is not NVIDIA's distribution
        has_package_requirements_or_skip(str(ok))
    ok.write_text('# /// script\n# dependencies = [\n#   "pytest",\n# ]\n# ///\n')
    has_package_requirements_or_skip(str(ok))
    bad = tmp_path / "bad.py"
    bad.write_text("print(1)\n")
    with pytest.raises(ValueError, match="PEP 723 metadata not found in bad.py"):
        has_package_requirements_or_skip(str(bad))
    bad.write_text('# /// script\n# requires-python = ">=3.9"\n# ///\n')
    with pytest.raises(ValueError, match="PEP 723 dependencies not found"):
        has_package_requirements_or_skip(str(bad))


# -- imports -----------------------------------------------------------------------------------
def test_driver_import_does_not_import_them():
    """Importing the driver stays as it was: nothing of utils, _internal or _bindings comes with it."""
    code = "import sys, cuda.bindings.driver, cuda.bindings.runtime, cuda.bindings.nvrtc; print(sorted(sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr[-2000:]
    mods = eval(r.stdout)
    assert "cuda.bindings.driver" in mods
    assert [m for m in mods if m.startswith(("cuda.bindings.utils", "cuda.bindings._"))] == []


@pytest.mark.parametrize("module", ["utils", "_bindings.cydriver", "_bindings.cynvrtc", "_internal.driver",
                                    "_internal.nvrtc", "_internal.nvjitlink", "_internal.nvvm", "_internal.utils",
                                    "_test_helpers.mempool", "_test_helpers.pep723"])
def test_each_imports_alone_through_the_finder(module, tmp_path):
    """Each imports first in a fresh process run by `python -m hip_as_cuda` (which takes
    cuda.bindings.* for the alias even where NVIDIA's cuda-bindings is installed)."""
    script = tmp_path / "imp.py"
    script.write_text(f"import cuda.bindings.{module} as m\nprint(m.__file__)\n")
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda", str(script)], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr[-2000:]
    assert os.path.join("hip_as_cuda", "cuda", "bindings") in r.stdout, r.stdout
