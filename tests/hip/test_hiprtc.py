"""hiprtc: compile HIP source to an AMDGPU code object, report errors, read logs.

Runs the real compiler in the installed ROCm runtime (no GPU needed): each
compile takes about a second, so programs are shared where possible.
"""
from __future__ import annotations

import ctypes
import struct

import pytest

from hip._util.types import CStr

pytestmark = pytest.mark.runtime   # every test calls the HIP runtime

EM_AMDGPU = 224
ARCH = "gfx90a"
KERNEL = b'extern "C" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n'
BROKEN = b'extern "C" __global__ void broken(float* x) { x[0] = 1.0f undefined_name; }\n'


@pytest.fixture(scope="module")
def hiprtc():
    from hip import hiprtc as r
    return r


def create(hiprtc, src: bytes, name: bytes = b"prog.hip"):
    err, prog = hiprtc.hiprtcCreateProgram(src, name, 0, None, None)
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    assert int(prog) != 0
    return prog


def code_of(hiprtc, prog) -> bytes:
    err, n = hiprtc.hiprtcGetCodeSize(prog)
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS and n > 0
    buf = bytearray(n)
    err, *rest = hiprtc.hiprtcGetCode(prog, buf)
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    return bytes(buf)


def log_of(hiprtc, prog) -> str:
    err, n = hiprtc.hiprtcGetProgramLogSize(prog)
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    buf = bytearray(n)
    assert hiprtc.hiprtcGetProgramLog(prog, buf)[0] is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def assert_amdgpu_elf(code: bytes):
    assert code[:4] == b"\x7fELF"
    assert code[4] == 2                                      # ELFCLASS64
    assert code[5] == 1                                      # little-endian
    (machine,) = struct.unpack_from("<H", code, 18)
    assert machine == EM_AMDGPU


@pytest.fixture(scope="module")
def compiled(hiprtc):
    prog = create(hiprtc, KERNEL)
    err = hiprtc.hiprtcCompileProgram(prog, 1, [f"--offload-arch={ARCH}".encode()])[0]
    return prog, err


def test_compile_with_bytes_options(hiprtc, compiled):
    prog, err = compiled
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS, log_of(hiprtc, prog)
    code = code_of(hiprtc, prog)
    assert_amdgpu_elf(code)
    assert b"scale" in code                                 # the kernel's symbol is in the object


def test_compile_with_str_options(hiprtc):
    prog = create(hiprtc, KERNEL, b"str_options.hip")
    err = hiprtc.hiprtcCompileProgram(prog, 2, [f"--offload-arch={ARCH}", "-O1"])[0]
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS, log_of(hiprtc, prog)
    assert_amdgpu_elf(code_of(hiprtc, prog))


def test_source_as_str(hiprtc):
    err, prog = hiprtc.hiprtcCreateProgram(KERNEL.decode(), "as_str.hip", 0, None, None)
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS and int(prog) != 0


def test_syntax_error_reports_compilation_error_and_log(hiprtc):
    prog = create(hiprtc, BROKEN, b"broken.hip")
    err = hiprtc.hiprtcCompileProgram(prog, 1, [f"--offload-arch={ARCH}".encode()])[0]
    assert err is hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION
    log = log_of(hiprtc, prog)
    assert log.strip()
    assert "error" in log
    assert "undefined_name" in log


def test_get_error_string(hiprtc):
    ref = ctypes.CDLL(hiprtc._library.load())
    ref.hiprtcGetErrorString.restype = ctypes.c_char_p
    for code in hiprtc.hiprtcResult:
        result = hiprtc.hiprtcGetErrorString(code)
        assert isinstance(result, tuple) and len(result) == 1   # the C result is the string: (value,)
        text, = result
        expect = ref.hiprtcGetErrorString(int(code))   # NULL for codes the library predates
        assert text == expect
        assert expect is None or (isinstance(text, CStr) and bytes(text) == expect)   # AMD's HIP Python: a CStr
    assert b"COMPILATION" in hiprtc.hiprtcGetErrorString(hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION)[0]


def test_version(hiprtc):
    ref = ctypes.CDLL(hiprtc._library.load())
    major, minor = ctypes.c_int(-1), ctypes.c_int(-1)
    assert ref.hiprtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0
    assert hiprtc.hiprtcVersion() == (hiprtc.hiprtcResult.HIPRTC_SUCCESS, major.value, minor.value)
    assert major.value > 0


def test_destroy_program_takes_the_program(hiprtc):
    """hiprtcDestroyProgram(hiprtcProgram* prog) destroys the caller's program: it is an input
    (HIP Python: `hiprtcDestroyProgram(prog)`), not a fresh output handle."""
    prog = create(hiprtc, KERNEL, b"destroy.hip")
    result = hiprtc.hiprtcDestroyProgram(prog)
    assert result[0] is hiprtc.hiprtcResult.HIPRTC_SUCCESS


def test_lowered_name_is_an_output(hiprtc):
    """hiprtcGetLoweredName(prog, name_expression, const char** lowered_name): the mangled name
    comes back (HIP Python: `err, lowered = hiprtcGetLoweredName(prog, name)`)."""
    src = b"template<typename T> __global__ void tk(T* x) { x[0] = T(1); }\n"
    prog = create(hiprtc, src, b"lowered.hip")
    assert hiprtc.hiprtcAddNameExpression(prog, b"tk<float>")[0] is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    err = hiprtc.hiprtcCompileProgram(prog, 1, [f"--offload-arch={ARCH}".encode()])[0]
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS, log_of(hiprtc, prog)
    err, lowered = hiprtc.hiprtcGetLoweredName(prog, b"tk<float>")
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    assert lowered.startswith(b"_Z") and b"tk" in lowered
