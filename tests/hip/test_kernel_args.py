"""hip._kernel_args, the one kernel-argument packer, without a GPU: the `void*[]` a launch reads
and the values it points at, under each caller's rule for ints (hip: an address, the cuda alias:
a ctypes type needed, hip.tensor: an int64 value). What hipModuleLaunchKernel would read is read
back through ctypes from the addresses the packer gives."""
from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

ka = pytest.importorskip("hip._kernel_args")


def _addresses(k, n):
    return list((ctypes.c_void_p * n).from_address(int(k))) if n else []


def test_hip_kernel_params_are_the_addresses_given():
    """INT_ADDRESS: each item is where the argument's value is: a ctypes value its storage, an int
    that address, a buffer its data."""
    v, buf = ctypes.c_int(7), bytearray(b"xy")
    k = ka.params([v, 0x1234, buf], "address")
    a = _addresses(k, 3)
    assert a[0] == ctypes.addressof(v) and a[1] == 0x1234
    assert a[2] == ctypes.addressof((ctypes.c_char * 2).from_buffer(buf))
    assert ka.params(0xAB0, "address") == 0xAB0 and ka.params(None, "address") is None   # ready addresses


def test_the_int_rule_is_the_one_difference():
    """The same ints: an address of the value under hip's rule, a value needing its ctypes type
    under the alias's, an int64 value under hip.tensor's."""
    assert _addresses(ka.params([5, 6], "address"), 2) == [5, 6]
    with pytest.raises(TypeError, match="kernelParams"):
        ka.params([5, 6], "ctypes")
    k = ka.params((5, 6), "int64")
    assert [ctypes.c_int64.from_address(a).value for a in _addresses(k, 2)] == [5, 6]
    k = ka.params(((5, 6), (ctypes.c_int, ctypes.c_int)), "ctypes")
    assert [ctypes.c_int.from_address(a).value for a in _addresses(k, 2)] == [5, 6]


def test_typed_values_share_one_aligned_buffer():
    """((values), (types)): each value stored as its C type in one buffer, aligned as C aligns it."""
    types = (ctypes.c_bool, ctypes.c_double, ctypes.c_int8, ctypes.c_int, ctypes.c_short, ctypes.c_void_p,
             ctypes.c_longdouble)
    values = (True, 2.5, -3, 1 << 30, -2, 0x1234, 1.5)
    k = ka.params((values, types), "address")          # (hip's rule: long double too)
    a = _addresses(k, len(types))
    assert [t.from_address(p).value for t, p in zip(types, a)] == [True, 2.5, -3, 1 << 30, -2, 0x1234, 1.5]
    assert all(p % ctypes.alignment(t) == 0 for t, p in zip(types, a))
    assert a == sorted(a) and a[-1] - a[0] < 16 * len(types)       # one buffer, in order


def test_typed_values_refused_as_cuda_bindings_refuses():
    with pytest.raises(OverflowError, match="kernelParams: value 0"):
        ka.params(((256,), (ctypes.c_uint8,)), "ctypes")
    with pytest.raises(TypeError, match="Unsupported type"):
        ka.params(((1,), (ctypes.c_longdouble,)), "ctypes")      # (hip's rule takes it)
    with pytest.raises(TypeError, match="has the type None"):
        ka.params(((5,), (None,)), "ctypes")


def test_device_memory_is_refused_in_hip_kernel_params():
    class Cai:
        __cuda_array_interface__ = {"data": (0x6000, False), "shape": (1,), "typestr": "<f4", "version": 3}
    with pytest.raises(TypeError, match="kernel argument 1: Cai is device memory"):
        ka.params([ctypes.c_int(1), Cai()], "address")


def test_extra_and_kernel_params_pack_the_same_layout():
    """`extra=` (KernelArgs, hip's rule) and hip.tensor's kernelParams (int64 rule) put ctypes values
    at the same offsets with the same bytes, padding zeroed: one layout."""
    from hip.tensor._core import launch as _launch
    args = (ctypes.c_int8(-3), ctypes.c_double(2.5), ctypes.c_int16(-2), (ctypes.c_float * 3)(1, 2, 3),
            ctypes.c_uint8(200), ctypes.c_int64(-(2 ** 40)))
    k = ka.KernelArgs(args)
    extra = (ctypes.c_void_p * 5).from_address(int(k))
    packed, offsets = _launch.pack(args)
    assert ctypes.string_at(extra[1], k.size) == packed
    assert packed == struct.pack("<b7xdh2x3fB7xq", -3, 2.5, -2, 1, 2, 3, 200, -(2 ** 40))
    assert offsets == [0, 8, 16, 20, 32, 40]


def test_hip_extra_takes_pointers_as_addresses():
    """INT_ADDRESS in `extra=`: anything not a ctypes value is packed as the address it stands for
    (an int, a hip Pointer, None, a buffer's data)."""
    from hip._pointer import Pointer
    buf = np.zeros(2, np.float32)
    k = ka.KernelArgs((0x1234, Pointer(0x5678), None, buf))
    extra = (ctypes.c_void_p * 5).from_address(int(k))
    assert ctypes.string_at(extra[1], k.size) == struct.pack("<4Q", 0x1234, 0x5678, 0, buf.ctypes.data)
    with pytest.raises(TypeError, match="pointer"):
        ka.KernelArgs((1.5,))
    assert ka.KernelArgs(()).size == 0 and (ctypes.c_void_p * 5).from_address(int(ka.KernelArgs(())))[1] is None
