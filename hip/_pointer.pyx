# cython: language_level=3
"""The one pointer-conversion path, shared by every library.

`addr(obj)` turns anything a HIP Python user may pass as a pointer into a
C address: None, int, Pointer (and every handle/struct wrapper), ctypes
objects, `__cuda_array_interface__`, the buffer protocol (NumPy, bytearray),
and DLPack producers. Non-const C pointers use `waddr`, which refuses
read-only buffers (writing into a `bytes` object would corrupt it silently).
"""
import sys

cimport cython

from cpython.buffer cimport (PyObject_GetBuffer, PyBuffer_Release, PyObject_CheckBuffer, PyBUF_SIMPLE, PyBUF_WRITABLE,
                             PyBUF_ANY_CONTIGUOUS, PyBUF_C_CONTIGUOUS, PyBUF_F_CONTIGUOUS, PyBUF_RECORDS_RO, PyBUF_STRIDES,
                             PyBUF_ND, PyBUF_FORMAT)
from cpython.ref cimport Py_INCREF
from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject, PyTypeObject
from cpython.long cimport PyLong_AsVoidPtr, PyLong_FromVoidPtr, PyLong_AsLongLongAndOverflow
from cpython.number cimport PyNumber_Index, PyIndex_Check
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memchr, strlen
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


# AMD's NDBuffer.NUMPY_CHAR_CODES: the type strings its configure() accepts.
_NUMPY_CHAR_CODES = tuple((
    "? =? <? >? bool bool_ bool8 uint8 u1 =u1 <u1 >u1 uint16 u2 =u2 <u2 >u2 uint32 u4 =u4 <u4 >u4 "
    "uint64 u8 =u8 <u8 >u8 int8 i1 =i1 <i1 >i1 int16 i2 =i2 <i2 >i2 int32 i4 =i4 <i4 >i4 int64 i8 =i8 "
    "<i8 >i8 float16 f2 =f2 <f2 >f2 float32 f4 =f4 <f4 >f4 float64 f8 =f8 <f8 >f8 complex64 c8 =c8 "
    "<c8 >c8 complex128 c16 =c16 <c16 >c16 byte b =b <b >b short h =h <h >h intc i =i <i >i intp int0 "
    "p =p <p >p long int int_ l =l <l >l longlong q =q <q >q ubyte B =B <B >B ushort H =H <H >H uintc "
    "I =I <I >I uintp uint0 P =P <P >P ulong uint L =L <L >L ulonglong Q =Q <Q >Q half e =e <e >e "
    "single f =f <f >f double float float_ d =d <d >d longdouble longfloat g =g <g >g csingle "
    "singlecomplex F =F <F >F cdouble complex complex_ cfloat D =D <D >D clongdouble clongfloat "
    "longcomplex G =G <G >G str str_ str0 unicode unicode_ U =U <U >U bytes bytes_ bytes0 S =S <S >S "
    "void void0 V =V <V >V object object_ O =O <O >O datetime64 =datetime64 <datetime64 >datetime64 "
    "datetime64[Y] =datetime64[Y] <datetime64[Y] >datetime64[Y] datetime64[M] =datetime64[M] "
    "<datetime64[M] >datetime64[M] datetime64[W] =datetime64[W] <datetime64[W] >datetime64[W] "
    "datetime64[D] =datetime64[D] <datetime64[D] >datetime64[D] datetime64[h] =datetime64[h] "
    "<datetime64[h] >datetime64[h] datetime64[m] =datetime64[m] <datetime64[m] >datetime64[m] "
    "datetime64[s] =datetime64[s] <datetime64[s] >datetime64[s] datetime64[ms] =datetime64[ms] "
    "<datetime64[ms] >datetime64[ms] datetime64[us] =datetime64[us] <datetime64[us] >datetime64[us] "
    "datetime64[ns] =datetime64[ns] <datetime64[ns] >datetime64[ns] datetime64[ps] =datetime64[ps] "
    "<datetime64[ps] >datetime64[ps] datetime64[fs] =datetime64[fs] <datetime64[fs] >datetime64[fs] "
    "datetime64[as] =datetime64[as] <datetime64[as] >datetime64[as] M =M <M >M M8 =M8 <M8 >M8 M8[Y] "
    "=M8[Y] <M8[Y] >M8[Y] M8[M] =M8[M] <M8[M] >M8[M] M8[W] =M8[W] <M8[W] >M8[W] M8[D] =M8[D] <M8[D] "
    ">M8[D] M8[h] =M8[h] <M8[h] >M8[h] M8[m] =M8[m] <M8[m] >M8[m] M8[s] =M8[s] <M8[s] >M8[s] M8[ms] "
    "=M8[ms] <M8[ms] >M8[ms] M8[us] =M8[us] <M8[us] >M8[us] M8[ns] =M8[ns] <M8[ns] >M8[ns] M8[ps] "
    "=M8[ps] <M8[ps] >M8[ps] M8[fs] =M8[fs] <M8[fs] >M8[fs] M8[as] =M8[as] <M8[as] >M8[as] "
    "timedelta64 =timedelta64 <timedelta64 >timedelta64 timedelta64[Y] =timedelta64[Y] "
    "<timedelta64[Y] >timedelta64[Y] timedelta64[M] =timedelta64[M] <timedelta64[M] >timedelta64[M] "
    "timedelta64[W] =timedelta64[W] <timedelta64[W] >timedelta64[W] timedelta64[D] =timedelta64[D] "
    "<timedelta64[D] >timedelta64[D] timedelta64[h] =timedelta64[h] <timedelta64[h] >timedelta64[h] "
    "timedelta64[m] =timedelta64[m] <timedelta64[m] >timedelta64[m] timedelta64[s] =timedelta64[s] "
    "<timedelta64[s] >timedelta64[s] timedelta64[ms] =timedelta64[ms] <timedelta64[ms] "
    ">timedelta64[ms] timedelta64[us] =timedelta64[us] <timedelta64[us] >timedelta64[us] "
    "timedelta64[ns] =timedelta64[ns] <timedelta64[ns] >timedelta64[ns] timedelta64[ps] "
    "=timedelta64[ps] <timedelta64[ps] >timedelta64[ps] timedelta64[fs] =timedelta64[fs] "
    "<timedelta64[fs] >timedelta64[fs] timedelta64[as] =timedelta64[as] <timedelta64[as] "
    ">timedelta64[as] m =m <m >m m8 =m8 <m8 >m8 m8[Y] =m8[Y] <m8[Y] >m8[Y] m8[M] =m8[M] <m8[M] >m8[M] "
    "m8[W] =m8[W] <m8[W] >m8[W] m8[D] =m8[D] <m8[D] >m8[D] m8[h] =m8[h] <m8[h] >m8[h] m8[m] =m8[m] "
    "<m8[m] >m8[m] m8[s] =m8[s] <m8[s] >m8[s] m8[ms] =m8[ms] <m8[ms] >m8[ms] m8[us] =m8[us] <m8[us] "
    ">m8[us] m8[ns] =m8[ns] <m8[ns] >m8[ns] m8[ps] =m8[ps] <m8[ps] >m8[ps] m8[fs] =m8[fs] <m8[fs] "
    ">m8[fs] m8[as] =m8[as] <m8[as] >m8[as] "
).split())


# Handles and addresses that calls return are made and freed all the time: their memory is
# reused, and they are not tracked by the cycle collector, as cuda-bindings' handles are not
# (AMD's Pointer is). `no_gc` is in _pointer.pxd too, where the modules that derive from Pointer
# see it. `_owner` is the memory a Pointer views, which does not refer back to it; a subclass that
# keeps objects that may refer back keeps them in its own fields, which are traversed (Struct's
# `_kept`).
@cython.freelist(64)
@cython.no_gc
cdef class Pointer:
    """A C address. `int(p)` gives it; every pointer argument accepts a Pointer.

    AMD's HIP Python calls this type `hip._util.types.Pointer` (the same class here):
    `Pointer.fromObj(x)`, `p.createRef()`, `p[offset]` and `p.is_ptr_null` behave as there.
    A Pointer keeps the object it was made from alive; a reference cycle through that object
    (the object holding the Pointer) is not collected.
    """

    def __init__(self, value=None, _ptr=None):
        cdef void* at
        if _ptr is not None:   # cuda.bindings' `T(_ptr=address)`: the value stored at that address
            at = addr(_ptr)
            if at != NULL:
                self._ptr = (<void**>at)[0]
                return
        self._ptr = addr(value)
        self._owner = value if value is not None and not isinstance(value, int) else None

    @classmethod
    def from_ptr(cls, ptr, owner=None):
        """Wrap an address (int or anything pointer-like) without taking ownership."""
        cdef Pointer p = cls.__new__(cls)
        p._ptr = addr(ptr)
        p._owner = owner
        return p

    _converts = False   # a subclass whose constructor converts values (strings, lists): fromObj calls it

    @classmethod
    def fromObj(cls, pyobj):
        """`pyobj` itself if it is an instance of this class, else a new one: the constructor's
        (CStr, the ListOf classes: it converts strings and lists), else one holding its address
        (None, int, Pointer, ctypes object, buffer, `__cuda_array_interface__`, ...); the new object
        keeps `pyobj` alive. (AMD's HIP Python: the `fromObj` of every wrapper type.)"""
        if isinstance(pyobj, cls):
            return pyobj
        if cls._converts:
            return cls(pyobj)
        cdef Pointer p = cls.__new__(cls)
        p._ptr = addr(pyobj)
        p._owner = pyobj if pyobj is not None and not isinstance(pyobj, int) else None
        return p

    def createRef(self):
        """A Pointer to this object's address field (a `void**` for C to read or write through);
        it keeps this object alive."""
        cdef Pointer q = Pointer.__new__(Pointer)
        q._ptr = <void*>&self._ptr
        q._owner = self
        return q

    def __getitem__(self, offset):
        """`p[n]`: a Pointer `n` bytes further (n >= 0), as in AMD's HIP Python."""
        if isinstance(offset, int) and not isinstance(offset, bool):
            if offset < 0:
                raise ValueError(f"offset={offset} must be non-negative")
            return self + offset
        raise NotImplementedError(f"'__getitem__': not implemented for other 'offset' types than 'int' "
                                  f"(got {type(offset).__name__})")

    def __iter__(self):
        # Without this, __getitem__ would make iter() walk addresses forever.
        raise TypeError(f"'{type(self).__name__}' object is not iterable")

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
        if not isinstance(self, Pointer):   # Cython 3 may call __add__ reflected
            return NotImplemented
        cdef Pointer q = Pointer.__new__(Pointer)
        q._ptr = <char*>self._ptr + <Py_ssize_t>offset
        q._owner = self
        return q


# -- typed N-d arrays --------------------------------------------------------------------------
# Type strings: every spelling AMD's NDBuffer.NUMPY_CHAR_CODES lists with a fixed size, plus the
# array-interface forms ('<f4', '|u1'). Built on first use: importing the package stays cheap.
cdef dict _TYPES = None
cdef dict _FORMAT_TYPES = None   # buffer-protocol format -> array typestr

cdef dict _type_table():
    global _TYPES, _FORMAT_TYPES
    if _TYPES is not None:
        return _TYPES
    little = sys.byteorder == "little"
    native, other = ("<", ">") if little else (">", "<")
    t = {}

    def add(kind, size, names):
        order = "|" if size == 1 or kind == "b" else native
        for n in names.split():
            t[n] = (f"{order}{kind}{size}", size)
        for o, ao in (("=", order), ("<", "|" if order == "|" else "<"), (">", "|" if order == "|" else ">"),
                      ("|", order)):
            t[f"{o}{kind}{size}"] = (f"{ao}{kind}{size}", size)
    add("b", 1, "? bool bool_ bool8 b1")
    add("u", 1, "uint8 u1 ubyte B")
    add("u", 2, "uint16 u2 ushort H")
    add("u", 4, "uint32 u4 uintc I")
    add("u", 8, "uint64 u8 uintp uint0 P ulong uint L ulonglong Q")
    add("i", 1, "int8 i1 byte b")
    add("i", 2, "int16 i2 short h")
    add("i", 4, "int32 i4 intc i")
    add("i", 8, "int64 i8 intp int0 p long int int_ l longlong q")
    add("f", 2, "float16 f2 half e")
    add("f", 4, "float32 f4 single f")
    add("f", 8, "float64 f8 double float float_ d")
    add("f", 16, "longdouble longfloat g")
    add("c", 8, "complex64 c8 csingle singlecomplex F")
    add("c", 16, "complex128 c16 cdouble complex complex_ cfloat D")
    add("c", 32, "clongdouble clongfloat longcomplex G")
    # single characters with a byte order: '<f', '=d', ...
    for ch in "?bBhHiIlLqQpPefdgFDG":
        a, n = t[ch]
        for o in "=<>":
            if a[0] == "|":
                t[o + ch] = (a, n)
            else:
                t[o + ch] = (("<" if o == "<" else ">" if o == ">" else native) + a[1:], n)
    _TYPES = t
    _FORMAT_TYPES = {"?": "|b1", "b": "|i1", "B": "|u1", "c": "|S1", "h": native + "i2", "H": native + "u2",
                     "i": native + "i4", "I": native + "u4", "l": native + f"i{sizeof(long)}",
                     "L": native + f"u{sizeof(long)}", "q": native + "i8", "Q": native + "u8",
                     "n": native + f"i{sizeof(Py_ssize_t)}", "N": native + f"u{sizeof(size_t)}",
                     "e": native + "f2", "f": native + "f4", "d": native + "f8", "g": native + "f16",
                     "Zf": native + "c8", "Zd": native + "c16", "Zg": native + "c32"}
    return t


cdef tuple _typeinfo(str typestr, object itemsize):
    """(array-interface typestr, itemsize) of a type string, or raises ValueError."""
    hit = _type_table().get(typestr)
    if hit is not None:
        if itemsize is not None and itemsize != hit[1]:
            raise ValueError(f"typestr {typestr!r} has {hit[1]}-byte items, not itemsize={itemsize}")
        return hit
    np = sys.modules.get("numpy")
    if np is None:
        try:
            import numpy as np
        except ImportError:
            np = None
    if np is not None:
        try:
            dt = np.dtype(typestr)
        except Exception:
            dt = None
        if dt is not None and dt.itemsize and (itemsize is None or itemsize == dt.itemsize):
            return dt.str, dt.itemsize
    if typestr not in NDBuffer.NUMPY_CHAR_CODES:
        raise ValueError(f"typestr: value '{typestr}' is not a valid numpy char code. See class attribute "
                         "'NUMPY_CHAR_CODES' for valid expressions.")
    if itemsize is None:
        raise ValueError(f"'typestr': value '{typestr}' could not be mapped to a number of bytes. "
                         "Please also specify 'itemsize'.")
    return typestr, itemsize


cdef tuple _c_strides(tuple shape, Py_ssize_t itemsize):
    cdef list out = []
    cdef Py_ssize_t s = itemsize
    for n in reversed(shape):
        out.append(s)
        s *= n if n else 1      # as NumPy: an empty axis does not zero the strides of the others
    return tuple(reversed(out))


cdef bint _is_c_contiguous(tuple shape, tuple strides, Py_ssize_t itemsize):
    cdef Py_ssize_t expect = itemsize
    if 0 in shape:
        return True
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


cdef Py_ssize_t _prod(tuple shape):
    cdef Py_ssize_t n = 1
    for s in shape:
        n *= s
    return n


class IndexOutOfRangeError(IndexError, ValueError):
    """An index past an axis: an IndexError as in NumPy, a ValueError as in AMD's HIP Python."""


cdef class NDBuffer(Pointer):
    """A typed, N-dimensional view of memory: `shape`, `typestr`, `itemsize`, strides and
    `__cuda_array_interface__`; NumPy-style basic indexing (`x[1:, 2]`) gives views (NDBuffers at
    the first element's address) that every pointer argument accepts.

    `NDBuffer(obj)` describes `obj`: a buffer (NumPy array, bytearray: its shape and type, the
    buffer held), an object with `__cuda_array_interface__`, another NDBuffer, or a bare address
    (None, int, Pointer, ctypes): then one byte, until `configure()` says more.
    Host memory (a buffer, or an address the caller gives) also exports the buffer protocol;
    known device memory (hipMalloc & co, CAI producers) refuses it with BufferError.
    (AMD's HIP Python: `hip._util.types.NDBuffer`.)
    """

    NUMPY_CHAR_CODES = _NUMPY_CHAR_CODES

    def __cinit__(self):
        self.shape = (1,)
        self.strides = None
        self.typestr = "B"
        self._array_typestr = "|u1"
        self.itemsize = 1
        self._capacity = -1
        self.stream_as_int = None

    def __init__(self, pyobj=None):
        self._describe(pyobj)

    cdef _describe(self, object pyobj):
        cdef NDBuffer o
        ct = sys.modules.get("ctypes")
        if pyobj is None or isinstance(pyobj, int):
            self._ptr = addr(pyobj)
            return
        if isinstance(pyobj, NDBuffer):
            o = <NDBuffer>pyobj
            self._ptr, self._owner = o._ptr, o
            self.shape, self.strides, self.typestr, self._array_typestr = o.shape, o.strides, o.typestr, o._array_typestr
            self.itemsize, self._capacity, self.is_read_only, self._device, self.stream_as_int = \
                o.itemsize, o._capacity, o.is_read_only, o._device, o.stream_as_int
            return
        if isinstance(pyobj, Pointer) or (ct is not None and isinstance(
                pyobj, (ct.c_void_p, ct.c_char_p, ct.c_wchar_p, ct._Pointer, ct._CFuncPtr))):
            self._ptr = addr(pyobj)
            self._owner = pyobj
            return
        if PyObject_CheckBuffer(pyobj):
            mv = memoryview(pyobj)          # holds the buffer: a bytearray cannot be resized under us
            fmt = mv.format.lstrip("@=")
            _type_table()
            at = _FORMAT_TYPES.get(fmt) or f"|V{mv.itemsize}"
            self.shape = tuple(mv.shape)
            self.itemsize = mv.itemsize
            self.typestr = self._array_typestr = at
            self.is_read_only = mv.readonly
            self._owner = mv
            if mv.ndim and not mv.c_contiguous:
                self.strides = tuple(mv.strides)
            self._ptr = _buffer_address(mv)
            self._capacity = mv.nbytes if mv.c_contiguous else -1
            return
        cai = getattr(pyobj, "__cuda_array_interface__", None)
        if cai is not None:
            if "data" not in cai:
                raise ValueError("input object has '__cuda_array_interface__' attribute but the dict has no 'data' key")
            self._ptr = PyLong_AsVoidPtr(cai["data"][0] or 0)
            self.is_read_only = bool(cai["data"][1])
            self.typestr = cai.get("typestr", "|u1")
            self._array_typestr, self.itemsize = _typeinfo(self.typestr, None)
            self.shape = tuple(cai.get("shape", (1,)))
            st = cai.get("strides")
            if st is not None and not _is_c_contiguous(self.shape, tuple(st), self.itemsize):
                self.strides = tuple(st)
            self.stream_as_int = cai.get("stream")
            self._device = True
            if self.strides is None:
                self._capacity = _prod(self.shape) * self.itemsize
            self._owner = pyobj
            return
        self._ptr = addr(pyobj)      # DLPack, ... (raises TypeError for anything else)
        self._owner = pyobj

    @classmethod
    def fromObj(cls, pyobj):
        """`pyobj` itself if it is an NDBuffer, else `cls(pyobj)` (AMD's HIP Python)."""
        if isinstance(pyobj, NDBuffer):
            return pyobj
        return cls(pyobj)

    def configure(self, shape=None, typestr=None, stream=None, readonly=None, *, itemsize=None, read_only=None,
                  _force=False, **unknown):
        """(Re)describe the memory: `configure(shape=(m, n), typestr="float32")`; returns self.

        `typestr` is any NumPy type string ('<f4', 'float32', 'f', ...; `typestr` reads it back as
        given, `__cuda_array_interface__` has its array-interface form), `itemsize` its size where
        the string does not say (AMD's HIP Python), `shape` a tuple (or an int). Without `shape`,
        a new type keeps the shape when the byte size stays the same, else views the memory as 1-d.
        `stream` (int or stream handle, not 0) goes into `__cuda_array_interface__`;
        `read_only=True` (or `readonly=True`) marks the data read-only.
        A shape beyond a known allocation is a ValueError (`_force=True` lets AMD's HIP Python
        describe any size; ours still refuses to pass the end of a known allocation).
        """
        cdef Py_ssize_t size, old_bytes, new_bytes, cap
        if unknown:
            raise KeyError("allowed keyword arguments are: 'shape', 'typestr', 'stream', 'itemsize', "
                           f"'read_only', '_force' (got {', '.join(map(repr, unknown))})")
        if self._exports > 0:
            raise RuntimeError("cannot re-configure this NDBuffer while it is viewed by other objects via the "
                               "Python buffer protocol")
        if itemsize is not None:
            if isinstance(itemsize, bool) or not isinstance(itemsize, int):
                raise TypeError("'itemsize': must be int")
            if itemsize <= 0:
                raise ValueError("'itemsize': must be positive int")
        if typestr is not None:
            if not isinstance(typestr, str):
                raise TypeError(f"'typestr': must be str, not {type(typestr).__name__}")
            at, size = _typeinfo(typestr, itemsize)
        elif itemsize is not None:
            at, size = (self._array_typestr if itemsize == self.itemsize else f"|V{itemsize}"), itemsize
        else:
            at, size = self._array_typestr, self.itemsize
        old_bytes = _prod(self.shape) * self.itemsize if self.strides is None else -1
        if shape is not None:
            if not isinstance(shape, tuple):
                shape = (shape,) if not isinstance(shape, list) else tuple(shape)
            if not len(shape):
                raise ValueError("'shape': must have at least one entry")
            dims = []
            for n in shape:
                if isinstance(n, bool):
                    raise TypeError("'shape': entries must be int")
                try:
                    n = PyNumber_Index(n)
                except TypeError:
                    raise TypeError(f"'shape': entries must be int, got {type(n).__name__}") from None
                if n < 0:
                    raise ValueError(f"'shape': negative extent {n}")
                dims.append(n)
            new_shape = tuple(dims)
        elif size == self.itemsize and self.strides is None:
            new_shape = self.shape
        else:
            cap = self._capacity if self._capacity >= 0 else old_bytes
            if cap < 0:
                raise ValueError("give a shape: this view is not contiguous")
            if cap % size:
                raise ValueError(f"{cap} bytes are no whole number of {size}-byte items; give a shape")
            new_shape = (cap // size,)
        new_bytes = _prod(new_shape) * size
        if self._capacity >= 0 and new_bytes > self._capacity:
            raise ValueError(f"shape {new_shape} of {size}-byte items needs {new_bytes} bytes; the memory has "
                             f"{self._capacity}")
        if read_only is not None and readonly is not None and bool(read_only) != bool(readonly):
            raise ValueError("read_only and readonly disagree")
        ro = read_only if read_only is not None else readonly
        if stream is not None:
            if isinstance(stream, bool):
                raise TypeError("'stream': expected an int or a stream")
            if isinstance(stream, int):
                if stream == 0:
                    raise ValueError("'stream': value '0' is disallowed as it would be ambiguous between None "
                                     "and the default stream (see the CUDA array interface)")
                if stream < 0:
                    raise ValueError("'stream': expected positive integer")
                self.stream_as_int = stream
            else:
                self.stream_as_int = <size_t>addr(stream)
        if ro is not None:
            self.is_read_only = bool(ro)
        if typestr is not None:
            self.typestr = typestr
        self._array_typestr, self.itemsize, self.shape, self.strides = at, size, new_shape, None
        self._format = None
        return self

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self._array_typestr, "data": (<size_t>self._ptr, self.is_read_only),
                "strides": self.strides, "offset": 0, "mask": None, "version": 3, "stream": self.stream_as_int}

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        """Number of elements: the product of `shape`."""
        return _prod(self.shape)

    @property
    def nbytes(self):
        """Bytes of the elements: size * itemsize."""
        return _prod(self.shape) * self.itemsize

    @property
    def rank(self):
        """Number of axes longer than 1 (AMD's HIP Python)."""
        return sum(1 for n in self.shape if n > 1)

    def __getitem__(self, key):
        """NumPy basic indexing: ints (negative from the end), slices (any step), `...` and None.
        The result is a view of the same type at the first element's address (strided where
        NumPy's would be); an index past an axis raises IndexError."""
        cdef NDBuffer v
        cdef Py_ssize_t offset = 0, n, i, start, stop, step, dim = 0
        shape = self.shape
        ndim = len(shape)
        strides = self.strides if self.strides is not None else _c_strides(shape, self.itemsize)
        if not isinstance(key, tuple):
            key = (key,)
        n_ell = sum(1 for k in key if k is Ellipsis)
        if n_ell > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        used = sum(1 for k in key if k is not None and k is not Ellipsis)
        if used > ndim:
            raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed")
        if n_ell:
            j = key.index(Ellipsis)
            key = key[:j] + (slice(None),) * (ndim - used) + key[j + 1:]
        else:
            key = key + (slice(None),) * (ndim - used)
        new_shape, new_strides = [], []
        for k in key:
            if k is None:
                new_shape.append(1)
                new_strides.append(0)
                continue
            if isinstance(k, slice):
                start, stop, step = k.indices(shape[dim])
                n = len(range(start, stop, step))
                if n == 0:          # NumPy: an empty slice starts at the axis' start, step 1
                    start, step = 0, 1
                offset += start * strides[dim]
                new_shape.append(n)
                new_strides.append(strides[dim] * step)
                dim += 1
                continue
            if isinstance(k, bool) or type(k).__name__ == "bool_":
                raise TypeError("boolean indices are not supported: use ints, slices, ... or None")
            try:
                i = PyNumber_Index(k)
            except TypeError:
                raise TypeError(f"subscript type='{type(k).__name__}': only integers, slices (`:`), ellipsis (`...`) "
                                "and None are valid indices") from None
            n = shape[dim]
            if i < -n or i >= n:
                raise IndexOutOfRangeError(f"index {i} is out of bounds for axis {dim} with size {n}")
            if i < 0:
                i += n
            offset += i * strides[dim]
            dim += 1
        v = type(self).__new__(type(self))
        v._ptr = <char*>self._ptr + offset
        v._owner = self
        v.shape = tuple(new_shape)
        st = tuple(new_strides)
        v.strides = None if _is_c_contiguous(v.shape, st, self.itemsize) else st
        v.typestr, v._array_typestr, v.itemsize = self.typestr, self._array_typestr, self.itemsize
        v.is_read_only, v._device, v.stream_as_int = self.is_read_only, self._device, self.stream_as_int
        v._capacity = self._capacity - offset if self._capacity >= 0 else -1
        return v

    def __iter__(self):
        """Views along the first axis, as iterating a NumPy array."""
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    cdef bytes _buffer_format(self):
        if self._format is None:
            at = self._array_typestr
            kind, size = at[1:2], at[2:]
            codes = {"b1": "?", "i1": "b", "i2": "h", "i4": "i", "i8": "q", "u1": "B", "u2": "H", "u4": "I",
                     "u8": "Q", "f2": "e", "f4": "f", "f8": "d", "f16": "g", "c8": "Zf", "c16": "Zd", "c32": "Zg"}
            code = codes.get(at[1:])
            if code is None:
                code = f"{self.itemsize}s"
            elif at[0] in "<>" and at[0] != ("<" if sys.byteorder == "little" else ">"):
                code = at[0] + code
            self._format = code.encode("ascii")
        return self._format

    def __getbuffer__(self, Py_buffer* buf, int flags):
        cdef Py_ssize_t ndim = len(self.shape)
        cdef Py_ssize_t* arr
        cdef Py_ssize_t k
        if self._device:
            raise BufferError(f"{type(self).__name__} at {hex(<size_t>self._ptr)} is device memory: the host cannot "
                              "read it (copy it with hipMemcpy, or hand __cuda_array_interface__ to CuPy/Numba/PyTorch)")
        if self._ptr == NULL:
            raise BufferError("NULL pointer: no buffer to export")
        if (flags & PyBUF_WRITABLE) == PyBUF_WRITABLE and self.is_read_only:
            raise BufferError("the data is read-only")
        strides = self.strides
        if strides is not None and (flags & PyBUF_STRIDES) != PyBUF_STRIDES:
            raise BufferError("the view is not contiguous: request strides")
        if strides is not None and ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS or
                                    (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS or
                                    (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS):
            raise BufferError("the view is not contiguous")
        if strides is None and ndim > 1 and (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS \
                and sum(1 for n in self.shape if n > 1) > 1:
            raise BufferError("the view is C-contiguous, not Fortran-contiguous")
        fmt = self._buffer_format()
        arr = <Py_ssize_t*>malloc(max(2 * ndim, 1) * sizeof(Py_ssize_t))
        if arr == NULL:
            raise MemoryError()
        if strides is None:
            strides = _c_strides(self.shape, self.itemsize)
        for k in range(ndim):
            arr[k] = self.shape[k]
            arr[ndim + k] = strides[k]
        buf.buf = self._ptr
        buf.obj = self
        buf.len = _prod(self.shape) * self.itemsize
        buf.readonly = self.is_read_only
        buf.itemsize = self.itemsize
        buf.format = NULL
        if (flags & PyBUF_FORMAT) == PyBUF_FORMAT:
            buf.format = <char*>self._format
        buf.ndim = ndim
        buf.shape = arr if (flags & PyBUF_ND) == PyBUF_ND else NULL
        buf.strides = (arr + ndim) if (flags & PyBUF_STRIDES) == PyBUF_STRIDES else NULL
        buf.suboffsets = NULL
        buf.internal = arr
        self._exports += 1

    def __releasebuffer__(self, Py_buffer* buf):
        free(buf.internal)
        self._exports -= 1

    def __repr__(self):
        return (f"<{type(self).__name__} {hex(<size_t>self._ptr)} shape={self.shape} typestr={self.typestr!r}"
                f"{' strided' if self.strides is not None else ''}>")


cdef void* _buffer_address(object mv) except? NULL:
    cdef Py_buffer view
    PyObject_GetBuffer(mv, &view, PyBUF_RECORDS_RO)
    p = view.buf
    PyBuffer_Release(&view)
    return p


cdef class DevicePointer(NDBuffer):
    """Device memory from hipMalloc & co: an NDBuffer (AMD's HIP Python calls it
    `hip._util.types.DeviceArray`: the same class here). A fresh allocation is a byte array of its
    size; `configure(shape=, typestr=)` types it; `x[1:, 2]` slices it."""

    @staticmethod
    def DeviceArray(pyobj):
        """`DeviceArray.fromObj(pyobj)` (a static method of AMD's DeviceArray)."""
        return DevicePointer.fromObj(pyobj)


cdef object device_array(void* p, size_t n, bint device):
    """A hipMalloc-family result: None for NULL (as AMD's HIP Python), else n bytes of memory."""
    if p == NULL:
        return None
    cdef DevicePointer d = DevicePointer.__new__(DevicePointer)
    d._ptr = p
    d.shape = (n,)
    d._capacity = n
    d._device = device
    return d


cdef class Handle(Pointer):
    """Base of the opaque handle types (hipStream_t, hipEvent_t, ...): no fields, so
    `PROPERTIES()` is empty (AMD's HIP Python)."""

    @staticmethod
    def PROPERTIES():
        return []

    def __contains__(self, item):
        return False

    def __getitem__(self, item):
        if isinstance(item, int):
            raise IndexError(f"{type(self).__name__} has no fields")
        raise ValueError("'item' type must be 'int'")

    def __iter__(self):
        return iter(())


# -- C strings ---------------------------------------------------------------------------------
cdef class CStr(Pointer):
    """A C string (`char*`): what functions returning `const char*` give (AMD's HIP Python:
    `hip._util.types.CStr`). `str(s)` decodes UTF-8, `bytes(s)` and the buffer protocol give
    the bytes, `len(s)`, `s.decode()`; it compares equal to the same text as bytes or str.
    `CStr(obj)`: bytes/bytearray (pointing into them), str (UTF-8 encoded), or any address;
    `malloc(n)` gives it n zeroed bytes of its own (a buffer for C to fill)."""
    _converts = True

    def __init__(self, pyobj=None):
        self._set(pyobj)

    cdef _set(self, object pyobj):
        cdef CStr o
        if isinstance(pyobj, CStr):
            o = <CStr>pyobj
            self._ptr, self._len, self._owner = o._ptr, o._len, o
        elif isinstance(pyobj, str):
            b = (<str>pyobj).encode()
            self._ptr, self._len, self._owner = <void*><char*>b, len(b) + 1, b
        elif isinstance(pyobj, bytes):
            self._ptr, self._len, self._owner = <void*><char*>pyobj, len(pyobj) + 1, pyobj
        elif pyobj is not None and not isinstance(pyobj, (int, Pointer)) and PyObject_CheckBuffer(pyobj):
            mv = memoryview(pyobj).cast("B") if memoryview(pyobj).c_contiguous else None
            if mv is None:
                raise BufferError("a C string needs contiguous memory")
            self._ptr, self._len, self._owner = _buffer_address(mv), mv.nbytes + 1, mv
        else:
            self._ptr = addr(pyobj)
            self._owner = pyobj if pyobj is not None and not isinstance(pyobj, int) else None
            self._len = 0

    cdef Py_ssize_t _length(self):
        if self._ptr == NULL:
            return 0
        if self._len == 0:   # length + 1 once known (0: not yet; objects start zeroed)
            self._len = strlen(<const char*>self._ptr) + 1
        return self._len - 1

    def malloc(self, Py_ssize_t size_bytes):
        """Allocate `size_bytes` zeroed bytes owned by this object (its pointer must be NULL)."""
        if self._ptr != NULL:
            raise RuntimeError("Data pointer must be NULL.")
        if size_bytes < 0:
            raise ValueError("size must be non-negative")
        self._ptr = calloc(max(size_bytes, 1), 1)
        if self._ptr == NULL:
            raise MemoryError()
        self._owns = True
        self._len = 0

    def free(self):
        """Free what malloc() allocated (RuntimeError for memory this object does not own)."""
        if not self._owns:
            raise RuntimeError("Attempt to free that is not owned by this instance.")
        free(self._ptr)
        self._ptr = NULL
        self._owns = False
        self._len = 0

    def __dealloc__(self):
        if self._owns:
            free(self._ptr)

    def __len__(self):
        return self._length()

    def __bool__(self):
        return self._length() > 0

    def __bytes__(self):
        return (<char*>self._ptr)[:self._length()] if self._ptr != NULL else b""

    def __str__(self):
        return self.decode()

    def __repr__(self):
        return self.decode() if self._ptr != NULL else ""

    def __getitem__(self, subscript):
        if self._ptr == NULL:
            raise RuntimeError("__getitem__: data pointer `_ptr` is `NULL`.")
        return str(self)[subscript]

    def __iter__(self):
        return iter(str(self))

    def __contains__(self, item):
        if isinstance(item, str):
            return item in str(self)
        return item in bytes(self)

    def __eq__(self, other):
        if isinstance(other, (bytes, bytearray, CStr)):
            return bytes(self) == bytes(other)
        if isinstance(other, str):
            return bytes(self) == (<str>other).encode()
        return Pointer.__eq__(self, other)

    def __hash__(self):
        return hash(bytes(self))

    def decode(self, encoding="utf-8", errors="strict"):
        return bytes(self).decode(encoding, errors)

    def __getattr__(self, name):
        # bytes' methods (startswith, split, ...) on the string's bytes: results used to be bytes here
        if not name.startswith("_") and hasattr(bytes, name):
            return getattr(bytes(self), name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def encode(self, encoding="utf-8", errors="strict"):
        return self.decode(encoding, errors).encode(encoding, errors)

    def __getbuffer__(self, Py_buffer* buf, int flags):
        if (flags & PyBUF_WRITABLE) == PyBUF_WRITABLE and not self._owns:
            raise BufferError("CStr: read-only (only memory from malloc() is writable here)")
        buf.buf = self._ptr
        buf.obj = self
        buf.len = self._length()
        buf.readonly = not self._owns
        buf.itemsize = 1
        buf.format = NULL
        if (flags & PyBUF_FORMAT) == PyBUF_FORMAT:
            buf.format = "B"
        buf.ndim = 1
        buf.shape = &buf.len if (flags & PyBUF_ND) == PyBUF_ND else NULL
        buf.strides = &buf.itemsize if (flags & PyBUF_STRIDES) == PyBUF_STRIDES else NULL
        buf.suboffsets = NULL
        buf.internal = NULL

    def __releasebuffer__(self, Py_buffer* buf):
        pass


cdef class ImmortalCStr(CStr):
    """A CStr that is never freed, nor is what it points into: for strings a library keeps
    (AMD's HIP Python: `hip._util.types.ImmortalCStr`)."""

    def __init__(self, pyobj=None):
        CStr.__init__(self, pyobj)
        Py_INCREF(self)


cdef class _TextBuffer(Pointer):
    """`n` zeroed bytes the binding owns for text a call writes (`out text[len]`): calloc'd, so
    the pages of a large `len` are not touched before C writes them."""
    cdef Py_ssize_t _size

    def __dealloc__(self):
        free(self._ptr)

    def __bytes__(self):   # all of it, as bytes(bytearray(n)) gave
        return (<char*>self._ptr)[:self._size]


cdef object text_buffer(Py_ssize_t n):
    cdef _TextBuffer b = _TextBuffer.__new__(_TextBuffer)
    b._ptr = calloc(max(n, 1), 1)
    if b._ptr == NULL:
        raise MemoryError(f"cannot allocate {n} bytes for the text")
    b._size = n
    return b


cdef object text_result(object buf):
    """Text a call wrote into a char buffer (hipDeviceGetName): a CStr of the bytes before the NUL."""
    cdef _TextBuffer tb
    cdef const char* end
    if isinstance(buf, _TextBuffer):
        tb = <_TextBuffer>buf
        end = <const char*>memchr(tb._ptr, 0, tb._size)
        b = (<char*>tb._ptr)[:(end - <const char*>tb._ptr) if end != NULL else tb._size]
    else:
        b = bytes(buf).split(b"\0", 1)[0]
    cdef CStr s = CStr.__new__(CStr)
    s._ptr, s._len, s._owner = <void*><char*>b, len(b) + 1, b
    return s


cdef object text_spaced(object buf):
    """All of a text buffer as cuda.bindings returns it (`b" " * length` the call wrote into): the
    text, its NUL, and spaces for the bytes after it."""
    cdef _TextBuffer tb = <_TextBuffer?>buf
    cdef const char* end = <const char*>memchr(tb._ptr, 0, tb._size)
    if end == NULL:
        return (<char*>tb._ptr)[:tb._size]
    cdef Py_ssize_t n = end - <const char*>tb._ptr
    return (<char*>tb._ptr)[:n + 1] + b" " * (tb._size - n - 1)


cdef object cstr_result(const char* p):
    """A `const char*` result: None for NULL, else a CStr viewing the library's string."""
    if p == NULL:
        return None
    cdef CStr s = CStr.__new__(CStr)
    s._ptr = <void*>p
    return s


# -- C arrays built from Python lists (AMD's hip._util.types.ListOf*) --------------------------
cdef class _ListOf(Pointer):
    """A C array from a list/tuple (elements converted, memory owned), or any pointer-like object."""
    _typecode = "P"
    _converts = True

    def __init__(self, pyobj=None):
        if isinstance(pyobj, (list, tuple)):
            arr = self._pack(list(pyobj))
            self._owner = arr
            self._ptr = _buffer_address(memoryview(arr)) if len(arr) else NULL
        elif isinstance(pyobj, type(self)):
            self._ptr, self._owner = (<Pointer>pyobj)._ptr, pyobj
        else:
            Pointer.__init__(self, pyobj)

    def _pack(self, list items):
        from array import array
        code = self._typecode
        out = []
        for i, x in enumerate(items):
            if not isinstance(x, int):
                v = getattr(x, "value", None)      # ctypes integers
                if not isinstance(v, int) or isinstance(x, (bytes, str)):
                    raise ValueError(f"element {i} ({type(x).__name__}) cannot be converted to a C integer")
                x = v
            out.append(x)
        try:
            return array(code, out)
        except OverflowError as e:
            raise OverflowError(f"{type(self).__name__}: {e}") from None


cdef class ListOfInt(_ListOf):
    """A C `int` array from a list (AMD's hip._util.types.ListOfInt)."""
    _typecode = "i"


cdef class ListOfUnsigned(_ListOf):
    """A C `unsigned int` array from a list."""
    _typecode = "I"


cdef class ListOfUnsignedLong(_ListOf):
    """A C `unsigned long` array from a list."""
    _typecode = "L"


cdef class ListOfPointer(_ListOf):
    """A C `void*` array from a list of pointer-like objects (each kept alive with the array)."""

    def _pack(self, list items):
        self._keep = items
        return _address_array([<size_t>addr(x) for x in items])

    cdef public object _keep


cdef class ListOfBytes(_ListOf):
    """A C `char*` array from a list of bytes (or str, or CStr)."""

    def _pack(self, list items):
        keep, ptrs = [], []
        for i, x in enumerate(items):
            if isinstance(x, str):
                x = (<str>x).encode()
            if isinstance(x, bytes):
                keep.append(x)
                ptrs.append(<size_t><char*>x)
            elif isinstance(x, CStr):
                keep.append(x)
                ptrs.append(<size_t>(<CStr>x)._ptr)
            else:
                raise ValueError(f"element {i}: expected bytes, got {type(x).__name__}")
        self._keep = keep
        return _address_array(ptrs)

    cdef public object _keep


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
    if isinstance(o, IntValue):   # an integer typedef's object (the alias's CUdeviceptr): its value
        return <void*><size_t>_ival(<IntValue>o)
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


cdef void* fn_addr(object o, str what) except? NULL:
    """A C function pointer argument: None, an int address, a binding's function-pointer object
    (a Pointer), a ctypes function pointer or c_void_p. Never data memory (bytes, arrays,
    __cuda_array_interface__, DLPack): the library would jump into it."""
    cdef void* p
    if o is None or type(o) is int or isinstance(o, Pointer):
        return _addr(o, PyBUF_SIMPLE)
    ct = sys.modules.get("ctypes")
    if ct is not None and isinstance(o, (ct._CFuncPtr, ct.c_void_p)) and _ctypes_addr(o, &p):
        return p
    if isinstance(o, IntValue):
        return <void*><size_t>_ival(<IntValue>o)
    if not isinstance(o, bool) and PyIndex_Check(o):   # NumPy integers
        return _addr(PyNumber_Index(o), PyBUF_SIMPLE)
    raise TypeError(f"{what}: a C function pointer takes None, an int address, a ctypes function pointer "
                    f"(CFUNCTYPE) or a function-pointer object, not {type(o).__name__}")


cdef object index(object o):
    """An integer argument: ints and objects with __index__ (NumPy integers), never a float."""
    if type(o) is int:
        return o
    if isinstance(o, Pointer):   # has __index__ (its address), but a dim3 or a stream is no size
        raise TypeError(f"expected an integer, got {type(o).__name__}")
    return PyNumber_Index(o)


cdef object int_if_number(object o):
    """A bool or float given where an address is read, as the int it makes (cuda.bindings'
    rule, the alias's: plan.address_value); anything else as it is."""
    if type(o) is bool or type(o) is float:
        return int(o)
    return o


cdef object integer(object o, bint truncate):
    """index(o); where `truncate` (cuda.bindings' Cython conversion: the alias), also any number
    with __int__, truncated as C truncates (`blocks = n / 256`); str and bytes stay refused."""
    if type(o) is int or not truncate:
        return index(o)
    if isinstance(o, Pointer):
        raise TypeError(f"expected an integer, got {type(o).__name__}")
    try:
        return PyNumber_Index(o)
    except TypeError:
        if isinstance(o, (str, bytes, bytearray)) or not hasattr(type(o), "__int__"):
            raise TypeError(f"an integer is required, got {type(o).__name__}") from None
        return int(o)


# Integer arguments of every generated function convert here: one compiled copy instead of
# Cython's inline conversion at each of thousands of call sites (which dominated build time).
cdef long long as_signed(object o, int nbytes, bint truncate) except? -1:
    """A C signed integer of `nbytes` bytes: __index__ semantics (a float is a TypeError unless
    `truncate`: integer()), range-checked."""
    cdef long long v = integer(o, truncate)
    cdef long long lim
    if nbytes < 8:
        lim = 1LL << (8 * nbytes - 1)
        if v < -lim or v >= lim:
            raise OverflowError(f"{v} does not fit a {8 * nbytes}-bit signed integer")
    return v


cdef unsigned long long as_unsigned(object o, int nbytes, bint truncate) except? 0xFFFFFFFFFFFFFFFF:
    """A C unsigned integer of `nbytes` bytes (integer() with `truncate`): negative values and
    overflow raise OverflowError."""
    o = integer(o, truncate)
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
            i = as_signed(o, nbytes, False)
            memcpy(local, (<char*>&i) if sys.byteorder == "little" else (<char*>&i) + 8 - nbytes, nbytes)
        else:
            u = as_unsigned(o, nbytes, False)
            memcpy(local, (<char*>&u) if sys.byteorder == "little" else (<char*>&u) + 8 - nbytes, nbytes)
        return local
    if kind == 2:
        if isinstance(o, complex):
            raise TypeError("expected a real number, got complex")
        store_float(local, o, nbytes)
        return local
    c = complex(o)
    store_float(local, c.real, nbytes)
    store_float(<char*>local + nbytes, c.imag, nbytes)
    return local


cdef object _check_enum = None
cdef object _unnamed_member = None

cdef extern from "Python.h":
    ctypedef struct _TypeObjectDict "PyTypeObject":
        PyObject* tp_dict


cdef inline dict _value_map(object cls):
    """cls._value2member_map_, read from the class's own dict: on Python <= 3.11 enum.EnumType has a
    __getattr__, which makes every attribute lookup on an enum class take the slow path."""
    cdef dict d = <dict><object>(<_TypeObjectDict*>cls).tp_dict
    return <dict>d["_value2member_map_"]


cdef extern from "Python.h":
    void PyType_Modified(PyTypeObject*)
    int PyObject_GenericSetDict(object, object, void*) except -1


def enum_fill(cls, members, bint last_name_wins):
    """Create the members of a new hip._enum class (hip._enum.define's loop, in C).

    Writes straight into the class's own dict, then invalidates the type cache once: the members
    are plain class attributes, as type.__setattr__ would leave them, without its per-attribute
    cache invalidation (~1.5 us a member in Python; 877 members in cuda.bindings.driver)."""
    cdef dict cd = <dict><object>(<_TypeObjectDict*>cls).tp_dict
    cdef dict v2m = <dict>cd["_value2member_map_"]
    cdef dict n2m = <dict>cd["_member_map_"]
    cdef list names = <list>cd["_member_names_"]
    cdef list flat
    cdef Py_ssize_t i
    if isinstance(members, str):
        flat = (<str>members).split()
        pairs = [(flat[i], int(flat[i + 1])) for i in range(0, len(flat) - 1, 2)]
    else:
        pairs = members
    new = int.__new__
    for n, v in pairs:
        m = v2m.get(v)
        if m is None:
            m = new(cls, v)
            PyObject_GenericSetDict(m, {"_name_": n, "_value_": v}, NULL)
            v2m[v] = m
            names.append(n)
        elif last_name_wins:
            names[names.index(m._name_)] = n
            m._name_ = n
        n2m[n] = m
        cd[n] = m
    PyType_Modified(<PyTypeObject*>cls)
    (<list>cd["_hashable_values_"]).extend(v2m)


def enum_member(cls, value):
    """The member of enum class `cls` for a value C returned (hip._enum.member)."""
    global _unnamed_member
    m = _value_map(cls).get(value)
    if m is None:
        if _unnamed_member is None:
            from hip._enum import _unnamed
            _unnamed_member = _unnamed
        m = _unnamed_member(cls, value)
    return m


cdef int enum_arg(object cls, object v, bint lenient) except? -1:
    """An enum argument: a member of `cls`, or an int that is one of its values. `lenient`
    (cuda.bindings' rule, for the alias): whatever int() makes an integer that fits a C int, a
    member of another enum class included (cudaDeviceGetAttribute(CUdevice_attribute.X, dev));
    a value without a HIP counterpart is the bridge's to refuse, with the call's status."""
    global _check_enum
    if type(v) is cls:
        return v
    if type(v) is int and v in _value_map(cls):
        return v
    if lenient:   # cuda.bindings converts with int(): a float truncates, a str of digits parses
        if v is None:
            raise TypeError(f"expected {cls.__name__} or int, got None")
        return <int>as_signed(int(v), sizeof(int), True)
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
    if typecode != "P" and not isinstance(o, Pointer) and PyObject_CheckBuffer(o):
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


cdef inline unsigned long long _ival(IntValue o):
    """The value: its own, or the _n bytes a `_ptr=` view reads."""
    cdef unsigned long long u = 0
    if o._at == NULL:
        return o._v
    memcpy((<char*>&u) if sys.byteorder == "little" else (<char*>&u) + 8 - o._n, o._at, o._n)
    return u


cdef class IntValue:
    """An integer typedef as an object (cuda.bindings' CUdeviceptr, CUdevice): int(x), and
    x.getPtr(), the address of its storage (for kernel arguments). Pointer arguments take it
    as the address it holds."""

    def __init__(self, init_value=0):
        self._v = int(init_value)

    def __int__(self):
        return _ival(self)

    def __index__(self):
        return _ival(self)

    def getPtr(self):
        return <size_t>int_value_storage(self)

    def __repr__(self):
        return f"<{type(self).__name__} {_ival(self)}>"


cdef int int_value_init(IntValue self, object v, int nbytes, object at) except -1:
    """Initialise an integer typedef object (cuda.bindings' `cuuint32_t(v)`, `CUdeviceptr(v)`): v
    truncated and range-checked for C's `nbytes`; with `at` (`_ptr=` address, nonzero) a view of
    the `nbytes` value stored there, as cuda.bindings' (a kernel argument in mapped memory)."""
    cdef void* p
    if at is not None:
        p = addr(at)
        if p != NULL:
            self._at, self._n = p, nbytes
            return 0
    self._v = as_unsigned(v, nbytes, True)
    return 0


cdef void* value_ref(object o, unsigned long long* local) except? NULL:
    """A `void*` to a value the caller gives (an attribute's): an IntValue's own storage, an int
    stored in `local` (8 bytes: a 4-byte attribute reads its low half), else any pointer."""
    if isinstance(o, IntValue):
        return int_value_storage(<IntValue>o)
    if isinstance(o, int):   # a bool too: the value read is a flag (cuCoredumpSetAttributeGlobal's)
        local[0] = <unsigned long long>o if o >= 0 else <unsigned long long>(<long long>o)
        return local
    return addr(o)


cdef object _address_array(list addrs):
    """A C array of void* (an array.array the pointer path takes by its buffer)."""
    from array import array   # imported on first use: keeps `import hip.hip` fast
    return array("Q" if sizeof(void*) == 8 else "I", addrs)


# -- argument checks by parameter role (codegen/plan.py): bad input is refused before C sees it ---
# Each Pointer class's `_ctype_` (None: untyped), read once per class: a class attribute lookup
# cost a handle argument ~60 ns a call, a dict lookup by type a few.
cdef dict _ctypes = {}


cdef int ctype_arg(object o, str ctype, str what) except -1:
    """An object that stands for a C value of a type (a struct, a handle: its class's `_ctype_`,
    the struct's or the handle's struct tag) is refused with TypeError where C takes another type
    (`ctype`): C would read that object's memory as its own (hiprtcDestroyProgram(dim3()) read
    the dim3 as a program and crashed). Untyped pointers (Pointer, DevicePointer, buffers, ints)
    are addresses: the caller's word."""
    cdef PyObject* found
    if ctype is None or not isinstance(o, Pointer) or type(o) is Pointer:
        return 0
    t = type(o)
    found = PyDict_GetItem(_ctypes, t)
    if found == NULL:
        k = getattr(t, "_ctype_", None)
        _ctypes[t] = k
    else:
        k = <object>found
    if k is not None and k is not ctype and k != ctype:
        name = t.__name__
        raise TypeError(f"{what}: expected {ctype}, got {name}" + (f" (a {k})" if k != name else ""))
    return 0


cdef void* handle_arg(object o, bint nullable, str what, str ctype=None) except? NULL:
    """A handle argument: a Pointer not yet destroyed (a handle object of the handle's C type
    `ctype`, or an untyped Pointer: ctype_arg), an int address, a ctypes.c_void_p, or None where
    the spec says a NULL handle is valid (a NULL stream is the default stream). Anything else
    (bytes, buffers, str, lists, structs and other handles) would hand the library an object's
    memory as its handle: TypeError."""
    cdef void* p
    if type(o) is int:
        if o < 0:
            raise OverflowError(f"{what}: a handle address cannot be negative: {o}")
        p = PyLong_AsVoidPtr(o)
    elif isinstance(o, Pointer):
        ctype_arg(o, ctype, what)
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
    """A C string the call reads (never NULL): bytes, str, bytearray, or a non-zero address."""
    if o is None:
        raise TypeError(f"{what}: expected bytes or str, got None")
    cdef const char* s = cstr(o, keep)
    if s == NULL:   # 0 or a NULL Pointer: C would read the string at address 0
        raise ValueError(f"{what}: a NULL address where the call reads a C string")
    return s


cdef const char* cstr_bytes(object o, list keep, str what) except? NULL:
    """A C string the call reads, as cuda.bindings' `char*` parameters take it: bytes or bytearray
    (Cython's conversion); None, str, ints (an address) and anything else are TypeErrors."""
    if not isinstance(o, (bytes, bytearray)):
        raise TypeError(f"{what}: expected bytes, {type(o).__name__} found")
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
