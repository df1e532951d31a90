"""Cython users `cimport cuda.bindings.cydriver` (and cyruntime, cynvrtc) as with NVIDIA's
cuda-bindings, and call CUDA's C API without the GIL: the calls reach HIP through the alias.

A tiny .pyx is compiled against the alias's .pxd files (CUDA's headers on the include path, as
NVIDIA's need too) and its answers compared with the alias's Python layer.
"""
from __future__ import annotations

import os
import shutil

import pytest

from conftest import ROOT
from cython_probe import built

pytest.importorskip("cuda.bindings.cydriver", reason="the cuda alias is not built")

PYX = '''
# cython: language_level=3
from cuda.bindings cimport cydriver, cyruntime, cynvrtc

def device_count():
    cdef int n = -1
    cdef cyruntime.cudaError_t err
    with nogil:
        err = cyruntime.cudaGetDeviceCount(&n)
    return int(err), n

def driver_device_count():
    cdef int n = -1
    cdef cydriver.CUresult err
    with nogil:
        err = cydriver.cuDeviceGetCount(&n)
    return int(err), n

def nvrtc_version():
    cdef int major = -1, minor = -1
    cdef cynvrtc.nvrtcResult err
    with nogil:
        err = cynvrtc.nvrtcVersion(&major, &minor)
    return int(err), major, minor
'''


def _cuda_include() -> str | None:
    from build_support.cuda import ALIAS_CUDA, ALIAS_HEADERS
    pypi = ROOT / "build" / "cuda-pypi"   # the build's fetch (build_support.cuda.alias_include), the layer's
    for d in (os.environ.get("HIP_PYTHON_CUDA_INCLUDE", ""), pypi / ("alias-%d.%d" % ALIAS_CUDA) / "include",
              pypi / "include", "/usr/local/cuda/include"):
        if d and all(os.path.isfile(os.path.join(d, h)) for h in ALIAS_HEADERS):
            return str(d)
    return None


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    inc = _cuda_include()
    if shutil.which("gcc") is None or inc is None:
        pytest.skip("no gcc, or no CUDA headers (cuda.h, cuda_runtime_api.h, nvrtc.h) to compile against")
    d = tmp_path_factory.mktemp("alias_cimport")
    name = "alias_cimport_probe"
    from codegen.alias.modules import load_specs
    stand_ins = [f"-I{p}" for s in load_specs().values() for p in s.include_paths()]   # EGL/, GL/, vdpau/
    with built(d, name, PYX, ROOT / "hip_as_cuda", [f"-I{inc}", *stand_ins]) as module:
        yield module


@pytest.mark.runtime
def test_cimported_calls_answer_as_the_python_layer(probe):
    from cuda.bindings import driver, nvrtc, runtime
    err, n = runtime.cudaGetDeviceCount()
    assert probe.device_count() == (int(err), n if n is not None else probe.device_count()[1])
    derr, dn = driver.cuDeviceGetCount()
    assert probe.driver_device_count()[0] == int(derr)
    assert probe.nvrtc_version() == tuple(int(x) for x in nvrtc.nvrtcVersion())


# cuda.bindings' handle classes have `_pvt_ptr`, a pointer to the handle, as a member of each
# class's own object struct: C and C++ code reads it there (cuda.core's `get_cuda_native_handle`
# template takes `obj->_pvt_ptr`); a class derived from another (runtime's cudaStream_t) has its
# base's. The macro reads the member of the class's own struct, as that template does.
PVT_PYX = '''
# cython: language_level=3
from libc.stdint cimport intptr_t
from cuda.bindings cimport cydriver, cynvrtc, cyruntime
from cuda.bindings.driver cimport CUstream, CUevent
from cuda.bindings.nvrtc cimport nvrtcProgram
from cuda.bindings.runtime cimport cudaKernel_t, cudaStream_t

cdef extern from *:
    """
    #define OWN_PVT(o) ((intptr_t)*((o)->_pvt_ptr))
    """
    intptr_t own_stream "OWN_PVT"(CUstream)
    intptr_t own_event "OWN_PVT"(CUevent)
    intptr_t own_program "OWN_PVT"(nvrtcProgram)
    intptr_t own_kernel "OWN_PVT"(cudaKernel_t)

def read(CUstream s, CUevent e, nvrtcProgram p, cudaKernel_t k, cudaStream_t rs):
    return own_stream(s), own_event(e), own_program(p), own_kernel(k), <intptr_t>rs._pvt_ptr[0]

def write(CUstream s, intptr_t value):
    s._pvt_ptr[0] = <cydriver.CUstream>value
'''


@pytest.fixture(scope="module")
def pvt_probe(tmp_path_factory):
    from build_support.cuda import alias_include
    inc = alias_include(str(ROOT), log=lambda *a: None, fetch=False)   # the classes name 13.3's handles
    if shutil.which("gcc") is None or inc is None:
        pytest.skip("no gcc, or not the CUDA headers the alias is generated from to compile against")
    from codegen.alias.modules import load_specs
    stand_ins = [f"-I{p}" for s in load_specs().values() for p in s.include_paths()]
    with built(tmp_path_factory.mktemp("alias_pvt"), "alias_pvt_probe", PVT_PYX, [ROOT / "hip_as_cuda", ROOT],
               [f"-I{inc}", *stand_ins]) as module:
        yield module


def test_handle_pvt_ptr_points_at_the_handle(pvt_probe):
    from cuda.bindings import driver, nvrtc, runtime
    objs = (driver.CUstream(0x1234), driver.CUevent(0x5678), nvrtc.nvrtcProgram(0x9abc),
            runtime.cudaKernel_t(0xdef0), runtime.cudaStream_t(0x4321))
    assert pvt_probe.read(*objs) == (0x1234, 0x5678, 0x9abc, 0xdef0, 0x4321)
    fresh = driver.CUstream.__new__(driver.CUstream)        # as the calls make the handles they return
    assert pvt_probe.read(fresh, *objs[1:])[0] == 0
    pvt_probe.write(objs[0], 0x42)                          # cuStreamCreate(s._pvt_ptr, ...) in Cython
    assert int(objs[0]) == 0x42
