"""Virtual memory management.

cuMemGetAllocationGranularity, cuMemAddressReserve of a range, two physical chunks from cuMemCreate
mapped side by side with cuMemMap, cuMemSetAccess / cuMemGetAccess, a kernel that runs across the
chunk boundary, memory that stays mapped after cuMemRelease of its handles,
cuMemRetainAllocationHandle / cuMemGetAllocationPropertiesFromHandle, remapping half of the range to
new physical memory, cuMemUnmap and cuMemAddressFree.
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
extern "C" __global__ void add_index(int *x, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += (int)i;
}
"""


def main():
    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    supported = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device))
    print("virtual memory management supported:", supported)
    context = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(context))
    major = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"vmm.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = check(driver.cuModuleLoadData(cubin))
    add_index = check(driver.cuModuleGetFunction(module, b"add_index"))

    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = device
    granularity = check(driver.cuMemGetAllocationGranularity(
        prop, driver.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    recommended = check(driver.cuMemGetAllocationGranularity(
        prop, driver.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    print("granularity is a power of two:", granularity > 0 and granularity & (granularity - 1) == 0)
    print("recommended granularity is a multiple of the minimum:", recommended % granularity == 0)

    chunk = granularity
    size = 2 * chunk
    ptr = check(driver.cuMemAddressReserve(size, 0, driver.CUdeviceptr(0), 0))
    print("reserved address is aligned to the granularity:", int(ptr) % granularity == 0)
    first = check(driver.cuMemCreate(chunk, prop, 0))
    second = check(driver.cuMemCreate(chunk, prop, 0))
    check(driver.cuMemMap(ptr, chunk, 0, first, 0))
    check(driver.cuMemMap(int(ptr) + chunk, chunk, 0, second, 0))

    access = driver.CUmemAccessDesc()
    access.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    access.location.id = device
    access.flags = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    check(driver.cuMemSetAccess(ptr, size, [access], 1))
    flags = check(driver.cuMemGetAccess(access.location, ptr))
    print("access flags of the device:", driver.CUmemAccess_flags(flags).name)

    n = size // 4
    data = np.arange(n, dtype=np.int32) * 3
    check(driver.cuMemcpyHtoD(ptr, data, data.nbytes))
    threads = 256
    blocks = (n + threads - 1) // threads
    check(driver.cuLaunchKernel(add_index, blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((ptr, n), (None, ctypes.c_longlong)), 0))
    out = np.empty_like(data)
    check(driver.cuMemcpyDtoH(out, ptr, out.nbytes))
    print("a kernel across both chunks:", np.array_equal(out, data + np.arange(n, dtype=np.int32)))

    # the mapping keeps the memory alive after the handles are released
    check(driver.cuMemRelease(first))
    check(driver.cuMemRelease(second))
    check(driver.cuMemcpyDtoH(out, ptr, out.nbytes))
    print("still mapped after cuMemRelease:", np.array_equal(out, data * 4 // 3))

    handle = check(driver.cuMemRetainAllocationHandle(ptr))
    retained = check(driver.cuMemGetAllocationPropertiesFromHandle(handle))
    print("retained handle: type", retained.type.name, "location", retained.location.type.name,
          "device", retained.location.id == int(device))
    check(driver.cuMemRelease(handle))

    # give the second half new physical memory
    check(driver.cuMemUnmap(int(ptr) + chunk, chunk))
    third = check(driver.cuMemCreate(chunk, prop, 0))
    check(driver.cuMemMap(int(ptr) + chunk, chunk, 0, third, 0))
    check(driver.cuMemRelease(third))
    check(driver.cuMemSetAccess(int(ptr) + chunk, chunk, [access], 1))
    check(driver.cuMemsetD32(int(ptr) + chunk, 0xFFFFFFFF, chunk // 4))
    check(driver.cuMemcpyDtoH(out, ptr, out.nbytes))
    half = n // 2
    print("first half kept, second half remapped and cleared:",
          np.array_equal(out[:half], (data * 4 // 3)[:half]) and bool((out[half:] == -1).all()))

    check(driver.cuMemUnmap(ptr, size))
    check(driver.cuMemAddressFree(ptr, size))
    check(driver.cuModuleUnload(module))
    check(driver.cuDevicePrimaryCtxRelease(device))
    print("done")


if __name__ == "__main__":
    main()
