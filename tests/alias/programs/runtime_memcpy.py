"""Runtime API copies in every direction.

cudaMemcpy host->device, device->device, device->host, host->host and cudaMemcpyDefault; pointer
arithmetic on the int addresses the runtime returns; cudaMemset; pitched 2-D memory (cudaMallocPitch,
cudaMemcpy2D whole and a sub-matrix, device->device); asynchronous copies and memset on a stream
from pinned memory (cudaMemcpyAsync, cudaMemcpy2DAsync, cudaMemsetAsync); what cudaPointerGetAttributes
says of each kind of memory.
"""
import ctypes

import numpy as np

from cuda.bindings import runtime


def check(result):
    err = result[0]
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA error {runtime.cudaGetErrorName(err)[1].decode()}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def host_array(address, shape, dtype):
    """A NumPy view of host memory at an address (pinned memory from cudaMallocHost)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    buf = (ctypes.c_byte * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


H2D = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
D2D = runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice
H2H = runtime.cudaMemcpyKind.cudaMemcpyHostToHost
DEFAULT = runtime.cudaMemcpyKind.cudaMemcpyDefault


def main():
    check(runtime.cudaSetDevice(0))
    n = 1 << 20
    rng = np.random.default_rng(7)
    src = rng.integers(-(1 << 30), 1 << 30, n, dtype=np.int32)
    nbytes = src.nbytes

    d_a = check(runtime.cudaMalloc(nbytes))
    d_b = check(runtime.cudaMalloc(nbytes))
    check(runtime.cudaMemcpy(d_a, src, nbytes, H2D))
    check(runtime.cudaMemcpy(d_b, d_a, nbytes, D2D))
    out = np.zeros_like(src)
    check(runtime.cudaMemcpy(out, d_b, nbytes, D2H))
    print("host->device->device->host:", np.array_equal(out, src))

    out2 = np.zeros_like(src)
    check(runtime.cudaMemcpy(out2, src, nbytes, H2H))
    print("host->host:", np.array_equal(out2, src))
    out3 = np.zeros_like(src)
    check(runtime.cudaMemcpy(out3, d_a, nbytes, DEFAULT))
    print("cudaMemcpyDefault device->host:", np.array_equal(out3, src))

    # pointers are ints: offsets are plain arithmetic
    check(runtime.cudaMemset(d_b, 0x7F, nbytes))
    check(runtime.cudaMemcpy(d_b + 4 * 100, src, 4 * 50, H2D))
    check(runtime.cudaMemcpy(out, d_b, nbytes, D2H))
    expect = np.full(n, 0x7F7F7F7F, dtype=np.int32)
    expect[100:150] = src[:50]
    print("memset and a copy at an offset:", np.array_equal(out, expect))
    part = np.zeros(10, dtype=np.int32)
    check(runtime.cudaMemcpy(part, d_a + 4 * 1000, part.nbytes, D2H))
    print("a slice read from an offset:", part.tolist() == src[1000:1010].tolist())

    # pitched 2-D memory
    rows, cols = 37, 100
    matrix = rng.standard_normal((rows, cols)).astype(np.float32)
    width = cols * 4
    d_m, pitch = check(runtime.cudaMallocPitch(width, rows))
    print("pitch is at least the row width:", pitch >= width)
    check(runtime.cudaMemcpy2D(d_m, pitch, matrix, width, width, rows, H2D))
    back = np.zeros_like(matrix)
    check(runtime.cudaMemcpy2D(back, width, d_m, pitch, width, rows, D2H))
    print("2-D round trip:", np.array_equal(back, matrix))
    sub = np.zeros((20, 40), dtype=np.float32)
    check(runtime.cudaMemcpy2D(sub, 40 * 4, d_m + 5 * pitch + 10 * 4, pitch, 40 * 4, 20, D2H))
    print("2-D sub-matrix rows 5..24, columns 10..49:", np.array_equal(sub, matrix[5:25, 10:50]))
    d_m2, pitch2 = check(runtime.cudaMallocPitch(width, rows))
    check(runtime.cudaMemcpy2D(d_m2, pitch2, d_m, pitch, width, rows, D2D))
    back[:] = 0
    check(runtime.cudaMemcpy2D(back, width, d_m2, pitch2, width, rows, D2H))
    print("2-D device->device:", np.array_equal(back, matrix))

    # asynchronous copies from pinned memory
    stream = check(runtime.cudaStreamCreate())
    h_pinned = check(runtime.cudaMallocHost(nbytes))
    h_back = check(runtime.cudaMallocHost(nbytes))
    pinned = host_array(h_pinned, (n,), np.int32)
    pinned_back = host_array(h_back, (n,), np.int32)
    pinned[:] = src[::-1]
    pinned_back[:] = 0
    check(runtime.cudaMemcpyAsync(d_a, h_pinned, nbytes, H2D, stream))
    check(runtime.cudaMemsetAsync(d_a, 0, 4 * 16, stream))
    check(runtime.cudaMemcpyAsync(d_b, d_a, nbytes, D2D, stream))
    check(runtime.cudaMemcpyAsync(h_back, d_b, nbytes, D2H, stream))
    check(runtime.cudaStreamSynchronize(stream))
    expect = src[::-1].copy()
    expect[:16] = 0
    print("async copies and memset on a stream:", np.array_equal(pinned_back, expect))

    h_matrix = check(runtime.cudaMallocHost(matrix.nbytes))
    host_array(h_matrix, matrix.shape, np.float32)[:] = matrix * 2
    check(runtime.cudaMemcpy2DAsync(d_m, pitch, h_matrix, width, width, rows, H2D, stream))
    check(runtime.cudaMemcpy2DAsync(back, width, d_m, pitch, width, rows, D2H, stream))
    check(runtime.cudaStreamSynchronize(stream))
    print("2-D async round trip:", np.array_equal(back, matrix * 2))

    # what the runtime knows of each pointer
    for label, ptr in (("cudaMalloc", d_a), ("cudaMallocHost", h_pinned), ("NumPy (pageable)", src.ctypes.data)):
        attrs = check(runtime.cudaPointerGetAttributes(ptr))
        print(f"cudaPointerGetAttributes({label}): {attrs.type.name}")
    attrs = check(runtime.cudaPointerGetAttributes(d_a))
    print("device memory is on device", attrs.device, "at its own address:", attrs.devicePointer == d_a)

    free, total = check(runtime.cudaMemGetInfo())
    print("cudaMemGetInfo: 0 < free <= total:", 0 < free <= total)

    for p in (h_pinned, h_back, h_matrix):
        check(runtime.cudaFreeHost(p))
    for d in (d_a, d_b, d_m, d_m2):
        check(runtime.cudaFree(d))
    check(runtime.cudaStreamDestroy(stream))
    print("done")


if __name__ == "__main__":
    main()
