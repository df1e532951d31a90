"""Device queries: hipGetDeviceProperties and hipDeviceGetAttribute against CUDA's own answers
(cuda.bindings' cudaGetDeviceProperties / cudaDeviceGetAttribute on the same GPU), gcnArchName,
names, PCI ids, UUIDs, device selection and the last-error state."""
from __future__ import annotations

import ctypes
import re

import pytest

import hip
from hip._util.types import CStr
from hip import hip as h

from gpu_util import SUCCESS, cuda_check, cuda_runtime, on_nvidia, text

pytestmark = pytest.mark.gpu

A = h.hipDeviceAttribute_t

# hipDeviceProp_t fields that cudaDeviceProp has under the same name. CORE: what issue 4 names.
CORE_FIELDS = ["name", "totalGlobalMem", "multiProcessorCount", "major", "minor", "warpSize",
               "maxThreadsPerBlock", "maxThreadsDim", "maxGridSize", "sharedMemPerBlock", "l2CacheSize",
               "pciBusID", "pciDeviceID", "pciDomainID", "regsPerBlock", "totalConstMem",
               "maxThreadsPerMultiProcessor", "sharedMemPerMultiprocessor", "regsPerMultiprocessor",
               "sharedMemPerBlockOptin", "memoryBusWidth", "maxBlocksPerMultiProcessor"]
OTHER_FIELDS = ["memPitch", "textureAlignment", "texturePitchAlignment", "integrated", "canMapHostMemory",
                "concurrentKernels", "ECCEnabled", "tccDriver", "asyncEngineCount", "unifiedAddressing",
                "persistingL2CacheMaxSize", "streamPrioritiesSupported", "globalL1CacheSupported",
                "localL1CacheSupported", "managedMemory", "isMultiGpuBoard", "multiGpuBoardGroupID",
                "hostNativeAtomicSupported", "pageableMemoryAccess", "concurrentManagedAccess",
                "computePreemptionSupported", "canUseHostPointerForRegisteredMem", "cooperativeLaunch",
                "pageableMemoryAccessUsesHostPageTables", "directManagedMemAccessFromHost",
                "accessPolicyMaxWindowSize", "reservedSharedMemPerBlock", "hostRegisterSupported",
                "hostRegisterReadOnlySupported", "timelineSemaphoreInteropSupported", "memoryPoolsSupported",
                "gpuDirectRDMASupported", "gpuDirectRDMAFlushWritesOptions", "gpuDirectRDMAWritesOrdering",
                "memoryPoolSupportedHandleTypes", "ipcEventSupported", "clusterLaunch", "unifiedFunctionPointers",
                "maxTexture1D", "maxTexture1DMipmap", "maxTexture2D", "maxTexture2DMipmap", "maxTexture2DLinear",
                "maxTexture2DGather", "maxTexture3D", "maxTexture3DAlt", "maxTextureCubemap",
                "maxTexture1DLayered", "maxTexture2DLayered", "maxTextureCubemapLayered", "maxSurface1D",
                "maxSurface2D", "maxSurface3D", "maxSurface1DLayered", "maxSurface2DLayered",
                "maxSurfaceCubemap", "maxSurfaceCubemapLayered", "surfaceAlignment"]
RENAMED_FIELDS = [("sparseHipArraySupported", "sparseCudaArraySupported"),
                  ("deferredMappingHipArraySupported", "deferredMappingCudaArraySupported")]
# Fields CUDA 13 dropped from cudaDeviceProp: HIP still has them; CUDA answers through attributes.
ATTRIBUTE_FIELDS = [("clockRate", "cudaDevAttrClockRate"), ("memoryClockRate", "cudaDevAttrMemoryClockRate"),
                    ("computeMode", "cudaDevAttrComputeMode"),
                    ("kernelExecTimeoutEnabled", "cudaDevAttrKernelExecTimeout"),
                    ("deviceOverlap", "cudaDevAttrGpuOverlap"),
                    ("maxTexture1DLinear", "cudaDevAttrMaxTexture1DLinearWidth"),
                    ("singleToDoublePrecisionPerfRatio", "cudaDevAttrSingleToDoublePrecisionPerfRatio"),
                    ("cooperativeMultiDeviceLaunch", "cudaDevAttrCooperativeMultiDeviceLaunch")]
# hipDeviceGetAttribute -> cudaDeviceGetAttribute
ATTRIBUTES = [
    ("hipDeviceAttributeMaxThreadsPerBlock", "cudaDevAttrMaxThreadsPerBlock"),
    ("hipDeviceAttributeMaxBlockDimX", "cudaDevAttrMaxBlockDimX"),
    ("hipDeviceAttributeMaxBlockDimY", "cudaDevAttrMaxBlockDimY"),
    ("hipDeviceAttributeMaxBlockDimZ", "cudaDevAttrMaxBlockDimZ"),
    ("hipDeviceAttributeMaxGridDimX", "cudaDevAttrMaxGridDimX"),
    ("hipDeviceAttributeMaxGridDimY", "cudaDevAttrMaxGridDimY"),
    ("hipDeviceAttributeMaxGridDimZ", "cudaDevAttrMaxGridDimZ"),
    ("hipDeviceAttributeMaxSharedMemoryPerBlock", "cudaDevAttrMaxSharedMemoryPerBlock"),
    ("hipDeviceAttributeTotalConstantMemory", "cudaDevAttrTotalConstantMemory"),
    ("hipDeviceAttributeWarpSize", "cudaDevAttrWarpSize"),
    ("hipDeviceAttributeMaxRegistersPerBlock", "cudaDevAttrMaxRegistersPerBlock"),
    ("hipDeviceAttributeClockRate", "cudaDevAttrClockRate"),
    ("hipDeviceAttributeMemoryClockRate", "cudaDevAttrMemoryClockRate"),
    ("hipDeviceAttributeMemoryBusWidth", "cudaDevAttrGlobalMemoryBusWidth"),
    ("hipDeviceAttributeMultiprocessorCount", "cudaDevAttrMultiProcessorCount"),
    ("hipDeviceAttributeComputeMode", "cudaDevAttrComputeMode"),
    ("hipDeviceAttributeL2CacheSize", "cudaDevAttrL2CacheSize"),
    ("hipDeviceAttributeMaxThreadsPerMultiProcessor", "cudaDevAttrMaxThreadsPerMultiProcessor"),
    ("hipDeviceAttributeComputeCapabilityMajor", "cudaDevAttrComputeCapabilityMajor"),
    ("hipDeviceAttributeComputeCapabilityMinor", "cudaDevAttrComputeCapabilityMinor"),
    ("hipDeviceAttributeConcurrentKernels", "cudaDevAttrConcurrentKernels"),
    ("hipDeviceAttributePciBusId", "cudaDevAttrPciBusId"),
    ("hipDeviceAttributePciDeviceId", "cudaDevAttrPciDeviceId"),
    ("hipDeviceAttributePciDomainID", "cudaDevAttrPciDomainId"),
    ("hipDeviceAttributeMaxSharedMemoryPerMultiprocessor", "cudaDevAttrMaxSharedMemoryPerMultiprocessor"),
    ("hipDeviceAttributeSharedMemPerMultiprocessor", "cudaDevAttrMaxSharedMemoryPerMultiprocessor"),
    ("hipDeviceAttributeSharedMemPerBlockOptin", "cudaDevAttrMaxSharedMemoryPerBlockOptin"),
    ("hipDeviceAttributeMaxRegistersPerMultiprocessor", "cudaDevAttrMaxRegistersPerMultiprocessor"),
    ("hipDeviceAttributeMaxBlocksPerMultiProcessor", "cudaDevAttrMaxBlocksPerMultiprocessor"),
    ("hipDeviceAttributeIntegrated", "cudaDevAttrIntegrated"),
    ("hipDeviceAttributeCanMapHostMemory", "cudaDevAttrCanMapHostMemory"),
    ("hipDeviceAttributeEccEnabled", "cudaDevAttrEccEnabled"),
    ("hipDeviceAttributeUnifiedAddressing", "cudaDevAttrUnifiedAddressing"),
    ("hipDeviceAttributeManagedMemory", "cudaDevAttrManagedMemory"),
    ("hipDeviceAttributeConcurrentManagedAccess", "cudaDevAttrConcurrentManagedAccess"),
    ("hipDeviceAttributePageableMemoryAccess", "cudaDevAttrPageableMemoryAccess"),
    ("hipDeviceAttributeCooperativeLaunch", "cudaDevAttrCooperativeLaunch"),
    ("hipDeviceAttributeAsyncEngineCount", "cudaDevAttrAsyncEngineCount"),
    ("hipDeviceAttributeStreamPrioritiesSupported", "cudaDevAttrStreamPrioritiesSupported"),
    ("hipDeviceAttributeTextureAlignment", "cudaDevAttrTextureAlignment"),
    ("hipDeviceAttributeTexturePitchAlignment", "cudaDevAttrTexturePitchAlignment"),
    ("hipDeviceAttributeMaxPitch", "cudaDevAttrMaxPitch"),
    ("hipDeviceAttributeKernelExecTimeout", "cudaDevAttrKernelExecTimeout"),
    ("hipDeviceAttributeMemoryPoolsSupported", "cudaDevAttrMemoryPoolsSupported"),
    ("hipDeviceAttributeHostNativeAtomicSupported", "cudaDevAttrHostNativeAtomicSupported"),
    ("hipDeviceAttributeIsMultiGpuBoard", "cudaDevAttrIsMultiGpuBoard"),
    ("hipDeviceAttributeMultiGpuBoardGroupID", "cudaDevAttrMultiGpuBoardGroupID"),
    ("hipDeviceAttributeComputePreemptionSupported", "cudaDevAttrComputePreemptionSupported"),
    ("hipDeviceAttributeDirectManagedMemAccessFromHost", "cudaDevAttrDirectManagedMemAccessFromHost"),
    ("hipDeviceAttributeAccessPolicyMaxWindowSize", "cudaDevAttrMaxAccessPolicyWindowSize"),
    ("hipDeviceAttributePersistingL2CacheMaxSize", "cudaDevAttrMaxPersistingL2CacheSize"),
    ("hipDeviceAttributeReservedSharedMemPerBlock", "cudaDevAttrReservedSharedMemoryPerBlock"),
    ("hipDeviceAttributeGlobalL1CacheSupported", "cudaDevAttrGlobalL1CacheSupported"),
    ("hipDeviceAttributeLocalL1CacheSupported", "cudaDevAttrLocalL1CacheSupported"),
    ("hipDeviceAttributeDeviceOverlap", "cudaDevAttrGpuOverlap"),
    ("hipDeviceAttributeHostRegisterSupported", "cudaDevAttrHostRegisterSupported"),
    ("hipDeviceAttributeMemoryPoolSupportedHandleTypes", "cudaDevAttrMemoryPoolSupportedHandleTypes"),
]
# hipDeviceGetAttribute -> the hipDeviceProp_t field it must agree with (any platform)
ATTRIBUTE_PROPS = [
    ("hipDeviceAttributeMaxThreadsPerBlock", "maxThreadsPerBlock"), ("hipDeviceAttributeWarpSize", "warpSize"),
    ("hipDeviceAttributeMultiprocessorCount", "multiProcessorCount"),
    ("hipDeviceAttributeComputeCapabilityMajor", "major"), ("hipDeviceAttributeComputeCapabilityMinor", "minor"),
    ("hipDeviceAttributeL2CacheSize", "l2CacheSize"), ("hipDeviceAttributeMaxSharedMemoryPerBlock", "sharedMemPerBlock"),
    ("hipDeviceAttributePciBusId", "pciBusID"), ("hipDeviceAttributePciDeviceId", "pciDeviceID"),
    ("hipDeviceAttributeTotalConstantMemory", "totalConstMem"), ("hipDeviceAttributeMaxRegistersPerBlock", "regsPerBlock"),
    ("hipDeviceAttributeClockRate", "clockRate"), ("hipDeviceAttributeMemoryClockRate", "memoryClockRate"),
    ("hipDeviceAttributeMemoryBusWidth", "memoryBusWidth"),
    ("hipDeviceAttributeMaxThreadsPerMultiProcessor", "maxThreadsPerMultiProcessor"),
    ("hipDeviceAttributeConcurrentKernels", "concurrentKernels"), ("hipDeviceAttributeIntegrated", "integrated"),
]


def norm(v):
    if isinstance(v, (bytes, bytearray, str)):
        return text(v)
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return int(v)


@pytest.fixture(scope="module")
def cuda():
    return cuda_runtime()


@pytest.fixture(scope="module")
def cuda_props(cuda):
    return cuda_check(cuda.cudaGetDeviceProperties(0))


def cuda_attr(cuda, name, dev=0):
    attr = getattr(cuda.cudaDeviceAttr, name, None)
    if attr is None:
        pytest.skip(f"this cuda.bindings has no {name}")
    return cuda_check(cuda.cudaDeviceGetAttribute(attr, dev))


def test_device_count():
    n = hip.check(h.hipGetDeviceCount())
    assert n >= 1
    if on_nvidia():
        try:
            from cuda.bindings import runtime
        except ImportError:
            return
        assert n == cuda_check(runtime.cudaGetDeviceCount())


def test_gcn_arch_name(props, arch):
    if on_nvidia():
        assert re.fullmatch(rf"sm_{props.major}{props.minor}[a-z]?", arch), arch
    else:
        assert arch.startswith("gfx"), arch


@pytest.mark.parametrize("field", CORE_FIELDS)
def test_core_property_matches_cuda(props, cuda_props, field):
    assert norm(getattr(props, field)) == norm(getattr(cuda_props, field)), field


@pytest.mark.parametrize("field", OTHER_FIELDS + RENAMED_FIELDS, ids=str)
def test_other_property_matches_cuda(props, cuda_props, field):
    hip_field, cuda_field = field if isinstance(field, tuple) else (field, field)
    if not hasattr(cuda_props, cuda_field):
        pytest.skip(f"cudaDeviceProp of this cuda.bindings has no {cuda_field}")
    assert norm(getattr(props, hip_field)) == norm(getattr(cuda_props, cuda_field)), hip_field


@pytest.mark.parametrize("field,cuda_attr_name", ATTRIBUTE_FIELDS)
def test_property_cuda13_dropped_matches_attribute(props, cuda, cuda_props, field, cuda_attr_name):
    """clockRate & co. left cudaDeviceProp in CUDA 13; hipDeviceProp_t still has them, filled."""
    expect = getattr(cuda_props, field) if hasattr(cuda_props, field) else cuda_attr(cuda, cuda_attr_name)
    assert norm(getattr(props, field)) == norm(expect), field


def test_uuid_matches_cuda(cuda_props):
    err, u = h.hipDeviceGetUuid(0)                     # returned, as in AMD's HIP Python
    assert err == h.hipError_t.hipSuccess
    assert isinstance(u, h.hipUUID_t)
    raw = ctypes.string_at(int(u), 16)                 # the struct's 16 bytes
    assert u.bytes == raw                              # all of them, NULs included
    cu = cuda_props.uuid.bytes
    cu = cu.encode("latin-1") if isinstance(cu, str) else bytes(cu)
    assert raw == cu[:16]
    props = h.hipDeviceProp_t()
    hip.check(h.hipGetDeviceProperties(props, 0))
    assert props.uuid.bytes == raw


@pytest.mark.parametrize("hip_name,cuda_name", ATTRIBUTES)
def test_attribute_matches_cuda(cuda, hip_name, cuda_name):
    expect = cuda_attr(cuda, cuda_name)
    got = hip.check(h.hipDeviceGetAttribute(getattr(A, hip_name), 0))
    assert got == expect, f"{hip_name} = {got}, CUDA {cuda_name} = {expect}"


@pytest.mark.parametrize("hip_name,field", ATTRIBUTE_PROPS)
def test_attribute_matches_property(props, hip_name, field):
    assert hip.check(h.hipDeviceGetAttribute(getattr(A, hip_name), 0)) == norm(getattr(props, field))


def test_block_and_grid_attributes_match_properties(props):
    dims = [hip.check(h.hipDeviceGetAttribute(getattr(A, f"hipDeviceAttributeMaxBlockDim{c}"), 0)) for c in "XYZ"]
    grid = [hip.check(h.hipDeviceGetAttribute(getattr(A, f"hipDeviceAttributeMaxGridDim{c}"), 0)) for c in "XYZ"]
    assert dims == norm(props.maxThreadsDim)
    assert grid == norm(props.maxGridSize)


def test_every_device(props):
    n = hip.check(h.hipGetDeviceCount())
    try:
        for dev in range(n):
            hip.check(h.hipSetDevice(dev))
            assert hip.check(h.hipGetDevice()) == dev
            assert hip.check(h.hipDeviceGet(dev)) == dev
            p = h.hipDeviceProp_t()
            hip.check(h.hipGetDeviceProperties(p, dev))
            assert text(p.name) and p.totalGlobalMem > 0 and p.multiProcessorCount > 0
            major, minor = hip.check(h.hipDeviceComputeCapability(dev))
            assert (major, minor) == (p.major, p.minor)
            assert hip.check(h.hipDeviceTotalMem(dev)) == p.totalGlobalMem
    finally:
        hip.check(h.hipSetDevice(0))


def test_device_name(props):
    err, name = h.hipDeviceGetName(256, 0)             # (len, device) -> the name, as in AMD's HIP Python
    assert err == h.hipError_t.hipSuccess
    assert isinstance(name, CStr) and b"\0" not in bytes(name)   # AMD's HIP Python: a CStr
    assert text(name) == text(props.name) != ""


def test_pci_bus_id(props):
    raw = hip.check(h.hipDeviceGetPCIBusId(64, 0))
    assert isinstance(raw, CStr) and b"\0" not in bytes(raw)     # AMD's HIP Python: a CStr
    bus_id = text(raw)
    m = re.fullmatch(r"([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)", bus_id)
    assert m, bus_id                                   # domain:bus:device.function, in hex
    assert [int(x, 16) for x in m.groups()[:3]] == [props.pciDomainID, props.pciBusID, props.pciDeviceID], bus_id
    assert hip.check(h.hipDeviceGetByPCIBusId(bus_id.encode())) == 0
    if on_nvidia():
        try:
            from cuda.bindings import runtime
        except ImportError:
            return
        cu = cuda_check(runtime.cudaDeviceGetPCIBusId(64, 0))
        assert text(cu).lower() == bus_id.lower()


def test_invalid_device_and_last_error():
    n = hip.check(h.hipGetDeviceCount())
    h.hipGetLastError()                                            # start clean
    assert h.hipSetDevice(n)[0] == h.hipError_t.hipErrorInvalidDevice
    assert h.hipPeekAtLastError()[0] == h.hipError_t.hipErrorInvalidDevice
    assert h.hipGetLastError()[0] == h.hipError_t.hipErrorInvalidDevice
    assert h.hipGetLastError()[0] == SUCCESS                       # reset by the previous call
    assert hip.check(h.hipGetDevice()) == 0                        # the failed call changed nothing
    p = h.hipDeviceProp_t()
    assert h.hipGetDeviceProperties(p, n)[0] == h.hipError_t.hipErrorInvalidDevice
    assert h.hipDeviceGetAttribute(A.hipDeviceAttributeWarpSize, n)[0] == h.hipError_t.hipErrorInvalidDevice
    h.hipGetLastError()
    with pytest.raises(hip.HipError) as e:
        hip.check(h.hipSetDevice(n))
    assert e.value.code == h.hipError_t.hipErrorInvalidDevice
    h.hipGetLastError()


def test_error_names_and_strings():
    E = h.hipError_t
    for e in (E.hipSuccess, E.hipErrorInvalidValue, E.hipErrorOutOfMemory, E.hipErrorInvalidDevice,
              E.hipErrorNotReady, E.hipErrorInvalidHandle):
        name = hip.check(h.hipGetErrorName(e))
        assert text(name) == e.name, (e, name)
        assert text(hip.check(h.hipGetErrorString(e)))


def test_versions():
    assert hip.check(h.hipDriverGetVersion()) > 0
    assert hip.check(h.hipRuntimeGetVersion()) > 0
    hip.check(h.hipInit(0))
