"""Data types and the one type-promotion table of `hip.tensor`.

The table is the array API standard's (2023.12) within a kind, and NumPy 2's rules where the
standard is silent (integers with floats, unsigned 64-bit with signed, Python scalars are weak).
bfloat16 (no NumPy dtype) promotes like float16 with integers, float16 + bfloat16 -> float32.
"""
from __future__ import annotations

import numpy as np

from ._array import DTypeBase

__all__ = [
    "DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "dtype", "result_type", "can_cast", "finfo", "iinfo", "isdtype",
    "default_int", "default_float", "default_complex",
]

_builtin_bool = bool


class DType(DTypeBase):
    """One element type: its name, size, kind ('b', 'i', 'u', 'f', 'c'), the NumPy dtype that
    holds it on the host (bfloat16: its uint16 bits) and the C++ type naming it in kernels."""

    __slots__ = ()      # the fields are DTypeBase's (_core/_array.pyx: the per-op path reads them in C)

    def __init__(self, name: str, itemsize: int, kind: str, numpy_dtype: str, ctype: str, rank: int):
        self.name = name
        self.itemsize = itemsize
        self.kind = kind
        self.numpy = np.dtype(numpy_dtype)
        self.ctype = ctype
        self._rank = rank          # order inside its kind (precision)

    def __repr__(self):
        return f"hip.tensor.{self.name}"

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        if other is None:       # dtype(None) is the default float, but no dtype equals None
            return False
        try:
            return dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (dtype, (self.name,))

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype of the same type, which makes `np.dtype(ht.float32)` work (NumPy reads an
        object's `.dtype`); bfloat16 has none (AttributeError)."""
        if self is bfloat16:
            raise AttributeError("NumPy has no bfloat16 dtype")
        return self.numpy

    @property
    def type(self) -> type:
        """NumPy's scalar type of this dtype (`np.float32` for float32), as `numpy.dtype.type`."""
        return self.dtype.type

    @property
    def bits(self) -> int:
        return 8 * self.itemsize

    @property
    def is_floating(self) -> _builtin_bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> _builtin_bool:
        return self.kind == "c"

    @property
    def is_integer(self) -> _builtin_bool:
        return self.kind in "iu"

    @property
    def real_dtype(self) -> "DType":
        """complex64 -> float32, complex128 -> float64, others themselves."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)


bool = DType("bool", 1, "b", "bool", "bool", 0)
int8 = DType("int8", 1, "i", "int8", "signed char", 1)
int16 = DType("int16", 2, "i", "int16", "short", 2)
int32 = DType("int32", 4, "i", "int32", "int", 3)
int64 = DType("int64", 8, "i", "int64", "long long", 4)
uint8 = DType("uint8", 1, "u", "uint8", "unsigned char", 1)
uint16 = DType("uint16", 2, "u", "uint16", "unsigned short", 2)
uint32 = DType("uint32", 4, "u", "uint32", "unsigned int", 3)
uint64 = DType("uint64", 8, "u", "uint64", "unsigned long long", 4)
float16 = DType("float16", 2, "f", "float16", "ht_half", 1)
bfloat16 = DType("bfloat16", 2, "f", "uint16", "ht_bfloat16", 1)
float32 = DType("float32", 4, "f", "float32", "float", 2)
float64 = DType("float64", 8, "f", "float64", "double", 3)
complex64 = DType("complex64", 8, "c", "complex64", "ht_complex64", 2)
complex128 = DType("complex128", 16, "c", "complex128", "ht_complex128", 3)

ALL = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       float16, bfloat16, float32, float64, complex64, complex128)
_BY_NAME = {d.name: d for d in ALL}
_BY_NUMPY = {d.numpy: d for d in ALL if d is not bfloat16}
_SIGNED = {1: int8, 2: int16, 4: int32, 8: int64}
_UNSIGNED = {1: uint8, 2: uint16, 4: uint32, 8: uint64}
_FLOAT = {2: float16, 4: float32, 8: float64}
_COMPLEX_OF = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}

default_int = int64
default_float = float64
default_complex = complex128


def dtype(x) -> DType:
    """Normalize a dtype spelling (DType, name, NumPy dtype or scalar type, Python type) to a DType."""
    if isinstance(x, DType):
        return x
    if x is None:
        return default_float
    if isinstance(x, str):
        d = _BY_NAME.get(x)
        if d is not None:
            return d
    if x is _builtin_bool:
        return bool
    if x is int:
        return default_int
    if x is float:
        return default_float
    if x is complex:
        return default_complex
    dt = getattr(x, "dtype", None)        # arrays of any library: their dtype
    if dt is not None and not isinstance(x, type):
        return dtype(dt)
    try:
        nd = np.dtype(x)
    except TypeError:
        raise TypeError(f"data type not understood: {x!r}") from None
    if nd.name == "bfloat16":             # ml_dtypes' bfloat16, where present
        return bfloat16
    d = _BY_NUMPY.get(nd.newbyteorder("=") if nd.byteorder not in "=|" else nd)
    if d is None:
        raise TypeError(f"hip.tensor has no data type for {nd} (supported: "
                        f"{', '.join(d.name for d in ALL)})")
    return d


def _int_float(d: DType) -> DType:
    """The smallest float NumPy gives an integer type meeting a float (int8 -> float16, ...)."""
    return float16 if d.itemsize == 1 else float32 if d.itemsize == 2 else float64


def _promote_pair(a: DType, b: DType) -> DType:
    if a is b:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    ka, kb = a.kind, b.kind
    if ka in "iu" and kb in "iu":
        if ka == kb:
            return a if a.itemsize >= b.itemsize else b
        s, u = (a, b) if ka == "i" else (b, a)
        if s.itemsize > u.itemsize:
            return s
        if u.itemsize == 8:
            return float64                  # NumPy: uint64 with any signed integer
        return _SIGNED[2 * u.itemsize]
    if ka in "iu" or kb in "iu":            # integer with float or complex
        i, f = (a, b) if ka in "iu" else (b, a)
        g = _int_float(i)
        if g is float16 and f is bfloat16:
            g = bfloat16                    # int8/uint8 keep bfloat16, as float16
        if f.kind == "c":
            return _promote_pair(_COMPLEX_OF[g], f)
        return _promote_pair(g, f)
    if ka == "f" and kb == "f":
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    c, o = (a, b) if ka == "c" else (b, a)
    if o.kind == "c":
        return a if a.itemsize >= b.itemsize else b
    return complex128 if (c is complex128 or o is float64) else complex64


_TABLE = {(a, b): _promote_pair(a, b) for a in ALL for b in ALL}


def promote_types(a, b) -> DType:
    """The promotion of two dtypes (the table)."""
    return _TABLE[(dtype(a), dtype(b))]


def _scalar_kind(x) -> str | None:
    if isinstance(x, _builtin_bool):
        return "b"
    if isinstance(x, int):
        return "i"
    if isinstance(x, float):
        return "f"
    if isinstance(x, complex):
        return "c"
    return None


def _weak(d: DType, kind: str, value=None) -> DType:
    """Array dtype `d` meeting a Python scalar of `kind` (NumPy 2 / array API weak scalars)."""
    if kind == "b":
        return d
    if kind == "i":
        if d.kind == "b":
            return default_int
        if d.kind in "iu" and value is not None:
            info = np.iinfo(d.numpy)
            if not (info.min <= value <= info.max):
                raise OverflowError(f"Python integer {value} out of bounds for {d.name}")
        return d
    if kind == "f":
        return default_float if d.kind in "biu" else d
    # complex
    if d.kind in "biu":
        return default_complex
    return _COMPLEX_OF.get(d, d)


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype of an operation on these arrays, dtypes and Python scalars (scalars are weak)."""
    strong = None
    scalars = []
    for x in arrays_and_dtypes:
        k = _scalar_kind(x)
        if k is not None:
            scalars.append((k, x))
            continue
        d = dtype(x)
        strong = d if strong is None else _TABLE[(strong, d)]
    if strong is None:
        if not scalars:
            raise ValueError("at least one array, dtype or scalar is required")
        kinds = {k for k, _ in scalars}
        strong = (default_complex if "c" in kinds else default_float if "f" in kinds
                  else default_int if "i" in kinds else bool)
        return strong
    for k, v in scalars:
        strong = _weak(strong, k, v if k == "i" else None)
    return strong


_as_dtype = dtype   # for functions whose array API parameter is named `dtype`


def can_cast(from_, to, /) -> _builtin_bool:
    """Whether promotion of `from_` with `to` gives `to` (the array API's can_cast)."""
    f, t = dtype(getattr(from_, "dtype", from_)), dtype(to)
    return _TABLE[(f, t)] is t


def isdtype(dtype, kind) -> _builtin_bool:   # the array API's parameter names
    """The array API's isdtype: a kind name, a dtype, or a tuple of those."""
    d = _as_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(d, k) for k in kind)
    if isinstance(kind, str):
        table = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
                 "real floating": "f", "complex floating": "c", "numeric": "iufc"}
        if kind not in table:
            raise ValueError(f"unknown dtype kind {kind!r}")
        return d.kind in table[kind]
    return d is _as_dtype(kind)


class finfo:
    """Machine limits of a floating dtype (bfloat16 included)."""

    def __init__(self, type, /):   # the array API's parameter name
        d = dtype(getattr(type, "dtype", type))
        if d.kind not in "fc":
            raise ValueError(f"finfo needs a floating or complex dtype, got {d.name}")
        r = d.real_dtype
        self.dtype = r
        if r is bfloat16:
            self.bits, self.eps = 16, 2.0 ** -7
            self.max = float.fromhex("0x1.fep127")
            self.min = -self.max
            self.smallest_normal = 2.0 ** -126
            self.resolution = 0.01
        else:
            i = np.finfo(r.numpy)
            self.bits, self.eps = int(i.bits), float(i.eps)
            self.max, self.min = float(i.max), float(i.min)
            self.smallest_normal = float(i.smallest_normal)
            self.resolution = float(i.resolution)
        self.tiny = self.smallest_normal

    def __repr__(self):
        return f"finfo(dtype={self.dtype.name}, bits={self.bits}, eps={self.eps}, max={self.max})"


class iinfo:
    """Limits of an integer dtype."""

    def __init__(self, type, /):
        d = dtype(getattr(type, "dtype", type))
        if d.kind not in "iu":
            raise ValueError(f"iinfo needs an integer dtype, got {d.name}")
        i = np.iinfo(d.numpy)
        self.dtype, self.bits, self.min, self.max = d, int(i.bits), int(i.min), int(i.max)

    def __repr__(self):
        return f"iinfo(dtype={self.dtype.name}, min={self.min}, max={self.max})"


# -- host conversions of bfloat16 (its bits live in uint16 arrays) ------------------------------
def float32_to_bfloat16_bits(a) -> np.ndarray:
    """Round float32 values to bfloat16 (nearest, ties to even; NaN stays NaN) -> uint16 bits."""
    shape = np.shape(a)
    a = np.ascontiguousarray(a, dtype=np.float32).reshape(-1)
    u = a.view(np.uint32)
    rounded = ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16))
    nan = np.isnan(a)
    out = rounded.astype(np.uint16)
    if nan.any():
        out[nan] = ((u[nan] >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16)
    return out.reshape(shape)


def bfloat16_bits_to_float32(bits) -> np.ndarray:
    """uint16 bfloat16 bits -> float32 values (exact)."""
    shape = np.shape(bits)
    b = np.ascontiguousarray(bits, dtype=np.uint16).reshape(-1)
    return (b.astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(shape)
