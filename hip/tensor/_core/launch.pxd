from libc.stdint cimport uintptr_t

cdef int launch_args(uintptr_t func, object grid, object block, unsigned int shared_mem, uintptr_t stream,
                     tuple args) except? -1
cdef int device() noexcept
cdef object current_stream(int device_id)
