"""hip.tensor's kernel APIs on a device: ElementwiseKernel (placeholders, fixed types, scalars,
broadcasting, given outputs, raw parameters, the flat index, strided and 0-d inputs, per-dtype
specialization, the 64-bit index path), RawKernel/RawModule (launch arguments, name expressions,
the prelude's types), and their bad input."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht

pytestmark = pytest.mark.gpu


def test_elementwise_kernel_placeholders_and_scalars():
    axpy = ht.ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "axpy")
    for dtype in (np.float32, np.float64, np.int32, np.complex64):
        x = np.arange(12, dtype=dtype).reshape(3, 4)
        y = np.ones(4, dtype=dtype)
        got = axpy(dtype(2), ht.asarray(x), ht.asarray(y))   # a NumPy scalar of T, y broadcast
        assert got.dtype.name == np.dtype(dtype).name
        np.testing.assert_allclose(got.get(), 2 * x + y)
    got = axpy(3, ht.asarray(np.ones(5, np.float32)), ht.asarray(np.ones(5, np.float32)))   # Python int -> T
    np.testing.assert_array_equal(got.get(), np.full(5, 4, np.float32))


def test_elementwise_kernel_fixed_types_outputs_and_index():
    k = ht.ElementwiseKernel("float32 x, int64 k", "float64 y, int32 j", "y = x * k + i; j = (int)i", "fixed")
    x = ht.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))[:, ::-1]      # strided, negative
    y, j = k(x, 10)
    np.testing.assert_array_equal(y.get(), np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-1] * 10 + np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(j.get(), np.arange(6).reshape(2, 3))
    out_y = ht.zeros((2, 3))
    out_j = ht.zeros((2, 3), dtype=ht.int32)
    r = k(x, 10, out_y, out_j)
    assert r[0] is out_y and r[1] is out_j
    np.testing.assert_array_equal(out_y.get(), y.get())
    # an input array of another dtype is cast on load (int16 -> float32)
    np.testing.assert_array_equal(k(ht.asarray(np.arange(3, dtype=np.int16)), 2)[0].get(), np.arange(3) * 2.0 + np.arange(3))


def test_elementwise_kernel_raw_and_size():
    rev = ht.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "reverse")
    a = np.arange(10, dtype=np.float64)
    out = ht.empty((10,))
    rev(ht.asarray(a), out)
    np.testing.assert_array_equal(out.get(), a[::-1])
    iota = ht.ElementwiseKernel("", "int64 y", "y = i * 2", "iota2")
    np.testing.assert_array_equal(iota(ht.empty((7,), dtype=ht.int64)).get(), np.arange(7) * 2)


def test_elementwise_kernel_half_types_and_preamble():
    k = ht.ElementwiseKernel("T x", "T y", "y = twice((float)x)", "h2",
                             preamble="__device__ float twice(float v) { return 2.0f * v; }")
    for dt in (ht.float16, ht.bfloat16):
        x = ht.asarray(np.array([1.5, -2.25, 3.0], np.float32), dtype=dt)
        y = k(x)
        assert y.dtype is dt
        np.testing.assert_array_equal(y.get(), np.array([3.0, -4.5, 6.0], np.float32))


def test_elementwise_kernel_0d_empty_and_broadcast_output():
    add = ht.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add2")
    z = add(ht.asarray(np.float32(1)), ht.asarray(np.float32(2)))
    assert z.shape == () and float(z) == 3.0
    assert add(ht.zeros((0, 3)), ht.zeros((1, 3))).shape == (0, 3)
    with pytest.raises(ValueError):
        add(ht.zeros((2, 3)), ht.zeros((3,)), ht.zeros((3,)))       # output of the wrong shape


def test_elementwise_kernel_specializes_per_dtype_once():
    neg = ht.ElementwiseKernel("T x", "T y", "y = -x", "negk")
    for _ in range(3):
        for dt in (np.float32, np.int8):
            neg(ht.asarray(np.ones(4, dt)))
    assert len(neg._functions) == 2


def test_large_array_uses_64bit_index():
    n = (1 << 31) + 8            # more elements than a 32-bit index reaches: 2 GiB of int8
    fill = ht.ElementwiseKernel("", "int8 y", "y = (signed char)(i & 63)", "fill_mod")
    try:
        y = ht.empty((n,), dtype=ht.int8)
    except MemoryError:
        pytest.skip("not enough device memory for a 2 GiB array")
    fill(y)
    tail = y[-8:].get()
    np.testing.assert_array_equal(tail, (np.arange(n - 8, n) & 63).astype(np.int8))
    assert int(ht.sum(y[-1000:], dtype=ht.int64)) == int(np.sum(np.arange(n - 1000, n) & 63))


def test_raw_kernel_and_module():
    src = r'''
extern "C" __global__ void scale(float* x, float a, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
template <typename T> __global__ void fill(T* out, T v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}
__device__ int counter = 5;
'''
    x = ht.asarray(np.arange(1000, dtype=np.float32))
    k = ht.RawKernel(src, "scale")
    k(((1000 + 255) // 256,), (256,), (x, np.float32(3), 1000))
    np.testing.assert_array_equal(x.get(), np.arange(1000, dtype=np.float32) * 3)
    assert k.max_threads_per_block >= 256
    m = ht.RawModule(src, name_expressions=("fill<int>", "fill<double>"))
    y = ht.empty((50,), dtype=ht.int32)
    m.get_function("fill<int>")((1,), (64,), (y, np.int32(7), np.int32(50)))
    np.testing.assert_array_equal(y.get(), np.full(50, 7, np.int32))
    addr, size = m.get_global("counter")
    assert size == 4 and addr
    p = ht.RawKernel(r'extern "C" __global__ void half_it(ht_half* x) { x[threadIdx.x] = ht_half((float)x[threadIdx.x] * 0.5f); }',
                     "half_it", prelude=True)
    h = ht.asarray(np.array([2.0, 4.0, 8.0], np.float16))
    p((1,), (3,), (h,))
    np.testing.assert_array_equal(h.get(), np.array([1.0, 2.0, 4.0], np.float16))


def test_raw_kernel_bad_input():
    with pytest.raises(TypeError):
        ht.RawKernel(b"not str", "k")
    k = ht.RawKernel('extern "C" __global__ void k(int* p) { }', "k")
    with pytest.raises(TypeError):
        k((1,), (1,), "not a tuple")
    from hip.tensor._kernels.compiler import CompileError
    with pytest.raises(CompileError):
        ht.RawKernel('extern "C" __global__ void broken( { }', "broken").compile()


def test_raw_parameter_of_a_strided_array_is_indexed_in_c_order():
    rev = ht.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "reverse2")
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    out = ht.empty((20,), dtype=ht.int32)
    rev(ht.asarray(a)[:, ::-1], out)
    np.testing.assert_array_equal(out.get(), a[:, ::-1].reshape(-1)[::-1])


def test_matmul_operator_routes_to_linalg():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose((ht.asarray(a) @ ht.asarray(b)).get(), a @ b, rtol=1e-6)
