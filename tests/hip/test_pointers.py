"""The pointer path: everything a pointer argument accepts gives the address Python says it has."""
from __future__ import annotations

import ctypes
import sys

import numpy as np
import pytest

from conftest import gpu_available
from hip import hip
from hip._pointer import DevicePointer, Handle, Pointer

HtoH = hip.hipMemcpyKind.hipMemcpyHostToHost


def test_pointer_from_int_and_back():
    p = Pointer(0x1234)
    assert int(p) == 0x1234
    assert p.ptr == 0x1234 and p.getPtr() == 0x1234
    assert bool(p) and not p.is_ptr_null
    assert not Pointer(None) and int(Pointer(None)) == 0 and Pointer(None).is_ptr_null
    assert int(Pointer(Pointer(77))) == 77
    assert int(Pointer(2**64 - 1)) == 2**64 - 1
    with pytest.raises(OverflowError):
        Pointer(2**64)
    assert p.as_c_void_p().value == 0x1234
    assert int(p + 16) == 0x1244


def test_pointer_equality_and_hash():
    a, b = Pointer(4096), Pointer(4096)
    assert a == b and a == 4096 and hash(a) == hash(b)
    assert a != Pointer(4097)
    assert len({a, b, Pointer(4097)}) == 2
    assert (a == "text") is False


def test_ctypes_objects():
    vp = ctypes.c_void_p(0xABC0)
    assert int(Pointer(vp)) == 0xABC0                     # c_void_p: its value is the address
    ci = ctypes.c_int(7)
    assert int(Pointer(ci)) == ctypes.addressof(ci)        # a scalar: where it lives
    arr = (ctypes.c_double * 8)()
    assert int(Pointer(arr)) == ctypes.addressof(arr)
    pi = ctypes.pointer(ci)
    assert int(Pointer(pi)) == ctypes.addressof(ci)        # a ctypes pointer: what it points to


@pytest.mark.parametrize("null", [ctypes.c_void_p(), ctypes.c_void_p(0), ctypes.c_char_p(),
                                  ctypes.POINTER(ctypes.c_int)()],
                         ids=["c_void_p()", "c_void_p(0)", "c_char_p()", "POINTER(c_int)()"])
def test_null_ctypes_pointers_are_null(null):
    """A NULL ctypes pointer is NULL, not the address of the ctypes object's own storage
    (hipFree(ctypes.c_void_p()) must not free Python's memory)."""
    assert int(Pointer(null)) == 0


def test_numpy_array():
    a = np.arange(16, dtype=np.float32)
    assert int(Pointer(a)) == a.ctypes.data
    assert int(Pointer(a[4:])) == a.ctypes.data + 16


def test_bytearray_and_memoryview():
    ba = bytearray(32)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(ba))
    assert int(Pointer(ba)) == addr
    assert int(Pointer(memoryview(ba)[8:])) == addr + 8


def test_cuda_array_interface():
    class Foreign:
        __cuda_array_interface__ = {"data": (0xDEAD000, False), "shape": (4,), "typestr": "<f4", "version": 3}
    assert int(Pointer(Foreign())) == 0xDEAD000


def test_dlpack_producer():
    a = np.arange(8, dtype=np.int64)
    if not hasattr(a, "__dlpack__"):
        pytest.skip("numpy without __dlpack__")

    class DLPackOnly:   # no buffer protocol, no CAI: only DLPack reaches the address
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kw):
            return self.arr.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    assert int(Pointer(DLPackOnly(a))) == a.ctypes.data
    assert int(Pointer(DLPackOnly(a[3:]))) == a.ctypes.data + 24


def test_pointer_keeps_its_source_alive():
    import gc
    a = np.zeros(4)
    before = sys.getrefcount(a)
    p = Pointer(a)
    assert sys.getrefcount(a) == before + 1
    del p
    gc.collect()
    assert sys.getrefcount(a) == before


def test_handles_are_not_tracked_by_the_cycle_collector_and_struct_cycles_are_collected():
    """Handles that calls return are untracked (a cheap call's cost); a struct whose kept arrays
    refer back to it (a kernel argument pointing into the struct itself) is still collected."""
    import gc
    assert not gc.is_tracked(hip.ihipStream_t.fromObj(0)) and not gc.is_tracked(Pointer(0))
    gc.collect()
    kind = hip.hipKernelNodeParams
    before = sum(type(o) is kind for o in gc.get_objects())
    for _ in range(5):
        p = kind()
        p.kernelParams = ([p], (None,))     # p -> its kept argument block -> p
    del p
    gc.collect()
    assert sum(type(o) is kind for o in gc.get_objects()) == before


@pytest.mark.runtime
def test_a_returned_handle_is_owned_by_the_caller_alone():
    """hip._pointer.wrap hands tp_new's new reference back as it is (its address written in C):
    one reference too many would leak every handle a call returns, one too few would free it
    under the caller. hiprtcCreateProgram returns its handle through wrap without a GPU."""
    from hip import hiprtc
    import hip as hip_pkg
    progs = []
    for _ in range(3):
        prog = hip_pkg.check(hiprtc.hiprtcCreateProgram(b"int x;", b"p.hip", 0, None, None))
        assert type(prog) is hiprtc.hiprtcProgram and int(prog) != 0
        assert sys.getrefcount(prog) == 2                  # `prog` and getrefcount's argument
        progs.append((prog, int(prog)))
    assert len({a for _, a in progs}) == 3              # each object holds its own program
    for prog, a in progs:
        assert int(prog) == a
        hip_pkg.check(hiprtc.hiprtcDestroyProgram(prog))


@pytest.mark.runtime
def test_memcpy_host_to_host():
    src = np.arange(8, dtype=np.int32)
    dst = np.zeros(8, dtype=np.int32)
    err, = hip.hipMemcpy(dst, src, src.nbytes, HtoH)
    if gpu_available()[0]:
        assert err is hip.hipError_t.hipSuccess
        assert (dst == src).all()
    else:   # ROCm refuses every copy when it has no device
        assert err in (hip.hipError_t.hipErrorNoDevice, hip.hipError_t.hipErrorInvalidDevice)
        assert (dst == 0).all()


@pytest.mark.runtime
def test_memcpy_accepts_mixed_pointer_kinds():
    src = (ctypes.c_int * 4)(1, 2, 3, 4)
    dst = bytearray(16)
    err, = hip.hipMemcpy(dst, Pointer(ctypes.addressof(src)), 16, HtoH)
    if gpu_available()[0]:
        assert err is hip.hipError_t.hipSuccess and bytes(dst) == bytes(src)
    else:
        assert err in (hip.hipError_t.hipErrorNoDevice, hip.hipError_t.hipErrorInvalidDevice)


@pytest.mark.runtime
def test_malloc_returns_device_pointer():
    """hipMalloc gives a DevicePointer (AMD's hip._util.types.DeviceArray), or None when the
    allocation failed (AMD's HIP Python returns None for every NULL pointer output)."""
    err, d = hip.hipMalloc(64)
    if not gpu_available()[0]:
        assert err in (hip.hipError_t.hipErrorNoDevice, hip.hipError_t.hipErrorInvalidDevice)
        assert d is None
    else:
        assert err is hip.hipError_t.hipSuccess and isinstance(d, DevicePointer) and int(d) != 0
        assert d.nbytes == 64 and d.shape == (64,) and d.typestr == "B"
        hip.hipFree(d)


def test_device_pointer_cuda_array_interface():
    # What hipMalloc(64) returns, here over host memory (no GPU needed): 64 bytes.
    buf = bytearray(64)
    d = DevicePointer(ctypes.addressof((ctypes.c_char * 64).from_buffer(buf))).configure(shape=(64,), _force=True)
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (64,) and cai["typestr"] == "|u1" and cai["version"] == 3
    assert cai["data"] == (int(d), False)
    assert d.size == 64
    d = DevicePointer(bytearray(64))                     # a buffer: its size is known
    d.configure(shape=(4, 4), typestr="<f4")
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (4, 4) and cai["typestr"] == "<f4" and cai["data"][0] == int(d)
    assert d.size == 16
    d.configure(typestr="<f8")                            # shape from the size
    assert d.__cuda_array_interface__["shape"] == (8,)
    d.configure(shape=2, typestr="<i4", readonly=True)
    assert d.__cuda_array_interface__["data"] == (int(d), True)
    with pytest.raises(ValueError):
        d.configure(shape=(100,), typestr="<f4")          # 400 bytes > 64


@pytest.mark.runtime
def test_handles():
    assert hip.hipStream_t is hip.ihipStream_t
    assert issubclass(hip.ihipStream_t, Handle) and issubclass(Handle, Pointer)
    assert hip.hipEvent_t is hip.ihipEvent_t
    err, s = hip.hipStreamCreate()
    assert isinstance(s, hip.ihipStream_t)
    if not gpu_available()[0]:
        assert int(s) == 0 and err is not hip.hipError_t.hipSuccess
    else:
        hip.hipStreamDestroy(s)
    # a handle is accepted wherever the handle type is expected, and so is a plain address / None
    assert hip.hipStreamQuery(hip.ihipStream_t.from_ptr(0))[0] == hip.hipStreamQuery(None)[0] == hip.hipStreamQuery(0)[0]


@pytest.mark.gpu
def test_memcpy_roundtrip_through_device():
    src = np.arange(32, dtype=np.float32)
    out = np.empty_like(src)
    import hip as pkg
    d = pkg.check(hip.hipMalloc(src.nbytes))
    try:
        pkg.check(hip.hipMemcpy(d, src, src.nbytes, hip.hipMemcpyKind.hipMemcpyHostToDevice))
        pkg.check(hip.hipMemcpy(out, d, src.nbytes, hip.hipMemcpyKind.hipMemcpyDeviceToHost))
    finally:
        hip.hipFree(d)
    assert (out == src).all()


def test_kernel_args_packing_matches_c_struct_layout(run_c):
    """`extra=` kernel arguments are packed like a C struct of the same members (gcc decides)."""
    from hip._kernel_args import KernelArgs
    args = (ctypes.c_int8(-3), ctypes.c_double(2.5), Pointer(0x1234), ctypes.c_int16(-2),
            ctypes.c_float(1.25), ctypes.c_int64(-(2**40)), ctypes.c_uint8(200))
    src = r"""
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stddef.h>
struct args { int8_t a; double b; void* c; int16_t d; float e; int64_t f; uint8_t g; };
int main(void) {
    struct args v; size_t i;
    memset(&v, 0, sizeof v);
    v.a = -3; v.b = 2.5; v.c = (void*)0x1234; v.d = -2; v.e = 1.25f; v.f = -(1LL << 40); v.g = 200;
    /* A kernel's parameter space ends with its last parameter (no trailing padding). */
    size_t end = offsetof(struct args, g) + sizeof v.g;
    printf("%zu ", end);
    for (i = 0; i < end; i++) printf("%02x", ((unsigned char*)&v)[i]);
    printf("\n");
    return 0;
}
"""
    size, hexbytes = run_c(src).split()
    k = KernelArgs(args)
    extra = (ctypes.c_void_p * 5).from_address(int(k))
    assert [extra[0], extra[2], extra[4]] == [1, 2, 3]    # HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END
    assert ctypes.c_size_t.from_address(extra[3]).value == k.size
    packed = ctypes.string_at(extra[1], k.size)
    assert k.size == int(size)
    assert packed.hex() == hexbytes
