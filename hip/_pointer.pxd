cdef class Pointer:
    cdef void* _ptr
    cdef object _owner

cdef class DevicePointer(Pointer):
    cdef readonly Py_ssize_t nbytes
    cdef dict _cai

cdef class Handle(Pointer):
    pass

cdef class StringArray:
    cdef char** ptr
    cdef list _keep

cdef class KernelArgs:
    cdef bytearray _buf
    cdef size_t _size
    cdef void* _extra[5]
    cdef list _keep

cdef void* addr(object o) except? NULL
cdef void* waddr(object o) except? NULL
cdef const char* cstr(object o, list keep) except? NULL
cdef object seq_arg(object o, str typecode)
cdef int write_back(object o, object packed) except -1
cdef object as_string_array(object o)
cdef void* kernel_extra(object o, list keep) except? NULL
cdef object kernel_params(object o)
cdef Pointer wrap(type cls, void* p)
cdef object index(object o)
cdef long long as_signed(object o, int nbytes) except? -1
cdef unsigned long long as_unsigned(object o, int nbytes) except? 0xFFFFFFFFFFFFFFFF
cdef int enum_arg(object cls, object v) except? -1
cdef const void* number_arg(object o, void* local, int kind, int nbytes) except? NULL
