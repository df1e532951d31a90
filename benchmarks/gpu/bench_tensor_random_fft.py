#!/usr/bin/env python3
"""hip.tensor.random and hip.tensor.fft against PyTorch and CuPy, measured in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor_random_fft.py [--n 67108864] [--reps 10]

  (a) uniform float32, --n values      (b) standard normal float32, --n values
  (c) integers in [0, 1000) as int64, --n / 4 values      (d) permutation of --n / 16
  (e) fft complex64, 1024 rows of 4096 (batched along the last axis)
  (f) rfft float32, 1024 rows of 4096       (g) fft2 complex64, 4096 x 4096
  (h) fft complex64 along axis 0 of 4096 x 1024 (strided in place: hipFFT's advanced layout)
  (i) fft complex64 of 2^24 points (one 1-d transform: the issue's case)
  (j), (k) as (a), (b) with hipRAND's XORWOW (method="xorwow", the default before Philox): hip.tensor only

The generators differ (hipRAND's Philox4x32-10 here, PyTorch's own Philox kernels, CuPy's default
XORWOW): the random parts compare throughput of comparable work, not the same numbers. GPU times
are ht.Event pairs on the null stream around each call, warm-up first, best of --reps.
Nothing asserts a timing; exits 77 without a GPU, 1 if a part failed, else 0.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_tensor as bt  # noqa: E402  (peers, gpu_ms, free_all, the machine header)

Skip = bt.Skip


def contenders(args, peers, make):
    """Best-of-reps GPU time of each contender's call; `make(lib)` returns (fn, keep-alive)."""
    out = {}
    for name, label in (("ht", "hip.tensor"), ("torch", "PyTorch"), ("cupy", "CuPy")):
        if name != "ht" and name not in peers:
            continue
        try:
            fn, keep = make(name)
        except Skip as e:
            print(f"  {label:<12} skipped: {e}")
            continue
        ms = bt.gpu_ms(fn, args.reps)
        base = out.get("ht", {}).get("ms")
        ratio = f"  (hip.tensor {ms / base:.2f}x as fast)" if base and name != "ht" else ""
        print(f"  {label:<12} {ms * 1e3:10.1f} us{ratio}")
        out[name] = {"ms": ms}
        del fn, keep
        bt.free_all(peers)
    return out


def part_random(args, peers, what: str, method: str = "philox"):
    import hip.tensor as ht
    n = {"uniform": args.n, "normal": args.n, "integers": args.n // 4, "permutation": args.n // 16}[what]

    def make(lib):
        if lib != "ht" and method != "philox":
            raise Skip(f"hip.tensor's {method} engine against its default: the peers ran in (a)/(b)")
        if lib == "ht":
            g = ht.random.default_rng(1, method=method)
            return {"uniform": lambda: g.random(n, dtype=ht.float32),
                    "normal": lambda: g.standard_normal(n, dtype=ht.float32),
                    "integers": lambda: g.integers(0, 1000, n),
                    "permutation": lambda: g.permutation(n)}[what], g
        if lib == "torch":
            torch = peers["torch"]
            return {"uniform": lambda: torch.rand(n, device="cuda"),
                    "normal": lambda: torch.randn(n, device="cuda"),
                    "integers": lambda: torch.randint(0, 1000, (n,), device="cuda"),
                    "permutation": lambda: torch.randperm(n, device="cuda")}[what], None
        cp = peers["cupy"]
        return {"uniform": lambda: cp.random.random(n, dtype=cp.float32),
                "normal": lambda: cp.random.standard_normal(n, dtype=cp.float32),
                "integers": lambda: cp.random.randint(0, 1000, n, dtype=cp.int64),
                "permutation": lambda: cp.random.permutation(n)}[what], None
    return contenders(args, peers, make)


def part_fft(args, peers, what: str):
    import numpy as np
    import hip.tensor as ht
    shape = {"fft": (1024, 4096), "rfft": (1024, 4096), "fft2": (4096, 4096), "fft_axis0": (4096, 1024),
             "fft_1d": (1 << 24,)}[what]
    rng = np.random.default_rng(0)
    host = rng.standard_normal(shape).astype(np.float32)
    if what != "rfft":
        host = (host + 1j * rng.standard_normal(shape)).astype(np.complex64)

    def make(lib):
        if lib == "ht":
            x, F = ht.asarray(host), ht.fft
        elif lib == "torch":
            x, F = peers["torch"].from_numpy(host).cuda(), peers["torch"].fft
        else:
            x, F = peers["cupy"].asarray(host), peers["cupy"].fft
        return {"fft": lambda: F.fft(x), "fft_1d": lambda: F.fft(x), "rfft": lambda: F.rfft(x),
                "fft2": lambda: F.fft2(x),
                "fft_axis0": lambda: (F.fft(x, axis=0) if lib != "torch" else F.fft(x, dim=0))}[what], x
    return contenders(args, peers, make)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b,c,d,e,f,g,h,i,j,k", help="parts to run (default all)")
    ap.add_argument("--n", type=int, default=1 << 26, help="values of (a), (b) (default 2^26)")
    ap.add_argument("--reps", type=int, default=10, help="timed calls per contender, best taken (default 10)")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    if bt.open_device() is None:
        return 77
    peers = bt.load_peers()
    bt.print_peers(peers)
    print()
    table = [("a", f"uniform float32, {args.n} values", lambda: part_random(args, peers, "uniform")),
             ("b", f"standard normal float32, {args.n} values", lambda: part_random(args, peers, "normal")),
             ("c", f"integers [0, 1000) int64, {args.n // 4} values", lambda: part_random(args, peers, "integers")),
             ("d", f"permutation of {args.n // 16}", lambda: part_random(args, peers, "permutation")),
             ("e", "fft complex64, 1024 x 4096 (last axis)", lambda: part_fft(args, peers, "fft")),
             ("f", "rfft float32, 1024 x 4096", lambda: part_fft(args, peers, "rfft")),
             ("g", "fft2 complex64, 4096 x 4096", lambda: part_fft(args, peers, "fft2")),
             ("h", "fft complex64 along axis 0, 4096 x 1024", lambda: part_fft(args, peers, "fft_axis0")),
             ("i", "fft complex64, 2^24 points (1-d)", lambda: part_fft(args, peers, "fft_1d")),
             ("j", f"uniform float32, {args.n} values, XORWOW", lambda: part_random(args, peers, "uniform", "xorwow")),
             ("k", f"standard normal float32, {args.n} values, XORWOW",
              lambda: part_random(args, peers, "normal", "xorwow"))]
    t0 = time.perf_counter()
    results, errors = bt.run_parts(table, parts)
    print("summary (PyTorch's time / hip.tensor's: above 1 is hip.tensor faster)")
    for key, r in results.items():
        if "ht" in r and "torch" in r:
            print(f"  ({key}) {r['torch']['ms'] / r['ht']['ms']:.3f}x")
    for key, e in errors.items():
        print(f"  ({key}) {e}")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 1 if any(e.startswith("failed") for e in errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
