# cython: language_level=3
"""The caching allocator's per-op fast path in C (hip.tensor._core.memory holds the allocator).

`Block`, `MemoryPointer` and `DeviceAllocatorCore` (the state every device allocator's Python class
builds on) live here, so that `alloc` and a MemoryPointer's death reach them without Python code:
while a device allocator has seen one stream, a request whose size has a block kept whole in
`quick` takes it, and a freed small block goes back there, with the same statistics as memory.py's
`malloc` and `_free`. Every other case (the first block of a size, a new or second stream, a
graph capture's pool, record_stream uses, deferred or pending frees, the lock held by another
thread, another backend, `fast_path` off) calls memory.py's methods, as before.
"""
from cpython.dict cimport PyDict_GetItemWithError
from cpython.list cimport PyList_GET_SIZE
from cpython.object cimport PyObject

from .launch cimport StreamBase

cdef enum:
    MIN_BLOCK = 512
    SMALL = 1 << 20

cdef bint _enabled = True       # the fast path (`set_fast_path`: the tests compare with it off)


def set_fast_path(bint on):
    """Take the C fast path (True, the default) or always memory.py's methods; the previous value."""
    global _enabled
    prev, _enabled = _enabled, on
    return prev


cdef class Block:
    """A range of a segment; `key`/`fence` say who may take it while free (memory.py's doc)."""

    def __init__(self, ptr, Py_ssize_t size, bint small, key):
        self.ptr, self.size, self.small, self.key = ptr, size, small, key
        self.requested, self.stream, self.fence, self.allocated, self.in_pool = 0, None, 0, False, False
        self.prev = self.next = self.uses = None


cdef class DeviceAllocatorCore:
    """The fields of a device allocator that the fast path reads and updates (memory.py's
    `_DeviceAllocatorBase` and its subclasses add the rest). `fast_path`: whether `quick` (size ->
    free small blocks kept whole) is this allocator's, the caching allocator's."""

    def __cinit__(self):
        self.deferred = []
        self.pending = []

    @property
    def lock(self):
        """The threading.Lock every change of the allocator's state holds."""
        return self._lock

    @lock.setter
    def lock(self, lock):
        self._lock, self._locked = lock, lock.locked


cdef class MemoryPointer:
    """Device memory from an allocator (`get_allocator()` when it was made); the block returns to it
    when this object is garbage collected. `ptr` is the address, `size` the bytes asked for, `stream`
    the stream it was allocated on (reuse on it needs no synchronization)."""

    def __dealloc__(self):
        b = self._block
        if b is not None:
            self._block = None
            try:
                if not _quick_free(self._allocator, b):
                    self._allocator.free(b)
            except Exception:   # at interpreter exit the runtime may be gone
                pass

    def record_stream(self, stream) -> None:
        """Work queued on `stream` uses this memory: its block is reused only after that work
        (as of the free) has completed (torch's Tensor.record_stream)."""
        b = self._block
        if b is not None:
            self._allocator.record_stream(b, stream)

    def __int__(self):
        return self.ptr

    def __repr__(self):
        return f"<MemoryPointer {self.ptr:#x} ({self.size} bytes) on device {self.device_id}>"


cdef inline bint _locked(DeviceAllocatorCore a) except -1:
    return a._locked()


cdef Block _quick_malloc(DeviceAllocatorCore a, Py_ssize_t nbytes, object stream):
    """A block of `quick` for `nbytes` on `stream`, counted as memory.py's malloc counts it; None
    where the case is not the single-stream one (the caller then calls malloc)."""
    cdef Py_ssize_t size
    cdef PyObject* found
    cdef Block b
    if not (a.fast_path and _enabled) or a.multi or a.deferred or a.pending:
        return None
    size = MIN_BLOCK if nbytes < MIN_BLOCK else (nbytes + MIN_BLOCK - 1) & ~(<Py_ssize_t>MIN_BLOCK - 1)
    if size > SMALL or not a.quick:
        return None
    found = PyDict_GetItemWithError(a.quick, size)
    if found == NULL or PyList_GET_SIZE(<list>found) == 0:
        return None
    if (<StreamBase?>stream).uid not in a.seen or _locked(a):
        return None
    # From here to the return nothing runs Python code nor frees an object: under the GIL, no
    # other thread and no garbage collection sees the allocator half-updated.
    b = (<list>found).pop()
    a.hits += 1
    b.allocated = True
    b.stream = stream               # (the stream it had: one stream so far, and it is alive)
    b.requested = nbytes
    a.allocated += b.size
    if a.allocated > a.allocated_peak:
        a.allocated_peak = a.allocated
    a.requested += nbytes
    if a.requested > a.requested_peak:
        a.requested_peak = a.requested
    a.allocations += 1
    if a.allocations > a.allocations_peak:
        a.allocations_peak = a.allocations
    return b


cdef bint _quick_free(object allocator, object block) except -1:
    """Give a small block back to `quick` as memory.py's free does in the single-stream case;
    False (nothing done) in every other case."""
    cdef DeviceAllocatorCore a
    cdef Block b
    cdef PyObject* found
    if not isinstance(allocator, DeviceAllocatorCore) or type(block) is not Block:
        return False
    a, b = <DeviceAllocatorCore>allocator, <Block>block
    if not (a.fast_path and _enabled) or a.multi or not a.caching or a.deferred or not b.small or b.uses:
        return False
    if not a.quick:
        return False
    found = PyDict_GetItemWithError(a.quick, b.size)
    if found == NULL or _locked(a):
        return False
    b.allocated = False
    a.allocated -= b.size
    a.requested -= b.requested
    a.allocations -= 1
    (<list>found).append(b)
    return True


cdef dict _memory = None            # memory.py's globals: its `_current` allocator and `_capturing` pools
cdef object _slow_stream = None     # _core.device.current_stream
cdef object _index = None           # memory.py's _index


def bind(dict memory_globals, current_stream, index):
    """memory.py's globals and the Python functions `alloc` calls in the cases it does not take."""
    global _memory, _slow_stream, _index
    _memory, _slow_stream, _index = memory_globals, current_stream, index


cdef object _last_allocator = None   # the allocator `alloc` took memory from last, ...
cdef object _last_devices = None     # ... and its `_devices`


cpdef MemoryPointer alloc(object allocator, object nbytes, object stream):
    """`nbytes` from `allocator` (memory.Allocator.allocate); None (memory.alloc, every array's
    path): the pool of the graph being captured on `stream`, else the current allocator. `stream`
    None: the current stream. 0 bytes: a null pointer."""
    global _last_allocator, _last_devices
    cdef MemoryPointer m
    cdef Py_ssize_t n
    cdef PyObject* found
    cdef object a, b = None
    cdef dict capturing
    if stream is None:
        stream = _slow_stream()
    if type(nbytes) is not int:
        nbytes = _index(nbytes, "nbytes")
    if nbytes < 0:
        raise ValueError(f"cannot allocate a negative number of bytes ({nbytes})")
    device_id = (<StreamBase>stream).device_id if isinstance(stream, StreamBase) else stream.device_id
    m = MemoryPointer.__new__(MemoryPointer)
    if nbytes:
        if allocator is None:
            capturing = <dict>_memory["_capturing"]
            allocator = capturing[stream.uid] if capturing and stream.uid in capturing else _memory["_current"]
        if allocator is _last_allocator:    # (an allocator's `_devices` dict stays the same)
            devices = _last_devices
        else:
            devices = allocator._devices
            _last_allocator, _last_devices = allocator, devices
        found = PyDict_GetItemWithError(devices, device_id) if type(devices) is dict else NULL
        a = <object>found if found != NULL else None
        if not a:
            a = allocator.device(device_id)
        if type(nbytes) is int and nbytes <= SMALL and isinstance(a, DeviceAllocatorCore):
            n = nbytes
            b = _quick_malloc(<DeviceAllocatorCore>a, n, stream)
        if b is None:
            b = a.malloc(nbytes, stream)
        m._allocator = a
        m._block = b
        m.ptr = b.ptr
    else:
        m.ptr = 0
    m.size, m.device_id, m.stream = nbytes, device_id, stream
    return m
