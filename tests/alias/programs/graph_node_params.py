"""CUDA graphs built with the polymorphic node calls of CUDA 12.2+ (driver API).

cuGraphAddNode with a CUgraphNodeParams of each kind a program commonly builds: memset, memcpy
(CUDA_MEMCPY3D in the memcpy member), kernel, event record and wait, an empty node, a child
graph, a memory allocation and its free; cuGraphNodeGetParams reading each back by its type;
cuGraphNodeSetParams on a memcpy node and cuGraphExecNodeSetParams on a memset and a kernel node
of the executable graph; parameters of another kind than the node's, refused.
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
extern "C" __global__ void add(unsigned char *y, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += k;
}

extern "C" __global__ void fill(unsigned char *y, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = v;
}

extern "C" __global__ void copy(unsigned char *y, const unsigned char *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}
"""

T = driver.CUgraphNodeType


def add_node(graph, deps, params):
    return check(driver.cuGraphAddNode(graph, deps, None, len(deps), params))


READ_BACK = False


def main():
    global READ_BACK
    # cuGraphNodeGetParams came after CUDA 13.0: NVIDIA's binding finds no such function in 13.0's
    # driver, so both runs read parameters back only from a newer driver
    READ_BACK = check(driver.cuDriverGetVersion()) > 13000
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    ctx = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(ctx))
    major = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"poly.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    kernel = check(driver.cuModuleGetFunction(module, b"add"))
    fill_kernel = check(driver.cuModuleGetFunction(module, b"fill"))
    copy_kernel = check(driver.cuModuleGetFunction(module, b"copy"))

    n = 4096
    stream = check(driver.cuStreamCreate(0))
    d_a = check(driver.cuMemAlloc(n))
    d_b = check(driver.cuMemAlloc(n))
    h_out = np.zeros(n, dtype=np.uint8)
    check(driver.cuMemcpyHtoD(d_b, np.full(n, 2, dtype=np.uint8), n))
    event = check(driver.cuEventCreate(0))

    graph = check(driver.cuGraphCreate(0))
    memset = driver.CUgraphNodeParams()
    memset.type = T.CU_GRAPH_NODE_TYPE_MEMSET
    memset.memset.dst = d_a
    memset.memset.elementSize = 1
    memset.memset.width = n
    memset.memset.height = 1
    memset.memset.value = 5
    clear = add_node(graph, [], memset)

    launch = driver.CUgraphNodeParams()
    launch.type = T.CU_GRAPH_NODE_TYPE_KERNEL
    launch.kernel.func = kernel
    launch.kernel.gridDimX, launch.kernel.gridDimY, launch.kernel.gridDimZ = n // 256, 1, 1
    launch.kernel.blockDimX, launch.kernel.blockDimY, launch.kernel.blockDimZ = 256, 1, 1
    launch.kernel.kernelParams = ((d_a, 10, n), (None, ctypes.c_int, ctypes.c_int))   # None: a CUdeviceptr by its storage (c_void_p would pass that address itself)
    compute = add_node(graph, [clear], launch)

    record = driver.CUgraphNodeParams()
    record.type = T.CU_GRAPH_NODE_TYPE_EVENT_RECORD
    record.eventRecord.event = event
    recorded = add_node(graph, [compute], record)
    wait = driver.CUgraphNodeParams()
    wait.type = T.CU_GRAPH_NODE_TYPE_WAIT_EVENT
    wait.eventWait.event = event
    waited = add_node(graph, [recorded], wait)

    copy = driver.CUgraphNodeParams()
    copy.type = T.CU_GRAPH_NODE_TYPE_MEMCPY
    copy.memcpy.copyParams.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    copy.memcpy.copyParams.srcDevice = d_a
    copy.memcpy.copyParams.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy.memcpy.copyParams.dstHost = h_out
    copy.memcpy.copyParams.WidthInBytes = n
    copy.memcpy.copyParams.Height = 1
    copy.memcpy.copyParams.Depth = 1
    copied = add_node(graph, [waited], copy)

    empty = driver.CUgraphNodeParams()
    empty.type = T.CU_GRAPH_NODE_TYPE_EMPTY
    add_node(graph, [copied], empty)

    # a child graph: one memset of d_b to 9
    child = check(driver.cuGraphCreate(0))
    inner = driver.CUgraphNodeParams()
    inner.type = T.CU_GRAPH_NODE_TYPE_MEMSET
    inner.memset.dst = d_b
    inner.memset.elementSize = 1
    inner.memset.width = n
    inner.memset.height = 1
    inner.memset.value = 9
    add_node(child, [], inner)
    sub = driver.CUgraphNodeParams()
    sub.type = T.CU_GRAPH_NODE_TYPE_GRAPH
    sub.graph.graph = child
    child_node = add_node(graph, [], sub)

    _, count = check(driver.cuGraphGetNodes(graph))
    nodes, count = check(driver.cuGraphGetNodes(graph, count))
    print("nodes:", count, sorted(check(driver.cuGraphNodeGetType(x)).name for x in nodes))

    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(clear))
        print("memset read back:", back.type.name, back.memset.value, back.memset.width, int(back.memset.dst) == int(d_a))
    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(compute))
        print("kernel read back:", back.type.name, back.kernel.gridDimX, back.kernel.blockDimX,
              int(back.kernel.func) == int(kernel))
    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(copied))
        print("memcpy read back:", back.type.name, back.memcpy.copyParams.WidthInBytes,
              int(back.memcpy.copyParams.srcDevice) == int(d_a))
    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(recorded))
        print("event record read back:", back.type.name, int(back.eventRecord.event) == int(event))
    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(child_node))
        print("child graph read back:", back.type.name)

    graph_exec = check(driver.cuGraphInstantiate(graph, 0))
    check(driver.cuGraphLaunch(graph_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    print("memset 5, kernel +10:", np.array_equal(h_out, np.full(n, 15, dtype=np.uint8)))
    h_b = np.zeros(n, dtype=np.uint8)
    check(driver.cuMemcpyDtoH(h_b, d_b, n))
    print("child graph set 9:", np.array_equal(h_b, np.full(n, 9, dtype=np.uint8)))

    # the executable graph's memset and kernel changed by the polymorphic call
    memset.memset.value = 100
    check(driver.cuGraphExecNodeSetParams(graph_exec, clear, memset))
    launch.kernel.kernelParams = ((d_a, 1, n), (None, ctypes.c_int, ctypes.c_int))
    check(driver.cuGraphExecNodeSetParams(graph_exec, compute, launch))
    check(driver.cuGraphLaunch(graph_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    print("exec memset 100, kernel +1:", np.array_equal(h_out, np.full(n, 101, dtype=np.uint8)))

    # the graph's memcpy node now copies d_b; a new instantiation sees it
    copy.memcpy.copyParams.srcDevice = d_b
    check(driver.cuGraphNodeSetParams(copied, copy))
    print("memcpy source set:", int(check(driver.cuGraphMemcpyNodeGetParams(copied)).srcDevice) == int(d_b))
    err, = driver.cuGraphNodeSetParams(copied, memset)
    print("memset parameters for a memcpy node:", err.name)
    check(driver.cuGraphExecDestroy(graph_exec))
    graph_exec = check(driver.cuGraphInstantiate(graph, 0))
    check(driver.cuGraphLaunch(graph_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    print("copied d_b (9s):", np.array_equal(h_out, np.full(n, 9, dtype=np.uint8)))
    check(driver.cuGraphExecDestroy(graph_exec))
    check(driver.cuGraphDestroy(graph))
    check(driver.cuGraphDestroy(child))

    # a graph that allocates, fills and frees its own memory
    graph = check(driver.cuGraphCreate(0))
    alloc = driver.CUgraphNodeParams()
    alloc.type = T.CU_GRAPH_NODE_TYPE_MEM_ALLOC
    alloc.alloc.poolProps.allocType = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    alloc.alloc.poolProps.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    alloc.alloc.poolProps.location.id = 0
    alloc.alloc.bytesize = n
    allocated = add_node(graph, [], alloc)
    print("allocation node filled dptr:", int(alloc.alloc.dptr) != 0)
    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(allocated))
        print("allocation read back:", back.type.name, back.alloc.bytesize, int(back.alloc.dptr) == int(alloc.alloc.dptr))
    # kernels fill the graph's memory and copy it to d_a (a memset node on the graph's allocation got
    # CUDA_ERROR_INVALID_VALUE from cuGraphAddNode with NVIDIA's bindings, driver 580, H200)
    def kernel_node(func, args, types):
        p = driver.CUgraphNodeParams()
        p.type = T.CU_GRAPH_NODE_TYPE_KERNEL
        p.kernel.func = func
        p.kernel.gridDimX, p.kernel.gridDimY, p.kernel.gridDimZ = n // 256, 1, 1
        p.kernel.blockDimX, p.kernel.blockDimY, p.kernel.blockDimZ = 256, 1, 1
        p.kernel.kernelParams = (args, types)
        return p
    fill = kernel_node(fill_kernel, (alloc.alloc.dptr, 42, n), (None, ctypes.c_int, ctypes.c_int))
    filled = add_node(graph, [allocated], fill)
    out = kernel_node(copy_kernel, (d_a, alloc.alloc.dptr, n), (None, None, ctypes.c_int))
    copied = add_node(graph, [filled], out)
    free = driver.CUgraphNodeParams()
    free.type = T.CU_GRAPH_NODE_TYPE_MEM_FREE
    free.free.dptr = alloc.alloc.dptr
    freed = add_node(graph, [copied], free)
    if READ_BACK:
        back = check(driver.cuGraphNodeGetParams(freed))
        print("free read back:", back.type.name, int(back.free.dptr) == int(alloc.alloc.dptr))
    graph_exec = check(driver.cuGraphInstantiate(graph, 0))
    check(driver.cuGraphLaunch(graph_exec, stream))
    check(driver.cuStreamSynchronize(stream))
    check(driver.cuMemcpyDtoH(h_out, d_a, n))
    print("graph-owned memory filled with 42:", np.array_equal(h_out, np.full(n, 42, dtype=np.uint8)))
    check(driver.cuGraphExecDestroy(graph_exec))
    check(driver.cuGraphDestroy(graph))

    check(driver.cuEventDestroy(event))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuMemFree(d_a))
    check(driver.cuMemFree(d_b))
    check(driver.cuModuleUnload(module))
    check(driver.cuDevicePrimaryCtxRelease(device))
    print("done")


if __name__ == "__main__":
    main()
