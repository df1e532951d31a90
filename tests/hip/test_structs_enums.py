"""Struct wrappers (construction, views, nesting, char arrays) and the fast enums."""
from __future__ import annotations

import ctypes
import pickle
import re

import pytest

from hip import hip, hiprtc
from hip._pointer import Pointer

from codegen.spec import all_libraries, load as _spec


# -- structs --------------------------------------------------------------------------------------
def test_dim3_defaults_and_iteration():
    d = hip.dim3()
    assert (d.x, d.y, d.z) == (1, 1, 1)                    # HIP's C++ constructor defaults
    assert list(hip.dim3(4)) == [4, 1, 1]
    assert tuple(hip.dim3(4, 5)) == (4, 5, 1)
    x, y, z = hip.dim3(7, 8, 9)
    assert (x, y, z) == (7, 8, 9)
    assert len(hip.dim3()) == hip.dim3._size_ == 3 * ctypes.sizeof(ctypes.c_uint32)


def test_keyword_init_and_bytes():
    d = hip.dim3(z=3, x=2)
    assert (d.x, d.y, d.z) == (2, 1, 3)
    assert bytes(d) == bytes((ctypes.c_uint32 * 3)(2, 1, 3))
    assert hip.dim3(2, 1, 3) == d                          # same bytes, same type
    assert hip.dim3(2, 1, 4) != d


def test_struct_memory_is_zeroed():
    p = hip.hipDeviceProp_t()
    assert bytes(p) == bytes(hip.hipDeviceProp_t._size_)
    assert p.name == b"" and p.totalGlobalMem == 0


def test_from_ptr_view_shares_memory():
    d = hip.dim3(5, 6, 7)
    v = hip.dim3.from_ptr(int(d))
    assert int(v) == int(d)
    v.y = 99
    assert d.y == 99
    d.z = 42
    assert v.z == 42


def test_from_ptr_over_foreign_memory():
    raw = (ctypes.c_uint32 * 3)(10, 20, 30)
    v = hip.dim3.from_ptr(raw)
    assert (v.x, v.y, v.z) == (10, 20, 30)
    v.x = 11
    assert raw[0] == 11
    buf = bytearray(hip.dim3._size_)
    w = hip.dim3.from_ptr(buf)
    w.z = 0x01020304
    assert buf[8:12] == (0x01020304).to_bytes(4, "little")


def test_struct_is_a_pointer_argument():
    d = hip.dim3(1, 2, 3)
    assert int(Pointer(d)) == int(d)


def test_nested_record_views():
    r = hip.hipResourceDesc()
    r.resType = hip.hipResourceType.hipResourceTypeLinear
    r.res.linear.devPtr = 0x1000
    r.res.linear.sizeInBytes = 256
    assert int(r.res.linear.devPtr) == 0x1000
    assert r.res.linear.sizeInBytes == 256
    # the union's members overlap: the array handle sits where devPtr is
    assert int(r.res.array.array) == 0x1000
    # a view reads and writes the parent's memory
    lin = r.res.linear
    lin.sizeInBytes = 512
    assert r.res.linear.sizeInBytes == 512
    assert r.resType is hip.hipResourceType.hipResourceTypeLinear


def test_nested_record_assignment():
    r = hip.hipResourceDesc()
    r.res.pitch2D = {"width": 3, "height": 4, "pitchInBytes": 64}
    assert (r.res.pitch2D.width, r.res.pitch2D.height, r.res.pitch2D.pitchInBytes) == (3, 4, 64)


def test_char_array_field():
    p = hip.hipDeviceProp_t()
    p.name = b"x"
    assert p.name == b"x"
    p.name = "gfx90a"
    assert p.name == b"gfx90a"
    p.name = b"ab"                                          # shorter: the rest is cleared
    assert p.name == b"ab"
    off = type(p).__dict__["name"].offset
    assert bytes(p)[off:off + 4] == b"ab\0\0"


@pytest.mark.parametrize("lib,entry", [(lib, e) for lib in all_libraries() for e in _spec(lib).binary_fields])
def test_binary_char_fields_keep_every_byte(lib, entry):
    """char[] fields the spec calls data (UUIDs, IPC handles, NCCL ids) read back whole, NULs
    included; text fields (hipDeviceProp_t.name) still end at their NUL."""
    import importlib
    mod = importlib.import_module(f"hip.{lib}")
    spec = _spec(lib)
    fields = [(cls, f) for name, cls in sorted(vars(mod).items()) if isinstance(cls, type) and hasattr(cls, "_size_")
              for f in cls.PROPERTIES() if re.fullmatch(entry, f"{name}.{f}")]
    if not fields:
        pytest.skip(f"no field of these headers matches {entry!r}")
    for cls, field in fields:
        assert spec.is_binary_field(cls.__name__, field)
        obj = cls()
        n = len(getattr(obj, field))
        assert n >= 8
        data = bytes([0, 1, 0, 2]) + bytes(range(5, n + 1))[: n - 4]
        setattr(obj, field, data)
        assert getattr(obj, field) == data
        with pytest.raises(ValueError):
            setattr(obj, field, bytes(n + 1))
        with pytest.raises(TypeError):
            setattr(obj, field, "text")


def test_as_dict_and_properties():
    d = hip.dim3(1, 2, 3)
    assert d.as_dict() == {"x": 1, "y": 2, "z": 3}
    assert hip.dim3.PROPERTIES() == ["x", "y", "z"]
    assert "x" in d and "w" not in d
    props = hip.hipDeviceProp_t.PROPERTIES()
    assert "name" in props and "totalGlobalMem" in props
    assert set(hip.hipDeviceProp_t().as_dict()) == set(props)


def test_repr_does_not_crash():
    assert repr(hip.dim3(1, 2, 3)) == "dim3(x=1, y=2, z=3)"
    assert "hipDeviceProp" in repr(hip.hipDeviceProp_t())


@pytest.mark.runtime
def test_struct_by_value_from_tuple_and_int():
    # hipLaunchKernel takes dim3 by value; without a device it returns an error, but the
    # conversion of tuples/ints to dim3 has to succeed first.
    for grid in (hip.dim3(1), (1, 1, 1), 1, {"x": 1}):
        result = hip.hipLaunchKernel(None, grid, grid, None, 0, None)
        assert isinstance(result[0], hip.hipError_t)


# -- enums ----------------------------------------------------------------------------------------
E = hip.hipError_t


def test_enum_lookup():
    assert E(0) is E.hipSuccess
    assert E["hipSuccess"] is E.hipSuccess
    assert E(E.hipErrorNoDevice) is E.hipErrorNoDevice
    assert E.hipErrorNoDevice.name == "hipErrorNoDevice"
    assert E.hipErrorNoDevice.value == int(E.hipErrorNoDevice)
    assert 0 in E and E.hipSuccess in E and 123456 not in E   # Python 3.12's rule, on every version


def test_enum_is_int():
    assert isinstance(E.hipSuccess, int)
    assert E.hipSuccess == 0
    assert E.hipErrorNoDevice + 0 == int(E.hipErrorNoDevice)
    assert {E.hipSuccess: "ok"}[0] == "ok"


def test_enum_iteration_and_len():
    members = list(E)
    assert len(E) == len(members) > 50
    assert members[0] is E.hipSuccess
    assert len({int(m) for m in members}) == len(members)   # iteration yields each value once
    assert all(isinstance(m, E) for m in members)
    assert set(E.__members__) >= {m.name for m in members}


def test_enum_repr_and_str():
    """IntEnum's (AMD's HIP Python's enums are IntEnums): str() is the number from Python 3.11 on."""
    import enum
    ref = enum.IntEnum("hipError_t", [("hipSuccess", 0), ("hipErrorNoDevice", int(E.hipErrorNoDevice))])
    assert isinstance(E.hipSuccess, enum.IntEnum)
    assert repr(E.hipSuccess) == repr(ref.hipSuccess) == "<hipError_t.hipSuccess: 0>"
    assert str(E.hipErrorNoDevice) == str(ref.hipErrorNoDevice)
    assert f"{E.hipErrorNoDevice}" == f"{ref.hipErrorNoDevice}"


def test_enum_pickle_round_trip():
    for m in (E.hipSuccess, E.hipErrorNoDevice, hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION):
        assert pickle.loads(pickle.dumps(m)) is m


def test_enum_unknown_value():
    with pytest.raises(ValueError):
        E(123456)
    with pytest.raises(ValueError):
        E("hipSuccess")
    with pytest.raises(KeyError):
        E["hipNoSuchThing"]


def test_enum_classes_are_distinct():
    assert not isinstance(hip.hipMemcpyKind.hipMemcpyHostToHost, E)
    assert hip.hipMemcpyKind.hipMemcpyHostToHost == 0 == E.hipSuccess   # still ints


def test_enum_fields_in_structs():
    r = hip.hipResourceDesc()
    r.resType = hip.hipResourceType.hipResourceTypePitch2D
    assert r.resType is hip.hipResourceType.hipResourceTypePitch2D
    with pytest.raises(TypeError):
        r.resType = "pitch2D"


def test_anonymous_enum_constants_are_module_ints():
    assert isinstance(hip.HIP_SUCCESS, int) and not isinstance(hip.HIP_SUCCESS, hip.hipError_t)
    assert hip.HIP_SUCCESS == 0
