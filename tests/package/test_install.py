"""Installing the way Python users install: `python -m build` gives a wheel that imports from any
directory, settings pass as config settings, and an environment with AMD's HIP Python (also the
package `hip`) is refused. Plus where the build's Debian packages come from."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from build_support import debian  # noqa: E402


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def _venv(path):
    r = _run([sys.executable, "-m", "venv", str(path)])
    assert r.returncode == 0, r.stderr
    return str(path / "bin" / "python")


def _clean_env(**extra):
    """The environment without this test run's PYTHONPATH (the checkout must not leak in)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HIP_PYTHON_LIBS")}
    env.update(extra)
    return env


def _cuda_include() -> str | None:
    """CUDA headers the alias can be generated from, of ALIAS_CUDA or newer (the build fetched them
    into build/; the tests' $HIP_PYTHON_CUDA_INCLUDE holds the layer's, which may be older)."""
    from build_support.cuda import ALIAS_CUDA, ALIAS_HEADERS, cuda_version
    pypi = ROOT / "build" / "cuda-pypi"   # the build's fetch (build_support.cuda.alias_include), the layer's
    for d in (str(pypi / ("alias-%d.%d" % ALIAS_CUDA) / "include"), os.environ.get("HIP_PYTHON_CUDA_INCLUDE", ""),
              str(pypi / "include")):
        if d and all(os.path.isfile(os.path.join(d, h)) for h in ALIAS_HEADERS) \
                and (cuda_version(d) or (0, 0)) >= ALIAS_CUDA:
            return d
    return None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, include64):
    """`python -m build` (sdist, then a wheel built from it in an isolated environment) with two
    libraries, the headers and the layer choice given as config settings."""
    pytest.importorskip("build", reason="the `build` package (installed by build_pkgs.sh --run-tests)")
    out = tmp_path_factory.mktemp("dist")
    # A copy of the tracked tree: what a fresh clone has (no generated files, no build/).
    src = out / "src"
    files = _run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT).stdout.split()
    for f in files:
        if os.path.isfile(ROOT / f):
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, src / f)
    # With the cuda alias where CUDA's headers are here (fetched by the build otherwise: kept offline)
    cuda_inc = _cuda_include()
    libs = "hip,hiprtc,cuda" if cuda_inc else "hip,hiprtc"
    # -O0: the wheel's contents and install are under test, not its speed (about half the compile)
    env = _clean_env(HIP_PYTHON_OPT="-O0", **({"HIP_PYTHON_CUDA_INCLUDE": cuda_inc} if cuda_inc else {}))
    r = _run([sys.executable, "-m", "build", "--outdir", str(out), "-C", f"libs={libs}",
              "-C", f"include={include64}", "-C", "nvidia=no", str(src)], env=env, timeout=1500)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    wheels = glob.glob(str(out / "*.whl"))
    sdists = glob.glob(str(out / "*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, os.listdir(out)
    return wheels[0], sdists[0], r.stdout


def test_wheel_has_the_chosen_libraries(wheel):
    whl, _, log = wheel
    names = zipfile.ZipFile(whl).namelist()
    mods = {n.split("/")[-1].split(".")[0] for n in names if n.startswith("hip/") and n.endswith(".so")}
    assert mods == {"_loader", "_pointer", "_kernel_args", "_struct", "launch", "_memory", "_array", "_elementwise",
                    "chip", "hip", "chiprtc", "hiprtc"}
    for f in ("hip/hip.pyi", "hip/chip.pxd", "hip/hiprtc.pyi", "hip/_coverage/hip.json", "hip/py.typed"):
        assert f in names
    assert not any(n.startswith("hip/_nvidia/") for n in names), "nvidia=no still built the layer"
    # hip.tensor whole, its subpackages included (the sources git tracks)
    tracked = subprocess.run(["git", "ls-files", "hip/tensor/*.py"], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert tracked and set(tracked) <= set(names), sorted(set(tracked) - set(names))
    assert "hip-bindings build: ROCm" in log


def test_sdist_carries_the_generator_not_its_output(wheel):
    import tarfile
    _, sdist, _ = wheel
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    assert {"setup.py", "codegen/specs/hip.yaml", "build_support/backend.py", "hip/_pointer.pyx",
            "hip/tensor/_core/launch.pyx", "hip/tensor/_core/_memory.pxd", "hip/tensor/_api/_elementwise.pyx",
            "hip_as_cuda/cuda/bindings/utils/__init__.py",
            "hip_as_cuda/cuda/bindings/_internal/driver.py"} <= names
    assert not any(n.endswith((".so", ".c")) and n.startswith("hip/") for n in names)
    assert "hip/hip.pyx" not in names and "hip/chip.pxd" not in names


def test_installed_wheel_imports_from_any_directory(wheel, tmp_path):
    whl, _, _ = wheel
    py = _venv(tmp_path / "venv")
    r = _run([py, "-m", "pip", "install", "-q", "--no-deps", whl])
    assert r.returncode == 0, r.stderr
    code = ("import hip, os; from hip import hip as h, hiprtc\n"
            "assert ROOT not in hip.__file__, hip.__file__\n"
            "print(hiprtc.hiprtcGetErrorString(hiprtc.hiprtcResult.HIPRTC_ERROR_INVALID_INPUT))\n"
            "print(h.hipGetDeviceCount()[0].name)\n").replace("ROOT", repr(str(ROOT)))
    r = _run([py, "-c", code], cwd=str(tmp_path), env=_clean_env())
    assert r.returncode == 0, r.stderr[-2000:]
    # hiprtc answers from the loaded runtime; hipGetDeviceCount gives a hipError_t member
    # (hipErrorNoDevice on a machine without a GPU).
    assert "HIPRTC_ERROR_INVALID_INPUT" in r.stdout and "hipError" in r.stdout, r.stdout


def test_installed_wheel_has_the_cuda_alias(wheel, tmp_path):
    """Built with the alias, the wheel gives the `cuda` package (no NVIDIA cuda-bindings where it
    was built), its compiled modules in hip_as_cuda/, and `python -m hip_as_cuda`."""
    whl, _, log = wheel
    names = zipfile.ZipFile(whl).namelist()
    if not any(n.startswith("hip_as_cuda/cuda/bindings/driver") for n in names):
        pytest.skip("no CUDA headers here: the wheel was built without the alias")
    assert "cuda/bindings/__init__.py" in names and "cuda/bindings/cydriver.pxd" in names
    assert "hip_as_cuda/nvrtc_prelude.h" in names
    py = _venv(tmp_path / "venv")
    assert _run([py, "-m", "pip", "install", "-q", "--no-deps", whl]).returncode == 0
    code = ("import cuda.bindings.runtime as rt, hip_as_cuda\n"
            "assert 'hip_as_cuda' in rt.__file__ and ROOT not in rt.__file__, rt.__file__\n"
            "print(rt.cudaGetDeviceCount()[0])\n"
            # the hand-written subpackages, found through cuda.bindings' path
            "import cuda.bindings.utils as u, cuda.bindings._bindings.cydriver, cuda.bindings._test_helpers.mempool\n"
            "assert 'hip_as_cuda' in u.__file__ and ROOT not in u.__file__, u.__file__\n"
            "print(u.get_cuda_native_handle(rt.cudaStream_t(5)))\n").replace("ROOT", repr(str(ROOT)))
    r = _run([py, "-c", code], cwd=str(tmp_path), env=_clean_env())
    assert r.returncode == 0, r.stderr[-2000:]
    assert "cudaError_t." in r.stdout, r.stdout
    r = _run([py, "-m", "hip_as_cuda"], cwd=str(tmp_path), env=_clean_env())
    assert r.returncode == 0 and "cuda.bindings.driver" in r.stdout, r.stdout + r.stderr


@pytest.fixture(scope="module")
def amd_venv(tmp_path_factory):
    """A venv holding AMD's HIP Python (its package is also `hip`)."""
    venv = tmp_path_factory.mktemp("amd") / "venv"
    py = _venv(venv)
    r = _run([py, "-m", "pip", "install", "-q", "--no-deps", "--only-binary=:all:", "hip-python>=6.4,<6.5"])
    if r.returncode != 0:
        pytest.skip(f"AMD's hip-python 6.4 does not install here (Python {sys.version.split()[0]}): "
                    f"{r.stderr.strip().splitlines()[-1:]}")
    return py


def test_install_over_amds_hip_is_refused(amd_venv):
    r = _run([amd_venv, "-m", "pip", "install", "--no-deps", str(ROOT)], env=_clean_env(), timeout=900)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "hip-python" in out and "overwrite" in out, out[-3000:]
    # AMD's files are untouched.
    r = _run([amd_venv, "-c", "import importlib.metadata as m; print(m.version('hip-python'))"])
    assert r.stdout.startswith("6.4"), r.stdout + r.stderr


# -- Debian packages -------------------------------------------------------------------------------
def test_archive_is_the_systems_own():
    """The archive we fetch from is one apt itself uses on this system (apt-get indextargets)."""
    try:
        uri, _ = debian.archive()
    except debian.FetchError as e:
        pytest.skip(str(e))
    r = _run(["apt-get", "indextargets", "--format", "$(REPO_URI)"])
    used = {u.rstrip("/") for u in r.stdout.split()}
    if not used:
        pytest.skip("apt has no package lists here (apt-get update never ran)")
    assert uri.rstrip("/") in used


def test_no_mirror_host_is_written_into_our_files():
    r = _run(["git", "grep", "-nE", r"(deb|ftp|archive|security)\.(debian|ubuntu)\.(org|com)", "--",
              ":!*.rst", ":!*.md"], cwd=ROOT)
    assert r.stdout == "", f"mirror hosts named in our files:\n{r.stdout}"


def test_fetched_runtime_is_private():
    """When the tests run against a fetched runtime it lies under build/, never in the system."""
    libdirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if "rocm-runtime" in d]
    if not libdirs:
        pytest.skip("this run uses the system's ROCm runtime")
    assert all(os.path.realpath(d).startswith(str(ROOT / "build")) for d in libdirs)
    r = _run(["dpkg-query", "-W", "-f", "${Status}", "libamdhip64-5"])
    assert "installed" not in r.stdout.split()   # not in the system's dpkg database


def test_nvidia_layer_without_driver_says_so():
    from hip import _loader
    layer = _loader.nvidia_layer("hip")
    if not os.path.exists(layer):
        pytest.skip("the HIP-on-CUDA layer is not built here (no CUDA found)")
    import ctypes
    try:
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("an NVIDIA driver is installed here")
    except OSError:
        pass
    from conftest import run_python
    r = run_python("from hip import hip; hip.hipGetDeviceCount()", env={"HIP_PLATFORM": "nvidia"})
    assert r.returncode != 0
    assert "NVIDIA driver is not installed (libcuda.so.1 not found)" in r.stderr, r.stderr[-2000:]
    assert "undefined symbol" not in r.stderr


# NVIDIA's pythonic layer and its path finder, as their PyPI wheels install them (issue: cuda.core
# over the alias). Downloaded once into build/pypi-wheels; skipped where PyPI cannot be reached.
CUDA_CORE = ("cuda-core==1.2.0", "cuda-pathfinder", "numpy")   # cuda.core imports NumPy


def _pypi_wheels(names) -> list[str]:
    from cache_lock import locked
    d = ROOT / "build" / "pypi-wheels"
    with locked(str(d)):
        want = {n.split("==")[0].replace("-", "_") for n in names}
        have = [p for p in glob.glob(str(d / "*.whl")) if os.path.basename(p).split("-")[0] in want]
        if len(have) < len(want):
            r = _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                      "-d", str(d), *names], timeout=600)
            if r.returncode != 0:
                pytest.skip(f"PyPI cannot be reached for {', '.join(names)}: {r.stderr.strip()[-300:]}")
            have = [p for p in glob.glob(str(d / "*.whl")) if os.path.basename(p).split("-")[0] in want]
    return sorted(have)


def test_nvidias_cuda_core_runs_over_the_installed_alias(wheel, tmp_path):
    """cuda-core 1.2.0 and cuda-pathfinder from PyPI, then our wheel, in one venv without NVIDIA's
    cuda-bindings: the `cuda` namespace stays open (all three import), cuda.core's compiled modules
    find our cy* functions, its version check finds our release, and Device() raises the CUDA error
    cuInit answers through the alias (this machine has no GPU)."""
    whl, _, _ = wheel
    if not any(n.startswith("hip_as_cuda/cuda/bindings/cydriver") for n in zipfile.ZipFile(whl).namelist()):
        pytest.skip("no CUDA headers here: the wheel was built without the alias")
    py = _venv(tmp_path / "venv")
    r = _run([py, "-m", "pip", "install", "-q", "--no-deps", *_pypi_wheels(CUDA_CORE)])
    assert r.returncode == 0, r.stderr[-2000:]
    assert _run([py, "-m", "pip", "install", "-q", "--no-deps", whl]).returncode == 0
    code = ("import importlib.metadata as md, cuda.pathfinder, cuda.core\n"
            "from cuda.bindings import driver\n"
            "assert 'hip_as_cuda' in driver.__file__ and ROOT not in driver.__file__, driver.__file__\n"
            "print('core', cuda.core.__version__, 'bindings', md.version('cuda-bindings'))\n"
            "err = driver.cuInit(0)[0]\n"
            "try:\n"
            "    cuda.core.Device()\n"
            "except cuda.core._utils.cuda_utils.CUDAError as e:\n"
            "    print('Device():', err.name in str(e), err.name)\n").replace("ROOT", repr(str(ROOT)))
    r = _run([py, "-c", code], cwd=str(tmp_path), env=_clean_env())
    assert r.returncode == 0, r.stderr[-3000:]
    assert "core 1.2.0 bindings 13." in r.stdout and "Device(): True CUDA_ERROR_" in r.stdout, r.stdout
    r = _run([py, "-m", "pip", "check"], env=_clean_env())
    assert "cuda" not in r.stdout.lower(), r.stdout   # no distribution of the cuda namespace broken
