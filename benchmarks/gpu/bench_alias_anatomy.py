#!/usr/bin/env python3
"""Where the alias's cuCtxGetCurrent spends its time, piece by piece (issue 12, item 9).

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_alias_anatomy.py [--rounds R] [--calls N]
    python3 benchmarks/gpu/bench_alias_anatomy.py --threads [--rounds R]       (no GPU needed)

Builds a small Cython probe against the alias's `cydriver` (in a temporary folder; Cython and a C
compiler needed), whose functions each do part of what the alias's `cuCtxGetCurrent` does: return a
tuple, make a handle, release and re-take the GIL, call the alias's C layer, call libcuda directly.
Then, in each of --rounds processes, loads NVIDIA's cuda.bindings and the alias into the one process
(as bench_alias's (a')) and times every function in turns, best of --repeat timeit repeats of
--calls calls; prints each function's best process and the processes' median.

--threads: the probe over bench_alias's stand-in HIP library (HIP_PLATFORM=amd, no GPU, no CUDA), in
processes with one thread and with a second one sleeping: what a multi-threaded process (one that
has initialised CUDA has CUDA's threads) costs a call that releases the GIL.

Nothing here asserts a timing. Exits 77 without a GPU, the alias, NVIDIA's cuda.bindings (not with
--threads) or Cython; 1 if a process failed.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [REPO, HERE, os.path.dirname(HERE)]
import _util  # noqa: E402
import bench_alias  # noqa: E402  (its stand-in HIP library, environments and probe)

PROBE = r'''
# cython: language_level=3
cimport cuda.bindings.cydriver as _cl
from hip._pointer cimport wrap
from cuda.bindings.driver cimport CUcontext
from cuda.bindings import driver
cdef object OK = driver.CUresult.CUDA_SUCCESS

cdef extern from "<dlfcn.h>" nogil:
    void *dlopen(const char *, int)
    void *dlsym(void *, const char *)
    int RTLD_NOW
ctypedef int (*ctx_fn)(void **) noexcept nogil
ctypedef int (*proc_fn)(const char *, void **, int, unsigned long long, void *) noexcept nogil
cdef ctx_fn _libcuda = NULL

def find_libcuda():
    """libcuda's cuCtxGetCurrent as NVIDIA's bindings find it: through cuGetProcAddress."""
    global _libcuda
    cdef void *h = dlopen(b"libcuda.so.1", RTLD_NOW)
    cdef proc_fn gpa = <proc_fn>dlsym(h, b"cuGetProcAddress_v2") if h != NULL else NULL
    cdef void *p = NULL
    if gpa == NULL or gpa(b"cuCtxGetCurrent", &p, 13000, 0, NULL) != 0 or p == NULL:
        raise RuntimeError("libcuda's cuCtxGetCurrent not found")
    _libcuda = <ctx_fn>p

def tuple_none():
    return (OK, None)

def tuple_handle():
    return (OK, wrap(CUcontext, <void*>0x1234))

def nogil_none():
    with nogil:
        pass
    return None

def nogil_tuple_int():
    cdef size_t c = 0
    with nogil:
        c = 0x123456789
    return (OK, c)

def nogil_tuple_handle():
    cdef void *c = NULL
    with nogil:
        c = <void*>0x1234
    return (OK, wrap(CUcontext, c))

def layer_tuple_none():
    cdef _cl.CUcontext c = NULL
    with nogil:
        _cl.cuCtxGetCurrent(&c)
    return (OK, None)

def layer_tuple_handle():
    cdef _cl.CUcontext c = NULL
    with nogil:
        _cl.cuCtxGetCurrent(&c)
    return (OK, wrap(CUcontext, <void*>c))

def layer_handle_first():
    h = wrap(CUcontext, NULL)
    cdef _cl.CUcontext c = NULL
    with nogil:
        _cl.cuCtxGetCurrent(&c)
    (<CUcontext>h)._ptr = <void*>c
    return (OK, h)

def libcuda_tuple_handle():
    cdef void *c = NULL
    with nogil:
        _libcuda(&c)
    return (OK, wrap(CUcontext, c))
'''

# What each probe function does, in the order printed.
ROWS = [
    ("nvidia", "NVIDIA's cuCtxGetCurrent"),
    ("alias", "the alias's cuCtxGetCurrent"),
    ("tuple_none", "return (OK, None)"),
    ("tuple_handle", "return (OK, handle): a handle made, no GIL release"),
    ("nogil_none", "with nogil: pass"),
    ("nogil_tuple_int", "the same, then return (OK, int)"),
    ("nogil_tuple_handle", "the same, then return (OK, handle)"),
    ("layer_tuple_none", "the alias's cydriver.cuCtxGetCurrent without the GIL, (OK, None)"),
    ("layer_tuple_handle", "the same, return (OK, handle): the alias's function"),
    ("layer_handle_first", "the same, the handle made before the GIL's release"),
    ("libcuda_tuple_handle", "libcuda's cuGetProcAddress pointer, no layer, (OK, handle)"),
]

CHILD = r'''
import json, os, sys, threading, time, timeit
probe_dir, mode, calls, repeat, turns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
if os.environ.get("BENCH_ALIAS_CPU"):
    os.sched_setaffinity(0, {int(os.environ["BENCH_ALIAS_CPU"])})

def ok(r):
    if int(r[0]) != 0:
        raise RuntimeError(repr(r[0]))
    return r[1] if len(r) > 1 else None

fns = {}
if mode == "real":   # NVIDIA's first, then the alias through its import hook
    from cuda.bindings import driver as nd, runtime as nr
    ok(nd.cuInit(0)); ok(nr.cudaSetDevice(0)); ok(nr.cudaFree(0))
    fns["nvidia"] = nd.cuCtxGetCurrent
    for k in [k for k in sys.modules if k == "cuda.bindings" or k.startswith("cuda.bindings.")]:
        del sys.modules[k]
from hip_as_cuda._finder import install
install()
from cuda.bindings import driver
ok(driver.cuInit(0))
fns["alias"] = driver.cuCtxGetCurrent
sys.path.insert(0, probe_dir)
import anatomy_probe as p
for name in ("tuple_none", "tuple_handle", "nogil_none", "nogil_tuple_int", "nogil_tuple_handle",
             "layer_tuple_none", "layer_tuple_handle", "layer_handle_first"):
    fns[name] = getattr(p, name)
if mode == "real":
    p.find_libcuda()
    fns["libcuda_tuple_handle"] = p.libcuda_tuple_handle
    if int(ok(fns["alias"]())) != int(ok(fns["nvidia"]())) or int(ok(p.libcuda_tuple_handle())) != int(ok(fns["alias"]())):
        raise RuntimeError("the bindings see different current contexts")
elif mode == "two-threads":
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
items = list(fns.items())
best = {k: float("inf") for k in fns}
for turn in range(turns):
    for k, f in (items if turn %% 2 == 0 else items[::-1]):
        best[k] = min(best[k], min(timeit.repeat(f, number=calls, repeat=repeat)) / calls * 1e9)
best["threads"] = threading.active_count() if mode != "real" else len(os.listdir("/proc/self/task"))
print(json.dumps(best))
'''


def build_probe(work: str) -> str | None:
    """Compiles the probe into work/; None (with why printed) when it cannot be built."""
    if importlib.util.find_spec("Cython") is None:
        print("skipped: Cython is needed to build the probe")
        return None
    from build_support import cuda
    inc = cuda.alias_include(REPO, log=lambda m: None)
    if inc is None:
        print("skipped: no CUDA headers for the alias's cydriver")
        return None
    with open(os.path.join(work, "anatomy_probe.pyx"), "w") as f:
        f.write(PROBE)
    setup = (
        "from setuptools import setup, Extension\nfrom Cython.Build import cythonize\n"
        f"setup(ext_modules=cythonize([Extension('anatomy_probe', ['anatomy_probe.pyx'], "
        f"include_dirs={[inc, os.path.join(REPO, 'hip_as_cuda', 'cuda', 'bindings')]!r}, "
        "extra_compile_args=['-O2', '-fno-plt'], libraries=['dl'])], "
        f"include_path={[REPO, os.path.join(REPO, 'hip_as_cuda')]!r}, quiet=True), "
        "script_args=['build_ext', '--inplace', '-q'])\n")
    r = subprocess.run([sys.executable, "-c", setup], cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr[-3000:], file=sys.stderr)
        print("skipped: the probe did not build (its error above)")
        return None
    return work


def run_rounds(args, work, mode, env) -> list[dict]:
    child = os.path.join(work, "child.py")
    with open(child, "w") as f:
        f.write(CHILD % {})
    got = []
    for _ in range(args.rounds):
        r = subprocess.run([sys.executable, child, work, mode, str(args.calls), str(args.repeat), str(args.turns)],
                           env=env, cwd=work, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"{mode}: {bench_alias.last_line(r)}")
        got.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return got


def table(runs: dict[str, list[dict]]) -> None:
    cols = list(runs)
    w = max(len(d) for _, d in ROWS)
    print("  " + "function".ljust(w) + "".join(f"  {c:>22s}" for c in cols))
    for key, what in ROWS:
        if not any(key in r for got in runs.values() for r in got):
            continue
        cells = []
        for c in cols:
            v = [r[key] for r in runs[c] if key in r]
            cells.append(f"{min(v):8.1f} ({statistics.median(v):8.1f})" if v else "n/a")
        print("  " + what.ljust(w) + "".join(f"  {x:>22s}" for x in cells))
    print("  ns a call: best process (median of the processes); threads: "
          + ", ".join(f"{c} {runs[c][0]['threads']}" for c in cols))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="processes (per kind with --threads)")
    ap.add_argument("--calls", type=int, default=100_000, help="calls per timeit repeat")
    ap.add_argument("--repeat", type=int, default=3, help="timeit repeats per turn")
    ap.add_argument("--turns", type=int, default=9, help="turns over all functions per process")
    ap.add_argument("--cpu", type=int, default=None, help="pin every process to this CPU (default: the last "
                    "one this process may use; -1: no pinning)")
    ap.add_argument("--threads", action="store_true", help="stand-in HIP library, one thread against two; no GPU")
    args = ap.parse_args()
    envs = bench_alias.environments()
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="bench-alias-anatomy-") as work:
        why = bench_alias.probe(envs, work)
        if "alias" in why or (not args.threads and "nvidia" in why):
            print(f"skipped: {why.get('alias') or why['nvidia']}")
            return 77
        env = dict(envs["alias"], **({"BENCH_ALIAS_CPU": str(cpu)} if cpu >= 0 else {}))
        if args.threads:
            cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
            if cc is None:
                print("skipped: no C compiler (gcc) for the stand-in library")
                return 77
            lib = os.path.join(work, "libhip-stand-in.so")
            with open(lib + ".c", "w") as f:
                f.write(bench_alias.STAND_IN_HIP)
            subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib, lib + ".c"], check=True)
            env.update(HIP_PLATFORM="amd", HIP_PYTHON_HIP_LIBRARY=lib)
        else:
            env["HIP_PLATFORM"] = "nvidia"
            r = subprocess.run([sys.executable, "-c", "from hip import hip; e, n = hip.hipGetDeviceCount(); "
                                "print(int(e), n)"], env=env, capture_output=True, text=True, timeout=300)
            if r.returncode != 0 or r.stdout.split()[:1] != ["0"] or r.stdout.split()[1] == "0":
                print(f"skipped: no GPU ({bench_alias.last_line(r)})")
                return 77
        if build_probe(work) is None:
            return 77
        print(f"machine  {_util.machine()}")
        print(f"({'stand-in HIP library, no CUDA' if args.threads else 'NVIDIA platform, both bindings in each process'}; "
              f"{args.rounds} processes{f' per kind' if args.threads else ''}, {args.turns} turns, best of "
              f"{args.repeat} x {args.calls} calls" + (f", all on CPU {cpu})" if cpu >= 0 else ")"))
        try:
            if args.threads:
                runs = {"one thread": run_rounds(args, work, "one-thread", env),
                        "two threads": run_rounds(args, work, "two-threads", env)}
            else:
                runs = {"one process": run_rounds(args, work, "real", env)}
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print(f"failed: {e}")
            return 1
    table(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
