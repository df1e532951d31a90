"""CUDA graphs by stream capture.

cudaStreamBeginCapture on a stream that forks work to a second stream and joins it back with events,
kernels launched with cuLaunchKernel inside the capture, copies to the host at the end;
cudaStreamIsCapturing during and after, the captured graph's nodes and their types, cudaGraphInstantiate,
cudaGraphUpload and cudaGraphLaunch three times (the kernels accumulate), then a second capture with
the driver API (cuStreamBeginCapture / cuStreamEndCapture / cuGraphInstantiate / cuGraphLaunch).
"""
import ctypes
from collections import Counter

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
extern "C" __global__ void add_one(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1;
}

extern "C" __global__ void twice(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2;
}
"""


def node_types(graph):
    _, count = check(runtime.cudaGraphGetNodes(graph))
    nodes, count = check(runtime.cudaGraphGetNodes(graph, count))
    types = Counter(check(runtime.cudaGraphNodeGetType(node)).name for node in nodes[:count])
    return count, dict(sorted(types.items()))


def main():
    check(driver.cuInit(0))
    check(runtime.cudaSetDevice(0))
    major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, 0))
    minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, 0))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"graph.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    add_one = check(driver.cuModuleGetFunction(module, b"add_one"))
    twice = check(driver.cuModuleGetFunction(module, b"twice"))

    n = 10_000
    threads = 256
    blocks = (n + threads - 1) // threads
    x0 = np.arange(n, dtype=np.int32)
    y0 = np.arange(n, dtype=np.int32) % 7
    d_x = check(runtime.cudaMalloc(x0.nbytes))
    d_y = check(runtime.cudaMalloc(y0.nbytes))
    check(runtime.cudaMemcpy(d_x, x0, x0.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    check(runtime.cudaMemcpy(d_y, y0, y0.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    h_x = np.zeros_like(x0)
    h_y = np.zeros_like(y0)

    stream = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    side = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    fork = check(runtime.cudaEventCreate())
    join = check(runtime.cudaEventCreate())

    print("capturing before:", check(runtime.cudaStreamIsCapturing(stream)).name)
    check(runtime.cudaStreamBeginCapture(stream, runtime.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    print("capturing during:", check(runtime.cudaStreamIsCapturing(stream)).name)
    check(runtime.cudaEventRecord(fork, stream))
    check(runtime.cudaStreamWaitEvent(side, fork, 0))
    print("the forked stream is captured too:", check(runtime.cudaStreamIsCapturing(side)).name)
    check(driver.cuLaunchKernel(add_one, blocks, 1, 1, threads, 1, 1, 0, stream,
                                ((d_x, n), (ctypes.c_void_p, ctypes.c_int)), 0))
    check(driver.cuLaunchKernel(twice, blocks, 1, 1, threads, 1, 1, 0, side,
                                ((d_y, n), (ctypes.c_void_p, ctypes.c_int)), 0))
    check(runtime.cudaEventRecord(join, side))
    check(runtime.cudaStreamWaitEvent(stream, join, 0))
    check(runtime.cudaMemcpyAsync(h_x, d_x, x0.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    check(runtime.cudaMemcpyAsync(h_y, d_y, y0.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    graph = check(runtime.cudaStreamEndCapture(stream))
    print("capturing after:", check(runtime.cudaStreamIsCapturing(stream)).name)
    print("nothing ran during the capture:", int(h_x.sum()) == 0)

    count, types = node_types(graph)
    print("captured nodes:", count, types)
    graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
    check(runtime.cudaGraphUpload(graph_exec, stream))
    for launch in range(1, 4):
        check(runtime.cudaGraphLaunch(graph_exec, stream))
        check(runtime.cudaStreamSynchronize(stream))
        print(f"after launch {launch}: x == x0 + {launch}: {np.array_equal(h_x, x0 + launch)}, "
              f"y == y0 * {2 ** launch}: {np.array_equal(h_y, y0 * 2 ** launch)}")
    check(runtime.cudaGraphExecDestroy(graph_exec))
    check(runtime.cudaGraphDestroy(graph))

    # the same with the driver API, on a driver stream
    cu_stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    check(driver.cuStreamBeginCapture(cu_stream, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))
    for _ in range(4):
        check(driver.cuLaunchKernel(add_one, blocks, 1, 1, threads, 1, 1, 0, cu_stream,
                                    ((d_x, n), (ctypes.c_void_p, ctypes.c_int)), 0))
    check(driver.cuMemcpyDtoHAsync(h_x, d_x, x0.nbytes, cu_stream))
    cu_graph = check(driver.cuStreamEndCapture(cu_stream))
    _, count = check(driver.cuGraphGetNodes(cu_graph))
    print("driver capture nodes:", count)
    cu_exec = check(driver.cuGraphInstantiate(cu_graph, 0))
    check(driver.cuGraphLaunch(cu_exec, cu_stream))
    check(driver.cuStreamSynchronize(cu_stream))
    print("driver graph added 4:", np.array_equal(h_x, x0 + 3 + 4))
    check(driver.cuGraphExecDestroy(cu_exec))
    check(driver.cuGraphDestroy(cu_graph))
    check(driver.cuStreamDestroy(cu_stream))

    for e in (fork, join):
        check(runtime.cudaEventDestroy(e))
    for s in (stream, side):
        check(runtime.cudaStreamDestroy(s))
    check(runtime.cudaFree(d_x))
    check(runtime.cudaFree(d_y))
    check(driver.cuModuleUnload(module))
    print("done")


if __name__ == "__main__":
    main()
