"""Python callables as stream callbacks: hipStreamAddCallback and hipLaunchHostFunc run them,
in stream order, after the work queued before them, with their user data and status."""
from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import hip
from hip import hip as h

from gpu_util import D2H, H2D, SUCCESS, host_view

pytestmark = pytest.mark.gpu


def test_stream_callbacks_run_in_order_with_data_and_status(stream):
    seen = []
    done = threading.Event()

    def cb(s, status, data):
        seen.append((int(s), status, data))
        if data == "c":
            done.set()

    for tag in ("a", "b", "c"):
        hip.check(h.hipStreamAddCallback(stream, cb, tag, 0))
    hip.check(h.hipStreamSynchronize(stream))
    assert done.wait(10)
    assert [d for _, _, d in seen] == ["a", "b", "c"]
    assert all(st == SUCCESS and isinstance(st, h.hipError_t) for _, st, _ in seen), seen
    assert all(s == int(stream) for s, _, _ in seen), (seen, int(stream))


def test_stream_callback_sees_finished_copy(mem, stream):
    """A callback runs after the copies queued before it: it reads the data they brought."""
    n = 1 << 20
    p = hip.check(h.hipHostMalloc(n * 4, h.hipHostMallocDefault))
    try:
        host = host_view(p, n, np.float32)
        host[:] = 0
        src = np.arange(n, dtype=np.float32)
        d = mem.alloc(n * 4)
        sums = []
        hip.check(h.hipMemcpyAsync(d, src, n * 4, H2D, stream))
        hip.check(h.hipMemcpyAsync(p, d, n * 4, D2H, stream))
        hip.check(h.hipStreamAddCallback(stream, lambda s, st, data: sums.append(float(data.sum())), host, 0))
        hip.check(h.hipStreamSynchronize(stream))
        assert sums == [float(src.sum())]
    finally:
        hip.check(h.hipHostFree(p))


def test_host_func_runs_in_order(stream):
    seen = []
    for i in range(5):
        hip.check(h.hipLaunchHostFunc(stream, seen.append, i))
    hip.check(h.hipStreamSynchronize(stream))
    assert seen == [0, 1, 2, 3, 4]


def test_host_func_on_null_stream():
    box = {}
    hip.check(h.hipLaunchHostFunc(None, lambda d: box.update(d), {"ran": True, "thread": threading.get_ident()}))
    hip.check(h.hipDeviceSynchronize())
    assert box.get("ran") is True


def test_callbacks_and_host_funcs_interleave(stream):
    seen = []
    hip.check(h.hipLaunchHostFunc(stream, seen.append, "host1"))
    hip.check(h.hipStreamAddCallback(stream, lambda s, st, d: seen.append(d), "cb1", 0))
    hip.check(h.hipLaunchHostFunc(stream, seen.append, "host2"))
    hip.check(h.hipStreamAddCallback(stream, lambda s, st, d: seen.append(d), None, 0))
    hip.check(h.hipStreamSynchronize(stream))
    assert seen == ["host1", "cb1", "host2", None]


def test_callback_exception_is_reported_and_stream_goes_on(stream, monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    after = []

    def bad(s, status, data):
        raise ValueError("raised in a callback")

    hip.check(h.hipStreamAddCallback(stream, bad, None, 0))
    hip.check(h.hipLaunchHostFunc(stream, after.append, "still runs"))
    hip.check(h.hipStreamSynchronize(stream))
    assert after == ["still runs"]
    assert len(reported) == 1 and isinstance(reported[0], ValueError)
    assert h.hipStreamQuery(stream)[0] == SUCCESS


def test_many_callbacks_do_not_leak_or_lose_any(stream):
    count = [0]

    def inc(_):
        count[0] += 1

    for _ in range(2000):
        hip.check(h.hipLaunchHostFunc(stream, inc, None))
    hip.check(h.hipStreamSynchronize(stream))
    assert count[0] == 2000
