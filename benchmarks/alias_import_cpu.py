#!/usr/bin/env python3
"""`import cuda.bindings.driver` on the CPU: the alias (`python -m hip_as_cuda`) vs NVIDIA's cuda-bindings.

    python3 benchmarks/alias_import_cpu.py [-n 20] [--nvidia-python PY] [--module driver]

No GPU needed: neither import touches a device. Each sample is a fresh interpreter timing the
import statement alone in CPU time (time.process_time, so other jobs on a loaded machine do not
count), the contenders interleaved; min and median of n. Two rows: the statement as a program
runs it, and the same with the standard-library modules either binding pulls in (typing, ctypes,
enum, re, ...) imported first, so that only the bindings' own modules count: NVIDIA's import here
spends ~40% in `typing`, which a Python 3.12 environment with more on its path may have imported
already (the H100 figure, 16.2 ms, is about half of this machine's). NVIDIA's package comes from
the side venv build/cuda-bindings-oracle/venv-13.0.3-cp311 (same Python version as ours) unless
--nvidia-python names another interpreter. Target: alias <= 0.5x NVIDIA's.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _util  # noqa: E402

ORACLE = os.path.join(_util.REPO, "build", "cuda-bindings-oracle", "venv-13.0.3-cp311", "bin", "python")
STDLIB = "typing, ctypes, enum, re, threading, collections, functools, contextlib, weakref, dataclasses"
PROBE = "{pre}import time\nt = time.process_time()\nimport cuda.bindings.{m}\nprint(time.process_time() - t)\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=20, help="fresh interpreters per contender and row")
    ap.add_argument("--nvidia-python", default=ORACLE, help="an interpreter with NVIDIA's cuda-bindings")
    ap.add_argument("--module", default="driver", choices=("driver", "runtime", "nvrtc"))
    a = ap.parse_args()
    if not os.path.exists(a.nvidia_python):
        print(f"skipped: no NVIDIA cuda-bindings interpreter at {a.nvidia_python}")
        return 77
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ours_env = dict(base, PYTHONPATH=_util.REPO)
    cmds = {"alias": ([sys.executable, "-m", "hip_as_cuda"], ours_env),
            "nvidia": ([a.nvidia_python, "-I"], base)}   # -I: our repository must not shadow theirs
    print(f"machine  {_util.machine()}")
    print(f"python   ours {sys.executable}, NVIDIA's {a.nvidia_python}")
    print(f"timing   CPU time of `import cuda.bindings.{a.module}`, min (median) of {a.n} fresh interpreters")
    out = {}
    for row, pre in (("as a program runs it", ""), ("stdlib imported first", f"import {STDLIB}\n")):
        path = os.path.join(_util.REPO, "build", f"alias_import_probe_{len(pre)}.py")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(PROBE.format(pre=pre, m=a.module))
        ms = {who: [] for who in cmds}
        for i in range(a.n + 1):   # the first round writes .pyc caches: not counted
            for who, (cmd, env) in (cmds.items() if i % 2 else reversed(cmds.items())):
                r = subprocess.run([*cmd, path], capture_output=True, text=True, env=env, cwd=os.path.dirname(path))
                if r.returncode != 0:
                    print(f"{who}: import failed: {(r.stderr or r.stdout).strip().splitlines()[-1:]}")
                    return 1
                if i:
                    ms[who].append(float(r.stdout.split()[-1]) * 1e3)
        out[row] = ms
        al, nv = ms["alias"], ms["nvidia"]
        print(f"  {row:22s} alias {min(al):6.2f} ms ({statistics.median(al):6.2f})   NVIDIA's {min(nv):6.2f} ms "
              f"({statistics.median(nv):6.2f})   alias/NVIDIA {min(al) / min(nv):.2f}x min, "
              f"{statistics.median(al) / statistics.median(nv):.2f}x median   (target <= 0.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
