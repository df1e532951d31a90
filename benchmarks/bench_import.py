#!/usr/bin/env python3
"""Import time: `from hip import hip` (this project) vs AMD's published bindings.

    python3 benchmarks/bench_import.py [-n 20] [--no-peer]

Each sample is a fresh interpreter that times only the import statement
(time.perf_counter around it; interpreter start-up and `site` are excluded,
they are the same for everyone). The statements are sampled interleaved, `n`
times each, after one unmeasured run each that writes the .pyc caches; the
minimum and the median are reported. AMD's package
(`rocm-bindings-hip`, `from rocm.bindings import hip`) runs in the side venv
build/bench-venv, created and filled on first use; ours is timed under that
venv's interpreter too (same binary, same clean `site`), and under the
interpreter running this script. No shared library is loaded by either import
(both load lazily on the first call). Target: <= 15 ms.
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _util  # noqa: E402

CHILD = """
import json, sys, time
before = set(sys.modules)
t = time.perf_counter()
{stmt}
dt = time.perf_counter() - t
new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] not in ("hip", "rocm"))
print(json.dumps({{"ms": dt * 1e3, "modules": len(sys.modules), "other": new}}))
"""


def sample_all(rows, n):
    """Time every row n times, interleaved (row 1, row 2, ..., row 1, ...), so that load changes on
    the machine hit every row alike; one unmeasured run per row first writes the .pyc caches."""
    codes = [CHILD.format(stmt=stmt) for _, stmt, _, _, _ in rows]
    for (_, _, cmd, env, cwd), code in zip(rows, codes):
        _util.run_json(cmd, code, env=env, cwd=cwd)
    runs = [[] for _ in rows]
    for _ in range(n):
        for i, ((_, _, cmd, env, cwd), code) in enumerate(zip(rows, codes)):
            runs[i].append(_util.run_json(cmd, code, env=env, cwd=cwd))
    out = []
    for r in runs:
        ms = [x["ms"] for x in r]
        out.append((min(ms), statistics.median(ms), r[0]["modules"], r[0]["other"]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=20, help="fresh interpreters per statement (min kept)")
    ap.add_argument("--no-peer", action="store_true", help="skip AMD's package (no side venv)")
    ap.add_argument("--tree", default=_util.REPO,
                    help="directory whose built `hip` package is timed (default: this repository; "
                         "bench_build.py --keep leaves one)")
    ap.add_argument("--python", default=sys.executable, help="interpreter that imports ours")
    a = ap.parse_args()

    peer_py, peer_note = (None, "skipped (--no-peer)") if a.no_peer else _util.side_python(create=True)
    penv = _util.peer_env() if peer_py else None
    print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine  {_util.machine()}")
    print(f"ours     {_util.describe_tree(a.tree)}")
    print(f"peer     {peer_note}")
    print(f"timing   min (and median) of {a.n} fresh interpreters per statement, interleaved; "
          "import statement only")
    print()
    # Ours runs from the repository (in-place build). With the side venv present, ours also runs
    # under its interpreter: the same clean `site` as AMD's package (the base interpreter's site may
    # import modules, such as threading, that ours would otherwise pay for).
    ours_py = [("this python", [a.python], None)]
    if peer_py:
        clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        ours_py.insert(0, ("bench-venv", [peer_py], clean))
    rows = []
    for label, cmd, env in ours_py:
        rows += [(f"ours, {label}", stmt, cmd, env, a.tree)
                 for stmt in ("from hip import hip", "from hip import hip, hiprtc", "import hip")]
    if peer_py:
        rows += [("amd, bench-venv", stmt, [peer_py], penv, "/")
                 for stmt in ("from rocm.bindings import hip", "from rocm.bindings import hip, hiprtc")]
    results = {}
    for (who, stmt, cmd, env, cwd), (best, med, nmods, other) in zip(rows, sample_all(rows, a.n)):
        results[(who, stmt)] = best
        print(f"  {who:17s} {stmt:39s} {best:6.1f} ms  (median {med:5.1f}; {nmods} modules in sys.modules)")
        if other:
            print(f"  {'':17s}   also imported: {' '.join(other)}")
    print()
    first = ours_py[0][0]
    ours = results[(f"ours, {first}", "from hip import hip")]
    print(f"target `from hip import hip` <= 15 ms ({first}): {ours:.1f} ms, {'met' if ours <= 15 else 'NOT met'}")
    if peer_py:
        amd = results[("amd, bench-venv", "from rocm.bindings import hip")]
        print(f"ours / amd (same interpreter and site) = {ours / amd:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
