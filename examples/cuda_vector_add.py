"""Vector add with the CUDA driver API and NVRTC, written for NVIDIA's cuda-bindings 13.

Runs unchanged with NVIDIA's package (`python cuda_vector_add.py`) or on HIP through this project's
alias (`python -m hip_as_cuda cuda_vector_add.py`). Exits 77 without cuda.bindings or a GPU.
"""
import ctypes
import sys

import numpy as np

try:
    from cuda.bindings import driver, nvrtc
except ImportError as e:
    print(f"skipped: cuda.bindings is not importable ({e}); run with python -m hip_as_cuda")
    sys.exit(77)


def check(result):
    """cuda.bindings returns (status, values...): give the values, raise on an error status."""
    err = result[0]
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error: {err.name}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC error: {err.name}")
    return None if len(result) == 1 else result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
"""

try:
    err, = driver.cuInit(0)
except RuntimeError as e:              # NVIDIA's package on a machine without the CUDA driver
    print(f"skipped: {e}")
    sys.exit(77)
if err != driver.CUresult.CUDA_SUCCESS or check(driver.cuDeviceGetCount()) == 0:
    print(f"skipped: no GPU ({err.name})")
    sys.exit(77)

device = check(driver.cuDeviceGet(0))
context = check(driver.cuDevicePrimaryCtxRetain(device))
check(driver.cuCtxSetCurrent(context))
major = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
minor = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))

# compile for this device (on AMD the alias turns sm_XX into the device's gfx target)
prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"vector_add.cu", 0, [], []))
opts = [f"--gpu-architecture=sm_{major}{minor}".encode()]
err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
    log = b" " * check(nvrtc.nvrtcGetProgramLogSize(prog))
    check(nvrtc.nvrtcGetProgramLog(prog, log))
    raise RuntimeError(log.decode())
cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
check(nvrtc.nvrtcGetCUBIN(prog, cubin))
check(nvrtc.nvrtcDestroyProgram(prog))
module = check(driver.cuModuleLoadData(cubin))
kernel = check(driver.cuModuleGetFunction(module, b"vector_add"))

n = 1_000_000
a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
b = np.random.default_rng(1).standard_normal(n).astype(np.float32)
c = np.empty_like(a)
d_a, d_b, d_c = (check(driver.cuMemAlloc(a.nbytes)) for _ in range(3))
stream = check(driver.cuStreamCreate(0))
check(driver.cuMemcpyHtoDAsync(d_a, a, a.nbytes, stream))
check(driver.cuMemcpyHtoDAsync(d_b, b, b.nbytes, stream))

# kernel arguments as (values, ctypes types); None marks a CUdeviceptr
args = ((d_a, d_b, d_c, n), (None, None, None, ctypes.c_int))
threads = 256
check(driver.cuLaunchKernel(kernel, (n + threads - 1) // threads, 1, 1, threads, 1, 1, 0, stream, args, 0))
check(driver.cuMemcpyDtoHAsync(c, d_c, c.nbytes, stream))
check(driver.cuStreamSynchronize(stream))
assert np.array_equal(c, a + b)
print(f"vector_add of {n} floats on sm_{major}{minor}: matches NumPy")

for d in (d_a, d_b, d_c):
    check(driver.cuMemFree(d))
check(driver.cuStreamDestroy(stream))
check(driver.cuModuleUnload(module))
check(driver.cuDevicePrimaryCtxRelease(device))
print("ok")
