"""The HIP runtime through the bindings, without a GPU (ROCm 5.2's libamdhip64.so.5 here).

Expected values come from calling the same shared library directly with ctypes,
so the tests hold on any runtime; where the machine has no GPU, the no-device
statuses are asserted too.
"""
from __future__ import annotations

import ctypes
import os
import re

import pytest

from conftest import gpu_available, run_python

pytestmark = pytest.mark.runtime   # every test calls the HIP runtime


@pytest.fixture(scope="module")
def hip():
    from hip import hip as h
    return h


@pytest.fixture(scope="module")
def libpath(hip):
    return hip._library.load()


@pytest.fixture(scope="module")
def clib(libpath):
    """The library the bindings loaded, called directly (the reference)."""
    lib = ctypes.CDLL(libpath)
    lib.hipGetErrorName.restype = ctypes.c_char_p
    lib.hipGetErrorString.restype = ctypes.c_char_p
    return lib


def _c_int_out(fn) -> tuple[int, int]:
    v = ctypes.c_int(-12345)
    rc = fn(ctypes.byref(v))
    return rc, v.value


no_gpu = pytest.mark.skipif(gpu_available()[0], reason="asserts the no-device behaviour")


def test_device_count_matches_c(hip, clib):
    err, n = hip.hipGetDeviceCount()
    assert isinstance(err, hip.hipError_t)
    assert (int(err), n) == _c_int_out(clib.hipGetDeviceCount)


@no_gpu
def test_device_count_without_gpu(hip):
    err, n = hip.hipGetDeviceCount()
    assert err is hip.hipError_t.hipErrorNoDevice
    assert n == 0


def test_versions_match_c(hip, clib):
    err, rv = hip.hipRuntimeGetVersion()
    assert err is hip.hipError_t.hipSuccess
    assert (0, rv) == _c_int_out(clib.hipRuntimeGetVersion)
    assert rv > 0
    err, dv = hip.hipDriverGetVersion()
    assert (int(err), dv) == _c_int_out(clib.hipDriverGetVersion)


def test_module_records_header_version(hip, include64):
    with open(os.path.join(include64, "hip", "hip_version.h")) as f:
        text = f.read()
    v = {k: re.search(rf"#define HIP_VERSION_{k}\s+(\d+)", text).group(1) for k in ("MAJOR", "MINOR", "PATCH")}
    assert hip.__rocm_version__ == f"{v['MAJOR']}.{v['MINOR']}.{v['PATCH']}"


def test_error_names_and_strings_match_c(hip, clib):
    members = list(hip.hipError_t)
    assert len(members) > 50
    for code in members:
        st, name = hip.hipGetErrorName(code)
        assert st is hip.hipError_t.hipSuccess
        assert name == clib.hipGetErrorName(int(code)), code
        st, msg = hip.hipGetErrorString(code)
        assert msg == clib.hipGetErrorString(int(code)), code
    assert hip.hipGetErrorName(hip.hipError_t.hipErrorNoDevice)[1] == b"hipErrorNoDevice"
    assert hip.hipGetErrorName(0)[1] == b"hipSuccess"          # a plain int is accepted


def test_returned_text_and_structs_match_c(hip, clib):
    """hipDeviceGetName(len, device) and hipDeviceGetPCIBusId(len, device) return the text C writes
    into a buffer of len bytes, hipDeviceGetUuid(device) the hipUUID_t C fills (AMD's HIP Python
    convention): the same status and bytes as calling C with our own buffers."""
    for name, size in (("hipDeviceGetName", 256), ("hipDeviceGetPCIBusId", 64)):
        buf = ctypes.create_string_buffer(size)
        rc = getattr(clib, name)(buf, size, 0)
        err, text = getattr(hip, name)(size, 0)
        from hip._util.types import CStr                     # AMD's HIP Python returns a CStr
        assert isinstance(err, hip.hipError_t) and isinstance(text, CStr), name
        assert (int(err), bytes(text)) == (rc, buf.value), name
    raw = ctypes.create_string_buffer(16)
    rc = clib.hipDeviceGetUuid(raw, 0)
    err, uuid = hip.hipDeviceGetUuid(0)
    assert isinstance(uuid, hip.hipUUID_t)
    assert (int(err), uuid.bytes) == (rc, raw.raw)


@no_gpu
def test_returned_text_without_gpu(hip):
    err, name = hip.hipDeviceGetName(256, 0)
    assert err is not hip.hipError_t.hipSuccess and name == b""
    import hip as pkg
    with pytest.raises(pkg.HipError) as ei:
        pkg.check(hip.hipDeviceGetPCIBusId(64, 0))
    assert ei.value.code is err


def test_check_raises_hip_error(hip, clib):
    import hip as pkg
    code = hip.hipError_t.hipErrorInvalidValue
    with pytest.raises(pkg.HipError) as ei:
        pkg.check((code,))
    e = ei.value
    assert e.code is code
    assert e.name == "hipErrorInvalidValue"
    assert e.message == clib.hipGetErrorString(int(code)).decode()
    assert "hipErrorInvalidValue" in str(e) and str(int(code)) in str(e)
    assert isinstance(e, RuntimeError) and isinstance(e, pkg.HipPythonError)


@no_gpu
def test_check_raises_on_a_real_failing_call(hip):
    import hip as pkg
    with pytest.raises(pkg.HipError) as ei:
        pkg.check(hip.hipGetDeviceCount())
    assert ei.value.code is hip.hipError_t.hipErrorNoDevice
    assert ei.value.name == "hipErrorNoDevice"


def test_check_returns_values(hip, clib):
    import hip as pkg
    from hip import hiprtc
    assert pkg.check(hip.hipRuntimeGetVersion()) == _c_int_out(clib.hipRuntimeGetVersion)[1]
    assert pkg.check((hip.hipError_t.hipSuccess,)) is None
    major, minor = pkg.check(hiprtc.hiprtcVersion())       # several outputs: a tuple
    assert isinstance(major, int) and isinstance(minor, int) and major > 0


def test_check_raises_for_hiprtc_status():
    import hip as pkg
    from hip import hiprtc
    code = hiprtc.hiprtcResult.HIPRTC_ERROR_INVALID_INPUT
    with pytest.raises(pkg.HipError) as ei:
        pkg.check((code,))
    assert ei.value.code is code
    assert ei.value.message == hiprtc.hiprtcGetErrorString(code)[0].decode()   # (value,): the C result is the string


def test_library_not_found_names_env_var_and_path():
    r = run_python("""
        import hip
        from hip import hip as h
        try:
            h.hipGetDeviceCount()
        except hip.LibraryNotFoundError as e:
            assert isinstance(e, OSError)
            print("MESSAGE:", e)
        else:
            raise SystemExit("no LibraryNotFoundError")
    """, env={"HIP_PYTHON_HIP_LIBRARY": "/nonexistent/libamdhip64.so"})
    assert r.returncode == 0, r.stderr
    assert "HIP_PYTHON_HIP_LIBRARY" in r.stdout
    assert "/nonexistent/libamdhip64.so" in r.stdout


def test_library_env_var_selects_the_file(libpath):
    r = run_python("""
        from hip import hip as h
        h.hipGetDeviceCount()
        print(h._library.load())
    """, env={"HIP_PYTHON_HIP_LIBRARY": libpath})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == libpath


def test_symbol_not_found_for_functions_newer_than_the_library(hip, clib, libpath):
    import hip as pkg
    if hasattr(clib, "hipGetDevicePropertiesR0600"):
        pytest.skip(f"{libpath} has hipGetDevicePropertiesR0600 (ROCm >= 6)")
    assert hip.has_symbol("hipGetDeviceCount") and not hip.has_symbol("hipGetDevicePropertiesR0600")
    with pytest.raises(pkg.SymbolNotFoundError) as ei:
        hip.hipGetDevicePropertiesR0600(hip.hipDeviceProp_t(), 0)
    assert ei.value.symbol == "hipGetDevicePropertiesR0600"
    assert ei.value.path == libpath
    assert "hipGetDevicePropertiesR0600" in str(ei.value)
    assert isinstance(ei.value, AttributeError)
    with pytest.raises(pkg.SymbolNotFoundError):               # the alias is the same function
        hip.hipGetDeviceProperties(hip.hipDeviceProp_t(), 0)
    assert hip.hipGetDeviceCount()[0] is not None              # the library still works


def test_import_loads_no_library_until_first_call():
    r = run_python("""
        import hip.hip, hip.hiprtc
        def mapped():
            with open("/proc/self/maps") as f:
                maps = f.read()
            return "libamdhip64" in maps or "libhiprtc" in maps
        print("after import:", mapped())
        hip.hip.hipGetDeviceCount()
        print("after call:", mapped())
    """)
    assert r.returncode == 0, r.stderr
    assert "after import: False" in r.stdout
    assert "after call: True" in r.stdout


@pytest.mark.parametrize("order", ["hip first", "hiprtc first"])
def test_each_module_resolves_through_its_own_library(order):
    """hip.hip functions must load HIP_PYTHON_HIP_LIBRARY's library, whatever else is imported.

    (A hiprtc library that cannot load must not break hip.hip, and vice versa.)"""
    imports = "import hip.hip, hip.hiprtc" if order == "hip first" else "import hip.hiprtc, hip.hip"
    r = run_python(imports + """
import hip
err, v = hip.hip.hipRuntimeGetVersion()
print("hip loaded:", hip.hip._library.loaded, "hiprtc loaded:", hip.hiprtc._library.loaded)
try:
    hip.hiprtc.hiprtcVersion()
except hip.LibraryNotFoundError as e:
    print("hiprtc error names:", e.env)
""", env={"HIP_PYTHON_HIPRTC_LIBRARY": "/nonexistent/libhiprtc.so"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert "hip loaded: True hiprtc loaded: False" in r.stdout
    assert "hiprtc error names: HIP_PYTHON_HIPRTC_LIBRARY" in r.stdout


def test_first_calls_from_many_threads():
    r = run_python("""
        import sys, threading
        from hip import hip
        N = 32
        barrier = threading.Barrier(N)
        results = [None] * N
        errors = []
        def work(i):
            try:
                barrier.wait()
                results[i] = (int(hip.hipGetDeviceCount()[0]), hip.hipGetDeviceCount()[1],
                              hip.hipRuntimeGetVersion()[1])
            except BaseException as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=work, args=(i,)) for i in range(N)]
        for t in threads: t.start()
        for t in threads: t.join()
        assert not errors, errors
        assert len(set(results)) == 1 and results[0] is not None, results
        assert results[0] == (int(hip.hipGetDeviceCount()[0]), hip.hipGetDeviceCount()[1],
                              hip.hipRuntimeGetVersion()[1])
        print("OK", results[0])
    """)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert r.stdout.startswith("OK")


def test_python_m_hip_prints_library_paths(libpath):
    r = run_python("", args=["-m", "hip"])
    assert r.returncode == 0, r.stderr
    assert libpath in r.stdout
    assert re.search(r"^\s+hip\s+\d+/\d+ functions\s+-> " + re.escape(libpath), r.stdout, re.M)
    assert re.search(r"^\s+hiprtc\s+\d+/\d+ functions\s+->", r.stdout, re.M)
    assert "devices:" in r.stdout


def test_python_m_hip_without_library():
    r = run_python("", args=["-m", "hip"], env={"HIP_PYTHON_HIP_LIBRARY": "/nonexistent/libamdhip64.so",
                                                "HIP_PYTHON_HIPRTC_LIBRARY": "/nonexistent/libhiprtc.so"})
    assert r.returncode == 0, r.stderr
    assert "not loadable" in r.stdout
    assert "Traceback" not in r.stderr
