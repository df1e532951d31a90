"""The C++ prelude every generated kernel includes, and small source-building helpers.

The prelude compiles under AMD's hiprtc (HIP headers) and NVIDIA's NVRTC (through the HIP-on-CUDA
layer, which supplies `hip/hip_runtime.h` and nothing else: NVRTC finds no CUDA header such as
cuda_fp16.h without an include path). So float16 and bfloat16 are our own 2-byte structs with
round-to-nearest-even conversions (hardware conversions where the compiler has them), complex64/128
are our own structs, and no standard header is included. Nothing assumes a warp or wavefront size.
"""
from __future__ import annotations

__all__: list[str] = []

_UNARY_MATH = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
               "atanh", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "floor",
               "ceil", "trunc", "rint", "fabs")
_BINARY_MATH = ("atan2", "hypot", "copysign", "fmod", "pow", "fmax", "fmin")
_TERNARY_MATH = ("fma",)


def _math_wrappers() -> str:
    # Overloads by float/double so generated code names one function for every real type.
    lines = []
    for f in _UNARY_MATH:
        lines.append(f"HT_D float ht_{f}(float x) {{ return {f}f(x); }} "
                     f"HT_D double ht_{f}(double x) {{ return {f}(x); }}")
    for f in _BINARY_MATH:
        lines.append(f"HT_D float ht_{f}(float x, float y) {{ return {f}f(x, y); }} "
                     f"HT_D double ht_{f}(double x, double y) {{ return {f}(x, y); }}")
    for f in _TERNARY_MATH:
        lines.append(f"HT_D float ht_{f}(float x, float y, float z) {{ return {f}f(x, y, z); }} "
                     f"HT_D double ht_{f}(double x, double y, double z) {{ return {f}(x, y, z); }}")
    return "\n".join(lines)


_INTEGERS = ("int", "unsigned int", "long long", "unsigned long long", "signed char", "unsigned char", "short",
             "unsigned short")


def _two_byte_float(name: str, to_bits: str, from_double: str, one: str, to_float: str,
                    more: tuple[str, ...]) -> str:
    """A 2-byte float struct: `to_bits` the function from float to its bits (integers and the
    types in `more` go through float), `from_double` the bits of double `f` (a C expression),
    `one` the bits of 1 (true), `to_float` the function from its bits."""
    return "\n".join(
        [f"struct alignas(2) {name} {{", "    unsigned short bits;", f"    {name}() = default;",
         f"    HT_D {name}(float f) : bits({to_bits}(f)) {{}}", f"    HT_D {name}(double f) : bits({from_double}) {{}}",
         f"    HT_D {name}(bool v) : bits(v ? {one} : 0) {{}}"]
        + [f"    HT_D {name}({t} v) : bits({to_bits}((float)v)) {{}}" for t in _INTEGERS + more]
        + [f"    HT_D operator float() const {{ return {to_float}(bits); }}"]
        + [f"    HT_D {name}& operator{op}=(float o) {{ *this = {name}((float)*this {op} o); return *this; }}"
           for op in "+-*/"]
        + ["};"]) + "\n"


# ht_real_limits<float>/<double>: inf, nan, pi, ln 2, ln 10; for the complex functions: epsilon and
# its reciprocal, the largest and smallest normal, sqrt of the smallest, sqrt(6 eps) and sqrt(3 eps)
# (where asinh z = z, atanh z = z), exp's and tanh's limits, an even power of 2 scaling subnormals
# up, its log and the sqrt of its reciprocal.
_REAL_LIMITS = (("inf", "ht_inf_f()", "ht_inf_d()"), ("nan", "ht_nan_f()", "ht_nan_d()"),
                ("pi", "3.14159265358979f", "3.141592653589793238"),
                ("ln2", "0.693147180559945f", "0.6931471805599453094"),
                ("ln10", "2.30258509299405f", "2.302585092994045684"),
                ("eps", "0x1p-23f", "0x1p-52"), ("recip_eps", "0x1p23f", "0x1p52"),
                ("max", "0x1.fffffep127f", "0x1.fffffffffffffp1023"), ("min", "0x1p-126f", "0x1p-1022"),
                ("sqrt_min", "0x1p-63f", "0x1p-511"),
                ("sqrt_6_eps", "8.4572793e-4f", "3.650024149988857e-8"),
                ("sqrt_3_eps", "5.9801996e-4f", "2.5809568279517849e-8"),
                ("exp_big", "88.0f", "709.0"), ("tanh_big", "11.0f", "22.0"),
                ("tiny_scale", "0x1p24f", "0x1p54"), ("log_tiny_scale", "16.635532333438687f", "37.42994775023705"),
                ("sqrt_tiny_unscale", "0x1p-12f", "0x1p-27"))


def _real_limits() -> str:
    return "\n".join(f"template <> struct ht_real_limits<{t}> {{\n"
                     + "\n".join(f"    HT_D static {t} {name}() {{ return {v[i]}; }}" for name, *v in _REAL_LIMITS)
                     + " };" for i, t in enumerate(("float", "double")))


_HEAD = r"""
/* hiprtc declares the HIP device API itself; include the header only where one is found */
#if defined(__has_include)
#if __has_include(<hip/hip_runtime.h>)
#include <hip/hip_runtime.h>
#endif
#endif
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__) || defined(__HIP_PLATFORM_NVIDIA__)
#define HT_NVIDIA 1
#endif
#define HT_D __device__ __forceinline__
"""

_TWO_BYTE_FLOATS = r"""
/* ---- float16: 2 bytes of IEEE binary16 ------------------------------------------------------ */
HT_D unsigned short ht_float_to_half_bits(float f) {
#if defined(HT_NVIDIA)
    unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
#else
    return __builtin_bit_cast(unsigned short, (_Float16)f);
#endif
}
HT_D unsigned short ht_double_to_half_bits(double d) {     /* one rounding, as NumPy's double -> half */
#if defined(HT_NVIDIA)
    unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h;
#else
    return __builtin_bit_cast(unsigned short, (_Float16)d);
#endif
}
HT_D float ht_half_bits_to_float(unsigned short h) {
#if defined(HT_NVIDIA)
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
#else
    return (float)__builtin_bit_cast(_Float16, h);
#endif
}
""" + _two_byte_float("ht_half", "ht_float_to_half_bits", "ht_double_to_half_bits(f)", "0x3c00",
                   "ht_half_bits_to_float", ()) + r"""
/* ---- bfloat16: the high half of a float32, rounded to nearest even -------------------------- */
HT_D unsigned short ht_float_to_bf16_bits(float f) {
    unsigned int u = __float_as_uint(f);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    /* the hardware's rounding (one instruction where the integer one takes seven, on the ALU pipe
       that erf's and tanh's selects already fill); a NaN keeps its sign and payload, as below */
    unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return f != f ? (unsigned short)((u >> 16) | 0x40u) : h;
#else
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);  /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
#endif
}
HT_D float ht_bf16_bits_to_float(unsigned short b) { return __uint_as_float(((unsigned int)b) << 16); }
""" + _two_byte_float("ht_bfloat16", "ht_float_to_bf16_bits", "ht_float_to_bf16_bits((float)f)", "0x3f80",
                   "ht_bf16_bits_to_float", ("ht_half",))

# Real and complex scalar math: plain C++ over the device math library (the names C's <math.h>
# has) and the four bit casts of the inf/NaN helpers, so that a host compiler builds it too
# (tests/tensor/test_tensor_complex_math_cpu.py checks it against NumPy that way).
SCALAR_MATH = r"""
HT_D float ht_inf_f() { return __int_as_float(0x7f800000); }
HT_D double ht_inf_d() { return __longlong_as_double(0x7ff0000000000000LL); }
HT_D float ht_nan_f() { return __int_as_float(0x7fc00000); }
HT_D double ht_nan_d() { return __longlong_as_double(0x7ff8000000000000LL); }

/* ---- real math: one overloaded name per function for float and double ---------------------- */
""" + _math_wrappers() + r"""
HT_D bool ht_isnan(float x) { return x != x; }
HT_D bool ht_isnan(double x) { return x != x; }
HT_D bool ht_isinf(float x) { return fabsf(x) == ht_inf_f(); }
HT_D bool ht_isinf(double x) { return fabs(x) == ht_inf_d(); }
HT_D bool ht_isfinite(float x) { return fabsf(x) < ht_inf_f(); }
HT_D bool ht_isfinite(double x) { return fabs(x) < ht_inf_d(); }
HT_D bool ht_signbit(float x) { return (__float_as_uint(x) >> 31) != 0; }
HT_D bool ht_signbit(double x) { return __double_as_longlong(x) < 0; }
template <class T> struct ht_real_limits;
""" + _real_limits() + r"""

/* ---- complex64 / complex128 ---------------------------------------------------------------- */
template <class T> struct alignas(2 * sizeof(T)) ht_complex {
    T re, im;
    ht_complex() = default;
    HT_D ht_complex(T r, T i = T(0)) : re(r), im(i) {}
    template <class U> HT_D explicit ht_complex(const ht_complex<U>& o) : re((T)o.re), im((T)o.im) {}
    HT_D T real() const { return re; }
    HT_D T imag() const { return im; }
    friend HT_D ht_complex operator+(const ht_complex& a, const ht_complex& b) { return ht_complex(a.re + b.re, a.im + b.im); }
    friend HT_D ht_complex operator-(const ht_complex& a, const ht_complex& b) { return ht_complex(a.re - b.re, a.im - b.im); }
    friend HT_D ht_complex operator*(const ht_complex& a, const ht_complex& b) {
        return ht_complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
    friend HT_D ht_complex operator/(const ht_complex& a, const ht_complex& b) {
        /* Smith's algorithm, as NumPy */
        T abr = ht_fabs(b.re), abi = ht_fabs(b.im);
        if (abr >= abi) {
            if (abr == 0 && abi == 0) return ht_complex(a.re / abr, a.im / abr);    /* over +0 */
            T rat = b.im / b.re, scl = T(1) / (b.re + b.im * rat);
            return ht_complex((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
        }
        T rat = b.re / b.im, scl = T(1) / (b.im + b.re * rat);
        return ht_complex((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
    }
    friend HT_D ht_complex operator-(const ht_complex& a) { return ht_complex(-a.re, -a.im); }
    friend HT_D ht_complex operator+(const ht_complex& a) { return a; }
    friend HT_D bool operator==(const ht_complex& a, const ht_complex& b) { return a.re == b.re && a.im == b.im; }
    friend HT_D bool operator!=(const ht_complex& a, const ht_complex& b) { return !(a == b); }
    /* NumPy orders complex numbers lexicographically */
    friend HT_D bool operator<(const ht_complex& a, const ht_complex& b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }
    friend HT_D bool operator>(const ht_complex& a, const ht_complex& b) { return b < a; }
    friend HT_D bool operator<=(const ht_complex& a, const ht_complex& b) { return a.re < b.re || (a.re == b.re && a.im <= b.im); }
    friend HT_D bool operator>=(const ht_complex& a, const ht_complex& b) { return b <= a; }
    HT_D ht_complex& operator+=(const ht_complex& o) { *this = *this + o; return *this; }
    HT_D ht_complex& operator-=(const ht_complex& o) { *this = *this - o; return *this; }
    HT_D ht_complex& operator*=(const ht_complex& o) { *this = *this * o; return *this; }
    HT_D ht_complex& operator/=(const ht_complex& o) { *this = *this / o; return *this; }
};
typedef ht_complex<float> ht_complex64;
typedef ht_complex<double> ht_complex128;

template <class T> HT_D T ht_abs(const ht_complex<T>& z) { return ht_hypot(z.re, z.im); }
template <class T> HT_D ht_complex<T> ht_conj(const ht_complex<T>& z) { return ht_complex<T>(z.re, -z.im); }
template <class T> HT_D bool ht_isnan(const ht_complex<T>& z) { return ht_isnan(z.re) || ht_isnan(z.im); }
template <class T> HT_D bool ht_isinf(const ht_complex<T>& z) { return ht_isinf(z.re) || ht_isinf(z.im); }
template <class T> HT_D bool ht_isfinite(const ht_complex<T>& z) { return ht_isfinite(z.re) && ht_isfinite(z.im); }
/* Complex elementary functions: C99 Annex G's special values (which the array API's special cases
   restate) and formulas that neither overflow nor lose accuracy for finite inputs: the inverse
   functions by Hull, Fairgrieve and Tang's algorithm (ACM TOMS 23(3), 1997), |z|^2 - 1 and
   |1 + z|^2 - 1 in twice the precision near the unit circle, e^x split where it alone would
   overflow. The trigonometric functions are the hyperbolic ones of iz: C99 defines them so. */

/* s = a + b rounded, e its exact error (Knuth's TwoSum; the kernels compile without contraction) */
template <class T> HT_D T ht_two_sum(T a, T b, T& e) {
    T s = a + b, bb = s - a;
    e = (a - (s - bb)) + (b - bb);
    return s;
}
/* c + x*x + y*y for an exact c: the squares split exactly by FMA, the sum carried in two parts, so
   |z|^2 - 1 (c = -1) and |1 + z|^2 - 1 (c = 2x) keep their digits where the terms cancel */
template <class T> HT_D T ht_add_squares(T c, T x, T y) {
    T p = x * x, q = y * y, e1, e2;
    T ep = ht_fma(x, x, -p), eq = ht_fma(y, y, -q);
    T s = ht_two_sum(c, p, e1);
    s = ht_two_sum(s, q, e2);
    return s + (((e1 + e2) + ep) + eq);
}
/* log|x + iy|: hypot scaled where it would overflow or lose digits in the subnormals, and
   log1p(|z|^2 - 1)/2 near the unit circle, where log(hypot) would round the small result away */
template <class T> HT_D T ht_log_hypot(T x, T y) {
    typedef ht_real_limits<T> L;
    T ax = ht_fabs(x), ay = ht_fabs(y);
    if (ht_isinf(ax) || ht_isinf(ay)) return L::inf();
    if (ht_isnan(ax) || ht_isnan(ay)) return ax + ay;
    if (ax < ay) { T t = ax; ax = ay; ay = t; }
    if (ax == 0) return -L::inf();
    T h2 = ax * ax + ay * ay;
    if (h2 > T(0.5) && h2 < T(2)) return ht_log1p(ht_add_squares(T(-1), ax, ay)) / 2;
    if (ax > L::max() / 4) return ht_log(ht_hypot(ax / 4, ay / 4)) + 2 * L::ln2();
    if (ax < L::min()) return ht_log(ht_hypot(ax * L::tiny_scale(), ay * L::tiny_scale())) - L::log_tiny_scale();
    return ht_log(ht_hypot(ax, ay));
}
/* e^x c f for x > exp_big, where e^x alone overflows but the product may not (c down to the
   subnormals): e^x in two or three finite factors, x split exactly (x/2; trunc(x/3) twice and the
   rest), multiplied in from c up; f a power of 2 applied once the product is normal */
template <class T> HT_D T ht_exp_mul(T x, T c, T f) {
    if (x <= 2 * ht_real_limits<T>::exp_big() || ht_isinf(x)) { T h = ht_exp(x / 2); return ((c * h) * f) * h; }
    T a = ht_trunc(x / 3), h = ht_exp(a);
    return (((c * h) * f) * h) * ht_exp(x - 2 * a);
}
template <class T> HT_D ht_complex<T> ht_exp(const ht_complex<T>& z) {
    T x = z.re, y = z.im;
    if (y == 0) return ht_complex<T>(ht_exp(x), y);                   /* NaN + i0 too */
    if (ht_isinf(x) && !ht_isfinite(y))                               /* -inf: ±0 ± i0, signs free */
        return x < 0 ? ht_complex<T>(T(0), ht_copysign(T(0), y)) : ht_complex<T>(x, y - y);
    T c = ht_cos(y), sn = ht_sin(y);                                   /* NaNs propagate */
    if (x > ht_real_limits<T>::exp_big()) return ht_complex<T>(ht_exp_mul(x, c, T(1)), ht_exp_mul(x, sn, T(1)));
    T e = ht_exp(x);
    return ht_complex<T>(e * c, e * sn);
}
template <class T> HT_D ht_complex<T> ht_expm1(const ht_complex<T>& z) {
    T x = z.re, y = z.im;
    /* expm1(±0 ± i0): the array API's "0 + 0j", +0 whatever x's sign */
    if (y == 0) return ht_complex<T>(x == 0 ? T(0) : ht_expm1(x), y);
    if (ht_isinf(x) && !ht_isfinite(y))
        return x < 0 ? ht_complex<T>(T(-1), ht_copysign(T(0), y)) : ht_complex<T>(x, y - y);
    if (x > ht_real_limits<T>::exp_big()) {                          /* the -1 is below an ulp */
        return ht_complex<T>(ht_exp_mul(x, ht_cos(y), T(1)) - 1, ht_exp_mul(x, ht_sin(y), T(1)));
    }
    if (ht_isinf(x)) return ht_complex<T>(T(-1), T(0) * ht_sin(y));    /* -inf + iy: +0 cis(y) - 1 */
    /* e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2): no cancellation of 1 against cos y */
    T s = ht_sin(y / 2);
    return ht_complex<T>(ht_expm1(x) * ht_cos(y) - 2 * s * s, ht_exp(x) * ht_sin(y));
}
template <class T> HT_D ht_complex<T> ht_log(const ht_complex<T>& z) {
    return ht_complex<T>(ht_log_hypot(z.re, z.im), ht_atan2(z.im, z.re));
}
template <class T> HT_D ht_complex<T> ht_log1p(const ht_complex<T>& z) {
    T x = z.re, y = z.im, u = 1 + x;
    /* near |1 + z| = 1 (z small among others) log|1 + z| = log1p(2x + x^2 + y^2)/2, exact terms;
       elsewhere 1 + x rounded costs no more than an ulp of the logarithm */
    if (ht_fabs(x) < 2 && ht_fabs(y) < 2) {
        T h2 = u * u + y * y;
        if (h2 > T(0.5) && h2 < T(2))
            return ht_complex<T>(ht_log1p(ht_add_squares(2 * x, x, y)) / 2, ht_atan2(y, u));
    }
    return ht_complex<T>(ht_log_hypot(u, y), ht_atan2(y, u));
}
template <class T> HT_D ht_complex<T> ht_log2(const ht_complex<T>& z) {
    ht_complex<T> w = ht_log(z); return ht_complex<T>(w.re / ht_real_limits<T>::ln2(), w.im / ht_real_limits<T>::ln2()); }
template <class T> HT_D ht_complex<T> ht_log10(const ht_complex<T>& z) {
    ht_complex<T> w = ht_log(z); return ht_complex<T>(w.re / ht_real_limits<T>::ln10(), w.im / ht_real_limits<T>::ln10()); }
template <class T> HT_D ht_complex<T> ht_sqrt(const ht_complex<T>& z) {
    typedef ht_real_limits<T> L;
    T a = z.re, b = z.im;
    if (a == 0 && b == 0) return ht_complex<T>(T(0), b);
    if (ht_isinf(b)) return ht_complex<T>(L::inf(), b);                /* even for a NaN */
    if (ht_isnan(a)) return ht_complex<T>(a, a);
    if (ht_isinf(a)) {                                                 /* b finite or NaN */
        if (a < 0) return ht_complex<T>(ht_fabs(b - b), ht_copysign(L::inf(), b));
        return ht_complex<T>(a, ht_copysign(b - b, b));
    }
    if (ht_isnan(b)) return ht_complex<T>(b, b);
    /* sqrt((|a| + |z|)/2) and b over twice it (no cancellation); scaled by 1/4 where a + |z|
       would overflow, by an even power of 2 where both parts are subnormal */
    T scale = 1;
    if (ht_fabs(a) >= L::max() / 4 || ht_fabs(b) >= L::max() / 4) { a *= T(0.25); b *= T(0.25); scale = 2; }
    else if (ht_fabs(a) < L::min() && ht_fabs(b) < L::min()) {
        a *= L::tiny_scale(); b *= L::tiny_scale(); scale = L::sqrt_tiny_unscale(); }
    T t = ht_sqrt((ht_fabs(a) + ht_hypot(a, b)) / 2);
    if (a >= 0) return ht_complex<T>(t * scale, b / (2 * t) * scale);
    return ht_complex<T>(ht_fabs(b) / (2 * t) * scale, ht_copysign(t * scale, b));
}

/* the hyperbolic functions, C99 G.6.2.4-6 */
template <class T> HT_D ht_complex<T> ht_cosh(const ht_complex<T>& z) {
    T x = z.re, y = z.im;
    if (ht_isfinite(x) && ht_isfinite(y)) {
        if (y == 0) return ht_complex<T>(ht_cosh(x), x * y);
        if (ht_fabs(x) <= ht_real_limits<T>::exp_big()) return ht_complex<T>(ht_cosh(x) * ht_cos(y), ht_sinh(x) * ht_sin(y));
        /* cosh and sinh are e^|x|/2 here: the product may be finite where they are not */
        T ax = ht_fabs(x);
        return ht_complex<T>(ht_exp_mul(ax, ht_cos(y), T(0.5)), ht_exp_mul(ax, ht_sin(y), ht_copysign(T(0.5), x)));
    }
    /* the zeros' signs Annex G leaves free as glibc's (NumPy's), independent of a NaN's sign */
    if (x == 0) return ht_complex<T>(y - y, T(0));                     /* y inf or NaN */
    if (y == 0) return ht_complex<T>(x * x, ht_isnan(x) ? y : ht_copysign(T(0), x) * y);
    if (ht_isfinite(x)) return ht_complex<T>(y - y, x * (y - y));
    if (ht_isinf(x)) {
        if (ht_isfinite(y)) return ht_complex<T>(x * x * ht_cos(y), x * ht_sin(y));
        return ht_complex<T>(x * x, x * (y - y));
    }
    return ht_complex<T>((x * x) * (y - y), (x + x) * (y - y));
}
template <class T> HT_D ht_complex<T> ht_sinh(const ht_complex<T>& z) {
    T x = z.re, y = z.im;
    if (ht_isfinite(x) && ht_isfinite(y)) {
        if (y == 0) return ht_complex<T>(ht_sinh(x), y);
        if (ht_fabs(x) <= ht_real_limits<T>::exp_big()) return ht_complex<T>(ht_sinh(x) * ht_cos(y), ht_cosh(x) * ht_sin(y));
        T ax = ht_fabs(x);
        return ht_complex<T>(ht_exp_mul(ax, ht_cos(y), ht_copysign(T(0.5), x)), ht_exp_mul(ax, ht_sin(y), T(0.5)));
    }
    if (x == 0) return ht_complex<T>(x, y - y);
    if (y == 0) return ht_complex<T>(x, y);
    if (ht_isfinite(x)) return ht_complex<T>(y - y, y - y);
    if (ht_isinf(x)) {
        if (ht_isfinite(y)) return ht_complex<T>(x * ht_cos(y), ht_real_limits<T>::inf() * ht_sin(y));
        return ht_complex<T>(x * x, x * (y - y));
    }
    return ht_complex<T>((x * x) * (y - y), (x + x) * (y - y));
}
template <class T> HT_D ht_complex<T> ht_tanh(const ht_complex<T>& z) {
    T x = z.re, y = z.im;
    if (ht_isnan(x)) return ht_complex<T>(x, y == 0 ? y : x * y);
    /* tanh(±inf + iy) = ±1 + i0 with the zero signed as y: the array API's "1 + 0j" for every
       positive y (C99 signs it as sin 2y) */
    if (ht_isinf(x)) return ht_complex<T>(ht_copysign(T(1), x), ht_copysign(T(0), y));
    if (!ht_isfinite(y)) return ht_complex<T>(x == 0 ? x : y - y, y - y);
    if (ht_fabs(x) >= ht_real_limits<T>::tanh_big()) {                /* tanh x is ±1 to the last bit */
        T e = ht_exp(-ht_fabs(x));
        return ht_complex<T>(ht_copysign(T(1), x), 4 * ht_sin(y) * ht_cos(y) * e * e);
    }
    /* Kahan's: t = tan y, s = sinh x; tanh z = (s sqrt(1 + s^2) (1 + t^2) + i t)/(1 + (1 + t^2) s^2) */
    T t = ht_tan(y), beta = 1 + t * t, s = ht_sinh(x), rho = ht_sqrt(1 + s * s), d = 1 + beta * s * s;
    return ht_complex<T>(beta * rho * s / d, t / d);
}
/* cos z = cosh iz; sin z = -i sinh iz and tan z = -i tanh iz, written as the swap (x, y) -> (y, x),
   which is i conj(z), on both sides: the same values, zeros' and infinities' signs included */
template <class T> HT_D ht_complex<T> ht_cos(const ht_complex<T>& z) { return ht_cosh(ht_complex<T>(-z.im, z.re)); }
template <class T> HT_D ht_complex<T> ht_sin(const ht_complex<T>& z) {
    ht_complex<T> w = ht_sinh(ht_complex<T>(z.im, z.re)); return ht_complex<T>(w.im, w.re); }
template <class T> HT_D ht_complex<T> ht_tan(const ht_complex<T>& z) {
    ht_complex<T> w = ht_tanh(ht_complex<T>(z.im, z.re)); return ht_complex<T>(w.im, w.re); }

/* Hull, Fairgrieve and Tang's core for x, y >= 0, finite, neither both tiny nor either huge:
   R = |z + i|, S = |z - i|, A = (R + S)/2 >= 1, B = y/A. asinh z = acosh A + i asin B; near B = 1,
   asin B = atan2(num, den) with den = sqrt(A^2 - y^2) formed without cancellation. A - 1 and A - y
   come from (hypot(a, b) - b)/2, which cancels nowhere (ht_hft_half). */
template <class T> struct ht_hft { T acosh_a, b, num, den; bool use_b; };
template <class T> HT_D T ht_hft_half(T a, T b, T h) {
    if (b < 0) return (h - b) / 2;
    if (b == 0) return a / 2;
    return a * a / (h + b) / 2;
}
template <class T> HT_D ht_hft<T> ht_hft_core(T x, T y) {
    typedef ht_real_limits<T> L;
    const T eps = L::eps();
    ht_hft<T> r;
    T R = ht_hypot(x, y + 1), S = ht_hypot(x, y - 1);
    T A = (R + S) / 2;
    if (A < 1) A = 1;                                                  /* rounding */
    if (A < T(10)) {                                                   /* acosh A = log1p(A-1 + sqrt((A-1)(A+1))) */
        if (y == 1 && x < eps * eps / 128) r.acosh_a = ht_sqrt(x);
        else if (x >= eps * ht_fabs(y - 1)) {
            T am1 = ht_hft_half(x, 1 + y, R) + ht_hft_half(x, 1 - y, S);
            r.acosh_a = ht_log1p(am1 + ht_sqrt(am1 * (A + 1)));
        } else if (y < 1) r.acosh_a = x / ht_sqrt((1 - y) * (1 + y));
        else r.acosh_a = ht_log1p((y - 1) + ht_sqrt((y - 1) * (y + 1)));
    } else r.acosh_a = ht_log(A + ht_sqrt(A * A - 1));
    r.num = y;
    r.use_b = false;
    if (y < 4 * L::sqrt_min()) {                                        /* y/A would lose digits */
        r.den = A * (2 / eps); r.num = y * (2 / eps); return r;
    }
    r.b = y / A;
    if (r.b <= T(0.6417)) { r.use_b = true; return r; }
    if (y == 1 && x < eps / 128) r.den = ht_sqrt(x) * ht_sqrt((A + y) / 2);
    else if (x >= eps * ht_fabs(y - 1)) {
        T amy = ht_hft_half(x, y + 1, R) + ht_hft_half(x, y - 1, S);
        r.den = ht_sqrt(amy * (A + y));
    } else if (y > 1) {                                                /* x tiny: scaled clear of underflow */
        T k = 4 / eps / eps;
        r.den = x * k * y / ht_sqrt((y + 1) * (y - 1)); r.num = y * k;
    } else r.den = ht_sqrt((1 - y) * (1 + y));
    return r;
}
template <class T> HT_D ht_complex<T> ht_asinh(const ht_complex<T>& z) {
    typedef ht_real_limits<T> L;
    T x = z.re, y = z.im, ax = ht_fabs(x), ay = ht_fabs(y);
    if (ht_isnan(x) || ht_isnan(y)) {
        if (ht_isinf(x)) return ht_complex<T>(x, y + y);
        if (ht_isinf(y)) return ht_complex<T>(ht_fabs(y), x + x);   /* sign free: glibc's */
        if (y == 0) return ht_complex<T>(x + x, y);
        return ht_complex<T>(x + y, x + y);
    }
    if (ax > L::recip_eps() || ay > L::recip_eps()) {                /* asinh z = log 2z, to the last bit */
        T re = ht_log_hypot(ax, ay) + L::ln2(), im = ht_atan2(ay, ax);
        return ht_complex<T>(ht_copysign(re, x), ht_copysign(im, y));
    }
    if (ax < L::sqrt_6_eps() / 4 && ay < L::sqrt_6_eps() / 4) return z;  /* asinh z = z, zeros too */
    ht_hft<T> h = ht_hft_core(ax, ay);
    T im = h.use_b ? ht_asin(h.b) : ht_atan2(h.num, h.den);
    return ht_complex<T>(ht_copysign(h.acosh_a, x), ht_copysign(im, y));
}
/* asin z = -i asinh iz, as the swap */
template <class T> HT_D ht_complex<T> ht_asin(const ht_complex<T>& z) {
    ht_complex<T> w = ht_asinh(ht_complex<T>(z.im, z.re)); return ht_complex<T>(w.im, w.re); }
template <class T> HT_D ht_complex<T> ht_acos(const ht_complex<T>& z) {
    typedef ht_real_limits<T> L;
    T x = z.re, y = z.im, ax = ht_fabs(x), ay = ht_fabs(y);
    if (ht_isnan(x) || ht_isnan(y)) {
        if (ht_isinf(x)) return ht_complex<T>(y + y, -L::inf());
        if (ht_isinf(y)) return ht_complex<T>(x + x, -y);
        if (x == 0) return ht_complex<T>(L::pi() / 2, y + y);
        return ht_complex<T>(x + y, x + y);
    }
    if (ax > L::recip_eps() || ay > L::recip_eps()) {                /* acos z = |arg z| -+ i log 2|z| */
        T rx = ht_fabs(ht_atan2(y, x)), ry = ht_log_hypot(ax, ay) + L::ln2();
        return ht_complex<T>(rx, ht_signbit(y) ? ry : -ry);
    }
    if (x == 1 && y == 0) return ht_complex<T>(T(0), -y);
    if (ax < L::sqrt_6_eps() / 4 && ay < L::sqrt_6_eps() / 4) return ht_complex<T>(L::pi() / 2 - x, -y);
    /* the core with the parts' roles swapped: R = |z + 1|, S = |z - 1|, B = |x|/A */
    ht_hft<T> h = ht_hft_core(ay, ax);
    T rx = h.use_b ? ht_acos(ht_signbit(x) ? -h.b : h.b) : ht_atan2(h.den, ht_signbit(x) ? -h.num : h.num);
    return ht_complex<T>(rx, ht_signbit(y) ? h.acosh_a : -h.acosh_a);
}
template <class T> HT_D ht_complex<T> ht_acosh(const ht_complex<T>& z) {
    /* acosh z = ±i acos z, the sign making the real part >= 0 */
    ht_complex<T> w = ht_acos(z);
    if (ht_isnan(w.re) && ht_isnan(w.im)) return ht_complex<T>(w.im, w.re);
    if (ht_isnan(w.re)) return ht_complex<T>(ht_fabs(w.im), w.re);     /* ±inf + iNaN, NaN ± i inf */
    if (ht_isnan(w.im)) return ht_complex<T>(w.im, z.re == 0 ? w.re : w.im);   /* ±0 + iNaN: NaN ± i pi/2 */
    return ht_complex<T>(ht_fabs(w.im), ht_copysign(w.re, z.im));
}
/* Re(1/z) = x/(x^2 + y^2) without overflow or underflow in between */
template <class T> HT_D T ht_re_recip(T x, T y) {
    if (ht_isinf(x) || ht_isinf(y)) return ht_copysign(T(0), x);
    T m = ht_fmax(ht_fabs(x), ht_fabs(y)), xs = x / m, ys = y / m;
    return xs / (xs * xs + ys * ys) / m;
}
template <class T> HT_D ht_complex<T> ht_atanh(const ht_complex<T>& z) {
    typedef ht_real_limits<T> L;
    T x = z.re, y = z.im, ax = ht_fabs(x), ay = ht_fabs(y);
    if (y == 0 && ax <= 1) return ht_complex<T>(ht_atanh(x), y);
    if (x == 0) return ht_complex<T>(x, ht_atan(y));
    if (ht_isnan(x) || ht_isnan(y)) {
        if (ht_isinf(x)) return ht_complex<T>(ht_copysign(T(0), x), y + y);
        if (ht_isinf(y)) return ht_complex<T>(ht_copysign(T(0), x), ht_copysign(L::pi() / 2, y));
        return ht_complex<T>(x + y, x + y);
    }
    if (ax > L::recip_eps() || ay > L::recip_eps())                  /* atanh z = 1/z ± i pi/2 */
        return ht_complex<T>(ht_re_recip(x, y), ht_copysign(L::pi() / 2, y));
    if (ax < L::sqrt_3_eps() / 2 && ay < L::sqrt_3_eps() / 2) return z;
    /* Re = log1p(4|x| / ((|x| - 1)^2 + y^2))/4; Im = atan2(2|y|, 1 - |z|^2)/2, 1 - |z|^2 exact-ish */
    T rx, ry;
    if (ax == 1 && ay < L::eps()) rx = (L::ln2() - ht_log(ay)) / 2;
    else {
        T d = (ax - 1) * (ax - 1) + (ay < L::sqrt_min() ? T(0) : ay * ay);
        rx = ht_log1p(4 * ax / d) / 4;
    }
    if (ax == 1) ry = ht_atan2(T(2), -ay) / 2;
    else ry = ht_atan2(2 * ay, -ht_add_squares(T(-1), ax, ay)) / 2;
    return ht_complex<T>(ht_copysign(rx, x), ht_copysign(ry, y));
}
/* atan z = -i atanh iz, as the swap */
template <class T> HT_D ht_complex<T> ht_atan(const ht_complex<T>& z) {
    ht_complex<T> w = ht_atanh(ht_complex<T>(z.im, z.re)); return ht_complex<T>(w.im, w.re); }

/* NumPy's npy_cpow: 1 for a zero exponent, for a zero base 0 where Re b > 0 and NaN elsewhere,
   small integer powers by multiplication, else exp(b log a) */
template <class T> HT_D ht_complex<T> ht_pow(const ht_complex<T>& a, const ht_complex<T>& b) {
    if (b.re == 0 && b.im == 0) return ht_complex<T>(T(1), T(0));
    if (a.re == 0 && a.im == 0) {
        if (b.re > 0) return ht_complex<T>(T(0), T(0));
        return ht_complex<T>(ht_real_limits<T>::nan(), ht_real_limits<T>::nan());
    }
    if (b.im == 0 && ht_trunc(b.re) == b.re && ht_fabs(b.re) < 100) {
        long long n = (long long)b.re;
        if (n == 1) return a;
        if (n == 2) return a * a;
        if (n == 3) return a * (a * a);
        long long k = n < 0 ? -n : n, mask = 1;
        ht_complex<T> r(T(1), T(0)), p = a;
        while (true) {
            if (k & mask) r = r * p;
            mask <<= 1;
            if (k < mask) break;
            p = p * p;
        }
        return n < 0 ? ht_complex<T>(T(1), T(0)) / r : r;
    }
    return ht_exp(ht_log(a) * b);
}
template <class T> HT_D ht_complex<T> ht_sign(const ht_complex<T>& z) {
    if (ht_isnan(z)) return ht_complex<T>(ht_real_limits<T>::nan(), ht_real_limits<T>::nan());
    T m = ht_abs(z);
    if (m == 0) return ht_complex<T>(T(0), T(0));
    if (ht_isinf(m)) {   /* NumPy's: the direction of one infinite part; none for two */
        if (ht_isinf(z.re) && ht_isinf(z.im)) return ht_complex<T>(ht_real_limits<T>::nan(), ht_real_limits<T>::nan());
        return ht_isinf(z.re) ? ht_complex<T>(ht_copysign(T(1), z.re), T(0)) : ht_complex<T>(T(0), ht_copysign(T(1), z.im));
    }
    return ht_complex<T>(z.re / m, z.im / m);
}
"""

# nextafter on the bit pattern: plain C++ over the bit casts and the 2-byte floats, so that a host
# compiler builds it too (tests/tensor/test_tensor_funcs_cpu.py checks it against NumPy that way).
NEXTAFTER = r"""
/* nextafter on the bit pattern, in integer arithmetic alone: each type steps by its own ulp (float16
   and bfloat16 too, which other functions compute in float32), and no float comparison can flush a
   subnormal to zero. A NaN gives NaN, equal values give y (-0 toward +0 is +0), zero gives the
   smallest subnormal of y's sign, else the pattern moves one step away from zero or toward it. */
template <class T> struct ht_fbits;
template <> struct ht_fbits<float> { typedef unsigned int U; HT_D static U inf() { return 0x7f800000u; }
    HT_D static U get(float v) { return __float_as_uint(v); } HT_D static float put(U u) { return __uint_as_float(u); } };
template <> struct ht_fbits<double> { typedef unsigned long long U; HT_D static U inf() { return 0x7ff0000000000000ull; }
    HT_D static U get(double v) { return (U)__double_as_longlong(v); }
    HT_D static double put(U u) { return __longlong_as_double((long long)u); } };
template <> struct ht_fbits<ht_half> { typedef unsigned short U; HT_D static U inf() { return 0x7c00u; }
    HT_D static U get(ht_half v) { return v.bits; } HT_D static ht_half put(U u) { ht_half h; h.bits = u; return h; } };
template <> struct ht_fbits<ht_bfloat16> { typedef unsigned short U; HT_D static U inf() { return 0x7f80u; }
    HT_D static U get(ht_bfloat16 v) { return v.bits; }
    HT_D static ht_bfloat16 put(U u) { ht_bfloat16 h; h.bits = u; return h; } };
template <class T> HT_D T ht_nextafter(T x, T y) {
    typedef ht_fbits<T> B; typedef typename B::U U;
    const U sign = (U)((U)1 << (8 * sizeof(U) - 1)), mag = (U)~sign;
    const U bx = B::get(x), by = B::get(y);
    if ((U)(bx & mag) > B::inf()) return x;
    if ((U)(by & mag) > B::inf()) return y;
    if (bx == by || (U)((bx | by) & mag) == 0) return y;
    if ((U)(bx & mag) == 0) return B::put((U)((by & sign) | (U)1));
    /* the sign-magnitude patterns as unsigned keys in value order */
    const U kx = (bx & sign) ? (U)~bx : (U)(bx | sign), ky = (by & sign) ? (U)~by : (U)(by | sign);
    const bool away = (kx < ky) == ((bx & sign) == 0);     /* toward y is away from zero */
    return B::put(away ? (U)(bx + (U)1) : (U)(bx - (U)1));
}
"""

_REST = r"""
/* ---- one cast between every pair of element types ------------------------------------------- */
template <class To, class From> struct ht_caster { HT_D static To f(const From& v) { return (To)v; } };
template <class From> struct ht_caster<bool, From> { HT_D static bool f(const From& v) { return v != From(0); } };
template <> struct ht_caster<bool, ht_half> { HT_D static bool f(const ht_half& v) { return (float)v != 0.0f; } };
template <> struct ht_caster<bool, ht_bfloat16> { HT_D static bool f(const ht_bfloat16& v) { return (float)v != 0.0f; } };
template <> struct ht_caster<bool, bool> { HT_D static bool f(const bool& v) { return v; } };
template <class T> struct ht_caster<bool, ht_complex<T> > {
    HT_D static bool f(const ht_complex<T>& v) { return v.re != 0 || v.im != 0; } };
template <class To, class T> struct ht_caster<To, ht_complex<T> > {
    HT_D static To f(const ht_complex<T>& v) { return ht_caster<To, T>::f(v.re); } };
template <class T, class From> struct ht_caster<ht_complex<T>, From> {
    HT_D static ht_complex<T> f(const From& v) { return ht_complex<T>(ht_caster<T, From>::f(v), T(0)); } };
template <class T, class U> struct ht_caster<ht_complex<T>, ht_complex<U> > {
    HT_D static ht_complex<T> f(const ht_complex<U>& v) { return ht_complex<T>((T)v.re, (T)v.im); } };
template <class From> struct ht_caster<ht_half, From> { HT_D static ht_half f(const From& v) { return ht_half(v); } };
template <class From> struct ht_caster<ht_bfloat16, From> { HT_D static ht_bfloat16 f(const From& v) { return ht_bfloat16(v); } };
template <> struct ht_caster<ht_half, ht_bfloat16> { HT_D static ht_half f(const ht_bfloat16& v) { return ht_half((float)v); } };
template <> struct ht_caster<ht_half, ht_half> { HT_D static ht_half f(const ht_half& v) { return v; } };
template <> struct ht_caster<ht_bfloat16, ht_bfloat16> { HT_D static ht_bfloat16 f(const ht_bfloat16& v) { return v; } };
template <class T> struct ht_caster<ht_half, ht_complex<T> > {
    HT_D static ht_half f(const ht_complex<T>& v) { return ht_half(v.re); } };
template <class T> struct ht_caster<ht_bfloat16, ht_complex<T> > {
    HT_D static ht_bfloat16 f(const ht_complex<T>& v) { return ht_bfloat16(v.re); } };
template <class T> struct ht_caster<ht_complex<T>, ht_half> {
    HT_D static ht_complex<T> f(const ht_half& v) { return ht_complex<T>((T)(float)v, T(0)); } };
template <class T> struct ht_caster<ht_complex<T>, ht_bfloat16> {
    HT_D static ht_complex<T> f(const ht_bfloat16& v) { return ht_complex<T>((T)(float)v, T(0)); } };
template <class To, class From> HT_D To ht_cast(const From& v) { return ht_caster<To, From>::f(v); }

/* ---- integer helpers: wrap-around arithmetic (signed overflow is undefined in C++) ----------- */
template <class T> struct ht_uint { typedef T type; };
template <> struct ht_uint<signed char> { typedef unsigned char type; };
template <> struct ht_uint<short> { typedef unsigned short type; };
template <> struct ht_uint<int> { typedef unsigned int type; };
template <> struct ht_uint<long long> { typedef unsigned long long type; };
template <class T> struct ht_is_int { enum { value = 0, is_signed = 0 }; };
template <> struct ht_is_int<signed char> { enum { value = 1, is_signed = 1 }; };
template <> struct ht_is_int<short> { enum { value = 1, is_signed = 1 }; };
template <> struct ht_is_int<int> { enum { value = 1, is_signed = 1 }; };
template <> struct ht_is_int<long long> { enum { value = 1, is_signed = 1 }; };
template <> struct ht_is_int<unsigned char> { enum { value = 1, is_signed = 0 }; };
template <> struct ht_is_int<unsigned short> { enum { value = 1, is_signed = 0 }; };
template <> struct ht_is_int<unsigned int> { enum { value = 1, is_signed = 0 }; };
template <> struct ht_is_int<unsigned long long> { enum { value = 1, is_signed = 0 }; };

template <class T> HT_D T ht_add(T a, T b) { typedef typename ht_uint<T>::type U; return (T)((U)a + (U)b); }
template <class T> HT_D T ht_sub(T a, T b) { typedef typename ht_uint<T>::type U; return (T)((U)a - (U)b); }
template <class T> HT_D T ht_mul(T a, T b) { typedef typename ht_uint<T>::type U; return (T)((U)a * (U)b); }
template <class T> HT_D T ht_neg(T a) { typedef typename ht_uint<T>::type U; return (T)((U)0 - (U)a); }
HT_D bool ht_add(bool a, bool b) { return a || b; }
HT_D bool ht_mul(bool a, bool b) { return a && b; }

/* floor_divide and remainder with Python's signs (NumPy's npy_divmod for floats) */
template <class T> HT_D T ht_floor_divide(T a, T b) {
    if (b == 0) return T(0);
    if (ht_is_int<T>::is_signed) {
        if (b == T(-1)) return ht_neg(a);
        T q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
        return q;
    }
    return a / b;
}
template <class T> HT_D T ht_fdiv_float(T a, T b) {
    if (b == 0) return a / b;
    T mod = ht_fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0) { if ((b < 0) != (mod < 0)) div -= T(1); }
    T fl;
    if (div != 0) { fl = ht_floor(div); if (div - fl > T(0.5)) fl += T(1); }
    else fl = ht_copysign(T(0), a / b);
    return fl;
}
HT_D float ht_floor_divide(float a, float b) { return ht_fdiv_float(a, b); }
HT_D double ht_floor_divide(double a, double b) { return ht_fdiv_float(a, b); }
template <class T> HT_D T ht_remainder(T a, T b) {
    if (b == 0) return T(0);
    if (ht_is_int<T>::is_signed) {
        if (b == T(-1)) return T(0);
        T r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
    }
    return a % b;
}
template <class T> HT_D T ht_rem_float(T a, T b) {
    T mod = ht_fmod(a, b);
    if (b == 0) return mod;
    if (mod != 0) { if ((b < 0) != (mod < 0)) mod += b; }
    else mod = ht_copysign(T(0), b);
    return mod;
}
HT_D float ht_remainder(float a, float b) { return ht_rem_float(a, b); }
HT_D double ht_remainder(double a, double b) { return ht_rem_float(a, b); }

/* integer power by squaring, wrapping; negative exponents give 1/base truncated (1, -1 or 0) */
template <class T> HT_D T ht_ipow(T a, T b) {
    if (ht_is_int<T>::is_signed && b < 0) {
        if (a == T(1)) return T(1);
        if (a == T(-1)) return (b & 1) ? T(-1) : T(1);
        return T(0);
    }
    T r = T(1);
    while (b) { if (b & 1) r = ht_mul(r, a); a = ht_mul(a, a); b >>= 1; }
    return r;
}
template <class T> HT_D T ht_power(T a, T b) { return ht_ipow(a, b); }
HT_D float ht_power(float a, float b) { return ht_pow(a, b); }
HT_D double ht_power(double a, double b) { return ht_pow(a, b); }
template <class T> HT_D ht_complex<T> ht_power(const ht_complex<T>& a, const ht_complex<T>& b) { return ht_pow(a, b); }

/* shifts as NumPy: counts outside [0, bits) give 0 (left) or the sign fill (right) */
template <class T> HT_D T ht_lshift(T a, T b) {
    typedef typename ht_uint<T>::type U;
    if ((ht_is_int<T>::is_signed && b < 0) || (unsigned long long)b >= 8 * sizeof(T)) return T(0);
    return (T)((U)a << b);
}
template <class T> HT_D T ht_rshift(T a, T b) {
    if ((ht_is_int<T>::is_signed && b < 0) || (unsigned long long)b >= 8 * sizeof(T)) return (a < 0) ? T(-1) : T(0);
    return a >> b;
}

/* maximum / minimum propagate NaN, as NumPy */
template <class T> HT_D T ht_maximum(T a, T b) { return (a >= b || a != a) ? a : b; }
template <class T> HT_D T ht_minimum(T a, T b) { return (a <= b || a != a) ? a : b; }
template <class T> HT_D ht_complex<T> ht_maximum(const ht_complex<T>& a, const ht_complex<T>& b) {
    return (a >= b || ht_isnan(a)) ? a : b; }
template <class T> HT_D ht_complex<T> ht_minimum(const ht_complex<T>& a, const ht_complex<T>& b) {
    return (a <= b || ht_isnan(a)) ? a : b; }

template <class T> HT_D T ht_abs(T a) { return a < 0 ? ht_neg(a) : a; }
HT_D float ht_abs(float a) { return fabsf(a); }
HT_D double ht_abs(double a) { return fabs(a); }
HT_D bool ht_abs(bool a) { return a; }
template <class T> HT_D T ht_sign(T a) { return (T)((a > 0) - (a < 0)); }
HT_D float ht_sign(float a) { return a > 0 ? 1.0f : a < 0 ? -1.0f : a == 0 ? 0.0f : a; }
HT_D double ht_sign(double a) { return a > 0 ? 1.0 : a < 0 ? -1.0 : a == 0 ? 0.0 : a; }
template <class T> HT_D T ht_logaddexp(T x, T y) {
    if (x == y) return x + ht_real_limits<T>::ln2();
    T d = x - y;
    if (d > 0) return x + ht_log1p(ht_exp(-d));
    if (d <= 0) return y + ht_log1p(ht_exp(d));
    return d;
}
template <class T> HT_D T ht_floor(T a) { return a; }
template <class T> HT_D T ht_ceil(T a) { return a; }
template <class T> HT_D T ht_trunc(T a) { return a; }
template <class T> HT_D T ht_rint(T a) { return a; }
template <class T> HT_D ht_complex<T> ht_rint(const ht_complex<T>& a) { return ht_complex<T>(ht_rint(a.re), ht_rint(a.im)); }
template <class T> HT_D T ht_conj(T a) { return a; }
template <class T> HT_D T ht_real(T a) { return a; }
template <class T> HT_D T ht_real(const ht_complex<T>& a) { return a.re; }
template <class T> HT_D T ht_imag(T) { return T(0); }
template <class T> HT_D T ht_imag(const ht_complex<T>& a) { return a.im; }
HT_D float ht_neg(float a) { return -a; }
HT_D double ht_neg(double a) { return -a; }
template <class T> HT_D ht_complex<T> ht_neg(const ht_complex<T>& a) { return -a; }
template <class T> HT_D T ht_invert(T a) { return (T)~a; }
HT_D bool ht_invert(bool a) { return !a; }
template <class T> HT_D bool ht_signbit(T a) { return a < 0; }
template <class T> HT_D T ht_sqnorm(T a) { return a * a; }
template <class T> HT_D T ht_sqnorm(const ht_complex<T>& a) { return a.re * a.re + a.im * a.im; }
template <class T> HT_D bool ht_isnan(T) { return false; }
template <class T> HT_D bool ht_isinf(T) { return false; }
template <class T> HT_D bool ht_isfinite(T) { return true; }

/* ---- the strided N-d indexer ----------------------------------------------------------------- */
template <int N> struct ht_dims { long long v[N]; };
/* V consecutive elements moved by one wide load or store (the contiguous kernels' vector path) */
template <class T, int V> struct alignas(sizeof(T) * V) ht_vec { T v[V]; };

/* byte offset of flat index i in a C-ordered walk over `shape`, for one array's byte `strides` */
template <int N, class I> HT_D long long ht_offset(I i, const ht_dims<N>& shape, const ht_dims<N>& strides) {
    long long off = 0;
#pragma unroll
    for (int d = N - 1; d >= 0; --d) {
        I e = (I)shape.v[d];
        I c = i % e;
        i /= e;
        off += (long long)c * strides.v[d];
    }
    return off;
}
template <class T> HT_D T& ht_at(char* base, long long off) { return *reinterpret_cast<T*>(base + off); }
template <class T> HT_D const T& ht_at(const char* base, long long off) { return *reinterpret_cast<const T*>(base + off); }
"""

PRELUDE = _HEAD + _TWO_BYTE_FLOATS + SCALAR_MATH + NEXTAFTER + _REST


def source(*parts: str) -> str:
    """A complete kernel source: the prelude, then `parts`."""
    return PRELUDE + "\n" + "\n".join(parts)
