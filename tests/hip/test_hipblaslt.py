"""hip.hipblaslt on the CPU: the module (its names against AMD's HIP Python 10.x, where its wheel is
here), the cimport layer, the missing-library error and the refusal of bad input before any C call.
Neither bookworm's nor sid's hipBLASLt runtime loads on this machine; the calls themselves run in
tests/hip/test_hipblaslt_gpu.py."""
from __future__ import annotations

import ast
import glob
import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import numpy as np
import pytest

import hip
from conftest import ROOT, library_module


@pytest.fixture(scope="module")
def L():
    return library_module("hipblaslt")


def _missing(L) -> bool:
    try:
        L._library.load()
    except hip.LibraryNotFoundError:
        return True
    return False


def test_status_and_types_are_hipblas_common(L):
    from hip import hip as h, hipblas
    assert L.hipblasStatus_t is hipblas.hipblasStatus_t          # one enum type, hipBLAS's
    assert L.hipblasLtMatmulDesc_t is L.hipblasLtMatmulDescOpaque_t
    assert L.hipblasLtMatmulHeuristicResult_t.c_sizeof() == 56     # AMD's layout (C++ defaults aside)
    assert int(L.hipblasLtEpilogue_t.HIPBLASLT_EPILOGUE_RELU_BIAS) == 6
    assert L._hipDataType__Base is h._hipDataType__Base


def test_missing_library_names_what_it_tried(L):
    if not _missing(L):
        pytest.skip("a hipBLASLt library loads here")
    with pytest.raises(hip.LibraryNotFoundError) as e:
        L.hipblasLtCreate()
    assert e.value.library == "hipblaslt"
    assert "HIP_PYTHON_HIPBLASLT_LIBRARY" in str(e.value) and "libhipblaslt.so" in str(e.value)


@pytest.mark.parametrize("call,exc,text", [
    (lambda L: L.hipblasLtMatrixLayoutCreate("HIP_R_32F", 4, 4, 4), TypeError, "hipDataType"),
    (lambda L: L.hipblasLtMatrixLayoutCreate(L.hipblasLtOrder_t.HIPBLASLT_ORDER_COL, 4, 4, 4), TypeError,
     "hipDataType"),
    (lambda L: L.hipblasLtMatrixLayoutCreate(0, -1, 4, 4), OverflowError, "negative"),
    (lambda L: L.hipblasLtMatmulDescCreate(True, 0), TypeError, "hipblasComputeType_t"),
    (lambda L: L.hipblasLtMatmulDescSetAttribute(None, 0, b"\0" * 4, 4), TypeError, "NULL handle"),
    (lambda L: L.hipblasLtMatmulDescSetAttribute(L.hipblasLtMatrixLayout_t.from_ptr(8), 0, b"\0" * 4, 4), TypeError,
     "hipblasLtMatmulDescOpaque_t"),
    (lambda L: L.hipblasLtGetGitRevision(8, bytearray(16)), ValueError, "256"),
    (lambda L: L.hipblasLtMatmulAlgoGetHeuristic(8, 8, 8, 8, 8, 8, 8, 4, bytearray(100)), ValueError,
     "the call writes 224"),
    (lambda L: L.hipblasLtMatmulAlgoGetHeuristic(8, 8, 8, 8, 8, 8, 8, 2, L.hipblasLtMatmulAlgo_t()),
     TypeError, "expected _hipblasLtMatmulHeuristicResult_t"),
    (lambda L: L.hipblasLtMatmul(8, 8, np.ones(1, np.float32), 0, 8, 0, 8, np.zeros(1, np.float32), 0, 8, 0, 8,
                                 L.hipblasLtMatmulPreference_t.from_ptr(8), 0, 0, None), TypeError,
     "hipblasLtMatmulAlgo"),
])
def test_bad_input_is_refused_before_c(L, call, exc, text):
    """Refused while converting the arguments: no library is needed to see it (none loads here)."""
    with pytest.raises(exc, match=text):
        call(L)


def test_out_arguments_are_returned(L):
    """As AMD's 10.x: what the call creates or counts is returned, the rest is the caller's."""
    from conftest import stub_functions
    sigs = {f: [p for p, _ in ps] for f, ps in stub_functions("hipblaslt").items()}
    assert sigs["hipblasLtCreate"] == []
    assert sigs["hipblasLtGetArchName"] == []
    assert sigs["hipblasLtMatrixLayoutCreate"] == ["type", "rows", "cols", "ld"]
    assert sigs["hipblasLtMatmulDescGetAttribute"] == ["matmulDesc", "attr", "buf", "sizeInBytes"]
    assert sigs["hipblasLtMatmulAlgoGetHeuristic"][-2:] == ["requestedAlgoCount", "heuristicResultsArray"]


# -- AMD's HIP Python 10.x (rocm-bindings-libraries): its hipblaslt module's names ----------------------------
def _amd_stub():
    """The text of AMD's rocm/bindings/hipblaslt.pyi from a rocm_bindings_libraries wheel, or None."""
    dirs = [os.environ.get("HIP_PYTHON_AMD_WHEELS", ""), str(ROOT / ".dev" / "amd"), str(ROOT / ".dev" / "whl")]
    for d in filter(None, dirs):
        for whl in sorted(glob.glob(os.path.join(d, "rocm_bindings_libraries-*.whl"))):
            with zipfile.ZipFile(whl) as z:
                if "rocm/bindings/hipblaslt.pyi" in z.namelist():
                    return z.read("rocm/bindings/hipblaslt.pyi").decode()
    return None


# Where our module's parameters differ from AMD's 10.x, and why.
AMD_PARAMETER_DEVIATIONS = {
    "hipblasLtMatrixTransform": "AMD returns Cdesc as an output (its documentation says [out]); C takes the "
                                "caller's layout, which ours takes",
}


def test_names_follow_amd_10(L):
    text = _amd_stub()
    if text is None:
        pytest.skip("no rocm_bindings_libraries wheel (set HIP_PYTHON_AMD_WHEELS)")
    tree = ast.parse(text)
    ours = {f: [p for p, _ in ps] for f, ps in __import__("conftest").stub_functions("hipblaslt").items()}
    checked = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in ours:      # ours: what these headers declare
            checked += 1
            amd = [a.arg for a in node.args.args]
            if node.name in AMD_PARAMETER_DEVIATIONS:
                assert amd != ours[node.name], f"{node.name}: no longer differs; drop the deviation"
            else:
                assert amd == ours[node.name], node.name
        elif isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Attribute) and b.attr == "IntEnum"
                                                    for b in node.bases) and hasattr(L, node.name):
            members = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign)]
            ours_enum = getattr(L, node.name)
            # the members these headers declare have AMD's names (AMD's headers are newer: it has more)
            assert {m.name for m in ours_enum} - set(members) <= {
                "HIPBLASLT_MATMUL_DESC_MAX", "HIPBLASLT_MATMUL_PREF_MAX"}, node.name
    assert checked >= 20


# -- the cimport layer -------------------------------------------------------------------------------------------
PYX = '''
# cython: language_level=3
from hip cimport chipblaslt

def create():
    cdef chipblaslt.hipblasLtHandle_t h = NULL
    cdef chipblaslt.hipblasStatus_t err
    with nogil:
        err = chipblaslt.hipblasLtCreate(&h)
    return int(err)

def facts():
    return (sizeof(chipblaslt.hipblasLtMatmulAlgo_t), int(chipblaslt.HIPBLASLT_EPILOGUE_GELU_BIAS),
            int(chipblaslt.HIPBLASLT_MATMUL_DESC_BIAS_POINTER))
'''


def test_cimport(L, include64, tmp_path):
    """`cimport hip.chipblaslt` compiles (C++, as the module) and reaches the same loader."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    name = "hip_cimport_hipblaslt_probe"
    (tmp_path / f"{name}.pyx").write_text(PYX)
    r = subprocess.run([sys.executable, "-m", "cython", "-3", "--cplus", "-I", str(ROOT), f"{name}.pyx"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    so = tmp_path / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    r = subprocess.run([gxx, "-shared", "-fPIC", "-O0", "-w", "-std=c++17", "-D__HIP_PLATFORM_AMD__",
                        f"-I{sysconfig.get_paths()['include']}", f"-I{include64}", f"-I{ROOT}", f"{name}.cpp",
                        "-o", str(so)], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    sys.path.insert(0, str(tmp_path))
    try:
        m = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    assert m.facts() == (L.hipblasLtMatmulAlgo_t.c_sizeof(), int(L.hipblasLtEpilogue_t.HIPBLASLT_EPILOGUE_GELU_BIAS),
                         int(L.hipblasLtMatmulDescAttributes_t.HIPBLASLT_MATMUL_DESC_BIAS_POINTER))
    if _missing(L):
        with pytest.raises(hip.LibraryNotFoundError):
            m.create()
