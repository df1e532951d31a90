"""Peer access between two GPUs (prints one line and exits 0 with fewer than two).

cudaDeviceCanAccessPeer both ways, cudaMemcpyPeer (works without peer access), cudaDeviceEnablePeerAccess
(twice: the second says it is already enabled), a kernel on device 0 that reads device 1's memory
directly, cudaMemcpyPeerAsync, cudaDeviceDisablePeerAccess (twice); then the driver's
cuDeviceCanAccessPeer, cuCtxEnablePeerAccess / cuCtxDisablePeerAccess between primary contexts and
cuMemcpyPeer.
"""
import ctypes
import sys

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
extern "C" __global__ void add_remote(const int *remote, int *local, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        local[i] += remote[i];
}
"""
H2D = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost


def main():
    check(driver.cuInit(0))
    count = check(runtime.cudaGetDeviceCount())
    if count < 2:
        print("peer access: fewer than 2 GPUs, nothing to check")
        return
    can_01 = check(runtime.cudaDeviceCanAccessPeer(0, 1))
    can_10 = check(runtime.cudaDeviceCanAccessPeer(1, 0))
    print("device 0 can access device 1:", can_01, "and 1 can access 0:", can_10)

    n = 1 << 20
    nbytes = n * 4
    a = np.arange(n, dtype=np.int32)
    b = (np.arange(n, dtype=np.int32) * 7) % 1000
    check(runtime.cudaSetDevice(0))
    d0 = check(runtime.cudaMalloc(nbytes))
    check(runtime.cudaMemcpy(d0, a, nbytes, H2D))
    check(runtime.cudaSetDevice(1))
    d1 = check(runtime.cudaMalloc(nbytes))
    check(runtime.cudaMemcpy(d1, b, nbytes, H2D))

    check(runtime.cudaSetDevice(0))
    check(runtime.cudaMemcpyPeer(d1, 1, d0, 0, nbytes))
    check(runtime.cudaSetDevice(1))
    out = np.zeros_like(a)
    check(runtime.cudaMemcpy(out, d1, nbytes, D2H))
    print("cudaMemcpyPeer 0 -> 1:", np.array_equal(out, a))
    check(runtime.cudaMemcpy(d1, b, nbytes, H2D))

    check(runtime.cudaSetDevice(0))
    if can_01:
        check(runtime.cudaDeviceEnablePeerAccess(1, 0))
        print("enabling peer access again:", runtime.cudaDeviceEnablePeerAccess(1, 0)[0].name)
        major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, 0))
        minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, 0))
        prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"peer.cu", 0, [], []))
        check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
        cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
        check(nvrtc.nvrtcGetCUBIN(prog, cubin))
        module = check(driver.cuModuleLoadData(cubin))  # in device 0 primary context
        add_remote = check(driver.cuModuleGetFunction(module, b"add_remote"))
        check(driver.cuLaunchKernel(add_remote, n // 256, 1, 1, 256, 1, 1, 0, 0,
                                    ((d1, d0, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)), 0))
        check(runtime.cudaMemcpy(out, d0, nbytes, D2H))
        print("kernel on device 0 read device 1's memory:", np.array_equal(out, a + b))
        check(driver.cuModuleUnload(module))
        check(runtime.cudaMemcpy(d0, a, nbytes, H2D))

    stream = check(runtime.cudaStreamCreate())
    check(runtime.cudaMemcpyPeerAsync(d0, 0, d1, 1, nbytes, stream))
    check(runtime.cudaStreamSynchronize(stream))
    check(runtime.cudaMemcpy(out, d0, nbytes, D2H))
    print("cudaMemcpyPeerAsync 1 -> 0:", np.array_equal(out, b))
    check(runtime.cudaStreamDestroy(stream))
    if can_01:
        check(runtime.cudaDeviceDisablePeerAccess(1))
        print("disabling peer access again:", runtime.cudaDeviceDisablePeerAccess(1)[0].name)

    check(runtime.cudaSetDevice(1))
    check(runtime.cudaMemset(d1, 0, nbytes))
    check(runtime.cudaDeviceSynchronize())

    # driver API between the primary contexts
    dev0 = check(driver.cuDeviceGet(0))
    dev1 = check(driver.cuDeviceGet(1))
    print("cuDeviceCanAccessPeer agrees:", check(driver.cuDeviceCanAccessPeer(dev0, dev1)) == can_01)
    ctx0 = check(driver.cuDevicePrimaryCtxRetain(dev0))
    ctx1 = check(driver.cuDevicePrimaryCtxRetain(dev1))
    check(driver.cuCtxSetCurrent(ctx0))
    if can_01:
        check(driver.cuCtxEnablePeerAccess(ctx1, 0))
        print("cuCtxEnablePeerAccess again:", driver.cuCtxEnablePeerAccess(ctx1, 0)[0].name)
        check(driver.cuCtxDisablePeerAccess(ctx1))
    check(driver.cuMemcpyPeer(driver.CUdeviceptr(d1), ctx1, driver.CUdeviceptr(d0), ctx0, nbytes))
    check(driver.cuCtxSynchronize())
    check(driver.cuCtxSetCurrent(ctx1))
    check(driver.cuMemcpyDtoH(out, driver.CUdeviceptr(d1), nbytes))
    print("cuMemcpyPeer 0 -> 1:", np.array_equal(out, b))
    check(driver.cuDevicePrimaryCtxRelease(dev0))
    check(driver.cuDevicePrimaryCtxRelease(dev1))

    check(runtime.cudaSetDevice(0))
    check(runtime.cudaFree(d0))
    check(runtime.cudaSetDevice(1))
    check(runtime.cudaFree(d1))
    print("done")


if __name__ == "__main__":
    sys.exit(main())
