"""The array API's element-wise functions (2025.12), each one ElementwiseKernel over C++ helpers of
the prelude. Type rules: the promotion table for the inputs, then NumPy's for the result
(integers into sin & co. give NumPy's float: int8 -> float16, int16 -> float32, others float64;
divide and reciprocal give float64); float16/bfloat16 compute in float32 and round once at the end,
except nextafter, which steps in the result type itself.
"""
from __future__ import annotations

from collections.abc import Callable

import os

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray, register
from .._core.shapes import broadcast_shapes
from .._kernels.elementwise import ElementwiseKernel, is_scalar, scalar_value
from ._elementwise import Fast as _Fast, OpBase as _OpBase, apply_fast as _apply_fast, bind as _bind_fast, \
    binop as _binop_fast
from .creation import asarray as _asarray

_UNARY_FLOAT = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1", "log",
                "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh")

__all__ = list(_UNARY_FLOAT) + [
    "abs", "ceil", "floor", "trunc", "round", "conj", "real", "imag", "negative", "positive", "sign",
    "signbit", "square", "isnan", "isinf", "isfinite", "bitwise_invert", "logical_not", "reciprocal",
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "atan2", "hypot",
    "copysign", "nextafter", "logaddexp", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "clip",
]

_ANY = "biufc"


def math_dtype(d: _dt.DType) -> _dt.DType:
    """The type a kernel computes in for values of `d`: float32 for the 2-byte floats."""
    return _dt.float32 if d in (_dt.float16, _dt.bfloat16) else d


def _int_float(d: _dt.DType) -> _dt.DType:
    return _dt.float16 if d.itemsize == 1 else _dt.float32 if d.itemsize == 2 else _dt.float64


class _Op(_OpBase):
    """One element-wise function: its C++ expression over `a` (and `b`), in the compute type C
    (math_dtype of the result; the result type itself with compute="exact", bool with "bool")."""

    def __init__(self, name, nin, expr, kinds=_ANY, out="same", bool_as=None, compute=None):
        self.name, self.nin, self.kinds, self.out, self.bool_as, self.compute = name, nin, kinds, out, bool_as, compute
        self.expr = expr            # the C++ expression in `a` (and `b`) of the compute type C
        self.fast = {}              # argument types -> _Fast (or None: the general path decides)
        if nin == 1:
            op = f"const C a = ht_cast<C>(x1); y = ht_cast<Y>({expr});"
            self.kernel = ElementwiseKernel("X1 x1", "Y y", op, f"ht_{name}", vectorize=True)
        else:
            op = f"const C a = ht_cast<C>(x1); const C b = ht_cast<C>(x2); y = ht_cast<Y>({expr});"
            self.kernel = ElementwiseKernel("X1 x1, X2 x2", "Y y", op, f"ht_{name}", vectorize=True)

    def resolve(self, rt: _dt.DType) -> tuple[_dt.DType, _dt.DType]:
        """(compute dtype, result dtype) for inputs promoting to `rt`; TypeError where undefined."""
        if rt.kind not in self.kinds:
            raise TypeError(f"{self.name} is not defined for {rt.name} inputs")
        if rt.kind == "b" and self.bool_as is not None:
            rt = self.bool_as
        out = self.out
        if out == "same":
            y = rt
        elif out == "bool":
            y = _dt.bool
        elif out == "float":
            y = rt if rt.kind in "fc" else _int_float(rt)
        elif out == "divide":
            y = rt if rt.kind in "fc" else _dt.float64
        elif out == "real":
            y = rt.real_dtype
        else:
            raise AssertionError(out)
        if self.compute == "bool":
            c = _dt.bool
        elif self.compute == "exact":
            c = y
        elif out in ("bool", "real"):
            c = math_dtype(rt)
        else:
            c = math_dtype(y)
        return c, y


def _checked(name: str, args):
    """The operands' dtypes for promotion; TypeError for operands that are not arrays or scalars."""
    dts = []
    has_array = False
    for a in args:
        if isinstance(a, ndarray):
            dts.append(a.dtype)
            has_array = True
        elif isinstance(a, np.generic):
            dts.append(_dt.dtype(a.dtype))
        elif is_scalar(a):
            dts.append(a)
        else:
            raise TypeError(f"{name}: expected hip.tensor arrays or Python scalars, got {type(a).__name__}"
                            + (" (move NumPy data to the device with hip.tensor.asarray)"
                               if isinstance(a, (np.ndarray, list, tuple)) else ""))
    if not has_array:
        raise TypeError(f"{name}: at least one argument must be a hip.tensor array")
    return dts


# HIP_TENSOR_NO_C_PATH=1 (read at import): no op takes the per-op C path (every call is _general's)
_C_PATH = os.environ.get("HIP_TENSOR_NO_C_PATH", "") not in ("1", "true", "yes")


def _fast_entry(op: _Op, args):
    """The _Fast of these arguments' types, or None (the general path then decides every call)."""
    if not _C_PATH:
        return None
    if not all(type(a) is ndarray or is_scalar(a) for a in args):
        return None
    if op.compute == "exact" and not all(type(a) is ndarray for a in args):
        return None   # _apply sends its scalars as 0-d arrays
    try:
        rt = _dt.result_type(*_checked(op.name, args))
        c, y = op.resolve(rt)
    except (TypeError, ValueError, OverflowError):
        return None
    int_at, lo, hi = None, 0, 0
    ints = [k for k, a in enumerate(args) if type(a) is int]
    if ints:
        strong = _dt.result_type(*[a.dtype if type(a) is ndarray else _dt.dtype(a.dtype)
                                   for a in args if not type(a) in (bool, int, float, complex)])
        if len(ints) > 1:
            return None
        if strong.kind in "iu":
            int_at = ints[0]
            info = np.iinfo(strong.numpy)
            lo, hi = int(info.min), int(info.max)
    kargs = [a if type(a) is ndarray else scalar_value(a, c) for a in args]
    sig = op.kernel.signature(kargs, {"C": c, "Y": y})
    return None if sig is None else _Fast(c, sig, int_at, lo, hi)


def _apply(op: _Op, args, out=None):
    if out is None:
        # the per-op hot path, in C (_api._elementwise): op.fast's entry of these argument types
        # (_fast_entry makes it), then the kernel's call_contiguous; None where they do not apply
        # (the kernel converts the scalars to their parameter's type C as below)
        r = _apply_fast(op, args)
        if r is not None:
            return r
    return _general(op, args, out)


def _general(op: _Op, args, out=None):
    """_apply without the C hot path: every case (out=, broadcasting, strides, new types)."""
    if op.compute == "exact" and not all(isinstance(a, ndarray) for a in args):
        # A scalar into a kernel that computes in a 2-byte float (nextafter in bfloat16) goes as a
        # 0-d array of the compute type: the kernel's scalar parameter path gave a wrong value there
        # (_fast_entry leaves these calls to this path).
        c = op.resolve(_dt.result_type(*_checked(op.name, args)))[0]   # (refuses bad operands first)
        arr = next(a for a in args if isinstance(a, ndarray))
        return _apply(op, tuple(a if isinstance(a, ndarray) else _asarray(a, dtype=c, device=arr.device_id)
                                for a in args), out)
    rt = _dt.result_type(*_checked(op.name, args))
    c, y = op.resolve(rt)
    if out is not None:
        y = out.dtype
    kargs = [a if isinstance(a, ndarray) else scalar_value(a, c) for a in args]
    if out is not None:
        kargs.append(out)
    return op.kernel(*kargs, _bindings={"C": c, "Y": y})


_OPS: dict[str, _Op] = {}


def _def(name, nin, expr, **kw) -> Callable[..., ndarray]:
    op = _OPS[name] = _Op(name, nin, expr, **kw)
    # (_apply inlined: the C hot path, else the general one; a Python frame less)
    if nin == 1:
        def f(x: ndarray, /) -> ndarray:
            r = _apply_fast(op, (x,))
            return r if r is not None else _general(op, (x,))
    else:
        def f(x1: ndarray | complex, x2: ndarray | complex, /) -> ndarray:
            r = _apply_fast(op, (x1, x2))
            return r if r is not None else _general(op, (x1, x2))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Element-wise {name} (array API)."
    return f


# one assignment per name, so that type checkers and IDEs see each function (PEP 561: inline types)
acos = _def("acos", 1, "ht_acos(a)", out="float")
acosh = _def("acosh", 1, "ht_acosh(a)", out="float")
asin = _def("asin", 1, "ht_asin(a)", out="float")
asinh = _def("asinh", 1, "ht_asinh(a)", out="float")
atan = _def("atan", 1, "ht_atan(a)", out="float")
atanh = _def("atanh", 1, "ht_atanh(a)", out="float")
cos = _def("cos", 1, "ht_cos(a)", out="float")
cosh = _def("cosh", 1, "ht_cosh(a)", out="float")
exp = _def("exp", 1, "ht_exp(a)", out="float")
expm1 = _def("expm1", 1, "ht_expm1(a)", out="float")
log = _def("log", 1, "ht_log(a)", out="float")
log1p = _def("log1p", 1, "ht_log1p(a)", out="float")
log2 = _def("log2", 1, "ht_log2(a)", out="float")
log10 = _def("log10", 1, "ht_log10(a)", out="float")
sin = _def("sin", 1, "ht_sin(a)", out="float")
sinh = _def("sinh", 1, "ht_sinh(a)", out="float")
sqrt = _def("sqrt", 1, "ht_sqrt(a)", out="float")
tan = _def("tan", 1, "ht_tan(a)", out="float")
tanh = _def("tanh", 1, "ht_tanh(a)", out="float")

abs = _def("abs", 1, "ht_abs(a)", out="real")
ceil = _def("ceil", 1, "ht_ceil(a)", kinds="iuf")
floor = _def("floor", 1, "ht_floor(a)", kinds="iuf")
trunc = _def("trunc", 1, "ht_trunc(a)", kinds="iuf")
round = _def("round", 1, "ht_rint(a)", kinds="iufc")
negative = _def("negative", 1, "ht_neg(a)", kinds="iufc")
positive = _def("positive", 1, "a", kinds="iufc")
sign = _def("sign", 1, "ht_sign(a)", kinds="iufc")
signbit = _def("signbit", 1, "ht_signbit(a)", kinds="iuf", out="bool")
square = _def("square", 1, "ht_mul(a, a)", bool_as=_dt.int8)
isnan = _def("isnan", 1, "ht_isnan(a)", out="bool")
isinf = _def("isinf", 1, "ht_isinf(a)", out="bool")
isfinite = _def("isfinite", 1, "ht_isfinite(a)", out="bool")
bitwise_invert = _def("bitwise_invert", 1, "ht_invert(a)", kinds="biu")
logical_not = _def("logical_not", 1, "!a", out="bool", compute="bool")
reciprocal = _def("reciprocal", 1, "ht_cast<C>(1) / a", out="divide")     # 1.0 / x: divide's types and special cases
_conj = _def("conj", 1, "ht_conj(a)", bool_as=_dt.int8)
_real = _def("real", 1, "ht_real(a)", out="real")
_imag = _def("imag", 1, "ht_imag(a)", out="real")

add = _def("add", 2, "ht_add(a, b)")
subtract = _def("subtract", 2, "ht_sub(a, b)", kinds="iufc")
multiply = _def("multiply", 2, "ht_mul(a, b)")
divide = _def("divide", 2, "a / b", out="divide")
floor_divide = _def("floor_divide", 2, "ht_floor_divide(a, b)", kinds="biuf", bool_as=_dt.int8)
remainder = _def("remainder", 2, "ht_remainder(a, b)", kinds="biuf", bool_as=_dt.int8)
pow = _def("pow", 2, "ht_power(a, b)", kinds="biufc", bool_as=_dt.int8)
atan2 = _def("atan2", 2, "ht_atan2(a, b)", kinds="biuf", out="float")
hypot = _def("hypot", 2, "ht_hypot(a, b)", kinds="biuf", out="float")
copysign = _def("copysign", 2, "ht_copysign(a, b)", kinds="biuf", out="float")
# on the result type's own bits: float16/bfloat16 step by their ulp, not float32's
nextafter = _def("nextafter", 2, "ht_nextafter(a, b)", kinds="biuf", out="float", compute="exact")
logaddexp = _def("logaddexp", 2, "ht_logaddexp(a, b)", kinds="biuf", out="float")
maximum = _def("maximum", 2, "ht_maximum(a, b)")
minimum = _def("minimum", 2, "ht_minimum(a, b)")
bitwise_and = _def("bitwise_and", 2, "a & b", kinds="biu")
bitwise_or = _def("bitwise_or", 2, "a | b", kinds="biu")
bitwise_xor = _def("bitwise_xor", 2, "a ^ b", kinds="biu")
bitwise_left_shift = _def("bitwise_left_shift", 2, "ht_lshift(a, b)", kinds="iu")
bitwise_right_shift = _def("bitwise_right_shift", 2, "ht_rshift(a, b)", kinds="iu")
equal = _def("equal", 2, "a == b", out="bool")
not_equal = _def("not_equal", 2, "a != b", out="bool")
less = _def("less", 2, "a < b", out="bool")
less_equal = _def("less_equal", 2, "a <= b", out="bool")
greater = _def("greater", 2, "a > b", out="bool")
greater_equal = _def("greater_equal", 2, "a >= b", out="bool")
logical_and = _def("logical_and", 2, "a && b", out="bool", compute="bool")
logical_or = _def("logical_or", 2, "a || b", out="bool", compute="bool")
logical_xor = _def("logical_xor", 2, "a != b", out="bool", compute="bool")


def conj(x: ndarray, /) -> ndarray:
    """Complex conjugate (a copy for real input)."""
    return _conj(x)


def real(x: ndarray, /) -> ndarray:
    """Real part (complex64 -> float32); a copy for real input."""
    return _real(x)


def imag(x: ndarray, /) -> ndarray:
    """Imaginary part (complex64 -> float32); zeros for real input."""
    return _imag(x)


_clip_kernels: dict = {}


def clip(x: ndarray, /, min: ndarray | float | None = None, max: ndarray | float | None = None) -> ndarray:
    """x clamped to [min, max] (either may be None); the result has x's dtype and the shape x, min
    and max broadcast to (as NumPy); NaN propagates."""
    if not isinstance(x, ndarray):
        raise TypeError(f"clip: x must be a hip.tensor array, got {type(x).__name__}")
    if x.dtype.kind == "c":
        raise TypeError("clip is not defined for complex inputs")
    for v, what in ((min, "min"), (max, "max")):
        if v is not None and not isinstance(v, ndarray) and not is_scalar(v):
            raise TypeError(f"clip: {what} must be an array, a scalar or None, got {type(v).__name__}")
        if isinstance(v, ndarray) and v.dtype.kind == "c":
            raise TypeError(f"clip: {what} must be real")
    c = math_dtype(x.dtype)
    key = (min is None, max is None)
    k = _clip_kernels.get(key)
    if k is None:
        expr = "a"
        params = ["X1 x1"]
        if min is not None:
            params.append("X2 lo")
            expr = f"ht_maximum({expr}, ht_cast<C>(lo))"
        if max is not None:
            params.append("X3 hi")
            expr = f"ht_minimum({expr}, ht_cast<C>(hi))"
        k = _clip_kernels[key] = ElementwiseKernel(", ".join(params), "Y y",
                                                   f"const C a = ht_cast<C>(x1); y = ht_cast<Y>({expr});",
                                                   "ht_clip", vectorize=True)
    args = [x] + [v if isinstance(v, ndarray) else scalar_value(v, c) for v in (min, max) if v is not None]
    return k(*args, _bindings={"C": c, "Y": x.dtype})


# -- operators of ndarray ---------------------------------------------------------------------------
_OPERAND_TYPES = frozenset((ndarray, bool, int, float, complex))   # taken without further checks


def _binop(name: str, a, b):
    """x <op> y for ndarray's dunders: NotImplemented for operand types we do not take."""
    if type(a) not in _OPERAND_TYPES or type(b) not in _OPERAND_TYPES:
        for v in (a, b):
            if not isinstance(v, ndarray) and not is_scalar(v):
                return NotImplemented
    return _apply(_OPS[name], (a, b))


def _same_kind(src: _dt.DType, dst: _dt.DType) -> bool:
    if src is dst:
        return True
    s = _dt.float16.numpy if src is _dt.bfloat16 else src.numpy
    d = _dt.float16.numpy if dst is _dt.bfloat16 else dst.numpy
    return bool(np.can_cast(s, d, "same_kind"))


def _inplace(name: str, x: ndarray, o):
    """x <op>= o: the result is computed as for x <op> o and cast back to x's dtype where NumPy's
    'same_kind' rule allows; o must broadcast to x's shape."""
    if not isinstance(o, ndarray) and not is_scalar(o):
        return NotImplemented
    if x._readonly:
        raise ValueError("assignment destination is read-only")
    op = _OPS[name]
    rt = _dt.result_type(*_checked(op.name, (x, o)))
    c, y = op.resolve(rt)
    if not _same_kind(y, x.dtype):
        raise TypeError(f"cannot cast the result of {name} ({y.name}) to the array's dtype {x.dtype.name} "
                        "in place (NumPy's same_kind rule)")
    if isinstance(o, ndarray):
        if broadcast_shapes(x.shape, o.shape) != x.shape:
            raise ValueError(f"operand of shape {o.shape} does not broadcast to the array's shape {x.shape}")
    op.kernel(x, o if isinstance(o, ndarray) else scalar_value(o, c), x, _bindings={"C": c, "Y": x.dtype})
    return x


# ndarray's operators and methods (x + y, -x, x.real, x.clip, ...) call these
_bind_fast(ndarray, _OPS, _fast_entry, _binop)
register(binop=_binop_fast, inplace=_inplace, negative=negative, positive=positive, abs=abs,
         bitwise_invert=bitwise_invert,
         real=real, imag=imag, conj=conj, clip=clip)
