"""What the tests that run hip.tensor's kernel C++ on the host share: the bit casts the prelude
calls (CUDA/HIP intrinsics, as plain C++), the HIP API a kernel uses as a host header (HOST_HIP),
bfloat16 bits from and to NumPy, and the softmax rows of special values that the GPU
test and the block kernel's host run both check; one g++ build of kernels into a host library."""
from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

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


# The HIP API the kernel and the prelude use, for the host: found by the prelude's
# __has_include(<hip/hip_runtime.h>) before any system header of that name.
HOST_HIP = r"""
#pragma once
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>
#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(x)
#define __shared__ static
""" + BIT_CASTS + r"""
struct ht_host_dim3 { unsigned x; };
static thread_local ht_host_dim3 threadIdx, blockIdx;
static ht_host_dim3 gridDim, blockDim;
static std::barrier<>* ht_host_barrier;
static inline void __syncthreads() { ht_host_barrier->arrive_and_wait(); }
/* each block in turn: `block` host threads, one barrier */
template <class F> void ht_host_launch(int grid, int block, F kernel) {
    gridDim.x = grid;
    blockDim.x = block;
    for (int b = 0; b < grid; ++b) {
        std::barrier<> bar(block);
        ht_host_barrier = &bar;
        std::vector<std::thread> threads;
        for (int t = 0; t < block; ++t)
            threads.emplace_back([=] { threadIdx.x = t; blockIdx.x = b; kernel(); });
        for (auto& t : threads) t.join();
    }
}
"""


def to_bf16_bits(a):
    """float64 -> bfloat16 bits, rounded to nearest even through float32 (as the prelude)."""
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(a)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    u[nan] = 0x7FC0
    return u


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def build_host_library(tmp_path_factory, name: str, body: list):
    """The kernel sources in `body` (with their `extern "C"` runners) compiled by g++ into a
    shared library run on the host (HOST_HIP stands in for hip/hip_runtime.h); skips where
    g++, _Float16 or C++20's <barrier> is missing."""
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    root = tmp_path_factory.mktemp(name)
    (root / "hip").mkdir()
    (root / "hip" / "hip_runtime.h").write_text(HOST_HIP)
    (root / "k.cpp").write_text("\n".join(body))
    r = subprocess.run(["g++", "-std=c++20", "-O1", "-ffp-contract=off", "-pthread", "-shared", "-fPIC", "-I",
                        str(root), "-o", str(root / "k.so"), str(root / "k.cpp")], capture_output=True, text=True)
    if r.returncode and ("_Float16" in r.stderr or "barrier" in r.stderr):
        pytest.skip("this g++ has no _Float16 or no C++20 <barrier>")
    assert r.returncode == 0, f"g++ rejects the kernel source:\n{r.stderr[-4000:]}"
    return ctypes.CDLL(str(root / "k.so"))
