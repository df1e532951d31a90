cdef class Library:
    cdef readonly str name
    cdef readonly str env
    cdef readonly tuple candidates
    cdef readonly str path
    cdef void* handle
    cdef object lock
    cdef void* symbol(self, const char* name) except NULL
