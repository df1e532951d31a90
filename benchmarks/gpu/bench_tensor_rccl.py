#!/usr/bin/env python3
"""hip.tensor.distributed all_reduce against torch.distributed (NCCL), 2 processes on 2 GPUs.

    HIP_PLATFORM=nvidia NCCL_NVLS_ENABLE=0 python3 benchmarks/gpu/bench_tensor_rccl.py [--reps 20] [--iters 10]

Starts one worker process per GPU (this script with --worker RANK). Each worker joins a
hip.tensor communicator (init_process_group through an id file) and a torch.distributed NCCL
group (file:// rendezvous), then, per size (float32, 1 MiB .. 1 GiB, x4 steps, both contenders
interleaved per size), times --iters in-place sum all_reduces between two events on the current
stream (ht.Event / torch.cuda.Event), after a warm-up; the best of --reps is kept. Bus bandwidth
as nccl-tests defines it: bytes / time * 2 (n - 1) / n. Rank 0 prints the table and the ratio
hip.tensor / torch (target >= 0.95x at the large sizes). Each worker checks its last result.
Nothing asserts a timing; exits 77 with fewer than 2 GPUs, 1 if a worker failed, else 0.
HIP_PLATFORM defaults to nvidia here. Without PyTorch the hip.tensor column is printed alone.
"""
from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(HERE))
import _util  # noqa: E402  (benchmarks/_util.py: machine())

SIZES = [1 << s for s in range(20, 31, 2)]       # bytes: 1 MiB, 4, 16, 64, 256 MiB, 1 GiB


def bus_bw(nbytes: int, seconds: float, n: int) -> float:
    return nbytes / seconds * 2 * (n - 1) / n / 1e9


def time_ht(comm, x, iters: int, reps: int) -> float:
    import hip.tensor as ht
    for _ in range(3):
        comm.all_reduce(x)
    best = float("inf")
    for _ in range(reps):
        start, end = ht.Event(), ht.Event()
        start.record()
        for _ in range(iters):
            comm.all_reduce(x)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3 / iters)
    return best


def time_torch(torch, x, iters: int, reps: int) -> float:
    import torch.distributed as td
    for _ in range(3):
        td.all_reduce(x)
    best = float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            td.all_reduce(x)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3 / iters)
    return best


def worker(rank: int, n: int, rendezvous: str, args) -> int:
    import numpy as np
    import hip.tensor as ht
    from hip.tensor import distributed as dist
    os.environ[dist.ENV_ID_FILE] = os.path.join(rendezvous, "ht.id")
    comm = dist.init_process_group(rank, n, device=rank)
    torch = None
    try:
        import torch
        import torch.distributed as td
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        torch.cuda.set_device(rank)
        td.init_process_group("nccl", init_method=f"file://{os.path.join(rendezvous, 'torch.rdv')}",
                              rank=rank, world_size=n)
    except ImportError as e:
        if rank == 0:
            print(f"PyTorch: skipped ({e})")
        torch = None
    rows = []
    with ht.Device(rank):
        for nbytes in SIZES:
            count = nbytes // 4
            x = ht.ones((count,), dtype=ht.float32)
            t_ht = time_ht(comm, x, args.iters, args.reps)
            # every all_reduce sums n ones into each element, in place: after k calls it holds n**k
            # (inf past float32's range), so the check is a single fresh call
            x = ht.full((count,), float(rank + 1), dtype=ht.float32)
            comm.all_reduce(x)
            got = x[-4:].get()
            if not np.all(got == n * (n + 1) / 2):
                print(f"rank {rank}: wrong all_reduce result {got}", file=sys.stderr)
                return 1
            del x
            t_torch = None
            if torch is not None:
                y = torch.ones(count, dtype=torch.float32, device=f"cuda:{rank}")
                t_torch = time_torch(torch, y, args.iters, args.reps)
                del y
                torch.cuda.empty_cache()
            ht.empty_cache()
            rows.append((nbytes, t_ht, t_torch))
    comm.barrier()
    if rank == 0:
        dev = ht.Device(0)
        print(f"date      {datetime.datetime.now().isoformat(timespec='seconds')}")
        print(f"machine   {_util.machine()}")
        print(f"GPUs      {n} x {dev.name} ({dev.gcn_arch_name}); platform {ht.platform()}; "
              f"NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE', '(unset)')}")
        if torch is not None:
            print(f"torch     {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")
        print(f"timing    best of {args.reps} x {args.iters} in-place float32 sum all_reduces, events on the "
              f"current stream; bus bandwidth = bytes / t * 2(n-1)/n")
        print(f"{'size':>10} {'hip.tensor GB/s':>16} {'torch GB/s':>11} {'ratio':>7}")
        for nbytes, t_ht, t_torch in rows:
            b_ht = bus_bw(nbytes, t_ht, n)
            b_t = bus_bw(nbytes, t_torch, n) if t_torch else None
            size = f"{nbytes >> 20} MiB" if nbytes < 1 << 30 else f"{nbytes >> 30} GiB"
            print(f"{size:>10} {b_ht:16.1f} {b_t if b_t is not None else float('nan'):11.1f} "
                  f"{(b_ht / b_t) if b_t else float('nan'):6.3f}x")
        large = [(bus_bw(nb, a, n) / bus_bw(nb, b, n)) for nb, a, b in rows if b and nb >= 1 << 26]
        if large:
            worst = min(large)
            print(f"target    >= 0.95x torch at >= 64 MiB: worst {worst:.3f}x -> {'met' if worst >= 0.95 else 'NOT met'}")
    comm.destroy()
    if torch is not None:
        import torch.distributed as td
        td.destroy_process_group()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=20, help="timed rounds per size and contender (best kept)")
    ap.add_argument("--iters", type=int, default=10, help="all_reduces per timed round")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rendezvous", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    n = 2
    if args.worker is not None:
        return worker(args.worker, n, args.rendezvous, args)
    try:
        import hip.tensor as ht
        count = ht.device_count() if ht.is_available() else 0
    except Exception as e:      # the runtime (or the HIP-on-CUDA layer) cannot be loaded
        print(f"skipped: the HIP runtime could not be loaded: {str(e).splitlines()[0]}")
        return 77
    if count < n:
        print(f"skipped: needs {n} GPUs, {count} visible")
        return 77
    with tempfile.TemporaryDirectory(prefix="bench_rccl_") as rendezvous:
        procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", str(r),
                                   "--rendezvous", rendezvous, "--reps", str(args.reps), "--iters", str(args.iters)],
                                  env=dict(os.environ, RANK=str(r), WORLD_SIZE=str(n), LOCAL_RANK=str(r)))
                 for r in range(n)]
        codes = [p.wait() for p in procs]
    if any(codes):
        print(f"a worker failed: exit codes {codes}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
