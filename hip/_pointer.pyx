# cython: language_level=3
"""The one pointer-conversion path, shared by every library.

`addr(obj)` turns anything a HIP Python user may pass as a pointer into a
C address: None, int, Pointer (and every handle/struct wrapper), ctypes
objects, `__cuda_array_interface__`, the buffer protocol (NumPy, bytearray),
and DLPack producers. Non-const C pointers use `waddr`, which refuses
read-only buffers (writing into a `bytes` object would corrupt it silently).
"""
import sys

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyObject_CheckBuffer, PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_ANY_CONTIGUOUS, PyBUF_RECORDS_RO
from cpython.long cimport PyLong_AsVoidPtr, PyLong_FromVoidPtr
from cpython.number cimport PyNumber_Index
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.stdint cimport int64_t, uint64_t
from libc.math cimport isfinite

cdef extern from *:
    """
    typedef struct { void* data; int device_type; int device_id; int ndim;
                     unsigned char code, bits; unsigned short lanes;
                     long long* shape; long long* strides; unsigned long long byte_offset; } hip_py_DLTensor;
    """
    ctypedef struct hip_py_DLTensor:
        void* data
        unsigned long long byte_offset


cdef class Pointer:
    """A C address. `int(p)` gives it; every pointer argument accepts a Pointer."""

    def __init__(self, value=None):
        self._ptr = addr(value)
        self._owner = value if value is not None and not isinstance(value, int) else None

    @classmethod
    def from_ptr(cls, ptr, owner=None):
        """Wrap an address (int or anything pointer-like) without taking ownership."""
        cdef Pointer p = cls.__new__(cls)
        p._ptr = addr(ptr)
        p._owner = owner
        return p

    def __int__(self):
        return <size_t>self._ptr

    def __index__(self):
        return <size_t>self._ptr

    def __bool__(self):
        return self._ptr != NULL

    def __eq__(self, other):
        try:
            return self._ptr == addr(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(<size_t>self._ptr)

    def __repr__(self):
        return f"<{type(self).__name__} {hex(<size_t>self._ptr)}>"

    @property
    def ptr(self):
        return <size_t>self._ptr

    def getPtr(self):
        return <size_t>self._ptr

    def as_c_void_p(self):
        import ctypes
        return ctypes.c_void_p(<size_t>self._ptr)

    @property
    def is_ptr_null(self):
        return self._ptr == NULL

    def __add__(self, offset):
        """Byte offset: `p + 16` is a Pointer 16 bytes further (kept alive with `p`)."""
        cdef Pointer q = Pointer.__new__(Pointer)
        q._ptr = <char*>self._ptr + <Py_ssize_t>offset
        q._owner = self
        return q


cdef class DevicePointer(Pointer):
    """Device memory from hipMalloc & co, with `__cuda_array_interface__`.

    Fresh allocations are byte arrays; `configure(shape=, typestr=)` gives them
    a NumPy-style type so CuPy, PyTorch or Numba can view them.
    """

    def configure(self, shape=None, typestr="|u1", stream=None, readonly=False):
        import numpy
        dt = numpy.dtype(typestr)
        if shape is None:
            shape = (self.nbytes // dt.itemsize,)
        elif isinstance(shape, int):
            shape = (shape,)
        need = dt.itemsize
        for s in shape:
            need *= s
        if self.nbytes and need > self.nbytes:
            raise ValueError(f"shape {shape} of {dt} needs {need} bytes; the allocation has {self.nbytes}")
        self._cai = {"shape": tuple(shape), "typestr": dt.str, "data": (<size_t>self._ptr, bool(readonly)),
                     "version": 3, "strides": None, "stream": stream}
        return self

    @property
    def __cuda_array_interface__(self):
        if self._cai is None:
            return {"shape": (self.nbytes,), "typestr": "|u1", "data": (<size_t>self._ptr, False),
                    "version": 3, "strides": None}
        return self._cai

    @property
    def size(self):
        """Elements (bytes until configured)."""
        n = 1
        for s in self.__cuda_array_interface__["shape"]:
            n *= s
        return n

    def __repr__(self):
        return f"<DevicePointer {hex(<size_t>self._ptr)} nbytes={self.nbytes}>"


cdef class Handle(Pointer):
    """Base of the opaque handle types (hipStream_t, hipEvent_t, ...)."""


cdef Pointer wrap(type cls, void* p):
    cdef Pointer o = cls.__new__(cls)
    o._ptr = p
    return o


cdef bint _ctypes_addr(object o, void** out) except -1:
    """Set *out from a ctypes object; False when `o` is not one (a NULL c_void_p is still handled)."""
    ct = sys.modules.get("ctypes")
    if ct is None:
        return False
    if isinstance(o, (ct.c_void_p, ct.c_char_p, ct.c_wchar_p)):   # the value is the address
        out[0] = PyLong_AsVoidPtr(ct.cast(o, ct.c_void_p).value or 0)
        return True
    if isinstance(o, ct._Pointer) or isinstance(o, ct._CFuncPtr):
        out[0] = PyLong_AsVoidPtr(ct.cast(o, ct.c_void_p).value or 0)
        return True
    if isinstance(o, (ct._SimpleCData, ct.Structure, ct.Union, ct.Array)):
        out[0] = PyLong_AsVoidPtr(ct.addressof(o))
        return True
    return False


cdef void* _addr(object o, int flags) except? NULL:
    cdef Py_buffer view
    cdef void* p
    if isinstance(o, Pointer):
        return (<Pointer>o)._ptr
    if o is None:
        return NULL
    if isinstance(o, bool):   # an int subclass, but True is no address (it would be 0x1)
        raise TypeError("cannot use bool as a pointer")
    if isinstance(o, int):
        if o < 0:
            raise OverflowError(f"a pointer cannot be negative: {o}")
        return PyLong_AsVoidPtr(o)
    if _ctypes_addr(o, &p):
        return p
    cai = getattr(o, "__cuda_array_interface__", None)
    if cai is not None:
        return PyLong_AsVoidPtr(cai["data"][0] or 0)
    if PyObject_CheckBuffer(o):
        # The caller's object keeps the memory alive for the call; the view is not held
        # (a bytearray cannot be resized while another thread is inside PyObject_GetBuffer).
        try:
            PyObject_GetBuffer(o, &view, flags | PyBUF_ANY_CONTIGUOUS)
        except BufferError as e:
            if flags & PyBUF_WRITABLE and PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS) == 0:
                PyBuffer_Release(&view)
                raise TypeError(f"a read-only {type(o).__name__} was passed for memory the call may "
                                "write (a non-const pointer): pass a writable buffer (bytearray, NumPy array)") from None
            raise
        p = view.buf
        PyBuffer_Release(&view)
        return p
    if hasattr(o, "__dlpack__"):
        cap = o.__dlpack__()
        if not PyCapsule_IsValid(cap, b"dltensor"):
            raise TypeError(f"{type(o).__name__}.__dlpack__() returned no 'dltensor' capsule")
        t = <hip_py_DLTensor*>PyCapsule_GetPointer(cap, b"dltensor")
        return <char*>t.data + t.byte_offset
    raise TypeError(f"cannot use {type(o).__name__} as a pointer: expected None, int, a hip Pointer, "
                    "a ctypes object, a buffer (NumPy, bytearray), __cuda_array_interface__ or __dlpack__")


cdef object index(object o):
    """An integer argument: ints and objects with __index__ (NumPy integers), never a float."""
    if type(o) is int:
        return o
    if isinstance(o, Pointer):   # has __index__ (its address), but a dim3 or a stream is no size
        raise TypeError(f"expected an integer, got {type(o).__name__}")
    return PyNumber_Index(o)


# Integer arguments of every generated function convert here: one compiled copy instead of
# Cython's inline conversion at each of thousands of call sites (which dominated build time).
cdef long long as_signed(object o, int nbytes) except? -1:
    """A C signed integer of `nbytes` bytes: __index__ semantics (a float is a TypeError), range-checked."""
    cdef long long v = index(o)
    cdef long long lim
    if nbytes < 8:
        lim = 1LL << (8 * nbytes - 1)
        if v < -lim or v >= lim:
            raise OverflowError(f"{v} does not fit a {8 * nbytes}-bit signed integer")
    return v


cdef unsigned long long as_unsigned(object o, int nbytes) except? 0xFFFFFFFFFFFFFFFF:
    """A C unsigned integer of `nbytes` bytes: negative values and overflow raise OverflowError."""
    o = index(o)
    if o < 0:
        raise OverflowError(f"can't convert negative value {o} to an unsigned integer")
    cdef unsigned long long v = o
    if nbytes < 8 and v >> (8 * nbytes):
        raise OverflowError(f"{v} does not fit a {8 * nbytes}-bit unsigned integer")
    return v


cdef const void* number_arg(object o, void* local, int kind, int nbytes) except? NULL:
    """`const T* alpha`: a Python float or complex, or a NumPy scalar, is a value: stored in the
    caller's `local` (kind 0 signed, 1 unsigned, 2 floating, 3 complex as two floating values of
    nbytes each) and its address returned. Anything else is a pointer: an int is an address, as
    for every pointer parameter (AMD's HIP Python: `ctypes.addressof(alpha)`), and so are ctypes
    objects, NumPy arrays and device memory (device pointer mode)."""
    cdef long long i
    cdef unsigned long long u
    cdef double d
    cdef float f
    if isinstance(o, bool):
        raise TypeError("expected a number (or a pointer), got bool")
    if o is None:   # alpha/beta are read, never optional: NULL would crash the library
        raise TypeError("expected a number (or a pointer to one), got None")
    if isinstance(o, int):
        return addr(o)
    if not isinstance(o, (float, complex)):
        # NumPy scalars (np.float32(2), np.int64(3), np.complex64(1j)) are values: taking their
        # buffer's address instead would read a value of the wrong type (np.int64(2) as a float).
        np = sys.modules.get("numpy")
        if np is None or not isinstance(o, np.generic) or not isinstance(o, (np.number, np.bool_)) \
                or isinstance(o, np.bool_):
            return addr(o)
        o = o.item()
    if kind == 0 or kind == 1:
        if not isinstance(o, int):
            raise TypeError(f"expected an integer value (a NumPy integer) or a pointer, got {type(o).__name__}")
        if kind == 0:
            i = as_signed(o, nbytes)
            memcpy(local, (<char*>&i) if sys.byteorder == "little" else (<char*>&i) + 8 - nbytes, nbytes)
        else:
            u = as_unsigned(o, nbytes)
            memcpy(local, (<char*>&u) if sys.byteorder == "little" else (<char*>&u) + 8 - nbytes, nbytes)
        return local
    if kind == 2:
        if isinstance(o, complex):
            raise TypeError("expected a real number, got complex")
        if nbytes == 4:
            f = o
            memcpy(local, &f, 4)
        else:
            d = o
            memcpy(local, &d, 8)
        return local
    c = complex(o)
    if nbytes == 4:
        f = c.real
        memcpy(local, &f, 4)
        f = c.imag
        memcpy(<char*>local + 4, &f, 4)
    else:
        d = c.real
        memcpy(local, &d, 8)
        d = c.imag
        memcpy(<char*>local + 8, &d, 8)
    return local


cdef object _check_enum = None


cdef int enum_arg(object cls, object v) except? -1:
    """An enum argument: a member of `cls`, or an int that is one of its values."""
    global _check_enum
    if type(v) is cls:
        return v
    if _check_enum is None:
        from hip._enum import check_arg
        _check_enum = check_arg
    return _check_enum(cls, v)


cdef void* addr(object o) except? NULL:
    if type(o) is int:   # fast paths first
        if o < 0:
            raise OverflowError(f"a pointer cannot be negative: {o}")
        return PyLong_AsVoidPtr(o)
    return _addr(o, PyBUF_SIMPLE)


cdef void* waddr(object o) except? NULL:
    if type(o) is int:
        if o < 0:
            raise OverflowError(f"a pointer cannot be negative: {o}")
        return PyLong_AsVoidPtr(o)
    return _addr(o, PyBUF_WRITABLE)


cdef const char* cstr(object o, list keep) except? NULL:
    """bytes/str/None -> const char* (kept alive through `keep`)."""
    if o is None:
        return NULL
    if isinstance(o, str):
        o = (<str>o).encode()
    elif not isinstance(o, bytes):
        if isinstance(o, (bytearray, memoryview)):
            o = bytes(o)
        else:
            return <const char*>addr(o)
    if b"\0" in o:
        raise ValueError("embedded null byte in a C string")
    keep.append(o)
    return <bytes>o


cdef class StringArray:
    """A C array of C strings built from a list of bytes/str (hiprtc options)."""

    def __cinit__(self, seq):
        self._keep = [s.encode() if isinstance(s, str) else bytes(s) for s in seq]
        self.ptr = <char**>malloc((len(self._keep) + 1) * sizeof(char*))
        if self.ptr == NULL:
            raise MemoryError()
        for i, s in enumerate(self._keep):
            if b"\0" in s:
                raise ValueError("embedded null byte in a C string")
            self.ptr[i] = <char*><bytes>s
        self.ptr[len(self._keep)] = NULL

    def __dealloc__(self):
        free(self.ptr)

    def __len__(self):
        return len(self._keep)


cdef object as_string_array(object o):
    """list/tuple of strings -> something addr() accepts (a Pointer kept with its strings)."""
    if isinstance(o, (list, tuple)):
        sa = StringArray(o)
        p = Pointer.__new__(Pointer)
        (<Pointer>p)._ptr = (<StringArray>sa).ptr
        (<Pointer>p)._owner = sa
        return p
    return o


cdef object seq_arg(object o, str typecode):
    """list/tuple -> a packed C array (array.array) of `typecode`; anything else unchanged.

    Pointer-sized elements ('P') are converted with addr(), so a list of Pointers,
    handles, ctypes values (their addresses) or ints all work.
    """
    if isinstance(o, (list, tuple)):
        from array import array   # imported on first use: keeps `import hip.hip` fast
        if typecode == "P":
            return _address_array([<size_t>addr(x) for x in o])
        if typecode in "fd":
            return array(typecode, o)
        # Integer elements: __index__ semantics, as for integer arguments (int(8.5) would
        # truncate to 8 and int('8') would parse a string); array() range-checks each one.
        return array(typecode, [index(x) for x in o])
    if typecode != "P" and PyObject_CheckBuffer(o):
        _check_elements(o, typecode)
    return o


cdef int write_back(object o, object packed) except -1:
    """After the call: a list passed for writable memory gets the values C wrote into its packed
    copy (seq_arg); anything else was the memory itself."""
    if type(o) is list and packed is not o:
        o[:] = list(packed)
    return 0


cdef int _check_elements(object o, str typecode) except -1:
    """A typed buffer (NumPy array, array.array) whose elements are not the C type's is a
    TypeError: C would reinterpret its bytes (int64 extents read as int32 pairs). Untyped bytes
    ('B', 'b', 'c': bytearray, uint8 views) pass as raw memory."""
    cdef Py_buffer view
    if PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) < 0:
        return 0          # not describable with strides: addr() reports what it can take
    fmt = (<bytes>view.format).decode("ascii", "replace").lstrip("@=<>!") if view.format != NULL else "B"
    size = view.itemsize
    PyBuffer_Release(&view)
    if fmt in ("B", "b", "c"):
        return 0
    want = _ELEMENT_SIZE[typecode]
    if typecode in ("f", "d"):
        ok = fmt == typecode
    else:
        ok = fmt in _INTEGER_FORMATS and size == want
    if not ok:
        kind = "floating" if typecode in ("f", "d") else "integer"
        raise TypeError(f"expected an array of {want}-byte {kind} elements (typecode {typecode!r}), "
                        f"got one of format {fmt!r} ({size} bytes each); convert it (NumPy: .astype) first")
    return 0


_ELEMENT_SIZE = {"b": 1, "B": 1, "h": 2, "H": 2, "i": 4, "I": 4, "l": sizeof(long), "L": sizeof(long),
                 "q": 8, "Q": 8, "f": 4, "d": 8}
_INTEGER_FORMATS = frozenset("bBhHiIlLqQnN?")


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


cdef class KernelArgs:
    """Kernel arguments packed into one buffer with C alignment, for `extra=`.

    Items: ctypes scalar instances (their values are copied) or anything
    pointer-like (Pointer, DevicePointer, CAI, ...; its address is stored).
    """

    def __cinit__(self, args):
        import ctypes
        buf = bytearray()
        self._keep = [args]
        for a in args:
            if isinstance(a, (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array)) and \
                    not isinstance(a, (ctypes.c_void_p, ctypes.c_char_p)):
                data, align = bytes(memoryview(a).cast("B")), ctypes.alignment(a)
            else:
                data, align = (<size_t>addr(a)).to_bytes(sizeof(void*), sys.byteorder), sizeof(void*)
            buf += bytes(-len(buf) % align)
            buf += data
        # No padding after the last argument: CUDA checks the size against the kernel's parameter
        # size exactly (a padded size fails with "too many resources requested for launch").
        self._buf = buf
        self._size = len(buf)
        self._extra[0] = HIP_PY_LAUNCH_PARAM_BUFFER_POINTER
        self._extra[1] = <void*><char*>self._buf if self._size else NULL
        self._extra[2] = HIP_PY_LAUNCH_PARAM_BUFFER_SIZE
        self._extra[3] = &self._size
        self._extra[4] = HIP_PY_LAUNCH_PARAM_END

    @property
    def size(self):
        return self._size

    def __int__(self):
        return <size_t>&self._extra[0]


cdef object kernel_params(object o):
    """`kernelParams` / `args` of the launch functions: one address per kernel argument, each
    pointing at the argument's value in host memory (the driver copies the values from there).

    A list/tuple becomes a C array: a ctypes value stands for its own storage (`c_void_p`
    included: it holds a pointer argument), an int is taken as the address it is, buffers
    (NumPy) by their data. Device memory is refused: it is the argument itself, and the driver
    would read it as host memory (pass it in a `ctypes.c_void_p`, or use `extra=`). Anything
    else is a ready `void**` address.
    """
    if not isinstance(o, (list, tuple)):
        return o
    import ctypes
    cdef list addrs = []
    for i, x in enumerate(o):
        if isinstance(x, (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array, ctypes._Pointer)):
            addrs.append(ctypes.addressof(x))
        elif isinstance(x, DevicePointer) or hasattr(x, "__cuda_array_interface__") or _on_device(x):
            raise TypeError(f"kernel argument {i}: {type(x).__name__} is device memory, but each item of "
                            "kernelParams points to an argument's value in host memory; pass the pointer as "
                            "ctypes.c_void_p(int(p)), or the arguments as extra=(...)")
        else:
            addrs.append(<size_t>addr(x))
    return _address_array(addrs)


cdef object _address_array(list addrs):
    """A C array of void* (an array.array the pointer path takes by its buffer)."""
    from array import array   # imported on first use: keeps `import hip.hip` fast
    return array("Q" if sizeof(void*) == 8 else "I", addrs)


cdef bint _on_device(object x) except -1:
    """True for a DLPack producer whose memory is not host-readable (kDLCPU 1, kDLCUDAHost 3)."""
    dev = getattr(x, "__dlpack_device__", None)
    return dev is not None and int(dev()[0]) not in (1, 3)


cdef void* kernel_extra(object o, list keep) except? NULL:
    """`extra=` of hipModuleLaunchKernel: a tuple of arguments to pack, or a ready address."""
    if isinstance(o, (list, tuple)):
        k = KernelArgs(o)
        keep.append(k)
        return &(<KernelArgs>k)._extra[0]
    return addr(o)


# -- argument checks by parameter role (codegen/plan.py): bad input is refused before C sees it ---
cdef void* handle_arg(object o, bint nullable, str what) except? NULL:
    """A handle argument: any Pointer (every handle class is one) not yet destroyed, an int address,
    a ctypes.c_void_p, or None where the spec says a NULL handle is valid (a NULL stream is the
    default stream). Anything else (bytes, buffers, str, lists) would hand the library an object's
    memory as its handle: TypeError."""
    cdef void* p
    if type(o) is int:
        if o < 0:
            raise OverflowError(f"{what}: a handle address cannot be negative: {o}")
        p = PyLong_AsVoidPtr(o)
    elif isinstance(o, Pointer):
        if (<Pointer>o)._destroyed is not None:
            raise ValueError(f"{what}: this {type(o).__name__} was destroyed by {(<Pointer>o)._destroyed}()")
        p = (<Pointer>o)._ptr
    elif o is None:
        p = NULL
    else:
        ct = sys.modules.get("ctypes")
        if ct is None or not isinstance(o, ct.c_void_p):
            raise TypeError(f"{what}: expected a handle (a hip Pointer or handle object, an int address or "
                            f"ctypes.c_void_p{', or None' if nullable else ''}), got {type(o).__name__}")
        p = PyLong_AsVoidPtr(o.value or 0)
    if p == NULL and not nullable:
        raise (TypeError if o is None else ValueError)(f"{what}: a NULL handle is not valid here")
    return p


cdef object ref_target(object o):
    """The object a by-reference handle argument stands for: `h.createRef()` (a Pointer to h's own
    address field, owned by h) stands for h; anything else for itself."""
    if isinstance(o, Pointer):
        owner = (<Pointer>o)._owner
        if isinstance(owner, Pointer) and (<Pointer>o)._ptr == <void*>&(<Pointer>owner)._ptr:
            return owner
    return o


cdef int mark_destroyed(object o, str by) except -1:
    """After a destroy call succeeded: the handle object (or the one whose createRef() was passed)
    refuses further use. Ints and copies made from the address are not tracked."""
    o = ref_target(o)
    if isinstance(o, Pointer):
        (<Pointer>o)._destroyed = by
    return 0


cdef int mark_created(object o) except -1:
    """After a call wrote a new handle into `h.createRef()`: h holds a live handle again."""
    o = ref_target(o)
    if isinstance(o, Pointer):
        (<Pointer>o)._destroyed = None
    return 0


cdef void* sized(object o, Py_ssize_t need, bint writable, str what) except? NULL:
    """A pointer argument C reads (or, `writable`, writes) `need` bytes through. A Python buffer
    (NumPy, bytearray, memoryview) or a ctypes object that holds fewer bytes is refused: C would
    read or write past its end. Ints, Pointers and device memory are addresses: the caller's word."""
    cdef Py_buffer view
    cdef Py_ssize_t n
    if type(o) is int or o is None or isinstance(o, Pointer):
        return waddr(o) if writable else addr(o)
    ct = sys.modules.get("ctypes")
    if ct is not None and isinstance(o, (ct._SimpleCData, ct.Structure, ct.Union, ct.Array)) \
            and not isinstance(o, (ct.c_void_p, ct.c_char_p, ct.c_wchar_p)):
        n = ct.sizeof(o)
    elif PyObject_CheckBuffer(o) and getattr(o, "__cuda_array_interface__", None) is None:
        PyObject_GetBuffer(o, &view, (PyBUF_WRITABLE if writable else PyBUF_SIMPLE) | PyBUF_ANY_CONTIGUOUS)
        n = view.len
        PyBuffer_Release(&view)
    else:
        n = need
    if n < need:
        raise ValueError(f"{what}: the buffer holds {n} bytes, the call {'writes' if writable else 'reads'} {need}")
    return waddr(o) if writable else addr(o)


cdef const char* cstr_arg(object o, list keep, str what) except? NULL:
    """A C string the call reads (never NULL): bytes, str, bytearray, or an address."""
    if o is None:
        raise TypeError(f"{what}: expected bytes or str, got None")
    return cstr(o, keep)


cdef object string_array_arg(object o, object count, str what):
    """char** of `count` C strings: a list/tuple of at least that many (None only for 0);
    bytes or str would be read as the array's pointers."""
    cdef long long n = index(count)
    if n < 0:
        raise ValueError(f"{what}: the count cannot be negative ({n})")
    if isinstance(o, (list, tuple)):
        if len(o) < n:
            raise ValueError(f"{what}: {len(o)} strings given, the count says {n}")
        return as_string_array(o)
    if o is None:
        if n:
            raise TypeError(f"{what}: None given for {n} strings")
        return o
    if type(o) is int or isinstance(o, Pointer):
        return o
    raise TypeError(f"{what}: expected a list of bytes or str, got {type(o).__name__}")


cdef double finite(double x, str what) except? -1.0:
    """A floating argument the library checks only for sign: NaN and infinities are refused."""
    if not isfinite(x):
        raise ValueError(f"{what}: expected a finite number, got {x}")
    return x
