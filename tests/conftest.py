"""Shared fixtures: header directories, a C compiler runner, subprocess Python, GPU detection, and
the GPU tests' fixtures (device properties, device memory, a stream, a seeded generator).

The tests mirror the package: tests/codegen (the generator, its specs, golden files and test
headers), tests/hip (the bindings), tests/alias (hip_as_cuda, the `cuda` alias), tests/tensor
(hip.tensor), tests/package (install, builds, docs, examples, benchmarks, tracked files); the
oracles and helper modules they share are in tests/oracles (on sys.path: imported by top-level
name), the fuzz in tests/fuzz. A test that needs a GPU sits beside the CPU tests of its subsystem
and is marked `gpu` (`pytestmark = pytest.mark.gpu` in the test_*_gpu.py files); the hook below
skips it, saying why, where HIP sees no device. Every GPU test at once, on an NVIDIA machine
against the HIP-on-CUDA layer (issue 4, section 5):

    HIP_PLATFORM=nvidia python3 -m pytest tests -m gpu -q -rs

(or point HIP_PYTHON_<LIB>_LIBRARY at the layer's libraries). A library whose layer is not built
yet skips its module with the loader's message (hip.errors.LibraryNotFoundError), so a partial
layer gives skips, not errors. Comparisons with CUDA itself use cuda.bindings where it is
installed and run only on NVIDIA; the rest holds on AMD's ROCm as well.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
HEADERS = TESTS / "codegen" / "headers"     # the generator's small test headers
GOLDEN = TESTS / "codegen" / "golden"        # its golden files (python -m tests.codegen.golden)
ORACLES = TESTS / "oracles"                  # oracles and shared helper modules

if str(ROOT) not in sys.path:   # the package is built in place (hip/*.so); codegen/ lives here too
    sys.path.insert(0, str(ROOT))
if str(ORACLES) not in sys.path:   # `import header_facts`, `import cuda_bindings_oracle as oracle`, ...
    sys.path.insert(0, str(ORACLES))

INCLUDE64_DEFAULT = ROOT / "build" / "rocm-sid" / "usr" / "include"
INCLUDE52_DEFAULT = ROOT / "build" / "rocm-bookworm" / "usr" / "include"
INCLUDE57_DEFAULT = ROOT / "build" / "rocm-trixie" / "usr" / "include"


def _include(env: str, default: Path) -> tuple[str | None, str]:
    path = os.environ.get(env) or str(default)
    if os.path.isfile(os.path.join(path, "hip", "hip_runtime_api.h")):
        return os.path.realpath(path), ""
    return None, f"no ROCm headers at {path} (set {env} to an include dir holding hip/hip_runtime_api.h)"


def _include_or_skip(env: str, default: Path, suite: str) -> str:
    path, why = _include(env, default)
    if path is None:
        pytest.skip(f"{why}; fetch Debian {suite}'s with `python -m build_support.rocm headers --suite {suite}`")
    return path


@pytest.fixture(scope="session")
def include64() -> str:
    """ROCm 6.4 include dir: the headers the package was built from."""
    return _include_or_skip("HIP_PYTHON_INCLUDE", INCLUDE64_DEFAULT, "sid")


@pytest.fixture(scope="session")
def include52() -> str:
    """ROCm 5.2 include dir (older headers; the generator must handle them too)."""
    return _include_or_skip("HIP_PYTHON_INCLUDE_ROCM5", INCLUDE52_DEFAULT, "bookworm")


@pytest.fixture(scope="session")
def include57() -> str:
    """ROCm 5.7 include dir (Debian trixie's: the release Debian stable ships)."""
    return _include_or_skip("HIP_PYTHON_INCLUDE_ROCM57", INCLUDE57_DEFAULT, "trixie")


@pytest.fixture(params=["6.4", "5.2"])
def include_any(request) -> str:
    return request.getfixturevalue("include64" if request.param == "6.4" else "include52")


def library_module(lib: str):
    """hip.<lib>, or a skip where it is not built."""
    import importlib
    try:
        return importlib.import_module(f"hip.{lib}")
    except ImportError as e:
        pytest.skip(f"hip.{lib} is not built ({e})")


def stub_functions(lib: str) -> dict[str, list[tuple[str, str]]]:
    """{function: [(parameter, annotation)]} of hip/<lib>.pyi in order; {} where not generated."""
    import ast
    path = ROOT / "hip" / f"{lib}.pyi"
    body = ast.parse(path.read_text()).body if path.exists() else []
    return {n.name: [(a.arg, ast.unparse(a.annotation) if a.annotation else "Any") for a in n.args.args]
            for n in body if isinstance(n, ast.FunctionDef)}


def cuda_includes() -> list[str]:
    """CUDA include dirs for the HIP-on-CUDA layer: $HIP_PYTHON_CUDA_INCLUDE (os.pathsep-separated),
    else build/cuda-pypi/include (tools/fetch_cuda_headers.sh) or the toolkit's; those that have CUDA."""
    env = os.environ.get("HIP_PYTHON_CUDA_INCLUDE")
    cands = env.split(os.pathsep) if env else [str(ROOT / "build" / "cuda-pypi" / "include"), "/usr/local/cuda/include"]
    return [d for d in cands if os.path.isfile(os.path.join(d, "cuda_runtime_api.h"))]


def alias_cuda_include() -> Path | None:
    """The CUDA headers the `cuda` alias is generated from (CUDA 13.3's, build_support.cuda), as a
    build here finds them without fetching; None where there are none."""
    from build_support import cuda
    d = cuda.alias_include(str(ROOT), log=lambda *a: None, fetch=False, environment=False)
    return Path(d) if d else None


# -- C programs ----------------------------------------------------------------------------------
def compile_and_run(workdir: Path, source: str, include: str | None = None, name: str = "prog",
                    language: str = "c") -> str:
    """Compile a C (or, language="c++", a C++) program with gcc/g++ (-D__HIP_PLATFORM_AMD__
    -I<include>), run it, return its stdout."""
    cpp = language == "c++"
    cc = (shutil.which("g++") or shutil.which("c++")) if cpp else (shutil.which("gcc") or shutil.which("cc"))
    if cc is None:
        pytest.skip(f"no {'C++' if cpp else 'C'} compiler ({'g++' if cpp else 'gcc'}) on PATH")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / f"{name}.{'cpp' if cpp else 'c'}"
    exe = workdir / name
    src.write_text(source)
    cmd = [cc, "-std=c++17" if cpp else "-std=gnu11", "-D__HIP_PLATFORM_AMD__", "-w", "-o", str(exe), str(src)]
    if include:
        cmd[1:1] = [f"-I{include}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"{os.path.basename(cc)} failed:\n{r.stderr[-4000:]}"
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"{exe} exited {r.returncode}:\n{r.stderr[-2000:]}"
    return r.stdout


@pytest.fixture
def run_c(tmp_path):
    def run(source: str, include: str | None = None, name: str = "prog") -> str:
        return compile_and_run(tmp_path, source, include, name)
    return run


# -- Python subprocesses ---------------------------------------------------------------------------
def run_python(code: str, env: dict | None = None, timeout: int = 120, args: list[str] | None = None):
    """Run Python code (or `-m module` via args) in a fresh interpreter at the repository root."""
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    cmd = [sys.executable] + (args if args is not None else ["-c", textwrap.dedent(code)])
    return subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), env=e, timeout=timeout)


# -- GPU detection ---------------------------------------------------------------------------------
_GPU: tuple[bool, str] | None = None


def gpu_available() -> tuple[bool, str]:
    """(True, '') when HIP sees a device; else (False, why). Probed in a subprocess (a broken
    runtime must not take the test process down)."""
    global _GPU
    if _GPU is None:
        r = run_python("""
            from hip import hip
            err, n = hip.hipGetDeviceCount()
            print(int(err), n)
        """, timeout=60)
        if r.returncode != 0:
            _GPU = (False, f"HIP runtime not usable: {r.stderr.strip().splitlines()[-1:]}")
        else:
            err, n = map(int, r.stdout.split())
            _GPU = (err == 0 and n > 0, f"no GPU (hipGetDeviceCount -> status {err}, count {n})")
    return _GPU


_RUNTIME: tuple[bool, str] | None = None


def runtime_available() -> tuple[bool, str]:
    """(True, '') when the HIP runtime loads (a GPU is not needed); else (False, why)."""
    global _RUNTIME
    if _RUNTIME is None:
        r = run_python("""
            from hip import hip
            try:
                hip._library.load()
            except OSError as e:
                print(str(e).splitlines()[0], e.tried[0][1] if getattr(e, "tried", None) else "")
        """, timeout=60)
        why = (r.stdout.strip() or r.stderr.strip()[-300:])
        _RUNTIME = (r.returncode == 0 and not why, why)
    return _RUNTIME


# Test files that take minutes (builds, the kernel-compile matrices), run first: the test command
# runs files on parallel workers (pytest-xdist, --dist loadscope --no-loadscope-reorder: a file's
# tests on one worker, its module fixtures made once, files in this order rather than by test
# count), which then finish together instead of one waiting on the last.
LONG_FILES = ("test_install", "test_tensor_kernels_compile", "test_rocm57_build", "test_nvidia_layer",
              "test_tensor_funcs_compile", "test_tensor_fusion", "test_tensor_nn_compile", "test_specs")


def pytest_collection_modifyitems(config, items):
    unmarked = [i.nodeid for i in items if i.path.name.endswith("_gpu.py") and not i.get_closest_marker("gpu")]
    if unmarked:   # test_*_gpu.py is where GPU tests live, and what tools/gpu_check.sh runs: marked, skipped without one
        raise pytest.UsageError("tests in test_*_gpu.py files without the `gpu` marker "
                                "(pytestmark = pytest.mark.gpu):\n  " + "\n  ".join(unmarked[:20]))
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda i: rank.get(Path(str(i.fspath)).stem, len(rank)))   # stable: in-file order kept
    runtime_items = [i for i in items if i.get_closest_marker("runtime")]
    if runtime_items:
        ok, why = runtime_available()
        if not ok and os.environ.get("HIP_PYTHON_EXPECT_RUNTIME") == "1":
            raise pytest.UsageError(f"HIP_PYTHON_EXPECT_RUNTIME=1, but the HIP runtime does not load: {why}")
        if not ok:
            reason = (f"no loadable ROCm runtime ({why}); on Debian, ./build_pkgs.sh fetches bookworm's "
                      "into build/rocm-runtime, elsewhere install one or set HIP_PYTHON_HIP_LIBRARY")
            for item in runtime_items:
                item.add_marker(pytest.mark.skip(reason=reason))
    nodevice_items = [i for i in items if i.get_closest_marker("nodevice")]
    if nodevice_items and gpu_available()[0]:
        for item in nodevice_items:
            why = item.get_closest_marker("nodevice").kwargs.get("reason", "only meaningful without a GPU")
            item.add_marker(pytest.mark.skip(reason=why))
    gpu_items = [i for i in items if i.get_closest_marker("gpu")]
    if not gpu_items:
        return
    ok, why = gpu_available()
    if not ok:
        for item in gpu_items:
            item.add_marker(pytest.mark.skip(reason=why))


# -- the GPU tests' fixtures (their tests are marked `gpu`: they run only where a GPU was found) ----
@pytest.fixture(scope="session")
def props():
    """hipDeviceProp_t of device 0."""
    import hip
    from hip import hip as h
    p = h.hipDeviceProp_t()
    hip.check(h.hipGetDeviceProperties(p, 0))
    return p


@pytest.fixture(scope="session")
def arch(props) -> str:
    """The device's gcnArchName ('gfx90a:sramecc+:xnack-' on AMD, 'sm_90' on NVIDIA)."""
    name = props.gcnArchName
    name = name.decode() if isinstance(name, bytes) else str(name)
    assert name, "hipDeviceProp_t.gcnArchName is empty"
    return name


@pytest.fixture
def mem():
    import hip
    from hip import hip as h
    from gpu_util import DeviceMemory
    m = DeviceMemory()
    yield m
    hip.check(h.hipDeviceSynchronize())
    m.free_all()


@pytest.fixture
def stream():
    import hip
    from hip import hip as h
    s = hip.check(h.hipStreamCreate())
    yield s
    h.hipStreamSynchronize(s)
    hip.check(h.hipStreamDestroy(s))


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(20240531)
