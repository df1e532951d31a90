cdef class Block:
    cdef public object ptr, key, fence, stream, prev, next, uses
    cdef public Py_ssize_t size, requested
    cdef public bint small, allocated, in_pool


cdef class DeviceAllocatorCore:
    cdef object _lock, _locked
    cdef public list deferred, pending
    cdef public long long allocated, allocated_peak, requested, requested_peak, allocations, allocations_peak
    cdef public long long hits
    cdef public dict quick
    cdef public object seen
    cdef public bint multi, caching, fast_path
    cdef dict _qdict          # the `quick` dict, size and list _quick_list found last
    cdef Py_ssize_t _qsize
    cdef list _qlist


cdef class MemoryPointer:
    cdef public object ptr, size, device_id, stream, _block, _allocator
    cdef object __weakref__


cpdef MemoryPointer alloc(object allocator, object nbytes, object stream)
