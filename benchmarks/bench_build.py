#!/usr/bin/env python3
"""Generation time, clean build time and module sizes for hip + hiprtc.

    python3 benchmarks/bench_build.py [--include DIR] [--libs hip,hiprtc] [-j 2] [--ref REV] [--keep]

Copies the repository's hand-written sources (codegen/, the non-generated
files of hip/, setup.py, pyproject.toml) into a temporary folder (from the
working tree, or from the git revision --ref), then

  1. generates:  python3 -m codegen --include DIR --libs LIBS   (3 runs: best
     time; the outputs' hashes must not change between runs)
  2. builds:     HIP_PYTHON_INCLUDE=DIR HIP_PYTHON_LIBS=LIBS
                 python3 setup.py build_ext --inplace -j 2        (one clean run)
  3. measures every compiled module, as built and stripped (`strip` on a copy),
     and the generated .pyx / Cython-written .c sizes.

The figures for AMD's HIP Python printed at the end are reference numbers from
shared/reference.md (not measured by this script), plus the sizes (as
installed, and stripped) of the modules in build/bench-venv if bench_call.py /
bench_import.py installed the published package there. Takes 3-4 minutes on 2 cores.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _util  # noqa: E402

REPO = _util.REPO
MB = 1e6

# AMD's HIP Python, from shared/reference.md (stated, not measured here).
REFERENCE = [
    ("published wheel rocm-bindings-hip 10.0 (PyPI): hip.so", "12.3 MB"),
    ("published wheels: hipblas.so / hipsparse.so / hipsolver.so", "11.1 / 6.1 / 4.6 MB"),
    ("ROCm 6.2 sources built here (6.4 headers, Cython 3.0.12): hip + hiprtc + hipblas, -j 2", "17 min 45 s, peak 5.9 GB"),
    ("  Cython output hip.c / hipblas.c", "44 MB / 137 MB"),
    ("  unstripped hip.so / hipblas.so", "48 MB / 77 MB"),
]


def hand_written() -> list[str]:
    """Repository files to copy: tracked or untracked-but-not-ignored (generated files are ignored)."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                              "codegen", "hip", "setup.py", "pyproject.toml"],
                             cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
        files = [f for f in out if os.path.isfile(os.path.join(REPO, f))]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = ["setup.py", "pyproject.toml"]
    files += [os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "codegen", "**", "*"), recursive=True)
              if os.path.isfile(p) and "__pycache__" not in p]
    files += [os.path.relpath(p, REPO) for pat in ("*.py", "_*.pyx", "_*.pxd", "py.typed")
              for p in glob.glob(os.path.join(REPO, "hip", pat))]
    return files


def digest(folder: str) -> str:
    h = hashlib.sha256()
    for p in sorted(glob.glob(os.path.join(folder, "hip", "**", "*"), recursive=True)):
        if os.path.isfile(p) and p.endswith((".pyx", ".pxd", ".pyi", ".json")):
            h.update(p.encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def tool_version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--include", default=os.path.join(REPO, "build", "rocm-sid", "usr", "include"),
                    help="ROCm include directory (default: build/rocm-sid/usr/include)")
    ap.add_argument("--libs", default="hip,hiprtc")
    ap.add_argument("-j", type=int, default=2, help="parallel compile jobs for build_ext")
    ap.add_argument("--ref", default="", help="take the sources from this git revision, not the working tree")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary tree (bench_call.py / bench_import.py --tree can use it)")
    a = ap.parse_args()
    inc = os.path.abspath(a.include)
    if not os.path.isfile(os.path.join(inc, "hip", "hip_runtime_api.h")):
        print(f"no ROCm headers in {inc} (run ./build_pkgs.sh once, or pass --include)")
        return 1
    sys.path.insert(0, REPO)
    from codegen.generate import header_version

    import Cython
    print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine  {_util.machine()}")
    print(f"tools    Cython {Cython.__version__}; {tool_version(['cc', '--version'])}")
    print(f"headers  ROCm {header_version(inc)} in {inc}")
    tmp = tempfile.mkdtemp(prefix="hip-bench-build-")
    try:
        if a.ref:
            rev = subprocess.run(["git", "rev-parse", "--short", a.ref], cwd=REPO, capture_output=True,
                                 text=True, check=True).stdout.strip()
            archive = subprocess.run(["git", "archive", rev, "codegen", "hip", "setup.py", "pyproject.toml"],
                                     cwd=REPO, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            origin = f"git revision {rev}"
        else:
            for rel in hand_written():
                dst = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(os.path.join(REPO, rel), dst)
            rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                 text=True).stdout.strip() or "?"
            dirty = subprocess.run(["git", "status", "--porcelain", "codegen", "hip", "setup.py"], cwd=REPO,
                                   capture_output=True, text=True).stdout.strip()
            origin = f"working tree at {rev}" + (" with uncommitted changes" if dirty else "")
        print(f"tree     {tmp} (hand-written sources only, from the {origin})")
        print()

        gen = [sys.executable, "-m", "codegen", "--include", inc, "--libs", a.libs]
        times, digests = [], []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(gen, cwd=tmp, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
            digests.append(digest(tmp))
        same = len(set(digests)) == 1
        print(f"generate  {' '.join(['python3'] + gen[1:])}")
        print(f"          best {min(times):.2f} s of 3 runs ({', '.join(f'{t:.2f}' for t in times)}); "
              f"outputs identical across runs: {'yes' if same else 'NO'}")

        env = dict(os.environ, HIP_PYTHON_INCLUDE=inc, HIP_PYTHON_LIBS=a.libs)
        build = [sys.executable, "setup.py", "build_ext", "--inplace", "-j", str(a.j)]
        t = time.perf_counter()
        r = subprocess.run(build, cwd=tmp, env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            print(r.stdout[-3000:], r.stderr[-3000:])
            print("build failed")
            return 1
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"build     HIP_PYTHON_INCLUDE=... HIP_PYTHON_LIBS={a.libs} python3 setup.py build_ext --inplace -j {a.j}")
        print(f"          {dt:.1f} s wall ({int(dt // 60)} min {dt % 60:.0f} s) from a clean tree; "
              f"largest single process {peak:.0f} MB RSS")
        gen_total = min(times) + dt
        print(f"          generate + build: {gen_total:.1f} s")
        print()

        print(f"  {'module':48s} {'built':>9s} {'stripped':>9s}   {'.pyx':>8s} {'.c':>8s}")
        tot_b = tot_s = 0
        for so in sorted(glob.glob(os.path.join(tmp, "hip", "*.so"))):
            name = os.path.basename(so)
            stem = name.split(".")[0]
            cp = os.path.join(tmp, "stripped-" + name)
            shutil.copy2(so, cp)
            subprocess.run(["strip", cp], check=True)
            b, s = os.path.getsize(so), os.path.getsize(cp)
            tot_b, tot_s = tot_b + b, tot_s + s
            pyx = os.path.join(tmp, "hip", stem + ".pyx")
            c = os.path.join(tmp, "hip", stem + ".c")
            pyx_s = f"{os.path.getsize(pyx) / MB:.2f} MB" if os.path.exists(pyx) else "-"
            c_s = f"{os.path.getsize(c) / MB:.1f} MB" if os.path.exists(c) else "-"
            print(f"  {name:48s} {b / MB:6.2f} MB {s / MB:6.2f} MB   {pyx_s:>8s} {c_s:>8s}")
        print(f"  {'total':48s} {tot_b / MB:6.2f} MB {tot_s / MB:6.2f} MB")
        print()

        print("AMD's HIP Python, reference numbers (shared/reference.md, not measured by this script):")
        for what, fig in REFERENCE:
            print(f"  {what:88s} {fig}")
        peer_py, note = _util.side_python(create=False)
        if peer_py:
            sos = sorted(glob.glob(os.path.join(_util.SIDE_VENV, "lib", "python*", "site-packages", "rocm",
                                                "bindings", "*.so")))
            if sos:
                print(f"measured here: the installed modules of {note}")
                print(f"  {'module':48s} {'built':>9s} {'stripped':>9s}")
                pb = ps = 0
                for so in sos:
                    cp = os.path.join(tmp, "peer-stripped-" + os.path.basename(so))
                    shutil.copy2(so, cp)
                    subprocess.run(["strip", cp], check=True)
                    b, s_ = os.path.getsize(so), os.path.getsize(cp)
                    pb, ps = pb + b, ps + s_
                    print(f"  {os.path.basename(so):48s} {b / MB:6.2f} MB {s_ / MB:6.2f} MB")
                print(f"  {'total':48s} {pb / MB:6.2f} MB {ps / MB:6.2f} MB")
        return 0
    finally:
        if a.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
