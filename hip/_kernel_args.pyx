# cython: language_level=3
"""The one kernel-argument packer, after NVIDIA cuda.core's ParamHolder: the arguments' values in
one buffer, each aligned as C aligns it, and the `void*[]` of their addresses that a launch takes
as kernelParams (or the `extra=` array naming the buffer). Every launch path packs here: hip's
`kernelParams`/`args` and `extra=` and the cuda alias's kernelParams (generated code calls
`_ka.kernel_params`, `_ka.kernel_extra`), kernelParams set in a struct (hip._struct) and
hip.tensor's launches (hip/tensor/_core/launch.pyx, into its stack buffers: `pack_values`).

The callers differ in how a Python int given without a C type is read, the `rule` each passes:

* INT_ADDRESS, hip (HIP Python): an int is an address. A kernelParams list holds the addresses of
  the values (a ctypes value stands for its own storage; an int, a buffer or a Pointer is the
  address); `extra=` packs values (ctypes values by their bytes, anything else as a pointer).
* INT_CTYPES, the cuda alias (cuda.bindings): a value comes with its ctypes type,
  ((values), (types)), and an int without one is refused.
* INT_INT64, hip.tensor (CuPy's RawKernel): an int is an int64 value, a float a double, a bool a
  byte, a NumPy scalar its own type, an object with an int `.ptr` (or `data_ptr`, or
  `__cuda_array_interface__`) a device pointer, None a null pointer; anything else is
  hip.tensor's TypeError ("bad kernel arguments: kernel argument i: ...").

((values), (types)) is cuda.bindings' form under every rule: each value made the C value of its
ctypes type, by cuda.bindings' rules (`_put_typed`).
"""
import sys

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyObject_CheckBuffer, PyBUF_SIMPLE, PyBUF_FORMAT
from cpython.dict cimport PyDict_GetItem
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsVoidPtr, PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong
from cpython.number cimport PyNumber_Index
from cpython.object cimport PyObject, PyObject_GetAttr
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset, strcmp
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

from hip._pointer cimport Pointer, DevicePointer, IntValue, addr, int_value_storage


cdef extern from "Python.h":
    # PyLong_AsUnsignedLongLong with its error checked by hand (a try costs the hot path ~5 ns)
    unsigned long long _as_u64 "PyLong_AsUnsignedLongLong"(object) noexcept
    PyObject* PyErr_Occurred() noexcept
    void PyErr_Clear() noexcept


cdef extern from *:
    """
    /* hip_runtime_api.h: HIP_LAUNCH_PARAM_BUFFER_POINTER/_SIZE/_END (CUDA uses the same values). */
    #define HIP_PY_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
    #define HIP_PY_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
    #define HIP_PY_LAUNCH_PARAM_END ((void*)0x03)
    """
    void* HIP_PY_LAUNCH_PARAM_BUFFER_POINTER
    void* HIP_PY_LAUNCH_PARAM_BUFFER_SIZE
    void* HIP_PY_LAUNCH_PARAM_END


# -- one store per C type ---------------------------------------------------------------------
ctypedef long double longdouble

ctypedef fused scalar_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double
    longdouble


cdef inline Py_ssize_t _put(char* values, Py_ssize_t cap, Py_ssize_t off, scalar_t v, void** param) noexcept:
    """Store `v` at the next offset aligned for its type (the padding zeroed) and point `param` at
    it: the offset after it. Nothing is written past `cap`: the caller sees the offset and packs
    again, larger."""
    cdef Py_ssize_t at = (off + <Py_ssize_t>sizeof(scalar_t) - 1) & ~(<Py_ssize_t>sizeof(scalar_t) - 1)
    if at + <Py_ssize_t>sizeof(scalar_t) <= cap:
        if at != off:
            memset(values + off, 0, at - off)
        memcpy(values + at, &v, sizeof(scalar_t))
    param[0] = values + at
    return at + <Py_ssize_t>sizeof(scalar_t)


cdef inline Py_ssize_t _put_bytes(char* values, Py_ssize_t cap, Py_ssize_t off, const void* src, Py_ssize_t n,
                                  Py_ssize_t align, void** param) noexcept:
    """`_put` for `n` bytes aligned to `align` (a power of two): a struct's, an array's."""
    cdef Py_ssize_t at = (off + align - 1) & ~(align - 1)
    if at + n <= cap:
        if at != off:
            memset(values + off, 0, at - off)
        memcpy(values + at, src, n)
    param[0] = values + at
    return at + n


# -- what the values are ----------------------------------------------------------------------
cdef object _CData = None        # ctypes' base class of every C data object (set once ctypes is imported)
cdef object _np_generic = None   # NumPy's scalar base class (set once NumPy is imported)
cdef dict _ctypes_align = {}     # ctypes type -> its C alignment, negative for (function) pointers
cdef dict _ctype_codes = {}      # ctypes simple type -> its one-character _type_ code
cdef set _ptr_kinds = set()      # (INT_INT64) types whose int `.ptr` is a device address
cdef type _fast_type = None      # (INT_INT64) hip.tensor's ndarray: its address read from `_fast_attr`
cdef str _fast_attr = None
cdef attr_getter _fast_getter = NULL  # ... by this C function, where given


cdef int fast_pointer_type(type t, str attr, attr_getter getter=NULL) except -1:
    """Under INT_INT64, objects of type `t` are device pointers whose address is the int attribute
    `attr` (hip.tensor's ndarray: its `_ptr` field, read before any other kind is tried), read by
    `getter` (a C function: no attribute lookup) where given."""
    global _fast_type, _fast_attr, _fast_getter
    _fast_type, _fast_attr, _fast_getter = t, attr, getter
    return 0


cdef int _load_bases() except -1:
    """_CData and _np_generic, of the modules imported so far (before one is, no object of its
    kind exists)."""
    global _CData, _np_generic
    ct, np = sys.modules.get("ctypes"), sys.modules.get("numpy")
    if ct is not None:
        _CData = ct._SimpleCData.__mro__[1]
    if np is not None:
        _np_generic = np.generic
    return 0


cdef inline bint _is_cdata(object x) except -1:
    """A ctypes C data object."""
    if _CData is None:
        _load_bases()
    return _CData is not None and isinstance(x, _CData)


cdef Py_ssize_t _ctype_align(object t) except 0:
    """A ctypes type's alignment, negative for pointers and function pointers (hip.tensor refuses
    those). Cached: isinstance() against ctypes' pointer classes costs ~100 ns a class (their
    metaclasses' __instancecheck__)."""
    cdef PyObject* found = PyDict_GetItem(_ctypes_align, t)
    if found != NULL:
        return <object>found
    import ctypes
    a = ctypes.alignment(t)
    _ctypes_align[t] = -a if issubclass(t, (ctypes._Pointer, ctypes._CFuncPtr)) else a
    return _ctypes_align[t]


cdef inline bint _is_np_scalar(object x) except -1:
    """A NumPy scalar."""
    if _np_generic is None:
        _load_bases()
    return _np_generic is not None and isinstance(x, _np_generic)


cdef void* _cdata_storage(object x) except? NULL:
    """Where a ctypes object's value lives (its buffer: ctypes.addressof without the call)."""
    cdef Py_buffer view
    PyObject_GetBuffer(x, &view, PyBUF_SIMPLE)
    cdef void* p = view.buf
    PyBuffer_Release(&view)
    return p


cdef Py_ssize_t _put_cdata(object x, Py_ssize_t align, char* values, Py_ssize_t cap, Py_ssize_t off,
                           void** param) except -1:
    """A ctypes value (number, pointer, structure, union, array) by its bytes, aligned to `align`."""
    cdef Py_buffer view
    PyObject_GetBuffer(x, &view, PyBUF_SIMPLE)
    off = _put_bytes(values, cap, off, view.buf, view.len, align, param)
    PyBuffer_Release(&view)
    return off


cdef int _np_size(const char* fmt) noexcept:
    """Bytes (and alignment) of a NumPy scalar of buffer format `fmt` that a kernel takes, 0 for others."""
    cdef char c
    if fmt == NULL:
        return 0
    if fmt[0] != 0 and fmt[1] == 0:
        c = fmt[0]
        if c == b'?' or c == b'b' or c == b'B':
            return 1
        if c == b'h' or c == b'H' or c == b'e':
            return 2
        if c == b'i' or c == b'I' or c == b'f':
            return 4
        if c == b'l' or c == b'L' or c == b'q' or c == b'Q' or c == b'd':
            return 8
        return 0
    if strcmp(fmt, b"Zf") == 0:       # complex64: (re, im) aligned as a whole (float2)
        return 8
    if strcmp(fmt, b"Zd") == 0:
        return 16
    return 0


cdef object _bad(Py_ssize_t i, str why):
    """(INT_INT64) hip.tensor's error for argument i: a TypeError, raised before any launch."""
    return TypeError(f"bad kernel arguments: kernel argument {i}: {why}")


cdef Py_ssize_t _put_np(object x, Py_ssize_t i, char* values, Py_ssize_t cap, Py_ssize_t off,
                        void** param) except -1:
    """A NumPy scalar as its own C type."""
    cdef Py_buffer view
    cdef int size
    try:
        PyObject_GetBuffer(x, &view, PyBUF_FORMAT)
    except Exception:
        raise _bad(i, f"NumPy {x.dtype} scalars are not supported") from None
    size = _np_size(view.format)
    if size == 0 or view.len != size:
        PyBuffer_Release(&view)
        raise _bad(i, f"NumPy {x.dtype} scalars are not supported")
    off = _put_bytes(values, cap, off, view.buf, size, size, param)
    PyBuffer_Release(&view)
    return off


cdef uint64_t _device_address(object a, Py_ssize_t i) except? 0xFFFFFFFFFFFFFFFF:
    """(INT_INT64) The device address an object stands for: an int `.ptr` (MemoryPointer, ndarray,
    a hip Pointer), `data_ptr` (torch), `__cuda_array_interface__`; else TypeError."""
    p = getattr(a, "ptr", None)
    if isinstance(p, int):
        _ptr_kinds.add(type(a))
    else:
        p = getattr(a, "data_ptr", None)
        if p is not None:
            p = p() if callable(p) else p
        else:
            p = getattr(a, "__cuda_array_interface__", None)
            if p is None:
                raise _bad(i, f"cannot pass {type(a).__name__} (expected int, float, bool, a NumPy scalar, "
                              "a ctypes value, None, or a device pointer: an object with .ptr or data_ptr, "
                              "a hip Pointer)")
            p = p["data"][0] or 0
    try:
        return PyLong_AsUnsignedLongLong(p)
    except (TypeError, OverflowError) as e:
        raise _bad(i, f"{p!r} is no device address ({e})") from None


cdef Py_ssize_t pack_values(tuple args, int rule, char* values, Py_ssize_t cap, void** params) except -1:
    """Pack `args`, values without C types, by `rule` (INT_INT64 or INT_ADDRESS) into `values` (`cap`
    bytes), params[i] the address of argument i's value: the bytes the values take. Where that is
    more than `cap`, the values past it were not written: pack again into as many bytes."""
    if rule == INT_INT64:
        return _pack_int64(args, values, cap, params)
    if rule != INT_ADDRESS:
        raise TypeError("kernel arguments: a value needs its ctypes type, ((values), (types))")
    cdef Py_ssize_t i, off = 0
    for i in range(len(args)):      # HIP Python's extra=: ctypes values by value, anything else a pointer
        a = args[i]
        if _is_cdata(a):
            off = _put_cdata(a, _abs(_ctype_align(type(a))), values, cap, off, &params[i])
        else:
            off = _put[uint64_t](values, cap, off, <uint64_t><size_t>addr(a), &params[i])
    return off


cdef inline Py_ssize_t _abs(Py_ssize_t a) noexcept:
    return -a if a < 0 else a


cdef Py_ssize_t _pack_int64(tuple args, char* values, Py_ssize_t cap, void** params) except -1:
    """pack_values under INT_INT64, hip.tensor's hot path: its common kinds first. Every error is
    hip.tensor's TypeError (`_bad`), raised here: no try on the caller's path."""
    cdef Py_ssize_t i, off = 0
    cdef long long iv
    cdef uint64_t u
    cdef int over
    for i in range(len(args)):
        a = args[i]
        t = type(a)
        if t is _fast_type:
            # (Cython's conversion reads an int's digits; PyLong_AsUnsignedLongLong goes through
            # _PyLong_AsByteArray for every address past 2**30, ~600 instructions in CPython 3.11)
            if _fast_getter != NULL:
                u = <uint64_t>_fast_getter(a)
            else:
                u = <uint64_t>PyObject_GetAttr(a, _fast_attr)
            off = _put[uint64_t](values, cap, off, u, &params[i])
        elif t is int:
            iv = PyLong_AsLongLongAndOverflow(a, &over)
            if over:
                raise _bad(i, f"{a} does not fit int64")
            off = _put[uint64_t](values, cap, off, <uint64_t>iv, &params[i])
        elif t is float:
            off = _put[double](values, cap, off, PyFloat_AS_DOUBLE(a), &params[i])
        elif t is bool:
            off = _put[uint8_t](values, cap, off, 1 if a is True else 0, &params[i])
        elif a is None:
            off = _put[uint64_t](values, cap, off, 0, &params[i])
        elif t in _ptr_kinds:       # (MemoryPointer, Pointer, ...: learnt by _device_address)
            u = _as_u64(a.ptr)
            if u == <uint64_t>-1 and PyErr_Occurred() != NULL:    # not an address: the slow path says why
                PyErr_Clear()
                u = _device_address(a, i)
            off = _put[uint64_t](values, cap, off, u, &params[i])
        elif _is_np_scalar(a):
            off = _put_np(a, i, values, cap, off, &params[i])
        elif _is_cdata(a) and _ctype_align(t) > 0:
            off = _put_cdata(a, _ctype_align(t), values, cap, off, &params[i])
        else:
            off = _put[uint64_t](values, cap, off, _device_address(a, i), &params[i])
    return off


# -- the holder -------------------------------------------------------------------------------
cdef class KernelArgs(Pointer):
    """Packed kernel arguments (a Pointer to what the call takes).

    `KernelArgs(args)`: the arguments of `extra=` (HIP Python's rule: ctypes values by their bytes,
    anything pointer-like as its address) packed as a C struct of them would be, without padding
    after the last one; `int(k)` is the address of the `extra` array {HIP_LAUNCH_PARAM_BUFFER_POINTER,
    buffer, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}, `k.size` the bytes. Made
    for kernelParams (`kernel_params`), its address is the `void*[]`.
    """

    def __init__(self, args):
        _pack_into(self, tuple(args), INT_ADDRESS)
        self.keep = [args]
        # No padding after the last argument: CUDA checks the size against the kernel's parameter
        # size exactly (a padded size fails with "too many resources requested for launch").
        self.extra[0] = HIP_PY_LAUNCH_PARAM_BUFFER_POINTER
        self.extra[1] = self.values if self._size else NULL
        self.extra[2] = HIP_PY_LAUNCH_PARAM_BUFFER_SIZE
        self.extra[3] = &self._size
        self.extra[4] = HIP_PY_LAUNCH_PARAM_END
        self._ptr = &self.extra[0]

    @property
    def size(self):
        return self._size

    def __dealloc__(self):
        free(self.params)


cdef int _alloc(KernelArgs k, Py_ssize_t n, Py_ssize_t cap) except -1:
    """n argument addresses, then `cap` bytes of values, 16-aligned (long double's alignment)."""
    free(k.params)
    k.params = <void**>malloc(n * sizeof(void*) + cap + 16)
    if k.params == NULL:
        raise MemoryError()
    k.values = <char*>((<size_t>(k.params + n) + 15) & ~(<size_t>15))
    k._ptr = k.params
    return 0


cdef int _pack_into(KernelArgs k, tuple args, int rule) except -1:
    """pack_values into the holder's own buffer: 16 bytes an argument first (every scalar fits),
    larger when ctypes structures or arrays need it."""
    cdef Py_ssize_t n = len(args), cap = 16 * n, used
    _alloc(k, n, cap)
    used = pack_values(args, rule, k.values, cap, k.params)
    if used > cap:
        _alloc(k, n, used)
        used = pack_values(args, rule, k.values, used, k.params)
    k._size = used
    return 0


cdef inline void _keep(KernelArgs k, object v):
    if k.keep is None:
        k.keep = []
    k.keep.append(v)


# -- kernelParams -----------------------------------------------------------------------------
cdef object _cuda_param_types = None   # the ctypes types cuda.bindings' kernelParams take (c_void_p aside)
cdef tuple _cuda_types_checked = None  # the last (types) tuple found valid: a tuple cannot change, and a
                                       # program launches with the same one again and again


cdef object kernel_params(object o, int rule):
    """`kernelParams` / `args` of the launch functions: an address per kernel argument, each
    pointing at the argument's value in host memory (the driver copies the values from there).

    INT_ADDRESS (hip): a list/tuple becomes the C array: a ctypes value stands for its own storage
    (`c_void_p` included: it holds a pointer argument), an int is the address it is, buffers
    (NumPy) their data. Device memory is refused: it is the argument itself, and the driver would
    read it as host memory (pass it in a `ctypes.c_void_p`, or use `extra=`). Anything else is a
    ready `void**` address. ((values), (types)) with any simple ctypes types is packed too.
    INT_CTYPES (the cuda alias): only what cuda.bindings takes: None, an int (a ready `void**`
    address), a buffer holding the addresses, or ((values), (types)) where each type is None,
    ctypes.c_void_p or one of the simple types cuda.bindings supports (bool, char, wchar, the
    integers, size_t, float, double); anything else is the TypeError cuda.bindings raises.
    INT_INT64 (hip.tensor): a tuple of values, packed as `pack_values` packs them.
    Every launch passes through: it is written for speed (no ctypes objects made).
    """
    global _cuda_param_types, _cuda_types_checked
    cdef KernelArgs k
    if rule == INT_CTYPES:
        if o is None or isinstance(o, int):
            return o
        if PyObject_CheckBuffer(o):
            return o
        if isinstance(o, tuple) and len(o) == 2 and isinstance(o[0], tuple) and isinstance(o[1], tuple):
            if len(o[0]) != len(o[1]):
                raise TypeError("Argument 'kernelParams' has tuples with different length")
            if _cuda_param_types is None:
                import ctypes as ct
                _cuda_param_types = frozenset((ct.c_bool, ct.c_char, ct.c_wchar, ct.c_byte, ct.c_ubyte, ct.c_short,
                                               ct.c_ushort, ct.c_int, ct.c_uint, ct.c_long, ct.c_ulong, ct.c_longlong,
                                               ct.c_ulonglong, ct.c_size_t, ct.c_float, ct.c_double, ct.c_void_p))
            if o[1] is not _cuda_types_checked:
                for t in o[1]:
                    if t is not None and t not in _cuda_param_types:
                        raise TypeError(f"Unsupported type: {t!r}")
                _cuda_types_checked = o[1]
            return _typed_params(o[0], o[1])
        raise TypeError("Argument 'kernelParams' is not a valid type: Tuple[Tuple[Any, ...], Tuple[Any, ...]] or "
                        f"PyObject implimenting Buffer Protocol or Int (got {type(o).__name__})")
    if rule == INT_INT64:
        k = KernelArgs.__new__(KernelArgs)
        _pack_into(k, tuple(o), INT_INT64)
        return k
    if not isinstance(o, (list, tuple)):
        return o
    if _values_and_types(o):
        return _typed_params(o[0], o[1])
    return _address_params(o)


cdef object _address_params(object o):
    """(INT_ADDRESS) kernelParams given as the addresses of the values."""
    cdef Py_ssize_t i, n = len(o)
    cdef KernelArgs k = KernelArgs.__new__(KernelArgs)
    _alloc(k, n, 0)
    for i in range(n):
        x = o[i]
        if _is_cdata(x):
            k.params[i] = _cdata_storage(x)
        elif isinstance(x, DevicePointer) or hasattr(x, "__cuda_array_interface__") or _on_device(x):
            raise TypeError(f"kernel argument {i}: {type(x).__name__} is device memory, but each item of "
                            "kernelParams points to an argument's value in host memory; pass the pointer as "
                            "ctypes.c_void_p(int(p)), or the arguments as extra=(...)")
        else:
            k.params[i] = addr(x)
    return k


cdef bint _on_device(object x) except -1:
    """True for a DLPack producer whose memory is not host-readable (kDLCPU 1, kDLCUDAHost 3)."""
    dev = getattr(x, "__dlpack_device__", None)
    return dev is not None and int(dev()[0]) not in (1, 3)


cdef int _ctype_code(object t) except -2:
    """The _type_ code of a ctypes simple type (c_int: 'i'); -1 for anything else."""
    c = _ctype_codes.get(t)
    if c is not None:
        return c
    ct = sys.modules.get("ctypes")
    if ct is None or not isinstance(t, type) or not issubclass(t, ct._SimpleCData):
        return -1
    _ctype_codes[t] = ord(t._type_)
    return _ctype_codes[t]


cdef bint _values_and_types(object o) except -1:
    """cuda.bindings' form ((values), (types)): a pair whose second item holds ctypes types or None."""
    if not (isinstance(o, tuple) and len(o) == 2):
        return False
    vals, types = o[0], o[1]
    if not (isinstance(types, (tuple, list)) and isinstance(vals, (tuple, list))):
        return False
    for t in types:
        if t is not None and _ctype_code(t) < 0:
            return False
    return True


cdef uint64_t _int_bits(object v, int nbytes) except? 0xFFFFFFFFFFFFFFFF:
    """An integer argument's bits: __index__ semantics; the range of the type, or of its unsigned
    counterpart read as two's complement (c_uint(-1) is allowed, as in C); outside: OverflowError.
    (Compared in C: no Python int made per argument.)"""
    cdef object i = v if type(v) is int else PyNumber_Index(v)
    cdef int over = 0
    cdef long long s = PyLong_AsLongLongAndOverflow(i, &over)
    cdef long long lim
    if over == 0:
        if nbytes < 8:
            lim = 1LL << (8 * nbytes)
            if not (-(lim >> 1) <= s < lim):
                raise OverflowError(f"kernel argument {v!r} does not fit a {8 * nbytes}-bit integer")
        return <uint64_t>s
    if over > 0 and nbytes == 8:
        return PyLong_AsUnsignedLongLong(i)      # 2**63 .. 2**64-1; OverflowError at 2**64
    raise OverflowError(f"kernel argument {v!r} does not fit a {8 * nbytes}-bit integer")


cdef inline Py_ssize_t _put_int(object v, int nbytes, char* values, Py_ssize_t cap, Py_ssize_t off,
                                void** param) except -1:
    cdef uint64_t u = _int_bits(v, nbytes)
    if nbytes == 1:
        return _put[uint8_t](values, cap, off, <uint8_t>u, param)
    if nbytes == 2:
        return _put[uint16_t](values, cap, off, <uint16_t>u, param)
    if nbytes == 4:
        return _put[uint32_t](values, cap, off, <uint32_t>u, param)
    return _put[uint64_t](values, cap, off, u, param)


cdef Py_ssize_t _put_typed(int code, object v, char* values, Py_ssize_t cap, Py_ssize_t off,
                           void** param) except -2:
    """`v` as the C value of ctypes code `code`, by cuda.bindings' rules: the offset after it, or
    -1 for codes not handled here (the caller makes a ctypes object instead)."""
    if code == 0x66:    # 'f'
        return _put[float](values, cap, off, <float>float(v), param)
    if code == 0x64:    # 'd'
        return _put[double](values, cap, off, float(v), param)
    if code == 0x69 or code == 0x49:   # 'i' 'I'
        return _put_int(v, sizeof(int), values, cap, off, param)
    if code == 0x50:    # 'P' (c_void_p): an address, a handle or None
        if isinstance(v, IntValue):   # cuda.bindings passes getPtr(): where the value lives
            return _put[uint64_t](values, cap, off, <uint64_t><size_t>int_value_storage(<IntValue>v), param)
        return _put[uint64_t](values, cap, off, 0 if v is None else
                              <uint64_t><size_t>PyLong_AsVoidPtr(v if type(v) is int else int(v)), param)
    if code == 0x71 or code == 0x51:   # 'q' 'Q'
        return _put_int(v, 8, values, cap, off, param)
    if code == 0x6c or code == 0x4c:   # 'l' 'L'
        return _put_int(v, sizeof(long), values, cap, off, param)
    if code == 0x68 or code == 0x48:   # 'h' 'H'
        return _put_int(v, 2, values, cap, off, param)
    if code == 0x62 or code == 0x42:   # 'b' 'B'
        return _put_int(v, 1, values, cap, off, param)
    if code == 0x3f:    # '?'
        return _put[uint8_t](values, cap, off, 1 if v else 0, param)
    if code == 0x67:    # 'g'
        return _put[longdouble](values, cap, off, <long double>float(v), param)
    return -1


cdef bint _is_enum_member(object v) except -1:
    """A member of an enum.Enum (cuda.bindings' test; no member exists before `enum` is imported)."""
    e = sys.modules.get("enum")
    return e is not None and isinstance(v, e.Enum)


cdef object _typed_params(values, types):
    """((values), (types)): each value made a C value of its ctypes type (an int, a handle or an
    object with getPtr() for c_void_p); None as the type takes a ctypes object, or an object with
    getPtr() (a binding's handle or struct), by its storage's address, or an enum member, as its
    C int (cuda.bindings' rule)."""
    cdef Py_ssize_t i, n = len(values), off = 0, cap, r
    if n != len(types):
        raise TypeError(f"kernelParams: {n} values but {len(types)} types")
    cdef KernelArgs k = KernelArgs.__new__(KernelArgs)
    cap = 16 * n                         # every simple ctypes type fits 16 bytes
    _alloc(k, n, cap)
    cdef bint held = isinstance(values, tuple)   # a tuple's items stay as they are: keep the tuple
    if held:
        k.given = values
    for i in range(n):
        v, t = values[i], types[i]
        if t is None:
            if isinstance(v, IntValue):   # CUdeviceptr, CUdevice: what getPtr() gives, without the call
                k.params[i] = int_value_storage(<IntValue>v)
            elif _is_cdata(v):
                k.params[i] = _cdata_storage(v)
            elif hasattr(v, "getPtr"):
                k.params[i] = PyLong_AsVoidPtr(int(v.getPtr()))
            elif _is_enum_member(v):   # cuda.bindings passes an enum member's value as a C int
                off = _put_int(v.value, sizeof(int), k.values, cap, off, &k.params[i])
            else:
                raise TypeError(f"kernelParams: value {i} ({type(v).__name__}) has the type None, which takes a "
                                "ctypes object, an object with getPtr() or an enum member")
            if not held:
                _keep(k, v)
            continue
        if _is_cdata(v):   # a ctypes value given: its own storage
            if not isinstance(v, t):
                # another ctypes type: its value converted, as cuda.bindings does (a c_float in a
                # c_double slot); a ctypes object without a simple value stays refused
                if not hasattr(v, "value"):
                    raise TypeError(f"kernelParams: value {i} is a {type(v).__name__}, but its type is {t.__name__}")
                v = v.value
            else:
                k.params[i] = _cdata_storage(v)
                if not held:
                    _keep(k, v)
                continue
        try:
            r = _put_typed(_ctype_code(t), v, k.values, cap, off, &k.params[i])
            if r < 0:
                # c_char takes bytes, c_wchar str (cuda.bindings: c_char with b"Z")
                c = v if isinstance(v, t) else t(v if isinstance(v, (int, float, bytes, str)) or v is None else int(v))
                r = _put_cdata(c, _abs(_ctype_align(t)), k.values, cap, off, &k.params[i])
            off = r
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)(f"kernelParams: value {i} ({v!r}) as {t.__name__}: {e}") from None
    k._size = off
    return k


# -- extra= -----------------------------------------------------------------------------------
cdef void* kernel_extra(object o, list keep) except? NULL:
    """`extra=` of hipModuleLaunchKernel: a tuple of arguments to pack, or a ready address."""
    if isinstance(o, (list, tuple)):
        k = KernelArgs(o)
        keep.append(k)
        return (<KernelArgs>k)._ptr
    return addr(o)


# -- launch dimensions ------------------------------------------------------------------------
cdef int dim3_slow(object d, unsigned int* out, str what) except -1:
    """`dim3` (hip/_kernel_args.pxd, inline) for what its fast path does not take: a sequence of 1
    to 3 ints (NumPy integers too), each in [1, 2**32), into out[0..2] (missing ones 1). Other
    forms: TypeError; 0 or less: ValueError; 2**32 or more: OverflowError."""
    cdef Py_ssize_t k
    if type(d) is int:
        t = (d,)
    else:
        try:
            t = tuple([int(x.__index__()) for x in d])
        except (TypeError, AttributeError):
            raise TypeError(f"{what} is an int or a tuple of 1 to 3 ints, got {d!r}") from None
        if not 1 <= len(t) <= 3:
            raise TypeError(f"{what} is an int or a tuple of 1 to 3 ints, got {d!r}")
    if min(t) < 1:
        raise ValueError(f"{what} dimensions must be positive, got {d!r}")
    if max(t) > 0xFFFFFFFF:
        raise OverflowError(f"{what} dimensions must be below 2**32, got {d!r}")
    out[0] = out[1] = out[2] = 1
    for k in range(len(t)):
        out[k] = <unsigned int>t[k]
    return 0


def dims(d, what="grid"):
    """`dim3`'s (x, y, z) for `d` (for tests, and Python callers)."""
    cdef unsigned int out[3]
    dim3(d, out, what)
    return out[0], out[1], out[2]


_RULES = {"address": INT_ADDRESS, "ctypes": INT_CTYPES, "int64": INT_INT64}


def params(o, rule):
    """`kernel_params(o, rule)` from Python, the rule by name ('address': hip's, 'ctypes': the
    alias's, 'int64': hip.tensor's): a KernelArgs (int() is its `void*[]`) or `o` as it is (for
    tests, which read what a launch would read)."""
    return kernel_params(o, _RULES[rule])
