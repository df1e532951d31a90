cdef class Library:
    cdef readonly str name
    cdef readonly str env
    cdef readonly tuple candidates
    cdef readonly str path
    cdef void* handle
    cdef object lock
    cdef object failure                # (what decided the search, what it tried) of a failed one
    cdef int _open(self) except -1
    cdef int _search(self) except -1
    cdef void* symbol(self, const char* name) except NULL
