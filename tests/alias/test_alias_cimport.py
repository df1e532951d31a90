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
