"""CUDA runtime API: pinned memory, copies on two streams, events, written for cuda-bindings 13.

Splits an array in two halves, sends each through its own non-blocking stream (host -> device,
device -> device, device -> host) and times the whole with events. Runs unchanged with NVIDIA's
package or on HIP through `python -m hip_as_cuda cuda_runtime_streams.py`. Exits 77 without
cuda.bindings or a GPU.
"""
import ctypes
import sys

import numpy as np

try:
    from cuda.bindings import runtime
except ImportError as e:
    print(f"skipped: cuda.bindings is not importable ({e}); run with python -m hip_as_cuda")
    sys.exit(77)


def check(result):
    err = result[0]
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA error: {runtime.cudaGetErrorName(err)[1].decode()}")
    return None if len(result) == 1 else result[1] if len(result) == 2 else result[1:]


err, count = runtime.cudaGetDeviceCount()
if err != runtime.cudaError_t.cudaSuccess or count == 0:
    print(f"skipped: no GPU ({err.name})")
    sys.exit(77)
check(runtime.cudaSetDevice(0))
prop = check(runtime.cudaGetDeviceProperties(0))
print(f"device 0: {prop.name.decode()}, {prop.multiProcessorCount} multiprocessors, "
      f"{prop.totalGlobalMem / 2**30:.1f} GiB")

n = 1 << 24
nbytes = n * 4
H2D = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
D2D = runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice
D2H = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost

# pinned host memory, seen from NumPy
h_in = check(runtime.cudaMallocHost(nbytes))
h_out = check(runtime.cudaMallocHost(nbytes))
src = np.frombuffer((ctypes.c_float * n).from_address(h_in), dtype=np.float32)
dst = np.frombuffer((ctypes.c_float * n).from_address(h_out), dtype=np.float32)
src[:] = np.arange(n, dtype=np.float32)
dst[:] = 0

d_a = check(runtime.cudaMalloc(nbytes))
d_b = check(runtime.cudaMalloc(nbytes))
streams = [check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking)) for _ in range(2)]
start, stop = check(runtime.cudaEventCreate()), check(runtime.cudaEventCreate())

check(runtime.cudaEventRecord(start, streams[0]))
check(runtime.cudaStreamWaitEvent(streams[1], start, 0))
half = nbytes // 2
for i, stream in enumerate(streams):
    offset = i * half                      # runtime pointers are ints: offsets are arithmetic
    check(runtime.cudaMemcpyAsync(d_a + offset, h_in + offset, half, H2D, stream))
    check(runtime.cudaMemcpyAsync(d_b + offset, d_a + offset, half, D2D, stream))
    check(runtime.cudaMemcpyAsync(h_out + offset, d_b + offset, half, D2H, stream))
done = check(runtime.cudaEventCreate())
check(runtime.cudaEventRecord(done, streams[1]))
check(runtime.cudaStreamWaitEvent(streams[0], done, 0))
check(runtime.cudaEventRecord(stop, streams[0]))
check(runtime.cudaEventSynchronize(stop))
ms = check(runtime.cudaEventElapsedTime(start, stop))
assert np.array_equal(dst, src)
print(f"{3 * nbytes / 2**20:.0f} MiB copied on 2 streams in {ms:.2f} ms")

for e in (start, stop, done):
    check(runtime.cudaEventDestroy(e))
for s in streams:
    check(runtime.cudaStreamDestroy(s))
for d in (d_a, d_b):
    check(runtime.cudaFree(d))
for h in (h_in, h_out):
    check(runtime.cudaFreeHost(h))
print("ok")
