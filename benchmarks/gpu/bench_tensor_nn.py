#!/usr/bin/env python3
"""hip.tensor.nn against PyTorch, measured in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor_nn.py [--rows 8192] [--cols 8192] [--reps 20]

  (a) softmax over the rows of a rows x cols float32 matrix (dim=-1): time, GB/s (read + write),
      % of peak; target >= 0.9x PyTorch.
  (b) layer_norm over the same rows (weight and bias): target >= 0.9x PyTorch.
  (c) an MLP forward pass (eval, no autograd): batch 4096, 1024 -> 4096 -> ReLU -> 4096 -> GELU ->
      1024, float32 and float16; hip.tensor's Sequential (gemm + one fused bias+activation pass per
      Linear) against PyTorch's Sequential under torch.no_grad().
  (d) conv2d, N=32, 64 -> 64 channels, 56 x 56, 3 x 3, padding 1, float32 (im2col + hipBLAS gemm
      against cuDNN): informational, no target.

GPU times are ht.Event pairs on the null stream around each call (PyTorch launches on the null
stream too), warm-up first, best of --reps (bench_tensor.py's gpu_ms). Prints the machine, versions
and a summary of the targets (met / NOT met). Nothing asserts a timing; exits 77 without a GPU,
1 if a part failed, else 0. HIP_PLATFORM defaults to nvidia here.
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
sys.path.insert(0, HERE)
from bench_tensor import GB, Skip, _util, free_all, gpu_ms, peak_bandwidth, run_parts  # noqa: E402


def load_torch():
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        return torch
    except ImportError as e:
        print(f"PyTorch: skipped ({e})")
        return None


def line(label, ms, nbytes=None, peak=None, base_ms=None):
    extra = ""
    if nbytes:
        gbs = nbytes / (ms * 1e-3) / GB
        extra = f"  {gbs:8.1f} GB/s" + (f"  {100 * nbytes / (ms * 1e-3) / peak:5.1f}% of peak" if peak else "")
    ratio = f"  (hip.tensor {ms / base_ms:.2f}x as fast)" if base_ms else ""
    print(f"  {label:<24} {ms * 1e3:10.1f} us{extra}{ratio}")
    return ms


def _rows_part(args, torch, peak, which):
    import numpy as np
    import hip.tensor as ht
    F = ht.nn.functional
    r, c = args.rows, args.cols
    host = np.random.default_rng(0).standard_normal((r, c), dtype=np.float32)
    nbytes = 2 * 4 * r * c
    out = {}
    x = ht.asarray(host)
    w, b = ht.ones((c,), dtype="float32"), ht.zeros((c,), dtype="float32")
    fn = (lambda: F.softmax(x, dim=-1)) if which == "softmax" else (lambda: F.layer_norm(x, (c,), w, b))
    out["hip.tensor"] = line("hip.tensor", gpu_ms(fn, args.reps), nbytes, peak)
    del x, w, b
    free_all({})
    if torch is not None:
        tx = torch.from_numpy(host).cuda()
        tw, tb = torch.ones(c, device="cuda"), torch.zeros(c, device="cuda")
        tf = torch.nn.functional
        fn = (lambda: tf.softmax(tx, dim=-1)) if which == "softmax" else (lambda: tf.layer_norm(tx, (c,), tw, tb))
        out["torch"] = line("PyTorch", gpu_ms(fn, args.reps), nbytes, peak, out["hip.tensor"])
        del tx, tw, tb
        torch.cuda.empty_cache()
    return out


def part_softmax(args, torch, peak):
    return _rows_part(args, torch, peak, "softmax")


def part_layer_norm(args, torch, peak):
    return _rows_part(args, torch, peak, "layer_norm")


def part_mlp(args, torch, peak):
    import numpy as np
    import hip.tensor as ht
    if torch is None:
        raise Skip("the MLP is compared with PyTorch's, which is not here")
    tn = torch.nn
    out = {}
    for dt, tdt in (("float32", torch.float32), ("float16", torch.float16)):
        tm = tn.Sequential(tn.Linear(1024, 4096), tn.ReLU(), tn.Linear(4096, 4096), tn.GELU(),
                           tn.Linear(4096, 1024)).to(device="cuda", dtype=tdt).eval()
        m = ht.nn.Sequential(ht.nn.Linear(1024, 4096), ht.nn.ReLU(), ht.nn.Linear(4096, 4096), ht.nn.GELU(),
                             ht.nn.Linear(4096, 1024)).eval().to(dt)
        m.load_state_dict(tm.state_dict())
        host = np.random.default_rng(1).standard_normal((4096, 1024)).astype(np.float32)
        x = ht.asarray(host, dtype=dt)
        tx = torch.from_numpy(host).to(device="cuda", dtype=tdt)
        flops = 2 * 4096 * (1024 * 4096 + 4096 * 4096 + 4096 * 1024)
        print(f" {dt}")
        ours = gpu_ms(lambda: m(x), args.reps)
        line("hip.tensor", ours)
        with torch.no_grad():
            theirs = gpu_ms(lambda: tm(tx), args.reps)
        line("PyTorch", theirs, base_ms=ours)
        print(f"  ({flops / (ours * 1e-3) / 1e12:.1f} TFLOP/s hip.tensor, {flops / (theirs * 1e-3) / 1e12:.1f} PyTorch)")
        out[dt] = {"hip.tensor": ours, "torch": theirs}
        del tm, m, x, tx
        free_all({})
        torch.cuda.empty_cache()
    return out


def part_conv(args, torch, peak):
    import numpy as np
    import hip.tensor as ht
    F = ht.nn.functional
    host = np.random.default_rng(2).standard_normal((32, 64, 56, 56)).astype(np.float32)
    wh = np.random.default_rng(3).standard_normal((64, 64, 3, 3)).astype(np.float32)
    x, w = ht.asarray(host), ht.asarray(wh)
    out = {"hip.tensor": line("hip.tensor", gpu_ms(lambda: F.conv2d(x, w, padding=1), args.reps))}
    del x, w
    free_all({})
    if torch is not None:
        tx, tw = torch.from_numpy(host).cuda(), torch.from_numpy(wh).cuda()
        with torch.no_grad():
            out["torch"] = line("PyTorch (cuDNN)", gpu_ms(lambda: torch.nn.functional.conv2d(tx, tw, padding=1),
                                                          args.reps), base_ms=out["hip.tensor"])
        del tx, tw
        torch.cuda.empty_cache()
    return out


def summary(results):
    def verdict(ok):
        return "n/a" if ok is None else ("met" if ok else "NOT met")
    rows = []
    for key, name in (("a", "softmax"), ("b", "layer_norm")):
        r = results.get(key)
        if r:
            t = r.get("torch")
            ratio = t / r["hip.tensor"] if t else None
            rows.append((f"{name} rows f32 >= 0.9x PyTorch", f"{ratio:.2f}x" if ratio else "no PyTorch",
                         verdict(ratio >= 0.9 if ratio else None)))
    r = results.get("c")
    if r:
        for dt, v in r.items():
            rows.append((f"MLP forward {dt} (vs PyTorch)", f"{v['torch'] / v['hip.tensor']:.2f}x", "info"))
    r = results.get("d")
    if r and r.get("torch"):
        rows.append(("conv2d 3x3 f32 (vs cuDNN)", f"{r['torch'] / r['hip.tensor']:.2f}x", "info"))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b,c,d", help="parts to run (default a,b,c,d)")
    ap.add_argument("--rows", type=int, default=8192)
    ap.add_argument("--cols", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=20, help="timed calls per contender, best taken (default 20)")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    import numpy as np
    try:
        import hip
        import hip.tensor as ht
        from hip import hip as h
        available = ht.is_available()
    except Exception as e:      # the runtime (or the HIP-on-CUDA layer) cannot be loaded
        print(f"skipped: the HIP runtime could not be loaded: {str(e).splitlines()[0]}")
        return 77
    if not available:
        print("skipped: no GPU")
        return 77
    dev = ht.Device(0)
    print(f"date      {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine   {_util.machine()}")
    print(f"GPU       {dev.name}, {dev.gcn_arch_name}, {dev.multiprocessor_count} SMs/CUs, "
          f"{dev.total_memory / 2**30:.1f} GiB; platform {ht.platform()}")
    print(f"HIP       driver {hip.check(h.hipDriverGetVersion())}, runtime {hip.check(h.hipRuntimeGetVersion())}")
    print(f"versions  hip-bindings {getattr(hip, '__version__', '?')}, NumPy {np.__version__}, "
          f"Python {platform.python_version()}")
    torch = load_torch()
    if torch is not None:
        print(f"          PyTorch {torch.__version__} (CUDA {torch.version.cuda})")
    peak, peak_text = peak_bandwidth()
    print(f"peak      {peak_text}")
    print()
    table = [("a", f"softmax over rows, {args.rows} x {args.cols} float32", part_softmax),
             ("b", f"layer_norm over rows, {args.rows} x {args.cols} float32", part_layer_norm),
             ("c", "MLP forward, batch 4096, 1024-4096-4096-1024", part_mlp),
             ("d", "conv2d 32 x 64 x 56 x 56, 3 x 3, float32", part_conv)]
    t0 = time.perf_counter()
    results, errors = run_parts(table, parts, args, torch, peak)
    print("summary (targets of the issue)")
    rows = summary(results)
    w = max([len(r[0]) for r in rows] + [10])
    for target, value, ok in rows:
        print(f"  {target:<{w}}  {value:<22} {ok}")
    for key, e in errors.items():
        print(f"  ({key}) {e}")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 1 if any(e.startswith("failed") for e in errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
