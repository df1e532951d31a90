"""The six libraries at run time on this machine.

hipRAND and hipSPARSE are called for real (Debian's 5.3 libraries here): expected values come from
calling the same shared library with ctypes; without a GPU, creating a generator or handle must be an
error status (or, for hipSPARSE, a NULL handle), never a crash. hipSPARSE's descriptors are host
objects, so its generic-API getters are exercised for real, outputs included: as in AMD's HIP
Python, they write into storage the caller passes (descriptors into a void*, sizes, enums and
pointers into NumPy arrays and ctypes values).

For every library the package cannot load (decided by trying, not assumed: hipBLAS, hipFFT,
hipSOLVER and RCCL are not installed here), a call raises LibraryNotFoundError naming the library,
its environment variable and every place it looked, each of which really does not load.
"""
from __future__ import annotations

import ctypes
import importlib

import pytest

import header_facts
from conftest import gpu_available, run_python

LIBS = header_facts.SIX
no_gpu = pytest.mark.skipif(gpu_available()[0], reason="asserts the no-device behaviour")


def _module(lib):
    return importlib.import_module(f"hip.{lib}")


def _path(lib):
    """The library file the package loads, or None when it cannot load one."""
    import hip as pkg
    try:
        return _module(lib)._library.load()
    except pkg.LibraryNotFoundError:
        return None


def _clib(lib):
    path = _path(lib)
    if path is None:
        pytest.skip(f"no {lib} library on this machine")
    return ctypes.CDLL(path)


@pytest.fixture(scope="module")
def hiprand():
    return _module("hiprand")


@pytest.fixture(scope="module")
def hipsparse():
    return _module("hipsparse")


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
    assert ei.value.code is err and ei.value.name == err.name


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


@pytest.mark.parametrize("lib", ["hiprand", "hipsparse"])
def test_has_symbol_matches_the_library(include64, lib):
    """A function the 6.4 headers declare but the installed (older) library lacks raises
    SymbolNotFoundError; has_symbol() says which, exactly as dlsym does."""
    clib = _clib(lib)
    mod = _module(lib)
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
        _call_with_neutral_args(mod, name, funcs[name])
    assert ei.value.symbol == name and ei.value.path == mod._library.path


def _struct_names(mod):
    from hip import hip as h
    return {k for m in (mod, h) for k, v in vars(m).items() if isinstance(v, type) and hasattr(v, "_size_")}


def _call_with_neutral_args(mod, name, fact):
    """Call with zeros/NULLs: only for functions the library lacks (nothing reaches C)."""
    import ast
    from conftest import ROOT
    tree = ast.parse((ROOT / "hip" / f"{mod.__name__.split('.')[-1]}.pyi").read_text())
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    from hip import hip as h
    args = []
    for a in node.args.args:
        ann = ast.unparse(a.annotation)
        if ann == "int":
            args.append(0)
        elif ann == "float":
            args.append(0.0)
        elif ann == "Any":
            args.append(8)      # an address (handles refuse NULL); nothing reaches C
        else:
            args.append(list(getattr(mod, ann, None) or getattr(h, ann))[0])
    return getattr(mod, name)(*args)


# -- libraries that are not installed --------------------------------------------------------------
CALLS = {"hipblas": "hipblasCreate()", "hipfft": "hipfftGetVersion(bytearray(4))", "hipsolver": "hipsolverCreate()",
         "rccl": "ncclGetVersion()", "hiprand": "hiprandGetVersion()",
         "hipsparse": "hipsparseCreateMatDescr(bytearray(8))"}


@pytest.mark.parametrize("lib", LIBS)
def test_missing_library_raises_library_not_found(lib):
    """Without the library (checked by trying to load it), the first call says which library,
    which variable selects it and every place searched, each of which indeed does not load."""
    import hip as pkg
    mod = _module(lib)
    if _path(lib) is not None:
        result = eval(f"mod.{CALLS[lib]}")            # installed: the call reaches the library
        assert isinstance(result, tuple) and isinstance(result[0], int)
        pytest.skip(f"{lib} is installed here ({mod._library.path})")
    with pytest.raises(pkg.LibraryNotFoundError) as ei:
        eval(f"mod.{CALLS[lib]}")
    e = ei.value
    assert isinstance(e, OSError) and isinstance(e, pkg.HipPythonError)
    assert e.library == lib and e.env == f"HIP_PYTHON_{lib.upper()}_LIBRARY"
    assert lib in str(e) and e.env in str(e)
    files = [p for p, _ in e.tried if not p.startswith("/") or p.endswith(".so") or ".so." in p]
    assert any(f"lib{lib}.so" in p for p in files), e.tried
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
    env = f"HIP_PYTHON_{lib.upper()}_LIBRARY"
    r = run_python(f"""
        import hip
        from hip import {lib} as mod
        enums = [v for v in vars(mod).values()
                 if isinstance(v, type) and issubclass(v, hip._enum.Enum) and v is not hip._enum.Enum]
        assert enums and all(len(e) > 0 for e in enums)
        try:
            mod.{CALLS[lib]}
        except hip.LibraryNotFoundError as e:
            print("LIB", e.library, "ENV", e.env, "TRIED", [p for p, _ in e.tried])
        else:
            raise SystemExit("no LibraryNotFoundError")
    """.replace("import hip\n", "import hip, hip._enum\n"), env={env: f"/nonexistent/dir/lib{lib}.so"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"LIB {lib} ENV {env} TRIED ['/nonexistent/dir/lib{lib}.so']" in r.stdout, r.stdout


def test_import_loads_no_library():
    r = run_python("""
        import hip.hipblas, hip.hiprand, hip.hipsparse, hip.hipfft, hip.hipsolver, hip.rccl
        with open("/proc/self/maps") as f:
            maps = f.read()
        print([n for n in ("libhipblas", "libhiprand", "libhipsparse", "libhipfft", "libhipsolver", "librccl",
                           "libamdhip64") if n in maps])
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_python_m_hip_lists_the_six_libraries():
    r = run_python("", args=["-m", "hip"])
    assert r.returncode == 0, r.stderr
    for lib in LIBS:
        line = next((l for l in r.stdout.splitlines() if l.split()[:1] == [lib]), None)
        assert line is not None, f"{lib} missing from `python -m hip`:\n{r.stdout}"
        path = _path(lib)
        assert (path in line) if path else ("not loadable" in line), line
