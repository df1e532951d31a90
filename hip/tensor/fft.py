"""`hip.tensor.fft`: discrete Fourier transforms through hipFFT (rocFFT on AMD, cuFFT on the nvidia
platform), with `numpy.fft`'s functions, arguments and results.

    X = ht.fft.fft(x)                       # along the last axis
    Y = ht.fft.rfftn(img, axes=(-2, -1), norm="ortho")

Types (NumPy 2's): float16, bfloat16 and float32 transform in single precision (complex64), other
real types and complex128 in double (complex128); irfft returns the input's real type (float16
stays float16, integers give float64). `norm` is "backward" (default), "ortho" or "forward".

How: the input is cast, cropped or zero-padded to `n`/`s` along the transformed axes; the transform
is one batched hipFFT plan (hipfftMakePlanMany, rank <= 3: more axes take several passes), out of
place, on the input as it lies in memory: hipFFT's advanced layout (strides, distances, embeds:
`_libs.fft_layout`) addresses any axis of a C-contiguous array and most strided views, with one call
per index of a batch axis that does not fold into the plan's batch (a few calls at most). The
output is allocated in the input's memory order (C-contiguous for C-contiguous input). Layouts it
cannot express (reversed axes, many calls, misaligned addresses) and c2r inputs (hipFFT overwrites
them) are copied with the transformed axes last first. The norm's factor is a separate pass, only
where it is not 1 ("backward" forward transforms have none). irfftn is NumPy's sequence (inverse
c2c transforms over all axes but the last, then a 1-d c2r transform), so input that is not
Hermitian gives NumPy's result. Axes named twice are transformed twice, as NumPy does.

Plans are cached per (device, stream, type, layout: lengths, embeds, strides, distances, batch),
least recently used first out; a plan is bound to its stream once (hipfftSetStream at creation) and
each use hands it a work area from hip.tensor's allocator (hipfftSetAutoAllocation(0); hipfftSetWorkArea
only when the block's address changed), returned in stream order after the call.
"""
from __future__ import annotations

import functools
import math
import operator
import threading
from collections import OrderedDict

from hip.errors import HipError, check

from ._api.creation import asarray as _asarray, zeros as _zeros
from ._api.elementwise import conj as _conj
from ._api.manipulation import permute_dims, roll as _roll
from ._core import dtypes as _dt
from ._core.array import ndarray
from ._core.device import current_stream
from ._core.memory import alloc
from ._core.shapes import normalize_axis, prod
from ._kernels.elementwise import _on_device
from ._libs.fft_layout import plan_layout
from ._libs.loader import library

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "clear_plan_cache", "plan_cache_info"]

NORMS = ("backward", "ortho", "forward")
RANK_MAX = 3                    # hipFFT plans transform at most 3 axes
_INT_MAX = 2 ** 31 - 1          # hipfftMakePlanMany's lengths, distances and batch are C ints
_ALIGN = 16                     # input addresses are copied when not aligned to this (cuFFT's rule for vectors)


class FFTError(HipError):
    """A hipFFT call failed: `.status` (its hipfftResult_t), `.library`, `.function`."""


def _lib():
    return library("hipfft")


# -- argument rules (pure Python: the CPU tests check them against numpy.fft) --------------------------
def norm_mode(norm) -> str:
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".')
    return norm


def scale_factor(norm, n: int, forward: bool) -> float:
    """The factor the unnormalized transform of logical length n is multiplied by."""
    norm = norm_mode(norm)
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "forward") == forward:
        return 1.0 / n
    return 1.0


def half_factor(norm, n: int, forward: bool) -> float:
    """NumPy's factor for a float16 input: numpy.fft computes it in the input's real precision
    (result_type(float16, 1.0) is float16), rounding 1/n or 1/sqrt(n) to float16; passes over its
    complex64 results compute it in float32 again."""
    import numpy as np
    norm = norm_mode(norm)
    with np.errstate(over="ignore", divide="ignore"):
        if norm == "ortho":
            return float(np.reciprocal(np.sqrt(np.float16(n))))
        if (norm == "forward") == forward:
            return float(np.reciprocal(np.float16(n)))
    return 1.0


def _length(n, what: str = "n") -> int:
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"{what} must be an int, got {type(n).__name__}")
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def cook_1d(shape, n, axis) -> tuple[int, int]:
    """(n, axis) of a 1-d transform of an array of `shape` (n None: the axis' length)."""
    ax = normalize_axis(axis, len(shape))
    return _length(shape[ax] if n is None else n), ax


def cook_nd(shape, s=None, axes=None, invreal: bool = False) -> tuple[list[int], list[int]]:
    """numpy.fft's `_cook_nd_args`: the lengths and (normalized) axes of an n-d transform.
    s None: the axes' lengths (irfftn: 2 * (m - 1) on the last); axes None: the last len(s) axes,
    or all; an s entry -1 means the axis' length."""
    ndim = len(shape)
    if axes is not None:
        axes = [normalize_axis(a, ndim) for a in ([axes] if hasattr(axes, "__index__") else axes)]
    if s is None:
        shapeless = True
        s = [shape[a] for a in axes] if axes is not None else list(shape)
    else:
        shapeless = False
        s = [s] if hasattr(s, "__index__") else list(s)
    if axes is None:
        if len(s) > ndim:
            raise ValueError(f"s has {len(s)} entries, the array only {ndim} dimensions")
        axes = list(range(ndim - len(s), ndim))
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if not axes:
        raise ValueError("no axes to transform")
    if invreal and shapeless:
        s[-1] = (shape[axes[-1]] - 1) * 2
    out = []
    for v, a in zip(s, axes):
        if v is None or (hasattr(v, "__index__") and not isinstance(v, bool) and operator.index(v) == -1):
            v = shape[a]
        out.append(_length(v, "s entries"))
    return out, axes


def complex_type(d: _dt.DType) -> _dt.DType:
    """The complex type a transform of `d` computes in (NumPy 2: single precision stays single)."""
    if d.kind == "c":
        return d
    return _dt.complex64 if d.name in ("float16", "bfloat16", "float32") else _dt.complex128


def real_type(d: _dt.DType, what: str) -> _dt.DType:
    """The real type an r2c transform of `d` computes in (complex input is a TypeError)."""
    if d.kind == "c":
        raise TypeError(f"{what} needs real input, got {d.name}")
    return _dt.float32 if d.name in ("float16", "bfloat16", "float32") else _dt.float64


def irfft_result_type(d: _dt.DType) -> _dt.DType:
    """irfft's output type: NumPy's result_type(real part, 1.0)."""
    if d.kind == "c":
        return _dt.float32 if d is _dt.complex64 else _dt.float64
    return d if d.kind == "f" else _dt.float64


def output_shape(kind: str, shape, s, axes) -> tuple[int, ...]:
    """The result's shape of an n-d transform (kind 'c2c', 'r2c' or 'c2r') of lengths s on axes."""
    out = list(shape)
    if kind == "c2r":                               # NumPy's irfftn: the last axis last
        for n, a in zip(s, axes):
            out[a] = n
        return tuple(out)
    if kind == "r2c":
        out[axes[-1]] = s[-1] // 2 + 1
        s, axes = s[:-1], axes[:-1]
    for n, a in reversed(list(zip(s, axes))):       # an axis named twice: its first entry is applied last
        out[a] = n
    return tuple(out)


def groups(axes) -> list[list[int]]:
    """Axes in passes of at most RANK_MAX, the last axes first (the order NumPy transforms in)."""
    return [list(axes[max(0, i - RANK_MAX):i]) for i in range(len(axes), 0, -RANK_MAX)]


# -- plans ------------------------------------------------------------------------------------------
_lock = threading.RLock()
_plans: "OrderedDict[tuple, _Plan]" = OrderedDict()
PLAN_CACHE_SIZE = 32
_EXEC = {"c2c": ("C2C", "Z2Z"), "r2c": ("R2C", "D2Z"), "c2r": ("C2R", "Z2D")}


class _Plan:
    __slots__ = ("handle", "work_size", "work_ptr", "exec_fn", "device_id", "lock")

    def __init__(self, key, stream):
        device_id, _, kind, double, (n, inembed, istride, idist, onembed, ostride, odist, batch) = key
        F = _lib()
        name = _EXEC[kind][double]
        h = check(F.hipfftCreate(), "hipfftCreate", FFTError)
        try:
            check(F.hipfftSetAutoAllocation(h, 0), "hipfftSetAutoAllocation", FFTError)
            # the advanced layout (inembed/onembed given): strides and distances as _fft_layout planned
            self.work_size = check(F.hipfftMakePlanMany(
                h, len(n), list(n), list(inembed), istride, idist, list(onembed), ostride, odist,
                getattr(F.hipfftType_t, f"HIPFFT_{name}"), batch), "hipfftMakePlanMany", FFTError)
            # a plan serves one stream (the stream is in its key): bound once, not per call
            check(F.hipfftSetStream(h, stream.ptr), "hipfftSetStream", FFTError)
        except BaseException:
            F.hipfftDestroy(h)
            raise
        self.handle, self.exec_fn, self.device_id = h, getattr(F, "hipfftExec" + name), device_id
        self.work_ptr = None
        self.lock = threading.Lock()

    def execute(self, stream, pairs, direction) -> None:
        """One hipFFT call per (input, output) address pair, queued on the plan's stream."""
        h, fn = self.handle, self.exec_fn
        with self.lock:         # the work area is the plan's state until the calls are queued
            work = alloc(self.work_size, stream) if self.work_size else None
            # the pool hands this stream the same block call after call: set it only when it moves
            if work is not None and work.ptr != self.work_ptr:
                check(_lib().hipfftSetWorkArea(h, work.ptr), "hipfftSetWorkArea", FFTError)
                self.work_ptr = work.ptr
            for src, dst in pairs:
                check(fn(h, src, dst) if direction is None else fn(h, src, dst, direction), fn.__name__, FFTError)
        # `work` returns to the pool here: reused on this stream only after the transform, in order

    def destroy(self) -> None:
        try:
            _lib().hipfftDestroy(self.handle)
        except Exception:       # interpreter shutdown: the process frees it
            pass


def _get_plan(key, stream) -> _Plan:
    with _lock:
        p = _plans.get(key)
        if p is not None:
            _plans.move_to_end(key)
            return p
        p = _plans[key] = _Plan(key, stream)
        while len(_plans) > PLAN_CACHE_SIZE:
            _plans.popitem(last=False)[1].destroy()
        return p


def clear_plan_cache() -> None:
    """Destroy every cached plan."""
    with _lock:
        while _plans:
            _plans.popitem(last=False)[1].destroy()


def plan_cache_info() -> dict:
    """{'size': plans cached, 'max_size': PLAN_CACHE_SIZE, 'keys': their keys, oldest first}."""
    with _lock:
        return {"size": len(_plans), "max_size": PLAN_CACHE_SIZE, "keys": list(_plans)}


# -- execution ----------------------------------------------------------------------------------------
def _need_array(x, what: str):
    if not isinstance(x, ndarray):
        raise TypeError(f"{what}: expected a hip.tensor array, got {type(x).__name__} (ht.asarray copies one)")


def _resize(x, axis: int, n: int):
    """x cropped (a view) or zero-padded (a new array) to length n along `axis`."""
    m = x.shape[axis]
    if n == m:
        return x
    if n < m:
        return x[(slice(None),) * axis + (slice(0, n),)]
    shape = list(x.shape)
    shape[axis] = n
    out = _zeros(tuple(shape), dtype=x.dtype, device=x.device_id)
    out[(slice(None),) * axis + (slice(0, m),)] = x
    return out


def _prepare(x, d: _dt.DType, axes, lengths):
    if x.dtype is not d:
        x = x.astype(d)
    for a, n in zip(axes, lengths):
        x = _resize(x, a, n)
    return x


@functools.lru_cache(maxsize=256)
def _layout(kind: str, shape, strides, itemsize: int, axes, n_last):
    """_fft_layout's plan for x's layout as it is (strides in bytes), or None: strides that are not
    whole elements, or a call's address offset that breaks cuFFT's alignment (the base address is
    checked per call)."""
    if any(st % itemsize for st in strides):
        return None
    lay = plan_layout(kind, shape, tuple(st // itemsize for st in strides), axes, n_last)
    osize = 2 * itemsize if kind == "r2c" else itemsize // 2 if kind == "c2r" else itemsize
    if lay is None or any((i * itemsize) % _ALIGN or (o * osize) % _ALIGN for i, o in lay.calls):
        return None
    return lay


def _transform(x, axes, kind: str, forward: bool, norm: str, n_last: int | None = None, half: bool = False):
    """One hipFFT pass over `axes` (distinct, at most RANK_MAX) of x, already of the transform's
    type and lengths (c2r: n_last//2+1 values on the last axis, n_last the logical length).
    half: the caller's input was float16 (NumPy's factor for the last axis: half_factor)."""
    nd, axes = x.ndim, tuple(axes)
    n_half = x.shape[axes[-1]] if half else 0
    lay = perm = None
    if kind != "c2r" and not x.ptr % _ALIGN:       # in place as it lies (hipFFT's advanced layout)
        lay = _layout(kind, x.shape, x.strides, x.itemsize, axes, None)
    if lay is None:                                 # else a copy with the axes last
        perm = [a for a in range(nd) if a not in axes] + list(axes)
        xt = permute_dims(x, tuple(perm)) if perm != list(range(nd)) else x
        # c2r transforms overwrite their input: they always get a private copy
        if kind == "c2r" or not xt.is_c_contiguous or xt.ptr % _ALIGN:
            xt = xt.copy()
        if kind == "c2r":
            # NumPy (pocketfft) ignores the imaginary parts of the zero and (n even) Nyquist frequencies;
            # what c2r libraries do with them is undefined: they are zeroed
            for j in (0, n_last // 2) if n_last % 2 == 0 else (0,):
                if j < xt.shape[-1] and xt.size:
                    xt[..., j] = xt[..., j].real
        x, k = xt, nd - len(axes)
        lay = _layout(kind, x.shape, x.strides, x.itemsize, tuple(range(k, nd)), n_last)
        if lay is None:
            raise ValueError(f"FFT of lengths {x.shape[k:]} and batch {prod(x.shape[:k])} is too large "
                             "for hipFFT's 32-bit plans")
    if kind == "c2c":
        out_dtype = x.dtype
    elif kind == "r2c":
        out_dtype = complex_type(x.dtype)
    else:
        out_dtype = irfft_result_type(x.dtype)
    out = ndarray._empty(lay.alloc_shape, out_dtype, x.device_id)
    if lay.calls:
        double = out_dtype is _dt.complex128 or out_dtype is _dt.float64
        with _on_device(x.device_id):
            stream = current_stream(x.device_id)
            plan = _get_plan((x.device_id, stream.uid, kind, int(double), lay.plan), stream)
            F = _lib()
            direction = None if kind != "c2c" else (F.HIPFFT_FORWARD if forward else F.HIPFFT_BACKWARD)
            ip, isz, op, osz = x.ptr, x.itemsize, out.ptr, out_dtype.itemsize
            plan.execute(stream, [(ip + i * isz, op + o * osz) for i, o in lay.calls], direction)
            n = prod(lay.plan[0])
            f = scale_factor(norm, n, forward)
            if half:
                f = half_factor(norm, n_half, forward) * scale_factor(norm, n // n_half, forward)
            if f != 1.0:                            # "backward" forward transforms need no pass
                out *= f
    if lay.order != tuple(range(nd)):               # the output was allocated in the input's order
        out = permute_dims(out, tuple(lay.order.index(a) for a in range(nd)))
    if perm is not None and perm != list(range(nd)):
        inverse = [0] * nd
        for i, a in enumerate(perm):
            inverse[a] = i
        out = permute_dims(out, tuple(inverse))
    return out


def _c2c(x, s, axes, forward: bool, norm: str):
    if len(set(axes)) != len(axes):         # NumPy: one 1-d transform per entry, the last first
        for i in reversed(range(len(axes))):
            x = _c2c(x, [s[i]], [axes[i]], forward, norm)
        return x
    half = x.dtype is _dt.float16
    x = _prepare(x, complex_type(x.dtype), axes, s)
    for i, g in enumerate(groups(axes)):
        x = _transform(x, g, "c2c", forward, norm, half=half and i == 0)
    return x


def _r2c(x, s, axes, norm: str, what: str):
    d = real_type(x.dtype, what)
    if len(set(axes)) != len(axes):         # NumPy's rfftn: rfft on the last axis, then fft on the others
        x = _r2c(x, [s[-1]], [axes[-1]], norm, what)
        for i in reversed(range(len(axes) - 1)):
            x = _c2c(x, [s[i]], [axes[i]], True, norm)
        return x
    half = x.dtype is _dt.float16
    x = _prepare(x, d, axes, s)
    first, *others = groups(axes)
    x = _transform(x, first, "r2c", True, norm, half=half)
    for g in others:
        x = _transform(x, g, "c2c", True, norm)
    return x


def _c2r(x, s, axes, norm: str):
    result = irfft_result_type(x.dtype)
    if len(axes) > 1:
        x = _c2c(x, s[:-1], axes[:-1], False, norm)
    n, ax = s[-1], axes[-1]
    x = _prepare(x, complex_type(x.dtype), [ax], [n // 2 + 1])
    y = _transform(x, [ax], "c2r", False, norm, n_last=n)
    return y if y.dtype is result else y.astype(result)


# -- the public functions --------------------------------------------------------------------------------
def fft(a, n=None, axis=-1, norm="backward") -> ndarray:
    """1-d discrete Fourier transform along `axis` (n: crop or zero-pad to this length)."""
    _need_array(a, "fft")
    n, axis = cook_1d(a.shape, n, axis)
    return _c2c(a, [n], [axis], True, norm_mode(norm))


def ifft(a, n=None, axis=-1, norm="backward") -> ndarray:
    """1-d inverse discrete Fourier transform along `axis`."""
    _need_array(a, "ifft")
    n, axis = cook_1d(a.shape, n, axis)
    return _c2c(a, [n], [axis], False, norm_mode(norm))


def rfft(a, n=None, axis=-1, norm="backward") -> ndarray:
    """1-d transform of real input: the n//2 + 1 non-negative frequencies."""
    _need_array(a, "rfft")
    n, axis = cook_1d(a.shape, n, axis)
    return _r2c(a, [n], [axis], norm_mode(norm), "rfft")


def irfft(a, n=None, axis=-1, norm="backward") -> ndarray:
    """Inverse of rfft: n real values (default 2 * (m - 1)) from m non-negative frequencies."""
    _need_array(a, "irfft")
    ax = normalize_axis(axis, a.ndim)
    n = _length(2 * (a.shape[ax] - 1) if n is None else n)
    return _c2r(a, [n], [ax], norm_mode(norm))


_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n=None, axis=-1, norm="backward") -> ndarray:
    """Transform of a Hermitian-symmetric signal given by its first half: n real values."""
    _need_array(a, "hfft")
    return irfft(_conj(a), n, axis, _SWAP[norm_mode(norm)])


def ihfft(a, n=None, axis=-1, norm="backward") -> ndarray:
    """Inverse of hfft: the first n//2 + 1 values of a Hermitian spectrum, from real input."""
    _need_array(a, "ihfft")
    return _conj(rfft(a, n, axis, _SWAP[norm_mode(norm)]))


def fftn(a, s=None, axes=None, norm="backward") -> ndarray:
    """n-d transform over `axes` (default: all, or the last len(s)), lengths `s`."""
    _need_array(a, "fftn")
    s, axes = cook_nd(a.shape, s, axes)
    return _c2c(a, s, axes, True, norm_mode(norm))


def ifftn(a, s=None, axes=None, norm="backward") -> ndarray:
    """n-d inverse transform."""
    _need_array(a, "ifftn")
    s, axes = cook_nd(a.shape, s, axes)
    return _c2c(a, s, axes, False, norm_mode(norm))


def rfftn(a, s=None, axes=None, norm="backward") -> ndarray:
    """n-d transform of real input (the last axis halved as in rfft)."""
    _need_array(a, "rfftn")
    s, axes = cook_nd(a.shape, s, axes)
    return _r2c(a, s, axes, norm_mode(norm), "rfftn")


def irfftn(a, s=None, axes=None, norm="backward") -> ndarray:
    """Inverse of rfftn (s[-1] default: 2 * (m - 1) on the last axis)."""
    _need_array(a, "irfftn")
    s, axes = cook_nd(a.shape, s, axes, invreal=True)
    return _c2r(a, s, axes, norm_mode(norm))


def fft2(a, s=None, axes=(-2, -1), norm="backward") -> ndarray:
    """2-d transform (fftn over the last two axes by default)."""
    return fftn(a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm="backward") -> ndarray:
    return ifftn(a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm="backward") -> ndarray:
    return rfftn(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm="backward") -> ndarray:
    return irfftn(a, s, axes, norm)


# -- frequencies and shifts ---------------------------------------------------------------------------
def fftfreq(n, d=1.0, *, dtype=None, device=None) -> ndarray:
    """Sample frequencies of an n-point transform: [0, 1, ..., -1] / (d * n)."""
    import numpy as np
    n = _length(n)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _asarray(k / (float(d) * n), dtype=dtype or _dt.float64, device=device)


def rfftfreq(n, d=1.0, *, dtype=None, device=None) -> ndarray:
    """Sample frequencies of rfft's n//2 + 1 outputs."""
    import numpy as np
    n = _length(n)
    return _asarray(np.arange(0, n // 2 + 1) / (float(d) * n), dtype=dtype or _dt.float64, device=device)


def _shift(x, axes, sign: int, what: str):
    _need_array(x, what)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif hasattr(axes, "__index__"):
        axes = (axes,)
    axes = tuple(normalize_axis(a, x.ndim) for a in axes)
    if not axes:
        return x.copy()
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return _roll(x, shifts, axis=axes)


def fftshift(x, axes=None) -> ndarray:
    """The zero frequency moved to the middle (roll by n // 2 along `axes`, default all)."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None) -> ndarray:
    """Inverse of fftshift (roll by -(n // 2))."""
    return _shift(x, axes, -1, "ifftshift")
