"""CUDA graphs built node by node.

The way cuda.bindings' own graph sample builds one: runtime memcpy (cudaGraphAddMemcpyNode1D, and
cudaGraphAddMemcpyNode with a cudaMemcpy3DParms made with make_cudaPitchedPtr / make_cudaPos /
make_cudaExtent) and memset nodes (cudaMemsetParams), a kernel node added with the driver's
cuGraphAddKernelNode and CUDA_KERNEL_NODE_PARAMS (kernelParams in the tuple form) on dependencies that
are runtime nodes, an empty node; node types and dependencies, instantiate and launch,
cuGraphExecKernelNodeSetParams to change a kernel argument in the executable graph, reading a kernel
node's parameters back; then a graph made only with driver calls.
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
extern "C" __global__ void multiply_add(const int *x, int *y, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += k * x[i];
}
"""


def main():
    check(driver.cuInit(0))
    check(runtime.cudaSetDevice(0))
    check(runtime.cudaFree(0))
    major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, 0))
    minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, 0))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"graph.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    multiply_add = check(driver.cuModuleGetFunction(module, b"multiply_add"))

    n = 5000
    threads = 128
    blocks = (n + threads - 1) // threads
    itemsize = np.dtype(np.int32).itemsize
    h_x = np.arange(n, dtype=np.int32) - 2500
    h_y = np.full(n, -1, dtype=np.int32)
    d_x = check(runtime.cudaMalloc(n * itemsize))
    d_y = check(runtime.cudaMalloc(n * itemsize))
    stream = check(runtime.cudaStreamCreate())

    graph = check(runtime.cudaGraphCreate(0))
    copy_in = check(runtime.cudaGraphAddMemcpyNode1D(graph, None, 0, d_x, h_x, n * itemsize,
                                                     runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    memset_params = runtime.cudaMemsetParams()
    memset_params.dst = d_y
    memset_params.value = 7
    memset_params.pitch = 0
    memset_params.elementSize = itemsize
    memset_params.width = n
    memset_params.height = 1
    clear = check(runtime.cudaGraphAddMemsetNode(graph, None, 0, memset_params))

    kernel_params = driver.CUDA_KERNEL_NODE_PARAMS()
    kernel_params.func = multiply_add
    kernel_params.gridDimX = blocks
    kernel_params.gridDimY = kernel_params.gridDimZ = 1
    kernel_params.blockDimX = threads
    kernel_params.blockDimY = kernel_params.blockDimZ = 1
    kernel_params.sharedMemBytes = 0
    kernel_params.kernelParams = ((d_x, d_y, 3, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int))
    dependencies = [copy_in, clear]
    compute = check(driver.cuGraphAddKernelNode(graph, dependencies, len(dependencies), kernel_params))

    copy_params = runtime.cudaMemcpy3DParms()
    copy_params.srcArray = None
    copy_params.srcPos = runtime.make_cudaPos(0, 0, 0)
    copy_params.srcPtr = runtime.make_cudaPitchedPtr(d_y, n * itemsize, n, 1)
    copy_params.dstArray = None
    copy_params.dstPos = runtime.make_cudaPos(0, 0, 0)
    copy_params.dstPtr = runtime.make_cudaPitchedPtr(h_y, n * itemsize, n, 1)
    copy_params.extent = runtime.make_cudaExtent(n * itemsize, 1, 1)
    copy_params.kind = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
    copy_out = check(runtime.cudaGraphAddMemcpyNode(graph, [compute], 1, copy_params))
    check(runtime.cudaGraphAddEmptyNode(graph, [copy_out], 1))

    _, count = check(runtime.cudaGraphGetNodes(graph))
    nodes, count = check(runtime.cudaGraphGetNodes(graph, count))
    types = Counter(check(runtime.cudaGraphNodeGetType(node)).name for node in nodes)
    print("nodes:", count, dict(sorted(types.items())))
    _, num_roots = check(runtime.cudaGraphGetRootNodes(graph))
    print("root nodes:", num_roots)
    # 13.x returns (err, dependencies, edgeData, count); 12.x had no edgeData
    _, _, num_deps = check(runtime.cudaGraphNodeGetDependencies(compute))
    print("the kernel node depends on", num_deps, "nodes")

    read_back = check(driver.cuGraphKernelNodeGetParams(compute))
    print("kernel node parameters read back: grid", read_back.gridDimX, "block", read_back.blockDimX,
          "shared", read_back.sharedMemBytes, "same function:", int(read_back.func) == int(multiply_add))

    graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    check(runtime.cudaStreamSynchronize(stream))
    base = np.full(n, 7, dtype=np.int32)
    print("y = memset + 3 x:", np.array_equal(h_y, base + 3 * h_x))

    kernel_params.kernelParams = ((d_x, d_y, -5, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int))
    check(driver.cuGraphExecKernelNodeSetParams(graph_exec, compute, kernel_params))
    h_x[:] = 11
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("after changing k to -5 in the executable graph, with new input:", np.array_equal(h_y, base - 55))
    check(runtime.cudaGraphExecDestroy(graph_exec))
    check(runtime.cudaGraphDestroy(graph))

    # driver calls only
    cu_graph = check(driver.cuGraphCreate(0))
    kernel_params.kernelParams = ((d_x, d_y, 2, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int))
    first = check(driver.cuGraphAddKernelNode(cu_graph, None, 0, kernel_params))
    second = check(driver.cuGraphAddKernelNode(cu_graph, [first], 1, kernel_params))
    _, count = check(driver.cuGraphGetNodes(cu_graph))
    print("driver graph nodes:", count, "type of the second:", check(driver.cuGraphNodeGetType(second)).name)
    cu_exec = check(driver.cuGraphInstantiate(cu_graph, 0))
    check(driver.cuGraphLaunch(cu_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    check(runtime.cudaMemcpy(h_y, d_y, n * itemsize, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    print("two kernel nodes in a row added 4 x:", np.array_equal(h_y, base - 55 + 4 * 11))
    check(driver.cuGraphExecDestroy(cu_exec))
    check(driver.cuGraphDestroy(cu_graph))

    check(runtime.cudaStreamDestroy(stream))
    check(runtime.cudaFree(d_x))
    check(runtime.cudaFree(d_y))
    check(driver.cuModuleUnload(module))
    print("done")


if __name__ == "__main__":
    main()
