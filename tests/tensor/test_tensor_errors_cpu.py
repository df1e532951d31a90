"""hip.tensor's errors, one path (issue 26, item 3): each error class is a hip.errors.HipPythonError
that keeps the built-in base users catch it by; a failed library call raises the library's class
(a hip.errors.HipError) carrying `.status` and `.library`, through hip.errors.check; a missing
library raises hip.errors.LibraryNotFoundError as the loader made it.

Real calls on this machine: without a GPU the HIP runtime answers hipErrorNoDevice or
hipErrorInvalidDevice and hipRAND cannot make a generator; hiprtc really compiles; the libraries
that are not installed (or are pointed at a missing file) really fail to load."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import hip
import hip.errors as E
import hip.tensor as ht
from hip.tensor._kernels import compiler as C
from hip.tensor import distributed as dist
from hip.tensor import fft, random

# (module, class, the built-in base users catch it by, whether a failed call's status raises it)
ERRORS = [
    ("hip.tensor._libs.blas", "BlasError", RuntimeError, True),
    ("hip.tensor._libs.sparse", "SparseError", RuntimeError, True),
    ("hip.tensor.fft", "FFTError", RuntimeError, True),
    ("hip.tensor.random", "RandError", RuntimeError, True),
    ("hip.tensor.distributed", "DistributedError", RuntimeError, True),
    ("hip.tensor._kernels.compiler", "CompileError", RuntimeError, True),
    ("hip.tensor._core.memory", "OutOfMemoryError", MemoryError, True),
    ("hip.tensor.linalg", "LinAlgError", ValueError, False),
]

# the library loaders of hip.tensor: (module, function, library)
LOADERS = [
    ("hip.tensor._libs.blas", "_lib", "hipblas"),
    ("hip.tensor._libs.blas", "solver_lib", "hipsolver"),
    ("hip.tensor._libs.sparse", "lib", "hipsparse"),
    ("hip.tensor.fft", "_lib", "hipfft"),
    ("hip.tensor.random", "_lib", "hiprand"),
    ("hip.tensor.distributed", "_lib", "rccl"),
]


@pytest.mark.parametrize("module,name,builtin,status", ERRORS, ids=[e[1] for e in ERRORS])
def test_each_error_is_a_hip_python_error_and_keeps_its_builtin_base(module, name, builtin, status):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, E.HipPythonError) and issubclass(cls, builtin)
    assert issubclass(cls, E.HipError) is status         # the status errors share HipError's attributes
    if not status:                                        # LinAlgError reports the matrix, not a status
        assert not issubclass(cls, RuntimeError)


def test_exported_names_stay_where_they_were():
    from hip.tensor._libs import blas as _blas, solver as _solver, sparse as _sparse_lib
    from hip.tensor._core import memory as _memory
    assert ht.linalg.LinAlgError is _solver.LinAlgError
    assert ht.OutOfMemoryError is _memory.OutOfMemoryError and ht.CompileError is C.CompileError
    assert "DistributedError" in dist.__all__ and "LinAlgError" in ht.linalg.__all__
    assert fft.FFTError and random.RandError and _blas.BlasError and _sparse_lib.SparseError


def test_out_of_memory_error_carries_hipmallocs_status():
    # no GPU here to run out of: the GPU test (test_tensor_runtime) makes a real one
    from hip import hip as h
    e = ht.OutOfMemoryError(h.hipError_t.hipErrorOutOfMemory, "hip.tensor: out of memory on device 0", "hipMalloc")
    assert isinstance(e, MemoryError) and isinstance(e, E.HipError)
    assert e.status is h.hipError_t.hipErrorOutOfMemory and e.library == "hip" and e.function == "hipMalloc"
    assert str(e).startswith("hipMalloc: hipErrorOutOfMemory (2): hip.tensor: out of memory")


def test_every_status_names_its_library_as_the_loader_does():
    """HipError.library is the name LibraryNotFoundError.library (the loader's) gives."""
    for lib in ("hip", "hiprtc", "hipblas", "hipsolver", "hipsparse", "hipfft", "hiprand", "rccl"):
        importlib.import_module(f"hip.{lib}")
    ours = [t for t in E._status_types if t.__module__.startswith("hip.")]   # (the alias's too, if imported)
    assert len(ours) >= 8
    for enum in ours:
        failure = next(m for m in enum if int(m) != 0)
        e = E.HipError(failure)
        assert e.status is failure and e.code is failure
        assert importlib.import_module(f"hip.{e.library}")._library.name == e.library, enum


@pytest.mark.runtime
@pytest.mark.nodevice(reason="with a GPU these calls succeed")
def test_runtime_failure_from_the_public_api_carries_status_and_library():
    from hip import hip as h
    for call in (lambda: ht.empty(3), ht.Stream, ht.synchronize):
        with pytest.raises(hip.HipError) as ei:
            call()
        e = ei.value
        assert type(e.status) is h.hipError_t and int(e.status) != 0 and e.status is e.code
        assert e.library == "hip" and e.function and str(e).startswith(f"{e.function}: {e.status.name}")


@pytest.mark.runtime
def test_hiprtc_failure_is_a_compile_error_with_status_library_and_log():
    from hip import hiprtc
    with pytest.raises(C.CompileError) as ei:
        C.compile_code_object('extern "C" __global__ void bad(float* x) { x[0] = undefined_name; }', arch="gfx90a")
    e = ei.value
    assert isinstance(e, hip.HipError) and isinstance(e, RuntimeError)
    assert e.status is hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION and e.library == "hiprtc"
    assert e.function == "hiprtcCompileProgram" and "undefined_name" in e.log and "undefined_name" in str(e)
    assert "--offload-arch=gfx90a" in str(e) and "undefined_name" in e.source


@pytest.mark.runtime
@pytest.mark.nodevice(reason="with a GPU hipRAND makes the generator")
def test_hiprand_failure_is_a_rand_error_with_status_and_library():
    try:
        R = random._lib()
    except E.LibraryNotFoundError as e:
        pytest.skip(f"hipRAND is not installed here: {str(e).splitlines()[0]}")
    # random's own check (hip.errors.check with hipRAND's class) on the calls Generator makes: without
    # a device hipRAND (ROCm 5.2 here) refuses to create most generators; philox it creates, and
    # then fails to generate
    with pytest.raises(random.RandError) as ei:
        g = random.check(R.hiprandCreateGenerator(R.hiprandRngType.HIPRAND_RNG_PSEUDO_PHILOX4_32_10),
                         "hiprandCreateGenerator", random.RandError)
        try:
            random.check(R.hiprandGenerate(g, 0, 0), "hiprandGenerate", random.RandError)
        finally:
            R.hiprandDestroyGenerator(g)
    e = ei.value
    assert isinstance(e, hip.HipError) and isinstance(e, RuntimeError)
    assert type(e.status) is R.hiprandStatus_t and int(e.status) != 0
    assert e.library == "hiprand" and e.function in ("hiprandCreateGenerator", "hiprandGenerate")
    assert str(e) == f"{e.function}: {e.status.name} ({int(e.status)})"


def test_missing_libraries_raise_library_not_found_as_the_loader_made_it():
    """Each hip.tensor loader, and get_unique_id (no device needed), with its library pointed at a
    file that does not exist: the loader's LibraryNotFoundError, not a re-raised RuntimeError."""
    from conftest import run_python
    env = {f"HIP_PYTHON_{lib.upper()}_LIBRARY": f"/nonexistent/lib{lib}.so" for _, _, lib in LOADERS}
    r = run_python(f"""
        import importlib
        import hip.errors as E
        import hip.tensor.distributed as dist
        calls = [(m, f, importlib.import_module(m).__dict__[f]) for m, f, _ in {LOADERS!r}]
        calls.append(("hip.tensor.distributed", "get_unique_id", dist.get_unique_id))
        for m, f, fn in calls:
            try:
                fn()
                print(m, f, "loaded")
            except Exception as e:
                print(m, f, type(e).__module__ + "." + type(e).__name__, getattr(e, "library", None),
                      "/nonexistent/" in str(e))
    """, env=env)
    assert r.returncode == 0, r.stderr
    got = [line.split() for line in r.stdout.splitlines()]
    want = [[m, f, "hip.errors.LibraryNotFoundError", lib, "True"] for m, f, lib in LOADERS]
    want.append(["hip.tensor.distributed", "get_unique_id", "hip.errors.LibraryNotFoundError", "rccl", "True"])
    assert got == want


@pytest.mark.parametrize("module,fn,lib", LOADERS, ids=[f"{m}.{f}" for m, f, _ in LOADERS])
def test_loaders_return_the_loaded_hip_module_or_raise_library_not_found(module, fn, lib):
    loader = getattr(importlib.import_module(module), fn)
    mod = importlib.import_module(f"hip.{lib}")
    try:
        got = loader()
    except E.LibraryNotFoundError as e:
        assert type(e) is E.LibraryNotFoundError and e.library == lib and not mod._library.loaded
        return
    assert got is mod and mod._library.loaded


def _tensor_modules():
    import hip.tensor.nn  # noqa: F401  (loaded on first use otherwise)
    names = ["hip.tensor"] + [m.name for m in pkgutil.walk_packages(ht.__path__, "hip.tensor.")]
    return [importlib.import_module(n) for n in names]


def test_one_status_check():
    """No hip.tensor module keeps a status check or a library loader of its own: `check`/`_check`
    there are hip.errors.check, and the only `library` loader is _libraries.library."""
    from hip.tensor._libs.loader import library
    mods = _tensor_modules()
    assert len(mods) > 30
    for mod in mods:
        for name in ("check", "_check"):
            obj = mod.__dict__.get(name)
            assert obj is None or obj is E.check, f"{mod.__name__}.{name} is its own status check"
        for name in ("_load", "load_library"):
            assert name not in mod.__dict__, f"{mod.__name__}.{name}: a loader of its own"
        obj = mod.__dict__.get("library")
        assert obj is None or obj is library, mod.__name__
