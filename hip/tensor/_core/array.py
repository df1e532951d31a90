"""`ndarray`: an N-d view of device memory (owning or viewing), with NumPy-style byte strides
(negative ones included), the array API's operators and NumPy/DLPack/CAI interchange.

A leaf of hip.tensor's floors: it imports only `_core`. Its operators and the methods that need the
floors above (arithmetic, reductions, indexing, reshape, matmul, the casting copy) call through
the dispatch table `ops`, whose entries the modules defining those operations set at their import
(`register`)."""
from __future__ import annotations

import operator
import weakref as _weakref

import numpy as np

from . import dtypes as _dt
from . import interop as _interop
from ._array import ArrayBase, bind as _bind_array, empty as _empty_array, set_binop as _set_binop
from .device import Device, current_stream, get_device_id
from .dtypes import DType
from .memory import alloc as _alloc, memcpy
from .shapes import as_shape, c_layout, c_strides, is_c_contiguous, is_f_contiguous, prod

__all__ = ["ndarray"]


class _Ops:
    """ndarray's dispatch table: the operations its methods and operators take from the floors above
    `_core`, which this module does not import. Each entry is set at import by the module that
    defines the operation (`register`); until then it raises. hip.tensor imports them all."""

    __slots__ = (
        # _api.elementwise: binop(name, x1, x2) and inplace(name, x1, x2) by the function's name
        "binop", "inplace", "negative", "positive", "abs", "bitwise_invert", "real", "imag", "conj", "clip",
        # _api.statistical
        "sum", "prod", "mean", "var", "std", "max", "min", "any", "all", "cumulative_sum",
        "reshape", "permute_dims", "squeeze",      # _api.manipulation
        "getitem", "setitem",                      # _api.indexing
        "matmul",                                  # _api.linalg
        "copy",                                    # _kernels.copy: copy(x, dtype), a C-contiguous copy
        "namespace",                               # hip.tensor itself
        "array_namespace",                         # _api.info: the namespace per API version (__array_namespace__)
        "array_ufunc", "array_function",           # _api.numpy_protocols: NumPy's ufuncs and functions (NEP 13, 18)
    )

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, _unregistered(name))


def _unregistered(name: str):
    def unregistered(*args, **kwargs):
        raise RuntimeError(f"ndarray's operation {name!r} is not registered: the module defining it "
                           "has not been imported (import hip.tensor)")
    return unregistered


ops = _Ops()
_set_binop(ops.binop)


def register(**entries) -> None:
    """Set entries of `ops` (ndarray's dispatch table): called at import by the modules that
    define the operations."""
    for name, fn in entries.items():
        if name not in _Ops.__slots__:
            raise TypeError(f"ndarray's dispatch table has no entry {name!r}")
        setattr(ops, name, fn)
    _set_binop(ops.binop)         # ArrayBase's operators call it from C


class Flags:
    """Layout flags of an array (NumPy's names)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata", "writeable")

    def __init__(self, c, f, own, writeable):
        self.c_contiguous, self.f_contiguous, self.owndata, self.writeable = c, f, own, writeable

    def __getitem__(self, name):
        key = {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous", "OWNDATA": "owndata",
               "WRITEABLE": "writeable"}.get(str(name).upper())
        if key is None:
            raise KeyError(name)
        return getattr(self, key)

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}\n  WRITEABLE : {self.writeable}")


class ndarray(ArrayBase):
    """An array in device memory.

    `ndarray(shape, dtype=float64)` allocates (C order) on the current device; views made by
    indexing, `.T`, `reshape` etc. share `.data` with their base. `.ptr` is the address of the
    first element, `.strides` are in bytes and may be negative or zero.
    """

    __slots__ = ()      # the fields are ArrayBase's (_core/_array.pyx: the per-op path makes arrays in C)
    __array_priority__ = 100
    # ArrayBase keeps the weak-reference list in C; Python's classes show it as this attribute
    __weakref__ = property(lambda self: next(iter(_weakref.getweakrefs(self)), None),
                           doc="The first weak reference to this array, or None.")

    def __init__(self, shape, dtype=_dt.float64, memptr=None, strides=None):
        shape = as_shape(shape)
        dtype = _dt.dtype(dtype)
        if memptr is None:
            if strides is not None:
                raise ValueError("strides need memptr (memory to view)")
            memptr = _alloc(prod(shape) * dtype.itemsize)
            strides = c_strides(shape, dtype.itemsize)
            base = None
        else:
            base = memptr
            strides = c_strides(shape, dtype.itemsize) if strides is None else tuple(int(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError(f"strides {strides} do not match shape {shape}")
        self._shape, self._strides, self._dtype = shape, strides, dtype
        self._data, self._ptr = memptr, int(memptr.ptr)
        self._device_id = getattr(memptr, "device_id", None)
        if self._device_id is None:
            self._device_id = get_device_id()
        self._base, self._readonly = base, False

    # -- construction without checks (internal) ----------------------------------------------
    # _empty(shape, dtype, device_id=None, stream=None): a fresh C-contiguous array of `dtype` on
    # `device_id` (the current device by default), its memory for `stream` (the current one)
    _empty = classmethod(_empty_array)

    @classmethod
    def _view_of(cls, data, ptr: int, shape, strides, dtype: DType, device_id: int, base=None,
                 readonly: bool = False) -> "ndarray":
        a = cls.__new__(cls)
        a._shape, a._strides, a._dtype = tuple(shape), tuple(strides), dtype
        a._data, a._ptr, a._device_id, a._base, a._readonly = data, int(ptr), device_id, base, readonly
        return a

    def _view(self, ptr: int, shape, strides, dtype: DType | None = None) -> "ndarray":
        """A view of this array's memory."""
        return ndarray._view_of(self._data, ptr, shape, strides, dtype or self._dtype, self._device_id,
                                self if self._base is None else self._base, self._readonly)

    # -- attributes ----------------------------------------------------------------------------
    @property
    def ptr(self) -> int:
        """Device address of the first element (the view's offset included)."""
        return self._ptr

    @property
    def data(self):
        """The MemoryPointer (or foreign owner) holding the memory; views share it."""
        return self._data

    @property
    def base(self):
        return self._base

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        return self._strides

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return prod(self._shape)

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    @property
    def device_id(self) -> int:
        return self._device_id

    @property
    def device(self):
        return Device(self._device_id)

    @property
    def flags(self) -> Flags:
        n = self._dtype.itemsize
        return Flags(is_c_contiguous(self._shape, self._strides, n), is_f_contiguous(self._shape, self._strides, n),
                     self._base is None, not self._readonly)

    @property
    def is_c_contiguous(self) -> bool:
        return is_c_contiguous(self._shape, self._strides, self._dtype.itemsize)

    @property
    def T(self) -> "ndarray":
        if self.ndim != 2:
            raise ValueError(f".T needs a 2-d array (got {self.ndim}-d); use .mT or permute_dims")
        return self.transpose()

    @property
    def mT(self) -> "ndarray":
        if self.ndim < 2:
            raise ValueError(f".mT needs at least 2 dimensions, got {self.ndim}")
        axes = list(range(self.ndim))
        axes[-1], axes[-2] = axes[-2], axes[-1]
        return self.transpose(axes)

    @property
    def real(self) -> "ndarray":
        return ops.real(self)

    @property
    def imag(self) -> "ndarray":
        return ops.imag(self)

    # -- host transfers --------------------------------------------------------------------------
    def get(self, stream=None, out: np.ndarray | None = None) -> np.ndarray:
        """A NumPy copy (bfloat16 arrives as float32, NumPy having no bfloat16); waits for it."""
        src = self if self.is_c_contiguous else self.copy()
        host_dtype = src._dtype.numpy
        if out is not None:
            if not isinstance(out, np.ndarray) or out.shape != self._shape or not out.flags.c_contiguous \
                    or out.dtype != host_dtype:
                raise ValueError(f"out must be a C-contiguous NumPy array of shape {self._shape} and dtype {host_dtype}")
            host = out
        else:
            host = np.empty(self._shape, host_dtype)
        if host.nbytes:
            with Device(self._device_id):
                s = stream if stream is not None else current_stream(self._device_id)
                memcpy(host.ctypes.data, src.ptr, host.nbytes, "d2h", s)
                s.synchronize()
        if self._dtype is _dt.bfloat16 and out is None:
            return _dt.bfloat16_bits_to_float32(host).reshape(self._shape)
        return host

    def __array__(self, dtype=None, copy=None):
        # as CuPy: a copy to the host is asked for explicitly, never made behind NumPy's back
        raise TypeError("Implicit conversion to a NumPy array is not allowed (a hip.tensor array lives in "
                        "device memory): use .get() or hip.tensor.asnumpy() to copy it to the host explicitly")

    # -- NumPy's protocols: its functions on this array run hip.tensor's (_api.numpy_protocols) --
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs (NEP 13): `np.sin(x)`, `np.add(x, y, out=z)`, `np.add.reduce(x)` run
        hip.tensor's function of that name; NotImplemented where hip.tensor has none."""
        return ops.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """NumPy API functions (NEP 18, NEP 35's like=): `np.concatenate`, `np.linalg.solve`, ...
        run hip.tensor's; NotImplemented where hip.tensor has none."""
        return ops.array_function(func, types, args, kwargs)

    # -- pickling and copying ----------------------------------------------------------------------
    def __reduce__(self):
        # as CuPy: through the host; unpickled on the current device of the process that loads it
        return _unpickle, (self.get(), self._dtype.name)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def tolist(self):
        return self.get().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError(f"only arrays of one element convert to a Python scalar (size {self.size})")
        return self.get().reshape(()).item()

    # -- conversions of one element ----------------------------------------------------------------
    def _scalar(self, what: str):
        if self.size != 1:
            raise TypeError(f"only arrays of one element can be converted to Python {what} "
                            f"(this one has shape {self._shape})") if self.size else \
                ValueError(f"cannot convert an empty array to Python {what}")
        return self.get().reshape(()).item()

    def __bool__(self):
        if self.size != 1:
            raise ValueError(f"the truth value of an array with {self.size} elements is ambiguous; "
                             "use any() or all()")
        return bool(self.get().reshape(()).item())

    def __float__(self):
        if self._dtype.kind == "c":
            raise TypeError("cannot convert a complex array to float; take .real first")
        return float(self._scalar("float"))

    def __int__(self):
        if self._dtype.kind == "c":
            raise TypeError("cannot convert a complex array to int")
        return int(self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if self._dtype.kind not in "iu" or self.ndim != 0:
            raise TypeError("only 0-d integer arrays can be used as an index")
        return int(self._scalar("int"))

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self._shape[0]):
            yield self[i]

    # -- copies, casts, views -----------------------------------------------------------------------
    def copy(self, order: str = "C") -> "ndarray":
        """A C-contiguous copy on the same device."""
        if order not in ("C", "K", "A"):
            raise ValueError("only C-order copies are supported")
        return ops.copy(self, self._dtype)

    def astype(self, dtype, copy: bool = True) -> "ndarray":
        """This array converted to `dtype` (complex to real drops the imaginary part, as NumPy)."""
        d = _dt.dtype(dtype)
        if d is self._dtype and not copy:
            return self
        return ops.copy(self, d)

    def view(self, dtype=None) -> "ndarray":
        """The same memory read as another dtype of the same itemsize (bfloat16 <-> uint16 bits)."""
        if dtype is None:
            return self._view(self._ptr, self._shape, self._strides)
        d = _dt.dtype(dtype)
        if d.itemsize != self._dtype.itemsize:
            raise ValueError(f"view as {d.name} needs the same itemsize ({self._dtype.itemsize} bytes)")
        return self._view(self._ptr, self._shape, self._strides, d)

    def to_device(self, device, /, *, stream=None) -> "ndarray":
        """This array on `device` (a Device or an ordinal); itself when already there."""
        if isinstance(device, str):
            raise ValueError(f"unknown device {device!r}: use an ordinal or a hip.tensor Device "
                             "(for the host, use .get())")
        dev = Device(device).id
        if dev == self._device_id:
            return self
        src = self if self.is_c_contiguous else self.copy()
        with Device(dev):
            s = stream if stream is not None else current_stream(dev)
            out = ndarray._empty(self._shape, self._dtype, dev, s)
            # the copy on the destination's stream must follow the work queued on the source's
            s.wait_stream(current_stream(self._device_id))
            memcpy(out.ptr, src.ptr, self.nbytes, "default", s)
        return out

    def fill(self, value) -> None:
        self[...] = value

    def reshape(self, *shape, copy=None) -> "ndarray":
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return ops.reshape(self, shape, copy=copy)

    def transpose(self, *axes) -> "ndarray":
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        return ops.permute_dims(self, tuple(axes))

    def ravel(self) -> "ndarray":
        return ops.reshape(self, (-1,))

    def flatten(self) -> "ndarray":
        return ops.reshape(self, (-1,), copy=True) if self.is_c_contiguous else ops.reshape(self, (-1,))

    def squeeze(self, axis=None) -> "ndarray":
        return ops.squeeze(self, axis)

    def swapaxes(self, a, b) -> "ndarray":
        axes = list(range(self.ndim))
        a, b = axes[a], axes[b]
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    # -- reductions as methods ---------------------------------------------------------------------------
    def sum(self, axis=None, dtype=None, keepdims=False):
        return ops.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return ops.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return ops.mean(self, axis=axis, keepdims=keepdims)

    def var(self, axis=None, correction=0.0, keepdims=False, ddof=None):
        return ops.var(self, axis=axis, correction=correction if ddof is None else ddof, keepdims=keepdims)

    def std(self, axis=None, correction=0.0, keepdims=False, ddof=None):
        return ops.std(self, axis=axis, correction=correction if ddof is None else ddof, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return ops.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return ops.min(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return ops.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return ops.all(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        return ops.cumulative_sum(self if axis is not None else ops.reshape(self, (-1,)),
                                  axis=axis if axis is not None else 0, dtype=dtype)

    def conj(self):
        return ops.conj(self)

    def clip(self, min=None, max=None):
        return ops.clip(self, min, max)

    # -- indexing ------------------------------------------------------------------------------------------
    def __getitem__(self, key):
        return ops.getitem(self, key)

    def __setitem__(self, key, value):
        if self._readonly:
            raise ValueError("assignment destination is read-only")
        ops.setitem(self, key, value)

    # -- operators ---------------------------------------------------------------------------------------
    # x + y, x < y and the other binary operators but ** are ArrayBase's (C: `ops.binop` called
    # without a Python frame); the in-place ones and ** are here
    def __iadd__(self, o): return ops.inplace("add", self, o)
    def __isub__(self, o): return ops.inplace("subtract", self, o)
    def __imul__(self, o): return ops.inplace("multiply", self, o)
    def __itruediv__(self, o): return ops.inplace("divide", self, o)
    def __ifloordiv__(self, o): return ops.inplace("floor_divide", self, o)
    def __imod__(self, o): return ops.inplace("remainder", self, o)
    def __pow__(self, o): return ops.binop("pow", self, o)
    def __rpow__(self, o): return ops.binop("pow", o, self)
    def __ipow__(self, o): return ops.inplace("pow", self, o)
    def __iand__(self, o): return ops.inplace("bitwise_and", self, o)
    def __ior__(self, o): return ops.inplace("bitwise_or", self, o)
    def __ixor__(self, o): return ops.inplace("bitwise_xor", self, o)
    def __ilshift__(self, o): return ops.inplace("bitwise_left_shift", self, o)
    def __irshift__(self, o): return ops.inplace("bitwise_right_shift", self, o)
    def __neg__(self): return ops.negative(self)
    def __pos__(self): return ops.positive(self)
    def __abs__(self): return ops.abs(self)
    def __invert__(self): return ops.bitwise_invert(self)

    def __matmul__(self, o):
        return ops.matmul(self, o) if isinstance(o, ndarray) else NotImplemented

    def __rmatmul__(self, o):
        return ops.matmul(o, self) if isinstance(o, ndarray) else NotImplemented

    def __imatmul__(self, o):
        if not isinstance(o, ndarray):
            return NotImplemented
        r = ops.matmul(self, o)
        if r.shape != self.shape:
            raise ValueError(f"in-place matmul would change the shape {self.shape} to {r.shape}")
        self[...] = r
        return self

    __hash__ = None

    # -- interchange ---------------------------------------------------------------------------------------
    def __array_namespace__(self, /, *, api_version=None):
        """hip.tensor (array API 2025.12), or as an earlier `api_version` states it."""
        return ops.array_namespace(api_version)

    def __dlpack_device__(self):
        return _interop.dlpack_device(self._device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array (a copy when copy=True; the host's with dl_device=(1, 0))."""
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            if tuple(dl_device)[0] == 1:       # kDLCPU: the consumer wants host memory
                if copy is False:
                    raise BufferError("a device array reaches the host only by a copy (copy=False given)")
                host = self.get()
                return host.__dlpack__(max_version=max_version) if max_version else host.__dlpack__()
            raise BufferError(f"cannot export to DLPack device {dl_device}")
        src = self.copy() if copy else self
        n = src.itemsize
        if any(s % n for s in src._strides):
            src = src.copy()
        return _interop.export_dlpack(src, src.ptr, src._shape, tuple(s // n for s in src._strides),
                                      src._dtype.name, src._device_id, stream=stream, max_version=max_version,
                                      readonly=src._readonly)

    @property
    def __cuda_array_interface__(self) -> dict:
        if self._dtype is _dt.bfloat16:
            raise AttributeError("bfloat16 has no __cuda_array_interface__ type string; use __dlpack__")
        s = current_stream(self._device_id).ptr
        return {"shape": self._shape, "typestr": self._dtype.numpy.str,
                "data": (self._ptr if self.size else 0, self._readonly), "version": 3,
                "strides": None if self.is_c_contiguous else self._strides,
                "stream": s if s else 1}

    # -- printing --------------------------------------------------------------------------------------------
    def __repr__(self):
        body = np.array2string(self.get(), separator=", ", prefix="array(")
        return f"array({body}, dtype={self._dtype.name})"

    def __str__(self):
        return np.array2string(self.get())


def _unpickle(host: np.ndarray, dtype_name: str) -> "ndarray":
    return ops.namespace.asarray(host, dtype=dtype_name)


def _as_index(i) -> int:
    return operator.index(i)


_bind_array(ndarray, current_stream, c_layout)   # the launch packer reads an ndarray's address in C
