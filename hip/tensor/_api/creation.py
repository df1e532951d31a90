"""Array creation: the array API's creation functions, NumPy/DLPack/CAI import, and `asnumpy`."""
from __future__ import annotations

import math
import operator

import numpy as np

from .._core import dtypes as _dt
from .._core import interop as _interop
from .._core.array import ndarray
from .._core.device import Device, current_stream, get_device_id
from .._core.memory import memcpy, memset
from .._core.shapes import as_shape
from .._kernels.copy import copy_kernel
from .._kernels.elementwise import ElementwiseKernel, scalar_value
from .manipulation import broadcast_to, reshape, stack

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "eye", "empty_like", "zeros_like",
           "ones_like", "full_like", "asarray", "from_dlpack", "asnumpy", "meshgrid", "tril", "triu"]


def _device_id(device) -> int:
    if device is None:
        return get_device_id()
    if isinstance(device, str):
        raise ValueError(f"unknown device {device!r}: pass an ordinal or a hip.tensor Device")
    return Device(device).id


def _dtype_or(dtype, default: _dt.DType) -> _dt.DType:
    return default if dtype is None else _dt.dtype(dtype)


def empty(shape, *, dtype=None, device=None) -> ndarray:
    """An uninitialized array (default dtype float64)."""
    return ndarray._empty(as_shape(shape), _dtype_or(dtype, _dt.default_float), _device_id(device))


def zeros(shape, *, dtype=None, device=None) -> ndarray:
    a = empty(shape, dtype=dtype, device=device)
    _memset0(a)
    return a


def _memset0(a: ndarray) -> None:
    if a.nbytes:
        memset(a.ptr, 0, a.nbytes, current_stream(a.device_id))


def _fill(a: ndarray, value) -> ndarray:
    """Every element of `a` set to the Python/NumPy scalar `value` (cast as NumPy would)."""
    if a.size:
        copy_kernel()(scalar_value(value, a.dtype), a)
    return a


def ones(shape, *, dtype=None, device=None) -> ndarray:
    return _fill(empty(shape, dtype=dtype, device=device), 1)


def _scalar_dtype(v) -> _dt.DType:
    if isinstance(v, ndarray):
        raise TypeError("fill_value must be a scalar, not an array")
    if isinstance(v, np.generic):
        return _dt.dtype(v.dtype)
    if isinstance(v, (bool, int, float, complex)):
        return _dt.result_type(v)
    raise TypeError(f"fill_value must be a scalar, got {type(v).__name__}")


def full(shape, fill_value, *, dtype=None, device=None) -> ndarray:
    """An array of `fill_value` (dtype: from the value when not given)."""
    d = _scalar_dtype(fill_value) if dtype is None else _dt.dtype(dtype)
    if dtype is not None:
        _scalar_dtype(fill_value)
    if d.kind in "iu" and isinstance(fill_value, int) and not isinstance(fill_value, bool):
        info = _dt.iinfo(d)
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"fill_value {fill_value} is out of bounds for {d.name}")
    return _fill(empty(shape, dtype=d, device=device), fill_value)


def _like(x, name, dtype, device, shape):
    """(shape, dtype, device) of a *_like result: x's unless given (`shape` is NumPy's keyword)."""
    _need_array(x, name)
    return (x.shape if shape is None else shape, x.dtype if dtype is None else dtype,
            x.device_id if device is None else device)


def empty_like(x, /, *, dtype=None, device=None, shape=None) -> ndarray:
    shape, dtype, device = _like(x, "empty_like", dtype, device, shape)
    return empty(shape, dtype=dtype, device=device)


def zeros_like(x, /, *, dtype=None, device=None, shape=None) -> ndarray:
    shape, dtype, device = _like(x, "zeros_like", dtype, device, shape)
    return zeros(shape, dtype=dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None, shape=None) -> ndarray:
    shape, dtype, device = _like(x, "ones_like", dtype, device, shape)
    return ones(shape, dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None, shape=None) -> ndarray:
    shape, dtype, device = _like(x, "full_like", dtype, device, shape)
    return full(shape, fill_value, dtype=dtype, device=device)


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


_arange_kernel = ElementwiseKernel("C start, C step", "Y y", "y = ht_cast<Y>(start + (C)i * step)", "ht_arange",
                                   vectorize=True)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> ndarray:
    """Evenly spaced values in [start, stop) (NumPy's length: ceil((stop - start) / step))."""
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if isinstance(v, (complex, np.complexfloating)) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"arange takes real scalars, got {v!r}")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    n = max(0, math.ceil((stop - start) / step))
    if dtype is None:
        d = _dt.result_type(*(v if not isinstance(v, np.generic) else v.item() for v in (start, stop, step)))
    else:
        d = _dt.dtype(dtype)
    out = ndarray._empty((n,), d, _device_id(device))
    if n:
        integral = all(isinstance(v, (int, np.integer)) for v in (start, step))
        c = _dt.int64 if d.kind in "biu" and integral else _dt.float64
        _arange_kernel(scalar_value(start, c), scalar_value(step, c), out, _bindings={"C": c, "Y": d})
    return out


_linspace_kernel = ElementwiseKernel(
    "C start, C step, C stop, int64 last", "Y y",
    "y = ht_cast<Y>(i == last ? stop : start + (C)(double)i * step)", "ht_linspace")


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) -> ndarray:
    """`num` evenly spaced values from start to stop (stop included when endpoint)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    cplx = any(isinstance(v, (complex, np.complexfloating)) for v in (start, stop))
    d = (_dt.default_complex if cplx else _dt.default_float) if dtype is None else _dt.dtype(dtype)
    out = ndarray._empty((num,), d, _device_id(device))
    if num:
        c = _dt.complex128 if (cplx or d.kind == "c") else _dt.float64
        div = (num - 1) if endpoint else num
        step = (stop - start) / div if div > 0 else 0.0
        _linspace_kernel(scalar_value(start, c), scalar_value(step, c), scalar_value(stop, c),
                         np.int64(num - 1 if endpoint and num > 1 else -1), out, _bindings={"C": c, "Y": d})
    return out


_eye_kernel = ElementwiseKernel("int64 cols, int64 k", "Y y", "y = ht_cast<Y>(i % cols - i / cols == k)", "ht_eye")


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None) -> ndarray:
    n_rows = operator.index(n_rows)
    n_cols = n_rows if n_cols is None else operator.index(n_cols)
    out = empty((n_rows, n_cols), dtype=dtype, device=device)
    if out.size:
        _eye_kernel(np.int64(n_cols), np.int64(operator.index(k)), out)
    return out


_tri_kernels = {
    name: ElementwiseKernel("X x, int64 rows, int64 cols, int64 k", "X y",
                            f"const long long c = i % cols, r = (i / cols) % rows; y = (c - r {op} k) ? x : X(0)",
                            f"ht_{name}")
    for name, op in (("tril", "<="), ("triu", ">="))
}


def _tri(name, x, k):
    _need_array(x, name)
    if x.ndim < 2:
        raise ValueError(f"{name} needs an array of at least 2 dimensions, got {x.ndim}")
    out = ndarray._empty(x.shape, x.dtype, x.device_id)
    if out.size:
        _tri_kernels[name](x, np.int64(x.shape[-2]), np.int64(x.shape[-1]), np.int64(operator.index(k)), out)
    return out


def tril(x, /, *, k=0) -> ndarray:
    """The lower triangle of the last two axes (elements above diagonal k are zero)."""
    return _tri("tril", x, k)


def triu(x, /, *, k=0) -> ndarray:
    """The upper triangle of the last two axes (elements below diagonal k are zero)."""
    return _tri("triu", x, k)


# -- from other data ----------------------------------------------------------------------------------
_GPU_DLPACK = (2, 10)          # kDLCUDA, kDLROCM


def _from_imported(imp) -> ndarray:
    d = _dt.dtype(imp.dtype_name)
    return ndarray._view_of(imp.owner, imp.ptr, imp.shape, imp.strides, d, imp.device_id, base=imp.owner,
                            readonly=imp.readonly)


def _host_to_device(host: np.ndarray, d: _dt.DType, device_id: int) -> ndarray:
    """Upload a NumPy array as dtype `d` (converted on the host first)."""
    if d is _dt.bfloat16:
        if host.dtype.kind == "c":
            host = host.real
        bits = _dt.float32_to_bfloat16_bits(host.astype(np.float32, copy=False)).reshape(host.shape)
        host = bits
    elif host.dtype != d.numpy:
        if host.dtype.kind == "c" and d.kind != "c":
            host = host.real
        with np.errstate(invalid="ignore", over="ignore"):
            host = host.astype(d.numpy)
    if not host.flags.c_contiguous:
        host = host.copy()                  # (np.ascontiguousarray would make 0-d arrays 1-d)
    out = ndarray._empty(host.shape, d, device_id)
    if host.nbytes:
        memcpy(out.ptr, host.ctypes.data, host.nbytes, "h2d", current_stream(device_id))
    return out


def asarray(obj, /, *, dtype=None, device=None, copy=None) -> ndarray:
    """An array from a hip.tensor array, a NumPy array, nested sequences, a scalar, or a device
    array of another library (DLPack or __cuda_array_interface__: a view unless copy=True)."""
    d = None if dtype is None else _dt.dtype(dtype)
    if isinstance(obj, ndarray):
        out = obj
        if device is not None and _device_id(device) != obj.device_id:
            if copy is False:
                raise ValueError("asarray: moving to another device needs a copy (copy=False given)")
            out, copy = out.to_device(_device_id(device)), False
        if d is not None and d is not out.dtype:
            if copy is False:
                raise ValueError(f"asarray: casting {out.dtype.name} to {d.name} needs a copy (copy=False given)")
            return out.astype(d)
        return out.copy() if copy else out
    foreign = _import_device_array(obj)
    if foreign is not None:
        return asarray(foreign, dtype=dtype, device=device, copy=copy)
    if isinstance(obj, (list, tuple)) and _holds_array(obj):
        # a sequence of hip.tensor arrays (and nested sequences, scalars) is stacked on the device
        if copy is False:
            raise ValueError("asarray: stacking a sequence of arrays needs a copy (copy=False given)")
        parts = [asarray(o, dtype=dtype, device=device) for o in obj]
        if d is None:
            d = _dt.result_type(*parts)
        return stack([p.astype(d, copy=False) for p in parts])
    if copy is False:
        raise ValueError("asarray: host data reaches the device only by a copy (copy=False given)")
    if isinstance(obj, (bool, int, float, complex, np.generic)) and d is not None and d.kind in "iu" \
            and isinstance(obj, int) and not isinstance(obj, bool):
        info = _dt.iinfo(d)
        if not info.min <= obj <= info.max:
            raise OverflowError(f"Python integer {obj} is out of bounds for {d.name}")
    try:
        host = np.asarray(obj)
    except (ValueError, TypeError) as e:
        raise TypeError(f"asarray: cannot make an array from {type(obj).__name__}: {e}") from None
    if host.dtype.kind in "OUSVMm":
        raise TypeError(f"asarray: {host.dtype} data is not supported")
    if d is None:
        d = _dt.dtype(host.dtype)
    return _host_to_device(host, d, _device_id(device))


def _holds_array(seq) -> bool:
    return any(isinstance(o, ndarray) or isinstance(o, (list, tuple)) and _holds_array(o) for o in seq)


def _import_device_array(obj):
    """A view of another library's device array, or None for host data."""
    if isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__") and not hasattr(obj, "__cuda_array_interface__"):
        return None
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        dev_type = int(obj.__dlpack_device__()[0])
        if dev_type in _GPU_DLPACK:
            return _from_imported(_interop.import_dlpack(obj))
        if not hasattr(obj, "__cuda_array_interface__"):
            return None
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_imported(_interop.import_cai(obj))
    return None


def from_dlpack(x, /, *, device=None, copy=None) -> ndarray:
    """An array from a DLPack producer: a view of device memory (a copy when copy=True or when
    the producer's memory is on the host)."""
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} has no __dlpack__")
    dev_type = int(x.__dlpack_device__()[0]) if hasattr(x, "__dlpack_device__") else None
    if dev_type is not None and dev_type not in _GPU_DLPACK:
        if copy is False:
            raise BufferError("from_dlpack: host memory reaches the device only by a copy (copy=False given)")
        return asarray(np.from_dlpack(x), device=device)
    a = _from_imported(_interop.import_dlpack(x))
    return asarray(a, device=device, copy=copy)


def asnumpy(a, stream=None) -> np.ndarray:
    """A NumPy array of `a` (copied from the device for hip.tensor arrays)."""
    if isinstance(a, ndarray):
        return a.get(stream=stream)
    return np.asarray(a)


def meshgrid(*arrays, indexing: str = "xy") -> tuple[ndarray, ...]:
    """Coordinate matrices from 1-d arrays ('xy': Cartesian, 'ij': matrix indexing), a tuple
    (2025.12, as NumPy 2; a list in earlier versions' namespaces)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    for a in arrays:
        _need_array(a, "meshgrid")
        if a.ndim != 1:
            raise ValueError("meshgrid takes 1-d arrays")
    if len({a.dtype for a in arrays}) > 1:
        raise ValueError("meshgrid: the arrays must share one dtype")
    n = len(arrays)
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        pos = i
        if indexing == "xy" and n > 1 and i < 2:
            pos = 1 - i
        s = [1] * n
        s[pos] = a.shape[0]
        out.append(broadcast_to(reshape(a, tuple(s)), tuple(shape)).copy())
    return tuple(out)
