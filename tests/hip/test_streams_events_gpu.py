"""Streams and events: create/destroy, flags and priorities, query, record, synchronize,
cross-stream waits, elapsed time.

A host function that blocks on a threading.Event ("gate") holds a stream busy for as long as
the test wants, so "not ready" states are deterministic."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import hip
from hip import hip as h

from gpu_util import D2H, H2D, SUCCESS, cuda_check, cuda_runtime

pytestmark = pytest.mark.gpu

NOT_READY = h.hipError_t.hipErrorNotReady


class Gate:
    """A host function that blocks its stream until release() (30 s at most)."""

    def __init__(self):
        self.entered = threading.Event()
        self.released = threading.Event()

    def __call__(self, data):
        self.entered.set()
        self.released.wait(30)

    def release(self):
        self.released.set()


def block(stream) -> Gate:
    g = Gate()
    hip.check(h.hipLaunchHostFunc(stream, g, None))
    return g


def test_stream_create_query_destroy():
    s = hip.check(h.hipStreamCreate())
    assert int(s) != 0
    assert h.hipStreamQuery(s)[0] == SUCCESS                 # nothing queued
    hip.check(h.hipStreamSynchronize(s))
    assert hip.check(h.hipStreamGetFlags(s)) == h.hipStreamDefault
    hip.check(h.hipStreamDestroy(s))


def test_stream_flags_and_priority():
    s = hip.check(h.hipStreamCreateWithFlags(h.hipStreamNonBlocking))
    assert hip.check(h.hipStreamGetFlags(s)) == h.hipStreamNonBlocking
    hip.check(h.hipStreamDestroy(s))
    least, greatest = hip.check(h.hipDeviceGetStreamPriorityRange())
    assert greatest <= least
    for prio in (least, greatest):
        s = hip.check(h.hipStreamCreateWithPriority(h.hipStreamDefault, prio))
        assert hip.check(h.hipStreamGetPriority(s)) == prio
        hip.check(h.hipStreamDestroy(s))


def test_stream_priority_range_matches_cuda():
    rt = cuda_runtime()
    assert hip.check(h.hipDeviceGetStreamPriorityRange()) == tuple(cuda_check(rt.cudaDeviceGetStreamPriorityRange()))


def test_stream_query_not_ready_while_busy(stream):
    g = block(stream)
    try:
        assert h.hipStreamQuery(stream)[0] == NOT_READY
        assert g.entered.wait(10), "the host function did not start"
        assert h.hipStreamQuery(stream)[0] == NOT_READY
    finally:
        g.release()
    hip.check(h.hipStreamSynchronize(stream))
    assert h.hipStreamQuery(stream)[0] == SUCCESS


def test_event_record_query_synchronize(stream):
    ev = hip.check(h.hipEventCreate())
    try:
        assert h.hipEventQuery(ev)[0] == SUCCESS                 # never recorded: complete
        g = block(stream)
        try:
            hip.check(h.hipEventRecord(ev, stream))
            assert h.hipEventQuery(ev)[0] == NOT_READY
        finally:
            g.release()
        hip.check(h.hipEventSynchronize(ev))
        assert h.hipEventQuery(ev)[0] == SUCCESS
    finally:
        hip.check(h.hipEventDestroy(ev))


def test_stream_wait_event_orders_streams(mem):
    s1 = hip.check(h.hipStreamCreateWithFlags(h.hipStreamNonBlocking))
    s2 = hip.check(h.hipStreamCreateWithFlags(h.hipStreamNonBlocking))
    ev = hip.check(h.hipEventCreateWithFlags(h.hipEventDisableTiming))
    n = 1 << 20
    d = mem.put(np.zeros(n, np.uint8))
    try:
        g = block(s1)
        try:
            hip.check(h.hipEventRecord(ev, s1))
            hip.check(h.hipStreamWaitEvent(s2, ev, 0))
            hip.check(h.hipMemsetAsync(d, 7, n, s2))             # must wait for s1's gate
            assert h.hipStreamQuery(s2)[0] == NOT_READY              # (no synchronous copy here: it would wait)
        finally:
            g.release()
        hip.check(h.hipStreamSynchronize(s2))
        assert h.hipStreamQuery(s1)[0] == SUCCESS
        assert (mem.get(d, n, np.uint8) == 7).all()
    finally:
        hip.check(h.hipEventDestroy(ev))
        hip.check(h.hipStreamDestroy(s1))
        hip.check(h.hipStreamDestroy(s2))


def test_event_elapsed_time_after_a_copy(mem, stream):
    n = 64 << 20
    p = hip.check(h.hipHostMalloc(n, h.hipHostMallocDefault))
    start = hip.check(h.hipEventCreate())
    stop = hip.check(h.hipEventCreate())
    try:
        d = mem.alloc(n)
        hip.check(h.hipEventRecord(start, stream))
        for _ in range(4):
            hip.check(h.hipMemcpyAsync(d, p, n, H2D, stream))
        hip.check(h.hipEventRecord(stop, stream))
        hip.check(h.hipEventSynchronize(stop))
        ms = hip.check(h.hipEventElapsedTime(start, stop))
        assert isinstance(ms, float)
        assert 0.0 < ms < 10_000.0, ms
        gbps = 4 * n / (ms * 1e-3) / 1e9
        assert gbps > 1.0, f"{gbps:.2f} GB/s host to device: is the time in ms?"
    finally:
        hip.check(h.hipEventDestroy(start))
        hip.check(h.hipEventDestroy(stop))
        hip.check(h.hipHostFree(p))


def test_elapsed_time_of_untimed_events_fails(stream):
    a = hip.check(h.hipEventCreateWithFlags(h.hipEventDisableTiming))
    b = hip.check(h.hipEventCreateWithFlags(h.hipEventDisableTiming))
    try:
        hip.check(h.hipEventRecord(a, stream))
        hip.check(h.hipEventRecord(b, stream))
        hip.check(h.hipEventSynchronize(b))
        err, _ = h.hipEventElapsedTime(a, b)
        assert err == h.hipError_t.hipErrorInvalidHandle, err   # CUDA: cudaErrorInvalidResourceHandle (400)
    finally:
        h.hipGetLastError()
        hip.check(h.hipEventDestroy(a))
        hip.check(h.hipEventDestroy(b))


def test_null_stream_and_device_synchronize(mem):
    a = np.arange(1000, dtype=np.int64)
    d = mem.alloc(a.nbytes)
    hip.check(h.hipMemcpyAsync(d, a, a.nbytes, H2D, None))
    hip.check(h.hipDeviceSynchronize())
    b = np.zeros_like(a)
    hip.check(h.hipMemcpyAsync(b, d, a.nbytes, D2H, 0))           # 0 is the null stream too
    hip.check(h.hipStreamSynchronize(None))
    np.testing.assert_array_equal(b, a)
