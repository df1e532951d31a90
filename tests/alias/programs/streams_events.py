"""Streams and events, runtime and driver API.

Two non-blocking streams ordered by an event (cudaEventRecord / cudaStreamWaitEvent), kernels launched
with cuLaunchKernel on runtime streams, elapsed time between events on different streams (printed only
as "is a positive number"), queries of a stream and an event that cannot be done yet (the kernel waits
for the host to write a flag in mapped memory), an event without timing, stream priorities and flags,
the per-thread and legacy default streams, and the same with the driver's cuStream*/cuEvent* calls.
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
extern "C" __global__ void add(int *x, int n, int value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += value;
}

extern "C" __global__ void wait_for_host(volatile int *flag, long long max_cycles)
{
    long long start = clock64();
    while (*flag == 0 && clock64() - start < max_cycles) {
    }
}
"""


def load_module(device):
    major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, device))
    minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, device))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"streams.cu", 0, [], []))
    opts = [bytes(f"--gpu-architecture=sm_{major}{minor}", "ascii")]
    check(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    check(nvrtc.nvrtcDestroyProgram(prog))
    return check(driver.cuModuleLoadData(np.frombuffer(cubin, dtype=np.uint8)))


def main():
    check(driver.cuInit(0))
    device = 0
    check(runtime.cudaSetDevice(device))
    check(runtime.cudaFree(0))
    module = load_module(device)
    add = check(driver.cuModuleGetFunction(module, b"add"))
    wait_for_host = check(driver.cuModuleGetFunction(module, b"wait_for_host"))

    n = 1 << 16
    threads, blocks = 256, (1 << 16) // 256
    x = np.arange(n, dtype=np.int32)
    d_x = check(runtime.cudaMalloc(x.nbytes))
    s1 = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    s2 = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    start = check(runtime.cudaEventCreate())
    stop = check(runtime.cudaEventCreate())
    handoff = check(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming))

    check(runtime.cudaEventRecord(start, s1))
    check(runtime.cudaMemcpyAsync(d_x, x, x.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, s1))
    check(driver.cuLaunchKernel(add, blocks, 1, 1, threads, 1, 1, 0, s1,
                                ((d_x, n, 10), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    check(runtime.cudaEventRecord(handoff, s1))
    check(runtime.cudaStreamWaitEvent(s2, handoff, 0))
    check(driver.cuLaunchKernel(add, blocks, 1, 1, threads, 1, 1, 0, s2,
                                ((d_x, n, 100), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    out = np.zeros_like(x)
    check(runtime.cudaMemcpyAsync(out, d_x, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, s2))
    check(runtime.cudaEventRecord(stop, s2))
    check(runtime.cudaEventSynchronize(stop))
    print("two streams ordered by an event:", np.array_equal(out, x + 110))
    ms = check(runtime.cudaEventElapsedTime(start, stop))
    print("elapsed time between the streams' events is a positive number:", ms > 0.0)
    print("cudaEventQuery(stop):", runtime.cudaEventQuery(stop)[0].name)
    print("cudaStreamQuery(s2):", runtime.cudaStreamQuery(s2)[0].name)
    err, _ = runtime.cudaEventElapsedTime(start, handoff)
    print("elapsed time to an event without timing:", err.name)

    # work that cannot finish until the host says so
    h_flag = check(runtime.cudaHostAlloc(4, runtime.cudaHostAllocMapped))
    flag = (ctypes.c_int * 1).from_address(h_flag)
    flag[0] = 0
    d_flag = check(runtime.cudaHostGetDevicePointer(h_flag, 0))
    pending = check(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming))
    check(driver.cuLaunchKernel(wait_for_host, 1, 1, 1, 1, 1, 1, 0, s1,
                                ((d_flag, 20_000_000_000), (ctypes.c_void_p, ctypes.c_longlong)), 0))
    check(runtime.cudaEventRecord(pending, s1))
    print("cudaStreamQuery while the kernel waits:", runtime.cudaStreamQuery(s1)[0].name)
    print("cudaEventQuery while the kernel waits:", runtime.cudaEventQuery(pending)[0].name)
    flag[0] = 1
    check(runtime.cudaStreamSynchronize(s1))
    print("cudaEventQuery after the host let it go:", runtime.cudaEventQuery(pending)[0].name)

    # priorities and flags
    least, greatest = check(runtime.cudaDeviceGetStreamPriorityRange())
    print("stream priorities, least and greatest:", least, greatest)
    urgent = check(runtime.cudaStreamCreateWithPriority(runtime.cudaStreamNonBlocking, greatest))
    print("priority of the urgent stream is the greatest:", check(runtime.cudaStreamGetPriority(urgent)) == greatest)
    flags = check(runtime.cudaStreamGetFlags(urgent))
    print("the urgent stream is non-blocking:", flags & runtime.cudaStreamNonBlocking == runtime.cudaStreamNonBlocking)
    plain = check(runtime.cudaStreamCreate())
    print("a plain stream's flags:", check(runtime.cudaStreamGetFlags(plain)))

    # the special streams by name
    check(runtime.cudaMemcpyAsync(d_x, x, x.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice,
                                  runtime.cudaStreamPerThread))
    check(driver.cuLaunchKernel(add, blocks, 1, 1, threads, 1, 1, 0, runtime.cudaStreamPerThread,
                                ((d_x, n, 1), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    check(runtime.cudaStreamSynchronize(runtime.cudaStreamPerThread))
    check(driver.cuLaunchKernel(add, blocks, 1, 1, threads, 1, 1, 0, runtime.cudaStreamLegacy,
                                ((d_x, n, 2), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    check(runtime.cudaMemcpy(out, d_x, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    print("per-thread then legacy default stream:", np.array_equal(out, x + 3))

    # the driver's streams and events
    cs = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    e0 = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    e1 = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    check(driver.cuEventRecord(e0, cs))
    check(driver.cuLaunchKernel(add, blocks, 1, 1, threads, 1, 1, 0, cs,
                                ((d_x, n, 1000), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)), 0))
    check(driver.cuEventRecord(e1, cs))
    check(runtime.cudaStreamWaitEvent(s2, e1, 0))         # a driver event in a runtime call
    check(driver.cuStreamWaitEvent(s1, e1, 0))            # a runtime stream in a driver call
    check(driver.cuEventSynchronize(e1))
    print("cuEventElapsedTime is not negative:", check(driver.cuEventElapsedTime(e0, e1)) >= 0.0)
    print("cuStreamQuery:", driver.cuStreamQuery(cs)[0].name)
    check(driver.cuStreamSynchronize(s1))
    check(driver.cuMemcpyDtoH(out, d_x, out.nbytes))
    print("driver stream result:", np.array_equal(out, x + 1003))

    check(driver.cuEventDestroy(e0))
    check(driver.cuEventDestroy(e1))
    check(driver.cuStreamDestroy(cs))
    for e in (start, stop, handoff, pending):
        check(runtime.cudaEventDestroy(e))
    for s in (s1, s2, urgent, plain):
        check(runtime.cudaStreamDestroy(s))
    check(runtime.cudaFreeHost(h_flag))
    check(runtime.cudaFree(d_x))
    check(driver.cuModuleUnload(module))
    print("done")


if __name__ == "__main__":
    main()
