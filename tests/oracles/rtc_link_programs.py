"""The two programs hiprtc links in the GPU tests (one defines a __device__ function, the other a
kernel calling it through an extern declaration), a third that never links, their -fgpu-rdc
bitcode, and the launch of the linked image checked against NumPy: shared by tests/hip's hiprtc
link tests (test_rtc_link_gpu.py) and tests/alias's nvJitLink tests (test_alias_nvjitlink_gpu.py)."""
from __future__ import annotations

import ctypes
import math

import numpy as np

import hip
from hip import hip as h, hiprtc

R = hiprtc.hiprtcResult

DEVICE_FUNCTION = rb"""
#include <hip/hip_runtime.h>

__device__ float scale_add(float a, float x, float y) { return a * x + y; }
"""

KERNEL = rb"""
#include <hip/hip_runtime.h>

extern __device__ float scale_add(float a, float x, float y);

extern "C" __global__ void linked_axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale_add(a, x[i], y[i]);
}
"""

# Calls a function no program defines: compiles (-fgpu-rdc leaves it to the linker), never links.
UNRESOLVED = rb"""
#include <hip/hip_runtime.h>

extern __device__ float no_such_function(float x);

extern "C" __global__ void broken(float* x) { x[threadIdx.x] = no_such_function(x[threadIdx.x]); }
"""


def log_of(prog) -> str:
    n = hip.check(hiprtc.hiprtcGetProgramLogSize(prog))
    buf = bytearray(n)
    if n:
        hip.check(hiprtc.hiprtcGetProgramLog(prog, buf))
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def bitcode_of(source: bytes, name: bytes, arch: str) -> bytearray:
    """Compile `source` with -fgpu-rdc for the device; its bitcode (on NVIDIA: relocatable PTX)."""
    prog = hip.check(hiprtc.hiprtcCreateProgram(source, name, 0, None, None))
    try:
        options = [f"--offload-arch={arch}".encode(), b"-fgpu-rdc"]
        err, = hiprtc.hiprtcCompileProgram(prog, len(options), options)
        assert err == R.HIPRTC_SUCCESS, f"{name.decode()}: {err!r}\n{log_of(prog)}"
        size = hip.check(hiprtc.hiprtcGetBitcodeSize(prog))
        assert size > 0
        code = bytearray(size)
        hip.check(hiprtc.hiprtcGetBitcode(prog, code))
        return code
    finally:
        hip.check(hiprtc.hiprtcDestroyProgram(prog))


def launch_and_check(image, mem, rng):
    """Load the linked image, run linked_axpy on 1000 floats, compare with NumPy."""
    mod = hip.check(h.hipModuleLoadData(image))
    try:
        f = hip.check(h.hipModuleGetFunction(mod, b"linked_axpy"))
        n = 1000
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        dx, dy = mem.put(x), mem.put(y)
        hip.check(h.hipModuleLaunchKernel(f, math.ceil(n / 256), 1, 1, 256, 1, 1, sharedMemBytes=0, stream=None,
                                          kernelParams=None, extra=(ctypes.c_float(1.5), dx, dy, ctypes.c_int(n))))
        hip.check(h.hipDeviceSynchronize())
        # the GPU may fuse a*x+y (FMA): one rounding fewer than NumPy
        np.testing.assert_allclose(mem.get(dy, n, np.float32), 1.5 * x + y, rtol=1e-5, atol=1e-6)
    finally:
        hip.check(h.hipModuleUnload(mod))
