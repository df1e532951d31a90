"""cuda.bindings.nvjitlink on hiprtc's linker (hip_as_cuda/cuda/bindings/nvjitlink.py), on a CPU.

* Names and signatures against NVIDIA's release (tests/oracles/cuda_bindings_oracle.py).
* Option checks: the Result each bad option list gets is the one libnvJitLink 13 answered for it
  (cuda-bindings 13.3.1 over nvidia-nvjitlink 13.5, asked on a CPU: nvJitLink needs no GPU).
* The link itself over a stand-in hiprtc (its four hiprtcLink* functions recorded, on both
  platforms), so that what reaches hiprtc, the statuses and the logs are checked here. ROCm 5.2,
  this machine's runtime, has no hiprtcLink* at all; tests/alias/test_alias_nvjitlink_gpu.py links for real.
"""
from __future__ import annotations

import ctypes
import os
import sys

import pytest

from conftest import ROOT, run_python

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")
if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
    pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)", allow_module_level=True)

from cuda.bindings import nvjitlink as nj  # noqa: E402
from hip import hiprtc  # noqa: E402

R, I = nj.Result, nj.InputType

PTX = b""".version 8.5
.target sm_90
.address_size 64

.visible .entry _Z6kernelPi(.param .u64 _Z6kernelPi_param_0)
{
    ret;
}
"""
BITCODE = b"BC\xc0\xde" + bytes(60)                       # LLVM bitcode (AMD's LTO-IR)
NVVM_LTOIR = b"\xed\x43\x4e\x7f\x01\x43\x02\x83" + bytes(56)   # NVVM's LTO-IR container
CUBIN = b"\x7fELF\x02\x01\x01A" + bytes(10) + (190).to_bytes(2, "little") + bytes(44)
GARBAGE = b"hello world garbage"


def raises(status, fn, *args):
    with pytest.raises(nj.nvJitLinkError) as e:
        fn(*args)
    assert e.value.status == status and str(e.value) == f"{R(status).name} ({int(status)})", e.value
    return e.value


def log_of(h, size_fn=nj.get_error_log_size, get_fn=nj.get_error_log) -> bytes:
    buf = bytearray(size_fn(h))
    get_fn(h, buf)
    return bytes(buf)


# -- NVIDIA's names ------------------------------------------------------------------------------
def test_names_and_signatures_are_nvidias():
    """Every function (parameter names and order), enum (members and values) and class of
    NVIDIA's cuda.bindings.nvjitlink, described alike on both sides."""
    import cuda_bindings_oracle as oracle
    sys.path.insert(0, str(ROOT / "tools"))
    import alias_parity_report as report
    try:
        facts = oracle.load()
    except oracle.NoRelease as e:
        pytest.skip(str(e))
    A = facts["modules"]["nvjitlink"]
    O = report.describe_ours(["nvjitlink"], python=sys.executable, A=facts)["nvjitlink"]
    assert "error" not in O, O
    assert set(A["functions"]) == set(O["functions"]) and set(A["enums"]) == {"Result", "InputType"}
    deviations = {c: items for c, items in report.compare_module(A, O).items() if items}
    assert not deviations, deviations


def test_enums_and_error():
    assert repr(R.ERROR_UNRECOGNIZED_OPTION) == "<Result.ERROR_UNRECOGNIZED_OPTION: 1>"
    assert [int(m) for m in I] == [0, 1, 2, 3, 4, 5, 6, 7, 10] and int(R.ERROR_LTO_NOT_ENABLED) == 18
    e = nj.nvJitLinkError(R.ERROR_PTX_COMPILE)
    assert str(e) == "ERROR_PTX_COMPILE (4)" and e.status == R.ERROR_PTX_COMPILE and isinstance(e, Exception)
    import pickle
    assert pickle.loads(pickle.dumps(e)).status == 4
    with pytest.raises(ValueError):
        R(99)


def test_version_is_the_alias_cuda_version():
    import hip_as_cuda
    v = nj.version()
    assert isinstance(v, tuple) and len(v) == 2 and all(type(x) is int for x in v) and v >= (12, 0)
    cov = hip_as_cuda.coverage().get("nvrtc")
    if cov:
        assert ".".join(map(str, v)) == ".".join(str(cov["cuda_version"]).split(".")[:2])


# -- options: libnvJitLink's answers ---------------------------------------------------------------
@pytest.mark.parametrize("num, options, status", [
    (0, [], R.ERROR_NULL_INPUT),
    (0, ["-arch=sm_90"], R.ERROR_MISSING_ARCH),
    (2, ["-arch=sm_90"], R.ERROR_NULL_INPUT),
    (0, 0, R.ERROR_NULL_INPUT),
    (1, ["-fictitious_option"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["-arch=sm_XX"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["-arch=gfx90a"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["-arch=SM_90"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["--arch=sm_90"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["-arch"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["-arch sm_90"], R.ERROR_UNRECOGNIZED_OPTION),
    (1, ["-arch=sm_70"], R.ERROR_UNSUPPORTED_ARCH),
    (1, ["-arch=sm_52"], R.ERROR_UNSUPPORTED_ARCH),
    (1, ["-arch=sm_1000"], R.ERROR_UNSUPPORTED_ARCH),
    (1, ["-lto"], R.ERROR_MISSING_ARCH),
    (2, ["-arch=sm_90", "-ptx"], R.ERROR_INCOMPATIBLE_OPTIONS),
    (1, ["-arch=compute_90"], R.ERROR_INCOMPATIBLE_OPTIONS),
    (2, ["-arch=compute_90", "-ptx"], R.ERROR_INCOMPATIBLE_OPTIONS),
    (2, ["-arch=sm_90", "-O4"], R.ERROR_UNRECOGNIZED_OPTION),
    (2, ["-arch=sm_90", "-O1"], R.ERROR_UNRECOGNIZED_OPTION),
    (2, ["-arch=sm_90", "-ftz"], R.ERROR_UNRECOGNIZED_OPTION),
    (2, ["-arch=sm_90", "-g=1"], R.ERROR_UNRECOGNIZED_OPTION),
    (2, ["-arch=sm_90", "-kernels-used"], R.ERROR_UNRECOGNIZED_OPTION),
    (2, ["-arch=sm_90", "-kernels-used="], R.ERROR_UNRECOGNIZED_OPTION),
    (3, ["-arch=sm_90", "-Xptxas", "-v"], R.ERROR_UNRECOGNIZED_OPTION),
    (2, ["-arch=sm_90", ""], R.ERROR_UNRECOGNIZED_OPTION),
    (1, "-arch=sm_90", R.ERROR_UNRECOGNIZED_OPTION),     # a str is a sequence of one-letter options
])
def test_bad_options_answer_as_nvjitlink(num, options, status):
    """Refused before hiprtc is asked: no library needed."""
    raises(status, nj.create, num, options)


def test_one_arch_recognizer_for_nvrtc_and_nvjitlink():
    from hip_as_cuda import nvrtc_options
    assert nvrtc_options.nvidia_arch("sm_90a") == ("sm", 90, "a")
    assert nvrtc_options.nvidia_arch(b"compute_100f") == ("compute", 100, "f")
    assert [nvrtc_options.nvidia_arch(x) for x in ("sm_XX", "gfx90a", "sm_", None)] == [None] * 4
    assert nvrtc_options.translate([b"-arch=sm_90a"], "amd", "gfx942")[0][0] == b"--offload-arch=gfx942"


@pytest.mark.parametrize("num, options, exc", [
    (1, None, TypeError), (-1, ["-arch=sm_90"], OverflowError), (1 << 32, ["-arch=sm_90"], OverflowError),
    (1, iter(["-arch=sm_90"]), TypeError), (1, [3.5], TypeError), (1, b"-arch=sm_90", TypeError),
    ("1", ["-arch=sm_90"], TypeError),
])
def test_bad_arguments_are_python_errors(num, options, exc):
    with pytest.raises(exc):
        nj.create(num, options)


def test_handles_that_are_not():
    for fn in (nj.destroy, nj.complete, nj.get_linked_cubin_size, nj.get_error_log_size, nj.get_info_log_size):
        raises(R.ERROR_NULL_INPUT, fn, 0)
        raises(R.ERROR_INVALID_INPUT, fn, 987654321)
        with pytest.raises(TypeError):
            fn("handle")
    raises(R.ERROR_NULL_INPUT, nj.add_data, 0, I.PTX, PTX, len(PTX), "x")
    raises(R.ERROR_NULL_INPUT, nj.get_error_log, 0, bytearray(8))


@pytest.mark.parametrize("data, kind", [
    (PTX, I.PTX), (b"//\n// Generated\n//\n\n" + PTX, I.PTX), (CUBIN, I.CUBIN),
    (CUBIN[:18] + (224).to_bytes(2, "little") + CUBIN[20:], I.CUBIN),         # an AMD code object
    (CUBIN[:18] + (62).to_bytes(2, "little") + CUBIN[20:], I.OBJECT),         # x86-64: a host object
    (b"\x50\xed\x55\xba" + bytes(12), I.FATBIN), (b"__CLANG_OFFLOAD_BUNDLE__" + bytes(8), I.FATBIN),
    (BITCODE, I.LTOIR), (NVVM_LTOIR, I.LTOIR), (b"!<arch>\n" + bytes(8), I.LIBRARY), (GARBAGE, None),
])
def test_the_bytes_say_what_an_input_is(data, kind):
    assert nj._sniff(data) == kind


# -- the link, over a stand-in hiprtc ------------------------------------------------------------------
class FakeHiprtc:
    """hip.hiprtc's hiprtcLink* as the alias calls them, recorded; answers set per test."""
    OK = hiprtc.hiprtcResult.HIPRTC_SUCCESS

    def __init__(self, monkeypatch, platform):
        self.calls, self.create_status, self.add_status, self.complete_status = [], self.OK, self.OK, self.OK
        self.image = ctypes.create_string_buffer(b"\x7fELF linked image", 17)
        self.log_on_add = None
        for name in ("hiprtcLinkCreate", "hiprtcLinkAddData", "hiprtcLinkComplete", "hiprtcLinkDestroy"):
            monkeypatch.setattr(hiprtc, name, getattr(self, name))
        monkeypatch.setattr(nj, "_platform", lambda: platform)

    def hiprtcLinkCreate(self, n, options, values):
        assert n == len(options) == len(values)
        self.options = dict(zip(options, values))
        self.calls.append(("create", options))
        self.error_log = self.options.get(hiprtc.HIPRTC_JIT_ERROR_LOG_BUFFER)
        return self.create_status, (object() if self.create_status == self.OK else None)

    def hiprtcLinkAddData(self, state, kind, image, size, name, n, opts, vals):
        assert isinstance(image, bytearray) and size == len(image) and isinstance(name, bytes)
        self.calls.append(("add", kind, bytes(image), name))
        if self.log_on_add:
            self.error_log[:len(self.log_on_add) + 1] = self.log_on_add + b"\0"
        return (self.add_status,)

    def hiprtcLinkComplete(self, state):
        self.calls.append(("complete",))
        return self.complete_status, ctypes.addressof(self.image), len(self.image)

    def hiprtcLinkDestroy(self, state):
        self.calls.append(("destroy",))
        return (self.OK,)


@pytest.fixture(params=["amd", "nvidia"])
def fake(request, monkeypatch):
    return FakeHiprtc(monkeypatch, request.param)


@pytest.fixture
def amd(monkeypatch):
    return FakeHiprtc(monkeypatch, "amd")


@pytest.fixture
def nvidia(monkeypatch):
    return FakeHiprtc(monkeypatch, "nvidia")


def test_target_on_nvidia(nvidia):
    """-arch=sm_XX on the NVIDIA layer: CUDA's CUjit_target as HIPRTC_JIT_TARGET (the driver's
    cuLink links for it, as nvJitLink does; on AMD hiprtc links for the current device)."""
    for arch, target in (("sm_100", 100), ("sm_90a", 0x10000 + 90), ("sm_100f", 0x20000 + 100), ("lto_90", 90)):
        nj.destroy(nj.create(1, [f"-arch={arch}"]))
        assert nvidia.options[hiprtc.HIPRTC_JIT_TARGET] == target


def test_amd_passes_only_the_log_buffers(amd):
    with pytest.warns(RuntimeWarning, match="'-g', '-maxrregcount=32'.*ROCm"):
        h = nj.create(3, ["-arch=sm_90", "-g", "-maxrregcount=32"])
    assert set(amd.options) == {hiprtc.HIPRTC_JIT_INFO_LOG_BUFFER, hiprtc.HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                hiprtc.HIPRTC_JIT_ERROR_LOG_BUFFER, hiprtc.HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES}
    nj.destroy(h)


def test_nvidia_takes_the_jit_options(nvidia):
    with pytest.warns(RuntimeWarning, match="'-time'"):
        h = nj.create(6, ["-arch=sm_80", "-g", "-lineinfo", "-maxrregcount=32", "-O0", "-time"])
    o = nvidia.options
    assert o[hiprtc.HIPRTC_JIT_TARGET] == 80 and o[hiprtc.HIPRTC_JIT_GENERATE_DEBUG_INFO] == 1
    assert o[hiprtc.HIPRTC_JIT_GENERATE_LINE_INFO] == 1 and o[hiprtc.HIPRTC_JIT_MAX_REGISTERS] == 32
    assert o[hiprtc.HIPRTC_JIT_OPTIMIZATION_LEVEL] == 0
    nj.destroy(h)


def test_options_as_bytes_and_addresses(nvidia):
    buf = ctypes.create_string_buffer(b"-arch=sm_75")
    array = (ctypes.c_char_p * 1)(b"-arch=sm_75")      # alive while its address is used
    for options in ([b"-arch=sm_75"], ("-arch=sm_75",), [ctypes.addressof(buf)], ctypes.addressof(array)):
        nj.destroy(nj.create(1, options))
        assert nvidia.options[hiprtc.HIPRTC_JIT_TARGET] == 75


def test_link_ptx_on_nvidia(nvidia, tmp_path):
    h = nj.create(1, ["-arch=sm_90"])
    assert h != 0
    nj.add_data(h, I.ANY, PTX, len(PTX), "test_data")
    (tmp_path / "k.cubin").write_bytes(PTX)        # NVIDIA's test names a PTX file .cubin: the bytes decide
    nj.add_file(h, I.ANY, str(tmp_path / "k.cubin"))
    assert [c[1] for c in nvidia.calls if c[0] == "add"] == [hiprtc.HIPRTC_JIT_INPUT_PTX] * 2
    assert nvidia.calls[-1][3] == str(tmp_path / "k.cubin").encode()
    nj.complete(h)
    n = nj.get_linked_cubin_size(h)
    out = bytearray(n)
    nj.get_linked_cubin(h, out)
    assert bytes(out) == nvidia.image.raw and n == 17
    assert nj.get_error_log_size(h) == 0 and nj.get_info_log_size(h) == 0
    nj.get_error_log(h, bytearray(0))
    nj.destroy(h)
    assert nvidia.calls[-1] == ("destroy",)
    raises(R.ERROR_INVALID_INPUT, nj.complete, h)


def test_link_bitcode_on_amd(amd):
    h = nj.create(2, ["-arch=sm_90", "-lto"])
    nj.add_data(h, I.ANY, BITCODE, len(BITCODE), "a.bc")
    bundle = b"__CLANG_OFFLOAD_BUNDLE__" + bytes(40)
    nj.add_data(h, I.LTOIR, bundle, len(bundle), "b")
    nj.add_data(h, I.LIBRARY, b"!<arch>\n" + bytes(8), 16, "lib.a")
    assert [c[1] for c in amd.calls if c[0] == "add"] == [
        hiprtc.HIPRTC_JIT_INPUT_LLVM_BITCODE, hiprtc.HIPRTC_JIT_INPUT_LLVM_BUNDLED_BITCODE,
        hiprtc.HIPRTC_JIT_INPUT_LLVM_ARCHIVES_OF_BUNDLED_BITCODE]
    nj.complete(h)
    assert nj.get_linked_cubin_size(h) == 17
    nj.destroy(h)


def test_ltoir_needs_lto(fake):
    h = nj.create(1, ["-arch=sm_90"])
    raises(R.ERROR_LTO_NOT_ENABLED, nj.add_data, h, I.ANY, BITCODE, len(BITCODE), "x")
    assert b"-lto" in log_of(h)
    h2 = nj.create(2, ["-arch=sm_90", "-lto"])
    if nj._platform() == "nvidia":
        # NVRTC's LTO-IR goes to the layer as NVVM, for its nvJitLink link
        nj.add_data(h2, I.LTOIR, NVVM_LTOIR, len(NVVM_LTOIR), "x")
        assert [c[1] for c in fake.calls if c[0] == "add"] == [hiprtc.HIPRTC_JIT_INPUT_NVVM]
        # a layer that finds no libnvJitLink refuses it, saying why: the feature is not there
        fake.add_status, fake.log_on_add = hiprtc.hiprtcResult.HIPRTC_ERROR_INVALID_INPUT, b"no libnvJitLink"
        raises(R.ERROR_LTO_NOT_ENABLED, nj.add_data, h2, I.ANY, NVVM_LTOIR, len(NVVM_LTOIR), "y")
        assert b"no libnvJitLink" in log_of(h2)
    else:
        nj.add_data(h2, I.LTOIR, BITCODE, len(BITCODE), "x")
    nj.destroy(h)
    nj.destroy(h2)


def test_input_checks(fake):
    h = nj.create(1, ["-arch=sm_90"])
    e = raises(R.ERROR_UNRECOGNIZED_INPUT, nj.add_data, h, I.ANY, GARBAGE, len(GARBAGE), "g")
    assert log_of(h) == b"unrecognized input type: g\n\0" and e.__notes__
    raises(R.ERROR_INCORRECT_INPUT_TYPE, nj.add_data, h, I.PTX, GARBAGE, len(GARBAGE), "g")
    raises(R.ERROR_INCORRECT_INPUT_TYPE, nj.add_data, h, I.CUBIN, PTX, len(PTX), "p")
    for kind in (I.NONE, 99, I.INDEX):
        raises(R.ERROR_INCORRECT_INPUT_TYPE, nj.add_data, h, kind, PTX, len(PTX), "p")
    with pytest.raises(TypeError):
        nj.add_data(h, "PTX", PTX, len(PTX), "p")
    with pytest.raises(TypeError):
        nj.add_data(h, I.PTX, PTX, len(PTX), b"p")           # NVIDIA's: name must be a str
    for data, size in ((PTX, len(PTX) - 1), (PTX, len(PTX) + 1), (PTX.decode(), len(PTX)), (None, 4), (b"", 0)):
        with pytest.raises(ValueError):
            nj.add_data(h, I.PTX, data, size, "p")
    with pytest.raises(OverflowError):
        nj.add_data(h, I.PTX, PTX, -1, "p")
    raises(R.ERROR_INVALID_INPUT, nj.add_data, h, I.PTX, 0, len(PTX), "p")
    raises(R.ERROR_INVALID_INPUT, nj.add_file, h, I.PTX, "/nonexistent/x.ptx")
    assert b"no such file: /nonexistent/x.ptx" in log_of(h)
    with pytest.raises(TypeError):
        nj.add_file(h, I.PTX, b"/nonexistent/x.ptx")
    assert not [c for c in fake.calls if c[0] == "add"]
    buf = ctypes.create_string_buffer(PTX, len(PTX))
    nj.add_data(h, I.PTX, ctypes.addressof(buf), len(PTX), "from an address")
    assert [c[2] for c in fake.calls if c[0] == "add"] == [PTX]
    # the alias's nvrtcGetPTX gives hiprtc's code object (HIP has no PTX): named PTX, it is
    # linked as what it is (cuda.core compiles "ptx" and links it)
    nj.add_data(h, I.PTX, CUBIN, len(CUBIN), "own ptx")
    assert [c[1:3] for c in fake.calls if c[0] == "add"][-1] == (hiprtc.HIPRTC_JIT_INPUT_CUBIN, CUBIN)
    nj.destroy(h)


def test_hiprtc_refusals_become_nvjitlink_statuses(fake):
    Bad = hiprtc.hiprtcResult
    h = nj.create(1, ["-arch=sm_90"])
    fake.add_status, fake.log_on_add = Bad.HIPRTC_ERROR_PROGRAM_CREATION_FAILURE, b"ptxas error: bogus"
    nvidia = nj._platform() == "nvidia"
    raises(R.ERROR_PTX_COMPILE if nvidia else R.ERROR_INVALID_INPUT, nj.add_data, h, I.PTX, PTX, len(PTX), "bad.ptx")
    log = log_of(h)
    assert b"ptxas error: bogus\n" in log and b"bad.ptx" in log and log.endswith(b"\n\0")
    fake.add_status = fake.OK
    nj.add_data(h, I.PTX, PTX, len(PTX), "ok.ptx")
    fake.complete_status = Bad.HIPRTC_ERROR_LINKING
    raises(R.ERROR_INTERNAL, nj.complete, h)          # nvJitLink's status for an unresolved symbol
    raises(R.ERROR_INTERNAL, nj.get_linked_cubin_size, h)
    raises(R.ERROR_INTERNAL, nj.complete, h)
    nj.destroy(h)
    fake.create_status = Bad.HIPRTC_ERROR_INVALID_OPTION
    raises(R.ERROR_UNSUPPORTED_ARCH if nvidia else R.ERROR_UNRECOGNIZED_OPTION, nj.create, 1, ["-arch=sm_121"])
    fake.create_status = Bad.HIPRTC_ERROR_INTERNAL_ERROR
    raises(R.ERROR_INTERNAL, nj.create, 1, ["-arch=sm_90"])


def test_order_of_calls(fake):
    h = nj.create(1, ["-arch=sm_90"])
    raises(R.ERROR_INTERNAL, nj.get_linked_cubin_size, h)         # before complete: nvJitLink's answer
    raises(R.ERROR_INVALID_INPUT, nj.get_linked_ptx_size, h)
    nj.complete(h)                          # no inputs: an empty image
    assert nj.get_linked_cubin_size(h) == (17 if nj._platform() == "nvidia" else 0)
    raises(R.ERROR_INTERNAL, nj.complete, h)
    raises(R.ERROR_INTERNAL, nj.add_data, h, I.PTX, PTX, len(PTX), "late")
    raises(R.ERROR_INVALID_INPUT, nj.get_linked_ptx_size, h)      # no -ptx: no PTX, as NVIDIA's
    nj.destroy(h)


def test_linked_ptx_is_not_there(fake):
    """-lto -ptx: HIP's linker gives one binary, never PTX: NVIDIA's answer when no PTX was made."""
    h = nj.create(3, ["-arch=sm_90", "-lto", "-ptx"])
    if nj._platform() == "amd":
        nj.add_data(h, I.LTOIR, BITCODE, len(BITCODE), "l")
        nj.complete(h)
        raises(R.ERROR_INVALID_INPUT, nj.get_linked_ptx_size, h)
        raises(R.ERROR_INVALID_INPUT, nj.get_linked_ptx, h, bytearray(64))
        raises(R.ERROR_INTERNAL, nj.get_linked_cubin_size, h)    # -ptx asked for PTX, not a cubin
        assert b"never PTX" in log_of(h)
    nj.destroy(h)
    h = nj.create(3, ["-arch=sm_90", "-lto", "-ptx"])
    nj.add_data(h, I.PTX, PTX, len(PTX), "p")
    raises(R.ERROR_INCORRECT_INPUT_TYPE, nj.complete, h)
    assert b"-ptx requires that all inputs have LTOIR" in log_of(h)
    raises(R.ERROR_INTERNAL, nj.get_linked_ptx_size, h)
    nj.destroy(h)


def test_output_buffers(nvidia):
    h = nj.create(1, ["-arch=sm_90"])
    nj.add_data(h, I.PTX, PTX, len(PTX), "p")
    nj.complete(h)
    n = nj.get_linked_cubin_size(h)
    for bad in (bytes(n), bytearray(n - 1), None, "x" * n):
        with pytest.raises(ValueError):
            nj.get_linked_cubin(h, bad)
    big = bytearray(n + 8)
    nj.get_linked_cubin(h, big)
    assert big[:n] == nvidia.image.raw and big[n:] == bytes(8)
    out = ctypes.create_string_buffer(n)
    nj.get_linked_cubin(h, ctypes.addressof(out))
    assert out.raw == nvidia.image.raw
    nj.get_linked_cubin(h, memoryview(bytearray(n)))
    raises(R.ERROR_NULL_INPUT, nj.get_linked_cubin, h, 0)
    raises(R.ERROR_INVALID_INPUT, nj.add_file, h, I.ANY, "/nonexistent")
    assert nj.get_error_log_size(h) == len(log_of(h)) > 0
    with pytest.raises(ValueError):
        nj.get_error_log(h, bytearray(1))
    nj.destroy(h)


def test_verbose_says_the_target(amd):
    with pytest.warns(RuntimeWarning):   # -verbose has no counterpart on ROCm's linker
        h = nj.create(3, ["-arch=sm_90", "-lto", "-verbose"])
    nj.add_data(h, I.LTOIR, BITCODE, len(BITCODE), "a")
    nj.complete(h)
    info = log_of(h, nj.get_info_log_size, nj.get_info_log)
    assert b"-arch=sm_90" in info and info.endswith(b"\n\0")
    nj.destroy(h)


# -- the real hiprtc -----------------------------------------------------------------------------
@pytest.mark.runtime
def test_with_this_machines_hiprtc():
    """ROCm before 5.3 has no hiprtcLink*: create is the error NVIDIA's gives for a function its
    library lacks (FunctionNotFoundError, a RuntimeError), naming the HIP function; a newer hiprtc
    creates and destroys a link without a device (it needs one to link)."""
    if not hiprtc._library.has_symbol("hiprtcLinkCreate"):
        with pytest.raises((RuntimeError, AttributeError), match="hiprtcLinkCreate"):
            nj.create(1, ["-arch=sm_90"])
        return
    h = nj.create(1, ["-arch=sm_90"])
    nj.complete(h)
    nj.destroy(h)


def test_imports_both_ways_and_not_with_driver(tmp_path):
    """`from cuda.bindings import nvjitlink` as the `cuda` package and under `python -m hip_as_cuda`
    (which takes cuda.bindings.* imports even where NVIDIA's is installed); `import
    cuda.bindings.driver` does not import it."""
    script = tmp_path / "uses_nvjitlink.py"
    script.write_text("import sys\nimport cuda.bindings.driver\n"
                      "assert 'cuda.bindings.nvjitlink' not in sys.modules\n"
                      "from cuda.bindings import nvjitlink\nprint(nvjitlink.__file__, nvjitlink.version())\n")
    for args in ([str(script)], ["-m", "hip_as_cuda", str(script)]):
        r = run_python("", args=args)
        assert r.returncode == 0, r.stderr[-2000:]
        assert os.path.join("hip_as_cuda", "cuda", "bindings", "nvjitlink.py") in r.stdout, r.stdout


def test_sdist_and_wheel_carry_the_module():
    """MANIFEST.in takes it into the sdist; setuptools' build_py finds it in the alias's package
    directory (installed as hip_as_cuda.cuda.bindings, and as cuda.bindings where that is ours)."""
    import fnmatch
    from setuptools import Distribution
    from setuptools.command.build_py import build_py
    rel = "hip_as_cuda/cuda/bindings/nvjitlink.py"
    patterns = []
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        words = line.split()
        if words[:1] == ["include"]:
            patterns += words[1:]
        elif words[:1] == ["recursive-include"] and len(words) > 2:
            patterns += [f"{words[1]}/{p}" for p in words[2:]]
    assert any(fnmatch.fnmatch(rel, p) for p in patterns), patterns
    cmd = build_py(Distribution({"packages": ["hip_as_cuda.cuda.bindings"], "script_name": str(ROOT / "setup.py")}))
    found = cmd.find_package_modules("hip_as_cuda.cuda.bindings", str(ROOT / "hip_as_cuda" / "cuda" / "bindings"))
    assert ("hip_as_cuda.cuda.bindings", "nvjitlink", str(ROOT / rel)) in found


FUZZ_CHILD = r"""
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
import hip_as_cuda._finder
hip_as_cuda._finder.install()
from cuda.bindings import nvjitlink as nj
from hip import hiprtc
# a stand-in linker: the handle is a real one, whatever HIP this machine has
ok = hiprtc.hiprtcResult.HIPRTC_SUCCESS
hiprtc.hiprtcLinkCreate = lambda n, o, v: (ok, object())
hiprtc.hiprtcLinkAddData = lambda *a: (ok,)
hiprtc.hiprtcLinkComplete = lambda s: (ok, 0, 0)
hiprtc.hiprtcLinkDestroy = lambda s: (ok,)
nj._platform = lambda: "amd"
BAD = ["None", "'x'", "1.5", "float('nan')", "-1", "2**64", "b'x'", "[1, 2]", "object()", "True", "0"]
for name in sorted(n for n in dir(nj) if not n.startswith("_") and inspect.isfunction(getattr(nj, n))):
    fn = getattr(nj, name)
    params = list(inspect.signature(fn).parameters)
    for i in range(len(params)):
        for bad in BAD:
            h = nj.create(1, ["-arch=sm_90"])
            args = [str(h) if p == "handle" else "0" for p in params]
            args[i] = bad
            print(json.dumps([name, args]), flush=True)
            try:
                fn(*[eval(a) for a in args])
            except Exception:
                pass
print("DONE", flush=True)
"""


def test_bad_values_never_crash():
    """Every function, each parameter in turn given None, a str, a float, NaN, -1, 2**64, bytes,
    a list, an object, True or 0 (the others 0, the handle a live one): a Python exception or
    an nvJitLinkError, never a crash. An int in range is an address by contract (not tried)."""
    r = run_python(FUZZ_CHILD, timeout=300)
    last = r.stdout.strip().splitlines()[-1:] or [""]
    assert r.returncode == 0 and last == ["DONE"], f"crashed at {last[0]} (rc {r.returncode}): {r.stderr[-1500:]}"
