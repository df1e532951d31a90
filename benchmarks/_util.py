"""Helpers shared by the benchmark scripts (not a benchmark itself).

- the repository root and a description of the machine,
- the side virtual environment holding AMD's published bindings
  (`rocm-bindings-hip` from PyPI), kept apart from this project's `hip` package,
- a folder with an unversioned `libamdhip64.so` link for that package, which
  dlopens the unversioned name only (a runtime-only ROCm install has just
  `libamdhip64.so.N`).
"""
from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys
import venv

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDE_VENV = os.path.join(REPO, "build", "bench-venv")
PEER_PACKAGE = "rocm-bindings-hip"
# Import statements to try in the side venv, in order (10.x: rocm.bindings.*; older: hip.*).
PEER_IMPORTS = ("from rocm.bindings import hip, hiprtc", "from hip import hip, hiprtc")


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, {platform.platform()}"


def _find(stem: str, names: list[str], symbol: str) -> str | None:
    """Path of the first loadable library among `names` that exports `symbol`."""
    dirs = [os.path.join(os.environ["ROCM_PATH"], "lib")] if os.environ.get("ROCM_PATH") else []
    dirs.append("/opt/rocm/lib")
    for n in names:
        for cand in [os.path.join(d, n) for d in dirs] + [n]:
            try:
                lib = ctypes.CDLL(cand)
            except OSError:
                continue
            if not hasattr(lib, symbol):
                continue
            with open("/proc/self/maps") as f:
                for line in f:
                    if stem in line:
                        return line.split()[-1]
            return cand
    return None


def hip_runtime_path() -> str | None:
    """Path of the HIP runtime this machine loads (libamdhip64.so[.N]), or None."""
    return _find("libamdhip64", ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"],
                 "hipGetErrorName")


def hiprtc_path() -> str | None:
    """Path of the library exporting hiprtc (libhiprtc.so.N; libamdhip64.so.5 in ROCm 5)."""
    found = _find("libhiprtc", ["libhiprtc.so", "libhiprtc.so.7", "libhiprtc.so.6"], "hiprtcVersion")
    if found:
        return found
    hip = hip_runtime_path()
    return hip if hip and hasattr(ctypes.CDLL(hip), "hiprtcVersion") else None


def runtime_version() -> str:
    path = hip_runtime_path()
    if path is None:
        return "no HIP runtime found"
    lib = ctypes.CDLL(path)
    v = ctypes.c_int()
    lib.hipRuntimeGetVersion(ctypes.byref(v))
    return f"{os.path.basename(os.path.realpath(path))} (hipRuntimeGetVersion {v.value})"


def side_python(create: bool = True) -> tuple[str | None, str]:
    """(python of the side venv with AMD's bindings, note); python is None if unavailable."""
    py = os.path.join(SIDE_VENV, "bin", "python")
    if not os.path.exists(py):
        if not create:
            return None, f"no side venv at {SIDE_VENV}"
        print(f"creating {SIDE_VENV} and installing {PEER_PACKAGE} (once) ...", file=sys.stderr)
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(SIDE_VENV)
        except Exception as e:   # ensurepip missing, disk full, ...
            return None, f"could not create the side venv: {e}"
    # cwd="/" and no PYTHONPATH: from the repository, `import hip` would find *this* project's package.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ok = any(subprocess.run([py, "-c", stmt], capture_output=True, cwd="/", env=env).returncode == 0
             for stmt in PEER_IMPORTS)
    if not ok:
        if not create:
            return None, f"{PEER_PACKAGE} is not installed in {SIDE_VENV}"
        r = subprocess.run([py, "-m", "pip", "install", "-q", PEER_PACKAGE], capture_output=True, text=True)
        if r.returncode != 0:
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["?"]
            return None, f"pip install {PEER_PACKAGE} failed (no network?): {tail[0]}"
    v = subprocess.run([py, "-m", "pip", "show", PEER_PACKAGE], capture_output=True, text=True).stdout
    version = next((l.split(":", 1)[1].strip() for l in v.splitlines() if l.startswith("Version:")), "?")
    return py, f"{PEER_PACKAGE} {version} in {SIDE_VENV}"


def peer_env() -> dict:
    """Environment for the side venv's python.

    AMD's package dlopens the unversioned names libamdhip64.so and libhiprtc.so only; LD_LIBRARY_PATH
    gains a folder linking those names to the versioned files (libhiprtc.so -> libamdhip64.so.5 on
    ROCm 5, which has no libhiprtc). PYTHONPATH is dropped (it could point at this project's `hip`).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    folder = os.path.join(SIDE_VENV, "rocm-lib")
    links = {"libamdhip64.so": hip_runtime_path(), "libhiprtc.so": hiprtc_path()}
    for name, path in links.items():
        if path is None or os.path.basename(path) == name:
            continue
        os.makedirs(folder, exist_ok=True)
        link = os.path.join(folder, name)
        if os.path.islink(link) and os.readlink(link) != path:
            os.unlink(link)
        if not os.path.lexists(link):
            os.symlink(path, link)
    if os.path.isdir(folder):
        env["LD_LIBRARY_PATH"] = folder + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def peer_import(py: str, env: dict) -> str | None:
    """The import statement that works in the side venv, or None."""
    for stmt in PEER_IMPORTS:
        if subprocess.run([py, "-c", stmt], capture_output=True, env=env, cwd="/").returncode == 0:
            return stmt
    return None


def describe_tree(tree: str) -> str:
    """Where the timed `hip` package is, and the git revision of that tree (if it is a checkout)."""
    import glob
    built = glob.glob(os.path.join(tree, "hip", "hip.*.so"))
    if not built:
        raise SystemExit(f"no built hip package in {tree}/hip (run ./build_pkgs.sh, or pass --tree)")
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
    rev = f", git {r.stdout.strip()}" if r.returncode == 0 and os.path.isdir(os.path.join(tree, ".git")) else ""
    return f"{tree}/hip{rev}"


def run_json(cmd: list[str], code: str, env: dict | None = None, cwd: str | None = None) -> dict:
    """Run `code` with the interpreter command `cmd`; it prints one JSON object last."""
    r = subprocess.run(cmd + ["-c", code], capture_output=True, text=True, env=env, cwd=cwd)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


class Skip(Exception):
    """A benchmark part or contender that cannot run here (a package or a GPU missing): reported, not
    a failure."""


def run_parts(table, parts, *call_args):
    """Run the selected parts of (key, title, run) `table`, each on its own (a part that fails or is
    skipped does not stop the others): (results, errors) by key."""
    import traceback
    results, errors = {}, {}
    for key, title, run in table:
        if key not in parts:
            continue
        print(f"({key}) {title}")
        try:
            results[key] = run(*call_args)
        except Skip as e:
            errors[key] = f"skipped: {e}"
            print(f"  skipped: {e}")
        except Exception as e:   # one part failing must not stop the others
            errors[key] = f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            traceback.print_exc()
        print()
    return results, errors


def report(rows, errors, t0: float, width: int = 22) -> int:
    """Print the summary of the targets (rows of (target, value, met)), the parts' errors and the
    total time since t0 (time.perf_counter()); the exit status: 1 if a part failed, else 0."""
    import time
    print("summary (targets of the issue)")
    w = max([len(r[0]) for r in rows] + [10])
    for target, value, ok in rows:
        print(f"  {target:<{w}}  {value:<{width}} {ok}")
    for key, e in errors.items():
        print(f"  ({key}) {e}")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 1 if any(e.startswith("failed") for e in errors.values()) else 0


def host_us_per_call(fn, sync, n: int, rounds: int, warmup: int = 100) -> float:
    """Best over rounds of (wall time of n calls + one synchronize) / n, in us: the host's cost of
    a call that enqueues GPU work (each call returns once its work is queued)."""
    import time
    for _ in range(warmup):
        fn()
    sync()
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best
