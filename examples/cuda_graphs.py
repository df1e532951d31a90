"""CUDA graphs from Python, written for NVIDIA's cuda-bindings 13: capture a stream's work once,
launch it many times.

One step of a simulation (a kernel that moves every particle by its velocity, then a copy of the
positions back to the host) is captured with cudaStreamBeginCapture / cudaStreamEndCapture,
instantiated, and launched 100 times. Runs unchanged with NVIDIA's package or on HIP through
`python -m hip_as_cuda cuda_graphs.py`. Exits 77 without cuda.bindings or a GPU.
"""
import ctypes
import sys

import numpy as np

try:
    from cuda.bindings import driver, nvrtc, runtime
except ImportError as e:
    print(f"skipped: cuda.bindings is not importable ({e}); run with python -m hip_as_cuda")
    sys.exit(77)


def check(result):
    err = result[0]
    if int(err) != 0:
        raise RuntimeError(f"{type(err).__name__}: {err.name}")
    return None if len(result) == 1 else result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
extern "C" __global__ void step(float *x, const float *v, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += v[i] * dt;
}
"""

err, count = runtime.cudaGetDeviceCount()
if err != runtime.cudaError_t.cudaSuccess or count == 0:
    print(f"skipped: no GPU ({err.name})")
    sys.exit(77)
check(runtime.cudaSetDevice(0))
check(runtime.cudaFree(0))                 # makes the device's primary context current for the driver calls
major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, 0))
minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, 0))
prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"step.cu", 0, [], []))
check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
check(nvrtc.nvrtcGetCUBIN(prog, cubin))
check(nvrtc.nvrtcDestroyProgram(prog))
module = check(driver.cuModuleLoadData(cubin))
step = check(driver.cuModuleGetFunction(module, b"step"))

n = 100_000
x = np.zeros(n, dtype=np.float32)
v = np.linspace(-1.0, 1.0, n, dtype=np.float32)
d_x = check(runtime.cudaMalloc(x.nbytes))
d_v = check(runtime.cudaMalloc(v.nbytes))
check(runtime.cudaMemcpy(d_x, x, x.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
check(runtime.cudaMemcpy(d_v, v, v.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
stream = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))

# capture one step: nothing runs now, the work is recorded into a graph
dt = 0.01
threads = 256
check(runtime.cudaStreamBeginCapture(stream, runtime.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
check(driver.cuLaunchKernel(step, (n + threads - 1) // threads, 1, 1, threads, 1, 1, 0, stream,
                            ((d_x, d_v, dt, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_int)), 0))
check(runtime.cudaMemcpyAsync(x, d_x, x.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
graph = check(runtime.cudaStreamEndCapture(stream))
_, num_nodes = check(runtime.cudaGraphGetNodes(graph))
graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))

steps = 100
for _ in range(steps):
    check(runtime.cudaGraphLaunch(graph_exec, stream))
check(runtime.cudaStreamSynchronize(stream))
expected = np.zeros(n, dtype=np.float32)
for _ in range(steps):
    expected += v * np.float32(dt)
assert np.allclose(x, expected, rtol=1e-5, atol=1e-6)
print(f"graph of {num_nodes} nodes launched {steps} times: positions match NumPy")

check(runtime.cudaGraphExecDestroy(graph_exec))
check(runtime.cudaGraphDestroy(graph))
check(runtime.cudaStreamDestroy(stream))
check(runtime.cudaFree(d_x))
check(runtime.cudaFree(d_v))
check(driver.cuModuleUnload(module))
print("ok")
