"""Copy to the device and back on a stream, with a memset and a Python callback (needs a GPU)."""
import array

import hip
from hip import hip as h

from _gpu import require_gpu

require_gpu()

host = array.array("i", range(100))
nbytes = host.itemsize * len(host)
dev = hip.check(h.hipMalloc(nbytes))
stream = hip.check(h.hipStreamCreate())
done = []
hip.check(h.hipMemcpyAsync(dev, host, nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice, stream))
hip.check(h.hipMemsetAsync(dev, 0, nbytes, stream))
hip.check(h.hipMemcpyAsync(host, dev, nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost, stream))
hip.check(h.hipStreamAddCallback(stream, lambda s, status, data: done.append((status, data)), "tag", 0))
hip.check(h.hipStreamSynchronize(stream))
hip.check(h.hipStreamDestroy(stream))
hip.check(h.hipFree(dev))
assert all(v == 0 for v in host), "memset did not reach the host"
assert done == [(h.hipError_t.hipSuccess, "tag")], done
print("ok")
