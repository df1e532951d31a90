"""How statuses, enums and handles behave: what programs print, compare and test.

Failing calls and their statuses (an invalid device, an allocation too large, a missing function),
cudaGetLastError / cudaPeekAtLastError, error names and strings from all three modules; how a status
prints and compares (str, repr, f-strings, ==, isinstance, bool, int, .name, .value, lookup by value);
what type each call returns (ints from the runtime, CUdeviceptr and friends from the driver) and how
handles compare; the TypeErrors cuLaunchKernel raises for kernelParams it does not accept. Nothing
printed depends on an address.
"""
import ctypes

from cuda.bindings import driver, nvrtc, runtime


def check(result):
    err = result[0]
    if int(err) != 0:
        raise RuntimeError(f"unexpected status {err!r}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def kind(obj):
    return type(obj).__name__


def main():
    check(driver.cuInit(0))
    count = check(runtime.cudaGetDeviceCount())

    # failing calls
    err, = runtime.cudaSetDevice(count)
    print("cudaSetDevice(count):", err.name)
    print("cudaPeekAtLastError:", runtime.cudaPeekAtLastError()[0].name)
    print("cudaGetLastError:", runtime.cudaGetLastError()[0].name)
    print("cudaGetLastError again:", runtime.cudaGetLastError()[0].name)
    check(runtime.cudaSetDevice(0))
    err, ptr = runtime.cudaMalloc(1 << 60)
    print("cudaMalloc(2**60):", err.name, "and the pointer is", ptr)
    print("cudaGetLastError after it:", runtime.cudaGetLastError()[0].name)
    err, dev = driver.cuDeviceGet(count)
    print("cuDeviceGet(count):", err.name, "and the device is", dev)
    err, dptr = driver.cuMemAlloc(1 << 60)
    print("cuMemAlloc(2**60):", err.name)

    # names and strings
    print("cuGetErrorName:", driver.cuGetErrorName(driver.CUresult.CUDA_ERROR_INVALID_DEVICE))
    print("cuGetErrorString:", driver.cuGetErrorString(driver.CUresult.CUDA_ERROR_INVALID_DEVICE))
    print("cudaGetErrorName:", runtime.cudaGetErrorName(runtime.cudaError_t.cudaErrorInvalidDevice))
    print("cudaGetErrorString:", runtime.cudaGetErrorString(runtime.cudaError_t.cudaErrorMemoryAllocation))
    print("nvrtcGetErrorString:", nvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION))

    # a status as a value
    err = runtime.cudaError_t.cudaErrorInvalidDevice
    print("str:", str(err))
    print("repr:", repr(err))
    print(f"f-string: {err}; with !r: {err!r}; as a number: {err:d}")
    print("name:", err.name, "value:", err.value, "int:", int(err))
    print("== its value:", err == 101, "== another status:", err == runtime.cudaError_t.cudaSuccess)
    print("isinstance cudaError_t:", isinstance(err, runtime.cudaError_t), "isinstance int:", isinstance(err, int),
          "isinstance CUresult:", isinstance(err, driver.CUresult))
    print("bool of an error:", bool(err), "bool of success:", bool(runtime.cudaError_t.cudaSuccess))
    print("looked up by value:", runtime.cudaError_t(101) is err, driver.CUresult(0) is driver.CUresult.CUDA_SUCCESS)
    print("usable as a dict key with its value:", {101: "found"}.get(err))
    print("driver enum:", repr(driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY), "nvrtc enum:",
          repr(nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_OPTION))
    print("an attribute enum:", repr(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE))

    # what the calls return
    d_runtime = check(runtime.cudaMalloc(64))
    d_driver = check(driver.cuMemAlloc(64))
    stream = check(runtime.cudaStreamCreate())
    cu_stream = check(driver.cuStreamCreate(0))
    event = check(runtime.cudaEventCreate())
    device = check(driver.cuDeviceGet(0))
    context = check(driver.cuCtxGetCurrent())
    pool = check(runtime.cudaDeviceGetDefaultMemPool(0))
    threshold = check(runtime.cudaMemPoolGetAttribute(pool, runtime.cudaMemPoolAttr.cudaMemPoolAttrReleaseThreshold))
    prog = check(nvrtc.nvrtcCreateProgram(b'extern "C" __global__ void k() {}', b"k.cu", 0, [], []))
    for label, obj in (("cudaMalloc", d_runtime), ("cuMemAlloc", d_driver), ("cudaStreamCreate", stream),
                       ("cuStreamCreate", cu_stream), ("cudaEventCreate", event), ("cuDeviceGet", device),
                       ("cuCtxGetCurrent", context), ("cudaDeviceGetDefaultMemPool", pool),
                       ("cudaMemPoolGetAttribute(threshold)", threshold), ("nvrtcCreateProgram", prog),
                       ("cudaGetDeviceProperties", check(runtime.cudaGetDeviceProperties(0)))):
        print(f"{label} returns {kind(obj)}")
    print("repr of a device:", repr(device), "str:", str(device))
    print("handles are non-zero ints:", all(int(h) != 0 for h in (d_driver, stream, cu_stream, event, context)))
    print("getPtr() is not the handle's value:", d_driver.getPtr() != int(d_driver))
    print("CUdeviceptr == same value:", d_driver == driver.CUdeviceptr(int(d_driver)),
          "int() equal:", int(d_driver) == int(driver.CUdeviceptr(int(d_driver))))
    print("CUdevice == 0:", device == 0, "== CUdevice(0):", device == driver.CUdevice(0), "int:", int(device))
    print("cudaStream_t == same value:", stream == runtime.cudaStream_t(int(stream)),
          "CUstream == cudaStream_t of it:", driver.CUstream(int(stream)) == stream)
    print("CUcontext == same value:", context == driver.CUcontext(int(context)),
          "hash equal:", hash(context) == hash(driver.CUcontext(int(context))))
    print("a NULL context is truthy:", bool(driver.CUcontext(0)), "and 0 as an int:", int(driver.CUcontext(0)))
    print("CU_STREAM_LEGACY:", kind(driver.CU_STREAM_LEGACY), int(driver.CU_STREAM_LEGACY),
          "CU_STREAM_PER_THREAD:", int(driver.CU_STREAM_PER_THREAD),
          "cudaStreamLegacy:", int(runtime.cudaStreamLegacy), "cudaStreamPerThread:", int(runtime.cudaStreamPerThread))
    print("cuuint64_t:", repr(driver.cuuint64_t(5)), int(driver.cuuint64_t(5)))

    # kernelParams cuLaunchKernel refuses before it launches anything
    major = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin_size = check(nvrtc.nvrtcGetCUBINSize(prog))
    bad_forms = {
        "lists instead of tuples": ([d_driver], [None]),
        "an int with None for its type": ((5,), (None,)),
        "tuples of different lengths": ((d_driver, 1), (None,)),
        "an unsupported ctypes type": ((1,), (ctypes.c_char_p,)),
        "a string": "not parameters",
    }
    cubin = b" " * cubin_size
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    kernel = check(driver.cuModuleGetFunction(module, b"k"))
    for label, params in bad_forms.items():
        try:
            result = driver.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)
            print(f"kernelParams {label}: accepted, {result[0].name}")
        except Exception as e:
            print(f"kernelParams {label}: {type(e).__name__}")
    print("None for kernelParams:", driver.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, 0, None, 0)[0].name)
    check(driver.cuCtxSynchronize())
    check(driver.cuModuleUnload(module))
    check(nvrtc.nvrtcDestroyProgram(prog))

    # other bad arguments
    for label, call in (("cudaSetDevice('0')", lambda: runtime.cudaSetDevice("0")),
                        ("cudaMalloc(-1)", lambda: runtime.cudaMalloc(-1)),
                        ("cuDeviceGetAttribute(None, device)", lambda: driver.cuDeviceGetAttribute(None, device)),
                        ("cuMemcpyHtoD from a str", lambda: driver.cuMemcpyHtoD(d_driver, "text", 4))):
        try:
            result = call()
            print(f"{label}: returned {result[0].name}")
        except Exception as e:
            print(f"{label}: {type(e).__name__}")

    check(runtime.cudaFree(d_runtime))
    check(driver.cuMemFree(d_driver))
    check(runtime.cudaStreamDestroy(stream))
    check(driver.cuStreamDestroy(cu_stream))
    check(runtime.cudaEventDestroy(event))
    print("done")


if __name__ == "__main__":
    main()
