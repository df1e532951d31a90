cdef class Signature:
    cdef public object bindings, part, extra
    cdef public tuple arrays, scalars, outs
    cdef public dict functions, layouts


cdef object call_contiguous(object kernel, Signature sig, tuple args)
