"""Stream-ordered allocation with memory pools.

cudaMallocAsync / cudaFreeAsync on a stream in a loop with kernels between them, the default pool's
attributes (release threshold set with a cuuint64_t, reserved and used memory, the high watermark and
its reset, a reuse flag), cudaMemPoolTrimTo, an explicit pool (cudaMemPoolCreate,
cudaMallocFromPoolAsync, cudaMemPoolGetAccess, cudaDeviceSetMemPool / cudaDeviceGetMemPool, the pool a
pointer came from), and the driver's cuMemAllocAsync / cuMemFreeAsync / cuMemPoolGetAttribute.
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
extern "C" __global__ void scale_add(const float *x, float *y, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + b;
}
"""
MiB = 1 << 20
Attr = runtime.cudaMemPoolAttr


def pool_attr(pool, attr):
    return int(check(runtime.cudaMemPoolGetAttribute(pool, attr)))


def main():
    check(driver.cuInit(0))
    device = 0
    check(runtime.cudaSetDevice(device))
    supported = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrMemoryPoolsSupported, device))
    print("memory pools supported:", supported)
    major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, device))
    minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, device))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"pool.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    scale_add = check(driver.cuModuleGetFunction(module, b"scale_add"))

    n = 1 << 20
    nbytes = n * 4
    threads, blocks = 256, (1 << 20) // 256
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    stream = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))

    pool = check(runtime.cudaDeviceGetDefaultMemPool(device))
    check(runtime.cudaMemPoolSetAttribute(pool, Attr.cudaMemPoolAttrReleaseThreshold, driver.cuuint64_t(64 * MiB)))
    print("release threshold (MiB):", pool_attr(pool, Attr.cudaMemPoolAttrReleaseThreshold) // MiB)
    value = check(runtime.cudaMemPoolGetAttribute(pool, Attr.cudaMemPoolAttrReleaseThreshold))
    print("the threshold comes back as", type(value).__name__)
    print("reuse allowed opportunistically:", pool_attr(pool, Attr.cudaMemPoolReuseAllowOpportunistic))

    all_ok = True
    y = np.empty_like(x)
    for i in range(5):
        d_x = check(runtime.cudaMallocAsync(nbytes, stream))
        d_y = check(runtime.cudaMallocAsync(nbytes, stream))
        check(runtime.cudaMemcpyAsync(d_x, x, nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
        check(driver.cuLaunchKernel(scale_add, blocks, 1, 1, threads, 1, 1, 0, stream,
                                    ((d_x, d_y, 2.0, float(i), n),
                                     (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_float, ctypes.c_int)),
                                    0))
        check(runtime.cudaFreeAsync(d_x, stream))
        check(runtime.cudaMemcpyAsync(y, d_y, nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
        check(runtime.cudaFreeAsync(d_y, stream))
        check(runtime.cudaStreamSynchronize(stream))
        all_ok &= bool(np.allclose(y, 2.0 * x + i, rtol=1e-6, atol=1e-6))
    print("five rounds of allocate, compute, free on a stream:", all_ok)
    print("used memory after the frees:", pool_attr(pool, Attr.cudaMemPoolAttrUsedMemCurrent))
    print("used high watermark covers two buffers:", pool_attr(pool, Attr.cudaMemPoolAttrUsedMemHigh) >= 2 * nbytes)
    print("memory kept by the threshold:", pool_attr(pool, Attr.cudaMemPoolAttrReservedMemCurrent) >= 2 * nbytes)
    check(runtime.cudaMemPoolSetAttribute(pool, Attr.cudaMemPoolAttrUsedMemHigh, driver.cuuint64_t(0)))
    print("used high watermark after its reset:", pool_attr(pool, Attr.cudaMemPoolAttrUsedMemHigh))
    err, = runtime.cudaMemPoolSetAttribute(pool, Attr.cudaMemPoolAttrUsedMemHigh, driver.cuuint64_t(5))
    print("setting the watermark to a non-zero value:", err.name)
    check(runtime.cudaMemPoolTrimTo(pool, 0))
    print("reserved memory after cudaMemPoolTrimTo(0):", pool_attr(pool, Attr.cudaMemPoolAttrReservedMemCurrent))
    check(runtime.cudaMemPoolSetAttribute(pool, Attr.cudaMemPoolReuseAllowOpportunistic, 0))
    print("reuse allowed opportunistically, after setting 0:",
          pool_attr(pool, Attr.cudaMemPoolReuseAllowOpportunistic))
    check(runtime.cudaMemPoolSetAttribute(pool, Attr.cudaMemPoolReuseAllowOpportunistic, 1))

    # an explicit pool
    props = runtime.cudaMemPoolProps()
    props.allocType = runtime.cudaMemAllocationType.cudaMemAllocationTypePinned
    props.handleTypes = runtime.cudaMemAllocationHandleType.cudaMemHandleTypeNone
    props.location.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice
    props.location.id = device
    my_pool = check(runtime.cudaMemPoolCreate(props))
    d = check(runtime.cudaMallocFromPoolAsync(nbytes, my_pool, stream))
    check(runtime.cudaMemsetAsync(d, 0, nbytes, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("used memory of my pool:", pool_attr(my_pool, Attr.cudaMemPoolAttrUsedMemCurrent) == nbytes)
    from_pool = check(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d))
    print("the pointer knows its pool:", int(from_pool) == int(my_pool))
    check(runtime.cudaFreeAsync(d, stream))
    location = runtime.cudaMemLocation()
    location.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice
    location.id = device
    print("access of the owning device:", check(runtime.cudaMemPoolGetAccess(my_pool, location)).name)

    check(runtime.cudaDeviceSetMemPool(device, my_pool))
    current = check(runtime.cudaDeviceGetMemPool(device))
    print("cudaDeviceGetMemPool returns the pool just set:", int(current) == int(my_pool))
    d = check(runtime.cudaMallocAsync(nbytes, stream))
    check(runtime.cudaStreamSynchronize(stream))
    from_pool = check(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d))
    print("cudaMallocAsync now takes from my pool:", int(from_pool) == int(my_pool))
    check(runtime.cudaFreeAsync(d, stream))
    check(runtime.cudaStreamSynchronize(stream))
    check(runtime.cudaDeviceSetMemPool(device, pool))
    check(runtime.cudaMemPoolDestroy(my_pool))

    # the driver's stream-ordered allocator
    cu_stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    dptr = check(driver.cuMemAllocAsync(nbytes, cu_stream))
    check(driver.cuMemcpyHtoDAsync(dptr, x, nbytes, cu_stream))
    back = np.zeros_like(x)
    check(driver.cuMemcpyDtoHAsync(back, dptr, nbytes, cu_stream))
    check(driver.cuMemFreeAsync(dptr, cu_stream))
    check(driver.cuStreamSynchronize(cu_stream))
    print("cuMemAllocAsync round trip:", np.array_equal(back, x))
    cu_pool = check(driver.cuDeviceGetDefaultMemPool(check(driver.cuDeviceGet(device))))
    threshold = check(driver.cuMemPoolGetAttribute(cu_pool, driver.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD))
    print("the driver sees the same threshold (MiB):", int(threshold) // MiB)
    print("and the same pool:", int(cu_pool) == int(pool))
    check(driver.cuStreamDestroy(cu_stream))

    check(runtime.cudaStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    print("done")


if __name__ == "__main__":
    main()
