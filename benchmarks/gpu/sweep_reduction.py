#!/usr/bin/env python3
"""How many blocks per multiprocessor a reduction split over blocks should use: hip.tensor's sum of
2^28 float32 (all elements) and sum(axis=0) of 16384^2 float32 against PyTorch's, for each setting of
_reduction_kernel.SPLIT_BLOCKS_PER_SM / OUTER_SPLIT_BLOCKS_PER_SM, in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/sweep_reduction.py

Event-timed, best of 20 after a warm-up. Exits 77 without a GPU or without PyTorch.
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("HIP_PLATFORM", "nvidia")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def main() -> int:
    import numpy as np
    import hip.tensor as ht
    from hip.tensor._kernels import reduction as rk
    from hip.tensor._api import statistical as st
    try:
        import torch
    except ImportError:
        print("skipped: no PyTorch (the peer)"); return 77
    try:
        gpus = ht.device_count()
    except Exception as e:      # the runtime (or the HIP-on-CUDA layer) cannot be loaded
        print(f"skipped: the HIP runtime could not be loaded: {str(e).splitlines()[0]}"); return 77
    if gpus == 0 or not torch.cuda.is_available():
        print("skipped: no GPU"); return 77

    def ours(fn, reps=20):
        fn(); ht.synchronize(); best = float("inf")
        for _ in range(reps):
            a, b = ht.Event(), ht.Event()
            a.record(); fn(); b.record(); b.synchronize()
            best = min(best, a.elapsed_time(b) * 1e3)
        return best

    def theirs(fn, reps=20):
        fn(); torch.cuda.synchronize(); best = float("inf")
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); fn(); b.record(); b.synchronize()
            best = min(best, a.elapsed_time(b) * 1e3)
        return best

    rng = np.random.default_rng(0)
    cases = [("sum of 2^28", "SPLIT_BLOCKS_PER_SM", rng.standard_normal(1 << 28, dtype=np.float32), None),
             ("sum(axis=0) of 16384^2", "OUTER_SPLIT_BLOCKS_PER_SM",
              rng.standard_normal((1 << 14, 1 << 14), dtype=np.float32), 0)]
    for label, knob, h, axis in cases:
        x, t = ht.asarray(h), torch.from_numpy(h).cuda()
        tt = theirs(lambda: t.sum() if axis is None else t.sum(dim=axis))
        print(f"{label}: PyTorch {tt:.1f} us")
        keep = getattr(rk, knob)
        for per_sm in (4, 8, 12, 16, 32):
            setattr(rk, knob, per_sm)
            rk._plans.clear(); st._sum_k._calls.clear()
            u = ours(lambda: x.sum(axis=axis))
            print(f"  {knob} = {per_sm:2d}: {u:7.1f} us  {h.nbytes / u / 1e3:6.0f} GB/s  {tt / u:.2f}x PyTorch")
        setattr(rk, knob, keep)
        del x, t
    return 0


if __name__ == "__main__":
    sys.exit(main())
