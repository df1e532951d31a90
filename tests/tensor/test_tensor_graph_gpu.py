"""hip.tensor's graph capture on a GPU: a chain of ops captured once and replayed gives what the ops
give run directly (compared with NumPy), for new input copied into the static input; memory made
in the capture comes from the graph's pool and stays the graph's; a capture interrupted by an
exception or by work that needs the host leaves no capture behind; two graphs share a pool."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import memory as M

pytestmark = pytest.mark.gpu


def chain(x, y):
    z = x
    for k in range(10):
        z = ht.sin(z) * y + (k + 1)
        z = z - ht.abs(x)
    return z


def chain_np(x, y):
    z = x
    for k in range(10):
        z = np.sin(z) * y + np.float32(k + 1)
        z = z - np.abs(x)
    return z


def test_replay_matches_the_ops_and_reads_new_input():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(1000, dtype=np.float32), rng.standard_normal(1000, dtype=np.float32)
    x, y = ht.asarray(a), ht.asarray(b)
    eager = chain(x, y).get()                     # compiles outside the capture (inside works too)
    g = ht.Graph()
    before = M.memory_stats()["allocated_bytes.all.current"]
    with ht.graph(g):
        out = chain(x, y)
    assert M.memory_stats()["allocated_bytes.all.current"] == before   # the graph's pool, not ours
    assert not M._capturing
    g.replay()
    np.testing.assert_array_equal(out.get(), eager)           # the same kernels, bit for bit
    np.testing.assert_allclose(out.get(), chain_np(a, b), rtol=1e-3, atol=1e-3)
    a2 = rng.standard_normal(1000, dtype=np.float32)
    x[...] = ht.asarray(a2)                       # new data in the static input
    g.replay()
    ht.synchronize()
    eager2 = chain(x, y).get()
    np.testing.assert_array_equal(out.get(), eager2)
    np.testing.assert_allclose(out.get(), chain_np(a2, b), rtol=1e-3, atol=1e-3)
    assert not np.array_equal(eager, eager2)
    for _ in range(50):
        g.replay()
    np.testing.assert_array_equal(out.get(), eager2)
    g.reset()
    with pytest.raises(RuntimeError):
        g.replay()


def test_capture_compiles_new_kernels_and_keeps_its_memory():
    x = ht.arange(4096, dtype=ht.float64)
    g = ht.Graph()
    with ht.graph(g):
        y = ht.cumulative_sum(ht.cos(x) * 3.0) + 1.0      # its kernels first compiled and loaded here
        t = y * 2.0
        del t                                             # freed in the capture: reused there only
        z = y - 1.0
    pool = g.pool()
    assert pool.stats()["allocated_bytes.all.current"] > 0
    g.replay()
    eager = (ht.cumulative_sum(ht.cos(x) * 3.0) + 1.0).get()
    np.testing.assert_array_equal(y.get(), eager)
    np.testing.assert_array_equal(z.get(), eager - 1.0)
    ref = np.cumsum(np.cos(np.arange(4096.0)) * 3.0) + 1.0
    np.testing.assert_allclose(y.get(), ref, rtol=1e-9, atol=1e-9)
    in_pool = pool.stats()["allocated_bytes.all.current"]
    other = ht.empty(4096, dtype=ht.float64)              # made outside: never from the pool
    assert pool.stats()["allocated_bytes.all.current"] == in_pool
    assert other.data._allocator is not y.data._allocator


def test_graphs_share_a_pool_and_replay_in_order():
    pool = ht.graph_pool_handle()
    x = ht.ones(256, dtype=ht.float32)
    g1, g2 = ht.Graph(), ht.Graph()
    with ht.graph(g1, pool=pool):
        y = x * 2.0
    with ht.graph(g2, pool=pool):
        z = y + 5.0
    assert g1.pool() is g2.pool() is pool
    g1.replay()
    g2.replay()
    np.testing.assert_array_equal(z.get(), np.full(256, 7.0, np.float32))
    g1.reset()
    g2.replay()                                   # g1's reset left the shared pool's memory alone
    np.testing.assert_array_equal(z.get(), np.full(256, 7.0, np.float32))


def test_failed_captures_leave_nothing_behind():
    x = ht.ones(16, dtype=ht.float32)
    g = ht.Graph()
    with pytest.raises(ZeroDivisionError):
        with ht.graph(g):
            x + 1.0
            1 / 0
    assert not M._capturing and "empty" in repr(g)
    with pytest.raises(Exception):
        with ht.graph(g):
            float((x + 1.0).sum())                    # a host read during capture: the runtime refuses
    assert not M._capturing and "empty" in repr(g)
    y = x + 1.0                                       # the device and the thread's stream still work
    np.testing.assert_array_equal(y.get(), np.full(16, 2.0, np.float32))
    with ht.graph(g):                                 # and the Graph can capture again
        w = x * 4.0
    g.replay()
    np.testing.assert_array_equal(w.get(), np.full(16, 4.0, np.float32))


def test_refusals():
    with pytest.raises(TypeError):
        ht.graph(object())
    g = ht.Graph()
    with pytest.raises(RuntimeError):
        g.replay()
    with pytest.raises(RuntimeError):
        g.capture_end()
    with pytest.raises(ValueError):                    # the null stream cannot be captured
        g.capture_begin(stream=ht.null_stream())
    with pytest.raises(TypeError):
        g.capture_begin(pool=object(), stream=ht.Stream())
