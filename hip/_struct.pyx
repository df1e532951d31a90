# cython: language_level=3
"""Struct and union wrappers for every library, driven by layout tables.

Instead of generating Cython properties per field (what made HIP Python's
modules tens of MB), each generated module passes one table per record:
(name, offset, kind, element size, count, sub-type, bit offset, bit width),
with offsets and sizes computed by the C compiler. `Field` reads and writes
memory through that table.
"""
from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.buffer cimport PyObject_CheckBuffer
from libc.string cimport memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize

cdef extern from "<string.h>" nogil:
    size_t strnlen(const char* s, size_t n)
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from cpython.number cimport PyNumber_Index
from cpython.object cimport PyObject

cdef extern from "Python.h":
    ctypedef struct _TypeObjectDict "PyTypeObject":
        PyObject* tp_dict
from hip._pointer cimport (Pointer, Handle, NDBuffer, addr, waddr, wrap, index, as_signed, as_unsigned, sized, ctype_arg,
                           store_float)
from hip._kernel_args cimport kernel_params, INT_ADDRESS
from libc.stdlib cimport calloc, free
from hip import _enum
import sys

# Field kinds (the generator writes these numbers; keep in sync with codegen/emit/records.py).
cdef enum:
    K_INT = 0      # signed integer of elsize bytes
    K_UINT = 1     # unsigned integer
    K_FLOAT = 2    # float (4) / double (8)
    K_BOOL = 3
    K_PTR = 4      # pointer -> Pointer (or the handle class in sub)
    K_CHARS = 5    # char[N] -> bytes
    K_CSTR = 6     # char* -> bytes or None
    K_RECORD = 7   # nested struct/union (view into the parent; an array of them: copies)
    K_ENUM = 8     # enum of elsize bytes; sub is the enum class
    K_BITS = 9     # bitfield: bitoff/bitwidth inside an unsigned word of elsize bytes
    K_BYTES = 10   # char[N] holding data -> all N bytes
    K_ADDR = 11    # a pointer to anything but void (struct_style 'cuda' only): as K_PTR, printed in decimal
    K_VALPTR = 12  # a pointer to a value class's integer (struct_style 'cuda' only): sub(_ptr=address)

KINDS = {"int": K_INT, "uint": K_UINT, "float": K_FLOAT, "bool": K_BOOL, "ptr": K_PTR, "chars": K_CHARS,
         "cstr": K_CSTR, "record": K_RECORD, "enum": K_ENUM, "bits": K_BITS, "bytes": K_BYTES, "addr": K_ADDR,
         "valptr": K_VALPTR}


cdef object read_scalar(char* p, int kind, Py_ssize_t n, object sub, bint cuda=False):
    """One value of a field. `cuda` (struct_style 'cuda', cuda.bindings' classes): a pointer
    without a class is an int, an unsigned integer with one (CUdeviceptr) is that class, and an
    enum value that is no member raises ValueError."""
    cdef int64_t i
    cdef uint64_t u
    cdef float f
    cdef double d
    cdef void* v
    if kind == K_INT or kind == K_ENUM:
        if n == 1: i = (<int8_t*>p)[0]
        elif n == 2: i = (<int16_t*>p)[0]
        elif n == 4: i = (<int32_t*>p)[0]
        else: i = (<int64_t*>p)[0]
        if kind == K_INT:
            return sub(i) if cuda and sub is not None else i
        return sub(i) if cuda else _enum.member(sub, i)
    if kind == K_UINT:
        if n == 1: u = (<uint8_t*>p)[0]
        elif n == 2: u = (<uint16_t*>p)[0]
        elif n == 4: u = (<uint32_t*>p)[0]
        else: u = (<uint64_t*>p)[0]
        return sub(u) if cuda and sub is not None else u
    if kind == K_FLOAT:
        if n == 4:
            memcpy(&f, p, 4)
            return f
        memcpy(&d, p, 8)
        return d
    if kind == K_BOOL:
        return p[0] != 0
    if kind == K_PTR or kind == K_ADDR:
        memcpy(&v, p, sizeof(void*))
        if cuda and sub is None:
            return <size_t>v
        return wrap(sub if sub is not None else Pointer, v)
    if kind == K_VALPTR:     # the value class viewing the integer there (its own 0 for NULL)
        memcpy(&v, p, sizeof(void*))
        return sub(_ptr=<size_t>v)
    if kind == K_CSTR:
        memcpy(&v, p, sizeof(void*))
        return None if v == NULL else <bytes>(<char*>v)
    raise AssertionError(kind)


cdef object int_value(object value):
    """An integer field's value: an int, anything with __index__, or (as AMD's HIP Python's typed
    setters take it) a number with __int__: `dim3(n / 2)` truncates like C. Pointers, strings and
    complex numbers are refused."""
    if type(value) is int:
        return value
    try:
        return PyNumber_Index(value)
    except TypeError:
        if isinstance(value, (Pointer, str, bytes, bytearray, complex)) or not hasattr(type(value), "__int__"):
            raise TypeError(f"an integer is required, got {type(value).__name__}") from None
    return int(value)


cdef int write_scalar(char* p, int kind, Py_ssize_t n, object value) except -1:
    cdef int64_t i
    cdef uint64_t u
    cdef void* v
    if kind == K_INT or kind == K_ENUM:
        if kind == K_ENUM and not isinstance(value, int):
            raise TypeError(f"expected an int or enum member, got {type(value).__name__}")
        i = as_signed(value if kind == K_ENUM else int_value(value), n, False)
        if n == 1: (<int8_t*>p)[0] = <int8_t>i
        elif n == 2: (<int16_t*>p)[0] = <int16_t>i
        elif n == 4: (<int32_t*>p)[0] = <int32_t>i
        else: (<int64_t*>p)[0] = i
    elif kind == K_UINT or kind == K_BOOL:
        u = as_unsigned(int_value(value) if kind == K_UINT else value, n, False)
        if n == 1: (<uint8_t*>p)[0] = <uint8_t>u
        elif n == 2: (<uint16_t*>p)[0] = <uint16_t>u
        elif n == 4: (<uint32_t*>p)[0] = <uint32_t>u
        else: (<uint64_t*>p)[0] = u
    elif kind == K_FLOAT:
        store_float(p, value, n)
    elif kind == K_PTR or kind == K_ADDR or kind == K_VALPTR:
        v = addr(value)
        memcpy(p, &v, sizeof(void*))
    else:
        raise AssertionError(kind)
    return 0


cdef Struct _memory_holder(Struct s):
    """The struct whose memory `s` views: `s`, or the struct a view of a nested record (or of a
    struct's address) was made from, followed to the first that is not such a view."""
    while isinstance(s._owner, Struct):
        s = <Struct>s._owner
    return s


cdef object _keep(Struct s, char* slot, object obj, bint made):
    """Keep `obj`, what the pointer at `slot` in `s`'s memory was set from (a Python buffer, or an
    array made from a list), alive as long as that memory: with the struct that holds it, not with
    `s` if `s` is a view (`params.memcpy.copyParams.dstHost = buf` sets it through two temporary
    views). `made`: an array made from a list of structs or handles, which the holder clears from
    the field when it goes (Struct.__dealloc__). None: forget what the slot held (set again)."""
    cdef Struct holder = _memory_holder(s)
    if obj is None:
        if holder._kept:
            holder._kept.pop(<size_t>slot, None)
        return None
    if holder._kept is None:
        holder._kept = {}
    holder._kept[<size_t>slot] = (obj, made)
    return obj


cdef object _made_at(Struct s, char* slot):
    """The array made from a list for the pointer at `slot` (_keep), or None."""
    cdef Struct holder = _memory_holder(s)
    if holder._kept is None:
        return None
    kept = holder._kept.get(<size_t>slot)
    return kept[0] if kept is not None and kept[1] else None


cdef bint _needs_keeping(object value):
    """Whether the address a pointer field takes from `value` lives only as long as `value` (a
    buffer, a Pointer viewing one, a struct), as cuda.bindings keeps what its void* fields were
    set from; an int or a Pointer that views nothing of Python's (a handle) is only its value."""
    if value is None or isinstance(value, int):
        return False
    return not isinstance(value, Pointer) or isinstance(value, Struct) or (<Pointer>value)._owner is not None


cdef class Field:
    """Descriptor for one field of a generated struct/union class."""
    cdef readonly str name
    cdef readonly Py_ssize_t offset
    cdef readonly int kind
    cdef readonly Py_ssize_t elsize
    cdef readonly Py_ssize_t count     # 0: a single value, else a fixed array
    cdef readonly object sub
    cdef readonly int bitoff, bitwidth
    cdef readonly object elem          # a pointer to structs: their class (point_to), else None
    cdef readonly bint cuda            # struct_style 'cuda' (read_scalar)

    def __init__(self, name, offset, kind, elsize, count, sub, bitoff, bitwidth):
        self.name, self.offset, self.kind, self.elsize = name, offset, KINDS[kind], elsize
        self.count, self.sub, self.bitoff, self.bitwidth = count, sub, bitoff, bitwidth

    def __get__(self, obj, objtype):
        if obj is None:
            return self
        return self.get_at(<Struct>obj, 0)

    def __set__(self, obj, value):
        self.set_at(<Struct>obj, 0, value)

    cdef char* at(self, Struct s, Py_ssize_t i) except NULL:
        """Address of this field in element i of the record array at s."""
        cdef Py_ssize_t size, end
        if s._ptr == NULL:
            raise ValueError(f"{type(s).__name__} points to NULL: no {self.name} to access")
        if i == 0:
            if s._avail >= 0 and self.offset + self.elsize * (self.count or 1) > s._avail:
                raise IndexError(f"{type(s).__name__}.{self.name} lies past the end of the memory "
                                 f"({s._avail} bytes)")
            return <char*>s._ptr + self.offset
        size = type(s)._size_
        if i < 0 or (s._avail >= 0 and (i + 1) * size > s._avail):
            n = s._avail // size if s._avail >= 0 else None
            raise IndexError(f"{type(s).__name__} index {i} out of range"
                             + (f" (the memory holds {n})" if n is not None else " (negative)"))
        return <char*>s._ptr + i * size + self.offset

    cdef object get_at(self, Struct s, Py_ssize_t k):
        cdef char* p = self.at(s, k)
        cdef Py_ssize_t i
        cdef uint64_t word = 0
        cdef void* v
        if type(self.sub) is _Later:   # an enum class its module makes on first use: now
            self.sub = (<_Later>self.sub).resolve()
        if self.elem is not None:
            # cuda.bindings' CUlaunchConfig.attrs: the structs a list set (views of the array made
            # from it, while the field still points there); NULL is []
            memcpy(&v, p, sizeof(void*))
            if v == NULL:
                return []
            kept = _made_at(s, p)
            if kept is not None and v == <void*>PyByteArray_AS_STRING(kept):
                if not issubclass(self.elem, Struct):   # handles (cuda.bindings' extSemArray): their addresses
                    return [wrap(self.elem, (<void**>v)[i]) for i in range(len(kept) // sizeof(void*))]
                size = self.elem._size_
                return [self.elem._view(<size_t>v + i * size, kept) for i in range(len(kept) // size)]
        if self.kind == K_CHARS:
            return <bytes>p[:strnlen(p, self.count or 1)]
        if self.kind == K_BYTES:
            return <bytes>p[:self.count or 1]
        if self.kind == K_BITS:
            memcpy(&word, p, self.elsize)
            return (word >> self.bitoff) & ((1ULL << self.bitwidth) - 1)
        if self.kind == K_RECORD:
            if self.count:
                # an array of structs reads as a list of copies, as an array of numbers reads as a
                # list of values (and as cuda.bindings' cudaEglFrame.frame.pPitch): `s.arr = [...]` writes
                return [record_copy(self.sub, p + i * self.elsize) for i in range(self.count)]
            return self.sub._view(<size_t>p, s)
        if self.count:
            return [read_scalar(p + i * self.elsize, self.kind, self.elsize, self.sub, self.cuda)
                    for i in range(self.count)]
        return read_scalar(p, self.kind, self.elsize, self.sub, self.cuda)

    cdef int set_at(self, Struct s, Py_ssize_t k, object value) except -1:
        cdef char* p = self.at(s, k)
        cdef Py_ssize_t i
        cdef uint64_t word = 0, mask
        cdef bint made = False
        if (self.kind == K_PTR or self.kind == K_ADDR) and self.count == 0:
            if self.elem is not None and isinstance(value, (list, tuple)):
                # A pointer to structs (cuda.bindings' `config.attrs = [attr]`): one C array of
                # their copies; an empty list is NULL. To handles: their addresses.
                keep = record_list(self.elem, value) if issubclass(self.elem, Struct) else _handle_array(self.elem, value)
                made = True
                value = keep if keep is not None else 0
            elif isinstance(value, (list, tuple)):
                # Kernel arguments in a struct (CUDA_KERNEL_NODE_PARAMS.kernelParams, hipKernelNodeParams'
                # kernelParams): a list, or cuda.bindings' ((values), (ctypes types)), made an
                # address array.
                keep = value = kernel_params(value, INT_ADDRESS)
            else:
                keep = value if _needs_keeping(value) else None
            write_scalar(p, self.kind, self.elsize, value)
            _keep(s, p, keep, made)      # once written: a value refused leaves the field as it was
            return 0
        if self.kind == K_BYTES:
            if isinstance(value, (list, tuple)):
                # C's char elements, as cuda.bindings takes them: -128..255 (a signed char's -1 is 255)
                if not all(isinstance(x, int) and -128 <= x <= 255 for x in value):
                    raise ValueError(f"{self.name}: each element must be an int in -128..255")
                value = bytes(x & 0xFF for x in value)
            if isinstance(value, str) or not isinstance(value, (bytes, bytearray, memoryview)):
                raise TypeError(f"{self.name} holds {self.count} bytes of data: give bytes, not {type(value).__name__}")
            b = bytes(value)
            if len(b) > self.count:
                raise ValueError(f"{self.name} holds {self.count} bytes, got {len(b)}")
            memset(p, 0, self.count)
            memcpy(p, <char*>b, len(b))
        elif self.kind == K_CHARS:
            b = value.encode() if isinstance(value, str) else bytes(value)
            if len(b) > self.count:   # a full array has no NUL: C reads it as the whole array
                raise ValueError(f"{self.name} holds at most {self.count} bytes, got {len(b)}")
            memset(p, 0, self.count)
            memcpy(p, <char*>b, len(b))
        elif self.kind == K_BITS:
            mask = ((1ULL << self.bitwidth) - 1)
            value = int_value(value)
            if not 0 <= value <= mask:
                raise OverflowError(f"{self.name} is a {self.bitwidth}-bit field; {value} does not fit")
            memcpy(&word, p, self.elsize)
            word = (word & ~(mask << self.bitoff)) | ((<uint64_t>value) << self.bitoff)
            memcpy(p, &word, self.elsize)
        elif self.kind == K_RECORD and not self.count:
            if isinstance(value, self.sub):
                memcpy(p, (<Struct>value)._ptr, self.elsize)
            elif isinstance(value, dict):
                view = self.sub._view(<size_t>p, s)
                for fname, v in value.items():
                    setattr(view, fname, v)
            else:
                raise TypeError(f"{self.name} takes a {self.sub.__name__} or a dict, not {type(value).__name__}")
        elif self.kind == K_CSTR:
            raise AttributeError(f"{self.name} is a char*; set it with a Pointer to memory you keep alive")
        elif self.count:
            seq = list(value)
            if len(seq) > self.count:
                raise ValueError(f"{self.name} holds {self.count} elements, got {len(seq)}")
            if self.kind == K_RECORD:
                for i, v in enumerate(seq):
                    memcpy(p + i * self.elsize, (<Struct?>v)._ptr, self.elsize)
            else:
                for i, v in enumerate(seq):
                    write_scalar(p + i * self.elsize, self.kind, self.elsize, v)
        else:
            write_scalar(p, self.kind, self.elsize, value)
        return 0

    def __repr__(self):
        return f"<Field {self.name} offset={self.offset}>"


cdef class ElementAccessor:
    """`get_<field>(i)` / `set_<field>(i, value)` of a struct class: the field of element i of the
    record array that starts at the object's address (AMD's HIP Python)."""
    cdef readonly Field field
    cdef readonly bint setter

    def __get__(self, obj, objtype):
        if obj is None:
            return self
        cdef BoundElementAccessor b = BoundElementAccessor.__new__(BoundElementAccessor)
        b.acc, b.obj = self, obj
        return b


cdef class BoundElementAccessor:
    cdef ElementAccessor acc
    cdef Struct obj

    def __call__(self, i, *value):
        i = index(i)
        if self.acc.setter:
            if len(value) != 1:
                raise TypeError(f"set_{self.acc.field.name}(i, value) takes 2 arguments ({1 + len(value)} given)")
            self.acc.field.set_at(self.obj, i, value[0])
            return None
        if value:
            raise TypeError(f"get_{self.acc.field.name}(i) takes 1 argument ({1 + len(value)} given)")
        return self.acc.field.get_at(self.obj, i)

    def __repr__(self):
        return f"<bound {'set' if self.acc.setter else 'get'}_{self.acc.field.name} of {self.obj!r}>"


cdef ElementAccessor _accessor(Field f, bint setter):
    cdef ElementAccessor a = ElementAccessor.__new__(ElementAccessor)
    a.field, a.setter = f, setter
    return a


class TooManyValues(TypeError, ValueError):
    """More positional values than fields: a TypeError (a call's arguments), a ValueError in AMD's HIP Python."""


class NoSuchField(TypeError, KeyError):
    """A keyword naming no field: a TypeError (a call's arguments), a KeyError in AMD's HIP Python."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


cdef class Struct(Pointer):
    """Base of every generated struct/union wrapper.

    `T(**fields)` owns zeroed memory of C's size; `T.from_ptr(addr)` / `T.fromObj(obj)` view
    existing memory. `int(obj)` is the address, usable as a pointer argument. As in AMD's HIP
    Python: `PROPERTIES()` lists the fields, `obj[i]` is field i's value, `get_<f>(i)` /
    `set_<f>(i, v)` access element i of a record array, `c_sizeof()` is C's size.
    """

    def __cinit__(self):
        self._avail = -1
        cdef object cls = type(self)
        cdef dict d = <dict><object>(<_TypeObjectDict*>cls).tp_dict
        if "_accessors_" not in d and "_fields_" in d:
            _make_accessors(cls)

    def __dealloc__(self):
        # The arrays made from lists go with this object: a field of the memory it held that still
        # points at one is cleared, as cuda.bindings' __dealloc__ does, so that whoever else holds
        # that memory (a `T(_ptr=address)` view's, a parent struct's, the library) reads NULL, not
        # freed memory. A buffer's address stays: its owner may still hold it.
        cdef void** slot
        if not self._kept:
            return
        for at, kept in self._kept.items():
            slot = <void**><size_t>at
            if kept[1] and slot[0] == <void*>PyByteArray_AS_STRING(kept[0]):
                slot[0] = NULL

    def __init__(self, *args, **kwargs):
        cls = type(self)
        at = kwargs.pop("_ptr", None) if kwargs else None
        if at is not None and addr(at) != NULL:
            # cuda.bindings' `T(_ptr=address)`: a view of the struct at that address
            self._ptr = addr(at)
            self._owner = None if isinstance(at, int) else at
            defaults = None
        else:
            buf = bytearray(cls._size_)
            self._owner = buf
            self._ptr = PyByteArray_AS_STRING(buf)
            self._avail = cls._size_
            defaults = cls._defaults_
        if defaults:
            for n, v in defaults.items():
                setattr(self, n, v)
        if args:
            props = cls._props_          # positional values: AMD's PROPERTIES() order
            if len(args) > len(props):
                raise TooManyValues(f"{cls.__name__} takes {len(props)} positional values "
                                    f"({', '.join(props)}), got {len(args)}")
            for n, v in zip(props, args):
                setattr(self, n, v)
        if kwargs:
            names = cls._fields_
            for n, v in kwargs.items():
                if n not in names:
                    raise NoSuchField(f"{cls.__name__} has no field {n!r}")
                if args and n in cls._props_[:len(args)]:
                    raise NoSuchField(f"{cls.__name__}: {n!r} given positionally and by name")
                setattr(self, n, v)

    @classmethod
    def _view(cls, size_t address, owner):
        cdef Struct s = cls.__new__(cls)
        cdef Struct o
        s._ptr = <void*>address
        s._owner = owner
        if isinstance(owner, Struct):
            o = <Struct>owner
            if o._avail >= 0:
                s._avail = o._avail - (<Py_ssize_t>address - <Py_ssize_t><size_t>o._ptr)
        return s

    @classmethod
    def from_ptr(cls, ptr, owner=None):
        """View the memory at `ptr` (not copied, not freed; `owner` is kept alive)."""
        if ptr is None or addr(ptr) == NULL:
            raise ValueError(f"{cls.__name__}.from_ptr: NULL pointer")
        cdef Struct s = cls._view_of(ptr)
        if owner is not None:
            s._owner = owner
        return s

    @classmethod
    def _view_of(cls, obj):
        cdef Struct s = cls.__new__(cls)
        s._ptr = addr(obj)
        s._owner = obj if obj is not None and not isinstance(obj, int) else None
        s._avail = _extent(obj)
        return s

    @classmethod
    def fromObj(cls, pyobj):
        """`pyobj` itself if it is a `cls`, else a view of the memory it points to (an address,
        Pointer, buffer, ctypes object; None gives a NULL view whose fields raise ValueError).
        AMD's HIP Python: `T.fromObj`."""
        if isinstance(pyobj, cls):
            return pyobj
        return cls._view_of(pyobj)

    @classmethod
    def allocate(cls, Py_ssize_t n=1):
        """An array of `n` zeroed records in memory this object owns (AMD's HIP Python allocates
        one in its constructor); the object is element 0, `get_<f>(i)`/`set_<f>(i, v)` reach
        element i < n, and `int(obj)` is the array's address."""
        if n < 1:
            raise ValueError(f"{cls.__name__}.allocate: n must be at least 1, got {n}")
        cdef Struct s = cls.__new__(cls)
        buf = bytearray(cls._size_ * n)
        s._owner = buf
        s._ptr = PyByteArray_AS_STRING(buf)
        s._avail = cls._size_ * n
        return s

    @classmethod
    def PROPERTIES(cls):
        """The field names AMD's HIP Python lists, in order (`_fields_` has every field)."""
        return list(cls._props_)

    @classmethod
    def c_sizeof(cls):
        return cls._size_

    def __contains__(self, name):
        return name in type(self)._props_

    def __getitem__(self, item):
        """`obj[i]`: the value of field i (`dim3(4, 2)[1]` is 2), as in AMD's HIP Python."""
        names = type(self)._props_
        if isinstance(item, int) and not isinstance(item, bool):
            if item < 0 or item >= len(names):
                raise IndexError(f"{type(self).__name__} has {len(names)} fields; no field {item}")
            return getattr(self, names[item])
        raise ValueError("'item' type must be 'int'")

    def as_dict(self):
        return {n: getattr(self, n) for n in type(self)._fields_}

    def __bytes__(self):
        cdef Py_ssize_t size = type(self)._size_
        if self._ptr == NULL:
            raise ValueError(f"{type(self).__name__} points to NULL")
        if 0 <= self._avail < size:
            raise IndexError(f"{type(self).__name__} needs {size} bytes; the memory it views has {self._avail}")
        return (<char*>self._ptr)[:size]

    def __len__(self):
        return type(self)._size_

    def __eq__(self, other):
        if type(other) is type(self):
            return bytes(self) == bytes(other)
        return Pointer.__eq__(self, other)

    def __hash__(self):
        return Pointer.__hash__(self)

    def __iter__(self):
        """Field values in order, so `dim3` unpacks: `*dim3(4)` -> 4, 1, 1."""
        for n in type(self)._fields_:
            yield getattr(self, n)

    def __dir__(self):
        """cuda.bindings' struct objects list their fields and getPtr as their public names
        (programs and NVIDIA's tests compare two structs attribute by attribute over dir()): the
        HIP Python helpers stay callable, unlisted, on the 'cuda' style."""
        names = object.__dir__(self)
        if getattr(type(self), "_style_", "") != "cuda":
            return names
        return [n for n in names if n.startswith("_")] + list(type(self)._fields_) + ["getPtr"]

    def __repr__(self):
        cls = type(self)
        if self._ptr == NULL:
            return f"<{cls.__name__} NULL>"
        if cls._style_ == "cuda":
            return "\n".join(_cuda_lines(self, ""))
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in cls._fields_[:8])
        more = ", ..." if len(cls._fields_) > 8 else ""
        return f"{cls.__name__}({fields}{more})"


def _cuda_lines(Struct s, str indent):
    """cuda.bindings' repr of a struct: `name : value` per field, a nested record's fields under
    `name :` four spaces further in (an array of them: the list of their reprs, so), a value
    that cannot be read as `<ValueError>` (an enum value that is no member), a pointer to void
    in hex, any other address in decimal."""
    cdef Field f
    out = []
    cls = type(s)
    for n in cls._fields_:
        f = getattr(cls, n)
        try:
            v = getattr(s, n)
        except ValueError:
            out.append(f"{indent}{n} : <ValueError>")
            continue
        if isinstance(v, Struct) and f.kind == K_RECORD and not f.count:
            out.append(f"{indent}{n} :")
            out += _cuda_lines(<Struct>v, indent + "    ")
        elif f.kind == K_RECORD and isinstance(v, list):   # an array of structs: the list's str, indented
            out.append(f"{indent}{n} :")
            out += [indent + "    " + line for line in str(v).splitlines()]
        elif f.kind == K_PTR and f.sub is None and f.elem is None and isinstance(v, int):
            out.append(f"{indent}{n} : {hex(v)}")
        elif f.kind == K_CHARS:     # text
            out.append(f"{indent}{n} : {v.decode(errors='replace')}")
        else:
            out.append(f"{indent}{n} : {v!r}" if not isinstance(v, int) or isinstance(v, bool) or type(v) is not int
                       else f"{indent}{n} : {v}")
    return out


cdef Py_ssize_t _extent(object obj) except -2:
    """Bytes known to be usable at obj's address (-1: unknown)."""
    cdef Struct s
    cdef NDBuffer b
    if obj is None or isinstance(obj, int):
        return -1
    if isinstance(obj, Struct):
        return (<Struct>obj)._avail
    if isinstance(obj, NDBuffer):
        b = <NDBuffer>obj
        return b._capacity if b._capacity >= 0 else -1
    if isinstance(obj, Pointer):
        return -1
    if PyObject_CheckBuffer(obj):
        try:
            return memoryview(obj).nbytes
        except Exception:
            return -1
    return -1


cdef class _Later:
    """A class of `module` by its name, looked up on the field's first read: an enum class the
    module makes on first use (the cuda alias's lazy enum classes), which its struct tables then
    need not make at import, or a class defined after the tables (a function pointer typedef's)."""
    cdef str module, name

    def __init__(self, str module, str name):
        self.module, self.name = module, name

    cdef object resolve(self):
        return getattr(sys.modules[self.module], self.name)


def define(str name, Py_ssize_t size, tuple fields, str module, str doc="", dict defaults=None,
           bint from_int=False, tuple props=None, str style=""):
    """Make a Struct subclass from a layout table (see Field for the columns; an enum field's class
    may be given by its name in `module`, found on first read). `from_int`: an argument of this type
    may also be an int, the first field's value (HIP's C++ dim3(n)). `props`: the fields AMD's HIP
    Python lists in PROPERTIES() (and takes positionally), where that is fewer than all (handles,
    function pointers, ... are attributes only there). `style` 'cuda': fields read and the
    class prints as cuda.bindings' (read_scalar, Struct.__repr__)."""
    cdef Field fd
    names = tuple(f[0] for f in fields)
    ns = {"__module__": module, "__doc__": doc or None, "__slots__": (), "_size_": size,
          "_ctype_": name,    # the C type it holds (_pointer.ctype_arg): a subclass's too
          "_fields_": names, "_props_": props if props is not None else names, "_defaults_": defaults,
          "_from_int_": from_int, "_style_": style}
    for f in fields:
        fd = ns[f[0]] = Field(*f)
        fd.cuda = style == "cuda"
        if isinstance(fd.sub, str):   # an enum's (or a class defined further down) by name
            fd.sub = _Later(module, fd.sub)
    return type(name, (Struct,), ns)


cdef object _handle_array(object cls, object value):
    """The addresses of a list of `cls` handles (ints taken as addresses) as one C array, a
    bytearray; None for an empty list."""
    if not value:
        return None
    for h in value:
        if not isinstance(h, (cls, int)):
            raise TypeError(f"expected a list of {cls.__name__}, got {type(h).__name__}")
    buf = bytearray(len(value) * sizeof(void*))
    cdef void** a = <void**>PyByteArray_AS_STRING(buf)
    cdef Py_ssize_t i
    for i, h in enumerate(value):
        a[i] = addr(h)
    return buf


def point_to(object cls, str field, object elem):
    """Field `field` of struct class `cls` points to an array of `elem` structs: it takes a list of
    them, packed into one C array (cuda.bindings' `CUlaunchConfig.attrs`, `CUctxCreateParams.cigParams`),
    and reads back as that list; `elem` a handle class: a list of handles, their addresses packed
    (`CUDA_EXT_SEM_SIGNAL_NODE_PARAMS.extSemArray`). Called after both classes exist (the element may be defined later)."""
    cdef Field f = <Field>cls.__dict__[field]
    if (f.kind != K_PTR and f.kind != K_ADDR) or f.count:
        raise TypeError(f"{cls.__name__}.{field} is not a pointer field")
    f.elem = elem
    return None


cdef int _make_accessors(object cls) except -1:
    """The get_<field>/set_<field> accessors of a struct class (HIP Python's element accessors),
    made when its first instance is: creating them for every class at import costs ~0.6 ms (and a
    metaclass or a __getattr__ that made them on first lookup would slow every attribute lookup)."""
    cdef Field fd
    for name in cls._fields_:
        fd = <Field>cls.__dict__[name]
        type.__setattr__(cls, "get_" + name, _accessor(fd, False))
        type.__setattr__(cls, "set_" + name, _accessor(fd, True))
    type.__setattr__(cls, "_accessors_", True)
    return 0


cdef object record_arg(object cls, object value):
    """A struct passed by value: an instance of `cls` not destroyed (a handle struct, comgr's
    amd_comgr_data_t, that a destroy call freed: spec `destroys`), or a tuple/dict of its fields."""
    if isinstance(value, cls):
        if (<Pointer>value)._destroyed is not None:
            raise ValueError(f"this {type(value).__name__} was destroyed by {(<Pointer>value)._destroyed}()")
        return value
    if isinstance(value, Struct):
        raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}")
    if isinstance(value, dict):
        return cls(**value)
    if isinstance(value, (tuple, list)):
        return cls(*value)
    if isinstance(value, int) and cls._from_int_:
        return cls(value)
    raise TypeError(f"expected {cls.__name__} (or a tuple/dict of its fields), got {type(value).__name__}")


cdef void* record_ptr(object cls, object value) except? NULL:
    """A pointer to a struct: an instance of `cls`, or any pointer-like object. A Python buffer
    (bytes, NumPy, ctypes) smaller than the struct is refused: C would read (or write) past its end
    and follow whatever pointer fields it found there."""
    if isinstance(value, Struct):
        if not isinstance(value, cls):
            raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}")
        return addr(value)
    what = f"a pointer to {cls.__name__}"
    ctype_arg(value, cls._ctype_, what)    # a handle object: its memory is no such struct
    return sized(value, cls._size_, False, what)


cdef object record_copy(object cls, const void* src):
    cdef Struct s = cls.__new__(cls)
    buf = bytearray(cls._size_)
    s._owner = buf
    s._ptr = PyByteArray_AS_STRING(buf)
    s._avail = cls._size_
    memcpy(s._ptr, src, cls._size_)
    return s


cdef object record_list(object cls, object value):
    """A pointer to structs the call reads: a list/tuple of `cls` instances is packed into one
    contiguous C array (a bytearray the caller keeps until the call returns), as cuda.bindings takes
    `[access_desc]` for `const CUmemAccessDesc*`; anything else is passed on (record_ptr checks it)."""
    if not isinstance(value, (list, tuple)):
        return value
    cdef Py_ssize_t size = cls._size_, i
    buf = bytearray(size * len(value))
    cdef char* p = PyByteArray_AS_STRING(buf) if len(value) else NULL
    for i, v in enumerate(value):
        if not isinstance(v, cls):
            raise TypeError(f"expected a list of {cls.__name__}, item {i} is {type(v).__name__}")
        memcpy(p + i * size, (<Struct>v)._ptr, size)
    return buf if len(value) else None


# -- values typed by an attribute (cuda.bindings' cuPointerGetAttribute, cuMemPoolGetAttribute, ...) ---
cdef class _TypedBuffers(Pointer):
    """Per attribute a zeroed buffer the call writes one value into, and the `void*` array of their
    addresses (what `_ptr` points at), for the plural attribute queries (cuPointerGetAttributes)."""
    cdef void** slots
    cdef Py_ssize_t n
    cdef list sizes

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.slots != NULL:
            for i in range(self.n):
                free(self.slots[i])
            free(self.slots)


cdef Py_ssize_t _TYPED_MIN = 64     # a buffer holds every typed value (the largest: a 16-byte struct)


cdef object typed_buffer(object size):
    """A zeroed buffer for one typed value: `size` bytes (the caller's dataSize), at least 64."""
    cdef Py_ssize_t n = max(index(size), 0) if size is not None else 0
    b = _TypedBuffers.__new__(_TypedBuffers)
    cdef _TypedBuffers t = <_TypedBuffers>b
    t.slots = <void**>calloc(1, sizeof(void*))
    if t.slots == NULL:
        raise MemoryError()
    t.n = 1
    t.sizes = [n]
    t.slots[0] = calloc(max(n, _TYPED_MIN), 1)
    if t.slots[0] == NULL:
        raise MemoryError(f"cannot allocate {n} bytes for the value")
    t._ptr = t.slots[0]
    return b


cdef object typed_buffers(object attributes, object sizes, object count):
    """Buffers for `count` typed values (sizes from the caller's list, else 64 bytes each) and the
    `void**` array of their addresses."""
    cdef Py_ssize_t n = index(count), i, k
    if n < 0:
        raise ValueError(f"the count cannot be negative ({n})")
    if not isinstance(attributes, (list, tuple)) or len(attributes) < n:
        raise ValueError(f"expected a list of at least {n} attributes, got {attributes!r}")
    if sizes is not None and (not isinstance(sizes, (list, tuple)) or len(sizes) < n):
        raise ValueError(f"expected a list of at least {n} sizes, got {sizes!r}")
    b = _TypedBuffers.__new__(_TypedBuffers)
    cdef _TypedBuffers t = <_TypedBuffers>b
    t.slots = <void**>calloc(max(n, 1), sizeof(void*))
    if t.slots == NULL:
        raise MemoryError()
    t.n = n
    t.sizes = []
    for i in range(n):
        k = 0 if sizes is None else index(sizes[i])
        if k < 0:
            raise ValueError(f"size {i} is negative ({k})")
        t.sizes.append(k)
        t.slots[i] = calloc(max(k, _TYPED_MIN), 1)
        if t.slots[i] == NULL:
            raise MemoryError(f"cannot allocate {k} bytes for value {i}")
    t._ptr = t.slots
    return b


cdef object _typed(dict table, object selector, const char* p, Py_ssize_t n):
    """The value at p as the table says the selector's values are typed: (code, class) by the
    enumerator's value; an enumerator the table lacks reads as an unsigned 64-bit int."""
    code, cls = table.get(int(selector), ("Q", None))
    if code == "i":
        return (<const int32_t*>p)[0]
    if code == "I":
        return (<const uint32_t*>p)[0]
    if code == "?":
        return (<const int32_t*>p)[0] != 0
    if code == "q":
        return (<const int64_t*>p)[0]
    if code == "Q" or code == "P":
        return (<const uint64_t*>p)[0]
    if code == "v":        # an integer typedef's class (cuuint64_t, CUdeviceptr)
        return cls((<const uint64_t*>p)[0])
    if code == "h":        # a handle class
        return wrap(cls, (<void* const*>p)[0])
    if code == "s":        # a struct, copied
        return record_copy(cls, p)
    if code == "l":        # 32-bit ints filling the caller's dataSize
        return [(<const int32_t*>p)[i] for i in range(n // 4)]
    cdef Py_ssize_t k = 0
    if code == "t":        # text in a buffer of cls bytes, to its NUL
        n = min(<Py_ssize_t>cls, n)
        while k < n and p[k] != 0:
            k += 1
        return PyBytes_FromStringAndSize(p, k)
    raise AssertionError(code)


cdef tuple _typed_rule(dict table, object selector):
    """(code, class) of the selector's value; TypeError where the table refuses it (code 'x'), as
    cuda.bindings' helpers refuse an attribute they do not know (`Unsupported attribute: NAME`)."""
    rule = table.get(int(selector), ("Q", None))
    if rule[0] == "x":
        raise TypeError(f"Unsupported attribute: {getattr(selector, 'name', selector)}")
    return rule


cdef object typed_out_buffer(dict table, object selector):
    """typed_buffer() for the value the selector's rule types, of that value's size (text: its
    buffer's), refused before the call where the table refuses the selector."""
    code, cls = _typed_rule(table, selector)
    return typed_buffer(cls if code == "t" else _TYPED_SIZES.get(code, 0))


cdef object typed_in_buffer(dict table, object selector, object value):
    """The caller's value in a typed_buffer(), converted as the selector's rule types it: a flag
    from any object's truth (a C bool), text from bytes or bytearray (its bytes, then a NUL; the
    size its length), an integer as C's; the size C is told is the buffer's `sizes[0]`."""
    code, cls = _typed_rule(table, selector)
    cdef _TypedBuffers t
    if code == "t":
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"expected bytes, {type(value).__name__} found")
        b = typed_buffer(len(value) + 1)
        t = <_TypedBuffers>b
        memcpy(t.slots[0], <const char*>value if isinstance(value, bytes) else PyByteArray_AS_STRING(value), len(value))
        t.sizes[0] = len(value)
        return b
    b = typed_buffer(_TYPED_SIZES.get(code, 8))
    t = <_TypedBuffers>b
    if code == "?":
        (<unsigned char*>t.slots[0])[0] = 1 if value else 0
    elif code == "i" or code == "I":
        (<uint32_t*>t.slots[0])[0] = <uint32_t>(index(value) & 0xffffffff)
    else:
        (<uint64_t*>t.slots[0])[0] = <uint64_t>(index(value) & 0xffffffffffffffff)
    return b


cdef size_t typed_size(object buf) except? 0:
    """The size of the value in a typed_out_buffer()/typed_in_buffer() (what C's size parameter says)."""
    return (<_TypedBuffers?>buf).sizes[0]


cdef dict _TYPED_SIZES = {"?": 1, "i": 4, "I": 4, "q": 8, "Q": 8, "P": 8}


cdef object typed_value(dict table, object selector, object buf):
    """The value a call wrote into typed_buffer()'s memory."""
    cdef _TypedBuffers t = <_TypedBuffers?>buf
    return _typed(table, selector, <const char*>t.slots[0], t.sizes[0])


cdef object typed_values(dict table, object selectors, object buf):
    """The values a call wrote into typed_buffers()' memory, one per attribute."""
    cdef _TypedBuffers t = <_TypedBuffers?>buf
    cdef Py_ssize_t i
    return [_typed(table, selectors[i], <const char*>t.slots[i], t.sizes[i]) for i in range(t.n)]


cdef object record_array(object cls, object n):
    """Zeroed memory for `n` structs a call fills (an `out array` of structs); empty for 0."""
    return bytearray(cls._size_ * max(index(n), 0))


cdef list record_items(object cls, object buf):
    """The structs a call wrote into record_array()'s memory, each a copy."""
    cdef Py_ssize_t size = cls._size_, i
    cdef char* p = PyByteArray_AS_STRING(buf) if len(buf) else NULL
    return [record_copy(cls, p + i * size) for i in range(len(buf) // size)]


def c_sizeof(objType, dict values):
    """The size in bytes of a binding class's C type (cuda.bindings' sizeof()): a struct's, a
    handle's (a pointer), or an integer typedef's from `values` (class -> size); else TypeError."""
    if isinstance(objType, type):
        if objType in values:
            return values[objType]
        if issubclass(objType, Struct) and isinstance(getattr(objType, "_size_", None), int):
            return objType._size_
        if issubclass(objType, Handle):
            return sizeof(void*)
    raise TypeError("Unknown type: " + str(objType))
