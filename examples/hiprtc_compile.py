"""Compile a HIP kernel at run time with hiprtc; shows the log of a kernel with an error.

Without a GPU it compiles for gfx90a (a code object, not runnable here)."""
import hip
from hip import hip as h, hiprtc

source = b"""
extern "C" __global__ void scale(float* x, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}
"""
err, count = h.hipGetDeviceCount()
if err == h.hipError_t.hipSuccess and count > 0:
    props = h.hipDeviceProp_t()
    hip.check(h.hipGetDeviceProperties(props, 0))
    arch = props.gcnArchName
else:
    arch = b"gfx90a"

prog = hip.check(hiprtc.hiprtcCreateProgram(source, b"scale.hip", 0, [], []))
hip.check(hiprtc.hiprtcCompileProgram(prog, 1, [b"--offload-arch=" + arch]))
size = hip.check(hiprtc.hiprtcGetCodeSize(prog))
code = bytearray(size)
hip.check(hiprtc.hiprtcGetCode(prog, code))
print(f"{arch.decode()}: {size} bytes of code, starts with {bytes(code[:4])!r}")
hip.check(hiprtc.hiprtcDestroyProgram(prog))

bad = hip.check(hiprtc.hiprtcCreateProgram(b"__global__ void k( {", b"bad.hip", 0, [], []))
err, = hiprtc.hiprtcCompileProgram(bad, 1, [b"--offload-arch=" + arch])
assert err == hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION
log = bytearray(hip.check(hiprtc.hiprtcGetProgramLogSize(bad)))
hip.check(hiprtc.hiprtcGetProgramLog(bad, log))
print("the compiler said:", log.decode(errors="replace").splitlines()[0])
print("ok")
