"""What the `cuda` alias returns and takes where cuda.bindings' signatures decide it, on the CPU:
values typed by the attribute that selects them (cuPointerGetAttribute, cuMemPoolGetAttribute,
cudaMemRangeGetAttribute and their plural forms), lists of structs packed into one C array
(cuMemSetAccess's `[desc]`), text returned whole as `b" " * length` was (cudaDeviceGetPCIBusId),
kernelParams only in cuda.bindings' forms, handle classes named and derived as cuda.bindings'
(cudaStream_t is a driver.CUstream), contexts turned into devices for HIP (cuMemcpyPeer).

Without a GPU the calls fail before writing anything, so the runtime helpers the generated code
calls (hip/_struct.pyx, hip/_pointer.pyx) are driven by a small compiled probe with memory laid
out as the C call would leave it; the generated modules' own tables are what the probe reads by.
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, alias_cuda_include
from cython_probe import built

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")
from cuda.bindings import nvrtc, runtime  # noqa: E402

if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
    pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)", allow_module_level=True)

PROBE = '''
# cython: language_level=3
from libc.string cimport memcpy
from hip cimport _struct as _s, _pointer as _p

def typed(dict table, selector, bytes data, size=None):
    """The value a call that wrote `data` returns (the generated code's out_typed path)."""
    b = _s.typed_buffer(size)
    memcpy(<void*><size_t>int(b), <const char*>data, len(data))
    return _s.typed_value(table, selector, b)

def typed_list(dict table, list selectors, list datas, sizes=None):
    b = _s.typed_buffers(selectors, sizes, len(selectors))
    cdef void** slots = <void**><size_t>int(b)
    for i, d in enumerate(datas):
        memcpy(slots[i], <const char*>d, len(d))
    return _s.typed_values(table, selectors, b)

def packed(cls, value):
    """The C array a list of structs becomes (None: NULL)."""
    r = _s.record_list(cls, value)
    return None if r is None else bytes(r)

def filled(cls, n, bytes data):
    """Structs a call wrote into an `out array` of structs, as the caller gets them."""
    b = _s.record_array(cls, n)
    if len(b):
        memcpy(_p.waddr(b), <const char*>data, min(len(data), len(b)))
    return _s.record_items(cls, b)

def passed_on(cls, value):
    return _s.record_list(cls, value) is value

def spaced(bytes written, n):
    b = _p.text_buffer(n)
    memcpy(<void*><size_t>int(b), <const char*>written, len(written))
    return _p.text_spaced(b)
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    d = tmp_path_factory.mktemp("alias_values")
    name = "alias_values_probe"
    with built(d, name, PROBE, ROOT, ()) as module:
        yield module


def u32(v):
    return (v & 0xFFFFFFFF).to_bytes(4, "little")


def u64(v):
    return v.to_bytes(8, "little")


# -- values typed by an attribute ---------------------------------------------------------------
P = driver.CUpointer_attribute


@pytest.mark.parametrize("attr, data, want_type, want", [
    (P.CU_POINTER_ATTRIBUTE_CONTEXT, u64(0x1234), "CUcontext", 0x1234),
    (P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, u64(0x5678), "CUmemoryPool", 0x5678),
    (P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, u64(0x7000_0000_0000), "CUdeviceptr", 0x7000_0000_0000),
    (P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, u64(0x10), "CUdeviceptr", 0x10),
    (P.CU_POINTER_ATTRIBUTE_HOST_POINTER, u64(0xABC0), "int", 0xABC0),
    (P.CU_POINTER_ATTRIBUTE_IS_MANAGED, u32(1), "bool", True),
    (P.CU_POINTER_ATTRIBUTE_MAPPED, u32(0), "bool", False),
    (P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, u32(2), "int", 2),
    (P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, u32(3), "int", 3),
    (P.CU_POINTER_ATTRIBUTE_BUFFER_ID, u64(2**63 + 5), "int", 2**63 + 5),
    (P.CU_POINTER_ATTRIBUTE_RANGE_SIZE, u64(1 << 40), "int", 1 << 40),
])
def test_pointer_attribute_types_are_cuda_bindings(probe, attr, data, want_type, want):
    """cuda.bindings' _HelperCUpointer_attribute: a CUcontext for CONTEXT, a bool for IS_MANAGED, ..."""
    v = probe.typed(driver._typed_CUpointer_attribute, attr, data)
    assert type(v).__name__ == want_type
    assert (int(v) if want_type not in ("bool",) else v) == want


def test_pointer_attribute_p2p_tokens_is_the_struct(probe):
    tokens = driver.CUDA_POINTER_ATTRIBUTE_P2P_TOKENS()
    size = type(tokens)._size_
    raw = (u64(7) + u32(9) + bytes(64))[:size]
    v = probe.typed(driver._typed_CUpointer_attribute, P.CU_POINTER_ATTRIBUTE_P2P_TOKENS, raw)
    assert isinstance(v, type(tokens)) and v.p2pToken == 7 and v.vaSpaceToken == 9


def test_mem_pool_attributes_of_64_bits_are_cuuint64_t(probe):
    """cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold) returns a cuuint64_t (the
    driver's class, as in cuda.bindings); the reuse flags an int."""
    A = runtime.cudaMemPoolAttr
    v = probe.typed(runtime._typed_cudaMemPoolAttr, A.cudaMemPoolAttrReleaseThreshold, u64(64 << 20))
    assert type(v) is driver.cuuint64_t and int(v) == 64 << 20
    for a in (A.cudaMemPoolAttrReservedMemCurrent, A.cudaMemPoolAttrReservedMemHigh,
              A.cudaMemPoolAttrUsedMemCurrent, A.cudaMemPoolAttrUsedMemHigh):
        assert type(probe.typed(runtime._typed_cudaMemPoolAttr, a, u64(1))) is driver.cuuint64_t
    v = probe.typed(runtime._typed_cudaMemPoolAttr, A.cudaMemPoolReuseAllowOpportunistic, u32(1))
    assert type(v) is int and v == 1
    D = driver.CUmemPool_attribute
    v = probe.typed(driver._typed_CUmemPool_attribute, D.CU_MEMPOOL_ATTR_USED_MEM_HIGH, u64(3 << 33))
    assert type(v) is driver.cuuint64_t and int(v) == 3 << 33
    assert type(probe.typed(driver._typed_CUgraphMem_attribute, 0, u64(1))) is driver.cuuint64_t


def test_mem_range_attributes(probe):
    """An int (signed: cudaInvalidDeviceId is -2) of the caller's 4 bytes; ACCESSED_BY a list of
    the dataSize / 4 ints."""
    R = runtime.cudaMemRangeAttribute
    t = runtime._typed_cudaMemRangeAttribute
    assert probe.typed(t, R.cudaMemRangeAttributePreferredLocation, u32(-2), 4) == -2
    assert probe.typed(t, R.cudaMemRangeAttributeReadMostly, u32(1), 4) == 1
    assert probe.typed(t, R.cudaMemRangeAttributeAccessedBy, u32(0) + u32(-2) + u32(-2), 12) == [0, -2, -2]
    D = driver.CUmem_range_attribute
    assert probe.typed(driver._typed_CUmem_range_attribute, D.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
                       u32(-1), 4) == -1


def test_plural_attribute_queries_return_a_list(probe):
    """cuPointerGetAttributes(numAttributes, attributes, ptr) -> (err, [value per attribute])."""
    attrs = [P.CU_POINTER_ATTRIBUTE_CONTEXT, P.CU_POINTER_ATTRIBUTE_IS_MANAGED, P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL]
    got = probe.typed_list(driver._typed_CUpointer_attribute, attrs, [u64(0x40), u32(1), u32(1)])
    assert [type(v).__name__ for v in got] == ["CUcontext", "bool", "int"]
    assert int(got[0]) == 0x40 and got[1] is True and got[2] == 1
    R = runtime.cudaMemRangeAttribute
    got = probe.typed_list(runtime._typed_cudaMemRangeAttribute,
                           [R.cudaMemRangeAttributeReadMostly, R.cudaMemRangeAttributeAccessedBy],
                           [u32(0), u32(1) + u32(0)], [4, 8])
    assert got == [0, [1, 0]]


def test_typed_values_cover_each_enumerator():
    """Every enumerator of a typed enum has its type (the specs' '.*' entries), so no value is read
    as a raw 8-byte int by default."""
    for mod, table, enum in ((driver, "_typed_CUpointer_attribute", driver.CUpointer_attribute),
                             (driver, "_typed_CUmemPool_attribute", driver.CUmemPool_attribute),
                             (driver, "_typed_CUmem_range_attribute", driver.CUmem_range_attribute),
                             (runtime, "_typed_cudaMemPoolAttr", runtime.cudaMemPoolAttr),
                             (runtime, "_typed_cudaMemRangeAttribute", runtime.cudaMemRangeAttribute),
                             (driver, "_typed_CUmemAllocationHandleType", driver.CUmemAllocationHandleType),
                             (driver, "_typed_CUmemRangeHandleType", driver.CUmemRangeHandleType),
                             (runtime, "_typed_cudaMemAllocationHandleType", runtime.cudaMemAllocationHandleType)):
        t = getattr(mod, table)
        assert {int(m) for m in enum.__members__.values()} <= set(t), table


def test_shareable_handles_are_typed_by_handle_type(probe):
    """cuMemExportToShareableHandle(handle, handleType, flags) -> (err, shareableHandle): a file
    descriptor is an int, a fabric handle the 64-byte struct, a Win32 handle an address (cuda.bindings'
    _HelperCUmemAllocationHandleType); cuMemGetHandleForAddressRange's dma_buf fd an int."""
    H, RH = driver.CUmemAllocationHandleType, runtime.cudaMemAllocationHandleType
    assert probe.typed(driver._typed_CUmemAllocationHandleType, H.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                       u32(7)) == 7
    raw = bytes(range(64))
    v = probe.typed(driver._typed_CUmemAllocationHandleType, H.CU_MEM_HANDLE_TYPE_FABRIC, raw)
    assert type(v) is driver.CUmemFabricHandle and ctypes.string_at(int(v), 64) == raw
    assert probe.typed(driver._typed_CUmemAllocationHandleType, H.CU_MEM_HANDLE_TYPE_WIN32, u64(1 << 40)) == 1 << 40
    assert probe.typed(runtime._typed_cudaMemAllocationHandleType, RH.cudaMemHandleTypePosixFileDescriptor,
                       u32(5)) == 5
    assert probe.typed(driver._typed_CUmemRangeHandleType,
                       driver.CUmemRangeHandleType.CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, u32(9)) == 9


def test_lists_shorter_than_their_count_are_refused():
    """The lists cuda.bindings takes with a count (resources, dependencies, JIT options): fewer
    elements than the count is a ValueError before C reads past the list."""
    with pytest.raises(ValueError, match="nbResources=2"):
        driver.cuDevResourceGenerateDesc([driver.CUdevResource()], 2)
    with pytest.raises(ValueError, match="numDependencies=2"):
        driver.cuStreamUpdateCaptureDependencies(None, [driver.CUgraphNode()], None, 2, 0)
    with pytest.raises(ValueError, match="numJitOptions=1"):
        runtime.cudaLibraryLoadData(b"\0" * 16, [], [], 1, [], [], 0)


@pytest.mark.runtime
def test_typed_outputs_on_error_are_none():
    """Without a GPU the call fails: None, as cuda.bindings returns for every output of a failed call."""
    err, v = runtime.cudaMemPoolGetAttribute(None, runtime.cudaMemPoolAttr.cudaMemPoolAttrReleaseThreshold)
    assert int(err) != 0 and v is None
    err, v = runtime.cudaMemRangeGetAttribute(4, runtime.cudaMemRangeAttribute.cudaMemRangeAttributeReadMostly, 0, 4)
    assert int(err) != 0 and v is None
    err, v = driver.cuPointerGetAttributes(1, [P.CU_POINTER_ATTRIBUTE_CONTEXT], 0)
    assert (v is None) if int(err) != 0 else (len(v) == 1 and type(v[0]).__name__ == "CUcontext")
    with pytest.raises(ValueError):      # fewer attributes than numAttributes: refused before C
        driver.cuPointerGetAttributes(2, [P.CU_POINTER_ATTRIBUTE_CONTEXT], 0)


# -- signatures cuda.bindings 13.x has (tests/alias/test_alias_parity.py compares every one) ------------
def _params(fn) -> list[str]:
    first = (fn.__doc__ or "").splitlines()[0]
    inner = first[first.index("(") + 1:first.rindex(")")]
    return [p.split("=")[0].strip() for p in inner.split(",") if p.strip()]


@pytest.mark.parametrize("fn, params", [
    (runtime.cudaDeviceGetPCIBusId, ["length", "device"]),
    (driver.cuDeviceGetPCIBusId, ["length", "dev"]),
    (driver.cuDeviceGetName, ["length", "dev"]),
    (driver.cuDeviceGetLuid, ["dev"]),
    (runtime.cudaMemRangeGetAttribute, ["dataSize", "attribute", "devPtr", "count"]),
    (runtime.cudaMemRangeGetAttributes, ["dataSizes", "attributes", "numAttributes", "devPtr", "count"]),
    (driver.cuMemRangeGetAttribute, ["dataSize", "attribute", "devPtr", "count"]),
    (driver.cuMemRangeGetAttributes, ["dataSizes", "attributes", "numAttributes", "devPtr", "count"]),
    (driver.cuPointerGetAttribute, ["attribute", "ptr"]),
    (driver.cuPointerGetAttributes, ["numAttributes", "attributes", "ptr"]),
    (runtime.cudaMemPoolGetAttribute, ["memPool", "attr"]),
    (driver.cuMemSetAccess, ["ptr", "size", "desc", "count"]),
    (driver.cuStreamBatchMemOp, ["stream", "count", "paramArray", "flags"]),
    (runtime.cudaGraphNodeGetDependencies, ["node", "pNumDependencies"]),
    (runtime.cudaGraphGetEdges, ["graph", "numEdges"]),
    (driver.cuGraphNodeGetDependentNodes, ["hNode", "numDependentNodes"]),
    (driver.cuStreamGetCaptureInfo, ["hStream"]),
    (runtime.cudaStreamUpdateCaptureDependencies, ["stream", "dependencies", "dependencyData", "numDependencies", "flags"]),
    (runtime.cudaThreadExchangeStreamCaptureMode, ["mode"]),
    (driver.cuLogsDumpToMemory, ["iterator", "buffer", "size", "flags"]),
    (driver.cuMemPoolImportPointer, ["pool", "shareData"]),
    (driver.cuDevSmResourceSplitByCount, ["nbGroups", "input_", "flags", "minCount"]),   # 13.3.1 (13.0: useFlags)
])
def test_signatures_are_cuda_bindings(fn, params):
    assert _params(fn) == params


@pytest.mark.runtime
def test_graph_queries_return_edge_data():
    """cudaGraphNodeGetDependencies(node, pNumDependencies=0) -> (err, deps, edgeData, n), None for
    each output of a failed call; a list too short for the count is refused before C."""
    err, deps, edges, n = runtime.cudaGraphNodeGetDependencies(None)
    assert int(err) != 0 and deps is None and edges is None and n is None
    assert len(driver.cuGraphNodeGetDependentNodes(None, 2)) == 4
    # (err, status, id, graph, dependencies, edgeData, n), None each when the call fails
    assert runtime.cudaStreamGetCaptureInfo(None)[1:] == (None,) * 6


def test_structs_are_returned_as_the_typedef_cuda_bindings_names(probe):
    """A struct the call fills is of the class of the typedef its signature names, as cuda.bindings'
    (cuGraphNodeGetDependencies' edgeData: CUgraphEdgeData, not CUgraphEdgeData_st)."""
    E = driver.CUgraphEdgeData
    got = probe.filled(E, 1, bytes(E()._size_))
    assert [type(e).__name__ for e in got] == ["CUgraphEdgeData"]
    src = (ROOT / "hip_as_cuda" / "cuda" / "bindings" / "driver.pyx").read_text()
    # (a function body names the class through its accessor: codegen/emit/lazy.py)
    assert "_o1 = _cls_CUDA_MEMCPY3D()()" in src
    assert "_s.record_copy(_cls_CUgraphEdgeData()," in src


def test_struct_out_arrays_are_lists_of_copies(probe):
    """The edge data a graph query fills: one struct per element, each a copy of what C wrote."""
    E = runtime.cudaGraphEdgeData
    size = E()._size_
    raw = bytes([1]) + bytes(size - 1) + bytes([2]) + bytes(size - 1)
    got = probe.filled(E, 2, raw)
    assert len(got) == 2 and all(isinstance(e, E) for e in got)
    assert [bytes(ctypes.string_at(int(e), size))[0] for e in got] == [1, 2]
    assert probe.filled(E, 0, b"") == []


def test_text_is_returned_whole_with_spaces(probe):
    """cudaDeviceGetPCIBusId(32, 0) returns 32 bytes: the text, its NUL, spaces (b" " * length)."""
    assert probe.spaced(b"0000:18:00.0\0", 32) == b"0000:18:00.0\0" + b" " * 19
    assert probe.spaced(b"abcd", 4) == b"abcd"           # no NUL: all of it
    assert len(probe.spaced(b"", 256)) == 256


# -- lists of structs ---------------------------------------------------------------------------
def _access(dev, flags):
    a = driver.CUmemAccessDesc()
    a.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    a.location.id = dev
    a.flags = flags
    return a


def test_a_list_of_structs_is_one_c_array(probe):
    """cuMemSetAccess(ptr, size, [desc, ...], n): the structs side by side, as C reads them."""
    descs = [_access(0, driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
             _access(3, driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READ)]
    size = type(descs[0])._size_
    raw = probe.packed(driver.CUmemAccessDesc, descs)
    assert raw == b"".join(ctypes.string_at(int(d), size) for d in descs)
    assert len(raw) == 2 * size
    assert probe.packed(driver.CUmemAccessDesc, (descs[1],)) == ctypes.string_at(int(descs[1]), size)
    assert probe.packed(driver.CUmemAccessDesc, []) is None          # NULL, as cuda.bindings passes
    assert probe.passed_on(driver.CUmemAccessDesc, descs[0])         # one struct: its own memory
    assert probe.passed_on(driver.CUmemAccessDesc, 0x1000)           # an address: the caller's word
    with pytest.raises(TypeError):
        probe.packed(driver.CUmemAccessDesc, [descs[0], driver.CUmemLocation()])


@pytest.mark.runtime
def test_struct_lists_reach_the_call():
    """The Python layer takes the list (no TypeError): the call itself fails without a GPU."""
    r = driver.cuMemSetAccess(0, 0, [_access(0, 3)], 1)
    assert isinstance(r[0], driver.CUresult)
    with pytest.raises(TypeError):
        driver.cuMemSetAccess(0, 0, [driver.CUmemLocation()], 1)


# -- kernelParams only as cuda.bindings takes them ---------------------------------------------
@pytest.mark.parametrize("params", [
    ([driver.CUdeviceptr(0)], [None]),          # lists, not tuples
    [1, 2],
    ((1,), (ctypes.c_char_p,)),                 # a type cuda.bindings does not support
    ((1,), (ctypes.c_longdouble,)),
    ((5,), (None,)),                            # an int given for None's type
    ((1, 2), (ctypes.c_int,)),                  # tuples of different lengths
    "not parameters",
])
def test_kernel_params_cuda_bindings_refuses(params):
    with pytest.raises(TypeError) as e:
        driver.cuLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)
    assert "NULL handle" not in str(e.value)     # refused for the parameters, before the function


@pytest.mark.parametrize("params", [None, 0, ((), ()), ((1, 2.5), (ctypes.c_int, ctypes.c_float)),
                                    ((driver.CUdeviceptr(16),), (None,)), bytearray(16)])
def test_kernel_params_cuda_bindings_accepts(params):
    # the parameters taken, the NULL function answers cuda.bindings' status (not called)
    assert driver.cuLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, 0, params, 0) == (driver.CUresult.CUDA_ERROR_INVALID_VALUE,)


# -- handle classes ---------------------------------------------------------------------------
@pytest.mark.parametrize("mod, name, base", [
    (driver, "CUstream", None), (driver, "CUevent", None), (driver, "CUcontext", None),
    (driver, "CUmemoryPool", None), (driver, "CUgraph", None), (driver, "CUfunction", None),
    (runtime, "cudaStream_t", "CUstream"), (runtime, "cudaEvent_t", "CUevent"),
    (runtime, "cudaMemPool_t", "CUmemoryPool"), (runtime, "cudaGraph_t", "CUgraph"),
    (runtime, "cudaGraphNode_t", "CUgraphNode"), (runtime, "cudaGraphExec_t", "CUgraphExec"),
    (runtime, "cudaFunction_t", "CUfunction"), (runtime, "cudaArray_t", None), (nvrtc, "nvrtcProgram", None),
])
def test_handle_classes_are_named_after_their_typedefs(mod, name, base):
    """type(x).__name__ is the typedef's (cuda.bindings'), a runtime handle is the driver's handle of
    the same struct, and handles stay ints with getPtr()."""
    cls = getattr(mod, name)
    assert cls.__name__ == name
    if base is not None:
        assert issubclass(cls, getattr(driver, base))
    h = cls(0x40)
    assert int(h) == 0x40 and h.getPtr() == 0x40 and repr(h) == f"<{name} 0x40>"
    assert bool(cls(0)) is True           # true even when NULL, as cuda.bindings' objects are
    assert h == 0x40 and hash(h) == hash(cls(0x40))


def test_struct_typedefs_are_classes_of_their_own():
    """A class per struct typedef, derived from the type it names, as cuda.bindings' (type(x).__name__
    prints the typedef's name); functions taking the struct take each typedef's instances."""
    assert [c.__name__ for c in driver.CUDA_MEMCPY3D.__mro__[:3]] == ["CUDA_MEMCPY3D", "CUDA_MEMCPY3D_v2",
                                                                      "CUDA_MEMCPY3D_st"]
    assert [c.__name__ for c in driver.CUstreamAttrValue.__mro__[:4]] == [
        "CUstreamAttrValue", "CUstreamAttrValue_v1", "CUlaunchAttributeValue", "CUlaunchAttributeValue_union"]
    assert runtime.cudaStreamAttrValue.__mro__[1] is runtime.cudaLaunchAttributeValue   # a #define there
    assert type(runtime.cudaUUID_t()).__name__ == "cudaUUID_t"
    assert driver.CUDA_MEMCPY3D()._size_ == driver.CUDA_MEMCPY3D_st()._size_
    assert driver.sizeof(driver.CUDA_MEMCPY3D) == driver.sizeof(driver.CUDA_MEMCPY3D_st)
    with pytest.raises(TypeError):    # another struct is still refused
        driver.cuMemSetAccess(0, 0, [driver.CUDA_MEMCPY3D()], 1)


@pytest.mark.runtime
def test_struct_typedef_instances_reach_the_call():
    err, = driver.cuMemcpy3D(driver.CUDA_MEMCPY3D())        # no TypeError: fails on the device only
    assert isinstance(err, driver.CUresult)
    err, = driver.cuMemSetAccess(0, 0, [driver.CUmemAccessDesc()], 1)
    assert isinstance(err, driver.CUresult)


@pytest.mark.runtime
def test_runtime_and_driver_handles_mix():
    s = runtime.cudaStream_t(0x80)
    assert driver.CUstream(int(s)) == s and isinstance(s, driver.CUstream)
    # a runtime handle where the driver takes one, and back (the NULL stream: no GPU is touched
    # through a made-up address): the handle argument takes any handle
    assert isinstance(driver.cuStreamQuery(runtime.cudaStream_t(0))[0], driver.CUresult)
    assert isinstance(runtime.cudaStreamQuery(driver.CUstream(0))[0], runtime.cudaError_t)


@pytest.mark.runtime
def test_created_handles_have_the_typedef_class():
    """nvrtcCreateProgram (which works without a GPU) returns an nvrtcProgram."""
    err, prog = nvrtc.nvrtcCreateProgram(b'extern "C" __global__ void k() {}', b"k.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS and type(prog).__name__ == "nvrtcProgram"
    assert nvrtc.nvrtcDestroyProgram(prog)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS


# -- contexts where HIP takes devices ----------------------------------------------------------
@pytest.mark.runtime
def test_peer_copies_ask_the_contexts_device():
    """cuMemcpyPeer(dst, dstContext, src, srcContext, n): HIP's hipMemcpyPeer takes device ordinals,
    so the bridge asks each context's device (push, hipCtxGetDevice, pop) instead of passing the
    context's address as the ordinal."""
    src = (ROOT / "hip_as_cuda" / "cuda" / "bindings" / "_bridge_driver.c").read_text()
    for fn in ("cuMemcpyPeer", "cuMemcpyPeerAsync"):
        body = src[src.index(f"hipcuda_{fn}("):]
        body = body[:body.index("\n}\n")]
        assert "hipcuda_ctx_device((void*)dstContext" in body and "hipcuda_ctx_device((void*)srcContext" in body
        assert "(int)(intptr_t)dstContext" not in body
    r = driver.cuMemcpyPeer(0, driver.CUcontext(0), 0, driver.CUcontext(0), 0)
    assert isinstance(r[0], driver.CUresult) and r[0] != driver.CUresult.CUDA_SUCCESS


def test_launch_kernel_ex_is_bridged():
    """cuLaunchKernelEx runs on HIP's launches (hip_as_cuda/manual/driver.pyx): a missing config is
    CUDA_ERROR_INVALID_VALUE, not the not-supported status."""
    import json
    cov = json.loads((ROOT / "hip_as_cuda" / "cuda" / "bindings" / "_coverage" / "driver.json").read_text())
    assert cov["functions"]["cuLaunchKernelEx"]["status"] == "bridged"
    assert driver.has_symbol("cuLaunchKernelEx")


def _launch_config(*attrs):
    config = driver.CUlaunchConfig()
    config.gridDimX = config.gridDimY = config.gridDimZ = 1
    config.blockDimX = config.blockDimY = config.blockDimZ = 1
    config.attrs = list(attrs)
    config.numAttrs = len(attrs)
    return config


def test_launch_config_attrs_take_a_list_of_structs():
    """cuda.bindings' `config.attrs = [attr]`: the CUlaunchAttribute structs packed into one C array
    (not an array of their addresses, as kernelParams' lists are), read back as that list; [] is NULL."""
    coop = driver.CUlaunchAttribute()
    coop.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    coop.value.cooperative = 1
    prio = driver.CUlaunchAttribute()
    prio.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY
    prio.value.priority = -3
    config = _launch_config(coop, prio)
    size = driver.sizeof(driver.CUlaunchAttribute)
    ptr = ctypes.c_void_p.from_address(int(config) + type(config).attrs.offset).value
    raw = ctypes.string_at(ptr, 2 * size)
    assert raw == ctypes.string_at(int(coop), size) + ctypes.string_at(int(prio), size)
    assert int.from_bytes(raw[:4], "little") == int(driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
    back = config.attrs
    assert [a.id for a in back] == [coop.id, prio.id] and back[0].value.cooperative == 1 and back[1].value.priority == -3
    coop.value.cooperative = 0          # copies, as cuda.bindings' setter makes
    assert config.attrs[0].value.cooperative == 1
    config.attrs = []
    assert config.attrs == [] and ctypes.c_void_p.from_address(int(config) + type(config).attrs.offset).value is None
    # the same for the runtime's cudaLaunchConfig_t and the other pointer-to-struct fields
    rc = runtime.cudaLaunchConfig_t()
    ra = runtime.cudaLaunchAttribute()
    ra.id = runtime.cudaLaunchAttributeID.cudaLaunchAttributeCooperative
    rc.attrs = [ra]
    assert [a.id for a in rc.attrs] == [ra.id]
    with pytest.raises(TypeError):
        config.attrs = [prio, 3]


@pytest.mark.runtime
@pytest.mark.nodevice(reason="CUfunction(0x1000) is made up: a GPU's driver would run it")
def test_launch_kernel_ex_reads_the_cooperative_attribute():
    """With the attribute list packed as C's, cuLaunchKernelEx sees CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    (HIP's cooperative launch: without a GPU HIP's status, never the not-supported one; with ROCm
    5.2's runtime, the missing hipModuleLaunchCooperativeKernel), while an
    attribute HIP 6.4 cannot express answers CUDA_ERROR_NOT_SUPPORTED."""
    coop = driver.CUlaunchAttribute()
    coop.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    coop.value.cooperative = 1
    f = driver.CUfunction(0x1000)
    try:
        err, = driver.cuLaunchKernelEx(_launch_config(coop), f, None, 0)
    except Exception as e:   # an old ROCm runtime (5.2 here) lacks the cooperative launch HIP 6.4 has
        assert "hipModuleLaunchCooperativeKernel" in str(e), e
    else:
        assert isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_ERROR_NOT_SUPPORTED
    cluster = driver.CUlaunchAttribute()
    cluster.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    assert driver.cuLaunchKernelEx(_launch_config(coop, cluster), f, None, 0)[0] == \
        driver.CUresult.CUDA_ERROR_NOT_SUPPORTED


def test_runtime_helpers():
    """cuda.bindings' helpers that are no CUDA library function: make_cudaPos / make_cudaExtent /
    make_cudaPitchedPtr (return the struct itself, as there), getLocalRuntimeVersion, sizeof."""
    pos = runtime.make_cudaPos(1, 2, 3)
    assert isinstance(pos, runtime.cudaPos) and (pos.x, pos.y, pos.z) == (1, 2, 3)
    ext = runtime.make_cudaExtent(40, 5, 6)
    assert isinstance(ext, runtime.cudaExtent) and (ext.width, ext.height, ext.depth) == (40, 5, 6)
    buf = (ctypes.c_int * 10)()
    pp = runtime.make_cudaPitchedPtr(buf, 40, 10, 1)
    assert isinstance(pp, runtime.cudaPitchedPtr) and int(pp.ptr) == ctypes.addressof(buf)
    assert (pp.pitch, pp.xsize, pp.ysize) == (40, 10, 1)
    assert int(runtime.make_cudaPitchedPtr(0x1234, 8, 2, 1).ptr) == 0x1234
    params = runtime.cudaMemcpy3DParms()        # graphs_explicit.py's memcpy node
    params.srcPos = runtime.make_cudaPos(0, 0, 0)
    params.dstPtr = pp
    params.extent = ext
    assert int(params.dstPtr.ptr) == ctypes.addressof(buf) and params.extent.width == 40
    with pytest.raises(OverflowError):
        runtime.make_cudaPos(-1, 0, 0)
    err, version = runtime.getLocalRuntimeVersion()
    assert isinstance(err, runtime.cudaError_t) and isinstance(version, int)
    assert runtime.sizeof(runtime.cudaPos) == 3 * ctypes.sizeof(ctypes.c_size_t)
    assert runtime.sizeof(runtime.cudaStream_t) == ctypes.sizeof(ctypes.c_void_p)
    assert runtime.sizeof(runtime.cudaTextureObject_t) == 8
    assert driver.sizeof(driver.CUdevice) == 4 and driver.sizeof(driver.CUdeviceptr) == 8
    assert driver.sizeof(driver.CUstream) == ctypes.sizeof(ctypes.c_void_p)
    assert driver.sizeof(driver.CUlaunchAttribute) == 72
    with pytest.raises(TypeError):
        driver.sizeof(int)
    with pytest.raises(TypeError):
        runtime.sizeof(3)



# -- the generated C bridges, against stand-in HIP functions ------------------------------------
_BRIDGE_CHECKS = r"""
/* HIP's functions, played here: each records what the bridge passed. */
static struct hipabi_hipKernelNodeParams got;
static int added, peer_dst = -1, peer_src = -1, pushes, pops;
static void* current;
static int fake_add(void* n, void* g, const void* d, size_t nd, const struct hipabi_hipKernelNodeParams* p) {
    (void)n; (void)g; (void)d; (void)nd; got = *p; added++; return 0; }
static int fake_push(void* ctx) { if (!ctx) return 1; pushes++; current = ctx; return 0; }
static int fake_get_device(int* dev) { *dev = (int)((uintptr_t)current / 0x100); return 0; }
static int fake_pop(void** ctx) { pops++; *ctx = current; current = NULL; return 0; }
static int fake_deps(void* node, void** deps, size_t* n) {
    (void)node; if (deps && *n >= 2) { deps[0] = (void*)0x1; deps[1] = (void*)0x2; } *n = 2; return 0; }
static int fake_peer(void* dst, int dd, const void* src, int sd, size_t n) {
    (void)dst; (void)src; (void)n; peer_dst = dd; peer_src = sd; return 0; }
static const void* attr_func; static int attr_set = -1, attr_value;
static int fake_func_set_attribute(const void* f, int a, int v) { attr_func = f; attr_set = a; attr_value = v; return 0; }
static void* fake_resolve(const char* name) {
    if (!strcmp(name, "hipGraphAddKernelNode")) return (void*)fake_add;
    if (!strcmp(name, "hipCtxPushCurrent")) return (void*)fake_push;
    if (!strcmp(name, "hipCtxGetDevice")) return (void*)fake_get_device;
    if (!strcmp(name, "hipCtxPopCurrent")) return (void*)fake_pop;
    if (!strcmp(name, "hipMemcpyPeer")) return (void*)fake_peer;
    if (!strcmp(name, "hipGraphNodeGetDependencies")) return (void*)fake_deps;
    if (!strcmp(name, "hipFuncSetAttribute")) return (void*)fake_func_set_attribute;
    return NULL;
}
#include <stdio.h>
#define CHECK(c, what) do { if (!(c)) { printf("FAILED: %s\n", what); fails++; } } while (0)
int main(void) {
    int fails = 0;
    CUgraphNode node = NULL;
    CUDA_KERNEL_NODE_PARAMS p;
    hipcuda_resolve = fake_resolve;
    memset(&p, 0, sizeof p);
    p.func = (CUfunction)0x1234;
    p.gridDimX = 40; p.gridDimY = 2; p.gridDimZ = 3;
    p.blockDimX = 128; p.blockDimY = 4; p.blockDimZ = 1;
    p.sharedMemBytes = 16;
    p.kernelParams = (void**)0xAB0;
    CHECK(hipcuda_cuGraphAddKernelNode_v2(&node, (CUgraph)0x5, NULL, 0, &p) == CUDA_SUCCESS && added == 1, "add");
    CHECK(got.func == (void*)0x1234 && got.kernelParams == (void**)0xAB0 && got.sharedMemBytes == 16, "func, params");
    CHECK(got.gridDim.x == 40 && got.gridDim.y == 2 && got.gridDim.z == 3, "gridDimX/Y/Z -> gridDim");
    CHECK(got.blockDim.x == 128 && got.blockDim.y == 4 && got.blockDim.z == 1, "blockDimX/Y/Z -> blockDim");
    CHECK(hipcuda_cuMemcpyPeer(0x1000, (CUcontext)0x200, 0x2000, (CUcontext)0x100, 64) == CUDA_SUCCESS, "peer copy");
    CHECK(peer_dst == 2 && peer_src == 1, "each context's device");
    CHECK(pushes == 2 && pops == 2 && current == NULL, "every context pushed is popped");
    CHECK(hipcuda_cuMemcpyPeer(0x1000, NULL, 0x2000, (CUcontext)0x100, 64) != CUDA_SUCCESS, "a NULL context fails");
    CUgraphNode deps[3] = {0, 0, 0};
    CUgraphEdgeData edges[3];
    size_t n = 3;
    memset(edges, 0xFF, sizeof edges);
    CHECK(hipcuda_cuGraphNodeGetDependencies_v2((CUgraphNode)0x9, deps, edges, &n) == CUDA_SUCCESS && n == 2
          && deps[0] == (CUgraphNode)0x1 && deps[1] == (CUgraphNode)0x2, "dependencies");
    CHECK(edges[0].type == 0 && edges[1].from_port == 0 && edges[2].to_port == 0 && edges[2].type == 0,
          "edge data HIP lacks: zeroed, as many as the caller's count");
    n = 0;
    CHECK(hipcuda_cuGraphNodeGetDependencies_v2((CUgraphNode)0x9, NULL, NULL, &n) == CUDA_SUCCESS && n == 2,
          "the count query");
    /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is hipFuncAttributeMaxDynamicSharedMemorySize
       (names that differ: codegen/specs/nvidia/hip.yaml enumerators) */
    CHECK(hipcuda_cuFuncSetAttribute((CUfunction)0x77, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536)
          == CUDA_SUCCESS && attr_func == (void*)0x77 && attr_set == hipabi_hipFuncAttributeMaxDynamicSharedMemorySize
          && attr_value == 65536, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    CHECK(hipcuda_cuFuncSetAttribute((CUfunction)0x77, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50)
          == CUDA_SUCCESS && attr_set == hipabi_hipFuncAttributePreferredSharedMemoryCarveout && attr_value == 50,
          "cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)");
    printf("%d failed\n", fails);
    return fails != 0;
}
"""


def test_bridges_on_stand_in_hip(tmp_path):
    """The alias's C for cuGraphAddKernelNode (CUDA's gridDimX/Y/Z become HIP's dim3 gridDim),
    cuMemcpyPeer (each context's device, asked with the context pushed and popped again),
    cuGraphNodeGetDependencies (CUDA 13's edge data, which HIP lacks, zeroed) and cuFuncSetAttribute
    (CUfunction_attribute's names to hipFuncAttribute's), run against stand-ins for HIP's functions."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    include = alias_cuda_include()   # the headers the alias is generated from, not the layer's
    if include is None:
        pytest.skip("no CUDA headers for the alias here (build_support.cuda.alias_include)")
    from codegen.alias.modules import load_specs
    src = ROOT / "hip_as_cuda" / "cuda" / "bindings" / "_bridge_driver.c"
    (tmp_path / "t.c").write_text(f'#include "{src}"\n{_BRIDGE_CHECKS}')
    stand_ins = [f"-I{d}" for d in load_specs()["driver"].include_paths()]   # EGL/, GL/, vdpau/
    r = subprocess.run(["gcc", "-std=gnu11", "-O1", "-w", f"-I{include}", *stand_ins, str(tmp_path / "t.c"), "-o",
                        str(tmp_path / "t")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout + r.stderr
