"""HIP Python's object model on device memory: hipMalloc's DeviceArray, configure(), NumPy-style
slices as pointer arguments, __cuda_array_interface__ consumers, and the buffer protocol refused
for device memory. Results checked against NumPy on the same data."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hip
from hip import hip as h
from hip._util.types import DeviceArray, NDBuffer, Pointer

from gpu_util import D2D, D2H, H2D

pytestmark = pytest.mark.gpu


@pytest.fixture
def matrix():
    """A (6, 10) float32 matrix on the device (HIP Python style) and the same on the host."""
    m, n = 6, 10
    a = np.arange(m * n, dtype=np.float32).reshape(m, n)
    x_d = hip.check(h.hipMalloc(a.nbytes))
    yield a, x_d
    hip.check(h.hipFree(x_d))


def test_malloc_result_is_amds_device_array(matrix):
    a, x_d = matrix
    assert isinstance(x_d, DeviceArray) and isinstance(x_d, NDBuffer) and isinstance(x_d, Pointer)
    assert x_d.shape == (a.nbytes,) and x_d.typestr == "B" and x_d.itemsize == 1 and x_d.size == a.nbytes
    x_d.configure(typestr="float32", shape=a.shape, itemsize=4)
    assert (x_d.shape, x_d.typestr, x_d.itemsize, x_d.size) == (a.shape, "float32", 4, a.size)
    cai = x_d.__cuda_array_interface__
    assert cai["shape"] == a.shape and np.dtype(cai["typestr"]) == a.dtype and cai["data"] == (int(x_d), False)
    with pytest.raises(ValueError):
        x_d.configure(typestr="float32", shape=(a.size + 1,))      # more than the allocation
    with pytest.raises(BufferError):
        memoryview(x_d)                                            # device memory: no host reads


def test_slices_are_pointer_arguments(matrix):
    a, x_d = matrix
    hip.check(h.hipMemcpy(x_d, a, a.nbytes, H2D))
    x_d.configure(typestr="float32", shape=a.shape)
    for r in range(a.shape[0]):
        row = np.zeros(a.shape[1], np.float32)
        hip.check(h.hipMemcpy(row, x_d[r, :], row.nbytes, D2H))    # HIP Python's row view
        np.testing.assert_array_equal(row, a[r, :])
    tail = np.zeros((a.shape[0] - 2, a.shape[1]), np.float32)
    hip.check(h.hipMemcpy(tail, x_d[2:], tail.nbytes, D2H))
    np.testing.assert_array_equal(tail, a[2:])
    # a strided column: its first element's address and strides, copied with hipMemcpy2D
    col = x_d[1:, 3]
    assert col.shape == (a.shape[0] - 1,) and col.strides == (a.strides[0],)
    out = np.zeros(a.shape[0] - 1, np.float32)
    hip.check(h.hipMemcpy2D(out, 4, col, col.strides[0], 4, col.shape[0], D2H))
    np.testing.assert_array_equal(out, a[1:, 3])
    # writing through a view: row 4 := row 0
    hip.check(h.hipMemcpy(x_d[4], x_d[0], 4 * a.shape[1], D2D))
    back = np.zeros_like(a)
    hip.check(h.hipMemcpy(back, x_d, a.nbytes, D2H))
    expect = a.copy()
    expect[4] = a[0]
    np.testing.assert_array_equal(back, expect)


def test_views_with_cupy(matrix):
    cp = pytest.importorskip("cupy")
    a, x_d = matrix
    hip.check(h.hipMemcpy(x_d, a, a.nbytes, H2D))
    x_d.configure(typestr="float32", shape=a.shape)
    for key in [(2, slice(None)), (slice(1, None), 3), (slice(None, None, 2), slice(1, 8, 3)), (Ellipsis, -1)]:
        v = cp.asarray(x_d[key])                   # CuPy reads shape, strides and typestr from the CAI
        np.testing.assert_array_equal(cp.asnumpy(v), a[key])


def test_managed_memory_exports_the_buffer_protocol():
    n = 256
    m = hip.check(h.hipMallocManaged(n * 4, h.hipMemAttachGlobal))
    try:
        hip.check(h.hipDeviceSynchronize())
        m.configure(typestr="int32", shape=(n,))
        host = np.asarray(m)                      # host-accessible memory: a NumPy view
        host[:] = np.arange(n)
        hip.check(h.hipDeviceSynchronize())
        out = np.zeros(n // 2, np.int32)
        hip.check(h.hipMemcpy(out, m[n // 2:], out.nbytes, D2H))    # the second half, through a view
        np.testing.assert_array_equal(out, np.arange(n // 2, n))
        np.testing.assert_array_equal(np.asarray(m[::2]), np.arange(n)[::2])   # a strided host view
    finally:
        hip.check(h.hipFree(m))


def test_create_ref_lets_c_write_the_address(matrix):
    """`createRef()` is a void** to the object's own address field (HIP Python's use: C fills it)."""
    a, x_d = matrix
    p = Pointer()
    ctypes.c_void_p.from_address(int(p.createRef())).value = int(x_d)
    assert int(p) == int(x_d)
