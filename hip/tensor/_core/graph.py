"""Graph capture (torch.cuda.graph's model): the work a block of hip.tensor code queues on a stream
is recorded into a HIP graph once and replayed with one launch.

    g = ht.Graph()
    with ht.graph(g):          # on a side stream of the current device
        y = f(x)               # kernels are recorded, not run
    g.replay()                 # runs them; y holds the result (x's data at replay time is read)

Memory: arrays made during the capture come from the graph's own caching pool (a private
`CachingAllocator`, or one shared by graphs through `graph_pool_handle()`), so a replay writes
where the capture's arrays live and nothing else can be handed that memory while the graph may
run. Inputs and outputs are static, as in PyTorch: keep the arrays the graph reads and writes
alive, and copy new input into them before a replay.

Capture runs in HIP's relaxed mode: compiling and loading a kernel on first use and growing the
pool (hipMalloc) are allowed during it. Work that needs the host to wait (reading a value back,
`synchronize`) fails the capture with the runtime's error; the graph is then discarded.
"""
from __future__ import annotations

import weakref

from hip import hip as h
from hip.errors import check

from . import memory as _memory
from .device import Stream, current_stream, get_device_id, synchronize

__all__ = ["Graph", "graph", "graph_pool_handle"]

_RELAXED = h.hipStreamCaptureMode.hipStreamCaptureModeRelaxed
_users: "weakref.WeakKeyDictionary[_memory.CachingAllocator, int]" = weakref.WeakKeyDictionary()   # graphs per pool


def stream_is_capturing(stream: Stream) -> bool:
    """Whether a graph is being captured on `stream`, by hip.tensor or anyone else (a query the
    runtime refuses, as for the legacy null stream during another stream's global capture, counts)."""
    if _memory.capturing(stream):
        return True
    err, status = h.hipStreamIsCapturing(stream.ptr)
    return err != h.hipError_t.hipSuccess or status != h.hipStreamCaptureStatus.hipStreamCaptureStatusNone


def graph_pool_handle() -> _memory.CachingAllocator:
    """A memory pool that several graphs may share (pass it as `pool=`): graphs that are replayed
    in the order they were captured can then reuse each other's memory."""
    return _memory.CachingAllocator(caching=True)


class Graph:
    """A HIP graph captured from a stream (`capture_begin`/`capture_end`, or `with ht.graph(g):`)
    and its executable form; `replay()` launches it."""

    def __init__(self):
        self._graph = self._exec = None
        self._pool: _memory.CachingAllocator | None = None
        self._stream: Stream | None = None
        self.device_id: int | None = None

    def pool(self) -> _memory.CachingAllocator | None:
        """The memory pool of the capture (for another graph's `pool=`)."""
        return self._pool

    def capture_begin(self, pool: _memory.CachingAllocator | None = None, stream: Stream | None = None) -> None:
        """Start recording the work queued on `stream` (the current stream, which must not be the
        null stream). Memory allocated on it until `capture_end` comes from `pool` (a new pool by
        default)."""
        if self._graph is not None or self._stream is not None:
            raise RuntimeError("this Graph already holds a capture: reset() it first")
        stream = current_stream() if stream is None else stream
        if not stream.ptr:
            raise ValueError("a graph is captured from a created stream, not the null stream "
                             "(`with ht.graph(g):` makes a side stream)")
        if pool is not None and not isinstance(pool, _memory.CachingAllocator):
            raise TypeError(f"pool must come from graph_pool_handle() or Graph.pool(), got {type(pool).__name__}")
        pool = pool if pool is not None else graph_pool_handle()
        _memory.capture_pool(stream, pool)
        try:
            check(h.hipStreamBeginCapture(stream.ptr, _RELAXED), "hipStreamBeginCapture")
        except BaseException:
            _memory.capture_pool(stream, None)
            raise
        self._pool = pool
        _users[pool] = _users.get(pool, 0) + 1
        self._stream, self.device_id = stream, stream.device_id

    def capture_end(self) -> None:
        """Stop recording and make the graph executable. A capture that failed raises the
        runtime's error and leaves this Graph empty."""
        stream = self._stream
        if stream is None:
            raise RuntimeError("capture_end without capture_begin")
        self._stream = None
        _memory.capture_pool(stream, None)
        err, g = h.hipStreamEndCapture(stream.ptr)
        if err:
            self.reset()
            check((err,), "hipStreamEndCapture")
        self._graph = g
        err, ex = h.hipGraphInstantiateWithFlags(g, 0)
        if err:
            self.reset()
            check((err,), "hipGraphInstantiateWithFlags")
        self._exec = ex

    def _abandon(self) -> None:
        """End a capture that an exception interrupted; its graph, if any, is destroyed."""
        stream, self._stream = self._stream, None
        if stream is not None:
            _memory.capture_pool(stream, None)
            err, g = h.hipStreamEndCapture(stream.ptr)
            if not err and g:
                h.hipGraphDestroy(g)
        self.reset()

    def replay(self, stream: Stream | None = None) -> None:
        """Launch the captured work on `stream` (the current stream of the graph's device by default)."""
        if self._exec is None:
            raise RuntimeError("nothing to replay: capture into this Graph first")
        s = current_stream(self.device_id) if stream is None else stream
        check(h.hipGraphLaunch(self._exec, s.ptr), "hipGraphLaunch")

    def upload(self, stream: Stream | None = None) -> None:
        """Prepare the graph's launch resources ahead of the first replay (optional)."""
        if self._exec is None:
            raise RuntimeError("nothing to upload: capture into this Graph first")
        s = current_stream(self.device_id) if stream is None else stream
        check(h.hipGraphUpload(self._exec, s.ptr), "hipGraphUpload")

    def reset(self) -> None:
        """Destroy the graph; its pool's free memory goes back to the device once no other graph
        shares the pool (memory still held by arrays stays theirs)."""
        ex, g, self._exec, self._graph = self._exec, self._graph, None, None
        if ex is not None:
            synchronize(self.device_id)          # a replay may still be running
            h.hipGraphExecDestroy(ex)
        if g is not None:
            h.hipGraphDestroy(g)
        pool, self._pool = self._pool, None
        if pool is not None:
            _users[pool] -= 1
            if not _users[pool]:                 # no other graph's work uses its free blocks
                pool.empty_cache()

    def __del__(self):
        try:
            if self._exec is not None or self._graph is not None:
                self.reset()
        except Exception:
            pass

    def __repr__(self):
        state = "captured" if self._exec is not None else "capturing" if self._stream is not None else "empty"
        return f"<hip.tensor.Graph {state} device={self.device_id}>"


class graph:
    """`with ht.graph(g, pool=None, stream=None):` captures the block's work into `g` (torch's
    `torch.cuda.graph`). The device is synchronized first; the block runs on `stream` (a new side
    stream of the current device by default), made current for the block."""

    def __init__(self, g: Graph, pool: _memory.CachingAllocator | None = None, stream: Stream | None = None):
        if not isinstance(g, Graph):
            raise TypeError(f"ht.graph captures into a hip.tensor.Graph, got {type(g).__name__}")
        self.g, self.pool = g, pool
        self.stream = stream if stream is not None else Stream(non_blocking=True)

    def __enter__(self) -> Graph:
        synchronize(self.stream.device_id if self.stream is not None else get_device_id())
        self.stream.__enter__()
        try:
            self.g.capture_begin(self.pool, self.stream)
        except BaseException:
            self.stream.__exit__(None, None, None)
            raise
        return self.g

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self.g.capture_end()
            else:
                self.g._abandon()
        finally:
            self.stream.__exit__(exc_type, exc, tb)
