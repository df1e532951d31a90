"""Pinned and mapped host memory.

cudaHostAlloc with cudaHostAllocMapped and cudaHostGetDevicePointer (a kernel writes host memory
directly), cudaHostGetFlags, cudaMallocHost, cudaHostRegister of a NumPy array (mapped, then written by
a kernel in place) and cudaHostUnregister, and the driver's cuMemHostAlloc / cuMemHostGetDevicePointer /
cuMemAllocHost / cuMemFreeHost.
"""
import ctypes

import numpy as np

from cuda.bindings import driver, nvrtc, runtime


def check(result):
    err = result[0]
    if isinstance(err, runtime.cudaError_t) and err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error {err.name}")
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err.name}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC error {err.name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
extern "C" __global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

extern "C" __global__ void increment(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1;
}
"""


def host_array(address, count, dtype=np.int32):
    buf = (ctypes.c_byte * (count * np.dtype(dtype).itemsize)).from_address(int(address))
    return np.frombuffer(buf, dtype=dtype)


def main():
    check(driver.cuInit(0))
    check(runtime.cudaSetDevice(0))
    prop = check(runtime.cudaGetDeviceProperties(0))
    print("canMapHostMemory:", prop.canMapHostMemory, "unifiedAddressing:", prop.unifiedAddressing)
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"pinned.cu", 0, [], []))
    opts = [f"--gpu-architecture=sm_{prop.major}{prop.minor}".encode()]
    check(nvrtc.nvrtcCompileProgram(prog, 1, opts))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    squares = check(driver.cuModuleGetFunction(module, b"squares"))
    increment = check(driver.cuModuleGetFunction(module, b"increment"))

    n = 4096
    threads, blocks = 256, 4096 // 256
    expect = np.arange(n, dtype=np.int32) ** 2

    # zero-copy: the kernel writes host memory
    h_mapped = check(runtime.cudaHostAlloc(n * 4, runtime.cudaHostAllocMapped))
    flags = check(runtime.cudaHostGetFlags(h_mapped))
    print("cudaHostGetFlags has cudaHostAllocMapped:", flags & runtime.cudaHostAllocMapped != 0)
    d_mapped = check(runtime.cudaHostGetDevicePointer(h_mapped, 0))
    host_array(h_mapped, n)[:] = -1
    check(driver.cuLaunchKernel(squares, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d_mapped, n), (ctypes.c_void_p, ctypes.c_int)), 0))
    check(runtime.cudaDeviceSynchronize())
    print("kernel wrote mapped host memory:", np.array_equal(host_array(h_mapped, n), expect))
    attrs = check(runtime.cudaPointerGetAttributes(h_mapped))
    print("mapped memory is", attrs.type.name)

    # plain pinned memory for copies
    h_pinned = check(runtime.cudaMallocHost(n * 4))
    d = check(runtime.cudaMalloc(n * 4))
    check(runtime.cudaMemcpy(d, h_mapped, n * 4, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    check(runtime.cudaMemcpy(h_pinned, d, n * 4, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    print("pinned copy of the squares:", np.array_equal(host_array(h_pinned, n), expect))

    # registering NumPy memory (page-aligned, as registration works in pages)
    raw = np.zeros(n + 4096 // 4, dtype=np.int32)
    start = (-raw.ctypes.data % 4096) // 4
    array = raw[start:start + n]
    array[:] = np.arange(n, dtype=np.int32)
    check(runtime.cudaHostRegister(array.ctypes.data, array.nbytes, runtime.cudaHostRegisterMapped))
    d_array = check(runtime.cudaHostGetDevicePointer(array.ctypes.data, 0))
    check(driver.cuLaunchKernel(increment, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d_array, n), (ctypes.c_void_p, ctypes.c_int)), 0))
    check(runtime.cudaDeviceSynchronize())
    print("kernel incremented a registered NumPy array in place:",
          np.array_equal(array, np.arange(n, dtype=np.int32) + 1))
    print("registered memory is", check(runtime.cudaPointerGetAttributes(array.ctypes.data)).type.name)
    check(runtime.cudaHostUnregister(array.ctypes.data))
    print("after cudaHostUnregister it is", check(runtime.cudaPointerGetAttributes(array.ctypes.data)).type.name)

    # the driver's host allocations
    p = check(driver.cuMemHostAlloc(n * 4, driver.CU_MEMHOSTALLOC_DEVICEMAP))
    dp = check(driver.cuMemHostGetDevicePointer(p, 0))
    host_array(p, n)[:] = 0
    check(driver.cuLaunchKernel(squares, blocks, 1, 1, threads, 1, 1, 0, 0, ((dp, n), (None, ctypes.c_int)), 0))
    check(driver.cuCtxSynchronize())
    print("cuMemHostAlloc mapped memory written by a kernel:", np.array_equal(host_array(p, n), expect))
    q = check(driver.cuMemAllocHost(n * 4))
    check(driver.cuMemcpyDtoH(q, dp, n * 4))
    print("cuMemAllocHost copy:", np.array_equal(host_array(q, n), expect))
    check(driver.cuMemFreeHost(p))
    check(driver.cuMemFreeHost(q))

    check(runtime.cudaFree(d))
    check(runtime.cudaFreeHost(h_pinned))
    check(runtime.cudaFreeHost(h_mapped))
    check(driver.cuModuleUnload(module))
    print("done")


if __name__ == "__main__":
    main()
