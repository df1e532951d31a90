"""Device memory: hipMalloc/hipFree, hipMemcpy in every direction, async copies, memset,
pinned and managed host memory, pointer attributes, hipMemGetInfo; results checked with NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import hip
from hip import hip as h
from hip._pointer import DevicePointer

from gpu_util import D2D, D2H, DEFAULT, H2D, H2H, SUCCESS, cuda_check, cuda_runtime, host_view

pytestmark = pytest.mark.gpu

MiB = 1 << 20


def test_malloc_free():
    for n in (1, 100, 4096, MiB + 3, 64 * MiB):
        d = hip.check(h.hipMalloc(n))
        assert isinstance(d, DevicePointer)
        assert int(d) != 0 and d.nbytes == n
        assert int(d) % 256 == 0, hex(int(d))          # HIP and CUDA align allocations to >= 256 bytes
        hip.check(h.hipFree(d))
    assert h.hipFree(None)[0] == SUCCESS                # freeing NULL is a no-op


def test_malloc_too_much_fails(props):
    err, d = h.hipMalloc(props.totalGlobalMem * 4)
    assert err == h.hipError_t.hipErrorOutOfMemory, err
    assert h.hipGetLastError()[0] in (SUCCESS, h.hipError_t.hipErrorOutOfMemory)   # reset the last error


def test_memcpy_every_direction(mem, rng):
    a = rng.standard_normal(100_003).astype(np.float32)
    d1 = mem.alloc(a.nbytes)
    d2 = mem.alloc(a.nbytes)
    hip.check(h.hipMemcpy(d1, a, a.nbytes, H2D))
    hip.check(h.hipMemcpy(d2, d1, a.nbytes, D2D))
    b = np.zeros_like(a)
    hip.check(h.hipMemcpy(b, d2, a.nbytes, D2H))
    np.testing.assert_array_equal(b, a)
    c = np.zeros_like(a)
    hip.check(h.hipMemcpy(c, a, a.nbytes, H2H))
    np.testing.assert_array_equal(c, a)


def test_memcpy_default_kind(mem, rng):
    """hipMemcpyDefault infers the direction from the pointers (unified addressing)."""
    a = rng.integers(0, 1 << 30, 5000, dtype=np.int32)
    d1 = mem.alloc(a.nbytes)
    d2 = mem.alloc(a.nbytes)
    hip.check(h.hipMemcpy(d1, a, a.nbytes, DEFAULT))
    hip.check(h.hipMemcpy(d2, d1, a.nbytes, DEFAULT))
    b = np.zeros_like(a)
    hip.check(h.hipMemcpy(b, d2, a.nbytes, DEFAULT))
    np.testing.assert_array_equal(b, a)
    c = np.zeros_like(a)
    hip.check(h.hipMemcpy(c, b, a.nbytes, DEFAULT))
    np.testing.assert_array_equal(c, a)


def test_memcpy_driver_style(mem, rng):
    """hipMemcpyHtoD / DtoD / DtoH (the driver API's copies)."""
    a = rng.standard_normal(777)
    d1 = mem.alloc(a.nbytes)
    d2 = mem.alloc(a.nbytes)
    hip.check(h.hipMemcpyHtoD(d1, a, a.nbytes))
    hip.check(h.hipMemcpyDtoD(d2, d1, a.nbytes))
    b = np.zeros_like(a)
    hip.check(h.hipMemcpyDtoH(b, d2, a.nbytes))
    np.testing.assert_array_equal(b, a)


def test_memcpy_with_offsets(mem):
    """Pointer arithmetic on a DevicePointer (`d + bytes`) addresses part of an allocation."""
    a = np.arange(256, dtype=np.uint8)
    d = mem.put(np.zeros(256, np.uint8))
    hip.check(h.hipMemcpy(d + 100, a[:50], 50, H2D))
    b = mem.get(d, 256, np.uint8)
    expect = np.zeros(256, np.uint8)
    expect[100:150] = a[:50]
    np.testing.assert_array_equal(b, expect)


def test_memset(mem):
    n = 3 * MiB + 5
    d = mem.alloc(n)
    hip.check(h.hipMemset(d, 0xAB, n))
    assert (mem.get(d, n, np.uint8) == 0xAB).all()
    hip.check(h.hipMemset(d + 10, 0, 20))
    b = mem.get(d, n, np.uint8)
    assert (b[10:30] == 0).all() and (b[:10] == 0xAB).all() and (b[30:] == 0xAB).all()


def test_memset_d8_d32(mem):
    count = 4099
    d = mem.alloc(count * 4)
    hip.check(h.hipMemsetD32(d, 0x12345678, count))
    assert (mem.get(d, count, np.uint32) == 0x12345678).all()
    hip.check(h.hipMemsetD8(d, 0x7F, 6))
    b = mem.get(d, count * 4, np.uint8)
    pattern = np.frombuffer(np.uint32(0x12345678).tobytes(), np.uint8)
    assert (b[:6] == 0x7F).all()
    np.testing.assert_array_equal(b[6:8], pattern[2:4])
    assert (b[8:].view(np.uint32) == 0x12345678).all()


def test_async_copies_and_memset_on_a_stream(mem, stream):
    n = 1 << 20
    nbytes = n * 4
    src_p = hip.check(h.hipHostMalloc(nbytes, h.hipHostMallocDefault))
    dst_p = hip.check(h.hipHostMalloc(nbytes, h.hipHostMallocDefault))
    try:
        src = host_view(src_p, n, np.float32)
        dst = host_view(dst_p, n, np.float32)
        src[:] = np.arange(n, dtype=np.float32)
        dst[:] = -1
        d = mem.alloc(nbytes)
        hip.check(h.hipMemcpyAsync(d, src_p, nbytes, H2D, stream))
        hip.check(h.hipMemsetAsync(d, 0, 1024 * 4, stream))          # the first 1024 floats -> 0.0
        hip.check(h.hipMemcpyAsync(dst_p, d, nbytes, D2H, stream))
        hip.check(h.hipStreamSynchronize(stream))
        expect = np.arange(n, dtype=np.float32)
        expect[:1024] = 0
        np.testing.assert_array_equal(dst, expect)
        # the null stream (None) as well
        dst[:] = -1
        hip.check(h.hipMemcpyAsync(dst_p, d, nbytes, D2H, None))
        hip.check(h.hipDeviceSynchronize())
        np.testing.assert_array_equal(dst, expect)
    finally:
        hip.check(h.hipHostFree(src_p))
        hip.check(h.hipHostFree(dst_p))


def test_async_copy_from_numpy(mem, stream, rng):
    """Async copies from pageable NumPy memory (staged by the runtime) still arrive whole."""
    a = rng.standard_normal(300_000)
    d = mem.alloc(a.nbytes)
    b = np.zeros_like(a)
    hip.check(h.hipMemcpyAsync(d, a, a.nbytes, H2D, stream))
    hip.check(h.hipMemcpyAsync(b, d, a.nbytes, D2H, stream))
    hip.check(h.hipStreamSynchronize(stream))
    np.testing.assert_array_equal(b, a)


def test_pinned_host_memory(mem):
    n = 12345
    for flags in (h.hipHostMallocDefault, h.hipHostMallocPortable, h.hipHostMallocMapped):
        p = hip.check(h.hipHostMalloc(n * 8, flags))
        assert int(p) != 0
        v = host_view(p, n, np.float64)
        v[:] = np.linspace(0, 1, n)
        d = mem.alloc(n * 8)
        hip.check(h.hipMemcpy(d, p, n * 8, H2D))
        np.testing.assert_array_equal(mem.get(d, n, np.float64), np.linspace(0, 1, n))
        hip.check(h.hipHostFree(p))


def test_pointer_attributes(mem):
    d = mem.alloc(4096)
    attr = h.hipPointerAttribute_t()
    hip.check(h.hipPointerGetAttributes(attr, d))
    assert attr.type == h.hipMemoryType.hipMemoryTypeDevice, attr
    assert attr.device == 0
    assert int(attr.devicePointer) == int(d)
    p = hip.check(h.hipHostMalloc(4096, h.hipHostMallocDefault))
    try:
        attr = h.hipPointerAttribute_t()
        hip.check(h.hipPointerGetAttributes(attr, p))
        assert attr.type == h.hipMemoryType.hipMemoryTypeHost, attr
        assert int(attr.hostPointer) == int(p)
    finally:
        hip.check(h.hipHostFree(p))


def test_managed_memory():
    n = 1 << 16
    m = hip.check(h.hipMallocManaged(n * 4, h.hipMemAttachGlobal))
    try:
        hip.check(h.hipMemset(m, 0, n * 4))
        hip.check(h.hipDeviceSynchronize())
        v = host_view(m, n, np.int32)
        assert (v == 0).all()
        v[:] = np.arange(n, dtype=np.int32)                  # written by the host, read back by a copy
        out = np.zeros(n, np.int32)
        hip.check(h.hipMemcpy(out, m, n * 4, DEFAULT))
        np.testing.assert_array_equal(out, np.arange(n, dtype=np.int32))
    finally:
        hip.check(h.hipFree(m))


def test_stream_ordered_allocation(stream):
    d = hip.check(h.hipMallocAsync(MiB, stream))
    assert int(d) != 0
    hip.check(h.hipMemsetAsync(d, 3, MiB, stream))
    out = np.zeros(MiB, np.uint8)
    hip.check(h.hipMemcpyAsync(out, d, MiB, D2H, stream))
    hip.check(h.hipFreeAsync(d, stream))
    hip.check(h.hipStreamSynchronize(stream))
    assert (out == 3).all()


def test_mem_get_info(props, mem):
    free, total = hip.check(h.hipMemGetInfo())
    assert 0 < free <= total
    assert abs(total - props.totalGlobalMem) <= total // 100, (total, props.totalGlobalMem)   # same memory, 1 %
    assert hip.check(h.hipDeviceTotalMem(0)) == props.totalGlobalMem
    d = mem.alloc(512 * MiB)
    hip.check(h.hipMemset(d, 0, 512 * MiB))
    free2, total2 = hip.check(h.hipMemGetInfo())
    assert total2 == total
    assert free - free2 >= 256 * MiB, (free, free2)   # others may allocate or free meanwhile: loose bound


def test_mem_get_info_matches_cuda():
    rt = cuda_runtime()
    free, total = hip.check(h.hipMemGetInfo())
    cfree, ctotal = cuda_check(rt.cudaMemGetInfo())
    assert total == ctotal
    assert abs(free - cfree) <= 64 * MiB


def test_device_pointer_interop_with_cupy(mem):
    cp = pytest.importorskip("cupy")
    a = np.arange(1000, dtype=np.float32)
    d = mem.put(a)
    view = cp.asarray(d.configure(shape=(1000,), typestr="<f4"))   # __cuda_array_interface__
    assert int(view.data.ptr) == int(d)
    np.testing.assert_array_equal(cp.asnumpy(view * 2), a * 2)
    c = cp.arange(1000, dtype=cp.float32) * 3                        # and a CuPy array as a pointer
    cp.cuda.runtime.deviceSynchronize()
    out = np.zeros(1000, np.float32)
    hip.check(h.hipMemcpy(out, c, out.nbytes, D2H))
    np.testing.assert_array_equal(out, np.arange(1000, dtype=np.float32) * 3)
