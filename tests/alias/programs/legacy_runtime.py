"""Runtime API in the cuda-python 12.x style: `from cuda import cudart` (a module 13.x no longer ships).

Only names and signatures that 12.x and 13.x share (no cudaDeviceProp.clockRate / memoryClockRate /
computeMode, which 13.x dropped). Device properties, copies through pinned memory on a non-blocking
stream, memset, events, and an error turned into its name and string.
"""
import ctypes

import numpy as np

from cuda import cudart


def checkCudaErrors(result):
    if result[0].value:
        raise RuntimeError("CUDA error code={}({})".format(result[0].value, cudart.cudaGetErrorName(result[0])[1]))
    if len(result) == 1:
        return None
    elif len(result) == 2:
        return result[1]
    else:
        return result[1:]


def main():
    deviceCount = checkCudaErrors(cudart.cudaGetDeviceCount())
    print("devices:", deviceCount)
    checkCudaErrors(cudart.cudaSetDevice(0))
    deviceProp = checkCudaErrors(cudart.cudaGetDeviceProperties(0))
    print("device 0:", deviceProp.name.decode(), "compute capability", f"{deviceProp.major}.{deviceProp.minor}")
    print("warp size", deviceProp.warpSize, "max threads per block", deviceProp.maxThreadsPerBlock)

    n = 1 << 22
    nbytes = n * np.dtype(np.float32).itemsize
    h_a = checkCudaErrors(cudart.cudaMallocHost(nbytes))
    h_b = checkCudaErrors(cudart.cudaMallocHost(nbytes))
    a = np.ctypeslib.as_array(ctypes.cast(h_a, ctypes.POINTER(ctypes.c_float)), (n,))
    b = np.ctypeslib.as_array(ctypes.cast(h_b, ctypes.POINTER(ctypes.c_float)), (n,))
    a[:] = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    b[:] = 0

    d_a = checkCudaErrors(cudart.cudaMalloc(nbytes))
    stream = checkCudaErrors(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    start = checkCudaErrors(cudart.cudaEventCreate())
    stop = checkCudaErrors(cudart.cudaEventCreate())
    checkCudaErrors(cudart.cudaEventRecord(start, stream))
    checkCudaErrors(cudart.cudaMemcpyAsync(d_a, h_a, nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
    checkCudaErrors(cudart.cudaMemsetAsync(d_a, 0, nbytes // 2, stream))
    checkCudaErrors(cudart.cudaMemcpyAsync(h_b, d_a, nbytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    checkCudaErrors(cudart.cudaEventRecord(stop, stream))
    checkCudaErrors(cudart.cudaEventSynchronize(stop))
    elapsed = checkCudaErrors(cudart.cudaEventElapsedTime(start, stop))
    print("copies took a positive time:", elapsed > 0)
    expected = a.copy()
    expected[: n // 2] = 0
    print("first half cleared, second half copied:", np.array_equal(b, expected))

    err, = cudart.cudaSetDevice(deviceCount + 3)
    print("cudaSetDevice out of range:", err, cudart.cudaGetErrorString(err)[1].decode())
    print("cleared by cudaGetLastError:", cudart.cudaGetLastError()[0] == cudart.cudaError_t.cudaErrorInvalidDevice,
          cudart.cudaGetLastError()[0] == cudart.cudaError_t.cudaSuccess)

    checkCudaErrors(cudart.cudaEventDestroy(start))
    checkCudaErrors(cudart.cudaEventDestroy(stop))
    checkCudaErrors(cudart.cudaStreamDestroy(stream))
    checkCudaErrors(cudart.cudaFree(d_a))
    checkCudaErrors(cudart.cudaFreeHost(h_a))
    checkCudaErrors(cudart.cudaFreeHost(h_b))
    print("done")


if __name__ == "__main__":
    main()
