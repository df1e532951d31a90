"""Driver API vector add, compiled at run time with NVRTC.

NVRTC compiles for compute_XX of device 0 (PTX), cuModuleLoadData loads the PTX, and cuLaunchKernel
launches with kernelParams in every form cuda.bindings accepts: ((values), (ctypes types)) with None
for CUdeviceptr values, with ctypes.c_void_p for int addresses, with ctypes instances as values; an
array of argument addresses given as an int address, and the same array given as a buffer. Scalars
of every common width (signed char, short, int, long long, size_t, float, double) reach the kernel
intact. Results are checked against NumPy; nothing printed depends on addresses or timing.
"""
import ctypes
import sys

import numpy as np

from cuda.bindings import driver, nvrtc


def check(result):
    """cuda.bindings returns (status, values...): the values, or RuntimeError naming the status."""
    err = result[0]
    if isinstance(err, driver.CUresult):
        if err != driver.CUresult.CUDA_SUCCESS:
            _, name = driver.cuGetErrorName(err)
            raise RuntimeError(f"CUDA error {err.value} ({name.decode()})")
    elif isinstance(err, nvrtc.nvrtcResult):
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC error {nvrtc.nvrtcGetErrorString(err)[1].decode()}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


SOURCE = b"""
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(float alpha, const float *x, float *y, size_t n)
{
    size_t i = (size_t)blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void scalars(signed char c, short s, int i, long long ll, double d, int *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = c;
        out[1] = s;
        out[2] = i;
        out[3] = (int)(ll >> 32);
        out[4] = (int)(ll & 0xffffffffLL);
        out[5] = (int)(d * 4.0);
    }
}
"""


def compile_program(arch):
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"vector_add.cu", 0, [], []))
    opts = [b"--gpu-architecture=" + arch.encode()]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        log_size = check(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * log_size
        check(nvrtc.nvrtcGetProgramLog(prog, log))
        print(log.decode(), file=sys.stderr)
        raise RuntimeError(f"nvrtcCompileProgram: {err.name}")
    return prog


def main():
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    major = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    context = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(context))

    # PTX for compute_XX, loaded from a NumPy char array by address (cuda.bindings' own sample does this)
    prog = compile_program(f"compute_{major}{minor}")
    ptx_size = check(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * ptx_size
    check(nvrtc.nvrtcGetPTX(prog, ptx))
    check(nvrtc.nvrtcDestroyProgram(prog))
    print("PTX produced:", ptx_size > 1)
    ptx = np.char.array(ptx)
    err, module = driver.cuModuleLoadData(ptx.ctypes.data)
    if err == driver.CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        # NVRTC newer than the driver: the same source as a CUBIN (not part of what is compared)
        print("PTX newer than the driver; loading a CUBIN instead", file=sys.stderr)
        prog = compile_program(f"sm_{major}{minor}")
        cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
        check(nvrtc.nvrtcGetCUBIN(prog, cubin))
        check(nvrtc.nvrtcDestroyProgram(prog))
        module = check(driver.cuModuleLoadData(cubin))
    else:
        check((err,))
    vector_add = check(driver.cuModuleGetFunction(module, b"vector_add"))
    saxpy = check(driver.cuModuleGetFunction(module, b"saxpy"))
    scalars = check(driver.cuModuleGetFunction(module, b"scalars"))
    max_threads = check(driver.cuFuncGetAttribute(
        driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, vector_add))
    print("vector_add takes 256 threads a block:", max_threads >= 256)

    n = 100_000
    rng = np.random.default_rng(20240611)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    nbytes = a.nbytes
    d_a = check(driver.cuMemAlloc(nbytes))
    d_b = check(driver.cuMemAlloc(nbytes))
    d_c = check(driver.cuMemAlloc(nbytes))
    stream = check(driver.cuStreamCreate(0))
    check(driver.cuMemcpyHtoDAsync(d_a, a, nbytes, stream))
    check(driver.cuMemcpyHtoDAsync(d_b, b, nbytes, stream))

    threads = 256
    blocks = (n + threads - 1) // threads
    expected = a + b

    def launch(label, kernel_params):
        check(driver.cuMemsetD32Async(d_c, 0, n, stream))
        check(driver.cuLaunchKernel(vector_add, blocks, 1, 1, threads, 1, 1, 0, stream, kernel_params, 0))
        c = np.empty(n, dtype=np.float32)
        check(driver.cuMemcpyDtoHAsync(c, d_c, nbytes, stream))
        check(driver.cuStreamSynchronize(stream))
        print(f"{label}: {np.array_equal(c, expected)}")

    launch("values and types, None for CUdeviceptr",
           ((d_a, d_b, d_c, n), (None, None, None, ctypes.c_int)))
    launch("values and types, c_void_p for int addresses",
           ((int(d_a), int(d_b), int(d_c), n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)))
    launch("ctypes instances as values",
           ((ctypes.c_void_p(int(d_a)), ctypes.c_void_p(int(d_b)), ctypes.c_void_p(int(d_c)), ctypes.c_int(n)),
            (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)))
    # an array of pointers to the argument values (cuda.bindings' overview sample)
    values = [np.array([int(d_a)], dtype=np.uint64), np.array([int(d_b)], dtype=np.uint64),
              np.array([int(d_c)], dtype=np.uint64), np.array([n], dtype=np.int32)]
    addresses = np.array([v.ctypes.data for v in values], dtype=np.uint64)
    launch("array of argument addresses, by address", addresses.ctypes.data)
    launch("array of argument addresses, as a buffer", addresses)

    # float and size_t scalars; the legacy default stream by name
    x, y = a, b.copy()
    check(driver.cuMemcpyHtoD(d_c, y, nbytes))
    check(driver.cuLaunchKernel(saxpy, blocks, 1, 1, threads, 1, 1, 0, driver.CU_STREAM_LEGACY,
                                ((2.5, d_a, d_c, n), (ctypes.c_float, None, None, ctypes.c_size_t)), 0))
    check(driver.cuCtxSynchronize())
    got = np.empty(n, dtype=np.float32)
    check(driver.cuMemcpyDtoH(got, d_c, nbytes))
    print("saxpy (float, size_t) on CU_STREAM_LEGACY:", np.allclose(got, 2.5 * x + y, rtol=1e-6, atol=1e-6))

    # every scalar width, on the NULL stream (0)
    d_out = check(driver.cuMemAlloc(6 * 4))
    args = ((-5, -7, -123456, 0x123456789, 2.5, d_out),
            (ctypes.c_byte, ctypes.c_short, ctypes.c_int, ctypes.c_longlong, ctypes.c_double, None))
    check(driver.cuLaunchKernel(scalars, 1, 1, 1, 32, 1, 1, 0, 0, args, 0))
    out = np.zeros(6, dtype=np.int32)
    check(driver.cuMemcpyDtoH(out, d_out, out.nbytes))
    print("scalars seen by the kernel:", out.tolist())

    for d in (d_a, d_b, d_c, d_out):
        check(driver.cuMemFree(d))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    check(driver.cuDevicePrimaryCtxRelease(device))
    print("done")


if __name__ == "__main__":
    main()
