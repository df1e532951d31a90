"""Device memory: a caching allocator after PyTorch's CUDACachingAllocator, a pinned host pool,
statistics, async copies.

Allocator (one per device):
* sizes round up to 512 B; requests <= 1 MiB come from the small pool, carved from 2 MiB segments;
  larger ones from the large pool (1-10 MiB requests share 20 MiB segments, larger ones are rounded
  up to 2 MiB); a cached block is split when enough remains (>= 512 B small, > 1 MiB large), and
  freed neighbours merge.
* frees never synchronize. A free block is keyed by the stream it was used on: that stream reuses
  it at once (its later work is ordered after the earlier use). Other streams take it once an event
  recorded on that stream at free time has completed; such events are recorded only while the
  device has seen more than one stream (before that, the first second stream fences the cached
  blocks of the others with one event each). `MemoryPointer.record_stream(s)` (torch's) delays the
  free until the work queued on `s` so far has completed.
* while a device has seen one stream, a freed small block is kept whole under its size and the
  next request of that size takes it at once (the per-op fast path: no split, no merge; taken
  and refilled in C, `_core/_memory.pyx`, with the same statistics); these
  blocks join the pool, merged, when a request finds nothing there, a second stream comes, or the
  cache is emptied.
* statistics change where blocks change hands; `memory_stats()` reads them.
* `HIP_TENSOR_NO_MEMORY_CACHING=1` (read when a device's allocator is made): hipMalloc/hipFree
  each time, for debugging.

Backends (`Allocator`, as PyTorch's CUDAAllocator and CuPy's allocators): `alloc` asks the current
one (`get_allocator()`, `set_allocator(a)`), which makes one device allocator per device on first
use. `CachingAllocator` is the allocator above (the default), `NoCachingAllocator` calls
hipMalloc/hipFree for every block, `AsyncPoolAllocator` takes stream-ordered memory
(hipMallocAsync/hipFreeAsync) from each device's default memory pool. Memory goes back to the
backend that gave it, whichever is current by then. Each reports its pools in `memory_stats()`.
"""
from __future__ import annotations

import ctypes
import os
import threading
from bisect import bisect_left, insort

from hip import hip as h
from hip.errors import HipError, check

from ._memory import Block as _Block, DeviceAllocatorCore, MemoryPointer, alloc as _alloc, bind as _bind, \
    count_allocation as _count_allocation, \
    set_current as _set_current, set_fast_path as _set_fast_path
from .device import Device, Stream, _completed, _error, current_stream, get_device_id, null_stream, on_device

__all__ = ["MemoryPointer", "PinnedMemory", "OutOfMemoryError", "alloc", "alloc_pinned", "memcpy", "memset",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "memory_stats", "empty_cache", "pinned_memory_stats", "Allocator",
           "CachingAllocator", "NoCachingAllocator", "AsyncPoolAllocator", "get_allocator", "set_allocator"]

_MIN_BLOCK = 512                # every size rounds up to a multiple of this
_SMALL = 1 << 20                # the small pool serves requests up to this
_SMALL_SEGMENT = 2 << 20        # segment size of the small pool
_MIN_LARGE_ALLOC = 10 << 20     # large requests under this share ...
_LARGE_SEGMENT = 20 << 20       # ... a segment of this size
_ROUND_LARGE = 2 << 20          # larger ones round up to this
_ANY = -1                       # stream key of a free block every stream may take (sorts first)
_KEEP_ALL = (1 << 64) - 1       # a memory pool's release threshold that keeps everything
_OOM = (int(h.hipError_t.hipErrorOutOfMemory), int(h.hipError_t.hipErrorMemoryAllocation))


class OutOfMemoryError(HipError, MemoryError):
    """The device could not give the memory even after the allocator released its cache: a
    MemoryError (as CuPy's) and a HipError (a RuntimeError, as PyTorch's) whose `.status` is
    hipMalloc's."""


def _round(nbytes: int) -> int:
    return _MIN_BLOCK if nbytes < _MIN_BLOCK else (nbytes + _MIN_BLOCK - 1) & ~(_MIN_BLOCK - 1)


def _segment_size(size: int) -> int:
    if size <= _SMALL:
        return _SMALL_SEGMENT
    if size < _MIN_LARGE_ALLOC:
        return _LARGE_SEGMENT
    return (size + _ROUND_LARGE - 1) & ~(_ROUND_LARGE - 1)


class _DeviceAllocatorBase(DeviceAllocatorCore):
    """What the allocator of one device shares with every backend's: all state changes hold
    `lock`; a free that finds it taken (another thread, or a garbage collection inside the
    allocator) is deferred; `record_stream`'s streams; the counts every backend reports (their
    fields, and those of the caching allocator's per-op fast path, are DeviceAllocatorCore's)."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        self.lock = threading.Lock()
        self.deferred: list = []
        self.allocated = self.allocated_peak = self.requested = self.requested_peak = 0
        self.allocations = self.allocations_peak = 0
        self.device_allocs = self.device_frees = self.retries = self.ooms = self.syncs = 0

    def free(self, block) -> None:
        if not self.lock.acquire(False):
            self.deferred.append(block)
            return
        try:
            if self.deferred:
                self._drain_deferred()
            self._free(block)
        finally:
            self.lock.release()

    def _drain_deferred(self):
        while self.deferred:
            self._free(self.deferred.pop())

    def record_stream(self, block, stream: Stream) -> None:
        if stream == block.stream:
            return
        if stream.device_id != self.device_id:
            raise ValueError(f"stream of device {stream.device_id} used with memory of device {self.device_id}")
        if block.uses is None:
            block.uses = {stream}
        else:
            block.uses.add(stream)

    def _retrying(self, status, function: str) -> None:
        """An allocation failed: its error unless it ran out of memory; else the caller releases
        what it caches and tries once more."""
        if int(status) not in _OOM:
            raise _error(status, function)
        h.hipGetLastError()
        self.retries += 1

    def _out_of_memory(self, status, nbytes: int, function: str, released: str) -> OutOfMemoryError:
        """The error of an allocation that failed again after the release (`released` says what)."""
        h.hipGetLastError()
        self.ooms += 1
        free, total = Device(self.device_id).mem_info()
        return OutOfMemoryError(
            status, f"hip.tensor: out of memory on device {self.device_id} trying to allocate {nbytes} bytes "
            f"(device: {free} of {total} bytes free; this allocator: {self.allocated} allocated, {released})",
            function)

    def _counts(self) -> dict:
        return {"allocated_bytes.all.current": self.allocated, "allocated_bytes.all.peak": self.allocated_peak,
                "requested_bytes.all.current": self.requested, "requested_bytes.all.peak": self.requested_peak,
                "allocation.all.current": self.allocations, "allocation.all.peak": self.allocations_peak,
                "num_device_alloc": self.device_allocs, "num_device_free": self.device_frees,
                "num_alloc_retries": self.retries, "num_ooms": self.ooms, "num_sync_all_streams": self.syncs}

    def _reset_counts(self) -> None:
        self.allocated_peak, self.requested_peak = self.allocated, self.requested
        self.allocations_peak = self.allocations


class _DeviceAllocator(_DeviceAllocatorBase):
    """The caching allocator of one device."""

    def __init__(self, device_id: int, caching: bool | None = None):
        super().__init__(device_id)
        if caching is None:
            caching = os.environ.get("HIP_TENSOR_NO_MEMORY_CACHING", "") not in ("1", "true", "yes")
        self.caching = caching
        self.fast_path = True           # `quick` is taken and refilled in C (_memory) in the simple case
        self.small: list = []           # free blocks as sorted (key, size, ptr, block)
        self.large: list = []
        self.pending: list = []         # [(events, block)]: frees waiting for record_stream uses
        self.quick: dict[int, list] = {}   # size -> free small blocks kept whole (one stream so far)
        self.seen: set[int] = set()     # stream keys that allocated here
        self.multi = False              # more than one stream seen: fence at free time
        self.fences: dict[int, list] = {}   # stream key -> [(seq, event ptr)] not known complete
        self.done: dict[int, int] = {}      # stream key -> highest completed fence seq
        self.fenced: list = []              # [(seq, key, block)] to promote to _ANY
        self.seq = 0
        self.promote_at = 256
        self.events: list[int] = []         # recycled event handles (no timing)
        self.segments = 0
        # statistics (PyTorch's names in memory_stats), beyond the counts every backend keeps
        self.reserved = self.reserved_peak = self.segments_peak = self.hits = 0
        # per pool, indexed by `small` (0: large pool, 1: small pool); of the blocks handed out, the
        # large pool's only (the small pool's are the rest: the per-op fast path counts nothing more)
        self.pool_reserved, self.pool_reserved_peak, self.pool_segments = [0, 0], [0, 0], [0, 0]
        self.large_allocated = self.large_allocations = 0

    # -- the two hot paths ------------------------------------------------------------------------
    def malloc(self, nbytes: int, stream: Stream) -> _Block:
        with self.lock:
            if self.deferred:
                self._drain_deferred()
            if self.pending:
                self._process_pending()
            key = stream.uid
            if key not in self.seen:
                self._new_stream(key, stream)
            size = _MIN_BLOCK if nbytes < _MIN_BLOCK else (nbytes + _MIN_BLOCK - 1) & ~(_MIN_BLOCK - 1)
            small = size <= _SMALL
            q = self.quick.get(size) if small and self.quick else None
            if q:                           # the fast path: a block of this size freed on this stream
                block = q.pop()
                self.hits += 1
                rest = 0
            else:
                block = self._take(key, size, small, stream)
                rest = block.size - size
            pool = self.small if small else self.large
            if rest and self.caching and (rest >= _MIN_BLOCK if small else rest > _SMALL):
                r = _Block(block.ptr + size, rest, small, block.key)
                r.fence, r.stream = block.fence, block.stream
                r.prev, r.next = block, block.next
                if block.next is not None:
                    block.next.prev = r
                block.next = r
                block.size = size
                r.in_pool = True
                insort(pool, (r.key, rest, r.ptr, r))
            block.allocated = True
            block.stream = stream
            block.requested = nbytes
            if not small:
                self.large_allocated += block.size
                self.large_allocations += 1
            _count_allocation(self, block.size, nbytes)
            return block

    def _take(self, key: int, size: int, small: bool, stream: Stream) -> _Block:
        """The best-fitting pool block for `size` (whole, unsplit), else a new segment."""
        pool = self.small if small else self.large
        entry = None
        if self.caching:
            i = bisect_left(pool, (key, size))
            if not self.multi and i < len(pool) and pool[i][0] == key:
                entry = pool[i]          # one stream so far: no block is keyed _ANY
            else:
                entry = self._find(pool, key, size)
                if entry is None and (self.fenced or self.pending):
                    self._promote()
                    entry = self._find(pool, key, size)
            if entry is None and self.quick:
                self._flush_quick()
                entry = self._find(pool, key, size)
        if entry is None:
            return self._new_segment(_segment_size(size) if self.caching else size, small, stream, size)
        block = entry[3]
        del pool[bisect_left(pool, entry)]
        block.in_pool = False
        self.hits += 1
        return block

    # -- internals (lock held) --------------------------------------------------------------------
    def _free(self, block: _Block) -> None:
        block.allocated = False
        self.allocated -= block.size
        self.requested -= block.requested
        self.allocations -= 1
        if not block.small:
            self.large_allocated -= block.size
            self.large_allocations -= 1
        if not self.caching:
            self._release_segment(block)
            return
        if block.uses:
            events = [self._record(s.ptr) for s in block.uses]
            block.uses = None
            self.pending.append((events, block))
            return
        if block.small and not self.multi:
            # One stream so far: the block is reusable at once by the next request of its size
            # (the per-op fast path), kept whole; it joins the pool (merged) when a request finds
            # nothing there, a second stream comes, or the cache is emptied.
            q = self.quick.get(block.size)
            if q is None:
                q = self.quick[block.size] = []
            q.append(block)
            return
        self._to_pool(block)
        if len(self.fenced) > self.promote_at:   # keep the fence lists short between misses
            self._promote()
            self.promote_at = max(256, 2 * len(self.fenced))

    def _to_pool(self, block: _Block) -> None:
        # The block keeps its stream while keyed to it: a live Stream object cannot be destroyed,
        # so its handle cannot be reused by a new stream that would skip the fence.
        block.key = block.stream.uid
        if self.multi:
            block.fence = self._fence(block.key, block.stream.ptr)
        self._insert_merged(block)

    def _flush_quick(self) -> None:
        """The blocks kept whole by size go to their pool, merged with free neighbours."""
        quick, self.quick = self.quick, {}
        for blocks in quick.values():
            for b in blocks:
                self._to_pool(b)

    def _insert_merged(self, block: _Block) -> None:
        """Merge `block` with free neighbours that the same streams may take; put it in its pool."""
        pool = self.small if block.small else self.large
        for nb in (block.prev, block.next):
            if nb is None or not nb.in_pool:
                continue
            if nb.key == block.key:
                key, fence, stream = block.key, max(nb.fence, block.fence), block.stream
            elif nb.key == _ANY:
                key, fence, stream = block.key, block.fence, block.stream
            elif block.key == _ANY:
                key, fence, stream = nb.key, nb.fence, nb.stream
            else:
                continue
            del pool[bisect_left(pool, (nb.key, nb.size, nb.ptr))]
            nb.in_pool = False
            if nb is block.prev:
                block.ptr = nb.ptr
                block.prev = nb.prev
                if nb.prev is not None:
                    nb.prev.next = block
            else:
                block.next = nb.next
                if nb.next is not None:
                    nb.next.prev = block
            block.size += nb.size
            block.key, block.fence, block.stream = key, fence, stream
            nb.stream = None
        block.in_pool = True
        insort(pool, (block.key, block.size, block.ptr, block))
        if block.fence and block.key != _ANY:
            self.fenced.append((block.fence, block.key, block))

    @staticmethod
    def _find(pool: list, key: int, size: int):
        """Best fit: the smallest block of at least `size` that stream `key` may take."""
        best = None
        n = len(pool)
        i = bisect_left(pool, (key, size))
        if i < n and pool[i][0] == key:
            best = pool[i]
        if key != _ANY:
            j = bisect_left(pool, (_ANY, size))
            if j < n and pool[j][0] == _ANY and (best is None or pool[j][1] < best[1]):
                best = pool[j]
        return best

    def _new_stream(self, key: int, stream: Stream) -> None:
        self.seen.add(key)
        if len(self.seen) > 1 and not self.multi:
            if self.quick:
                self._flush_quick()
            # From now on frees are fenced; fence what the first stream left in the cache.
            self.multi = True
            for pool in (self.small, self.large):
                keys = {e[0]: e[3].stream.ptr for e in pool if e[0] != _ANY and e[3].fence == 0}
                for k, ptr in keys.items():
                    seq = self._fence(k, ptr)
                    for e in pool:
                        if e[0] == k and e[3].fence == 0:
                            e[3].fence = seq
                            self.fenced.append((seq, k, e[3]))

    def _event(self) -> int:
        if self.events:
            return self.events.pop()
        with Device(self.device_id):
            return int(check(h.hipEventCreateWithFlags(h.hipEventDisableTiming), "hipEventCreateWithFlags"))

    def _record(self, stream_ptr: int) -> int:
        ev = self._event()
        try:
            check(h.hipEventRecord(ev, stream_ptr), "hipEventRecord")
        except HipError:
            self.events.append(ev)
            raise
        return ev

    def _fence(self, key: int, stream_ptr: int) -> int:
        self.seq += 1
        self.fences.setdefault(key, []).append((self.seq, self._record(stream_ptr)))
        return self.seq

    def _query(self, ev: int) -> bool:
        return _completed(h.hipEventQuery(ev), "hipEventQuery")

    def _process_pending(self) -> None:
        """Blocks whose record_stream uses have completed go to their pools."""
        pending, self.pending = self.pending, []
        for events, block in pending:
            while events and self._query(events[-1]):
                self.events.append(events.pop())
            if events:
                self.pending.append((events, block))
            else:
                self._to_pool(block)

    def _promote(self) -> None:
        """Free blocks whose fence has completed become takeable by every stream."""
        if self.pending:
            self._process_pending()
        for key, fences in self.fences.items():
            k = 0
            while k < len(fences) and self._query(fences[k][1]):
                self.done[key] = fences[k][0]
                self.events.append(fences[k][1])
                k += 1
            del fences[:k]
        for key in [k for k, v in self.fences.items() if not v]:
            del self.fences[key]
        keep = []
        for entry in self.fenced:
            seq, key, block = entry
            if not block.in_pool or block.key != key or block.fence != seq:
                continue     # taken, merged or re-fenced since
            if seq <= self.done.get(key, 0):
                pool = self.small if block.small else self.large
                del pool[bisect_left(pool, (block.key, block.size, block.ptr))]
                block.in_pool = False
                block.key, block.fence, block.stream = _ANY, 0, None
                self._insert_merged(block)
            else:
                keep.append(entry)
        self.fenced = keep

    def _new_segment(self, size: int, small: bool, stream: Stream, min_size: int) -> _Block:
        switch = get_device_id() != self.device_id
        if switch:
            with Device(self.device_id):
                r = h.hipMalloc(size)
        else:
            r = h.hipMalloc(size)
        if r[0]:
            self._retrying(r[0], "hipMalloc")
            self._release_cached()
            with Device(self.device_id):
                r = h.hipMalloc(size)
                if r[0] and size > (need := (min_size + _ROUND_LARGE - 1) & ~(_ROUND_LARGE - 1)):
                    h.hipGetLastError()     # a shared segment does not fit: one just big enough
                    size = need
                    r = h.hipMalloc(size)
            if r[0]:
                raise self._out_of_memory(r[0], size, "hipMalloc", f"{self.reserved} reserved after releasing its cache")
        self.device_allocs += 1
        self.reserved += size
        self.segments += 1
        self.pool_reserved[small] += size
        self.pool_segments[small] += 1
        self.reserved_peak = max(self.reserved_peak, self.reserved)
        self.segments_peak = max(self.segments_peak, self.segments)
        self.pool_reserved_peak[small] = max(self.pool_reserved_peak[small], self.pool_reserved[small])
        b = _Block(int(r[1]), size, small, stream.uid)
        b.stream = stream
        return b

    def _release_segment(self, block: _Block) -> None:
        check(h.hipFree(block.ptr), "hipFree")
        self.device_frees += 1
        self.reserved -= block.size
        self.segments -= 1
        self.pool_reserved[block.small] -= block.size
        self.pool_segments[block.small] -= 1

    def _release_cached(self) -> None:
        """Synchronize the device once, then hipFree every segment that is wholly free."""
        if self.quick:
            self._flush_quick()
        with Device(self.device_id):
            check(h.hipDeviceSynchronize(), "hipDeviceSynchronize")
            self.syncs += 1
            self._promote()       # everything queued has completed: all fences and uses are done
            for pool in (self.small, self.large):
                whole = [e for e in pool if e[3].prev is None and e[3].next is None]
                for e in whole:
                    del pool[bisect_left(pool, e[:3])]
                    e[3].in_pool = False
                    self._release_segment(e[3])
            for ev in self.events:
                h.hipEventDestroy(ev)
            self.events.clear()

    def empty_cache(self) -> None:
        with self.lock:
            if self.deferred:
                self._drain_deferred()
            if self.small or self.large or self.pending or any(self.quick.values()):
                self._release_cached()

    def stats(self) -> dict:
        with self.lock:
            if self.deferred:
                self._drain_deferred()
            free_small, free_large = len(self.small) + sum(map(len, self.quick.values())), len(self.large)
            return {
                **self._counts(),
                "reserved_bytes.all.current": self.reserved, "reserved_bytes.all.peak": self.reserved_peak,
                "segment.all.current": self.segments, "segment.all.peak": self.segments_peak,
                "inactive_split.all.current": free_small + free_large,
                "inactive_split.small_pool.current": free_small, "inactive_split.large_pool.current": free_large,
                "cache_hits": self.hits, "pending_frees": len(self.pending), "caching": self.caching,
                "allocated_bytes.small_pool.current": self.allocated - self.large_allocated,
                "allocated_bytes.large_pool.current": self.large_allocated,
                "allocation.small_pool.current": self.allocations - self.large_allocations,
                "allocation.large_pool.current": self.large_allocations,
                **{f"{k}.{pool}_pool.{c}": v[i]
                   for k, c, v in (("reserved_bytes", "current", self.pool_reserved),
                                   ("reserved_bytes", "peak", self.pool_reserved_peak),
                                   ("segment", "current", self.pool_segments))
                   for i, pool in ((1, "small"), (0, "large"))},
            }

    def reset_peaks(self) -> None:
        with self.lock:
            self._reset_counts()
            self.reserved_peak, self.segments_peak = self.reserved, self.segments
            self.pool_reserved_peak = list(self.pool_reserved)


class _AsyncBlock:
    __slots__ = ("ptr", "size", "stream", "uses")

    def __init__(self, ptr, size, stream):
        self.ptr, self.size, self.stream, self.uses = ptr, size, stream, None


class _AsyncDeviceAllocator(_DeviceAllocatorBase):
    """One device's stream-ordered allocator: hipMallocAsync and hipFreeAsync on the block's stream,
    in the device's default memory pool, which caches (its release threshold: what it keeps at a
    synchronization; everything by default). A free waits on the streams `record_stream` named
    (an event each, waited for by the allocation stream). The statistics count the blocks given
    and the pool's own reserved and used bytes."""

    def __init__(self, device_id: int, release_threshold: int = _KEEP_ALL):
        super().__init__(device_id)
        self.release_threshold = release_threshold
        self.caching = True
        self.pool = None                # the device's default pool, configured on first use

    def _pool(self):
        if self.pool is None:
            pool = check(h.hipDeviceGetDefaultMemPool(self.device_id), "hipDeviceGetDefaultMemPool")
            v = ctypes.c_uint64(self.release_threshold)
            check(h.hipMemPoolSetAttribute(pool, h.hipMemPoolAttr.hipMemPoolAttrReleaseThreshold,
                                           ctypes.addressof(v)), "hipMemPoolSetAttribute")
            self.pool = pool
        return self.pool

    def _attribute(self, attr) -> int:
        v = ctypes.c_uint64(0)
        check(h.hipMemPoolGetAttribute(self.pool, attr, ctypes.addressof(v)), "hipMemPoolGetAttribute")
        return v.value

    def malloc(self, nbytes: int, stream: Stream) -> _AsyncBlock:
        with self.lock:
            if self.deferred:
                self._drain_deferred()
            pool = self.pool if self.pool is not None else self._pool()
            with on_device(self.device_id):
                r = h.hipMallocAsync(nbytes, stream.ptr)
                if r[0]:
                    self._retrying(r[0], "hipMallocAsync")   # what the pool keeps goes back to the device
                    check(h.hipDeviceSynchronize(), "hipDeviceSynchronize")
                    self.syncs += 1
                    check(h.hipMemPoolTrimTo(pool, 0), "hipMemPoolTrimTo")
                    r = h.hipMallocAsync(nbytes, stream.ptr)
                    if r[0]:
                        raise self._out_of_memory(r[0], nbytes, "hipMallocAsync", "its pool trimmed")
            self.device_allocs += 1
            self.allocated += nbytes
            if self.allocated > self.allocated_peak:
                self.allocated_peak = self.allocated
            self.requested = self.allocated
            self.requested_peak = self.allocated_peak
            self.allocations += 1
            if self.allocations > self.allocations_peak:
                self.allocations_peak = self.allocations
            return _AsyncBlock(int(r[1]), nbytes, stream)

    def _free(self, block: _AsyncBlock) -> None:
        self.allocated -= block.size
        self.requested = self.allocated
        self.allocations -= 1
        with on_device(self.device_id):
            if block.uses:
                for s in block.uses:
                    ev = int(check(h.hipEventCreateWithFlags(h.hipEventDisableTiming), "hipEventCreateWithFlags"))
                    try:
                        check(h.hipEventRecord(ev, s.ptr), "hipEventRecord")
                        check(h.hipStreamWaitEvent(block.stream.ptr, ev, 0), "hipStreamWaitEvent")
                    finally:
                        h.hipEventDestroy(ev)
                block.uses = None
            check(h.hipFreeAsync(block.ptr, block.stream.ptr), "hipFreeAsync")
        self.device_frees += 1

    def empty_cache(self) -> None:
        """Synchronize the device, then return what the pool keeps (hipMemPoolTrimTo)."""
        with self.lock:
            if self.deferred:
                self._drain_deferred()
            if self.pool is None:
                return
            with on_device(self.device_id):
                check(h.hipDeviceSynchronize(), "hipDeviceSynchronize")
                self.syncs += 1
                check(h.hipMemPoolTrimTo(self.pool, 0), "hipMemPoolTrimTo")

    def stats(self) -> dict:
        with self.lock:
            if self.deferred:
                self._drain_deferred()
            a = h.hipMemPoolAttr
            pool = [self._attribute(x) for x in (a.hipMemPoolAttrReservedMemCurrent, a.hipMemPoolAttrReservedMemHigh,
                                                 a.hipMemPoolAttrUsedMemCurrent, a.hipMemPoolAttrUsedMemHigh)] \
                if self.pool is not None else [0, 0, 0, 0]
            return {
                **self._counts(),
                "reserved_bytes.all.current": pool[0], "reserved_bytes.all.peak": pool[1],
                "pool.reserved_bytes.current": pool[0], "pool.reserved_bytes.peak": pool[1],
                "pool.used_bytes.current": pool[2], "pool.used_bytes.peak": pool[3],
                "pool.release_threshold": self.release_threshold, "caching": True,
            }

    def reset_peaks(self) -> None:
        with self.lock:
            self._reset_counts()
            if self.pool is not None:
                zero = ctypes.c_uint64(0)
                for x in (h.hipMemPoolAttr.hipMemPoolAttrReservedMemHigh, h.hipMemPoolAttr.hipMemPoolAttrUsedMemHigh):
                    check(h.hipMemPoolSetAttribute(self.pool, x, ctypes.addressof(zero)), "hipMemPoolSetAttribute")


# -- the backends -------------------------------------------------------------------------------------
class Allocator:
    """A device memory allocator: what `alloc` (so every array) takes memory from, the current one
    being `get_allocator()` (`set_allocator`). One device allocator per device, made on first use
    by `_make(device_id)`: `malloc(nbytes, stream) -> block` (`block.ptr`), `free(block)`,
    `record_stream(block, stream)`, `stats() -> dict`, `empty_cache()`, `reset_peaks()`; a subclass
    defines `_make`. Memory goes back to the allocator that gave it."""

    name = "allocator"

    def __init__(self):
        self._devices: dict = {}
        self._lock = threading.Lock()

    def _make(self, device_id: int):
        raise NotImplementedError(f"{type(self).__name__} makes no device allocator")

    def device(self, device_id: int):
        """The device allocator of `device_id` (made on first use)."""
        a = self._devices.get(device_id)
        if a is None:
            with self._lock:
                a = self._devices.get(device_id)
                if a is None:
                    a = self._devices[device_id] = self._make(device_id)
        return a

    def allocate(self, nbytes: int, stream: Stream | None = None) -> "MemoryPointer":
        """`nbytes` of device memory for use on `stream` (the current one by default) from this
        allocator, current or not; returned to it when the MemoryPointer is collected or freed."""
        return _alloc(self, nbytes, stream)

    def free(self, memory: "MemoryPointer") -> None:
        """Give `memory` back now rather than when it is collected (its `.ptr` must not be used again)."""
        b = memory._block
        if b is not None:
            memory._block = None
            memory._allocator.free(b)

    def record_stream(self, memory: "MemoryPointer", stream: Stream) -> None:
        """Work queued on `stream` uses `memory`: its reuse waits for that work (torch's)."""
        memory.record_stream(stream)

    def stats(self, device=None) -> dict:
        """The statistics of a device (the current one by default); zeros for one never used."""
        a = self._devices.get(_device_id(device))
        return (a if a is not None else self._make(-1)).stats()

    def reset_peak_stats(self, device=None) -> None:
        a = self._devices.get(_device_id(device))
        if a is not None:
            a.reset_peaks()

    def empty_cache(self) -> None:
        """Return what the allocator caches to the devices (synchronizes each device it caches for)."""
        for a in list(self._devices.values()):
            a.empty_cache()

    def __repr__(self):
        return f"<{type(self).__name__} ({len(self._devices)} device(s))>"


class CachingAllocator(Allocator):
    """The caching allocator (the module's doc; PyTorch's CUDACachingAllocator): small and large
    pools per device, reported apart in `memory_stats()` (`*.small_pool.*`, `*.large_pool.*`).
    `caching=False`, or HIP_TENSOR_NO_MEMORY_CACHING=1 where `caching` is None (read when a device's
    allocator is made): hipMalloc and hipFree for every block."""

    name = "caching"

    def __init__(self, caching: bool | None = None):
        super().__init__()
        self.caching = caching

    def _make(self, device_id: int) -> _DeviceAllocator:
        return _DeviceAllocator(device_id, self.caching)


class NoCachingAllocator(CachingAllocator):
    """hipMalloc and hipFree for every block (for memory checkers; hipFree synchronizes)."""

    name = "no-caching"

    def __init__(self):
        super().__init__(caching=False)


class AsyncPoolAllocator(Allocator):
    """Stream-ordered memory from each device's default memory pool (hipMallocAsync, hipFreeAsync:
    PyTorch's cudaMallocAsync backend); the runtime caches. `release_threshold`: the bytes the pool
    keeps when the device synchronizes (default: all). `memory_stats()` adds the pool's own
    `pool.reserved_bytes.*` and `pool.used_bytes.*`; `reserved_bytes.all.*` are the pool's."""

    name = "async"

    def __init__(self, release_threshold: int | None = None):
        super().__init__()
        self.release_threshold = _KEEP_ALL if release_threshold is None else int(release_threshold)
        if not 0 <= self.release_threshold <= _KEEP_ALL:
            raise ValueError(f"release_threshold must be a byte count, got {release_threshold}")

    def _make(self, device_id: int) -> _AsyncDeviceAllocator:
        return _AsyncDeviceAllocator(device_id, self.release_threshold)


_default = CachingAllocator()
_current: Allocator = _default
_allocators = _default._devices           # the default allocator's (the GPU tests reach in)
_used: list[Allocator] = [_default]       # every allocator that was current (empty_cache empties them)


def get_allocator() -> Allocator:
    """The allocator `alloc` takes device memory from."""
    return _current


def set_allocator(allocator: Allocator | None = None) -> Allocator:
    """Make `allocator` the one new memory comes from (None: the default CachingAllocator); returns
    the previous one. Memory already allocated goes back to the allocator that gave it."""
    global _current
    if allocator is None:
        allocator = _default
    if not isinstance(allocator, Allocator):
        raise TypeError(f"set_allocator takes a hip.tensor Allocator or None, got {type(allocator).__name__}")
    prev, _current = _current, allocator
    _set_current(allocator)
    if allocator not in _used:
        _used.append(allocator)
    return prev


def _index(v, what: str) -> int:
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{what} is an int, got {type(v).__name__}")
    return v.__index__()


def alloc(nbytes: int, stream: Stream | None = None) -> MemoryPointer:
    """`nbytes` of device memory for use on `stream` (the current stream by default; the memory is
    on the stream's device) from the current allocator. 0 bytes gives a null pointer."""
    return _alloc(None, nbytes, stream)


_capturing: dict = {}   # stream uid -> the Allocator of the graph being captured on that stream


def capturing(stream: Stream) -> bool:
    """Whether a graph is being captured on `stream` (its memory comes from the graph's pool)."""
    return stream.uid in _capturing


def capture_pool(stream: Stream, pool: "Allocator | None") -> None:
    """Memory `alloc` gives for `stream` comes from `pool` (None: the current allocator again):
    a graph capture's private pool (hip.tensor's Graph)."""
    if pool is None:
        _capturing.pop(stream.uid, None)
    else:
        _capturing[stream.uid] = pool


def _device_id(device) -> int:
    if device is None:
        return get_device_id()
    return Device(device).id


def memory_stats(device=None) -> dict:
    """The current allocator's statistics for a device (current by default), PyTorch's key names
    plus num_device_alloc/num_device_free (hipMalloc/hipFree calls) and cache_hits."""
    return _current.stats(device)


def memory_allocated(device=None) -> int:
    """Bytes held by live MemoryPointers (rounded block sizes)."""
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None) -> int:
    """Bytes obtained with hipMalloc and not yet returned (allocated + cached)."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None) -> int:
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None) -> None:
    _current.reset_peak_stats(device)


def empty_cache() -> None:
    """Return what every allocator that was current caches to the devices (the caching allocator:
    every wholly free segment, hipFree), and the free blocks of the pinned pool (hipHostFree).
    Synchronizes each device that had a cache."""
    for a in list(_used):
        a.empty_cache()
    _pinned.empty_cache()


# -- pinned host memory ---------------------------------------------------------------------------
class _PinnedPool:
    """Page-locked host blocks by power-of-two size; a freed block is reused once the events of the
    streams that used it (record_stream, memcpy) have completed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.free: dict[int, list[int]] = {}     # size -> [ptr]
        self.pending: list = []                  # [(events, size, ptr)]
        self.allocated = self.reserved = self.host_allocs = self.hits = 0
        self.events: list[int] = []

    def take(self, nbytes: int) -> tuple[int, int]:
        size = max(_MIN_BLOCK, 1 << (nbytes - 1).bit_length())
        with self.lock:
            if self.pending:
                self._process()
            lst = self.free.get(size)
            if lst:
                ptr = lst.pop()
                self.hits += 1
            else:
                r = h.hipHostMalloc(size, 0)
                if r[0]:
                    if int(r[0]) in _OOM:
                        h.hipGetLastError()
                        self._release()
                        r = h.hipHostMalloc(size, 0)
                ptr = int(check(r, "hipHostMalloc"))
                self.host_allocs += 1
                self.reserved += size
            self.allocated += size
            return ptr, size

    def give(self, ptr: int, size: int, streams) -> None:
        with self.lock:
            self.allocated -= size
            if streams:
                events = []
                for s in streams:
                    ev = self.events.pop() if self.events else None
                    if ev is None:
                        with Device(s.device_id):
                            ev = int(check(h.hipEventCreateWithFlags(h.hipEventDisableTiming),
                                           "hipEventCreateWithFlags"))
                    check(h.hipEventRecord(ev, s.ptr), "hipEventRecord")
                    events.append(ev)
                self.pending.append((events, size, ptr))
            else:
                self.free.setdefault(size, []).append(ptr)

    def _process(self) -> None:
        keep = []
        for events, size, ptr in self.pending:
            while events and not h.hipEventQuery(events[-1])[0]:
                self.events.append(events.pop())
            if events:
                keep.append((events, size, ptr))
            else:
                self.free.setdefault(size, []).append(ptr)
        self.pending = keep

    def _release(self) -> None:
        if self.pending:
            self._process()
        for size, ptrs in self.free.items():
            for p in ptrs:
                h.hipHostFree(p)
                self.reserved -= size
        self.free.clear()

    def empty_cache(self) -> None:
        with self.lock:
            self._release()

    def stats(self) -> dict:
        with self.lock:
            return {"allocated_bytes": self.allocated, "reserved_bytes": self.reserved,
                    "num_host_alloc": self.host_allocs, "cache_hits": self.hits,
                    "pending_frees": len(self.pending)}


_pinned = _PinnedPool()


class PinnedMemory:
    """Page-locked host memory from the pinned pool (returned to it when garbage collected).
    `numpy(dtype, shape)` views it; a view keeps it alive."""

    __slots__ = ("ptr", "size", "_capacity", "_streams", "__weakref__")

    def __del__(self):
        if getattr(self, "ptr", 0):      # unset when the allocation itself failed
            ptr, self.ptr = self.ptr, 0
            try:
                _pinned.give(ptr, self._capacity, self._streams)
            except Exception:
                pass

    def record_stream(self, stream: Stream) -> None:
        """Async copies on `stream` use this memory: reuse waits for them (memcpy records this)."""
        if self._streams is None:
            self._streams = {stream}
        else:
            self._streams.add(stream)

    def numpy(self, dtype="uint8", shape=None):
        import numpy as np
        dtype = np.dtype(dtype)
        count = self.size // dtype.itemsize
        if shape is None:
            shape = (count,)
        elif isinstance(shape, int):
            shape = (shape,)
        need = dtype.itemsize
        for d in shape:
            need *= d
        if need > self.size:
            raise ValueError(f"shape {tuple(shape)} of {dtype} needs {need} bytes; this pinned block has {self.size}")
        buf = (ctypes.c_char * max(self.size, 1)).from_address(self.ptr)
        buf._owner = self          # the view's base keeps the block alive
        return np.frombuffer(buf, dtype=dtype, count=need // dtype.itemsize).reshape(shape)

    def __int__(self):
        return self.ptr

    def __repr__(self):
        return f"<PinnedMemory {self.ptr:#x} ({self.size} bytes)>"


def alloc_pinned(nbytes: int) -> PinnedMemory:
    """`nbytes` of page-locked host memory (hipHostMalloc), pooled."""
    nbytes = _index(nbytes, "nbytes")
    if nbytes < 0:
        raise ValueError(f"cannot allocate a negative number of bytes ({nbytes})")
    m = PinnedMemory.__new__(PinnedMemory)
    m._streams = None
    m.ptr, m._capacity = _pinned.take(max(nbytes, 1))
    m.size = nbytes
    return m


def pinned_memory_stats() -> dict:
    return _pinned.stats()


# -- copies ---------------------------------------------------------------------------------------
_KINDS = {"h2h": h.hipMemcpyKind.hipMemcpyHostToHost, "h2d": h.hipMemcpyKind.hipMemcpyHostToDevice,
          "d2h": h.hipMemcpyKind.hipMemcpyDeviceToHost, "d2d": h.hipMemcpyKind.hipMemcpyDeviceToDevice,
          "default": h.hipMemcpyKind.hipMemcpyDefault}


def _address(p) -> int:
    if type(p) is int:
        return p
    a = getattr(p, "ptr", None)
    if a is None:
        raise TypeError(f"expected an address (int) or an object with .ptr, got {type(p).__name__}")
    return int(a)


def memcpy(dst, src, nbytes: int, kind="default", stream: Stream | None = None) -> None:
    """Copy `nbytes` from `src` to `dst` asynchronously on `stream` (the current one by default).

    `dst`/`src`: addresses (int) or objects with `.ptr` (MemoryPointer, PinnedMemory, arrays).
    `kind`: 'h2d', 'd2h', 'd2d', 'h2h', 'default' (the runtime tells from the addresses) or a
    hipMemcpyKind. A PinnedMemory operand records the stream (its reuse waits for the copy).
    Pageable host memory makes the copy synchronous with the host, as in HIP/CUDA."""
    if stream is None:
        stream = current_stream()
    k = _KINDS.get(kind) if isinstance(kind, str) else h.hipMemcpyKind(int(kind))
    if k is None:
        raise ValueError(f"kind {kind!r}: expected one of {sorted(_KINDS)} or a hipMemcpyKind")
    nbytes = _index(nbytes, "nbytes")
    if nbytes < 0:
        raise ValueError(f"negative byte count {nbytes}")
    if nbytes == 0:
        return
    for x in (dst, src):
        if isinstance(x, PinnedMemory):
            x.record_stream(stream)
    check(h.hipMemcpyAsync(_address(dst), _address(src), nbytes, k, stream.ptr), "hipMemcpyAsync")


def memset(dst, value: int, nbytes: int, stream: Stream | None = None) -> None:
    """Set `nbytes` bytes at device address `dst` to the byte `value`, asynchronously."""
    if stream is None:
        stream = current_stream()
    if int(nbytes) == 0:
        return
    check(h.hipMemsetAsync(_address(dst), int(value) & 0xFF, int(nbytes), stream.ptr), "hipMemsetAsync")


_bind(_capturing, _current, current_stream, _index)    # alloc (in C) reads _capturing and _current
if os.environ.get("HIP_TENSOR_NO_MEMORY_FAST_PATH", "") in ("1", "true", "yes"):
    _set_fast_path(False)       # every allocation and free through malloc and _free (for debugging)
