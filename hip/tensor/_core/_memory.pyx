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
cimport cython
from cpython.dict cimport PyDict_GetItemWithError
from cpython.list cimport PyList_Append
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject, Py_SIZE
from cpython.ref cimport Py_DECREF, Py_INCREF

from .launch cimport StreamBase

cdef extern from "Python.h":
    ctypedef struct PyListObject:
        PyObject** ob_item
        Py_ssize_t allocated
    void Py_SET_SIZE(object o, Py_ssize_t size)

cdef enum:
    MIN_BLOCK = 512
    SMALL = 1 << 20

cdef bint _enabled = True       # the fast path (`set_fast_path`: the tests compare with it off)


def set_fast_path(bint on):
    """Take the C fast path (True, the default) or always memory.py's methods; the previous value."""
    global _enabled
    prev, _enabled = _enabled, on
    return prev


@cython.auto_pickle(False)
cdef class Block:
    """A range of a segment; `key`/`fence` say who may take it while free (memory.py's doc)."""

    def __init__(self, ptr, Py_ssize_t size, bint small, key):
        self.ptr, self.size, self.small, self.key = ptr, size, small, key
        self.requested, self.stream, self.fence, self.allocated, self.in_pool = 0, None, 0, False, False
        self.prev = self.next = self.uses = None


@cython.auto_pickle(False)
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


@cython.auto_pickle(False)
@cython.no_gc_clear     # (its block must reach __del__ whole)
cdef class MemoryPointer:
    """Device memory from an allocator (`get_allocator()` when it was made); the block returns to it
    when this object is garbage collected. `ptr` is the address, `size` the bytes asked for, `stream`
    the stream it was allocated on (reuse on it needs no synchronization)."""

    # A finalizer (tp_finalize), not __dealloc__: when an array's memory dies with a reference
    # cycle (a traceback's frames, a graph's pool), the collector runs every finalizer of the
    # garbage before it clears any of it; from __dealloc__ the block (in the garbage too: a whole
    # segment's blocks reach each other only through their MemoryPointers) came back with its
    # fields already cleared (ptr, stream, prev/next None), lost or handed out again broken.
    def __del__(self):
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


cdef inline void _count_allocation(DeviceAllocatorCore a, Py_ssize_t size, Py_ssize_t nbytes) noexcept:
    a.allocated += size
    if a.allocated > a.allocated_peak:
        a.allocated_peak = a.allocated
    a.requested += nbytes
    if a.requested > a.requested_peak:
        a.requested_peak = a.requested
    a.allocations += 1
    if a.allocations > a.allocations_peak:
        a.allocations_peak = a.allocations


def count_allocation(DeviceAllocatorCore a not None, Py_ssize_t size, Py_ssize_t nbytes):
    """The statistics of one allocation of a `size`-byte block for `nbytes` asked (memory.py's
    malloc counts with the fast path's own code)."""
    _count_allocation(a, size, nbytes)


cdef inline bint _locked(DeviceAllocatorCore a) except -1:
    return a._locked()


cdef list _quick_list(DeviceAllocatorCore a, Py_ssize_t size):
    """a.quick[size], or None. The last one found is remembered: memory.py adds lists to a `quick`
    dict and replaces the whole dict (flush), never a list in it."""
    cdef PyObject* found
    if a._qdict is a.quick and a._qsize == size and a._qlist is not None:
        return a._qlist
    found = PyDict_GetItemWithError(a.quick, size)
    if found == NULL:
        return None
    a._qdict, a._qsize, a._qlist = a.quick, size, <list>found
    return <list>found


# list.pop() and list.append() without their reallocation when a list goes 1 -> 0 -> 1 items (the
# per-op cycle of one size): the capacity stays (the items past the size are not the list's).
cdef inline object _pop(list l):
    cdef Py_ssize_t n = Py_SIZE(l) - 1
    item = <object>(<PyListObject*>l).ob_item[n]
    Py_SET_SIZE(l, n)
    Py_DECREF(item)                 # the list's reference, now `item`'s
    return item


cdef inline int _append(list l, object x) except -1:
    cdef Py_ssize_t n = Py_SIZE(l)
    if (<PyListObject*>l).allocated > n:
        Py_INCREF(x)
        (<PyListObject*>l).ob_item[n] = <PyObject*>x
        Py_SET_SIZE(l, n + 1)
        return 0
    return PyList_Append(l, x)


cdef Block _quick_malloc(DeviceAllocatorCore a, Py_ssize_t nbytes, object stream):
    """A block of `quick` for `nbytes` on `stream`, counted as memory.py's malloc counts it; None
    where the case is not the single-stream one (the caller then calls malloc)."""
    cdef Py_ssize_t size
    cdef list q
    cdef Block b
    if not (a.fast_path and _enabled) or a.multi or a.deferred or a.pending:
        return None
    size = MIN_BLOCK if nbytes < MIN_BLOCK else (nbytes + MIN_BLOCK - 1) & ~(<Py_ssize_t>MIN_BLOCK - 1)
    if size > SMALL or not a.quick:
        return None
    q = _quick_list(a, size)
    if q is None or Py_SIZE(q) == 0:
        return None
    if (<StreamBase?>stream).uid not in a.seen or _locked(a):
        return None
    # From here to the return nothing runs Python code nor frees an object: under the GIL, no
    # other thread and no garbage collection sees the allocator half-updated.
    b = <Block>_pop(q)
    a.hits += 1
    b.allocated = True
    b.stream = stream               # (the stream it had: one stream so far, and it is alive)
    b.requested = nbytes
    _count_allocation(a, b.size, nbytes)
    return b


cdef bint _quick_free(object allocator, object block) except -1:
    """Give a small block back to `quick` as memory.py's free does in the single-stream case;
    False (nothing done) in every other case."""
    cdef DeviceAllocatorCore a
    cdef Block b
    cdef list q
    if not isinstance(allocator, DeviceAllocatorCore) or type(block) is not Block:
        return False
    a, b = <DeviceAllocatorCore>allocator, <Block>block
    if not (a.fast_path and _enabled) or a.multi or not a.caching or a.deferred or not b.small or b.uses:
        return False
    if not a.quick:
        return False
    q = _quick_list(a, b.size)
    if q is None or _locked(a):
        return False
    b.allocated = False
    a.allocated -= b.size
    a.requested -= b.requested
    a.allocations -= 1
    _append(q, b)
    return True


cdef dict _capturing = None         # memory.py's `_capturing` pools (a dict it never rebinds)
cdef object _current = None         # memory.py's `_current` allocator (set_allocator sets both)
cdef object _slow_stream = None     # _core.device.current_stream
cdef object _index = None           # memory.py's _index


def bind(dict capturing not None, current, current_stream, index):
    """memory.py's graph capture pools and current allocator, and the Python functions `alloc`
    calls in the cases it does not take."""
    global _capturing, _current, _slow_stream, _index
    _capturing, _current, _slow_stream, _index = capturing, current, current_stream, index


cdef object _last_allocator = None   # the current allocator `alloc` took memory from last, ...
cdef object _last_devices = None     # ... and its `_devices`


def set_current(allocator):
    """The allocator `alloc` takes memory from when none is named (memory.set_allocator's)."""
    global _current, _last_allocator, _last_devices
    _current, _last_allocator, _last_devices = allocator, None, None


cpdef MemoryPointer alloc(object allocator, object nbytes, object stream):
    """`nbytes` from `allocator` (memory.Allocator.allocate); None (memory.alloc, every array's
    path): the pool of the graph being captured on `stream`, else the current allocator. `stream`
    None: the current stream. 0 bytes: a null pointer."""
    global _last_allocator, _last_devices
    cdef MemoryPointer m
    cdef long long n
    cdef int huge = 0
    cdef PyObject* found
    cdef object a, b = None
    if stream is None:
        stream = _slow_stream()
    if type(nbytes) is not int:
        nbytes = _index(nbytes, "nbytes")
    n = PyLong_AsLongLongAndOverflow(nbytes, &huge)
    if huge < 0 or n < 0:
        raise ValueError(f"cannot allocate a negative number of bytes ({nbytes})")
    device_id = (<StreamBase>stream).device_id if isinstance(stream, StreamBase) else stream.device_id
    m = MemoryPointer.__new__(MemoryPointer)
    if n or huge:
        if allocator is None:
            if _capturing and stream.uid in _capturing:
                allocator = _capturing[stream.uid]
            else:
                allocator = _current
        if allocator is _last_allocator:    # (an allocator's `_devices` dict stays the same)
            devices = _last_devices
        else:
            devices = allocator._devices
            if allocator is _current:       # (kept alive by memory.py anyway: not a graph's pool)
                _last_allocator, _last_devices = allocator, devices
        found = PyDict_GetItemWithError(devices, device_id) if type(devices) is dict else NULL
        a = <object>found if found != NULL else None
        if not a:
            a = allocator.device(device_id)
        if not huge and n <= SMALL and isinstance(a, DeviceAllocatorCore):
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
