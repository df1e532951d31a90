from hip._pointer cimport Pointer

cdef class Struct(Pointer):
    cdef Py_ssize_t _avail     # bytes usable from _ptr on (-1: unknown, memory the caller gave)
    cdef dict _kept            # what pointer fields in this memory were set from (buffers, arrays
                               # made from lists), by the address of the field (_struct._keep); in
                               # a field of its own, so that the cycle collector sees them

cdef object record_arg(object cls, object value)
cdef void* record_ptr(object cls, object value) except? NULL
cdef object record_copy(object cls, const void* src)
cdef object record_list(object cls, object value)
cdef object typed_buffer(object size)
cdef object typed_buffers(object attributes, object sizes, object count)
cdef object typed_value(dict table, object selector, object buf)
cdef object typed_out_buffer(dict table, object selector)
cdef object typed_in_buffer(dict table, object selector, object value)
cdef size_t typed_size(object buf) except? 0
cdef object typed_values(dict table, object selectors, object buf)
cdef object record_array(object cls, object n)
cdef list record_items(object cls, object buf)
