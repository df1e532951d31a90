#!/usr/bin/env python3
"""The element-wise layouts' launch geometry swept on one GPU (what hip/tensor/_kernels/elementwise_source.py's
constants should be): GB/s and % of peak of

  add      float32 x + y, 2^28 elements (the flat layout: 3 arrays moved)
  row      x + row on 2^14 x 2^14 float32 (wide loads along rows: 2 arrays moved)
  column   x + column, the same (the column's element repeated)
  x.T + y  the transposed operand through a shared-memory tile (3 arrays moved)

for BLOCK (threads per block of the flat and N-d loops) x THREAD_BYTES (bytes a thread moves per
array per chunk), and for the tile's TILE_ROWS (block TILE x TILE_ROWS). The current setting is
marked *. ht.Event timing, best of --reps after warm-up, as bench_tensor.py; every setting's
results are compared on the device with the current setting's (a wrong one prints WRONG).

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/sweep_elementwise.py [--log2n 28] [--reps 10]

Nothing asserts a timing; exits 77 without a GPU.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=28)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    try:
        import hip.tensor as ht
        if not ht.is_available():
            raise RuntimeError("no GPU")
    except Exception as e:          # no runtime or no device
        print(f"skipped: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return 77
    from hip.tensor._kernels import elementwise_source as es
    from bench_tensor import gpu_ms, peak_bandwidth
    peak, text = peak_bandwidth()
    print(f"peak: {text}")
    n = 1 << args.log2n
    m = 1 << (args.log2n // 2)
    x = ht.arange(n, dtype=ht.float32)
    y = x * 0.5
    a, b = x.reshape(m, m), y.reshape(m, m)
    row, col = ht.arange(m, dtype=ht.float32), ht.arange(m, dtype=ht.float32).reshape(m, 1) * 3
    cases = {"add": (lambda: x + y, 12 * n), "row": (lambda: a + row, 8 * n), "column": (lambda: a + col, 8 * n),
             "x.T + y": (lambda: a.T + b, 12 * n)}

    want = {name: fn() for name, (fn, _) in cases.items()}       # the current setting's results

    def measure(names):
        out = []
        for name in names:
            fn, nbytes = cases[name]
            if not bool(ht.all(fn() == want[name])):
                out.append(f"{name} WRONG")
                continue
            ms = gpu_ms(fn, args.reps)
            gbs = nbytes / (ms * 1e-3) / 1e9
            pct = f" {100 * gbs * 1e9 / peak:5.1f}%" if peak else ""
            out.append(f"{name} {ms * 1e3:8.1f} us {gbs:7.1f} GB/s{pct}")
        return "   ".join(out)

    base = (es.BLOCK, es.THREAD_BYTES, es.TILE_ROWS)
    try:
        for block, nbytes in itertools.product((128, 256, 512), (16, 32, 64)):
            es.BLOCK, es.THREAD_BYTES = block, nbytes
            mark = "*" if (block, nbytes) == base[:2] else " "
            print(f"{mark} BLOCK {block:3d} THREAD_BYTES {nbytes:2d}: {measure(('add', 'row', 'column'))}")
        es.BLOCK, es.THREAD_BYTES = base[:2]
        for rows in (4, 8, 16, 32):
            es.TILE_ROWS = rows
            print(f"{'*' if rows == base[2] else ' '} TILE {es.TILE} x TILE_ROWS {rows:2d}: {measure(('x.T + y',))}")
    finally:
        es.BLOCK, es.THREAD_BYTES, es.TILE_ROWS = base
    return 0


if __name__ == "__main__":
    sys.exit(main())
