cdef class Signature:
    cdef public object bindings, part, extra
    cdef public tuple arrays, scalars, outs
    cdef public dict functions, layouts
    cdef Py_ssize_t _last_n
    cdef object _last         # the Launch of layouts[_last_n]
    cdef object _scalar_in, _scalar_out   # a one-scalar signature's last scalar and its conversion


cdef object call_contiguous(object kernel, Signature sig, tuple args)
