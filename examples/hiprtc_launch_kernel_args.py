"""Compile a kernel with hiprtc, load it and launch it with packed arguments (needs a GPU).

`extra=` takes the kernel's arguments as ctypes values and device pointers; they are packed
with C alignment, as in AMD's HIP Python example of the same name."""
import ctypes
import math
import random

import hip
from hip import hip as h, hiprtc

from _gpu import require_gpu

require_gpu()

source = b"""
extern "C" __global__ void scale_vector(float factor, int n, short unused1, int unused2,
                                        float unused3, float* x) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) x[i] *= factor;
}
"""
props = h.hipDeviceProp_t()
hip.check(h.hipGetDeviceProperties(props, 0))
prog = hip.check(hiprtc.hiprtcCreateProgram(source, b"scale_vector", 0, [], []))
err, = hiprtc.hiprtcCompileProgram(prog, 1, [b"--offload-arch=" + props.gcnArchName])
if err != hiprtc.hiprtcResult.HIPRTC_SUCCESS:
    log = bytearray(hip.check(hiprtc.hiprtcGetProgramLogSize(prog)))
    hip.check(hiprtc.hiprtcGetProgramLog(prog, log))
    raise RuntimeError(log.decode())
code = bytearray(hip.check(hiprtc.hiprtcGetCodeSize(prog)))
hip.check(hiprtc.hiprtcGetCode(prog, code))
module = hip.check(h.hipModuleLoadData(code))
kernel = hip.check(h.hipModuleGetFunction(module, b"scale_vector"))

n = 100
x = (ctypes.c_float * n)(*[random.random() for _ in range(n)])
expected = [v * 2.5 for v in x]
nbytes = ctypes.sizeof(x)
x_d = hip.check(h.hipMalloc(nbytes))
hip.check(h.hipMemcpy(x_d, x, nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice))
block = h.dim3(x=32)
grid = h.dim3(math.ceil(n / block.x))
hip.check(h.hipModuleLaunchKernel(
    kernel, *grid, *block, sharedMemBytes=0, stream=None, kernelParams=None,
    extra=(ctypes.c_float(2.5), ctypes.c_int(n), ctypes.c_short(5), ctypes.c_int(2),
           ctypes.c_float(5.6), x_d)))
hip.check(h.hipMemcpy(x, x_d, nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in zip(x, expected))
hip.check(h.hipFree(x_d))
hip.check(h.hipModuleUnload(module))
hip.check(hiprtc.hiprtcDestroyProgram(prog))
print("ok")
