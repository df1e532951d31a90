"""Cython users can `cimport` the C layer and call HIP without the GIL.

A tiny .pyx is compiled (cython + gcc, a few seconds) against hip/chip.pxd and
hip/chiprtc.pxd and imported; its answers are compared with ctypes calls into
the library the package loads. A second one cimports the library C layers
(chipblas, chiprand, chipsparse, chipfft, chipsolver, crccl, crocfft, camd_comgr,
camdsmi, cmiopen) in one C++ module (hiprand.h, rocfft.h and MIOpen's beta API are
C++-only), compiled with the specs' macros; a third crocblas and crocsolver in one C module.
"""
from __future__ import annotations

import ctypes
import importlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

from codegen import spec as specmod
from conftest import ROOT
from cython_probe import built

# The libraries the second probe cimports (their C layers: c<name>, chip<name>).
LAYERS = ("hipblas", "hiprand", "hipsparse", "hipfft", "hipsolver", "rccl", "rocfft", "amd_comgr", "amdsmi", "miopen")

PYX = '''
# cython: language_level=3
from hip cimport chip, chiprtc

def device_count():
    cdef int n = -1
    cdef chip.hipError_t err
    with nogil:
        err = chip.hipGetDeviceCount(&n)
    return int(err), n

def runtime_version():
    cdef int v = -1
    cdef chip.hipError_t err
    with nogil:
        err = chip.hipRuntimeGetVersion(&v)
    return int(err), v

def rtc_version():
    cdef int major = -1, minor = -1
    cdef chiprtc.hiprtcResult err
    with nogil:
        err = chiprtc.hiprtcVersion(&major, &minor)
    return int(err), major, minor

def dim3_size():
    return sizeof(chip.dim3)
'''


@pytest.fixture(scope="module")
def cimported(include64, tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    d = tmp_path_factory.mktemp("cimport")
    name = "hip_cimport_probe"
    with built(d, name, PYX, ROOT, ["-D__HIP_PLATFORM_AMD__", f"-I{include64}", f"-I{ROOT}"]) as module:
        yield module


@pytest.fixture(scope="module")
def clib():
    from hip import hip
    return ctypes.CDLL(hip._library.load())


@pytest.mark.runtime
def test_cimport_device_count(cimported, clib):
    n = ctypes.c_int(-1)
    rc = clib.hipGetDeviceCount(ctypes.byref(n))
    assert cimported.device_count() == (rc, n.value)
    from conftest import gpu_available
    if not gpu_available()[0]:
        assert cimported.device_count() == (100, 0)          # hipErrorNoDevice


@pytest.mark.runtime
def test_cimport_runtime_version(cimported, clib):
    v = ctypes.c_int(-1)
    assert clib.hipRuntimeGetVersion(ctypes.byref(v)) == 0
    assert cimported.runtime_version() == (0, v.value)


@pytest.mark.runtime
def test_cimport_hiprtc_version(cimported):
    from hip import hiprtc
    ref = ctypes.CDLL(hiprtc._library.load())
    major, minor = ctypes.c_int(), ctypes.c_int()
    assert ref.hiprtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0
    assert cimported.rtc_version() == (0, major.value, minor.value)


def test_cimport_types_match_python_layer(cimported):
    from hip import hip
    assert cimported.dim3_size() == hip.dim3._size_


# -- the six libraries ---------------------------------------------------------------------------
PYX_LIBS = '''
# cython: language_level=3
from hip cimport chipblas, chiprand, chipsparse, chipfft, chipsolver, crccl
from hip cimport crocfft, camd_comgr, camdsmi, cmiopen

def hiprand_version():
    cdef int v = -1
    cdef chiprand.hiprandStatus_t err
    with nogil:
        err = chiprand.hiprandGetVersion(&v)
    return int(err), v

def hiprand_create_generator(int rng):
    cdef chiprand.hiprandGenerator_t g = NULL
    cdef chiprand.hiprandStatus_t err
    with nogil:
        err = chiprand.hiprandCreateGenerator(&g, <chiprand.hiprandRngType_t>rng)
    if err == chiprand.HIPRAND_STATUS_SUCCESS:
        chiprand.hiprandDestroyGenerator(g)
    return int(err), <size_t>g

def hipsparse_version(size_t handle):
    cdef int v = -1
    cdef chipsparse.hipsparseStatus_t err
    with nogil:
        err = chipsparse.hipsparseGetVersion(<chipsparse.hipsparseHandle_t>handle, &v)
    return int(err), v

def hipblas_create():
    cdef chipblas.hipblasHandle_t h = NULL
    cdef chipblas.hipblasStatus_t err
    with nogil:
        err = chipblas.hipblasCreate(&h)
    if err == chipblas.HIPBLAS_STATUS_SUCCESS:
        chipblas.hipblasDestroy(h)
    return int(err)

def hipfft_version():
    cdef int v = -1
    cdef chipfft.hipfftResult err
    with nogil:
        err = chipfft.hipfftGetVersion(&v)
    return int(err), v

def hipsolver_create():
    cdef chipsolver.hipsolverHandle_t h = NULL
    cdef chipsolver.hipsolverStatus_t err
    with nogil:
        err = chipsolver.hipsolverCreate(&h)
    if err == chipsolver.HIPSOLVER_STATUS_SUCCESS:
        chipsolver.hipsolverDestroy(h)
    return int(err)

def nccl_version():
    cdef int v = -1
    cdef crccl.ncclResult_t err
    with nogil:
        err = crccl.ncclGetVersion(&v)
    return int(err), v

def rocfft_version():
    cdef char buf[64]
    cdef crocfft.rocfft_status err
    with nogil:
        err = crocfft.rocfft_get_version_string(buf, 64)
    return int(err), buf[:64].split(b"\0")[0]

def comgr_version():
    cdef size_t major = 0, minor = 0
    with nogil:
        camd_comgr.amd_comgr_get_version(&major, &minor)
    return major, minor

def comgr_data_round_trip(bytes text):
    """A data object made, filled and read back, all without the GIL."""
    cdef camd_comgr.amd_comgr_data_t data
    cdef const char* src = text
    cdef size_t n = len(text), size = 0
    cdef char out[64]
    cdef camd_comgr.amd_comgr_status_t e1, e2, e3, e4, e5
    with nogil:
        e1 = camd_comgr.amd_comgr_create_data(camd_comgr.AMD_COMGR_DATA_KIND_SOURCE, &data)
        e2 = camd_comgr.amd_comgr_set_data(data, n, src)
        e3 = camd_comgr.amd_comgr_get_data(data, &size, NULL)
        e4 = camd_comgr.amd_comgr_get_data(data, &size, out)
        e5 = camd_comgr.amd_comgr_release_data(data)
    return [int(e1), int(e2), int(e3), int(e4), int(e5)], out[:size]

def amdsmi_init():
    cdef camdsmi.amdsmi_status_t err
    with nogil:
        err = camdsmi.amdsmi_init(camdsmi.AMDSMI_INIT_AMD_GPUS)
    return int(err)

def miopen_version():
    cdef size_t major = 0, minor = 0, patch = 0
    cdef cmiopen.miopenStatus_t err
    with nogil:
        err = cmiopen.miopenGetVersion(&major, &minor, &patch)
    return int(err), major, minor, patch

def sizes():
    return {("hipblas", "hipblasComplex"): sizeof(chipblas.hipblasComplex),
            ("hipblas", "hipblasDoubleComplex"): sizeof(chipblas.hipblasDoubleComplex),
            ("hiprand", "rocrand_discrete_distribution_st"): sizeof(chiprand.rocrand_discrete_distribution_st),
            ("rccl", "ncclUniqueId"): sizeof(crccl.ncclUniqueId),
            ("amd_comgr", "amd_comgr_data_s"): sizeof(camd_comgr.amd_comgr_data_t),
            ("amdsmi", "amdsmi_version_t"): sizeof(camdsmi.amdsmi_version_t),
            ("amdsmi", "amdsmi_gpu_metrics_t"): sizeof(camdsmi.amdsmi_gpu_metrics_t),
            ("miopen", "miopenConvSolution_t"): sizeof(cmiopen.miopenConvSolution_t)}

def enum_values():
    return {("hipblas", "hipblasOperation_t", "HIPBLAS_OP_T"): chipblas.HIPBLAS_OP_T,
            ("hiprand", "hiprandRngType", "HIPRAND_RNG_PSEUDO_DEFAULT"): chiprand.HIPRAND_RNG_PSEUDO_DEFAULT,
            ("hipsparse", "hipsparseIndexBase_t", "HIPSPARSE_INDEX_BASE_ONE"): chipsparse.HIPSPARSE_INDEX_BASE_ONE,
            ("hipfft", "hipfftType_t", "HIPFFT_C2C"): chipfft.HIPFFT_C2C,
            ("hipsolver", "hipsolverEigMode_t", "HIPSOLVER_EIG_MODE_VECTOR"): chipsolver.HIPSOLVER_EIG_MODE_VECTOR,
            ("rccl", "ncclDataType_t", "ncclFloat32"): crccl.ncclFloat32,
            ("rocfft", "rocfft_precision_e", "rocfft_precision_half"): crocfft.rocfft_precision_half,
            ("amd_comgr", "amd_comgr_data_kind_s", "AMD_COMGR_DATA_KIND_EXECUTABLE"):
                camd_comgr.AMD_COMGR_DATA_KIND_EXECUTABLE,
            ("amdsmi", "amdsmi_status_t", "AMDSMI_STATUS_INVAL"): camdsmi.AMDSMI_STATUS_INVAL,
            ("miopen", "miopenDataType_t", "miopenBFloat16"): cmiopen.miopenBFloat16}
'''


@pytest.fixture(scope="module")
def cimported_libs(include64, tmp_path_factory):
    """One C++ extension cimporting the library C layers (cython ~8 s, g++ ~2 s)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    d = tmp_path_factory.mktemp("cimport_libs")
    name = "hip_cimport_libs_probe"
    (d / f"{name}.pyx").write_text(PYX_LIBS)
    r = subprocess.run([sys.executable, "-m", "cython", "-3", "--cplus", "-I", str(ROOT), f"{name}.pyx"],
                       cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, f"cython failed:\n{r.stderr[-4000:]}"
    so = d / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    defines = dict.fromkeys(f"-D{d}" for lib in ("hip", *LAYERS) for d in specmod.load(lib).defines)
    cmd = [gxx, "-shared", "-fPIC", "-O0", "-w", "-std=c++17", *defines,
           f"-I{sysconfig.get_paths()['include']}", f"-I{include64}", f"-I{ROOT}",
           f"{name}.cpp", "-o", str(so)]
    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, f"g++ failed:\n{r.stderr[-4000:]}"
    sys.path.insert(0, str(d))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(d))


def _loadable(lib):
    """The library's path if the package can load it here, else None (decided by trying)."""
    import hip as pkg
    mod = importlib.import_module(f"hip.{lib}")
    try:
        return mod._library.load()
    except pkg.LibraryNotFoundError:
        return None


def test_cimport_libs_types_match_python_layer(cimported_libs):
    for (lib, cls), size in cimported_libs.sizes().items():
        assert getattr(importlib.import_module(f"hip.{lib}"), cls)._size_ == size, cls
    for (lib, enum, member), value in cimported_libs.enum_values().items():
        py = getattr(getattr(importlib.import_module(f"hip.{lib}"), enum), member)
        assert int(py) == value, member


def test_cimport_hiprand_matches_c(cimported_libs):
    path = _loadable("hiprand")
    if path is None:
        pytest.skip("no hipRAND library here")
    ref = ctypes.CDLL(path)
    v = ctypes.c_int(-1)
    rc = ref.hiprandGetVersion(ctypes.byref(v))
    assert cimported_libs.hiprand_version() == (rc, v.value)
    from hip import hiprand
    rng = int(hiprand.hiprandRngType.HIPRAND_RNG_PSEUDO_DEFAULT)
    g = ctypes.c_void_p()
    rc = ref.hiprandCreateGenerator(ctypes.byref(g), rng)
    if rc == 0:
        ref.hiprandDestroyGenerator(g)
    err, gen = cimported_libs.hiprand_create_generator(rng)
    assert err == rc
    from conftest import gpu_available
    if not gpu_available()[0]:
        assert err != 0 and gen == 0      # no device: an error status, no generator


def test_cimport_hipsparse_matches_c(cimported_libs):
    path = _loadable("hipsparse")
    if path is None:
        pytest.skip("no hipSPARSE library here")
    ref = ctypes.CDLL(path)
    v = ctypes.c_int(-1)
    rc = ref.hipsparseGetVersion(None, ctypes.byref(v))
    assert cimported_libs.hipsparse_version(0) == (rc, v.value)
    assert rc != 0                         # a NULL handle is refused


@pytest.mark.parametrize("lib,call", [("hipblas", "hipblas_create"), ("hipfft", "hipfft_version"),
                                      ("hipsolver", "hipsolver_create"), ("rccl", "nccl_version"),
                                      ("rocfft", "rocfft_version"), ("amdsmi", "amdsmi_init"),
                                      ("miopen", "miopen_version"), ("amd_comgr", "comgr_version")])
def test_cimport_missing_library_raises(cimported_libs, lib, call):
    """Through the C layer too, a library that is not installed is a LibraryNotFoundError
    (the `except?` status of every C-layer function carries it out of `nogil` code)."""
    import hip as pkg
    if _loadable(lib) is not None:
        result = getattr(cimported_libs, call)()
        assert isinstance(result, (int, tuple))
        return
    with pytest.raises(pkg.LibraryNotFoundError) as ei:
        getattr(cimported_libs, call)()
    assert ei.value.library == lib


def test_cimport_comgr_matches_c(cimported_libs):
    """Comgr runs without a GPU (bookworm's ROCm 5.2 runtime has it): the C layer's answers are C's."""
    path = _loadable("amd_comgr")
    if path is None:
        pytest.skip("no comgr library here")
    ref = ctypes.CDLL(path)
    major, minor = ctypes.c_size_t(), ctypes.c_size_t()
    ref.amd_comgr_get_version(ctypes.byref(major), ctypes.byref(minor))
    assert cimported_libs.comgr_version() == (major.value, minor.value)
    assert major.value >= 2
    assert cimported_libs.comgr_data_round_trip(b"int x;") == ([0] * 5, b"int x;")


# -- rocBLAS and rocSOLVER (C headers: one C module) ----------------------------------------------
PYX_ROC = '''
# cython: language_level=3
from hip cimport crocblas, crocsolver

def rocblas_create():
    cdef crocblas.rocblas_handle h = NULL
    cdef crocblas.rocblas_status err
    with nogil:
        err = crocblas.rocblas_create_handle(&h)
    if err == crocblas.rocblas_status_success:
        crocblas.rocblas_destroy_handle(h)
    return int(err)

def rocsolver_version_size():
    cdef size_t n = 0
    cdef crocblas.rocblas_status err
    with nogil:
        err = crocsolver.rocsolver_get_version_string_size(&n)
    return int(err), n

def sizes():
    return {("rocblas", "rocblas_float_complex"): sizeof(crocblas.rocblas_float_complex),
            ("rocblas", "rocblas_double_complex"): sizeof(crocblas.rocblas_double_complex),
            ("rocblas", "rocblas_half"): sizeof(crocblas.rocblas_half)}

def enum_values():
    return {("rocblas", "rocblas_operation", "rocblas_operation_transpose"): crocblas.rocblas_operation_transpose,
            ("rocblas", "rocblas_status", "rocblas_status_invalid_handle"): crocblas.rocblas_status_invalid_handle,
            ("rocsolver", "rocblas_svect", "rocblas_svect_singular"): crocsolver.rocblas_svect_singular}
'''


@pytest.fixture(scope="module")
def cimported_roc(include64, tmp_path_factory):
    pytest.importorskip("hip.rocsolver", reason="hip.rocblas and hip.rocsolver are not built")
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    d = tmp_path_factory.mktemp("cimport_roc")
    with built(d, "hip_cimport_roc_probe", PYX_ROC, ROOT, ["-D__HIP_PLATFORM_AMD__", f"-I{include64}"]) as module:
        yield module


def test_cimport_roc_types_match_python_layer(cimported_roc):
    for (lib, cls), size in cimported_roc.sizes().items():
        assert getattr(importlib.import_module(f"hip.{lib}"), cls)._size_ == size, cls
    for (lib, enum, member), value in cimported_roc.enum_values().items():
        assert int(getattr(getattr(importlib.import_module(f"hip.{lib}"), enum), member)) == value, member


@pytest.mark.parametrize("lib,call", [("rocblas", "rocblas_create"), ("rocsolver", "rocsolver_version_size")])
def test_cimport_roc_missing_library_raises(cimported_roc, lib, call):
    """rocBLAS's and rocSOLVER's C layers load their library on first use, as the others do."""
    import hip as pkg
    if _loadable(lib) is not None:
        assert isinstance(getattr(cimported_roc, call)(), (int, tuple))
        return
    with pytest.raises(pkg.LibraryNotFoundError) as ei:
        getattr(cimported_roc, call)()
    assert ei.value.library == lib
