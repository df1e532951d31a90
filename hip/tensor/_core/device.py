"""Devices, streams and events (torch-style): the current device, the thread's current stream
per device, events for ordering work across streams without synchronizing the host.

`hip.hip` loads its library on the first call, so importing this module loads none.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import threading

from hip import hip as h
from .launch import StreamBase, bind_streams as _bind_streams, current_device as _current_device
from hip.errors import HipError, LibraryNotFoundError, check, status_error

__all__ = ["Device", "Stream", "Event", "get_device_id", "device_count", "current_stream",
           "null_stream", "platform", "is_available", "synchronize"]

_NOT_READY = int(h.hipError_t.hipErrorNotReady)
_NO_DEVICE = (int(h.hipError_t.hipErrorNoDevice), int(h.hipError_t.hipErrorInvalidDevice),
              int(h.hipError_t.hipErrorNotInitialized), int(h.hipError_t.hipErrorInsufficientDriver))


def _error(code, function: str) -> HipError:
    """The HipError of a failed hip.hip call, for the failures `check` does not handle alone (a
    status some caller accepts, as hipErrorNotReady) and the C launch path's plain int codes."""
    try:
        code = h.hipError_t(int(code))
    except ValueError:
        pass
    return status_error(code, function)


def _completed(answer, function: str) -> bool:
    """Whether a stream or event query's answer says its work has completed (hipErrorNotReady:
    not yet; any other error raises)."""
    err = answer[0]
    if not err:
        return True
    if int(err) == _NOT_READY:
        return False
    raise _error(err, function)


_platform: str | None = None


def platform() -> str:
    """'nvidia' when the HIP runtime loaded is the HIP-on-CUDA layer, else 'amd'."""
    global _platform
    if _platform is None:
        from hip import _loader
        p = _loader.platform()
        if not p:
            try:
                path = h._library.load() or ""
            except (OSError, LibraryNotFoundError):
                path = ""
            p = "nvidia" if "nvidia" in os.path.basename(path) else "amd"
        _platform = p
    return _platform


def device_count() -> int:
    """Number of visible devices; 0 where there is none or no HIP runtime loads."""
    try:
        err, n = h.hipGetDeviceCount()
    except (OSError, LibraryNotFoundError):
        return 0
    if err:
        if int(err) in _NO_DEVICE:
            return 0
        raise _error(err, "hipGetDeviceCount")
    return n


def is_available() -> bool:
    return device_count() > 0


def _no_device(err, function: str) -> HipError:
    """hipGetDevice's error where there is no device says so."""
    e = _error(err, function)
    if int(err) in _NO_DEVICE and device_count() == 0:
        e.args = (f"{e.args[0]}: no HIP device is visible (hipGetDeviceCount gives 0)",)
    return e


def get_device_id() -> int:
    """The calling thread's current device."""
    d = _current_device()           # hipGetDevice from C: every op asks
    if d >= 0:
        return d
    r = h.hipGetDevice()            # the failure again, as the binding reports it
    if r[0]:
        raise _no_device(r[0], "hipGetDevice")
    return r[1]


def _set_device(device_id: int) -> None:
    check(h.hipSetDevice(device_id), "hipSetDevice")


def synchronize(device_id: int | None = None) -> None:
    """Wait for all work on a device (the current one by default)."""
    with Device(device_id):
        check(h.hipDeviceSynchronize(), "hipDeviceSynchronize")


_props: dict[int, dict] = {}


def _properties(device_id: int) -> dict:
    p = _props.get(device_id)
    if p is None:
        s = h.hipDeviceProp_t()
        check(h.hipGetDeviceProperties(s, device_id), "hipGetDeviceProperties")

        def text(v):
            return bytes(v).split(b"\0", 1)[0].decode(errors="replace") if not isinstance(v, str) else v
        p = {"name": text(s.name), "gcn_arch_name": text(s.gcnArchName), "total_memory": int(s.totalGlobalMem),
             "multiprocessor_count": int(s.multiProcessorCount), "warp_size": int(s.warpSize),
             "max_threads_per_block": int(s.maxThreadsPerBlock),
             "max_shared_memory_per_block": int(s.sharedMemPerBlock), "major": int(s.major), "minor": int(s.minor)}
        _props[device_id] = p
    return p


def _property(key: str, doc: str | None = None) -> property:
    """A read-only Device attribute: its device's `_properties` entry `key`."""
    return property(lambda self: _properties(self.id)[key], doc=doc)


class _ThreadState(threading.local):
    """Per thread: .streams {device_id: Stream}; .device_stack / .stream_stack: saved state. The
    class-level Nones make a thread's first reads cheap (a missing attribute costs ~1 us)."""
    streams = device_stack = stream_stack = None


_tls = _ThreadState()


class Device:
    """A device by ordinal (the current one by default). `with Device(i):` makes `i` current for this
    thread and restores the previous device on exit."""

    __slots__ = ("id",)

    def __init__(self, id: int | "Device" | None = None):
        if id is None:
            id = get_device_id()
        elif isinstance(id, bool):
            raise TypeError("a device id is an int, got bool")
        elif isinstance(id, Device):
            id = id.id
        elif not isinstance(id, int) or isinstance(id, bool):
            try:
                id = int(id.__index__())
            except AttributeError:
                raise TypeError(f"a device id is an int, got {type(id).__name__}") from None
        if id < 0:
            raise ValueError(f"device id {id} is negative")
        self.id = id

    def __enter__(self) -> "Device":
        prev = get_device_id()
        if prev != self.id:
            n = device_count()
            if self.id >= n:
                raise ValueError(f"device {self.id} does not exist ({n} device(s))")
            _set_device(self.id)
        stack = getattr(_tls, "device_stack", None)
        if stack is None:
            stack = _tls.device_stack = []
        stack.append(prev)
        return self

    def __exit__(self, *exc) -> None:
        prev = _tls.device_stack.pop()
        if prev != self.id:
            _set_device(prev)

    def use(self) -> None:
        """Make this device current for the calling thread (no restore)."""
        _set_device(self.id)

    def synchronize(self) -> None:
        synchronize(self.id)

    @property
    def arch(self) -> str:
        """The architecture without target features: 'gfx90a' (AMD), 'sm_90' (NVIDIA)."""
        return _properties(self.id)["gcn_arch_name"].split(":", 1)[0]

    compute_capability = arch

    gcn_arch_name = _property("gcn_arch_name", "gcnArchName as the device reports it (AMD adds target features: "
                              "'gfx90a:sramecc+:xnack-').")
    name = _property("name")
    total_memory = _property("total_memory")
    multiprocessor_count = _property("multiprocessor_count")
    warp_size = _property("warp_size", "64 on most AMD GPUs (wavefront), 32 on NVIDIA: kernels must not assume either.")
    max_threads_per_block = _property("max_threads_per_block")
    max_shared_memory_per_block = _property("max_shared_memory_per_block")

    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes on the device."""
        with self:
            free, total = check(h.hipMemGetInfo(), "hipMemGetInfo")
        return free, total

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("hip.tensor.Device", self.id))

    def __int__(self):
        return self.id

    __index__ = __int__

    def __repr__(self):
        return f"<Device {self.id}>"


# A stream's identity for the allocator: handles can be reused by the driver once a stream is
# destroyed, so the allocator keys cached blocks by this instead of by `ptr`.
_uids = itertools.count(1)


class _NullOfCurrentDevice:
    """`Stream.null`: the null stream of the current device."""

    def __get__(self, obj, cls):
        return null_stream()


_CURRENT = contextlib.nullcontext()


def on_device(device_id: int):
    """`with` this around work for `device_id` (kernels are loaded, and memory pools kept, per
    device): makes it current when it is not."""
    return _CURRENT if get_device_id() == device_id else Device(device_id)


class Stream(StreamBase):
    """A HIP stream on the device current at creation. `with s:` makes it the thread's current
    stream for its device (and its device current); `ptr` is the handle as an int (0: the null
    stream), `handle` the hip.hip stream object (None for the null stream)."""

    # (ptr, uid and device_id are StreamBase's fields: the per-op path reads them in C)
    __slots__ = ("handle", "non_blocking", "priority", "_owned")
    null = _NullOfCurrentDevice()

    def __init__(self, non_blocking: bool = False, priority: int = 0):
        self.uid = next(_uids)
        self.device_id = get_device_id()
        flags = h.hipStreamNonBlocking if non_blocking else 0
        self.handle = check(h.hipStreamCreateWithPriority(flags, int(priority)), "hipStreamCreateWithPriority")
        self.ptr = int(self.handle)
        self.non_blocking, self.priority, self._owned = bool(non_blocking), int(priority), True

    @classmethod
    def from_handle(cls, ptr: int, device_id: int | None = None) -> "Stream":
        """A stream made elsewhere (not destroyed by us); `ptr` 0 is the null stream."""
        ptr = int(ptr)
        device_id = get_device_id() if device_id is None else int(device_id)
        if ptr == 0:
            return null_stream(device_id)
        return cls._wrap(ptr, device_id)

    @classmethod
    def _wrap(cls, ptr: int, device_id: int) -> "Stream":
        s = cls.__new__(cls)
        s.uid = next(_uids)
        s.ptr, s.handle, s.device_id = ptr, (None if ptr == 0 else ptr), device_id
        s.non_blocking, s.priority, s._owned = False, 0, False
        return s

    def __del__(self):
        if getattr(self, "_owned", False) and self.ptr:
            try:
                h.hipStreamDestroy(self.ptr)   # pending work still completes (HIP/CUDA semantics)
            except Exception:
                pass

    def __enter__(self) -> "Stream":
        prev_device = get_device_id()
        if prev_device != self.device_id:
            _set_device(self.device_id)
        streams = getattr(_tls, "streams", None)
        if streams is None:
            streams = _tls.streams = {}
        stack = getattr(_tls, "stream_stack", None)
        if stack is None:
            stack = _tls.stream_stack = []
        stack.append((prev_device, streams.get(self.device_id)))
        streams[self.device_id] = self
        return self

    def __exit__(self, *exc) -> None:
        prev_device, prev_stream = _tls.stream_stack.pop()
        if prev_stream is None:
            _tls.streams.pop(self.device_id, None)
        else:
            _tls.streams[self.device_id] = prev_stream
        if prev_device != self.device_id:
            _set_device(prev_device)

    def use(self) -> "Stream":
        """Make this the thread's current stream for its device (no restore)."""
        streams = getattr(_tls, "streams", None)
        if streams is None:
            streams = _tls.streams = {}
        streams[self.device_id] = self
        return self

    def synchronize(self) -> None:
        check(h.hipStreamSynchronize(self.ptr), "hipStreamSynchronize")

    def query(self) -> bool:
        """Whether all work queued on the stream has completed."""
        return _completed(h.hipStreamQuery(self.ptr), "hipStreamQuery")

    def record(self, event: "Event | None" = None) -> "Event":
        """Record `event` (a new one by default) on this stream; return it."""
        if event is None:
            event = Event(timing=False)
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        """Later work on this stream waits for `event` (on the device, not the host)."""
        if event.ptr:
            check(h.hipStreamWaitEvent(self.ptr, event.ptr, 0), "hipStreamWaitEvent")

    def wait_stream(self, other: "Stream") -> None:
        """Later work on this stream waits for the work queued on `other` so far."""
        if other != self:
            self.wait_event(other.record())

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr and other.device_id == self.device_id

    def __hash__(self):
        return hash((self.ptr, self.device_id))

    def __repr__(self):
        return f"<Stream {self.ptr:#x} on device {self.device_id}>"


_null_streams: dict[int, Stream] = {}


def null_stream(device_id: int | None = None) -> Stream:
    """The null (legacy default) stream of a device (the current one by default)."""
    if device_id is None:
        device_id = get_device_id()
    s = _null_streams.get(device_id)
    if s is None:
        s = _null_streams.setdefault(device_id, Stream._wrap(0, device_id))
    return s


def current_stream(device_id: int | None = None) -> Stream:
    """The calling thread's current stream for a device (the current one by default): the
    innermost `with stream:`, else the null stream."""
    if device_id is None:
        r = h.hipGetDevice()
        if r[0]:
            raise _no_device(r[0], "hipGetDevice")
        device_id = r[1]
    streams = _tls.streams
    s = streams.get(device_id) if streams else None
    if s is None:
        s = _null_streams.get(device_id)
        if s is None:
            s = null_stream(device_id)
    return s


class Event:
    """A HIP event (torch-style): created on first `record()`, on the stream's device.

    `timing=False` makes it cheaper (no timestamps); `blocking=True` makes `synchronize()` block
    the thread instead of spinning."""

    __slots__ = ("ptr", "handle", "timing", "blocking", "device_id", "__weakref__")

    def __init__(self, timing: bool = True, blocking: bool = False):
        self.timing, self.blocking = bool(timing), bool(blocking)
        self.ptr, self.handle, self.device_id = 0, None, None

    def _create(self, device_id: int) -> None:
        flags = (0 if self.timing else h.hipEventDisableTiming) | (h.hipEventBlockingSync if self.blocking else 0)
        with Device(device_id):
            ev = check(h.hipEventCreateWithFlags(flags), "hipEventCreateWithFlags")
        self.handle, self.ptr, self.device_id = ev, int(ev), device_id

    def __del__(self):
        if getattr(self, "ptr", 0):
            try:
                h.hipEventDestroy(self.ptr)
            except Exception:
                pass

    def record(self, stream: Stream | None = None) -> "Event":
        """Record the event on `stream` (the current stream by default)."""
        if stream is None:
            stream = current_stream()
        if not self.ptr:
            self._create(stream.device_id)
        elif stream.device_id != self.device_id:
            raise ValueError(f"event of device {self.device_id} recorded on a stream of device {stream.device_id}")
        check(h.hipEventRecord(self.ptr, stream.ptr), "hipEventRecord")
        return self

    def query(self) -> bool:
        """Whether the work before the recorded point has completed (True if never recorded)."""
        return not self.ptr or _completed(h.hipEventQuery(self.ptr), "hipEventQuery")

    def synchronize(self) -> None:
        """Block the thread until the event has completed."""
        if self.ptr:
            check(h.hipEventSynchronize(self.ptr), "hipEventSynchronize")

    def wait(self, stream: Stream | None = None) -> None:
        """Make `stream` (the current stream by default) wait for this event."""
        (stream if stream is not None else current_stream()).wait_event(self)

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds between this event and `end` (both recorded, timing=True); waits for `end`."""
        if not self.ptr or not end.ptr:
            raise ValueError("both events must be recorded before elapsed_time")
        if not (self.timing and end.timing):
            raise ValueError("elapsed_time needs events created with timing=True")
        end.synchronize()
        return float(check(h.hipEventElapsedTime(self.ptr, end.ptr), "hipEventElapsedTime"))

    def __repr__(self):
        return f"<Event {self.ptr:#x}>" if self.ptr else "<Event (not recorded)>"


_bind_streams(_tls, _null_streams, current_stream)    # the C hot path reads the same state
