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


def _math_wrappers() -> str:
    # Overloads by float/double so generated code names one function for every real type.
    lines = []
    for f in _UNARY_MATH:
        lines.append(f"HT_D float ht_{f}(float x) {{ return {f}f(x); }} "
                     f"HT_D double ht_{f}(double x) {{ return {f}(x); }}")
    for f in _BINARY_MATH:
        lines.append(f"HT_D float ht_{f}(float x, float y) {{ return {f}f(x, y); }} "
                     f"HT_D double ht_{f}(double x, double y) {{ return {f}(x, y); }}")
    return "\n".join(lines)


PRELUDE = r"""
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

HT_D float ht_inf_f() { return __int_as_float(0x7f800000); }
HT_D double ht_inf_d() { return __longlong_as_double(0x7ff0000000000000LL); }
HT_D float ht_nan_f() { return __int_as_float(0x7fc00000); }
HT_D double ht_nan_d() { return __longlong_as_double(0x7ff8000000000000LL); }

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
struct alignas(2) ht_half {
    unsigned short bits;
    ht_half() = default;
    HT_D ht_half(float f) : bits(ht_float_to_half_bits(f)) {}
    HT_D ht_half(double f) : bits(ht_double_to_half_bits(f)) {}
    HT_D ht_half(bool v) : bits(v ? 0x3c00 : 0) {}
    HT_D ht_half(int v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(unsigned int v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(long long v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(unsigned long long v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(signed char v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(unsigned char v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(short v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D ht_half(unsigned short v) : bits(ht_float_to_half_bits((float)v)) {}
    HT_D operator float() const { return ht_half_bits_to_float(bits); }
    HT_D ht_half& operator+=(float o) { *this = ht_half((float)*this + o); return *this; }
    HT_D ht_half& operator-=(float o) { *this = ht_half((float)*this - o); return *this; }
    HT_D ht_half& operator*=(float o) { *this = ht_half((float)*this * o); return *this; }
    HT_D ht_half& operator/=(float o) { *this = ht_half((float)*this / o); return *this; }
};

/* ---- bfloat16: the high half of a float32, rounded to nearest even -------------------------- */
HT_D unsigned short ht_float_to_bf16_bits(float f) {
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);  /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
HT_D float ht_bf16_bits_to_float(unsigned short b) { return __uint_as_float(((unsigned int)b) << 16); }
struct alignas(2) ht_bfloat16 {
    unsigned short bits;
    ht_bfloat16() = default;
    HT_D ht_bfloat16(float f) : bits(ht_float_to_bf16_bits(f)) {}
    HT_D ht_bfloat16(double f) : bits(ht_float_to_bf16_bits((float)f)) {}
    HT_D ht_bfloat16(bool v) : bits(v ? 0x3f80 : 0) {}
    HT_D ht_bfloat16(int v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(unsigned int v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(long long v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(unsigned long long v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(signed char v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(unsigned char v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(short v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(unsigned short v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D ht_bfloat16(ht_half v) : bits(ht_float_to_bf16_bits((float)v)) {}
    HT_D operator float() const { return ht_bf16_bits_to_float(bits); }
    HT_D ht_bfloat16& operator+=(float o) { *this = ht_bfloat16((float)*this + o); return *this; }
    HT_D ht_bfloat16& operator-=(float o) { *this = ht_bfloat16((float)*this - o); return *this; }
    HT_D ht_bfloat16& operator*=(float o) { *this = ht_bfloat16((float)*this * o); return *this; }
    HT_D ht_bfloat16& operator/=(float o) { *this = ht_bfloat16((float)*this / o); return *this; }
};

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
template <> struct ht_real_limits<float> {
    HT_D static float inf() { return ht_inf_f(); } HT_D static float nan() { return ht_nan_f(); }
    HT_D static float pi() { return 3.14159265358979f; } HT_D static float ln2() { return 0.693147180559945f; }
    HT_D static float ln10() { return 2.30258509299405f; } };
template <> struct ht_real_limits<double> {
    HT_D static double inf() { return ht_inf_d(); } HT_D static double nan() { return ht_nan_d(); }
    HT_D static double pi() { return 3.141592653589793238; } HT_D static double ln2() { return 0.6931471805599453094; }
    HT_D static double ln10() { return 2.302585092994045684; } };

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
        T abr = b.re < 0 ? -b.re : b.re, abi = b.im < 0 ? -b.im : b.im;
        if (abr >= abi) {
            if (abr == 0 && abi == 0) return ht_complex(a.re / abr, a.im / abi);
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
template <class T> HT_D ht_complex<T> ht_exp(const ht_complex<T>& z) {
    if (z.im == 0) return ht_complex<T>(ht_exp(z.re), z.im);
    T e = ht_exp(z.re);
    return ht_complex<T>(e * ht_cos(z.im), e * ht_sin(z.im));
}
template <class T> HT_D ht_complex<T> ht_log(const ht_complex<T>& z) {
    return ht_complex<T>(ht_log(ht_abs(z)), ht_atan2(z.im, z.re));
}
template <class T> HT_D ht_complex<T> ht_sqrt(const ht_complex<T>& z) {
    if (z.re == 0 && z.im == 0) return ht_complex<T>(T(0), z.im);
    if (ht_isinf(z.im)) return ht_complex<T>(ht_real_limits<T>::inf(), z.im);
    T t = ht_sqrt((ht_fabs(z.re) + ht_abs(z)) * T(0.5));
    if (z.re >= 0) return ht_complex<T>(t, z.im / (2 * t));
    return ht_complex<T>(ht_fabs(z.im) / (2 * t), ht_copysign(t, z.im));
}
template <class T> HT_D ht_complex<T> ht_sin(const ht_complex<T>& z) {
    return ht_complex<T>(ht_sin(z.re) * ht_cosh(z.im), ht_cos(z.re) * ht_sinh(z.im)); }
template <class T> HT_D ht_complex<T> ht_cos(const ht_complex<T>& z) {
    return ht_complex<T>(ht_cos(z.re) * ht_cosh(z.im), -ht_sin(z.re) * ht_sinh(z.im)); }
template <class T> HT_D ht_complex<T> ht_sinh(const ht_complex<T>& z) {
    return ht_complex<T>(ht_sinh(z.re) * ht_cos(z.im), ht_cosh(z.re) * ht_sin(z.im)); }
template <class T> HT_D ht_complex<T> ht_cosh(const ht_complex<T>& z) {
    return ht_complex<T>(ht_cosh(z.re) * ht_cos(z.im), ht_sinh(z.re) * ht_sin(z.im)); }
template <class T> HT_D ht_complex<T> ht_tanh(const ht_complex<T>& z) {
    /* Kahan's formula; saturates to +-1 where cosh would overflow */
    if (ht_fabs(z.re) > T(20)) return ht_complex<T>(ht_copysign(T(1), z.re), ht_copysign(T(0), ht_sin(2 * z.im)));
    T t = ht_tan(z.im), b = 1 + t * t, s = ht_sinh(z.re), rho = ht_sqrt(1 + s * s), d = 1 + b * s * s;
    return ht_complex<T>(b * rho * s / d, t / d);
}
template <class T> HT_D ht_complex<T> ht_tan(const ht_complex<T>& z) {
    ht_complex<T> w = ht_tanh(ht_complex<T>(-z.im, z.re));   /* tan z = -i tanh(iz) */
    return ht_complex<T>(w.im, -w.re);
}
template <class T> HT_D ht_complex<T> ht_asinh(const ht_complex<T>& z) {
    if (z.re < 0 || (z.re == 0 && ht_signbit(z.re))) { ht_complex<T> w = ht_asinh(-z); return -w; }
    return ht_log(z + ht_sqrt(z * z + ht_complex<T>(T(1))));
}
template <class T> HT_D ht_complex<T> ht_asin(const ht_complex<T>& z) {
    ht_complex<T> w = ht_asinh(ht_complex<T>(-z.im, z.re));  /* asin z = -i asinh(iz) */
    return ht_complex<T>(w.im, -w.re);
}
template <class T> HT_D ht_complex<T> ht_acos(const ht_complex<T>& z) {
    ht_complex<T> w = ht_asin(z);
    return ht_complex<T>(ht_real_limits<T>::pi() / 2 - w.re, -w.im);
}
template <class T> HT_D ht_complex<T> ht_acosh(const ht_complex<T>& z) {
    ht_complex<T> one(T(1));
    ht_complex<T> w = ht_log(z + ht_sqrt(z + one) * ht_sqrt(z - one));
    return w;
}
template <class T> HT_D ht_complex<T> ht_atanh(const ht_complex<T>& z) {
    ht_complex<T> one(T(1));
    ht_complex<T> w = ht_log(one + z) - ht_log(one - z);
    return ht_complex<T>(w.re / 2, w.im / 2);
}
template <class T> HT_D ht_complex<T> ht_atan(const ht_complex<T>& z) {
    ht_complex<T> w = ht_atanh(ht_complex<T>(-z.im, z.re));  /* atan z = -i atanh(iz) */
    return ht_complex<T>(w.im, -w.re);
}
template <class T> HT_D ht_complex<T> ht_expm1(const ht_complex<T>& z) {
    T s = ht_sin(z.im / 2);
    return ht_complex<T>(ht_expm1(z.re) * ht_cos(z.im) - 2 * s * s, ht_exp(z.re) * ht_sin(z.im));
}
template <class T> HT_D ht_complex<T> ht_log1p(const ht_complex<T>& z) {
    T m = ht_hypot(z.re + 1, z.im);
    return ht_complex<T>(ht_log(m), ht_atan2(z.im, z.re + 1));
}
template <class T> HT_D ht_complex<T> ht_log2(const ht_complex<T>& z) {
    ht_complex<T> w = ht_log(z); return ht_complex<T>(w.re / ht_real_limits<T>::ln2(), w.im / ht_real_limits<T>::ln2()); }
template <class T> HT_D ht_complex<T> ht_log10(const ht_complex<T>& z) {
    ht_complex<T> w = ht_log(z); return ht_complex<T>(w.re / ht_real_limits<T>::ln10(), w.im / ht_real_limits<T>::ln10()); }
template <class T> HT_D ht_complex<T> ht_pow(const ht_complex<T>& a, const ht_complex<T>& b) {
    if (b.im == 0) {
        if (b.re == 0) return ht_complex<T>(T(1), T(0));
        if (a.re == 0 && a.im == 0 && b.re > 0) return ht_complex<T>(T(0), T(0));
        T n = b.re;
        if (ht_trunc(n) == n && ht_fabs(n) < 100) {          /* small integer powers by squaring, as NumPy */
            long long k = (long long)ht_fabs(n);
            ht_complex<T> r(T(1)), p = a;
            while (k) { if (k & 1) r = r * p; p = p * p; k >>= 1; }
            return n < 0 ? ht_complex<T>(T(1)) / r : r;
        }
    }
    if (a.re == 0 && a.im == 0) return ht_complex<T>(ht_real_limits<T>::nan(), ht_real_limits<T>::nan());
    return ht_exp(ht_log(a) * b);
}
template <class T> HT_D ht_complex<T> ht_sign(const ht_complex<T>& z) {
    if (ht_isnan(z)) return ht_complex<T>(ht_real_limits<T>::nan(), ht_real_limits<T>::nan());
    T m = ht_abs(z);
    if (m == 0) return ht_complex<T>(T(0), T(0));
    if (ht_isinf(m)) {   /* direction of an infinite value */
        T r = ht_isinf(z.re) ? ht_copysign(T(1), z.re) : T(0), i = ht_isinf(z.im) ? ht_copysign(T(1), z.im) : T(0);
        T n = ht_hypot(r, i); return ht_complex<T>(r / n, i / n);
    }
    return ht_complex<T>(z.re / m, z.im / m);
}

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


def source(*parts: str) -> str:
    """A complete kernel source: the prelude, then `parts`."""
    return PRELUDE + "\n" + "\n".join(parts)
