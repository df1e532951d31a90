"""Count devices and show what the runtime is; works without a GPU (reports the HIP error)."""
import hip
from hip import hip as h

err, count = h.hipGetDeviceCount()
version = hip.check(h.hipRuntimeGetVersion())
print(f"HIP runtime {version}, library {h._library.path}")
if err == h.hipError_t.hipSuccess:
    print(f"{count} device(s)")
else:
    print(f"no device: {err.name} ({h.hipGetErrorString(err)[1].decode()})")
try:
    hip.check(h.hipGetDeviceCount())
except hip.HipError as e:          # one exception type: code, name, message
    assert e.code == err and e.name == err.name
print("ok")
