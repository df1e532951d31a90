"""hip.tensor._core.memory without a GPU: PyTorch's size classes, argument checks and the statistics of
an unused device. The allocator itself (reuse, streams, OOM, no leak over 1e5 cycles) runs in
tests/tensor/test_tensor_runtime_gpu.py: without a device there is no hipMalloc to exercise."""
from __future__ import annotations

import gc

import pytest

from hip.tensor._core import memory as M
from hip.tensor._core.device import Stream

KiB, MiB = 1 << 10, 1 << 20


@pytest.mark.parametrize("nbytes,rounded", [(1, 512), (512, 512), (513, 1024), (4000, 4096), (MiB, MiB),
                                            (MiB + 1, MiB + 512)])
def test_sizes_round_up_to_512_bytes(nbytes, rounded):
    assert M._round(nbytes) == rounded


@pytest.mark.parametrize("size,segment", [
    (512, 2 * MiB), (MiB, 2 * MiB),                  # small pool: 2 MiB segments
    (MiB + 512, 20 * MiB), (10 * MiB - 512, 20 * MiB),   # 1-10 MiB share 20 MiB segments
    (10 * MiB, 10 * MiB), (11 * MiB, 12 * MiB), (100 * MiB + 512, 102 * MiB),   # larger: 2 MiB multiples
])
def test_segment_sizes_follow_pytorch(size, segment):
    assert M._segment_size(size) == segment


def test_stats_of_an_unused_device_are_zero():
    s = M.memory_stats(7)
    for k in ("allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
              "reserved_bytes.all.peak", "num_device_alloc", "num_alloc_retries", "num_ooms", "cache_hits"):
        assert s[k] == 0, k
    assert M.memory_allocated(7) == M.memory_reserved(7) == M.max_memory_allocated(7) == 0
    M.reset_peak_memory_stats(7)


def test_zero_bytes_is_a_null_pointer_without_a_device():
    null = Stream.from_handle(0, device_id=0)
    m = M.alloc(0, null)
    assert (m.ptr, m.size, m.device_id, m.stream) == (0, 0, 0, null)
    m.record_stream(Stream.from_handle(0x10, 0))   # nothing to delay
    del m


def test_bad_sizes_and_kinds_are_refused_before_any_call():
    null = Stream.from_handle(0, device_id=0)
    with pytest.raises(ValueError, match="negative"):
        M.alloc(-1, null)
    with pytest.raises(TypeError):
        M.alloc(1.5, null)
    with pytest.raises(ValueError, match="kind"):
        M.memcpy(0x1000, 0x2000, 16, "up", null)
    with pytest.raises(ValueError, match="negative"):
        M.memcpy(0x1000, 0x2000, -1, "d2d", null)
    with pytest.raises(TypeError, match=r"\.ptr"):
        M.memcpy("dst", 0x2000, 16, "d2d", null)
    M.memcpy(0x1000, 0x2000, 0, "d2d", null)        # nothing to copy: no call
    M.memset(0x1000, 0, 0, null)
    with pytest.raises(ValueError, match="negative"):
        M.alloc_pinned(-5)


def test_no_caching_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("HIP_TENSOR_NO_MEMORY_CACHING", "1")
    assert M._DeviceAllocator(5).caching is False
    monkeypatch.delenv("HIP_TENSOR_NO_MEMORY_CACHING")
    assert M._DeviceAllocator(5).caching is True
    assert M.memory_stats(9)["caching"] is True


def test_out_of_memory_error_is_a_memory_error():
    assert issubclass(M.OutOfMemoryError, MemoryError)


# -- the allocator backends, against hip.hip's memory calls answered in Python ------------------
class FakeHip:
    """hip.hip as the allocators call it, answered without a device: addresses from a counter, a
    log of the calls (name and the arguments that matter), one default memory pool. Everything
    else (the enums) is hip.hip's own."""

    OK = 0

    def __init__(self):
        from hip import hip as h
        self._h, self.log, self.next, self.events = h, [], 0x7E0000000000, 0
        self.oom_next = 0                       # the next n allocations fail with out of memory
        self.pool_attrs = {}

    def __getattr__(self, name):
        return getattr(self._h, name)

    def _new(self, size):
        if self.oom_next:
            self.oom_next -= 1
            return (self._h.hipError_t.hipErrorOutOfMemory, None)
        p, self.next = self.next, self.next + max(size, 1)
        return (self.OK, p)

    def hipMalloc(self, size):
        self.log.append(("hipMalloc", size))
        return self._new(size)

    def hipFree(self, p):
        self.log.append(("hipFree", p))
        return (self.OK,)

    def hipMallocAsync(self, size, stream):
        self.log.append(("hipMallocAsync", size, stream))
        return self._new(size)

    def hipFreeAsync(self, p, stream):
        self.log.append(("hipFreeAsync", p, stream))
        return (self.OK,)

    def hipDeviceGetDefaultMemPool(self, device):
        self.log.append(("hipDeviceGetDefaultMemPool", device))
        return (self.OK, "pool0")

    def hipMemPoolSetAttribute(self, pool, attr, address):
        import ctypes
        self.pool_attrs[attr] = ctypes.c_uint64.from_address(address).value
        return (self.OK,)

    def hipMemPoolGetAttribute(self, pool, attr, address):
        import ctypes
        ctypes.c_uint64.from_address(address).value = self.pool_attrs.get(attr, 0)
        return (self.OK,)

    def hipMemPoolTrimTo(self, pool, keep):
        self.log.append(("hipMemPoolTrimTo", keep))
        return (self.OK,)

    def hipEventCreateWithFlags(self, flags):
        self.events += 1
        return (self.OK, 0xE0 + self.events)

    def hipEventRecord(self, ev, stream):
        self.log.append(("hipEventRecord", ev, stream))
        return (self.OK,)

    def hipStreamWaitEvent(self, stream, ev, flags):
        self.log.append(("hipStreamWaitEvent", stream, ev))
        return (self.OK,)

    def hipEventQuery(self, ev):
        return (self.OK,)

    def hipEventDestroy(self, ev):
        return (self.OK,)

    def hipDeviceSynchronize(self):
        self.log.append(("hipDeviceSynchronize",))
        return (self.OK,)

    def hipGetLastError(self):
        return (self.OK,)

    def calls(self, name):
        return [c for c in self.log if c[0] == name]


@pytest.fixture
def fake(monkeypatch):
    """hip.hip's memory calls answered by FakeHip, device 0 current; the allocator restored after."""
    from hip.tensor._core import device as D
    f = FakeHip()
    monkeypatch.setattr(M, "h", f)
    monkeypatch.setattr(M, "get_device_id", lambda: 0)
    monkeypatch.setattr(D, "get_device_id", lambda: 0)
    prev = M.get_allocator()
    yield f
    gc.collect()
    M.set_allocator(prev)


def test_the_default_allocator_and_set_allocator():
    a = M.get_allocator()
    assert type(a) is M.CachingAllocator and a.name == "caching"
    other = M.NoCachingAllocator()
    assert M.set_allocator(other) is a and M.get_allocator() is other
    assert M.set_allocator(None) is other and M.get_allocator() is a      # None: the default
    with pytest.raises(TypeError, match="Allocator"):
        M.set_allocator("async")
    with pytest.raises(ValueError, match="release_threshold"):
        M.AsyncPoolAllocator(release_threshold=-1)
    for cls in (M.CachingAllocator, M.NoCachingAllocator, M.AsyncPoolAllocator):
        s = cls().stats(3)                         # a device never used: zeros, no runtime call
        assert s["allocated_bytes.all.current"] == s["reserved_bytes.all.current"] == 0


def test_caching_allocator_reports_its_pools(fake):
    s0 = Stream.from_handle(0x10, 0)
    a = M.CachingAllocator(caching=True)
    M.set_allocator(a)
    small, large = M.alloc(1000, s0), M.alloc(3 * MiB, s0)
    st = M.memory_stats(0)
    assert (st["allocated_bytes.small_pool.current"], st["allocated_bytes.large_pool.current"]) == (1024, 3 * MiB)
    assert (st["reserved_bytes.small_pool.current"], st["reserved_bytes.large_pool.current"]) == (2 * MiB, 20 * MiB)
    assert (st["segment.small_pool.current"], st["segment.large_pool.current"]) == (1, 1)
    assert (st["allocation.small_pool.current"], st["allocation.large_pool.current"]) == (1, 1)
    assert st["allocated_bytes.all.current"] == 1024 + 3 * MiB and st["reserved_bytes.all.current"] == 22 * MiB
    assert len(fake.calls("hipMalloc")) == 2
    del small, large
    gc.collect()
    st = M.memory_stats(0)
    assert st["allocated_bytes.small_pool.current"] == st["allocated_bytes.large_pool.current"] == 0
    assert st["reserved_bytes.all.current"] == 22 * MiB           # cached
    again = M.alloc(1000, s0)                                      # the cached block, no hipMalloc
    assert len(fake.calls("hipMalloc")) == 2 and M.memory_stats(0)["cache_hits"] >= 1
    del again
    gc.collect()
    a.empty_cache()
    st = M.memory_stats(0)
    assert st["reserved_bytes.all.current"] == 0 and len(fake.calls("hipFree")) == 2
    assert st["reserved_bytes.small_pool.peak"] == 2 * MiB
    M.reset_peak_memory_stats(0)
    assert M.memory_stats(0)["reserved_bytes.small_pool.peak"] == 0


def test_no_caching_allocator_mallocs_and_frees_every_block(fake):
    s0 = Stream.from_handle(0x10, 0)
    M.set_allocator(M.NoCachingAllocator())
    m = M.alloc(1000, s0)
    assert fake.calls("hipMalloc") == [("hipMalloc", 1024)] and M.memory_reserved(0) == 1024
    m.record_stream(Stream.from_handle(0x20, 0))
    del m
    gc.collect()
    assert len(fake.calls("hipFree")) == 1 and M.memory_reserved(0) == 0
    assert M.memory_stats(0)["caching"] is False


def test_async_pool_allocator_orders_frees_on_the_allocation_stream(fake):
    s0, s1 = Stream.from_handle(0x10, 0), Stream.from_handle(0x20, 0)
    a = M.AsyncPoolAllocator()
    M.set_allocator(a)
    m = M.alloc(1000, s0)
    assert fake.calls("hipMallocAsync") == [("hipMallocAsync", 1000, 0x10)]
    threshold = fake._h.hipMemPoolAttr.hipMemPoolAttrReleaseThreshold
    assert fake.pool_attrs[threshold] == (1 << 64) - 1                  # the pool keeps what it has
    st = M.memory_stats(0)
    assert (st["allocated_bytes.all.current"], st["allocation.all.current"], st["num_device_alloc"]) == (1000, 1, 1)
    m.record_stream(s1)
    m.record_stream(s0)                                                  # its own stream: nothing to do
    ptr = m.ptr
    del m
    gc.collect()
    tail = [c[0] for c in fake.log[-3:]]
    assert tail == ["hipEventRecord", "hipStreamWaitEvent", "hipFreeAsync"]
    assert fake.log[-3][2] == 0x20 and fake.log[-2][1] == 0x10 and fake.log[-1] == ("hipFreeAsync", ptr, 0x10)
    st = M.memory_stats(0)
    assert (st["allocated_bytes.all.current"], st["allocated_bytes.all.peak"], st["num_device_free"]) == (0, 1000, 1)
    fake.pool_attrs[fake._h.hipMemPoolAttr.hipMemPoolAttrReservedMemCurrent] = 2 * MiB
    assert M.memory_stats(0)["pool.reserved_bytes.current"] == M.memory_reserved(0) == 2 * MiB
    a.empty_cache()
    assert fake.log[-2:] == [("hipDeviceSynchronize",), ("hipMemPoolTrimTo", 0)]


def test_async_pool_allocator_trims_and_retries_once_when_out_of_memory(fake):
    s0 = Stream.from_handle(0x10, 0)
    M.set_allocator(M.AsyncPoolAllocator(release_threshold=0))
    fake.oom_next = 1
    m = M.alloc(4096, s0)
    assert m.ptr and M.memory_stats(0)["num_alloc_retries"] == 1
    assert ("hipMemPoolTrimTo", 0) in fake.log
    del m


def test_memory_goes_back_to_the_allocator_that_gave_it(fake):
    s0 = Stream.from_handle(0x10, 0)
    first = M.AsyncPoolAllocator()
    M.set_allocator(first)
    m = M.alloc(512, s0)
    M.set_allocator(M.NoCachingAllocator())
    del m
    gc.collect()
    assert len(fake.calls("hipFreeAsync")) == 1 and not fake.calls("hipFree")
    assert first.stats(0)["allocation.all.current"] == 0


def test_allocator_free_gives_memory_back_at_once(fake):
    s0 = Stream.from_handle(0x10, 0)
    a = M.NoCachingAllocator()
    m = a.allocate(100, s0)                                 # from `a` though it is not current
    assert M.get_allocator() is not a and a.stats(0)["allocation.all.current"] == 1
    a.free(m)
    assert len(fake.calls("hipFree")) == 1 and a.stats(0)["allocation.all.current"] == 0
    del m
    gc.collect()
    assert len(fake.calls("hipFree")) == 1                  # not twice


# -- the per-op fast path in C (_memory) keeps the statistics of memory.py's methods --------------
def _workload(calls):
    """Allocations and frees through every case the C fast path takes or leaves to memory.py:
    memory_stats after each step, and the addresses handed out."""
    s0, s1 = Stream.from_handle(0x10, 0), Stream.from_handle(0x20, 0)
    a = M.CachingAllocator(caching=True)
    M.set_allocator(a)
    seen, ptrs = [], []

    def step():                                          # (frees happen at `del`: no collection)
        seen.append(M.memory_stats(0))

    live = []
    for i in range(40):                                  # one stream: sizes come back through `quick`
        live.append(M.alloc((i % 3 + 1) * 700, s0))
        if len(live) > 4:
            ptrs.append(live.pop(0).ptr)
        step()
    big = M.alloc(3 * MiB, s0)                           # the large pool: never `quick`
    live[0].record_stream(s1)                            # a use on another stream: pending
    del live[0]
    step()
    d = a.device(0)
    with d.lock:                                         # a free while the lock is held: deferred
        del live[0]
        assert len(d.deferred) == 1
    step()
    pool = M.CachingAllocator(caching=True)              # a graph capture's pool on s0
    M.capture_pool(s0, pool)
    captured = M.alloc(1000, s0)
    M.capture_pool(s0, None)
    assert captured._allocator is pool.device(0)
    step()
    for i in range(10):                                  # a second stream: fenced frees, no `quick`
        live.append(M.alloc((i % 3 + 1) * 1000, s1 if i % 2 else s0))
        ptrs.append(live.pop(0).ptr)
        step()
    del big, captured, live
    step()
    a.empty_cache()
    step()
    return seen, ptrs, calls


def test_fast_path_keeps_the_statistics(fake, monkeypatch):
    """The same workload with the C fast path on and off: the same statistics after every step and
    the same addresses; with it on, most single-stream allocations skip memory.py's malloc."""
    from hip.tensor._core import _memory
    runs = {}
    real = M._DeviceAllocator.malloc
    for on in (True, False):
        calls = []

        def counting(self, nbytes, stream, real=real, calls=calls):
            calls.append(nbytes)
            return real(self, nbytes, stream)
        monkeypatch.setattr(M._DeviceAllocator, "malloc", counting)
        fake.next = 0x7E0000000000
        prev = _memory.set_fast_path(on)
        try:
            runs[on] = _workload(calls)
        finally:
            _memory.set_fast_path(prev)
            M.set_allocator(None)
    (stats_on, ptrs_on, calls_on), (stats_off, ptrs_off, calls_off) = runs[True], runs[False]
    assert len(stats_on) == len(stats_off) > 50
    for k, (on, off) in enumerate(zip(stats_on, stats_off)):
        assert on == off, (k, {key: (on[key], off[key]) for key in on if on[key] != off.get(key)})
    assert ptrs_on == ptrs_off
    assert stats_on[40]["cache_hits"] > 20 and stats_on[-1]["allocation.all.current"] == 0
    assert len(calls_off) == 52 and len(calls_on) < 25, len(calls_on)     # the fast path was taken


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("nbytes", [1000, 12 * MiB])
def test_memory_dying_in_a_reference_cycle_comes_back_whole(fake, fast, nbytes):
    """A MemoryPointer that dies with a reference cycle (an array held by a traceback's frames)
    gives its block back before the collector clears the garbage: a segment handed out whole is
    reachable only through its MemoryPointer, so its Block is garbage too and was cleared first
    (ptr and stream None: the free failed silently and the segment was lost)."""
    from hip.tensor._core import _memory
    s0 = Stream.from_handle(0x10, 0)
    M.set_allocator(M.CachingAllocator(caching=True))
    prev = _memory.set_fast_path(fast)
    gc.disable()
    try:
        ptrs = []
        for _ in range(3):
            cycle = [M.alloc(nbytes, s0)]
            cycle.append(cycle)
            ptrs.append(cycle[0].ptr)
            del cycle
            gc.collect()
            stats = M.memory_stats(0)
            assert stats["allocation.all.current"] == 0 and stats["allocated_bytes.all.current"] == 0
    finally:
        gc.enable()
        _memory.set_fast_path(prev)
    assert ptrs[0] == ptrs[1] == ptrs[2]                   # the same memory each time
    assert len(fake.calls("hipMalloc")) == 1                # one segment, never lost
