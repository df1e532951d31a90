"""Cooperative launch.

A kernel that synchronizes the whole grid between two phases (a hand-written grid barrier, valid only
because a cooperative launch keeps every block resident), sized with the occupancy API and launched
with cuLaunchCooperativeKernel and with cuLaunchKernelEx plus CU_LAUNCH_ATTRIBUTE_COOPERATIVE; a grid
one block too large for co-residency; and, where the CUDA headers are found, the same with
cooperative_groups' grid.sync().
"""
import ctypes
import os

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
extern "C" __global__ void two_phase(int *data, int *out, unsigned int *arrived, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int i = tid; i < n; i += stride)
        data[i] = i;

    // grid-wide barrier: every block must be resident, which a cooperative launch guarantees
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(arrived, 1u);
        long long start = clock64();
        while (atomicAdd(arrived, 0u) < gridDim.x) {
            if (clock64() - start > 20000000000LL)   // about 10 s: give up rather than hang
                break;
        }
        __threadfence();
    }
    __syncthreads();

    for (int i = tid; i < n; i += stride)
        out[i] = data[(i + 1) % n] + data[(i + n - 1) % n];
}
"""

CG_SOURCE = b"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_two_phase(int *data, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        data[i] = i;
    grid.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        out[i] = data[(i + 1) % n] + data[(i + n - 1) % n];
}
"""


def compile_cubin(source, name, opts):
    prog = check(nvrtc.nvrtcCreateProgram(source, name, 0, [], []))
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        log = b" " * check(nvrtc.nvrtcGetProgramLogSize(prog))
        check(nvrtc.nvrtcGetProgramLog(prog, log))
        raise RuntimeError(f"{err.name}: {log.decode(errors='replace')}")
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    check(nvrtc.nvrtcDestroyProgram(prog))
    return cubin


def cuda_include_dir():
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.path.isfile(os.path.join(root, "include", "cooperative_groups.h")):
            return os.path.join(root, "include")
    return None


def main():
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    supported = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, device))
    print("cooperative launch supported:", supported)
    sms = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))
    major = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    context = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(context))
    arch = f"--gpu-architecture=sm_{major}{minor}".encode()
    module = check(driver.cuModuleLoadData(compile_cubin(SOURCE, b"cooperative.cu", [arch, b"--maxrregcount=32"])))
    two_phase = check(driver.cuModuleGetFunction(module, b"two_phase"))

    threads = 256
    per_sm = check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(two_phase, threads, 0))
    grid = per_sm * sms
    print("co-resident blocks per SM:", per_sm)
    n = 1 << 20
    expect = (np.arange(n) + 1) % n + (np.arange(n) + n - 1) % n
    d_data = check(driver.cuMemAlloc(n * 4))
    d_out = check(driver.cuMemAlloc(n * 4))
    d_arrived = check(driver.cuMemAlloc(4))
    stream = check(driver.cuStreamCreate(0))
    out = np.empty(n, dtype=np.int32)

    def run(label, launch):
        check(driver.cuMemsetD32Async(d_arrived, 0, 1, stream))
        check(driver.cuMemsetD32Async(d_out, 0, n, stream))
        err = launch()
        if err != driver.CUresult.CUDA_SUCCESS:
            print(f"{label}: {err.name}")
            return
        check(driver.cuMemcpyDtoHAsync(out, d_out, out.nbytes, stream))
        check(driver.cuStreamSynchronize(stream))
        print(f"{label}: {np.array_equal(out, expect)}")

    args = ((d_data, d_out, d_arrived, n), (None, None, None, ctypes.c_int))
    run("cuLaunchCooperativeKernel over every SM",
        lambda: driver.cuLaunchCooperativeKernel(two_phase, grid, 1, 1, threads, 1, 1, 0, stream, args)[0])
    run("cuLaunchCooperativeKernel, one block more than fits",
        lambda: driver.cuLaunchCooperativeKernel(two_phase, grid + 1, 1, 1, threads, 1, 1, 0, stream, args)[0])

    attr = driver.CUlaunchAttribute()
    attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    attr.value.cooperative = 1
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = threads, 1, 1
    config.sharedMemBytes = 0
    config.hStream = stream
    config.attrs = [attr]
    config.numAttrs = 1
    run("cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE",
        lambda: driver.cuLaunchKernelEx(config, two_phase, args, 0)[0])

    include = cuda_include_dir()
    if include is None:
        print("cooperative_groups: no CUDA include directory, not tried")
    else:
        opts = [arch, b"--std=c++17", f"--include-path={include}".encode()]
        if os.path.isdir(os.path.join(include, "cccl")):     # CUDA 13 keeps libcu++ (cuda/std/...) there
            opts.append(f"--include-path={os.path.join(include, 'cccl')}".encode())
        cg_module = check(driver.cuModuleLoadData(compile_cubin(CG_SOURCE, b"cg.cu", opts)))
        cg_two_phase = check(driver.cuModuleGetFunction(cg_module, b"cg_two_phase"))
        cg_grid = check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(cg_two_phase, threads, 0)) * sms
        cg_args = ((d_data, d_out, n), (None, None, ctypes.c_int))
        run("cooperative_groups grid.sync()",
            lambda: driver.cuLaunchCooperativeKernel(cg_two_phase, cg_grid, 1, 1, threads, 1, 1, 0, stream, cg_args)[0])
        check(driver.cuModuleUnload(cg_module))

    for d in (d_data, d_out, d_arrived):
        check(driver.cuMemFree(d))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    check(driver.cuDevicePrimaryCtxRelease(device))
    print("done")


if __name__ == "__main__":
    main()
