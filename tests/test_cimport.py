"""Cython users can `cimport` the C layer and call HIP without the GIL.

A tiny .pyx is compiled (cython + gcc, a few seconds) against hip/chip.pxd and
hip/chiprtc.pxd and imported; its answers are compared with ctypes calls into
the library the package loads.
"""
from __future__ import annotations

import ctypes
import importlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import ROOT

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
    (d / f"{name}.pyx").write_text(PYX)
    r = subprocess.run([sys.executable, "-m", "cython", "-3", "-I", str(ROOT), f"{name}.pyx"],
                       cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, f"cython failed:\n{r.stderr[-4000:]}"
    so = d / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = ["gcc", "-shared", "-fPIC", "-O0", "-w", "-D__HIP_PLATFORM_AMD__",
           f"-I{sysconfig.get_paths()['include']}", f"-I{include64}", f"-I{ROOT}",
           f"{name}.c", "-o", str(so)]
    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, f"gcc failed:\n{r.stderr[-4000:]}"
    sys.path.insert(0, str(d))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(d))


@pytest.fixture(scope="module")
def clib():
    from hip import hip
    return ctypes.CDLL(hip._library.load())


def test_cimport_device_count(cimported, clib):
    n = ctypes.c_int(-1)
    rc = clib.hipGetDeviceCount(ctypes.byref(n))
    assert cimported.device_count() == (rc, n.value)
    from conftest import gpu_available
    if not gpu_available()[0]:
        assert cimported.device_count() == (100, 0)          # hipErrorNoDevice


def test_cimport_runtime_version(cimported, clib):
    v = ctypes.c_int(-1)
    assert clib.hipRuntimeGetVersion(ctypes.byref(v)) == 0
    assert cimported.runtime_version() == (0, v.value)


def test_cimport_hiprtc_version(cimported):
    from hip import hiprtc
    ref = ctypes.CDLL(hiprtc._library.load())
    major, minor = ctypes.c_int(), ctypes.c_int()
    assert ref.hiprtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0
    assert cimported.rtc_version() == (0, major.value, minor.value)


def test_cimport_types_match_python_layer(cimported):
    from hip import hip
    assert cimported.dim3_size() == hip.dim3._size_
