"""What the tests that run hip.tensor's kernel C++ on the host share: the bit casts the prelude
calls (CUDA/HIP intrinsics, as plain C++), and the softmax rows of special values that the GPU
test and the block kernel's host run both check."""
from __future__ import annotations

import numpy as np

BIT_CASTS = r"""
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
static inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
static inline long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
"""


def softmax_special_rows(n: int) -> np.ndarray:
    """Rows of n (float64) with +-inf, NaN, a row of -inf, a lone finite value among -inf, large
    values (PyTorch: a row with a NaN or a +inf, and a row of -inf, give NaN)."""
    a = np.tile(np.linspace(-1.0, 1.0, n), (8, 1))
    a[0, :3] = [1000.0, 1000.0, -1000.0]
    a[1, 0] = -np.inf
    a[2] = -np.inf
    a[3, n // 2] = np.nan
    a[4, n - 1] = np.inf
    a[5] = -np.inf
    a[5, n // 3] = 0.0
    a[6, :2] = [np.inf, -np.inf]
    return a
