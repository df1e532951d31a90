"""All-reduce (sum) across every visible GPU from one process with RCCL (needs a GPU and librccl).

ncclCommInitAll creates one communicator per device, in an array the caller passes (one pointer-sized
element per device, as in AMD's HIP Python); the per-device ncclAllReduce calls sit between
ncclGroupStart and ncclGroupEnd, so one thread can issue them all. With a single GPU it still runs,
with one rank."""
import numpy as np

import hip
from hip import hip as h, rccl

from _gpu import require_gpu

ndev = require_gpu(rccl)

count = 1 << 16
base = np.arange(count, dtype=np.float32)
nbytes = base.nbytes
H2D, D2H = h.hipMemcpyKind.hipMemcpyHostToDevice, h.hipMemcpyKind.hipMemcpyDeviceToHost

devices = list(range(ndev))
comms = np.zeros(ndev, dtype=np.uintp)                          # room for one ncclComm_t per device
hip.check(rccl.ncclCommInitAll(comms, ndev, np.array(devices, dtype=np.int32)))
send, recv, streams = [], [], []
try:
    for dev in devices:
        hip.check(h.hipSetDevice(dev))
        send.append(hip.check(h.hipMalloc(nbytes)))
        recv.append(hip.check(h.hipMalloc(nbytes)))
        streams.append(hip.check(h.hipStreamCreate()))
        hip.check(h.hipMemcpy(send[-1], base * (dev + 1), nbytes, H2D))   # rank r contributes (r + 1) * base
    hip.check(rccl.ncclGroupStart())
    for dev in devices:   # int(comms[dev]): a NumPy scalar would be taken as a buffer, not as the handle
        hip.check(rccl.ncclAllReduce(send[dev], recv[dev], count, rccl.ncclDataType_t.ncclFloat32,
                                     rccl.ncclRedOp_t.ncclSum, int(comms[dev]), streams[dev]))
    hip.check(rccl.ncclGroupEnd())
    results = []
    for dev in devices:
        hip.check(h.hipSetDevice(dev))
        hip.check(h.hipStreamSynchronize(streams[dev]))
        out = np.empty_like(base)
        hip.check(h.hipMemcpy(out, recv[dev], nbytes, D2H))
        results.append(out)
finally:
    for dev in range(len(send)):
        hip.check(h.hipSetDevice(dev))
        hip.check(h.hipFree(send[dev]))
        if dev < len(recv):
            hip.check(h.hipFree(recv[dev]))
        if dev < len(streams):
            hip.check(h.hipStreamDestroy(streams[dev]))
    for comm in comms:
        hip.check(rccl.ncclCommDestroy(int(comm)))

expected = base * (ndev * (ndev + 1) // 2)
for dev, out in enumerate(results):
    assert np.array_equal(out, expected), (dev, out[:4], expected[:4])
print(f"all-reduce of {count} floats over {ndev} GPU(s): every rank has the sum")
print("ok")
