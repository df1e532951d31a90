"""hip.tensor._core.interop on the CPU: our DLPack capsules against NumPy's real consumer
(np.from_dlpack) and producer (ndarray.__dlpack__) with kDLCPU memory, both capsule kinds, the
deleter and ownership rules; __cuda_array_interface__ v3 parsed from dicts written after the spec."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from hip.tensor._core import interop as I


class Owner:
    """Host memory behind an export; weakref-able so the tests see when it is released."""

    def __init__(self, array):
        self.array = array


class Producer:
    """A kDLCPU producer whose __dlpack__ is our export_dlpack."""

    def __init__(self, array, versioned=True, readonly=False):
        self.owner = Owner(array)
        self.versioned, self.readonly, self.calls = versioned, readonly, []

    def __dlpack_device__(self):
        return (I.kDLCPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(max_version)
        a = self.owner.array
        return I.export_dlpack(self.owner, a.ctypes.data, a.shape, [s // a.itemsize for s in a.strides],
                               a.dtype.name, 0, stream, max_version if self.versioned else None,
                               device_type=I.kDLCPU, readonly=self.readonly)


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64", "bool", "complex64",
                                   "complex128", "float16"])
def test_numpy_consumes_our_capsules(versioned, dtype):
    base = (np.arange(24) % 7).astype(dtype).reshape(4, 6)
    view = base[::2, 1::2]                         # strided, offset
    p = Producer(view, versioned)
    out = np.from_dlpack(p)
    np.testing.assert_array_equal(out, view)
    assert out.ctypes.data == view.ctypes.data     # zero copy
    assert p.calls and p.calls[0][0] == 1            # NumPy asks for DLPack 1.x
    owner = weakref.ref(p.owner)
    del p
    gc.collect()
    assert owner() is not None                     # the consumer's array keeps the owner alive
    del out
    gc.collect()
    assert owner() is None                         # NumPy called our deleter


def test_negative_strides_and_zero_dimensions():
    a = np.arange(10, dtype=np.int32)[::-1]
    np.testing.assert_array_equal(np.from_dlpack(Producer(a)), a)
    s = np.array(5.0)
    assert np.from_dlpack(Producer(s)).shape == ()
    e = np.zeros((0, 3), np.float32)
    assert np.from_dlpack(Producer(e)).shape == (0, 3)


def test_readonly_flag_reaches_numpy():
    a = np.arange(4.0)
    out = np.from_dlpack(Producer(a, versioned=True, readonly=True))
    assert not out.flags.writeable


def test_unconsumed_capsule_releases_its_owner():
    for max_version in (None, (1, 0)):
        o = Owner(np.arange(3.0))
        ref = weakref.ref(o)
        cap = I.export_dlpack(o, o.array.ctypes.data, (3,), None, "float64", 0, None, max_version,
                              device_type=I.kDLCPU)
        del o
        gc.collect()
        assert ref() is not None
        n = len(I._exports)
        del cap
        gc.collect()
        assert ref() is None and len(I._exports) == n - 1


def test_we_consume_numpy_capsules_and_rename_them():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    cap = a.__dlpack__()
    imp = I.import_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    assert (imp.ptr, imp.shape, imp.strides, imp.dtype_name) == (a.ctypes.data, (3, 4), (16, 4), "float32")
    assert (imp.device_type, imp.device_id, imp.readonly) == (I.kDLCPU, 0, False)
    with pytest.raises(ValueError, match="consumed"):
        I.import_dlpack(cap)
    vcap = a.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(vcap)
    imp2 = I.import_dlpack(vcap)
    assert "used_dltensor_versioned" in repr(vcap) and imp2.shape == (3, 4)


def test_import_from_a_producer_keeps_it_alive_until_released():
    a = np.arange(6, dtype=np.int16).reshape(2, 3).T     # non-contiguous
    imp = I.import_dlpack(a)
    assert imp.strides == a.strides and imp.shape == a.shape and imp.dtype_name == "int16"
    buf = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_int16 * 6).from_address(imp.ptr))
    assert buf.tolist() == list(range(6))
    ro = np.arange(3.0)
    ro.flags.writeable = False
    assert I.import_dlpack(ro).readonly is True


def test_round_trip_through_our_own_consumer_calls_our_deleter():
    o = Owner(np.arange(5, dtype=np.uint8))
    ref = weakref.ref(o)
    cap = I.export_dlpack(o, o.array.ctypes.data, (5,), (1,), "uint8", 0, None, (1, 0), device_type=I.kDLCPU)
    del o
    imp = I.import_dlpack(cap)
    del cap
    gc.collect()
    assert ref() is not None                      # held through the consumed capsule's owner
    del imp
    gc.collect()
    assert ref() is None


def test_bfloat16_travels_as_kdlbfloat():
    o = Owner(np.array([0x3F80, 0x4000], np.uint16))     # 1.0, 2.0 as bfloat16 bits
    imp = I.import_dlpack(I.export_dlpack(o, o.array.ctypes.data, (2,), None, "bfloat16", 0, None, None,
                                          device_type=I.kDLCPU))
    assert imp.dtype_name == "bfloat16" and imp.itemsize == 2 and imp.strides == (2,)


def test_export_refusals():
    a = np.arange(3.0)
    with pytest.raises(TypeError, match="float8"):
        I.export_dlpack(a, a.ctypes.data, (3,), None, "float8", 0, device_type=I.kDLCPU)
    with pytest.raises(ValueError, match="length"):
        I.export_dlpack(a, a.ctypes.data, (3,), (1, 1), "float64", 0, device_type=I.kDLCPU)
    with pytest.raises(ValueError, match="None"):
        I.export_dlpack(a, a.ctypes.data, (3,), None, "float64", 0, stream=5, device_type=I.kDLCPU)
    with pytest.raises(TypeError):
        I.import_dlpack(object())
    with pytest.raises(TypeError):
        I.import_dlpack(12345)


@pytest.mark.parametrize("value,device_type,expect", [
    (None, I.kDLROCM, 0), (0, I.kDLROCM, 0), (0x5000, I.kDLROCM, 0x5000), (-1, I.kDLROCM, None),
    (None, I.kDLCUDA, 0), (1, I.kDLCUDA, 0), (2, I.kDLCUDA, 2), (0x5000, I.kDLCUDA, 0x5000), (-1, I.kDLCUDA, None),
])
def test_protocol_stream_values(value, device_type, expect):
    assert I._consumer_stream(value, device_type) == expect


@pytest.mark.parametrize("value,device_type", [(1, I.kDLROCM), (2, I.kDLROCM), (0, I.kDLCUDA), ("1", I.kDLCUDA),
                                               (True, I.kDLCUDA)])
def test_protocol_stream_values_refused(value, device_type):
    with pytest.raises((ValueError, TypeError)):
        I._consumer_stream(value, device_type)


# -- __cuda_array_interface__ ---------------------------------------------------------------------
def cai(**kw):
    d = {"shape": (2, 3), "typestr": "<f4", "data": (0x7000_0000, False), "version": 3, "strides": None}
    d.update(kw)
    return d


def test_cai_v3_contiguous():
    imp, stream = I.parse_cai(cai())
    assert (imp.ptr, imp.shape, imp.strides, imp.dtype_name, imp.readonly) == \
        (0x7000_0000, (2, 3), (12, 4), "float32", False)
    assert stream is None


@pytest.mark.parametrize("typestr,name", [("<f2", "float16"), ("<f8", "float64"), ("|b1", "bool"), ("|u1", "uint8"),
                                          ("|i1", "int8"), ("<i8", "int64"), ("<u4", "uint32"), ("<c8", "complex64"),
                                          ("<c16", "complex128")])
def test_cai_typestrs(typestr, name):
    assert I.parse_cai(cai(typestr=typestr))[0].dtype_name == name


def test_cai_strides_readonly_and_stream():
    imp, stream = I.parse_cai(cai(strides=(4, 8), data=(0x1000, True), stream=0xBEEF))
    assert imp.strides == (4, 8) and imp.readonly is True and stream == 0xBEEF
    assert I.parse_cai(cai(stream=1))[1] == 0             # 1: the legacy default stream
    assert I.parse_cai(cai(stream=2))[1] == 2             # 2: the per-thread default stream
    assert I.parse_cai(cai(version=2, stream=0xBEEF))[1] is None   # v2 has no stream
    imp, _ = I.parse_cai(cai(shape=(0, 4), data=(0, False)))
    assert imp.ptr == 0 and imp.strides == (16, 4)


@pytest.mark.parametrize("bad,error", [
    ({"stream": 0}, ValueError), ({"mask": object()}, ValueError), ({"version": 4}, ValueError),
    ({"typestr": ">f4"}, TypeError), ({"typestr": "<V8"}, TypeError), ({"typestr": "f4"}, ValueError),
    ({"data": (0, False)}, ValueError), ({"data": [0x10, False]}, ValueError), ({"strides": (4,)}, ValueError),
    ({"shape": (2, -1)}, ValueError), ({"stream": 1.5}, ValueError),
])
def test_cai_refusals(bad, error):
    with pytest.raises(error):
        I.parse_cai(cai(**bad))
    with pytest.raises(ValueError, match="lacks"):
        I.parse_cai({"shape": (1,), "typestr": "<f4", "data": (1, False)})
    with pytest.raises(TypeError):
        I.parse_cai([("shape", (1,))])
    with pytest.raises(TypeError):
        I.import_cai(object())


@pytest.mark.parametrize("name", ["float32", "bool", "int8", "uint64", "complex128", "float16"])
def test_cai_dict_parses_back(name):
    from hip.tensor._core.device import Stream
    d = I.cai_dict(0x9000, (4, 5), (40, 8) if name in ("uint64",) else None, name, True,
                   Stream.from_handle(0xABC, 0))
    imp, stream = I.parse_cai(d)
    assert (imp.ptr, imp.shape, imp.dtype_name, imp.readonly, stream) == (0x9000, (4, 5), name, True, 0xABC)
    assert imp.strides == ((40, 8) if name == "uint64" else I._strides_c((4, 5), imp.itemsize))
    assert I.cai_dict(1, (1,), None, name, stream=Stream.from_handle(0, 0))["stream"] == 1   # legacy default
    assert I.cai_dict(1, (1,), None, name)["stream"] is None
    with pytest.raises(TypeError):
        I.cai_dict(1, (1,), None, "bfloat16")
