"""Where CUDA is, for the HIP-on-CUDA layer: a toolkit ($CUDA_PATH, /usr/local/cuda) and NVIDIA's
pip wheels (nvidia-cuda-runtime, nvidia-cublas, ... as PyTorch and CuPy install them) in the
Python being installed into. The toolkit comes first; the wheels add the libraries it lacks."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

# Run in the target interpreter with -I: inside pip's isolated build environment, sys.path is
# the build environment's, not the one the package is installed into.
_WHEEL_DIRS = r"""
import importlib.util, os
spec = importlib.util.find_spec("nvidia")
for root in (list(spec.submodule_search_locations) if spec and spec.submodule_search_locations else []):
    for dirpath, dirnames, files in sorted(os.walk(root)):
        name = os.path.basename(dirpath)
        if name == "include" and any(f.endswith(".h") for f in files):
            print("inc", dirpath); dirnames[:] = []
        elif name == "lib" and any(".so" in f for f in files):
            print("lib", dirpath); dirnames[:] = []
"""


@dataclass
class Cuda:
    includes: list[str] = field(default_factory=list)
    lib_dirs: list[str] = field(default_factory=list)
    found_in: list[str] = field(default_factory=list)   # for messages

    def __bool__(self):
        return bool(self.found_in)


def locate(python: str = sys.executable) -> Cuda:
    cuda = Cuda()
    for d in (os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"):
        if d and os.path.isfile(os.path.join(d, "include", "cuda_runtime_api.h")):
            cuda.includes.append(os.path.join(d, "include"))
            cuda.lib_dirs.append(os.path.join(d, "lib64"))
            cuda.found_in.append(f"the toolkit at {d}")
            break
    try:
        out = subprocess.run([python, "-I", "-c", _WHEEL_DIRS], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    n = 0
    for line in out.splitlines():
        kind, _, path = line.partition(" ")
        if kind == "inc":
            cuda.includes.append(path)
            n += 1
        elif kind == "lib":
            cuda.lib_dirs.append(path)
    if n:
        cuda.found_in.append(f"NVIDIA's pip wheels ({n} include dirs)")
    if cuda and os.path.isfile("/usr/include/nccl.h"):
        cuda.includes.append("/usr/include")
    return cuda


def layer_libraries(wanted: list[str], cuda: Cuda) -> list[str]:
    """The libraries of `wanted` whose CUDA headers are all there: one layer library each."""
    from codegen.bridge import spec as nvspec
    return [l for l in nvspec.all_libraries() if l in wanted
            and all(any(os.path.exists(os.path.join(d, h)) for d in cuda.includes)
                    for h in nvspec.load(l).cuda_headers)]


def build_layer(hip_include: str, wanted: list[str], out_dir: str, work_dir: str, jobs: int, log=print) -> bool:
    """Generate and compile the HIP-on-CUDA layer into `out_dir` when CUDA is here. An optional
    platform: a failure is reported and the ROCm build stands. Returns whether it was built."""
    cuda = locate()
    if not cuda:
        return False
    libs = layer_libraries(wanted, cuda)
    if not libs:
        return False
    log(f"CUDA from {' and '.join(cuda.found_in)}: building the HIP-on-CUDA layer ({','.join(libs)}) into {out_dir}")
    args = [sys.executable, "-m", "codegen", "nvidia", "--hip-include", hip_include, "--libs", ",".join(libs),
            "--out", work_dir, "--build", out_dir, "-j", str(jobs)]
    for d in cuda.includes:
        args += ["--cuda-include", d]
    for d in cuda.lib_dirs:
        args += ["--cuda-lib", d]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if subprocess.run(args, cwd=root, env=env).returncode != 0:
        log("warning: the HIP-on-CUDA layer did not build (above); ROCm use is unaffected")
        return False
    return True


# What the alias's specs parse (their graphics-interop headers come with cuda.h and
# cuda_runtime_api.h; the profiler's are a component, a wheel, of their own).
ALIAS_HEADERS = ("cuda.h", "cuda_runtime_api.h", "nvrtc.h", "cudaProfiler.h", "cuda_profiler_api.h")
# The CUDA release the alias follows: that of its oracle, NVIDIA's cuda-bindings 13.3.x. Older
# headers would lack names the oracle has; newer ones only add.
ALIAS_CUDA = (13, 3)


def cuda_version(include: str) -> tuple[int, int] | None:
    """(major, minor) of the CUDA_VERSION in include/cuda.h."""
    try:
        with open(os.path.join(include, "cuda.h"), errors="replace") as f:
            m = re.search(r"^#define\s+CUDA_VERSION\s+(\d+)", f.read(), re.M)
    except OSError:
        return None
    return (int(m.group(1)) // 1000, int(m.group(1)) % 1000 // 10) if m else None


def alias_include(root: str, log=print, fetch: bool = True, environment: bool = True) -> str | None:
    """The CUDA headers the `cuda` alias is generated from: $HIP_PYTHON_CUDA_INCLUDE where they are
    of ALIAS_CUDA or newer, else a CUDA toolkit or NVIDIA's wheels that have ALIAS_HEADERS and are, else the ones
    NVIDIA's PyPI wheels of ALIAS_CUDA carry, fetched (not installed) into
    build/cuda-pypi/alias-<version>. None (with why) when none can be had. `fetch=False`,
    `environment=False`: what a build would find here without fetching, $HIP_PYTHON_CUDA_INCLUDE
    aside (the tests set it to the HIP-on-CUDA layer's headers)."""
    def complete(d):
        return d and all(os.path.isfile(os.path.join(d, h)) for h in ALIAS_HEADERS)
    env = os.environ.get("HIP_PYTHON_CUDA_INCLUDE", "") if environment else ""
    if env:
        if not complete(env):
            log(f"HIP_PYTHON_CUDA_INCLUDE={env} lacks one of {', '.join(ALIAS_HEADERS)}")
        elif (cuda_version(env) or (0, 0)) >= ALIAS_CUDA:
            return env
        else:   # the alias binds cuda.bindings 13.3's API: its hand-written calls use 13.3's fields
            log(f"HIP_PYTHON_CUDA_INCLUDE={env} holds CUDA %d.%d's headers; the `cuda` alias needs "
                "%d.%d or newer: looking for those" % (*(cuda_version(env) or (0, 0)), *ALIAS_CUDA))
    for d in locate().includes:
        if complete(d) and (cuda_version(d) or (0, 0)) >= ALIAS_CUDA:
            return d
    release = "%d.%d" % ALIAS_CUDA
    dest = os.path.join(root, "build", "cuda-pypi", f"alias-{release}", "include")
    if complete(dest):
        return dest
    if not fetch:
        return None
    log(f"fetching CUDA {release}'s headers for the `cuda` alias from NVIDIA's PyPI wheels into {dest}")
    r = subprocess.run(["bash", os.path.join(root, "tools", "fetch_cuda_headers.sh"), dest],
                       env=dict(os.environ, CUDA_HEADER_SET="alias", CUDA_RELEASE=release, PYTHON=sys.executable),
                       capture_output=True, text=True)
    if r.returncode != 0 or not complete(dest):
        log(f"warning: no CUDA headers for the `cuda` alias ({(r.stderr or '').strip().splitlines()[-1:]}): "
            "it is left out")
        return None
    return dest
