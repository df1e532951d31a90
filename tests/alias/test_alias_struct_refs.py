"""What a struct of the `cuda` alias keeps alive, and what it clears when it goes, as NVIDIA's
cuda.bindings does (hip/_struct.pyx): a Python buffer set into a pointer field lives as long as
the struct whose memory holds the field, also when it was set through nested member views
(`params.memcpy.copyParams.dstHost = buf`), and is let go when the field is set again; an array
made from a list (`config.attrs = [...]`) is cleared from the field when the wrapper that made it
goes, also when that wrapper views memory it does not own (`T(_ptr=address)`), where a buffer's
and kernel arguments' addresses stay. The oracle: the same probe in NVIDIA's release
(tests/oracles/cuda_bindings_oracle.py) and through `python -m hip_as_cuda`.
"""
from __future__ import annotations

import pytest

import cuda_bindings_oracle as oracle

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")

PROBE = r'''
import ctypes, gc, json, weakref
import cuda.bindings.driver as cuda

class Buf(bytearray):      # a buffer a weak reference can watch
    pass

def word(address):
    return ctypes.c_void_p.from_address(address).value or 0

def words(struct):       # the struct's pointer-sized words
    return [word(struct.getPtr() + i) for i in range(0, cuda.sizeof(type(struct)), 8)]

out = {}

# a buffer set through a union member's view, then a struct member's, lives with the root struct
b = Buf(b"\x02" * 1024)
alive = weakref.ref(b)
p = cuda.CUgraphNodeParams()
p.memcpy.copyParams.dstHost = b
del b
gc.collect()
out["nested_kept"] = alive() is not None
out["nested_intact"] = ctypes.string_at(p.memcpy.copyParams.dstHost, 1024) == b"\x02" * 1024
p.memcpy.copyParams.dstHost = 0            # set again: the buffer is let go
gc.collect()
out["released_on_set"] = alive() is None
b = Buf(8)
alive = weakref.ref(b)
p.memcpy.copyParams.dstHost = b
del b, p
gc.collect()
out["released_with_struct"] = alive() is None

# a view of memory it does not own: its list arrays are cleared when it goes, nothing else is
outer = cuda.CUlaunchConfig()
inner = cuda.CUlaunchConfig(_ptr=outer.getPtr())
inner.attrs = [cuda.CUlaunchAttribute() for _ in range(4)]
out["attrs_set"] = any(words(outer))
del inner
gc.collect()
out["attrs_cleared"] = not any(words(outer))

outer = cuda.CUDA_EXT_SEM_SIGNAL_NODE_PARAMS()
inner = cuda.CUDA_EXT_SEM_SIGNAL_NODE_PARAMS(_ptr=outer.getPtr())
inner.extSemArray = [cuda.CUexternalSemaphore(), cuda.CUexternalSemaphore()]
out["handles_set"] = word(outer.getPtr()) != 0
del inner
gc.collect()
out["handles_cleared"] = word(outer.getPtr()) == 0

outer = cuda.CUDA_MEMCPY3D()
inner = cuda.CUDA_MEMCPY3D(_ptr=outer.getPtr())
b = Buf(8)
inner.dstHost = b
del inner
gc.collect()
out["buffer_address_stays"] = outer.dstHost == ctypes.addressof(ctypes.c_char.from_buffer(b))

outer = cuda.CUDA_KERNEL_NODE_PARAMS()
inner = cuda.CUDA_KERNEL_NODE_PARAMS(_ptr=outer.getPtr())
inner.kernelParams = ((1, 2), (ctypes.c_int, ctypes.c_int))
del inner
gc.collect()
out["kernel_params_stay"] = outer.kernelParams != 0

# an empty list clears the field; setting a list again neither frees twice nor crashes
c = cuda.CUlaunchConfig()
c.attrs = [cuda.CUlaunchAttribute() for _ in range(4)]
c.attrs = []
out["emptied"] = c.attrs == []
c.attrs = [cuda.CUlaunchAttribute() for _ in range(8)]
out["refilled"] = len(c.attrs)
del c
gc.collect()
print(json.dumps(out))
'''

EXPECTED = {
    "nested_kept": True, "nested_intact": True, "released_on_set": True, "released_with_struct": True,
    "attrs_set": True, "attrs_cleared": True, "handles_set": True, "handles_cleared": True,
    "buffer_address_stays": True, "kernel_params_stay": True, "emptied": True, "refilled": 8,
}


def test_struct_references_are_nvidias(tmp_path):
    try:
        nvidia, ours = oracle.probe_both(PROBE, str(tmp_path))
    except oracle.NoRelease as e:
        pytest.skip(str(e))
    assert nvidia == EXPECTED, "the probe no longer states NVIDIA's behaviour"
    assert ours == nvidia


def test_a_buffer_set_through_nested_views_lives_with_the_root():
    """In process, without the oracle: the buffer outlives the views it was set through."""
    import ctypes
    import gc

    p = driver.CUgraphNodeParams()
    p.memcpy.copyParams.dstHost = bytearray(b"\x07" * 4096)
    for _ in range(64):          # reuse of freed memory would overwrite it
        bytearray(b"\x00" * 4096)
    gc.collect()
    assert ctypes.string_at(p.memcpy.copyParams.dstHost, 4096) == b"\x07" * 4096


def test_a_view_of_foreign_memory_clears_its_list_array():
    import ctypes

    outer = driver.CUlaunchConfig()
    inner = driver.CUlaunchConfig(_ptr=outer.getPtr())
    inner.attrs = [driver.CUlaunchAttribute() for _ in range(4)]
    fields = (ctypes.c_void_p * (driver.sizeof(driver.CUlaunchConfig) // 8)).from_address(outer.getPtr())
    assert any(fields)
    del inner
    assert not any(fields)
