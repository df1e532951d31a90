"""Device properties and attributes (needs a GPU)."""
import hip
from hip import hip as h

from _gpu import require_gpu

require_gpu()

props = h.hipDeviceProp_t()
hip.check(h.hipGetDeviceProperties(props, 0))
for field in ("name", "gcnArchName", "totalGlobalMem", "multiProcessorCount", "warpSize",
              "maxThreadsPerBlock", "maxThreadsDim", "maxGridSize", "major", "minor"):
    print(f"{field:22s} {getattr(props, field)}")
for attr in (h.hipDeviceAttribute_t.hipDeviceAttributeMaxBlockDimX,
             h.hipDeviceAttribute_t.hipDeviceAttributeWarpSize):
    value = hip.check(h.hipDeviceGetAttribute(attr, 0))
    print(f"{attr.name:40s} {value}")
assert hip.check(h.hipDeviceGetAttribute(h.hipDeviceAttribute_t.hipDeviceAttributeWarpSize, 0)) == props.warpSize
print("ok")
