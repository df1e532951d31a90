"""Several contexts on one device, with the CUDA 13 cuCtxCreate(ctxCreateParams, flags, dev).

Two created contexts next to the primary one: which is current after creating, pushing, popping and
setting; each context's flags and device; a module and an allocation in each, with the pointer's
CU_POINTER_ATTRIBUTE_CONTEXT; destroying a context that is not current and one that is; the primary
context's state as it is retained and released.
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
extern "C" __global__ void fill(int *x, int n, int value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = value;
}
"""


def main():
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    names = {}

    def current():
        ctx = check(driver.cuCtxGetCurrent())
        return "none" if int(ctx) == 0 else names.get(int(ctx), "another context")

    flags, active = check(driver.cuDevicePrimaryCtxGetState(device))
    print("primary context active at start:", active)
    print("current at start:", current())

    ctx_a = check(driver.cuCtxCreate(None, 0, device))
    names[int(ctx_a)] = "a"
    print("after creating a, current is", current())
    ctx_b = check(driver.cuCtxCreate(None, driver.CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC, device))
    names[int(ctx_b)] = "b"
    print("after creating b, current is", current())
    print("cuCtxGetCurrent() == ctx_b:", check(driver.cuCtxGetCurrent()) == ctx_b)
    print("b's device is device 0:", int(check(driver.cuCtxGetDevice())) == int(device))
    mask = driver.CUctx_flags.CU_CTX_SCHED_MASK
    print("b's scheduling flag:", driver.CUctx_flags(check(driver.cuCtxGetFlags()) & mask).name)
    print("b's API version is set:", check(driver.cuCtxGetApiVersion(ctx_b)) > 0)

    popped = check(driver.cuCtxPopCurrent())
    print("popped", names.get(int(popped)), "and now current is", current())
    print("a's scheduling flag:", driver.CUctx_flags(check(driver.cuCtxGetFlags()) & mask).name)
    check(driver.cuCtxPushCurrent(ctx_b))
    print("pushed b, current is", current())
    check(driver.cuCtxSetCurrent(ctx_a))
    print("set a, current is", current())
    popped = check(driver.cuCtxPopCurrent())
    print("popped", names.get(int(popped)), "and now current is", current())

    # a module and memory in each context
    major = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"fill.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    check(nvrtc.nvrtcDestroyProgram(prog))

    n = 4096
    results = {}
    for ctx, value in ((ctx_a, 11), (ctx_b, 22)):
        check(driver.cuCtxPushCurrent(ctx))
        module = check(driver.cuModuleLoadData(cubin))
        fill = check(driver.cuModuleGetFunction(module, b"fill"))
        d = check(driver.cuMemAlloc(n * 4))
        owner = check(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT, d))
        print(f"memory allocated in {names[int(ctx)]} belongs to", names.get(int(owner), "another context"))
        check(driver.cuLaunchKernel(fill, n // 128, 1, 1, 128, 1, 1, 0, 0, ((d, n, value), (None, ctypes.c_int, ctypes.c_int)), 0))
        check(driver.cuCtxSynchronize())
        out = np.zeros(n, dtype=np.int32)
        check(driver.cuMemcpyDtoH(out, d, out.nbytes))
        results[names[int(ctx)]] = sorted(set(out.tolist()))
        check(driver.cuMemFree(d))
        check(driver.cuModuleUnload(module))
        check(driver.cuCtxPopCurrent())
    print("kernel results per context:", results)

    check(driver.cuCtxSetCurrent(ctx_a))
    check(driver.cuCtxDestroy(ctx_b))
    print("destroyed b while a is current; current is", current())
    check(driver.cuCtxDestroy(ctx_a))
    print("destroyed a, the current one; current is", current())

    primary = check(driver.cuDevicePrimaryCtxRetain(device))
    names[int(primary)] = "primary"
    flags, active = check(driver.cuDevicePrimaryCtxGetState(device))
    print("primary context active once retained:", active)
    check(driver.cuCtxSetCurrent(primary))
    print("current is", current())
    check(driver.cuCtxSetCurrent(None))
    print("after cuCtxSetCurrent(None), current is", current())
    check(driver.cuDevicePrimaryCtxRelease(device))
    flags, active = check(driver.cuDevicePrimaryCtxGetState(device))
    print("primary context active after its release:", active)
    print("done")


if __name__ == "__main__":
    main()
