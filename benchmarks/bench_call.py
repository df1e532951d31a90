#!/usr/bin/env python3
"""Per-call cost from Python: this project's bindings vs ctypes vs AMD's published bindings.

    python3 benchmarks/bench_call.py [--number 200000] [--repeat 5] [--rounds 3] [--no-peer]

Each contender runs in its own fresh subprocess with the same timing loop
(`timeit`, `number` calls per repeat, the best of `repeat` repeats, and the
best over `rounds` rounds that alternate the order of the contenders):

  noop    a Python lambda taking one argument: the floor of any Python call
  ours    hip.hip.hipGetErrorName(hipError_t.hipSuccess) from this repository
  ctypes  hipGetErrorName from the HIP runtime through ctypes (restype c_char_p)
  amd     rocm.bindings.hip.hipGetErrorName from PyPI's rocm-bindings-hip,
          run by the side venv build/bench-venv (created and filled on first use;
          it cannot share an interpreter with ours: both are named `hip`)

A second function with two output parameters, hiprtcVersion(), is timed the
same way. (Functions that touch a device, like hipGetDeviceCount, cost ~35 us
inside the runtime on a machine without a GPU, which hides the bindings.)
Prints ns per call and the ratios; the issue's target is ours <= 0.4x AMD's.
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _util  # noqa: E402

CHILD = """
import json, timeit
{setup}
{warm}
t = timeit.Timer({stmt!r}, globals=globals())
best = min(t.repeat(repeat={repeat}, number={number}))
print(json.dumps({{"ns": best / {number} * 1e9, "check": repr({warm})}}))
"""


def cases(runtime: str, rtc: str | None, peer_import: str | None) -> dict[str, dict[str, tuple[str, str, str]]]:
    """function -> contender -> (setup, warm-up expression, timed statement)."""
    ours = "from hip import hip, hiprtc"
    out = {
        "hipGetErrorName(hipSuccess)": {
            "noop": ("f = lambda a: None\na = 0", "f(a)", "f(a)"),
            "ours": (f"{ours}\nf = hip.hipGetErrorName\na = hip.hipError_t.hipSuccess", "f(a)", "f(a)"),
            "ctypes": (f"import ctypes\nlib = ctypes.CDLL({runtime!r})\n"
                       "f = lib.hipGetErrorName\nf.restype = ctypes.c_char_p\na = 0", "f(a)", "f(a)"),
        },
    }
    if rtc:
        out["hiprtcVersion() (two int* outputs)"] = {
            "noop": ("f = lambda: None", "f()", "f()"),
            "ours": (f"{ours}\nf = hiprtc.hiprtcVersion", "f()", "f()"),
            "ctypes": (f"import ctypes\nlib = ctypes.CDLL({rtc!r})\nf = lib.hiprtcVersion\n"
                       "f.restype = ctypes.c_int\nm, n = ctypes.c_int(), ctypes.c_int()\nbyref = ctypes.byref",
                       "(f(byref(m), byref(n)), m.value, n.value)", "(f(byref(m), byref(n)), m.value, n.value)"),
        }
        # A handle argument (checked: a live handle object, not NULL, not destroyed) and a size_t* output.
        prog = "prog = hiprtc.hiprtcCreateProgram(b'int x;', b'p', 0, None, None)[1]"
        out["hiprtcGetCodeSize(prog) (a handle in, a size_t* out)"] = {
            "noop": ("f = lambda a: None\na = 0", "f(a)", "f(a)"),
            "ours": (f"{ours}\nf = hiprtc.hiprtcGetCodeSize\n{prog}", "f(prog)", "f(prog)"),
            "ctypes": (f"import ctypes\nlib = ctypes.CDLL({rtc!r})\nf = lib.hiprtcGetCodeSize\n"
                       "f.restype = ctypes.c_int\nprog, n = ctypes.c_void_p(), ctypes.c_size_t()\n"
                       "byref = ctypes.byref\nlib.hiprtcCreateProgram(byref(prog), b'int x;', b'p', 0, None, None)",
                       "(f(prog, byref(n)), n.value)", "(f(prog, byref(n)), n.value)"),
        }
    if peer_import:
        out["hipGetErrorName(hipSuccess)"]["amd"] = (
            f"{peer_import}\nf = hip.hipGetErrorName\na = hip.hipError_t.hipSuccess", "f(a)", "f(a)")
        if rtc:
            out["hiprtcVersion() (two int* outputs)"]["amd"] = (f"{peer_import}\nf = hiprtc.hiprtcVersion", "f()", "f()")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--number", type=int, default=200_000, help="calls per repeat")
    ap.add_argument("--repeat", type=int, default=5, help="repeats per subprocess (best kept)")
    ap.add_argument("--rounds", type=int, default=3, help="subprocesses per contender (best kept)")
    ap.add_argument("--no-peer", action="store_true", help="skip AMD's package (no side venv)")
    ap.add_argument("--tree", default=_util.REPO,
                    help="directory whose built `hip` package is timed (default: this repository; "
                         "bench_build.py --keep leaves one)")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs ours, ctypes and noop")
    a = ap.parse_args()

    runtime = _util.hip_runtime_path()
    if runtime is None:
        print("no HIP runtime (libamdhip64.so*) found: nothing to measure")
        return 1
    peer_py, peer_note, peer_imp, penv = None, "skipped (--no-peer)", None, None
    if not a.no_peer:
        peer_py, peer_note = _util.side_python(create=True)
        if peer_py:
            penv = _util.peer_env()
            peer_imp = _util.peer_import(peer_py, penv)
            if peer_imp is None:
                peer_note += ": neither rocm.bindings.hip nor hip.hip imports"
                peer_py = None

    print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine  {_util.machine()}")
    print(f"ours     {_util.describe_tree(a.tree)}")
    print(f"runtime  {_util.runtime_version()}")
    print(f"peer     {peer_note}" + (f" ({peer_imp})" if peer_imp else ""))
    print(f"timing   timeit, {a.number} calls x best of {a.repeat} repeats x best of {a.rounds} "
          "fresh subprocesses per contender")
    print()
    table = cases(runtime, _util.hiprtc_path(), peer_imp if peer_py else None)
    results: dict[str, dict[str, float]] = {}
    for fn, contenders in table.items():
        best: dict[str, float] = {}
        checks: dict[str, str] = {}
        names = list(contenders)
        for rnd in range(a.rounds):
            order = names if rnd % 2 == 0 else names[::-1]
            for who in order:
                setup, warm, stmt = contenders[who]
                code = CHILD.format(setup=setup, warm=warm, stmt=stmt, repeat=a.repeat, number=a.number)
                if who == "amd":
                    r = _util.run_json([peer_py], code, env=penv, cwd="/")
                else:
                    r = _util.run_json([a.python], code, cwd=a.tree)
                best[who] = min(best.get(who, float("inf")), r["ns"])
                checks[who] = r["check"]
        results[fn] = best
        print(f"{fn}")
        for who in names:
            print(f"  {who:7s} {best[who]:8.1f} ns/call   returns {checks[who]}")
        ours = best["ours"]
        line = f"  ours/ctypes = {ours / best['ctypes']:.2f}"
        if "amd" in best:
            line += f"   ours/amd = {ours / best['amd']:.2f}"
        line += f"   ours - noop = {ours - best['noop']:.1f} ns"
        print(line)
        print()
    main_fn = "hipGetErrorName(hipSuccess)"
    if "amd" in results[main_fn]:
        ratio = results[main_fn]["ours"] / results[main_fn]["amd"]
        verdict = "met" if ratio <= 0.4 else "NOT met"
        print(f"target ours <= 0.4x AMD's for {main_fn}: {ratio:.2f}x, {verdict}")
    else:
        print(f"AMD's package not measured ({peer_note}); ours vs ctypes only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
