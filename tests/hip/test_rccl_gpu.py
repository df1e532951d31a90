"""RCCL/NCCL in one process: communicators for every visible GPU (ncclCommInitAll), all-reduce,
broadcast and all-gather inside ncclGroupStart/End with one stream per device; a one-GPU
all-reduce and a one-rank ncclCommInitRank run on any machine.

As in AMD's HIP Python, ncclCommInitAll fills the caller's array of ndev communicators and
ncclGetUniqueId the ncclUniqueId the caller made; ncclCommInitRank returns its communicator."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import hip
from hip._util.types import CStr
from hip import hip as h, rccl

from gpu_util import require_library

pytestmark = pytest.mark.gpu

C = rccl
F32 = C.ncclDataType_t.ncclFloat32
SUM = C.ncclRedOp_t.ncclSum


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(rccl)


@contextlib.contextmanager
def group():
    """ncclGroupStart/End around the body; the group is closed even when a call inside fails,
    since NCCL's group depth is per thread and an open group would defer every later call."""
    hip.check(C.ncclGroupStart())
    try:
        yield
    except BaseException:
        C.ncclGroupEnd()
        raise
    hip.check(C.ncclGroupEnd())


def device_count() -> int:
    return hip.check(h.hipGetDeviceCount())


class PerDevice:
    """One stream and the device buffers of each GPU; everything freed and destroyed at close()."""

    def __init__(self, ndev):
        self.ndev = ndev
        self.streams, self.buffers = [], []
        for dev in range(ndev):
            hip.check(h.hipSetDevice(dev))
            self.streams.append(hip.check(h.hipStreamCreate()))
        hip.check(h.hipSetDevice(0))

    def put(self, dev, array):
        hip.check(h.hipSetDevice(dev))
        d = hip.check(h.hipMalloc(array.nbytes))
        hip.check(h.hipMemcpy(d, np.ascontiguousarray(array), array.nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice))
        self.buffers.append((dev, d))
        return d

    def get(self, dev, d, n, dtype=np.float32):
        hip.check(h.hipSetDevice(dev))
        out = np.empty(n, dtype)
        hip.check(h.hipMemcpy(out, d, out.nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
        return out

    def sync(self):
        for dev, s in enumerate(self.streams):
            hip.check(h.hipSetDevice(dev))
            hip.check(h.hipStreamSynchronize(s))

    def close(self):
        for dev, d in self.buffers:
            hip.check(h.hipSetDevice(dev))
            hip.check(h.hipFree(d))
        for dev, s in enumerate(self.streams):
            hip.check(h.hipSetDevice(dev))
            hip.check(h.hipStreamDestroy(s))
        hip.check(h.hipSetDevice(0))


@pytest.fixture(params=["one", "all"])
def clique(request):
    """(ndev, comms, per-device streams/buffers) for one GPU, or for all of them (>= 2)."""
    n = device_count()
    if request.param == "one":
        n = 1
    elif n < 2:
        pytest.skip(f"needs at least 2 GPUs, {n} visible")
    storage = np.zeros(n, np.uintp)                          # one ncclComm_t per device, filled by the call
    assert C.ncclCommInitAll(storage, n, list(range(n))) == (C.ncclResult_t.ncclSuccess,)
    comms = [int(c) for c in storage]                         # a NumPy scalar would be taken as a buffer
    assert len(comms) == n and all(comms) and len(set(comms)) == n, comms
    per = PerDevice(n)
    yield n, comms, per
    per.sync()
    per.close()
    for c in comms:
        hip.check(C.ncclCommDestroy(c))


def test_comm_queries(clique):
    n, comms, _ = clique
    for rank, c in enumerate(comms):
        assert hip.check(C.ncclCommCount(c)) == n
        assert hip.check(C.ncclCommUserRank(c)) == rank
        assert hip.check(C.ncclCommCuDevice(c)) == rank


def test_all_reduce(clique):
    n, comms, per = clique
    count = 1 << 16
    base = np.arange(count, dtype=np.float32)
    send = [per.put(r, base * (r + 1)) for r in range(n)]
    recv = [per.put(r, np.zeros(count, np.float32)) for r in range(n)]
    with group():
        for r in range(n):
            hip.check(C.ncclAllReduce(send[r], recv[r], count, F32, SUM, comms[r], per.streams[r]))
    per.sync()
    expect = base * (n * (n + 1) // 2)
    for r in range(n):
        np.testing.assert_array_equal(per.get(r, recv[r], count), expect)


def test_all_reduce_max_in_place(clique):
    n, comms, per = clique
    count = 1000
    bufs = [per.put(r, np.full(count, float(r), np.float32)) for r in range(n)]
    with group():
        for r in range(n):
            hip.check(C.ncclAllReduce(bufs[r], bufs[r], count, F32, C.ncclRedOp_t.ncclMax, comms[r], per.streams[r]))
    per.sync()
    for r in range(n):
        assert (per.get(r, bufs[r], count) == n - 1).all()


def test_broadcast(clique):
    n, comms, per = clique
    count = 4096
    root = n - 1
    payload = np.random.default_rng(1).standard_normal(count).astype(np.float32)
    send = [per.put(r, payload if r == root else np.zeros(count, np.float32)) for r in range(n)]
    recv = [per.put(r, np.full(count, -1, np.float32)) for r in range(n)]
    with group():
        for r in range(n):
            hip.check(C.ncclBroadcast(send[r], recv[r], count, F32, root, comms[r], per.streams[r]))
    per.sync()
    for r in range(n):
        np.testing.assert_array_equal(per.get(r, recv[r], count), payload)


def test_all_gather(clique):
    n, comms, per = clique
    count = 100
    send = [per.put(r, np.full(count, float(r + 1), np.float32)) for r in range(n)]
    recv = [per.put(r, np.zeros(count * n, np.float32)) for r in range(n)]
    with group():
        for r in range(n):
            hip.check(C.ncclAllGather(send[r], recv[r], count, F32, comms[r], per.streams[r]))
    per.sync()
    expect = np.repeat(np.arange(1, n + 1, dtype=np.float32), count)
    for r in range(n):
        np.testing.assert_array_equal(per.get(r, recv[r], count * n), expect)


def test_init_rank_with_unique_id():
    """The multi-process entry point with a single rank: ncclGetUniqueId + ncclCommInitRank."""
    hip.check(h.hipSetDevice(0))
    uid = C.ncclUniqueId()
    assert not any(uid.internal)
    assert C.ncclGetUniqueId(uid) == (C.ncclResult_t.ncclSuccess,)
    assert any(uid.internal)                                    # the call filled the caller's struct
    comm = hip.check(C.ncclCommInitRank(1, uid, 0))
    try:
        assert hip.check(C.ncclCommCount(comm)) == 1
        s = hip.check(h.hipStreamCreate())
        x = np.arange(10, dtype=np.float32)
        d = hip.check(h.hipMalloc(x.nbytes))
        hip.check(h.hipMemcpy(d, x, x.nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice))
        hip.check(C.ncclAllReduce(d, d, 10, F32, SUM, comm, s))
        hip.check(h.hipStreamSynchronize(s))
        out = np.zeros_like(x)
        hip.check(h.hipMemcpy(out, d, x.nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
        np.testing.assert_array_equal(out, x)
        hip.check(h.hipFree(d))
        hip.check(h.hipStreamDestroy(s))
    finally:
        hip.check(C.ncclCommDestroy(comm))


def test_version_and_error_string():
    v = hip.check(C.ncclGetVersion())
    assert v >= 20000, v                                        # NCCL_VERSION_CODE: 2.x
    s = hip.check(C.ncclGetErrorString(C.ncclResult_t.ncclInvalidArgument))
    assert s and isinstance(s, CStr) and bytes(s)          # HIP Python: a CStr
