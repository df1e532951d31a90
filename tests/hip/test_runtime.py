"""The libraries at run time on this machine, without a GPU (ROCm 5.2's libamdhip64.so.5 here).

HIP itself, hipRAND and hipSPARSE are called for real where their libraries load (Debian's
bookworm runtime here): expected values come from calling the same shared library with ctypes, so
the tests hold on any runtime; where the machine has no GPU, the no-device statuses are asserted
too. Creating a generator or handle without a GPU must be an error status (or, for hipSPARSE, a
NULL handle), never a crash. hipSPARSE's descriptors are host objects, so its generic-API getters
are exercised for real, outputs included: as in AMD's HIP Python, they write into storage the
caller passes (descriptors into a void*, sizes, enums and pointers into NumPy arrays and ctypes
values).

For every library that has a spec and that the package cannot load (decided by trying, not
assumed), a call raises LibraryNotFoundError naming the library, its environment variable and
every place it looked, each of which really does not load; the module itself (enums, structs,
constants) works without it.
"""
from __future__ import annotations

import ctypes
import os
import re
import time

import pytest

import header_facts
from codegen import spec as specmod
from conftest import ROOT, gpu_available, library_module, run_python, stub_functions

LIBS = header_facts.names()
no_gpu = pytest.mark.skipif(gpu_available()[0], reason="asserts the no-device behaviour")
runtime = pytest.mark.runtime   # calls the HIP runtime


def _path(lib):
    """The library file the package loads, or None when it cannot load one."""
    import hip as pkg
    try:
        return library_module(lib)._library.load()
    except pkg.LibraryNotFoundError:
        return None


def _clib(lib):
    path = _path(lib)
    if path is None:
        pytest.skip(f"no {lib} library on this machine")
    return ctypes.CDLL(path)


# -- HIP ---------------------------------------------------------------------------------------------
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


@runtime
def test_device_count_matches_c(hip, clib):
    err, n = hip.hipGetDeviceCount()
    assert isinstance(err, hip.hipError_t)
    assert (int(err), n) == _c_int_out(clib.hipGetDeviceCount)


@runtime
@no_gpu
def test_device_count_without_gpu(hip):
    err, n = hip.hipGetDeviceCount()
    assert err is hip.hipError_t.hipErrorNoDevice
    assert n == 0


@runtime
def test_versions_match_c(hip, clib):
    err, rv = hip.hipRuntimeGetVersion()
    assert err is hip.hipError_t.hipSuccess
    assert (0, rv) == _c_int_out(clib.hipRuntimeGetVersion)
    assert rv > 0
    err, dv = hip.hipDriverGetVersion()
    assert (int(err), dv) == _c_int_out(clib.hipDriverGetVersion)


@runtime
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


@runtime
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


@runtime
@no_gpu
def test_returned_text_without_gpu(hip):
    err, name = hip.hipDeviceGetName(256, 0)
    assert err is not hip.hipError_t.hipSuccess and name == b""
    # The text buffer is allocated untouched (calloc): a huge len costs no time to clear it
    # (bytearray(2**31-1) took longer than the fuzz's 20 s limit).
    t0 = time.perf_counter()
    err, name = hip.hipDeviceGetName(2**31 - 1, 0)
    assert err is not hip.hipError_t.hipSuccess and name == b"" and time.perf_counter() - t0 < 2
    import hip as pkg
    with pytest.raises(pkg.HipError) as ei:
        pkg.check(hip.hipDeviceGetPCIBusId(64, 0))
    assert ei.value.code is err


@runtime
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


@runtime
@no_gpu
def test_check_raises_on_a_real_failing_call(hip):
    import hip as pkg
    with pytest.raises(pkg.HipError) as ei:
        pkg.check(hip.hipGetDeviceCount())
    assert ei.value.code is hip.hipError_t.hipErrorNoDevice
    assert ei.value.name == "hipErrorNoDevice"
    assert ei.value.status is ei.value.code and ei.value.library == "hip" and ei.value.function is None
    with pytest.raises(pkg.HipError) as ei:                  # naming the call
        pkg.check(hip.hipGetDeviceCount(), "hipGetDeviceCount")
    assert ei.value.function == "hipGetDeviceCount" and str(ei.value).startswith("hipGetDeviceCount: hipErrorNoDevice")


@runtime
def test_check_returns_values(hip, clib):
    import hip as pkg
    from hip import hiprtc
    assert pkg.check(hip.hipRuntimeGetVersion()) == _c_int_out(clib.hipRuntimeGetVersion)[1]
    assert pkg.check((hip.hipError_t.hipSuccess,)) is None
    major, minor = pkg.check(hiprtc.hiprtcVersion())       # several outputs: a tuple
    assert isinstance(major, int) and isinstance(minor, int) and major > 0


@runtime
def test_check_raises_for_hiprtc_status():
    import hip as pkg
    from hip import hiprtc
    code = hiprtc.hiprtcResult.HIPRTC_ERROR_INVALID_INPUT
    with pytest.raises(pkg.HipError) as ei:
        pkg.check((code,))
    assert ei.value.code is code
    assert ei.value.message == hiprtc.hiprtcGetErrorString(code)[0].decode()   # (value,): the C result is the string


@runtime
def test_library_env_var_selects_the_file(libpath):
    r = run_python("""
        from hip import hip as h
        h.hipGetDeviceCount()
        print(h._library.load())
    """, env={"HIP_PYTHON_HIP_LIBRARY": libpath})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == libpath


@runtime
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


@runtime
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


@runtime
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


@runtime
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


@runtime
def test_python_m_hip_prints_library_paths(libpath):
    r = run_python("", args=["-m", "hip"])
    assert r.returncode == 0, r.stderr
    assert libpath in r.stdout
    assert re.search(r"^\s+hip\s+\d+/\d+ functions\s+-> " + re.escape(libpath), r.stdout, re.M)
    assert re.search(r"^\s+hiprtc\s+\d+/\d+ functions\s+->", r.stdout, re.M)
    assert "devices:" in r.stdout


@runtime
def test_python_m_hip_without_library():
    r = run_python("", args=["-m", "hip"], env={"HIP_PYTHON_HIP_LIBRARY": "/nonexistent/libamdhip64.so",
                                                "HIP_PYTHON_HIPRTC_LIBRARY": "/nonexistent/libhiprtc.so"})
    assert r.returncode == 0, r.stderr
    assert "not loadable" in r.stdout
    assert "Traceback" not in r.stderr


# -- hipRAND and hipSPARSE ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hiprand():
    return library_module("hiprand")


@pytest.fixture(scope="module")
def hipsparse():
    return library_module("hipsparse")


# -- hipRAND ---------------------------------------------------------------------------------------
def test_hiprand_version_matches_c(hiprand):
    lib = _clib("hiprand")
    v = ctypes.c_int(-1)
    rc = lib.hiprandGetVersion(ctypes.byref(v))
    err, version = hiprand.hiprandGetVersion()
    assert isinstance(err, hiprand.hiprandStatus_t)
    assert (int(err), version) == (rc, v.value)
    assert err is hiprand.hiprandStatus_t.HIPRAND_STATUS_SUCCESS and version > 0
    import hip as pkg
    assert pkg.check(hiprand.hiprandGetVersion()) == version


@pytest.mark.parametrize("create", ["hiprandCreateGenerator", "hiprandCreateGeneratorHost"])
def test_hiprand_create_generator_matches_c(hiprand, create):
    lib = _clib("hiprand")
    for rng in hiprand.hiprandRngType:
        g = ctypes.c_void_p()
        rc = getattr(lib, create)(ctypes.byref(g), int(rng))
        if rc == 0:
            lib.hiprandDestroyGenerator(g)
        err, gen = getattr(hiprand, create)(rng)
        assert isinstance(err, hiprand.hiprandStatus_t) and int(err) == rc, rng
        assert isinstance(gen, hiprand.hiprandGenerator_t)
        if err == 0:
            assert gen and hiprand.hiprandDestroyGenerator(gen)[0] == 0
        elif not gpu_available()[0] or create == "hiprandCreateGenerator":
            assert not gen, f"{create}({rng.name}) failed with {err.name} but returned {gen}"


@no_gpu
def test_hiprand_without_gpu_is_an_error_status(hiprand):
    _clib("hiprand")
    import hip as pkg
    err, gen = hiprand.hiprandCreateGenerator(hiprand.hiprandRngType.HIPRAND_RNG_PSEUDO_DEFAULT)
    assert err != hiprand.hiprandStatus_t.HIPRAND_STATUS_SUCCESS and not gen
    with pytest.raises(pkg.HipError) as ei:
        pkg.check(hiprand.hiprandCreateGenerator(hiprand.hiprandRngType.HIPRAND_RNG_PSEUDO_DEFAULT))
    assert ei.value.code is err and ei.value.name == err.name and ei.value.library == "hiprand"


def test_hiprand_destroy_null_is_refused(hiprand):
    """A NULL generator is never valid (hiprand.yaml has no nullable_handles): refused before C."""
    _clib("hiprand")
    with pytest.raises(TypeError, match="hiprandDestroyGenerator: generator"):
        hiprand.hiprandDestroyGenerator(None)
    with pytest.raises(ValueError, match="NULL"):
        hiprand.hiprandDestroyGenerator(0)


# -- hipSPARSE -------------------------------------------------------------------------------------
def test_hipsparse_create_matches_c(hipsparse):
    lib = _clib("hipsparse")
    h = ctypes.c_void_p()
    rc = lib.hipsparseCreate(ctypes.byref(h))
    if rc == 0 and h.value:
        lib.hipsparseDestroy(h)
    err, handle = hipsparse.hipsparseCreate()
    assert isinstance(err, hipsparse.hipsparseStatus_t) and int(err) == rc
    assert isinstance(handle, hipsparse.hipsparseHandle_t)
    assert bool(handle) == bool(h.value)
    if handle:
        v = ctypes.c_int(-1)
        assert lib.hipsparseGetVersion(ctypes.c_void_p(int(handle)), ctypes.byref(v)) == 0
        ours = ctypes.c_int(-2)
        assert hipsparse.hipsparseGetVersion(handle, ours) == (hipsparse.hipsparseStatus_t.HIPSPARSE_STATUS_SUCCESS,)
        assert ours.value == v.value
        assert hipsparse.hipsparseDestroy(handle)[0] == 0


@no_gpu
def test_hipsparse_without_gpu_creates_no_handle(hipsparse):
    """No device: an error status, or (hipSPARSE 5.3, which skips creation when hipGetDevice fails
    yet returns SUCCESS) a NULL handle; never a crash or a dangling handle."""
    _clib("hipsparse")
    err, handle = hipsparse.hipsparseCreate()
    assert err != hipsparse.hipsparseStatus_t.HIPSPARSE_STATUS_SUCCESS or not handle
    with pytest.raises(ValueError, match="NULL handle"):   # a NULL hipSPARSE handle is never valid
        hipsparse.hipsparseDestroy(handle)


def test_hipsparse_version_with_null_handle_is_refused(hipsparse):
    lib = _clib("hipsparse")
    v = ctypes.c_int(-1)
    assert lib.hipsparseGetVersion(None, ctypes.byref(v)) != 0   # C refuses it too, with a status
    with pytest.raises(TypeError, match="hipsparseGetVersion: handle"):
        hipsparse.hipsparseGetVersion(None, v)


def test_hipsparse_mat_descr_round_trip(hipsparse):
    _clib("hipsparse")
    import hip as pkg
    S = hipsparse
    storage = ctypes.c_void_p()                  # the descriptor (typedef void*) lands here
    assert S.hipsparseCreateMatDescr(ctypes.addressof(storage)) == (S.hipsparseStatus_t.HIPSPARSE_STATUS_SUCCESS,)
    assert storage.value
    descr = storage                              # a c_void_p passes the address it holds
    # the C result is the value: (value,), no status (as in AMD's HIP Python); check() returns it
    assert S.hipsparseGetMatIndexBase(descr) == (S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO,)
    assert pkg.check(S.hipsparseGetMatIndexBase(descr)) is S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
    assert pkg.check(S.hipsparseGetMatIndexBase(storage.value)) is S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
    descr = S.hipsparseMatDescr_t.from_ptr(storage.value)   # or the handle class
    pkg.check(S.hipsparseSetMatIndexBase(descr, S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ONE))
    assert pkg.check(S.hipsparseGetMatIndexBase(descr)) is S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ONE
    pkg.check(S.hipsparseSetMatType(descr, S.hipsparseMatrixType_t.HIPSPARSE_MATRIX_TYPE_SYMMETRIC))
    assert pkg.check(S.hipsparseGetMatType(descr)) is S.hipsparseMatrixType_t.HIPSPARSE_MATRIX_TYPE_SYMMETRIC
    pkg.check(S.hipsparseSetMatFillMode(descr, S.hipsparseFillMode_t.HIPSPARSE_FILL_MODE_UPPER))
    assert pkg.check(S.hipsparseGetMatFillMode(descr)) is S.hipsparseFillMode_t.HIPSPARSE_FILL_MODE_UPPER
    assert pkg.check(S.hipsparseDestroyMatDescr(descr)) is None


def test_hipsparse_generic_descriptors_return_their_fields(hipsparse):
    """hipsparseCreateCsr/DnVec/DnMat keep host-side descriptors: the getters write every field into
    the caller's storage (sizes as int64, arrays as the addresses of the caller's memory, types as
    the enums' values)."""
    _clib("hipsparse")
    np = pytest.importorskip("numpy")
    import hip as pkg
    from hip import hip as h
    S = hipsparse
    I32, BASE0 = S.hipsparseIndexType_t.HIPSPARSE_INDEX_32I, S.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO
    R32F = h.hipDataType.HIP_R_32F
    rows, cols, vals = np.array([0, 1, 3], np.int32), np.array([1, 0, 2], np.int32), np.ones(3, np.float32)
    OK = (S.hipsparseStatus_t.HIPSPARSE_STATUS_SUCCESS,)

    def created(create, *args):
        storage = ctypes.c_void_p()
        assert create(ctypes.addressof(storage), *args) == OK
        assert storage.value
        return storage.value

    mat = created(S.hipsparseCreateCsr, 2, 3, 3, rows, cols, vals, I32, I32, BASE0, R32F)
    sizes = np.full(3, -1, np.int64)                       # rows, cols, nnz: one int64_t* each
    assert S.hipsparseSpMatGetSize(mat, sizes[0:], sizes[1:], sizes[2:]) == OK
    assert sizes.tolist() == [2, 3, 3]
    # Lists for the storage get the values back (C wrote into packed copies); tuples cannot.
    r, c, n = [-1], [-1], [-1]
    assert S.hipsparseSpMatGetSize(mat, r, c, n) == OK
    assert (r, c, n) == ([2], [3], [3])
    with pytest.raises((TypeError, BufferError)):          # read-only storage for a result
        S.hipsparseSpMatGetSize(mat, bytes(8), sizes[1:], sizes[2:])
    fmt, base = np.full(1, -1, np.int32), ctypes.c_int(-1)
    pkg.check(S.hipsparseSpMatGetFormat(mat, fmt))
    assert S.hipsparseFormat_t(int(fmt[0])) is S.hipsparseFormat_t.HIPSPARSE_FORMAT_CSR
    pkg.check(S.hipsparseSpMatGetIndexBase(mat, base))
    assert S.hipsparseIndexBase_t(base.value) is BASE0
    if S.has_symbol("hipsparseCsrGet"):
        sizes[:] = -1
        ptrs = np.zeros(3, np.uintp)                       # void* each: row offsets, columns, values
        enums = np.full(4, -1, np.int32)                   # row/column index types, base, value type
        assert S.hipsparseCsrGet(mat, sizes[0:], sizes[1:], sizes[2:], ptrs[0:], ptrs[1:], ptrs[2:],
                                 enums[0:], enums[1:], enums[2:], enums[3:]) == OK
        assert sizes.tolist() == [2, 3, 3]
        assert ptrs.tolist() == [rows.ctypes.data, cols.ctypes.data, vals.ctypes.data]
        assert enums.tolist() == [I32, I32, BASE0, R32F]
    assert pkg.check(S.hipsparseDestroySpMat(mat)) is None

    x = np.zeros(5, np.float32)
    vec = created(S.hipsparseCreateDnVec, 5, x, R32F)
    size, values, vtype = ctypes.c_int64(-1), ctypes.c_void_p(), np.full(1, -1, np.int32)
    assert S.hipsparseDnVecGet(vec, size, ctypes.addressof(values), vtype) == OK
    assert (size.value, values.value, int(vtype[0])) == (5, x.ctypes.data, R32F)
    assert pkg.check(S.hipsparseDestroyDnVec(vec)) is None

    a = np.zeros((4, 3), np.float32, order="F")
    COL = S.hipsparseOrder_t.HIPSPARSE_ORDER_COL
    dm = created(S.hipsparseCreateDnMat, 4, 3, 4, a, R32F, COL)
    sizes = np.full(3, -1, np.int64)                       # rows, cols, ld
    values, enums = ctypes.c_void_p(), np.full(2, -1, np.int32)
    assert S.hipsparseDnMatGet(dm, sizes[0:], sizes[1:], sizes[2:], ctypes.addressof(values),
                               enums[0:], enums[1:]) == OK
    assert (*sizes.tolist(), values.value, *enums.tolist()) == (4, 3, 4, a.ctypes.data, R32F, COL)
    assert pkg.check(S.hipsparseDestroyDnMat(dm)) is None


def test_hipsparse_status_raises_hip_error(hipsparse):
    import hip as pkg
    code = hipsparse.hipsparseStatus_t.HIPSPARSE_STATUS_INVALID_VALUE
    with pytest.raises(pkg.HipError) as ei:
        pkg.check((code,))
    assert ei.value.code is code and "HIPSPARSE_STATUS_INVALID_VALUE" in str(ei.value)


# -- Comgr: it needs no GPU, and HIP's runtime brings it (bookworm's comgr 2.4 here) -------------
@pytest.fixture(scope="module")
def comgr():
    return library_module("amd_comgr")


def test_comgr_version_and_isas_match_c(comgr):
    clib = _clib("amd_comgr")
    major, minor = ctypes.c_size_t(), ctypes.c_size_t()
    clib.amd_comgr_get_version(ctypes.byref(major), ctypes.byref(minor))
    ok = comgr.amd_comgr_status_t.AMD_COMGR_STATUS_SUCCESS
    assert comgr.amd_comgr_get_version() == (ok, major.value, minor.value)
    count = ctypes.c_size_t()
    assert clib.amd_comgr_get_isa_count(ctypes.byref(count)) == 0 and count.value > 0
    assert comgr.amd_comgr_get_isa_count() == (ok, count.value)
    name = ctypes.c_char_p()
    for i in (0, count.value - 1):
        assert clib.amd_comgr_get_isa_name(ctypes.c_size_t(i), ctypes.byref(name)) == 0
        err, ours = comgr.amd_comgr_get_isa_name(i)
        assert err is ok and bytes(ours) == name.value and ours.startswith(b"amdgcn-amd-amdhsa--gfx")
    bad = comgr.amd_comgr_get_isa_name(count.value)[0]   # past the last: C's answer, no crash
    assert bad is comgr.amd_comgr_status_t.AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT
    assert bytes(comgr.amd_comgr_status_string(bad)[1]) == b"INVALID_ARGUMENT"


def test_comgr_data_round_trip(comgr):
    """A data object: created (a struct handle returned), filled, sized (NULL buffer), read back
    into a bytearray, named, released; the released handle refuses further use before C."""
    _clib("amd_comgr")
    ok = comgr.amd_comgr_status_t.AMD_COMGR_STATUS_SUCCESS
    err, data = comgr.amd_comgr_create_data(comgr.amd_comgr_data_kind_t.AMD_COMGR_DATA_KIND_SOURCE)
    assert err is ok and isinstance(data, comgr.amd_comgr_data_t) and data.handle != 0
    src = b"__global__ void k() {}"
    assert comgr.amd_comgr_set_data(data, len(src), src) == (ok,)
    assert comgr.amd_comgr_set_data_name(data, "k.hip") == (ok,)
    assert comgr.amd_comgr_get_data(data, 0, None) == (ok, len(src))
    buf = bytearray(len(src))
    assert comgr.amd_comgr_get_data(data, len(buf), buf) == (ok, len(src)) and bytes(buf) == src
    err, n = comgr.amd_comgr_get_data_name(data, 0, None)
    name = bytearray(n)
    assert comgr.amd_comgr_get_data_name(data, n, name)[0] is ok and bytes(name) == b"k.hip\0"
    assert comgr.amd_comgr_get_data_kind(data) == (ok, comgr.amd_comgr_data_kind_t.AMD_COMGR_DATA_KIND_SOURCE)
    with pytest.raises(ValueError, match="bytearray|buffer|bytes"):   # 64 bytes asked, 4 given
        comgr.amd_comgr_get_data(data, 64, bytearray(4))
    assert comgr.amd_comgr_release_data(data) == (ok,)
    with pytest.raises(ValueError, match="destroyed by amd_comgr_release_data"):
        comgr.amd_comgr_get_data_kind(data)


def test_comgr_metadata_map_through_a_python_callback(comgr):
    """An ISA's metadata map, walked by amd_comgr_iterate_map_metadata calling a Python function
    (the spec's callbacks: a trampoline per callback type) once per entry, as the map's size says."""
    _clib("amd_comgr")
    ok = comgr.amd_comgr_status_t.AMD_COMGR_STATUS_SUCCESS
    err, isa = comgr.amd_comgr_get_isa_name(0)
    err, node = comgr.amd_comgr_get_isa_metadata(isa)
    assert err is ok and comgr.amd_comgr_get_metadata_kind(node)[1] is comgr.amd_comgr_metadata_kind_t.AMD_COMGR_METADATA_KIND_MAP
    keys = []

    def entry(key, value, user_data):
        n = comgr.amd_comgr_get_metadata_string(key, 0, None)[1]
        text = bytearray(n)
        assert comgr.amd_comgr_get_metadata_string(key, n, text)[0] is ok
        keys.append(bytes(text).rstrip(b"\0"))
        return ok
    assert comgr.amd_comgr_iterate_map_metadata(node, entry, None) == (ok,)
    assert len(keys) == comgr.amd_comgr_get_metadata_map_size(node)[1] > 0 and b"Architecture" in keys
    assert comgr.amd_comgr_destroy_metadata(node) == (ok,)


@pytest.mark.parametrize("lib", LIBS)
def test_has_symbol_matches_the_library(include64, lib):
    """A function the 6.4 headers declare but the installed (older) library lacks raises
    SymbolNotFoundError; has_symbol() says which, exactly as dlsym does."""
    clib = _clib(lib)
    mod = library_module(lib)
    if not header_facts.available(include64, lib):
        pytest.skip(f"{lib}: not in {include64}")
    funcs = header_facts.functions(include64, lib)
    wrong = [n for n in funcs if mod.has_symbol(n) != hasattr(clib, n)]
    assert wrong == []
    # lacking functions whose parameters all convert from zeros and NULLs (no struct by value)
    missing = [n for n in funcs if not hasattr(clib, n)
               and all(p.pointer or p.spelling.replace("const ", "") not in _struct_names(mod) for p in funcs[n].params)]
    if not missing:
        pytest.skip(f"the installed {lib} has every function of the headers")
    import hip as pkg
    name = missing[0]
    with pytest.raises(pkg.SymbolNotFoundError) as ei:
        _call_with_neutral_args(mod, name)
    # the function itself, or one it calls first (hiprtcGetBitcode sizes its buffer with
    # hiprtcGetBitcodeSize: the spec's buffer_size_queries): a symbol the library lacks
    assert ei.value.path == mod._library.path and not hasattr(clib, ei.value.symbol)
    assert ei.value.symbol == name or ei.value.symbol in funcs


def _struct_names(mod):
    from hip import hip as h
    return {k for m in (mod, h) for k, v in vars(m).items() if isinstance(v, type) and hasattr(v, "_size_")}


def _stub_params(lib):
    """{function: [annotation of each Python parameter]} from hip/<lib>.pyi."""
    return {fn: [a for _, a in params] for fn, params in stub_functions(lib).items()}


def _neutral_args(lib, name):
    """Zeros, an address (handles refuse NULL), an enum's first member, a fresh struct: only for
    calls that cannot reach C (the function or the whole library is missing)."""
    import hip as pkg
    mod, h = library_module(lib), library_module("hip")
    args = []
    for ann in _stub_params(lib)[name]:
        if ann in ("int", "float", "Any"):
            args.append({"int": 0, "float": 0.0, "Any": 8}[ann])
        else:
            cls = getattr(mod, ann, None) or getattr(h, ann)
            args.append(list(cls)[0] if issubclass(cls, pkg._enum.Enum) else cls())
    return args


def _call_with_neutral_args(mod, name):
    lib = mod.__name__.split(".")[-1]
    return getattr(mod, name)(*_neutral_args(lib, name))


def _simplest_function(lib):
    """The library's first function with the fewest Python parameters (a call that reaches the
    library as soon as its arguments convert)."""
    params = _stub_params(lib)
    return min(params, key=lambda n: len(params[n]))


# -- every library: without its library file ---------------------------------------------------------
def _file_names(lib):
    s = specmod.load(lib)
    return [n for _, names in sorted(s.library_names.items(), reverse=True) for n in names] + \
        ([s.library_bare] if s.library_bare else [])


@pytest.mark.parametrize("lib", LIBS)
def test_missing_library_raises_library_not_found(lib):
    """Without the library (checked by trying to load it), the first call says which library,
    which variable selects it and every place searched, each of which indeed does not load."""
    import hip as pkg
    mod = library_module(lib)
    name = _simplest_function(lib)
    if _path(lib) is not None:
        pytest.skip(f"{lib} is installed here ({mod._library.path})")
    with pytest.raises(pkg.LibraryNotFoundError) as ei:
        _call_with_neutral_args(mod, name)
    e = ei.value
    assert isinstance(e, OSError) and isinstance(e, pkg.HipPythonError)
    assert e.library == lib and e.env == f"HIP_PYTHON_{lib.upper()}_LIBRARY"
    assert lib in str(e) and e.env in str(e)
    files = [p for p, _ in e.tried if not p.startswith("/") or p.endswith(".so") or ".so." in p]
    assert any(os.path.basename(p) in _file_names(lib) for p in files), (e.tried, _file_names(lib))
    for p, why in e.tried:
        assert p in str(e)
    for p in files:                                   # the error tells the truth: none of them loads
        with pytest.raises(OSError):
            ctypes.CDLL(p)
    assert not mod._library.loaded


@pytest.mark.parametrize("lib", LIBS)
def test_library_env_var_pointing_nowhere(lib):
    """HIP_PYTHON_<LIB>_LIBRARY names the file; a wrong one is reported with its path, and the
    module itself (enums, structs, constants) works without any library."""
    library_module(lib)
    env = f"HIP_PYTHON_{lib.upper()}_LIBRARY"
    name = _simplest_function(lib)
    r = run_python(f"""
        import hip, hip._enum
        from hip import hip as h, {lib} as mod
        enums = [v for v in vars(mod).values()
                 if isinstance(v, type) and issubclass(v, hip._enum.Enum) and v is not hip._enum.Enum]
        assert all(len(e) > 0 for e in enums)
        def neutral(ann):
            if ann in ("int", "float", "Any"):
                return {{"int": 0, "float": 0.0, "Any": 8}}[ann]
            cls = getattr(mod, ann, None) or getattr(h, ann)
            return list(cls)[0] if issubclass(cls, hip._enum.Enum) else cls()
        try:
            mod.{name}(*[neutral(a) for a in {_stub_params(lib)[name]!r}])
        except hip.LibraryNotFoundError as e:
            print("LIB", e.library, "ENV", e.env, "TRIED", [p for p, _ in e.tried])
        else:
            raise SystemExit("no LibraryNotFoundError")
    """, env={env: f"/nonexistent/dir/lib{lib}.so"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"LIB {lib} ENV {env} TRIED ['/nonexistent/dir/lib{lib}.so']" in r.stdout, r.stdout


def test_import_loads_no_library():
    libs = [lib for lib in LIBS if (ROOT / "hip" / f"{lib}.pyi").exists()]
    files = sorted({os.path.basename(n).split(".so")[0] for lib in libs for n in _file_names(lib)})
    r = run_python(f"""
        import importlib
        for lib in {libs!r}:
            try:
                importlib.import_module("hip." + lib)
            except ImportError:
                pass
        with open("/proc/self/maps") as f:
            maps = f.read()
        print([n for n in {files!r} if n + ".so" in maps])
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_python_m_hip_lists_every_built_library():
    r = run_python("", args=["-m", "hip"])
    assert r.returncode == 0, r.stderr
    for lib in LIBS:
        if not (ROOT / "hip" / "_coverage" / f"{lib}.json").exists():
            continue
        line = next((l for l in r.stdout.splitlines() if l.split()[:1] == [lib]), None)
        assert line is not None, f"{lib} missing from `python -m hip`:\n{r.stdout}"
        path = _path(lib)
        assert (path in line) if path else ("not loadable" in line or "not importable" in line), line
