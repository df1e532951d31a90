from libc.stdint cimport uintptr_t


cdef class StreamBase:
    cdef public object ptr, uid, device_id
    cdef object __weakref__


cdef int launch_args(uintptr_t func, object grid, object block, unsigned int shared_mem, uintptr_t stream,
                     tuple args) except? -1
cdef int launch_dims(uintptr_t func, const unsigned int* g, const unsigned int* b, unsigned int shared_mem,
                     uintptr_t stream, tuple args) except? -1
cdef int device() noexcept
cdef object current_stream(int device_id)
