"""NVRTC to a CUBIN for sm_XX, and what a module offers.

Name expressions of template kernels (nvrtcAddNameExpression / nvrtcGetLoweredName), a CUBIN loaded
from bytes (cuModuleLoadData) and through cuModuleLoadDataEx, a __device__ variable reached with
cuModuleGetGlobal, dynamic shared memory, a function that does not exist, and a compile error with
its log.
"""
import ctypes

import numpy as np

from cuda.bindings import driver, nvrtc


def check(result):
    err = result[0]
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error {err.name}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC error {err.name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
__device__ float scale_factor = 2.0f;

template <typename T>
__global__ void fill(T *out, T value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value;
}

extern "C" __global__ void scale_by_global(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= scale_factor;
}

extern "C" __global__ void reverse_each_block(int *x)
{
    extern __shared__ int tile[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    tile[t] = x[base + t];
    __syncthreads();
    x[base + t] = tile[blockDim.x - 1 - t];
}
"""
NAMES = [b"fill<int>", b"fill<float>"]


def program_log(prog):
    size = check(nvrtc.nvrtcGetProgramLogSize(prog))
    log = b" " * size
    check(nvrtc.nvrtcGetProgramLog(prog, log))
    return log.rstrip(b"\x00").decode(errors="replace")


def main():
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    major = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    context = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(context))
    arch = f"--gpu-architecture=sm_{major}{minor}".encode()

    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"module.cu", 0, None, None))
    for name in NAMES:
        check(nvrtc.nvrtcAddNameExpression(prog, name))
    opts = [arch, b"--std=c++17", b"-lineinfo"]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    print("compile:", err.name)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        print(program_log(prog))
        raise SystemExit(1)
    lowered = {name: check(nvrtc.nvrtcGetLoweredName(prog, name)) for name in NAMES}
    for name, low in lowered.items():
        print(f"lowered name of {name.decode()} is a mangled C++ name:", low.startswith(b"_Z"))
    cubin_size = check(nvrtc.nvrtcGetCUBINSize(prog))
    cubin = b" " * cubin_size
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    check(nvrtc.nvrtcDestroyProgram(prog))
    print("CUBIN produced:", cubin_size > 0)

    module = check(driver.cuModuleLoadData(cubin))
    module_ex = check(driver.cuModuleLoadDataEx(cubin, 0, [], []))

    n = 1000
    threads = 128
    blocks = (n + threads - 1) // threads
    d_int = check(driver.cuMemAlloc(n * 4))
    d_float = check(driver.cuMemAlloc(n * 4))

    fill_int = check(driver.cuModuleGetFunction(module, lowered[b"fill<int>"]))
    fill_float = check(driver.cuModuleGetFunction(module_ex, lowered[b"fill<float>"]))
    check(driver.cuLaunchKernel(fill_int, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d_int, -42, n), (None, ctypes.c_int, ctypes.c_int)), 0))
    check(driver.cuLaunchKernel(fill_float, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d_float, 1.25, n), (None, ctypes.c_float, ctypes.c_int)), 0))
    check(driver.cuCtxSynchronize())
    ints = np.empty(n, dtype=np.int32)
    floats = np.empty(n, dtype=np.float32)
    check(driver.cuMemcpyDtoH(ints, d_int, ints.nbytes))
    check(driver.cuMemcpyDtoH(floats, d_float, floats.nbytes))
    print("fill<int>(-42):", bool((ints == -42).all()), "fill<float>(1.25):", bool((floats == 1.25).all()))

    # a __device__ variable: read it, then change it from the host
    d_scale, scale_size = check(driver.cuModuleGetGlobal(module, b"scale_factor"))
    print("scale_factor has", scale_size, "bytes")
    scale = np.zeros(1, dtype=np.float32)
    check(driver.cuMemcpyDtoH(scale, d_scale, scale_size))
    print("scale_factor starts at", float(scale[0]))
    check(driver.cuMemcpyHtoD(d_scale, np.array([3.0], dtype=np.float32), scale_size))
    x = np.arange(n, dtype=np.float32)
    check(driver.cuMemcpyHtoD(d_float, x, x.nbytes))
    scale_by_global = check(driver.cuModuleGetFunction(module, b"scale_by_global"))
    check(driver.cuLaunchKernel(scale_by_global, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d_float, n), (None, ctypes.c_int)), 0))
    check(driver.cuMemcpyDtoH(floats, d_float, floats.nbytes))
    print("scaled by the new global:", np.array_equal(floats, 3 * x))
    # the other module has its own copy of the global
    d_scale_ex, _ = check(driver.cuModuleGetGlobal(module_ex, b"scale_factor"))
    check(driver.cuMemcpyDtoH(scale, d_scale_ex, scale_size))
    print("the other module's scale_factor:", float(scale[0]))

    # dynamic shared memory
    block = 64
    data = np.arange(block * 4, dtype=np.int32)
    check(driver.cuMemcpyHtoD(d_int, data, data.nbytes))
    reverse = check(driver.cuModuleGetFunction(module, b"reverse_each_block"))
    check(driver.cuLaunchKernel(reverse, 4, 1, 1, block, 1, 1, block * 4, 0, ((d_int,), (None,)), 0))
    got = np.empty(block * 4, dtype=np.int32)
    check(driver.cuMemcpyDtoH(got, d_int, got.nbytes))
    print("blocks reversed in shared memory:", np.array_equal(got, data.reshape(4, block)[:, ::-1].ravel()))

    err, _ = driver.cuModuleGetFunction(module, b"no_such_kernel")
    print("cuModuleGetFunction of a missing kernel:", err.name)

    # a compile error: status, and a log that says where
    bad = check(nvrtc.nvrtcCreateProgram(b'extern "C" __global__ void broken(int *x) { x[0] = undefined_name; }\n',
                                         b"broken.cu", 0, [], []))
    err, = nvrtc.nvrtcCompileProgram(bad, 1, [arch])
    print("compile of broken code:", err.name)
    log = program_log(bad)
    print("the log names the file and the identifier:", "broken.cu" in log and "undefined_name" in log)
    check(nvrtc.nvrtcDestroyProgram(bad))

    check(driver.cuMemFree(d_int))
    check(driver.cuMemFree(d_float))
    check(driver.cuModuleUnload(module))
    check(driver.cuModuleUnload(module_ex))
    check(driver.cuDevicePrimaryCtxRelease(device))
    print("done")


if __name__ == "__main__":
    main()
