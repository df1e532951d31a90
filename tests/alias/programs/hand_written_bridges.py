"""The calls the alias bridges by hand (hip_as_cuda/manual/), used as programs use them.

A library loaded from a CUBIN (cuLibraryLoadData), its kernel (cuLibraryGetKernel), the kernel's
function (cuKernelGetFunction) and the library's module (cuLibraryGetModule, then
cuModuleGetFunction), both launched; the names of the function and of the kernel; an executable
graph updated in place, runtime and driver (cudaGraphExecUpdate, cuGraphExecUpdate: a new memset
value is applied, another topology is refused); 3D copies between two pitched buffers of one device
with the peer calls, runtime and driver, blocking and on a stream.
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
extern "C" __global__ void scale(float *x, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= k;
}
"""
N = 1000
ROWS, COLS = 6, 10          # the pitched buffers of the copies, float32


def library_and_kernel(cubin, stream):
    library = check(driver.cuLibraryLoadData(cubin, None, None, 0, None, None, 0))
    kernel = check(driver.cuLibraryGetKernel(library, b"scale"))
    function = check(driver.cuKernelGetFunction(kernel))
    module = check(driver.cuLibraryGetModule(library))
    from_module = check(driver.cuModuleGetFunction(module, b"scale"))
    print("function name:", check(driver.cuFuncGetName(function)).decode())
    print("kernel name:", check(driver.cuKernelGetName(kernel)).decode())
    host = np.arange(N, dtype=np.float32)
    d_x = check(runtime.cudaMalloc(host.nbytes))
    check(runtime.cudaMemcpy(d_x, host, host.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    types = (ctypes.c_void_p, ctypes.c_float, ctypes.c_int)
    for f, k in ((function, 2.0), (from_module, -3.0)):
        check(driver.cuLaunchKernel(f, (N + 127) // 128, 1, 1, 128, 1, 1, 0, driver.CUstream(int(stream)),
                                    ((d_x, k, N), types), 0))
    check(runtime.cudaStreamSynchronize(stream))
    out = np.empty_like(host)
    check(runtime.cudaMemcpy(out, d_x, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    print("the kernel's function and the module's function ran:", np.array_equal(out, host * -6.0))
    check(runtime.cudaFree(d_x))
    check(driver.cuLibraryUnload(library))


def read_ints(d_ptr, n):
    out = np.empty(n, dtype=np.int32)
    check(runtime.cudaMemcpy(out, d_ptr, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    return out


def runtime_graph_update(stream):
    d_a = check(runtime.cudaMalloc(4 * N))

    def graph_of(values):
        graph = check(runtime.cudaGraphCreate(0))
        for i, value in enumerate(values):
            p = runtime.cudaMemsetParams()
            p.dst = d_a + 4 * i * (N // 2)
            p.value = value
            p.pitch = 0
            p.elementSize = 4
            p.width = N if len(values) == 1 else N // 2
            p.height = 1
            check(runtime.cudaGraphAddMemsetNode(graph, None, 0, p))
        return graph

    graph_exec = check(runtime.cudaGraphInstantiate(graph_of([1]), 0))
    info = check(runtime.cudaGraphExecUpdate(graph_exec, graph_of([2])))
    print("runtime update, same topology:", info.result.name)
    check(runtime.cudaGraphLaunch(graph_exec, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("the updated value is set:", bool((read_ints(d_a, N) == 2).all()))
    err = runtime.cudaGraphExecUpdate(graph_exec, graph_of([3, 4]))[0]
    print("runtime update, another topology:", err.name)
    runtime.cudaGetLastError()
    check(runtime.cudaGraphExecDestroy(graph_exec))
    check(runtime.cudaFree(d_a))


def driver_graph_update(ctx, stream):
    d_a = check(driver.cuMemAlloc(4 * N))

    def graph_of(values):
        graph = check(driver.cuGraphCreate(0))
        for i, value in enumerate(values):
            p = driver.CUDA_MEMSET_NODE_PARAMS()
            p.dst = driver.CUdeviceptr(int(d_a) + 4 * i * (N // 2))
            p.value = value
            p.pitch = 0
            p.elementSize = 4
            p.width = N if len(values) == 1 else N // 2
            p.height = 1
            check(driver.cuGraphAddMemsetNode(graph, None, 0, p, ctx))
        return graph

    graph_exec = check(driver.cuGraphInstantiate(graph_of([5]), 0))
    info = check(driver.cuGraphExecUpdate(graph_exec, graph_of([6])))
    print("driver update, same topology:", info.result.name)
    check(driver.cuGraphLaunch(graph_exec, driver.CUstream(int(stream))))
    check(driver.cuStreamSynchronize(driver.CUstream(int(stream))))
    print("the updated value is set:", bool((read_ints(int(d_a), N) == 6).all()))
    err = driver.cuGraphExecUpdate(graph_exec, graph_of([7, 8]))[0]
    print("driver update, another topology:", err.name)
    check(driver.cuGraphExecDestroy(graph_exec))
    check(driver.cuMemFree(d_a))


def peer_copies(ctx, stream):
    src = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS)
    pitch = COLS * 4
    d_src = check(runtime.cudaMalloc(src.nbytes))
    d_dst = check(runtime.cudaMalloc(src.nbytes))
    check(runtime.cudaMemcpy(d_src, src, src.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))

    def result():
        out = np.empty_like(src)
        check(runtime.cudaMemcpy(out, d_dst, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        return out

    # rows 1-2, columns 4-6 of src to the top left of dst (positions and widths in bytes)
    for name, call in (("cudaMemcpy3DPeer", lambda p: runtime.cudaMemcpy3DPeer(p)),
                       ("cudaMemcpy3DPeerAsync", lambda p: runtime.cudaMemcpy3DPeerAsync(p, stream))):
        check(runtime.cudaMemset(d_dst, 0, src.nbytes))
        p = runtime.cudaMemcpy3DPeerParms()
        p.srcPtr = runtime.make_cudaPitchedPtr(d_src, pitch, COLS, ROWS)
        p.srcPos = runtime.make_cudaPos(4 * 4, 1, 0)
        p.srcDevice = 0
        p.dstPtr = runtime.make_cudaPitchedPtr(d_dst, pitch, COLS, ROWS)
        p.dstPos = runtime.make_cudaPos(0, 0, 0)
        p.dstDevice = 0
        p.extent = runtime.make_cudaExtent(3 * 4, 2, 1)
        check(call(p))
        check(runtime.cudaStreamSynchronize(stream))
        want = np.zeros_like(src)
        want[0:2, 0:3] = src[1:3, 4:7]
        print(name, "copies the block:", np.array_equal(result(), want))

    # rows 2-4, columns 1-5 of src to rows 3-5, columns 5-9 of dst
    for name, call in (("cuMemcpy3DPeer", lambda q: driver.cuMemcpy3DPeer(q)),
                       ("cuMemcpy3DPeerAsync", lambda q: driver.cuMemcpy3DPeerAsync(q, driver.CUstream(int(stream))))):
        check(runtime.cudaMemset(d_dst, 0, src.nbytes))
        q = driver.CUDA_MEMCPY3D_PEER()
        q.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
        q.srcDevice = driver.CUdeviceptr(d_src)
        q.srcXInBytes, q.srcY, q.srcPitch, q.srcHeight, q.srcContext = 1 * 4, 2, pitch, ROWS, ctx
        q.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
        q.dstDevice = driver.CUdeviceptr(d_dst)
        q.dstXInBytes, q.dstY, q.dstPitch, q.dstHeight, q.dstContext = 5 * 4, 3, pitch, ROWS, ctx
        q.WidthInBytes, q.Height, q.Depth = 5 * 4, 3, 1
        check(call(q))
        check(runtime.cudaStreamSynchronize(stream))
        want = np.zeros_like(src)
        want[3:6, 5:10] = src[2:5, 1:6]
        print(name, "copies the block:", np.array_equal(result(), want))
    check(runtime.cudaFree(d_src))
    check(runtime.cudaFree(d_dst))


def main():
    check(driver.cuInit(0))
    check(runtime.cudaSetDevice(0))
    check(runtime.cudaFree(0))
    ctx = check(driver.cuCtxGetCurrent())
    major = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, 0))
    minor = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, 0))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"scale.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    check(nvrtc.nvrtcDestroyProgram(prog))
    stream = check(runtime.cudaStreamCreate())

    library_and_kernel(cubin, stream)
    runtime_graph_update(stream)
    driver_graph_update(ctx, stream)
    peer_copies(ctx, stream)
    check(runtime.cudaStreamDestroy(stream))
    print("done")


if __name__ == "__main__":
    main()
