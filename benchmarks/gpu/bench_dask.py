#!/usr/bin/env python3
"""Dask arrays of hip.tensor chunks on one GPU and on every GPU of the machine: the speed-up.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_dask.py [--gib 32] [--chunk-gib 1] [--n 16384] [--reps 3]

For each cluster, `hip.tensor.dask.gpu_cluster([0])` and then `gpu_cluster()` (one worker process
per GPU, each seeing only its device), the data is made on the workers (map_blocks of hipRAND
uniform numbers, --gib GiB of float32 in --chunk-gib GiB chunks; Dask places the chunks) and kept
there (persist); then, best of --reps, each timed from submission until every worker's device is
idle (ht.synchronize() on each worker):

  sum     x.sum(): one reduction per chunk, then Dask's tree of partial sums
  chain   (x * 2 + 1) * x - 3, persisted (4 element-wise kernels per chunk; the results stay on
          the workers)
  matmul  a @ b, a and b --n x --n float32 in --block x --block blocks (TF32 off), persisted; the
          blocks a worker lacks travel through the host (pickling), as Dask moves any chunk

and prints the times, the bandwidth (data read / time) and the speed-up of the many-GPU cluster
over the one-GPU cluster. Nothing asserts a timing; with one GPU only the one-GPU figures are
printed. Exits 77 without a GPU or without dask and distributed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))

import hip.tensor as ht  # noqa: E402


def block(seed, block_info=None):
    """One chunk of uniform float32 numbers, made on the worker's GPU."""
    info = block_info[None]
    i = int(np.ravel_multi_index(info["chunk-location"], info["num-chunks"]))
    return ht.random.default_rng(seed * 1_000_003 + i).random(info["chunk-shape"], dtype=ht.float32)


def sync():
    ht.synchronize()


def timed(client, reps, run):
    """The best time of `run` (which submits work and waits for its tasks), up to every worker's
    device being idle."""
    best = float("inf")
    for _ in range(reps):
        client.run(sync)
        t = time.perf_counter()
        out = run()
        client.run(sync)
        best = min(best, time.perf_counter() - t)
        del out
    return best


def persisted(arr, distributed):
    """`arr` persisted, its tasks finished (enqueued on the workers' GPUs); a task's error raised."""
    arr = arr.persist()
    futures = distributed.futures_of(arr)
    distributed.wait(futures)
    for f in futures:
        if f.status == "error":
            f.result()
    return arr


def measure(devices, a, da, distributed, hd):
    n = a.gib << 28                 # float32 elements
    c = int(a.chunk_gib * (1 << 28))
    with hd.gpu_cluster(devices) as cluster, distributed.Client(cluster) as client:
        chunks = ((c,) * (n // c) + ((n % c,) if n % c else ()),)
        x = persisted(da.map_blocks(block, 1, chunks=chunks, dtype=np.float32, meta=hd.meta(np.float32)), distributed)
        m = {}
        m["sum"] = timed(client, a.reps, lambda: x.sum().compute())
        m["chain"] = timed(client, a.reps, lambda: persisted((x * 2 + 1) * x - 3, distributed))
        del x
        k = -(-a.n // a.block)
        blocks = ((a.block,) * (k - 1) + (a.n - a.block * (k - 1),),) * 2
        am, bm = (persisted(da.map_blocks(block, seed, chunks=blocks, dtype=np.float32, meta=hd.meta(np.float32)),
                            distributed) for seed in (2, 3))
        m["matmul"] = timed(client, a.reps, lambda: persisted(am @ bm, distributed))
    return m


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=int, default=32, help="data size in GiB of float32 (sum, chain)")
    p.add_argument("--chunk-gib", type=float, default=1.0)
    p.add_argument("--n", type=int, default=16384, help="matmul size")
    p.add_argument("--block", type=int, default=4096, help="matmul block size")
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    try:
        count = ht.device_count()
    except Exception as e:          # (no HIP runtime or no device)
        print(f"skipped: no GPU ({e})")
        return 77
    if not count:
        print("skipped: no GPU")
        return 77
    try:
        import dask.array as da
        import distributed
    except ImportError as e:
        print(f"skipped: needs dask and distributed ({e})")
        return 77
    import _util
    import hip.tensor.dask as hd
    import dask
    print(f"bench_dask: {_util.machine()}; {count} GPU(s) ({ht.Device(0).name}); dask {dask.__version__}, "
          f"distributed {distributed.__version__}")
    print(f"sum, chain: {a.gib} GiB of float32 in {a.chunk_gib:g} GiB chunks; matmul: {a.n}² float32 in {a.block}² blocks")
    runs = {1: measure([0], a, da, distributed, hd)}
    if count > 1:
        runs[count] = measure(list(range(count)), a, da, distributed, hd)
    nbytes = {"sum": a.gib << 30, "chain": a.gib << 30}
    flops = 2.0 * a.n ** 3
    print(f"{'':8s}" + "".join(f"{f'{g} GPU(s)':>22s}" for g in runs) + ("   speed-up" if len(runs) > 1 else ""))
    for op in ("sum", "chain", "matmul"):
        cells = []
        for g, m in runs.items():
            t = m[op]
            rate = f"{nbytes[op] / t / 1e9:7.0f} GB/s" if op in nbytes else f"{flops / t / 1e12:5.1f} TFLOP/s"
            cells.append(f"{t * 1e3:8.1f} ms {rate}")
        line = f"{op:8s}" + "".join(f"{c:>22s}" for c in cells)
        if len(runs) > 1:
            line += f"   {runs[1][op] / runs[count][op]:.2f}x"
        print(line)
    if count == 1:
        print("(one GPU here: no speed-up to report)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
