"""hip.tensor._kernels.compiler without a GPU: the real hiprtc (ROCm) compiles to gfx90a code objects, the
memory and disk caches (a second process compiles nothing), options per platform, and the
kernel-argument packing that Function.launch hands to hipModuleLaunchKernel."""
from __future__ import annotations

import ctypes
import json
import os
import struct

import numpy as np
import pytest

from conftest import run_python
from hip.tensor._kernels import compiler as C

EM_AMDGPU = 224
SOURCE = r'''
template <typename T>
__global__ void fill(T* out, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
'''


def assert_amdgpu_elf(code: bytes):
    assert code[:4] == b"\x7fELF" and code[4] == 2 and code[5] == 1
    assert struct.unpack_from("<H", code, 18)[0] == EM_AMDGPU


@pytest.fixture(autouse=True)
def _amd_hiprtc(request):
    """The compile tests expect ROCm's hiprtc (gfx90a code objects): skip them on the NVIDIA layer."""
    if request.node.get_closest_marker("runtime"):
        from hip.tensor._core.device import platform
        if platform() == "nvidia":
            pytest.skip("ROCm's hiprtc is needed (HIP_PLATFORM=nvidia: NVRTC makes CUBINs)")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "kernels"
    monkeypatch.setenv("HIP_TENSOR_CACHE_DIR", str(d))
    C.clear_memory_cache()
    yield d
    C.clear_memory_cache()


def test_options_per_platform():
    assert C.std_options("gfx90a") == ("-std=c++17", "-O3", "-ffp-contract=off", "--offload-arch=gfx90a")
    assert C.std_options("gfx90a:sramecc+:xnack-")[-1] == "--offload-arch=gfx90a:sramecc+:xnack-"
    assert C.std_options("sm_90") == ("-std=c++17", "--fmad=false", "--gpu-architecture=sm_90")   # NVRTC: no -O3
    assert C.arch_options("compute_80") == ("--gpu-architecture=compute_80",)
    with pytest.raises(ValueError):
        C.arch_options("")


@pytest.mark.runtime
def test_target_arch_without_a_device():
    r = run_python("from hip.tensor._kernels.compiler import target_arch; print(target_arch())",
                   env={"HIP_TENSOR_ARCH": "gfx942"})
    assert r.returncode == 0, r.stderr
    from hip.tensor._core.device import device_count
    if device_count():
        assert r.stdout.strip() != "gfx942"          # a device's own arch wins
    else:
        assert r.stdout.strip() == "gfx942"
        r = run_python("from hip.tensor._kernels.compiler import target_arch; print(target_arch())",
                       env={"HIP_TENSOR_ARCH": None, "HIP_PLATFORM": None})
        assert r.stdout.strip() == "gfx90a"


@pytest.mark.runtime
def test_compile_code_object_for_gfx90a(cache):
    code = C.compile_code_object(SOURCE, arch="gfx90a")
    assert_amdgpu_elf(code)
    assert code == C.compile_code_object(SOURCE, (), "gfx90a")       # memory cache: same bytes
    s = C.stats()
    assert s["memory_hits"] >= 1


@pytest.mark.runtime
def test_name_expressions_are_lowered_and_cached_on_disk(cache):
    key, code, lowered = C._code_object(SOURCE, ("-DUNUSED=1",), "gfx90a", ("fill<float>", "fill<int>"))
    assert_amdgpu_elf(code)
    assert lowered["fill<float>"].startswith("_Z") and "fill" in lowered["fill<float>"]
    assert lowered["fill<float>"] != lowered["fill<int>"]
    files = os.listdir(cache)
    assert files == [key + ".hipko"]
    C.clear_memory_cache()
    before = C.stats()
    assert C._code_object(SOURCE, ("-DUNUSED=1",), "gfx90a", ("fill<float>", "fill<int>"))[1:] == (code, lowered)
    after = C.stats()
    assert after["compiles"] == before["compiles"] and after["disk_hits"] == before["disk_hits"] + 1


@pytest.mark.runtime
def test_key_covers_source_options_arch_and_names():
    keys = {C._key(SOURCE, ("-O3",), (), "gfx90a"), C._key(SOURCE + " ", ("-O3",), (), "gfx90a"),
            C._key(SOURCE, ("-O2",), (), "gfx90a"), C._key(SOURCE, ("-O3",), (), "gfx942"),
            C._key(SOURCE, ("-O3",), ("fill<int>",), "gfx90a"), C._key(SOURCE, ("-O", "3"), (), "gfx90a")}
    assert len(keys) == 6
    assert C._key(SOURCE, ("-O3",), (), "gfx90a") == C._key(SOURCE, ("-O3",), (), "gfx90a")
    rtc, rt, pkg = C._toolchain_versions()
    assert rtc != "unknown" and rt not in ("unknown", "unavailable")


@pytest.mark.runtime
def test_a_second_process_compiles_nothing(tmp_path):
    """Process 1 compiles into a fresh cache dir; process 2 gets the code object from disk with
    hiprtc never compiling (its compile counter stays 0), byte for byte the same."""
    prog = """
        import hashlib, json
        from hip.tensor._kernels import compiler as C
        src = 'extern "C" __global__ void k(float* x, float a) { x[threadIdx.x] = a * %d; }'
        code = C.compile_code_object(src, ("-DX=1",), "gfx90a")
        print(json.dumps({"sha": hashlib.sha256(code).hexdigest(), **C.stats()}))
    """ % os.getpid()
    env = {"HIP_TENSOR_CACHE_DIR": str(tmp_path / "c")}
    first = run_python(prog, env=env)
    assert first.returncode == 0, first.stderr
    a = json.loads(first.stdout)
    assert (a["compiles"], a["disk_hits"], a["disk_writes"]) == (1, 0, 1)
    second = run_python(prog, env=env)
    assert second.returncode == 0, second.stderr
    b = json.loads(second.stdout)
    assert (b["compiles"], b["disk_hits"], b["disk_writes"]) == (0, 1, 0)
    assert b["sha"] == a["sha"]


@pytest.mark.runtime
def test_corrupt_cache_file_is_recompiled(cache):
    key, code, _ = C._code_object(SOURCE, (), "gfx90a", ())
    path = cache / (key + ".hipko")
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF                                  # flip a byte of the code object
    path.write_bytes(bytes(data))
    C.clear_memory_cache()
    before = C.stats()
    assert C._code_object(SOURCE, (), "gfx90a", ())[1] == code
    after = C.stats()
    assert after["disk_errors"] == before["disk_errors"] + 1
    assert after["compiles"] == before["compiles"] + 1
    assert path.read_bytes() != bytes(data)            # rewritten whole


@pytest.mark.runtime
def test_empty_cache_dir_disables_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HIP_TENSOR_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    C.clear_memory_cache()
    before = C.stats()
    C.compile_code_object(SOURCE + "// no disk\n", arch="gfx90a")
    after = C.stats()
    assert after["disk_writes"] == before["disk_writes"] and os.listdir(tmp_path) == []
    assert C.cache_dir() is None


@pytest.mark.runtime
def test_compile_error_carries_the_log(cache):
    with pytest.raises(C.CompileError) as e:
        C.compile_code_object('extern "C" __global__ void bad(float* x) { x[0] = undefined_name; }', arch="gfx90a")
    assert "undefined_name" in e.value.log and "error" in e.value.log
    assert "--offload-arch=gfx90a" in str(e.value)
    with pytest.raises(TypeError):
        C.compile_code_object(b"bytes are not source", arch="gfx90a")
    with pytest.raises(TypeError):
        C.compile_code_object(SOURCE, (3,), arch="gfx90a")


# -- argument packing: the bytes hipModuleLaunchKernel reads through kernelParams ------------------
# hip._kernel_args packs under hip.tensor's rule (INT_INT64); _core.launch.pack gives the bytes and
# offsets `launch` passes. The oracle is ctypes: a Structure of the C types each argument stands
# for has C's layout, so its field offsets and bytes are what a kernel of those parameters reads.
def _c_layout(fields, values):
    """(bytes, offsets) of a C struct of `fields` holding `values` (bytes: stored as they are)."""
    class Args(ctypes.Structure):
        _fields_ = [(f"a{i}", t) for i, t in enumerate(fields)]
    s = Args()
    offsets = [getattr(Args, f"a{i}").offset for i in range(len(fields))]
    for i, (o, v) in enumerate(zip(offsets, values)):
        if isinstance(v, bytes):
            ctypes.memmove(ctypes.addressof(s) + o, v, len(v))
        else:
            setattr(s, f"a{i}", v)
    end = offsets[-1] + ctypes.sizeof(fields[-1])
    return bytes(s)[:end], offsets


def _fields_of(packed, offsets, sizes):
    return [packed[o:o + z] for o, z in zip(offsets, sizes)]


def test_arguments_are_packed_with_their_c_types_and_alignment():
    from hip.tensor._core import launch as _launch
    from hip.tensor._core.array import ndarray
    from hip.tensor._core.dtypes import dtype

    class Arr:
        ptr = 0x7F00_0000_1000

    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_char)]
    nd = ndarray._view_of(None, 0x7E00_0000_0040, (3,), (4,), dtype("float32"), 0)
    c = ctypes
    # (argument, a C type of the kernel's parameter's size and alignment, the value: complex64 is an
    # 8-aligned (re, im) pair, complex128 a 16-aligned one, as hip.tensor's ht_complex)
    table = [(np.int8(-3), c.c_int8, -3), (2.5, c.c_double, 2.5), (Arr(), c.c_uint64, Arr.ptr),
             (np.float16(1.5), c.c_uint16, int(np.float16(1.5).view(np.uint16))),
             (np.complex64(1 - 2j), c.c_uint64, np.complex64(1 - 2j).tobytes()), (True, c.c_bool, True),
             (None, c.c_void_p, None),
             (12345678901, c.c_int64, 12345678901), (nd, c.c_uint64, 0x7E00_0000_0040),
             (np.uint32(4000000000), c.c_uint32, 4000000000), (C.Pointer(0xABC), c.c_uint64, 0xABC),
             (np.float32(0.25), c.c_float, 0.25),
             (np.complex128(3 + 4j), c.c_longdouble, np.complex128(3 + 4j).tobytes()),
             (np.bool_(True), c.c_bool, True), (np.int64(-5), c.c_int64, -5), (-7, c.c_int64, -7),
             (c.c_short(7), c.c_short, 7), ((c.c_longlong * 3)(1, -2, 3), c.c_longlong * 3, (1, -2, 3)),
             (c.c_uint8(200), c.c_uint8, 200), (Pair(1, b"x"), Pair, (1, b"x")),
             (c.c_int.__ctype_be__(5), c.c_int.__ctype_be__, 5), (c.c_double(-1.5), c.c_double, -1.5),
             ((c.c_float * 2)(0.5, 2.0), c.c_float * 2, (0.5, 2.0))]
    args = tuple(a for a, _, _ in table)
    want, want_offsets = _c_layout([t for _, t, _ in table],
                                   [t(*v) if isinstance(v, tuple) else v for _, t, v in table])
    packed, offsets = _launch.pack(args)
    assert offsets == want_offsets
    sizes = [ctypes.sizeof(t) for _, t, _ in table]
    assert _fields_of(packed, offsets, sizes) == _fields_of(want, offsets, sizes)


def test_arguments_past_the_stack_buffers_are_packed_alike():
    """More than 256 arguments, or more than 4096 bytes of them: a heap block, the same layout."""
    from hip.tensor._core import launch as _launch
    many = tuple(range(-150, 150))
    packed, offsets = _launch.pack(many)
    assert offsets == [8 * i for i in range(300)]
    assert packed == struct.pack("<300q", *many)
    big = (ctypes.c_char * 5000)(*b"ab" * 2500)
    packed, offsets = _launch.pack((np.int8(1), big, 3))
    assert offsets == [0, 1, 5008] and packed[1:5001] == b"ab" * 2500 and packed[5008:] == struct.pack("<q", 3)


def test_objects_with_data_ptr_and_cai_are_pointers():
    from hip.tensor._core import launch as _launch

    class Torchish:
        def data_ptr(self):
            return 0x5000

    class Caish:
        __cuda_array_interface__ = {"data": (0x6000, False), "shape": (1,), "typestr": "<f4", "version": 3}
    packed, offsets = _launch.pack((Torchish(), Caish()))
    assert packed == struct.pack("<QQ", 0x5000, 0x6000) and offsets == [0, 8]


@pytest.mark.parametrize("bad, i", [((1, "text"), 1), ((np.datetime64("2020-01-01"),), 0),
                                    ((1, np.longdouble(1)), 1), ((2 ** 70,), 0), ((1, 2, -(2 ** 63) - 1), 2),
                                    ((ctypes.pointer(ctypes.c_int(1)),), 0)])
def test_arguments_of_no_packed_kind_are_type_errors(bad, i):
    from hip.tensor._core import launch as _launch
    with pytest.raises(TypeError, match=f"bad kernel arguments: kernel argument {i}"):
        _launch.pack(bad)


def test_bad_arguments_are_type_errors():
    f = C.Function(None, "k", 0x1, device_id=0)
    from hip.tensor._core.device import Stream
    null = Stream.from_handle(0, 0)
    with pytest.raises(TypeError, match="bad kernel arguments"):
        f.launch(1, 1, (2 ** 70,), 0, null)           # does not fit int64: refused before the call
    with pytest.raises(TypeError, match="^bad kernel arguments: kernel argument 1: cannot pass str"):
        f.launch(1, 1, (1, "text"), 0, null)
    with pytest.raises(TypeError, match="grid"):
        f.launch("1", 1, (), 0, null)
    with pytest.raises(ValueError, match="positive"):
        f.launch((1, 0), 1, (), 0, null)
    with pytest.raises(TypeError, match="block"):
        f.launch(1, (1, 2, 3, 4), (), 0, null)
    with pytest.raises(OverflowError, match="grid"):
        f.launch(2 ** 32, 1, (), 0, null)


def test_dim3_forms():
    from hip._kernel_args import dims
    assert dims((4,), "grid") == (4, 1, 1)
    assert dims((4, 2), "grid") == (4, 2, 1)
    assert dims([4, 2, 3], "grid") == (4, 2, 3)
    assert dims((np.int64(5),), "grid") == (5, 1, 1)
    for bad in (True, np.int64(7), (), (1, 2, 3, 4), (1.0,)):     # (a bare NumPy int, as before: TypeError)
        with pytest.raises(TypeError, match="block is an int"):
            dims(bad, "block")
