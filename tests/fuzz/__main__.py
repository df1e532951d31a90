"""python -m tests.fuzz [--full | --subset N] [--seed S] [--libs hip,hiprtc] [--workers N] [--json FILE]

Fuzzes every public function of the libraries with bad arguments (tests/fuzz/cases.py) in
worker processes, and prints the counts: crashes, hangs, writes past a buffer and bad input the
Python layer let through, by library and fault class. Exit status 1 when there is a finding
(crashes, hangs and writes through an arbitrary int address excepted: ints are addresses by
contract). The libraries whose runtime does not load here (hipBLAS, hipFFT, hipSOLVER, RCCL)
run with their library path pointing nowhere: bad input must be refused before the
missing-library error. Needs the built package and HIP_PYTHON_INCLUDE (the headers it was
generated from); run with LD_LIBRARY_PATH at the ROCm runtime.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from codegen import generate

from . import runner, signatures

ALLOWED = ("crash(int address)", "hang(int address)", "write past buffer(int address)",
           "write to read-only(int address)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--full", action="store_true", help="every candidate call (default)")
    g.add_argument("--subset", type=int, help="a seeded sample of N bad calls per function")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--libs", default="", help="comma list (default: every library that has a spec)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds one call may take (a hang)")
    ap.add_argument("--package-root", default=runner.ROOT, help="where the built `hip` package is imported from")
    ap.add_argument("--no-confirm", action="store_true", help="do not rerun crashing calls alone")
    ap.add_argument("--json", default="", help="write the whole report (with every finding) here")
    a = ap.parse_args(argv)
    include = signatures.include_dir()
    if include is None:
        print("tests.fuzz: set HIP_PYTHON_INCLUDE to the headers the package was built from", file=sys.stderr)
        return 2
    libs = [l for l in a.libs.split(",") if l] or generate.available(include)[0]
    table = signatures.load(include, libs)
    missing = [l for l in libs if l in signatures.MISSING]
    report = runner.run(table, libs, subset=a.subset, seed=a.seed, workers=a.workers, timeout=a.timeout,
                        package_root=os.path.abspath(a.package_root), confirm=not a.no_confirm, missing=missing)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    print(f"{report['calls']} calls in {report['seconds']} s; functions with crashes or hangs: "
          f"{report['crashed_functions']}")
    for mod, counts in report["by_module"].items():
        print(f"  {mod}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    bad = [f for f in report["findings"] if f["kind"] not in ALLOWED]
    for f in bad[:40]:
        print(f"  {f['kind']}: {f['module']}.{f['fn']}({', '.join(f['args'])}) [{f['label']}] {f['outcome']}")
    if len(bad) > 40:
        print(f"  ... {len(bad) - 40} more")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
