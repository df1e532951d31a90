"""Device properties through the runtime and the driver, which must agree.

cudaGetDeviceCount, cudaGetDeviceProperties (fields that CUDA 13 still has), cudaDeviceGetAttribute
and cuDeviceGetAttribute for the same facts, cuDeviceGetName, cuDeviceTotalMem, cuDeviceGetUuid
against the properties' uuid, the PCI bus id both ways, driver and runtime versions (only as "set").
"""
from cuda.bindings import driver, runtime


def check(result):
    err = result[0]
    if isinstance(err, runtime.cudaError_t) and err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error {err.name}")
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err.name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


PAIRS = [  # (cudaDeviceProp field, runtime attribute, driver attribute)
    ("major", "cudaDevAttrComputeCapabilityMajor", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
    ("minor", "cudaDevAttrComputeCapabilityMinor", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"),
    ("multiProcessorCount", "cudaDevAttrMultiProcessorCount", "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
    ("warpSize", "cudaDevAttrWarpSize", "CU_DEVICE_ATTRIBUTE_WARP_SIZE"),
    ("maxThreadsPerBlock", "cudaDevAttrMaxThreadsPerBlock", "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
    ("maxThreadsPerMultiProcessor", "cudaDevAttrMaxThreadsPerMultiProcessor",
     "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR"),
    ("sharedMemPerBlock", "cudaDevAttrMaxSharedMemoryPerBlock", "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"),
    ("sharedMemPerBlockOptin", "cudaDevAttrMaxSharedMemoryPerBlockOptin",
     "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
    ("regsPerBlock", "cudaDevAttrMaxRegistersPerBlock", "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK"),
    ("l2CacheSize", "cudaDevAttrL2CacheSize", "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"),
    ("totalConstMem", "cudaDevAttrTotalConstantMemory", "CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY"),
    ("memoryBusWidth", "cudaDevAttrGlobalMemoryBusWidth", "CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"),
    ("pciBusID", "cudaDevAttrPciBusId", "CU_DEVICE_ATTRIBUTE_PCI_BUS_ID"),
    ("managedMemory", "cudaDevAttrManagedMemory", "CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY"),
    ("concurrentManagedAccess", "cudaDevAttrConcurrentManagedAccess", "CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS"),
    ("canMapHostMemory", "cudaDevAttrCanMapHostMemory", "CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY"),
    ("unifiedAddressing", "cudaDevAttrUnifiedAddressing", "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING"),
    ("cooperativeLaunch", "cudaDevAttrCooperativeLaunch", "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH"),
    ("memoryPoolsSupported", "cudaDevAttrMemoryPoolsSupported", "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED"),
    ("asyncEngineCount", "cudaDevAttrAsyncEngineCount", "CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT"),
    ("concurrentKernels", "cudaDevAttrConcurrentKernels", "CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS"),
    ("integrated", "cudaDevAttrIntegrated", "CU_DEVICE_ATTRIBUTE_INTEGRATED"),
]


def main():
    check(driver.cuInit(0))
    count = check(runtime.cudaGetDeviceCount())
    print("devices:", count, "driver sees the same:", check(driver.cuDeviceGetCount()) == count)
    check(runtime.cudaSetDevice(0))
    print("current device:", check(runtime.cudaGetDevice()))

    prop = check(runtime.cudaGetDeviceProperties(0))
    print("name:", prop.name.decode())
    print("compute capability:", f"{prop.major}.{prop.minor}")
    print("maxThreadsDim:", list(prop.maxThreadsDim), "maxGridSize:", list(prop.maxGridSize))
    print("totalGlobalMem is at least 1 GiB:", prop.totalGlobalMem >= 1 << 30)
    for field, rt_attr, drv_attr in PAIRS:
        from_prop = getattr(prop, field)
        from_rt = check(runtime.cudaDeviceGetAttribute(getattr(runtime.cudaDeviceAttr, rt_attr), 0))
        from_drv = check(driver.cuDeviceGetAttribute(getattr(driver.CUdevice_attribute, drv_attr),
                                                     check(driver.cuDeviceGet(0))))
        agree = from_prop == from_rt == from_drv
        print(f"{field} = {from_prop}" + ("" if agree else f"  (runtime {from_rt}, driver {from_drv})"))

    device = check(driver.cuDeviceGet(0))
    name = check(driver.cuDeviceGetName(256, device))
    print("cuDeviceGetName matches:", name.split(b"\x00")[0] == prop.name.split(b"\x00")[0])
    print("cuDeviceGetName gives", type(name).__name__, "of length", len(name))
    print("cuDeviceTotalMem == totalGlobalMem:", check(driver.cuDeviceTotalMem(device)) == prop.totalGlobalMem)
    uuid = check(driver.cuDeviceGetUuid(device))
    print("cuDeviceGetUuid == prop.uuid:", bytes(uuid.bytes) == bytes(prop.uuid.bytes))

    bus_id = check(runtime.cudaDeviceGetPCIBusId(32, 0))
    bus_id = bus_id.split(b"\x00")[0]
    print("PCI bus id has a domain, bus, device and function:", bus_id.count(b":") == 2 and b"." in bus_id)
    print("cudaDeviceGetByPCIBusId finds device", check(runtime.cudaDeviceGetByPCIBusId(bus_id)))

    print("driver version is set:", check(runtime.cudaDriverGetVersion()) > 0,
          "and the driver API agrees:", check(runtime.cudaDriverGetVersion()) == check(driver.cuDriverGetVersion()))
    print("runtime version is set:", check(runtime.cudaRuntimeGetVersion()) > 0)
    free, total = check(driver.cuMemGetInfo())
    print("cuMemGetInfo total == totalGlobalMem:", total == prop.totalGlobalMem)
    print("done")


if __name__ == "__main__":
    main()
