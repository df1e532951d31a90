"""hiprtc end to end: compile HIP source that includes hip/hip_runtime.h for the device's
gcnArchName, load it with hipModuleLoadData, launch with hipModuleLaunchKernel (kernelParams
and packed `extra` arguments), name expressions, module globals, dynamic shared memory, and
the compiler's log on an error."""
from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

import hip
from hip._util.types import CStr
from hip import hip as h, hiprtc

from gpu_util import SUCCESS, require_library

pytestmark = pytest.mark.gpu

R = hiprtc.hiprtcResult

SOURCE = rb"""
#include <hip/hip_runtime.h>

__device__ float scale_factor = 2.0f;

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void mixed(char c, double d, short s, float* out, long long ll, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)(c + d + s + ll) + (float)i;
}

extern "C" __global__ void iota2d(int* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = y * 1000 + x;
}

extern "C" __global__ void scale_by_global(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= scale_factor;
}

extern "C" __global__ void reverse_block(float* x) {
    extern __shared__ float tile[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    tile[t] = x[base + t];
    __syncthreads();
    x[base + t] = tile[blockDim.x - 1 - t];
}

template <typename T>
__global__ void fill(T* out, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}
"""
NAME_EXPRESSIONS = [b"fill<int>", b"fill<float>"]


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hiprtc)


def log_of(prog) -> str:
    n = hip.check(hiprtc.hiprtcGetProgramLogSize(prog))
    buf = bytearray(n)
    if n:
        hip.check(hiprtc.hiprtcGetProgramLog(prog, buf))
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def compile_source(source: bytes, options: list[bytes], names=()):
    prog = hip.check(hiprtc.hiprtcCreateProgram(source, b"kernels.hip", 0, None, None))
    for expr in names:
        hip.check(hiprtc.hiprtcAddNameExpression(prog, expr))
    err, = hiprtc.hiprtcCompileProgram(prog, len(options), options)
    return prog, err


def code_of(prog) -> bytearray:
    code = bytearray(hip.check(hiprtc.hiprtcGetCodeSize(prog)))
    hip.check(hiprtc.hiprtcGetCode(prog, code))
    return code


@pytest.fixture(scope="module")
def program(arch):
    prog, err = compile_source(SOURCE, [f"--offload-arch={arch}".encode()], NAME_EXPRESSIONS)
    assert err == R.HIPRTC_SUCCESS, f"{err!r}\n{log_of(prog)}"
    yield prog
    hip.check(hiprtc.hiprtcDestroyProgram(prog))


@pytest.fixture(scope="module")
def module(program):
    code = code_of(program)
    assert len(code) > 0
    mod = hip.check(h.hipModuleLoadData(code))
    yield mod
    hip.check(h.hipDeviceSynchronize())
    hip.check(h.hipModuleUnload(mod))


def function(module, name: bytes):
    f = hip.check(h.hipModuleGetFunction(module, name))
    assert int(f) != 0
    return f


def launch(f, grid, block, *, shared=0, stream=None, params=None, extra=None):
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    return h.hipModuleLaunchKernel(f, *grid, *block, sharedMemBytes=shared, stream=stream,
                                   kernelParams=params, extra=extra)


def test_launch_with_kernel_params_addresses(module, mem, rng):
    """kernelParams: a list of addresses, one per argument, each pointing at the argument's value."""
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = mem.put(x), mem.put(y)
    values = [ctypes.c_float(2.5), ctypes.c_void_p(int(dx)), ctypes.c_void_p(int(dy)), ctypes.c_int(n)]
    hip.check(launch(function(module, b"axpy"), (math.ceil(n / 128),), (128,),
                     params=[ctypes.addressof(v) for v in values]))
    np.testing.assert_allclose(mem.get(dy, n, np.float32), 2.5 * x + y, rtol=1e-5, atol=1e-6)  # the GPU fuses a*x+y (FMA): one rounding fewer than NumPy


def test_launch_with_kernel_params_ctypes_objects(module, mem, rng, stream):
    """kernelParams: ctypes values stand for their own storage; a c_void_p holds a pointer argument
    (its storage is passed, not the device address it holds, which the driver would read as host memory)."""
    n = 777
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = mem.put(x), mem.put(y)
    params = [ctypes.c_float(-1.5), ctypes.c_void_p(int(dx)), ctypes.c_uint64(int(dy)), ctypes.c_int(n)]
    hip.check(launch(function(module, b"axpy"), (math.ceil(n / 64),), (64,), stream=stream, params=params))
    hip.check(h.hipStreamSynchronize(stream))
    np.testing.assert_allclose(mem.get(dy, n, np.float32), -1.5 * x + y, rtol=1e-5, atol=1e-6)  # the GPU fuses a*x+y (FMA): one rounding fewer than NumPy


def test_device_pointer_in_kernel_params_is_refused(module, mem):
    """A DevicePointer is an argument, not a pointer to one: refused before the driver reads it."""
    dx = mem.put(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="device memory"):
        launch(function(module, b"axpy"), (1,), (4,), params=[ctypes.c_float(1), dx, dx, ctypes.c_int(4)])


def test_launch_with_packed_extra(module, mem, rng):
    """extra=(...): ctypes values and device pointers packed with C alignment (HIP Python's style)."""
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = mem.put(x), mem.put(y)
    hip.check(launch(function(module, b"axpy"), (math.ceil(n / 256),), (256,),
                     extra=(ctypes.c_float(0.5), dx, dy, ctypes.c_int(n))))
    np.testing.assert_allclose(mem.get(dy, n, np.float32), 0.5 * x + y, rtol=1e-5, atol=1e-6)  # the GPU fuses a*x+y (FMA): one rounding fewer than NumPy


def test_mixed_alignment_arguments_both_styles(module, mem):
    """char, double, short, pointer, long long, int: padding in `extra` must match the kernel's layout."""
    n = 300
    expect = np.float32(3 + 0.5 - 7 + 1000) + np.arange(n, dtype=np.float32)
    f = function(module, b"mixed")
    out = mem.put(np.zeros(n, np.float32))
    hip.check(launch(f, (3,), (128,), extra=(ctypes.c_byte(3), ctypes.c_double(0.5), ctypes.c_short(-7), out,
                                             ctypes.c_longlong(1000), ctypes.c_int(n))))
    np.testing.assert_array_equal(mem.get(out, n, np.float32), expect)
    out2 = mem.put(np.zeros(n, np.float32))
    values = [ctypes.c_byte(3), ctypes.c_double(0.5), ctypes.c_short(-7), ctypes.c_void_p(int(out2)),
              ctypes.c_longlong(1000), ctypes.c_int(n)]
    hip.check(launch(f, (3,), (128,), params=[ctypes.addressof(v) for v in values]))
    np.testing.assert_array_equal(mem.get(out2, n, np.float32), expect)


def test_two_dimensional_grid(module, mem):
    w, hgt = 100, 37
    out = mem.put(np.full(w * hgt, -1, np.int32))
    block = h.dim3(x=16, y=8)
    grid = h.dim3(math.ceil(w / 16), math.ceil(hgt / 8))
    hip.check(h.hipModuleLaunchKernel(function(module, b"iota2d"), *grid, *block, sharedMemBytes=0, stream=None,
                                      kernelParams=None, extra=(out, ctypes.c_int(w), ctypes.c_int(hgt))))
    yy, xx = np.mgrid[0:hgt, 0:w]
    np.testing.assert_array_equal(mem.get(out, (hgt, w), np.int32), yy * 1000 + xx)


def test_dynamic_shared_memory_on_a_stream(module, mem, stream):
    block, blocks = 128, 5
    x = np.arange(block * blocks, dtype=np.float32)
    d = mem.put(x)
    hip.check(launch(function(module, b"reverse_block"), (blocks,), (block,), shared=block * 4, stream=stream,
                     extra=(d,)))
    hip.check(h.hipStreamSynchronize(stream))
    np.testing.assert_array_equal(mem.get(d, x.size, np.float32), x.reshape(blocks, block)[:, ::-1].ravel())


def test_name_expressions_and_lowered_names(program, module, mem):
    for expr, dtype, ctype, value in ((b"fill<int>", np.int32, ctypes.c_int, 42),
                                      (b"fill<float>", np.float32, ctypes.c_float, 1.25)):
        lowered = hip.check(hiprtc.hiprtcGetLoweredName(program, expr))
        if not isinstance(lowered, bytes):                   # a char* as a Pointer
            lowered = ctypes.string_at(int(lowered))
        assert lowered.startswith(b"_Z") and b"fill" in lowered, lowered
        n = 500
        out = mem.put(np.zeros(n, dtype))
        hip.check(launch(function(module, lowered), (2,), (256,), extra=(out, ctype(value), ctypes.c_int(n))))
        assert (mem.get(out, n, dtype) == value).all()
    err, _ = hiprtc.hiprtcGetLoweredName(program, b"fill<double>")      # never added
    assert err != R.HIPRTC_SUCCESS


def test_module_global(module, mem):
    ptr, size = hip.check(h.hipModuleGetGlobal(module, b"scale_factor"))
    assert size == 4 and int(ptr) != 0
    value = np.zeros(1, np.float32)
    hip.check(h.hipMemcpy(value, ptr, 4, h.hipMemcpyKind.hipMemcpyDeviceToHost))
    assert value[0] == 2.0
    hip.check(h.hipMemcpy(ptr, np.array([3.0], np.float32), 4, h.hipMemcpyKind.hipMemcpyHostToDevice))
    n = 100
    d = mem.put(np.ones(n, np.float32))
    hip.check(launch(function(module, b"scale_by_global"), (1,), (128,), extra=(d, ctypes.c_int(n))))
    assert (mem.get(d, n, np.float32) == 3.0).all()


def test_function_attributes(module):
    f = function(module, b"axpy")
    fa = h.hipFunction_attribute
    max_threads = hip.check(h.hipFuncGetAttribute(fa.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f))
    assert 1 <= max_threads <= 1024
    assert hip.check(h.hipFuncGetAttribute(fa.HIP_FUNC_ATTRIBUTE_NUM_REGS, f)) >= 0


def test_missing_function_fails(module):
    err, _ = h.hipModuleGetFunction(module, b"no_such_kernel")
    assert err == h.hipError_t.hipErrorNotFound, err


def test_too_many_threads_fails(module, mem):
    d = mem.alloc(4)
    err, = launch(function(module, b"reverse_block"), (1,), (4096,), extra=(d,))
    assert err != SUCCESS
    h.hipGetLastError()


def test_compile_error_has_log(arch):
    prog, err = compile_source(b'extern "C" __global__ void broken(float* x) { x[0] = 1.0f undefined_name; }\n',
                               [f"--offload-arch={arch}".encode()])
    try:
        assert err == R.HIPRTC_ERROR_COMPILATION, err
        log = log_of(prog)
        assert log.strip(), "the compile log is empty"
        assert "error" in log.lower(), log
    finally:
        hip.check(hiprtc.hiprtcDestroyProgram(prog))


def test_common_options_compile(arch, mem):
    """AMD-style options a HIP program passes (-O3, -ffast-math, -D, -I-less std) still compile."""
    src = b'#include <hip/hip_runtime.h>\nextern "C" __global__ void k(float* x) { x[threadIdx.x] = VALUE; }\n'
    prog, err = compile_source(src, [f"--offload-arch={arch}".encode(), b"-O3", b"-DVALUE=7.0f", b"-ffast-math",
                                     b"-std=c++17"])
    try:
        assert err == R.HIPRTC_SUCCESS, log_of(prog)
        mod = hip.check(h.hipModuleLoadData(code_of(prog)))
        d = mem.alloc(32 * 4)
        hip.check(launch(hip.check(h.hipModuleGetFunction(mod, b"k")), (1,), (32,), extra=(d,)))
        assert (mem.get(d, 32, np.float32) == 7.0).all()
        hip.check(h.hipModuleUnload(mod))
    finally:
        hip.check(hiprtc.hiprtcDestroyProgram(prog))


def test_version_and_error_string():
    major, minor = hip.check(hiprtc.hiprtcVersion())
    assert major > 0 and minor >= 0
    s = hip.check(hiprtc.hiprtcGetErrorString(R.HIPRTC_ERROR_COMPILATION))
    assert s and isinstance(s, CStr) and bytes(s)            # AMD's HIP Python: a CStr
