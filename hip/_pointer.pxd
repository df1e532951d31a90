cimport cython
from cpython.object cimport PyObject, PyTypeObject
from libc.string cimport memcpy

# Not tracked by the cycle collector (why: _pointer.pyx). Declared here, where the modules that
# derive from Pointer read it: their subclasses must agree.
@cython.no_gc
cdef class Pointer:
    cdef void* _ptr
    cdef object _owner
    cdef object _destroyed      # the function that destroyed the handle this object holds, or None

cdef class NDBuffer(Pointer):
    cdef readonly tuple shape
    cdef readonly object strides   # None: C-contiguous (as in __cuda_array_interface__); else bytes per axis
    cdef readonly str typestr      # as given to configure(); else the array-interface form ('B' for bytes)
    cdef readonly Py_ssize_t itemsize
    cdef str _array_typestr        # array-interface spelling ('<f4') for __cuda_array_interface__
    cdef Py_ssize_t _capacity      # bytes usable from _ptr on (-1: unknown)
    cdef readonly bint is_read_only
    cdef bint _device              # known device memory: no buffer protocol (host reads would crash)
    cdef readonly object stream_as_int   # __cuda_array_interface__'s stream
    cdef int _exports              # buffer views handed out (configure is refused meanwhile)
    cdef bytes _format
    cdef _describe(self, object pyobj)
    cdef bytes _buffer_format(self)

cdef class DevicePointer(NDBuffer):
    pass

cdef class Handle(Pointer):
    pass

cdef class CStr(Pointer):
    cdef Py_ssize_t _len           # length + 1; 0: not known yet (strlen on demand)
    cdef bint _owns                # malloc'd by malloc(): freed with the object
    cdef _set(self, object pyobj)
    cdef Py_ssize_t _length(self)

cdef class StringArray:
    cdef char** ptr
    cdef list _keep

cdef class IntValue:
    cdef unsigned long long _v
    cdef void* _at     # NULL: the value is _v; else it is the _n bytes at _at (a `_ptr=` view)
    cdef int _n


cdef inline void* int_value_storage(IntValue o):
    """Where an IntValue's value lives (getPtr(): a kernel argument's or an attribute's address)."""
    return o._at if o._at != NULL else <void*>&o._v

cdef inline void store_float(void* p, double x, int nbytes) noexcept nogil:
    """`x` as a C float (nbytes 4) or double (8) at `p`, which need not be aligned."""
    cdef float f
    if nbytes == 4:
        f = <float>x
        memcpy(p, &f, 4)
    else:
        memcpy(p, &x, 8)

cdef void* addr(object o) except? NULL
cdef void* value_ref(object o, unsigned long long* local) except? NULL
cdef void* waddr(object o) except? NULL
cdef void* fn_addr(object o, str what) except? NULL
cdef const char* cstr(object o, list keep) except? NULL
cdef object cstr_result(const char* p)
cdef object text_buffer(Py_ssize_t n)
cdef object text_result(object buf)
cdef object text_spaced(object buf)
cdef object device_array(void* p, size_t n, bint device)
cdef object seq_arg(object o, str typecode)
cdef int write_back(object o, object packed) except -1
cdef object as_string_array(object o)


# The new object goes back exactly as tp_new made it, `_ptr` written in C: typed as a Pointer in
# Cython it got an incref and a decref at once, and in a process with more than one thread (any
# that has initialised CUDA) that cost a handle ~10 ns (benchmarks/gpu/bench_alias_anatomy.py).
# A macro, so that the struct is complete where it expands; a change of Cython's struct name for
# Pointer fails the build.
cdef extern from *:
    """
    static inline PyObject *hip_pointer_new_at(PyTypeObject *t, PyObject *args, void *p, size_t offset) {
        PyObject *o = t->tp_new(t, args, NULL);
        if (o != NULL) *(void **)((char *)o + offset) = p;
        return o;
    }
    #define hip_pointer_new(t, args, p) \
        hip_pointer_new_at((t), (args), (p), offsetof(struct __pyx_obj_3hip_8_pointer_Pointer, _ptr))
    """
    Pointer hip_pointer_new "hip_pointer_new"(type t, object args, void* p)


cdef inline Pointer wrap(type cls, void* p):
    """A new `cls` (Pointer or a subclass) holding `p`: the handle a call returns. Inline, and
    through the type's tp_new slot, which setup.py builds without Cython's vectorcall adapter
    (RUNTIME_MACROS): cheap calls return handles."""
    return hip_pointer_new(cls, (), p)

cdef object index(object o)
cdef long long as_signed(object o, int nbytes, bint truncate) except? -1
cdef unsigned long long as_unsigned(object o, int nbytes, bint truncate) except? 0xFFFFFFFFFFFFFFFF
cdef object int_if_number(object o)
cdef int enum_arg(object cls, object v, bint lenient) except? -1
cdef int int_value_init(IntValue self, object v, int nbytes, object at) except -1
cdef const void* number_arg(object o, void* local, int kind, int nbytes) except? NULL
cdef void* handle_arg(object o, bint nullable, str what, str ctype=*) except? NULL
cdef int ctype_arg(object o, str ctype, str what) except -1
cdef object ref_target(object o)
cdef int mark_destroyed(object o, str by) except -1
cdef int mark_created(object o) except -1
cdef void* sized(object o, Py_ssize_t need, bint writable, str what) except? NULL
cdef const char* cstr_arg(object o, list keep, str what) except? NULL
cdef const char* cstr_bytes(object o, list keep, str what) except? NULL
cdef object string_array_arg(object o, object count, str what)
cdef double finite(double x, str what) except? -1.0
