#!/usr/bin/env python3
"""hip.tensor's host time per op and graph replay against PyTorch, in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor_graph.py [--ops 20000] [--rounds 7]

  (a) host time of one small op, x + y on 1024 float32: us per call in a loop of calls (each
      enqueues its kernel before it returns), then one synchronize; best of rounds; hip.tensor
      against PyTorch (target <= 0.8x PyTorch). With --anatomy, the parts of hip.tensor's call
      (allocation, the kernel launch, the rest) are timed alone.
  (b) a chain of 20 small ops (4 x (sin(z) * y + k, then z - |x|), 1024 float32) captured once
      and replayed: us per replay over a loop of replays then one synchronize, `ht.graph` against
      `torch.cuda.graph` (target <= 1.0x PyTorch); and the same chain run eagerly, for scale.

Prints the machine, the versions and a summary (met / NOT met). Nothing asserts a timing; exits 77
without a GPU. HIP_PLATFORM defaults to nvidia here.
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
import _util  # noqa: E402

N = 1024


def chain(m, x, y):
    """20 ops: 4 x (sin, *, +, abs, -)."""
    z = x
    for k in range(4):
        z = m.sin(z) * y + (k + 1)
        z = z - m.abs(x)
    return z


def part_small(args, torch):
    import hip.tensor as ht
    x, y = ht.ones(N, dtype=ht.float32), ht.ones(N, dtype=ht.float32)
    out = {"hip.tensor": _util.host_us_per_call(lambda: x + y, ht.synchronize, args.ops, args.rounds)}
    if torch is not None:
        a = torch.ones(N, device="cuda")
        b = torch.ones(N, device="cuda")
        out["torch"] = _util.host_us_per_call(lambda: a + b, torch.cuda.synchronize, args.ops, args.rounds)
    if args.anatomy:
        from hip.tensor._core.array import ndarray
        from hip.tensor._core.device import current_stream
        s = current_stream()
        out["  alloc+free of the output"] = _util.host_us_per_call(
            lambda: ndarray._empty((N,), ht.float32, 0, s), ht.synchronize, args.ops, args.rounds)
        from hip.tensor._api.elementwise import _OPS
        op = _OPS["add"]
        f = next(iter(v for v in op.fast.values() if v is not None))
        sig = f.kernel_sig
        hit = next(iter(sig.layouts.values()))      # the kernel's Launch for this element count
        z = x + y
        launch = hit.function.launch
        grid, block, n = hit.grid, hit.block, hit.count
        out["  launch alone"] = _util.host_us_per_call(lambda: launch(grid, block, (x, y, z, n), 0, s),
                                           ht.synchronize, args.ops, args.rounds)
        out["  call_contiguous"] = _util.host_us_per_call(lambda: op.kernel.call_contiguous(sig, (x, y)),
                                              ht.synchronize, args.ops, args.rounds)
    return out


def part_graph(args, torch):
    import hip.tensor as ht
    x, y = ht.ones(N, dtype=ht.float32), ht.ones(N, dtype=ht.float32)
    chain(ht, x, y)
    g = ht.Graph()
    with ht.graph(g):
        chain(ht, x, y)
    g.upload()
    out = {"hip.tensor replay": _util.host_us_per_call(g.replay, ht.synchronize, args.replays, args.rounds),
           "hip.tensor eager": _util.host_us_per_call(lambda: chain(ht, x, y), ht.synchronize, args.replays // 10, args.rounds)}
    if torch is not None:
        a = torch.ones(N, device="cuda")
        b = torch.ones(N, device="cuda")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                chain(torch, a, b)
        torch.cuda.current_stream().wait_stream(s)
        tg = torch.cuda.CUDAGraph()
        with torch.cuda.graph(tg):
            chain(torch, a, b)
        out["torch replay"] = _util.host_us_per_call(tg.replay, torch.cuda.synchronize, args.replays, args.rounds)
        out["torch eager"] = _util.host_us_per_call(lambda: chain(torch, a, b), torch.cuda.synchronize,
                                         args.replays // 10, args.rounds)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=20_000)
    ap.add_argument("--replays", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--anatomy", action="store_true", help="time the parts of hip.tensor's small op")
    args = ap.parse_args()
    import hip.tensor as ht
    if not ht.is_available():
        print("skipped: no HIP device is visible (hip.tensor.is_available() is False)")
        return 77
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.cuda.init()
    except ImportError:
        torch = None
    print(_util.machine())
    print(f"hip.tensor on {ht.Device().name} ({ht.platform()}); torch {torch.__version__ if torch else 'absent'}")
    small = part_small(args, torch)
    print(f"\n(a) x + y, {N} float32: host us per call")
    for k, v in small.items():
        print(f"  {k:28s} {v:7.2f}")
    graph = part_graph(args, torch)
    print("\n(b) 20-op chain on 1024 float32: us per run")
    for k, v in graph.items():
        print(f"  {k:28s} {v:7.2f}")
    print("\nsummary")
    if torch is not None:
        r = small["hip.tensor"] / small["torch"]
        print(f"  host time per op <= 0.8x PyTorch: {r:.2f}x ({'met' if r <= 0.8 else 'NOT met'})")
        r = graph["hip.tensor replay"] / graph["torch replay"]
        print(f"  graph replay <= 1.0x PyTorch:    {r:.2f}x ({'met' if r <= 1.0 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
