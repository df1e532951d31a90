#!/usr/bin/env python3
"""hip.tensor against PyTorch and CuPy, measured in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor.py [--log2n 28] [--reps 20]

  (a) float32 add, 2^28 elements: time, GB/s (3 arrays moved) and % of the card's peak bandwidth
      (memory clock x bus width, read from hip.hip device attributes); target >= 0.95x PyTorch
      and >= 85% of peak.
  (b) float32 sum of 2^28 elements (1 array read): GB/s, % of peak.
  (c) strided and broadcast adds on 2^14 x 2^14: x.T + y, and x + row.
  (d) reductions along the inner and the outer axis of 2^14 x 2^14.
  (e) the fused chain (x * y + x) * y - x over 2^28 float32: ht.fuse (one kernel, 3 arrays moved)
      vs PyTorch eager (four kernels, 12 arrays) vs cupy.fuse; target >= 2x PyTorch eager and
      >= 80% of peak (for the 3 arrays).
  (f) Python overhead of one small op, x + y on 1000 float32 elements: us per op in a loop of
      launches (then one synchronize), best of rounds; target <= CuPy's.

GPU times are ht.Event pairs on the null stream around each call (PyTorch and CuPy launch on the
null stream too), warm-up first, best of --reps. A peer that cannot be imported is skipped with a
message. Prints the machine, the library versions and a summary table of the targets (met / NOT
met). Nothing asserts a timing; exits 77 without a GPU, 1 if a part failed, else 0.
HIP_PLATFORM defaults to nvidia here.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(HERE))
import _util  # noqa: E402  (benchmarks/_util.py: machine())

GB = 1e9


Skip = _util.Skip


# -- peers ------------------------------------------------------------------------------------------
def load_peers() -> dict:
    peers = {}
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        peers["torch"] = torch
    except ImportError as e:
        print(f"PyTorch: skipped ({e})")
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        peers["cupy"] = cupy
    except Exception as e:           # ImportError, or CuPy without a usable CUDA
        print(f"CuPy:    skipped ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
    return peers


def free_all(peers) -> None:
    import hip.tensor as ht
    ht.synchronize()
    ht.empty_cache()
    if "torch" in peers:
        peers["torch"].cuda.synchronize()
        peers["torch"].cuda.empty_cache()
    if "cupy" in peers:
        peers["cupy"].cuda.Device().synchronize()
        peers["cupy"].get_default_memory_pool().free_all_blocks()


# -- timing -------------------------------------------------------------------------------------------
def gpu_ms(fn, reps: int, warmup: int = 3, calls: int = 1) -> float:
    """Best of `reps` ht.Event-timed runs of `calls` back-to-back calls of fn (ms per call), after
    `warmup` calls. One call also holds the host's time before its launch (the GPU is idle);
    many calls give the kernel's time where the host queues faster than the GPU runs."""
    import hip.tensor as ht
    for _ in range(warmup):
        fn()
    ht.synchronize()
    start, end = ht.Event(), ht.Event()
    best = float("inf")
    for _ in range(reps):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / calls)
    return best


def peak_bandwidth() -> tuple[float | None, str]:
    """Peak DRAM bandwidth (bytes/s) of device 0: 2 (double data rate) x memory clock x bus width."""
    import hip
    from hip import hip as h
    try:
        khz = hip.check(h.hipDeviceGetAttribute(h.hipDeviceAttribute_t.hipDeviceAttributeMemoryClockRate, 0))
        bits = hip.check(h.hipDeviceGetAttribute(h.hipDeviceAttribute_t.hipDeviceAttributeMemoryBusWidth, 0))
    except Exception as e:          # an attribute the platform does not report
        return None, f"unknown ({type(e).__name__}: {e})"
    if not khz or not bits:
        return None, f"unknown (memory clock {khz} kHz, bus {bits} bits)"
    peak = 2 * khz * 1e3 * bits / 8
    return peak, f"{peak / GB:.0f} GB/s (memory clock {khz / 1e3:.0f} MHz x {bits}-bit bus x 2)"


def row(label, ms, nbytes, peak, base_ms=None):
    gbs = nbytes / (ms * 1e-3) / GB
    pct = f"{100 * nbytes / (ms * 1e-3) / peak:5.1f}% of peak" if peak else "  n/a of peak"
    ratio = f"  (hip.tensor {ms / base_ms:.2f}x as fast)" if base_ms and label != "hip.tensor" else ""
    print(f"  {label:<24} {ms * 1e3:10.1f} us  {gbs:8.1f} GB/s  {pct}{ratio}")
    return {"ms": ms, "gbs": gbs, "pct": (100 * nbytes / (ms * 1e-3) / peak) if peak else None}


# -- parts ---------------------------------------------------------------------------------------------------
def part_add(args, peers, peak):
    import hip.tensor as ht
    n = 1 << args.log2n
    out = {}
    x, y = ht.full(n, 1.5, dtype=ht.float32), ht.full(n, 2.0, dtype=ht.float32)
    out["hip.tensor"] = row("hip.tensor", gpu_ms(lambda: x + y, args.reps), 3 * 4 * n, peak)
    del x, y
    free_all(peers)
    if "torch" in peers:
        torch = peers["torch"]
        a, b = torch.full((n,), 1.5, device="cuda"), torch.full((n,), 2.0, device="cuda")
        out["torch"] = row("PyTorch", gpu_ms(lambda: a + b, args.reps), 3 * 4 * n, peak, out["hip.tensor"]["ms"])
        del a, b
    if "cupy" in peers:
        cp = peers["cupy"]
        a, b = cp.full(n, 1.5, dtype=cp.float32), cp.full(n, 2.0, dtype=cp.float32)
        out["cupy"] = row("CuPy", gpu_ms(lambda: a + b, args.reps), 3 * 4 * n, peak, out["hip.tensor"]["ms"])
        del a, b
    free_all(peers)
    return out


def part_sum(args, peers, peak):
    import hip.tensor as ht
    n = 1 << args.log2n
    out = {}
    x = ht.ones(n, dtype=ht.float32)
    out["hip.tensor"] = row("hip.tensor", gpu_ms(lambda: ht.sum(x), args.reps), 4 * n, peak)
    del x
    free_all(peers)
    if "torch" in peers:
        torch = peers["torch"]
        a = torch.ones(n, device="cuda")
        out["torch"] = row("PyTorch", gpu_ms(lambda: torch.sum(a), args.reps), 4 * n, peak, out["hip.tensor"]["ms"])
        del a
    if "cupy" in peers:
        cp = peers["cupy"]
        a = cp.ones(n, dtype=cp.float32)
        out["cupy"] = row("CuPy", gpu_ms(lambda: cp.sum(a), args.reps), 4 * n, peak, out["hip.tensor"]["ms"])
        del a
    free_all(peers)
    return out


def part_layouts(args, peers, peak):
    import hip.tensor as ht
    m = 1 << (args.log2n // 2)
    n = m * m
    out = {}
    cases = (("x.T + y (strided)", lambda x, y, r: x.T + y, 3 * 4 * n),
             ("x + row (broadcast)", lambda x, y, r: x + r, 2 * 4 * n))
    contenders = [("hip.tensor", lambda: (ht.full((m, m), 1.5, dtype=ht.float32), ht.full((m, m), 2.0, dtype=ht.float32),
                                          ht.full((1, m), 0.5, dtype=ht.float32)))]
    if "torch" in peers:
        torch = peers["torch"]
        contenders.append(("PyTorch", lambda: (torch.full((m, m), 1.5, device="cuda"), torch.full((m, m), 2.0, device="cuda"),
                                               torch.full((1, m), 0.5, device="cuda"))))
    if "cupy" in peers:
        cp = peers["cupy"]
        contenders.append(("CuPy", lambda: (cp.full((m, m), 1.5, dtype=cp.float32), cp.full((m, m), 2.0, dtype=cp.float32),
                                            cp.full((1, m), 0.5, dtype=cp.float32))))
    for label, fn, nbytes in cases:
        print(f" {label}, {m} x {m} float32")
        base = None
        for name, make in contenders:
            x, y, r = make()
            res = row(name, gpu_ms(lambda: fn(x, y, r), args.reps), nbytes, peak, base)
            base = base or res["ms"]
            out[(label, name)] = res
            del x, y, r
            free_all(peers)
    return out


def part_reductions(args, peers, peak):
    import hip.tensor as ht
    m = 1 << (args.log2n // 2)
    n = m * m
    out = {}
    for axis, label in ((1, "inner axis (sum(axis=1))"), (0, "outer axis (sum(axis=0))")):
        print(f" {label}, {m} x {m} float32")
        x = ht.ones((m, m), dtype=ht.float32)
        base = row("hip.tensor", gpu_ms(lambda: ht.sum(x, axis=axis), args.reps), 4 * n, peak)["ms"]
        out[(axis, "hip.tensor")] = base
        del x
        free_all(peers)
        if "torch" in peers:
            torch = peers["torch"]
            a = torch.ones((m, m), device="cuda")
            out[(axis, "torch")] = row("PyTorch", gpu_ms(lambda: torch.sum(a, dim=axis), args.reps), 4 * n, peak, base)
            del a
        if "cupy" in peers:
            cp = peers["cupy"]
            a = cp.ones((m, m), dtype=cp.float32)
            out[(axis, "cupy")] = row("CuPy", gpu_ms(lambda: cp.sum(a, axis=axis), args.reps), 4 * n, peak, base)
            del a
        free_all(peers)
    return out


def _chain(x, y):
    return (x * y + x) * y - x


def part_fused(args, peers, peak):
    import hip.tensor as ht
    n = 1 << args.log2n
    fused_bytes, eager_bytes = 3 * 4 * n, 12 * 4 * n
    print(f" (x * y + x) * y - x over 2^{args.log2n} float32; GB/s counted for the 3 arrays a fused kernel moves "
          f"(eager moves {eager_bytes // fused_bytes}x that)")
    out = {}
    x, y = ht.full(n, 0.75, dtype=ht.float32), ht.full(n, 1.25, dtype=ht.float32)
    f = ht.fuse(_chain)
    same = bool(ht.all(f(x, y) == _chain(x, y)))
    out["hip.tensor fuse"] = row("hip.tensor fuse", gpu_ms(lambda: f(x, y), args.reps), fused_bytes, peak)
    base = out["hip.tensor fuse"]["ms"]
    out["hip.tensor eager"] = row("hip.tensor eager", gpu_ms(lambda: _chain(x, y), args.reps), fused_bytes, peak, base)
    print(f"  fused == eager bit for bit: {same}")
    del x, y
    free_all(peers)
    if "torch" in peers:
        torch = peers["torch"]
        a, b = torch.full((n,), 0.75, device="cuda"), torch.full((n,), 1.25, device="cuda")
        out["torch eager"] = row("PyTorch eager", gpu_ms(lambda: _chain(a, b), args.reps), fused_bytes, peak, base)
        del a, b
        free_all(peers)
    if "cupy" in peers:
        cp = peers["cupy"]
        a, b = cp.full(n, 0.75, dtype=cp.float32), cp.full(n, 1.25, dtype=cp.float32)
        cf = cp.fuse(_chain)
        out["cupy fuse"] = row("cupy.fuse", gpu_ms(lambda: cf(a, b), args.reps), fused_bytes, peak, base)
        del a, b
        free_all(peers)
    return out


def part_small(args, peers, peak):
    import hip.tensor as ht
    out = {}
    x, y = ht.ones(1000, dtype=ht.float32), ht.ones(1000, dtype=ht.float32)
    out["hip.tensor"] = _util.host_us_per_call(lambda: x + y, ht.synchronize, args.small_ops, args.small_rounds)
    print(f"  {'hip.tensor':<24} {out['hip.tensor']:8.2f} us per op")
    if "torch" in peers:
        torch = peers["torch"]
        a, b = torch.ones(1000, device="cuda"), torch.ones(1000, device="cuda")
        out["torch"] = _util.host_us_per_call(lambda: a + b, torch.cuda.synchronize, args.small_ops, args.small_rounds)
        print(f"  {'PyTorch':<24} {out['torch']:8.2f} us per op")
    if "cupy" in peers:
        cp = peers["cupy"]
        a, b = cp.ones(1000, dtype=cp.float32), cp.ones(1000, dtype=cp.float32)
        out["cupy"] = _util.host_us_per_call(lambda: a + b, cp.cuda.Device().synchronize, args.small_ops, args.small_rounds)
        print(f"  {'CuPy':<24} {out['cupy']:8.2f} us per op")
    return out


# -- summary ---------------------------------------------------------------------------------------------------
def verdict(ok) -> str:
    return "n/a" if ok is None else ("met" if ok else "NOT met")


def summary(results) -> list[tuple[str, str, str]]:
    rows = []
    add = results.get("a")
    if add:
        ht_ms = add["hip.tensor"]["ms"]
        t = add.get("torch")
        rows.append(("add 2^28 f32 >= 0.95x PyTorch", f"{t['ms'] / ht_ms:.2f}x" if t else "no PyTorch",
                     verdict(t["ms"] / ht_ms >= 0.95 if t else None)))
        pct = add["hip.tensor"]["pct"]
        rows.append(("add 2^28 f32 >= 85% of peak", f"{pct:.1f}%" if pct is not None else "peak unknown",
                     verdict(pct >= 85 if pct is not None else None)))
    fz = results.get("e")
    if fz:
        ht_ms = fz["hip.tensor fuse"]["ms"]
        t = fz.get("torch eager")
        rows.append(("fused chain >= 2x PyTorch eager", f"{t['ms'] / ht_ms:.2f}x" if t else "no PyTorch",
                     verdict(t["ms"] / ht_ms >= 2 if t else None)))
        pct = fz["hip.tensor fuse"]["pct"]
        rows.append(("fused chain >= 80% of peak", f"{pct:.1f}%" if pct is not None else "peak unknown",
                     verdict(pct >= 80 if pct is not None else None)))
    sm = results.get("f")
    if sm:
        c = sm.get("cupy")
        rows.append(("small-op overhead <= CuPy's", f"{sm['hip.tensor']:.2f} us vs " + (f"{c:.2f} us" if c else "no CuPy"),
                     verdict(sm["hip.tensor"] <= c if c else None)))
    return rows


def open_device():
    """hip.tensor's device 0, after printing the run's header (date, machine, GPU, HIP and
    package versions); None after printing why there is none (the caller exits 77)."""
    import numpy as np
    try:
        import hip
        import hip.tensor as ht
        from hip import hip as h
        available = ht.is_available()
    except Exception as e:      # the runtime (or the HIP-on-CUDA layer) cannot be loaded
        print(f"skipped: the HIP runtime could not be loaded: {str(e).splitlines()[0]}")
        return None
    if not available:
        print("skipped: no GPU")
        return None
    dev = ht.Device(0)
    print(f"date      {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine   {_util.machine()}")
    print(f"GPU       {dev.name}, {dev.gcn_arch_name}, {dev.multiprocessor_count} SMs/CUs, "
          f"{dev.total_memory / 2**30:.1f} GiB; platform {ht.platform()}")
    print(f"HIP       driver {hip.check(h.hipDriverGetVersion())}, runtime {hip.check(h.hipRuntimeGetVersion())}")
    print(f"versions  hip-bindings {getattr(hip, '__version__', '?')}, NumPy {np.__version__}, "
          f"Python {platform.python_version()}")
    return dev


def print_peers(peers: dict) -> None:
    for name, mod in peers.items():
        extra = f" (CUDA {mod.version.cuda})" if name == "torch" else \
            f" (CUDA runtime {mod.cuda.runtime.runtimeGetVersion()})"
        print(f"          {'PyTorch' if name == 'torch' else 'CuPy'} {mod.__version__}{extra}")


run_parts = _util.run_parts
report = _util.report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b,c,d,e,f", help="parts to run (default a,b,c,d,e,f)")
    ap.add_argument("--log2n", type=int, default=28, help="log2 of the element count of (a), (b), (e) (default 28)")
    ap.add_argument("--reps", type=int, default=20, help="timed calls per contender, best taken (default 20)")
    ap.add_argument("--small-ops", type=int, default=20_000, help="(f) ops per round")
    ap.add_argument("--small-rounds", type=int, default=5, help="(f) rounds")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]

    if open_device() is None:
        return 77
    peers = load_peers()
    print_peers(peers)
    peak, peak_text = peak_bandwidth()
    print(f"peak      {peak_text}")
    print()

    table = [("a", f"float32 add, 2^{args.log2n} elements", part_add),
             ("b", f"float32 sum, 2^{args.log2n} elements", part_sum),
             ("c", "strided and broadcast element-wise", part_layouts),
             ("d", "reductions along the inner and the outer axis", part_reductions),
             ("e", "fused four-op chain", part_fused),
             ("f", "Python overhead of one small op (x + y, 1000 float32)", part_small)]
    t0 = time.perf_counter()
    results, errors = run_parts(table, parts, args, peers, peak)

    return report(summary(results), errors, t0)


if __name__ == "__main__":
    sys.exit(main())
