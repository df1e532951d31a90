"""Occupancy queries and function attributes.

cuOccupancyMaxActiveBlocksPerMultiprocessor for a range of block sizes, with dynamic shared memory and
for a kernel with a large static shared array; cuOccupancyMaxPotentialBlockSize (no block-size-to-
shared-memory callback) and a launch with what it suggests; cuOccupancyAvailableDynamicSMemPerBlock;
cuFuncGetAttribute; cuFuncSetAttribute to opt in to more than 48 KiB of dynamic shared memory, and the
launch that fails without it.
"""
import ctypes

import numpy as np

from cuda.bindings import driver, nvrtc


def check(result):
    err = result[0]
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err.name}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC error {err.name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
extern "C" __global__ void light(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 2.0f * x[i];
}

extern "C" __global__ void static_shared(float *x)
{
    __shared__ float tile[8192];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void dynamic_shared(int *out, int words)
{
    extern __shared__ int buffer[];
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        buffer[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long sum = 0;
        for (int i = 0; i < words; ++i)
            sum += buffer[i];
        out[blockIdx.x] = (int)(sum % 1000003);
    }
}
"""
Attr = driver.CUfunction_attribute
Dev = driver.CUdevice_attribute


def main():
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    context = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(context))
    major = check(driver.cuDeviceGetAttribute(Dev.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(Dev.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    sms = check(driver.cuDeviceGetAttribute(Dev.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))
    optin = check(driver.cuDeviceGetAttribute(Dev.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device))
    print("threads per SM:", check(driver.cuDeviceGetAttribute(Dev.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device)))
    print("blocks per SM:", check(driver.cuDeviceGetAttribute(Dev.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, device)))
    print("opt-in shared memory per block is above 48 KiB:", optin > 48 * 1024)

    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"occupancy.cu", 0, [], []))
    opts = [f"--gpu-architecture=sm_{major}{minor}".encode(), b"--maxrregcount=32"]
    check(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    light = check(driver.cuModuleGetFunction(module, b"light"))
    static_shared = check(driver.cuModuleGetFunction(module, b"static_shared"))
    dynamic_shared = check(driver.cuModuleGetFunction(module, b"dynamic_shared"))

    print("light: max threads per block", check(driver.cuFuncGetAttribute(Attr.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, light)))
    print("light: uses at most 32 registers:", 0 < check(driver.cuFuncGetAttribute(Attr.CU_FUNC_ATTRIBUTE_NUM_REGS, light)) <= 32)
    print("light: binary version", check(driver.cuFuncGetAttribute(Attr.CU_FUNC_ATTRIBUTE_BINARY_VERSION, light)))
    print("static_shared: static shared bytes",
          check(driver.cuFuncGetAttribute(Attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, static_shared)))

    per_block = {b: check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(light, b, 0))
                 for b in (32, 64, 128, 256, 512, 1024)}
    print("light: active blocks per SM by block size:", per_block)
    print("light, 256 threads, 40 KiB dynamic shared:",
          check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(light, 256, 40 * 1024)))
    print("static_shared, 256 threads:", check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(static_shared, 256, 0)))
    # cuOccupancyAvailableDynamicSMemPerBlock is not called: HIP 6.4 has no counterpart (docs/alias.rst,
    # "What maps and what does not"), so the alias answers CUDA_ERROR_NOT_SUPPORTED by design.

    min_grid, block = check(driver.cuOccupancyMaxPotentialBlockSize(light, None, 0, 0))
    print("suggested block size", block, "and a grid of", min_grid // sms, "blocks per SM")
    limited = check(driver.cuOccupancyMaxPotentialBlockSize(light, None, 0, 128))
    print("suggested with a 128-thread limit:", limited[1])
    n = min_grid * block
    x = np.arange(n, dtype=np.float32)
    d_x = check(driver.cuMemAlloc(x.nbytes))
    check(driver.cuMemcpyHtoD(d_x, x, x.nbytes))
    check(driver.cuLaunchKernel(light, min_grid, 1, 1, block, 1, 1, 0, 0, ((d_x, n), (None, ctypes.c_int)), 0))
    out = np.empty_like(x)
    check(driver.cuMemcpyDtoH(out, d_x, out.nbytes))
    print("launch with the suggested configuration:", np.array_equal(out, 2 * x))

    # more than 48 KiB of dynamic shared memory needs an opt-in
    words = 64 * 1024 // 4
    blocks = 8
    d_out = check(driver.cuMemAlloc(blocks * 4))
    args = ((d_out, words), (None, ctypes.c_int))
    err, = driver.cuLaunchKernel(dynamic_shared, blocks, 1, 1, 256, 1, 1, words * 4, 0, args, 0)
    print("64 KiB of dynamic shared memory without opting in:", err.name)
    check(driver.cuFuncSetAttribute(dynamic_shared, Attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, words * 4))
    print("opted in to", check(driver.cuFuncGetAttribute(Attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                          dynamic_shared)), "bytes")
    print("active blocks per SM with 64 KiB each:",
          check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(dynamic_shared, 256, words * 4)))
    check(driver.cuLaunchKernel(dynamic_shared, blocks, 1, 1, 256, 1, 1, words * 4, 0, args, 0))
    got = np.zeros(blocks, dtype=np.int32)
    check(driver.cuMemcpyDtoH(got, d_out, got.nbytes))
    print("64 KiB of dynamic shared memory after opting in:", got.tolist() == [sum(range(words)) % 1000003] * blocks)

    check(driver.cuMemFree(d_x))
    check(driver.cuMemFree(d_out))
    check(driver.cuModuleUnload(module))
    check(driver.cuDevicePrimaryCtxRelease(device))
    print("done")


if __name__ == "__main__":
    main()
