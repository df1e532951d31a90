#!/usr/bin/env python3
"""hip.tensor.nn against PyTorch, measured in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor_nn.py [--rows 8192] [--cols 8192] [--reps 20]
        [--dtype float32]

  (a) softmax over the rows of a rows x cols matrix (dim=-1; --dtype, default float32): time, GB/s
      (read + write), % of peak; target >= 0.9x PyTorch. Rows up to 2048 take the warp kernel
      (--rows 65536 --cols 512: attention's scores of batch 8, 16 heads, sequence 512).
  (b) layer_norm over the same rows (weight and bias): target >= 0.9x PyTorch.
  (c) an MLP forward pass (eval, no autograd): batch 4096, 1024 -> 4096 -> ReLU -> 4096 -> GELU ->
      1024, float32, float16 and bfloat16; hip.tensor's Sequential against PyTorch's under
      torch.no_grad(). hip.tensor runs each Linear as one hipBLASLt matmul whose epilogue adds the
      bias (and applies the ReLU; GELU, erf's here as PyTorch's default, follows in one pass), with
      the fastest of the heuristic's algorithms (timed on a shape's first call), and, for comparison,
      with the heuristic's first (ht.backends.matmul.hipblaslt_autotune off, PyTorch's choice) and as
      hipBLAS's gemm plus one bias+activation pass (ht.backends.matmul.use_hipblaslt off); target
      >= 1.0x PyTorch in float16 and bfloat16 with hipBLASLt. Then where the time goes: each
      Linear and the GELU pass alone on both sides (the pass also queued back to back: its kernel time
      without the host's), and the host's time to queue one forward.
  (d) conv2d of ResNet-50 layers, N=32 (CONV_CASES: 3x3 64->64 at 56x56, 1x1 256->64 at 56x56,
      3x3 128->128 at 28x28 stride 1 and at 56x56 stride 2), float32 with TF32 off on both sides
      (torch.backends.cudnn.allow_tf32 and .cuda.matmul.allow_tf32 False, ht.backends.matmul's False;
      target >= 0.8x PyTorch with cuDNN) and bfloat16 (informational): time, TFLOP/s, ratio and the
      max relative difference of the two outputs. For float32 also our im2col and gemm alone, and
      with --conv-col-mb 16,64 the time with im2col chunks of at most that many MiB (COL_BYTES).
      --cudnn-benchmark lets cuDNN time its algorithms first (PyTorch's default is off).

GPU times are ht.Event pairs on the null stream around each call (PyTorch launches on the null
stream too), warm-up first, best of --reps (bench_tensor.py's gpu_ms). Prints the machine, versions
and a summary of the targets (met / NOT met). Nothing asserts a timing; exits 77 without a GPU,
1 if a part failed, else 0. HIP_PLATFORM defaults to nvidia here.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_tensor import GB, Skip, free_all, gpu_ms, open_device, peak_bandwidth, report, run_parts  # noqa: E402


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
    dt = args.dtype
    nbytes = 2 * ht.dtype(dt).itemsize * r * c
    out = {}
    x = ht.asarray(host, dtype=dt)
    w, b = ht.ones((c,), dtype=dt), ht.zeros((c,), dtype=dt)
    fn = (lambda: F.softmax(x, dim=-1)) if which == "softmax" else (lambda: F.layer_norm(x, (c,), w, b))
    out["hip.tensor"] = line("hip.tensor", gpu_ms(fn, args.reps), nbytes, peak)
    del x, w, b
    free_all({})
    if torch is not None:
        tdt = getattr(torch, dt)
        tx = torch.from_numpy(host).cuda().to(tdt)
        tw, tb = torch.ones(c, device="cuda", dtype=tdt), torch.zeros(c, device="cuda", dtype=tdt)
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
    from hip.tensor._libs import blaslt
    if torch is None:
        raise Skip("the MLP is compared with PyTorch's, which is not here")
    if not blaslt.available():
        print("  (hipBLASLt does not load: hip.tensor's gemm path only)")
    tn = torch.nn
    out = {}
    for dt in ("float32", "float16", "bfloat16"):
        tdt = getattr(torch, dt)
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
        res = {}
        ways = (("hipblaslt", True, True, "hipBLASLt"), ("hipblaslt_first", True, False, "hipBLASLt, 1st algo"),
                ("gemm", False, True, "gemm + pass"))
        for key, lt, tune, label in (ways if blaslt.available() else ways[2:]):
            ht.backends.matmul.use_hipblaslt, ht.backends.matmul.hipblaslt_autotune = lt, tune
            try:
                res[key] = line(f"hip.tensor ({label})", gpu_ms(lambda: m(x), args.reps))
            finally:
                ht.backends.matmul.use_hipblaslt = ht.backends.matmul.hipblaslt_autotune = True
        ours = res.get("hipblaslt", res["gemm"])
        with torch.no_grad():
            theirs = gpu_ms(lambda: tm(tx), args.reps)
            want = tm(tx).float().cpu().numpy()
        line("PyTorch", theirs, base_ms=ours)
        got = m(x).astype("float32").get()
        err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
        print(f"  ({flops / (ours * 1e-3) / 1e12:.1f} TFLOP/s hip.tensor, {flops / (theirs * 1e-3) / 1e12:.1f} "
              f"PyTorch; outputs differ by {err:.1e} of the largest)")
        _mlp_parts(args, torch, ht, m, tm, x, tx)
        out[dt] = {"hip.tensor": ours, "torch": theirs, "gemm": res["gemm"] if "gemm" in res else None,
                   "hipblaslt": "hipblaslt" in res, "err": err}
        del tm, m, x, tx
        free_all({})
        torch.cuda.empty_cache()
    return out


def _mlp_parts(args, torch, ht, m, tm, x, tx):
    """Where (c)'s time goes: each Linear (with its fused ReLU) and the GELU pass alone on the GPU,
    and the host's time to queue one forward pass (the GPU waits for the first launch)."""
    import time
    F, TF = ht.nn.functional, torch.nn.functional
    h = ht.ones((4096, 4096), dtype=x.dtype)
    th = torch.ones((4096, 4096), device="cuda", dtype=tx.dtype)
    lin = [l for l in m if isinstance(l, ht.nn.Linear)]
    tlin = [l for l in tm if isinstance(l, torch.nn.Linear)]
    ins, tins, acts = (x, h, h), (tx, th, th), ("relu", None, None)
    with torch.no_grad():
        ours = [gpu_ms(lambda: F.linear(i, l.weight, l.bias, activation=a), args.reps)
                for i, l, a in zip(ins, lin, acts)]
        theirs = [gpu_ms(lambda: TF.linear(i, l.weight, l.bias), args.reps) for i, l in zip(tins, tlin)]
        theirs[0] += gpu_ms(lambda: TF.relu(th), args.reps)
        gelu = (gpu_ms(lambda: F.gelu(h), args.reps), gpu_ms(lambda: TF.gelu(th), args.reps))
        queued = (gpu_ms(lambda: F.gelu(h), args.reps, 1, 20), gpu_ms(lambda: TF.gelu(th), args.reps, 1, 20))

        def host_us(fn, sync):
            best = float("inf")
            for _ in range(args.reps):
                sync()
                t = time.perf_counter()
                fn()
                best = min(best, time.perf_counter() - t)
            return best * 1e6
        host = (host_us(lambda: m(x), ht.synchronize), host_us(lambda: tm(tx), torch.cuda.synchronize))
    us = lambda v: "/".join(f"{t * 1e3:.1f}" for t in v)   # noqa: E731
    print(f"  (alone, us: Linear+ReLU/Linear/Linear {us(ours)} hip.tensor, {us(theirs)} PyTorch (ReLU a pass); "
          f"GELU pass {gelu[0] * 1e3:.1f} / {gelu[1] * 1e3:.1f}, queued {queued[0] * 1e3:.1f} / {queued[1] * 1e3:.1f}; "
          f"host per forward {host[0]:.0f} / {host[1]:.0f})")
    del h, th


CONV_CASES = [  # (label, N, Cin, Cout, H=W, kernel, stride, padding): ResNet-50 layers
    ("3x3 64->64 56x56", 32, 64, 64, 56, 3, 1, 1),
    ("1x1 256->64 56x56", 32, 256, 64, 56, 1, 1, 0),
    ("3x3 128->128 28x28", 32, 128, 128, 28, 3, 1, 1),
    ("3x3 128->128 56x56 s2", 32, 128, 128, 56, 3, 2, 1),
]


def _conv_case(args, torch, case, dt):
    import numpy as np
    import hip.tensor as ht
    from hip.tensor.nn import _conv
    F = ht.nn.functional
    label, n, cin, cout, hw, k, stride, pad = case
    rng = np.random.default_rng(2)
    host = rng.standard_normal((n, cin, hw, hw)).astype(np.float32)
    wh = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
    oh = (hw + 2 * pad - k) // stride + 1
    flops = 2 * n * cout * oh * oh * cin * k * k
    x, w = ht.asarray(host, dtype=dt), ht.asarray(wh, dtype=dt)
    print(f" {label} {dt}")
    ours = gpu_ms(lambda: F.conv2d(x, w, stride=stride, padding=pad), args.reps)
    line("hip.tensor", ours)
    got = F.conv2d(x, w, stride=stride, padding=pad).get().astype(np.float64)
    res = {"hip.tensor": ours}
    if dt == "float32" and k > 1:       # where the time goes: im2col of the whole batch, then the gemm
        P = oh * oh
        col = ht.empty((n, cin * k * k, P), dtype=dt)
        out = ht.empty((n, cout, P), dtype=dt)
        args_i = (x, col, cin, (hw, hw), (oh, oh), (k, k), (stride,) * 2, (pad,) * 2, (1, 1))
        t_i = gpu_ms(lambda: _conv._im2col(*args_i), args.reps)
        w3 = w.reshape((1, cout, cin * k * k))
        t_g = gpu_ms(lambda: _conv._gemm_nchw(w3, col.reshape((n, 1, cin * k * k, P)), out.reshape((n, 1, cout, P))),
                     args.reps)
        print(f"  (im2col alone {t_i * 1e3:.1f} us, {col.nbytes / (t_i * 1e-3) / GB:.0f} GB/s of col written; "
              f"gemm alone {t_g * 1e3:.1f} us, {flops / (t_g * 1e-3) / 1e12:.1f} TFLOP/s)")
        del col, out
        old = _conv.COL_BYTES
        try:
            for mb in [int(v) for v in args.conv_col_mb.split(",") if v.strip()]:
                _conv.COL_BYTES = mb << 20
                line(f"hip.tensor col <= {mb} MiB", gpu_ms(lambda: F.conv2d(x, w, stride=stride, padding=pad),
                                                           args.reps))
        finally:
            _conv.COL_BYTES = old
    del x, w
    free_all({})
    if torch is not None:
        tdt = getattr(torch, dt)
        tx, tw = torch.from_numpy(host).cuda().to(tdt), torch.from_numpy(wh).cuda().to(tdt)
        with torch.no_grad():
            theirs = gpu_ms(lambda: torch.nn.functional.conv2d(tx, tw, stride=stride, padding=pad), args.reps)
            line("PyTorch (cuDNN)", theirs, base_ms=ours)
            want = torch.nn.functional.conv2d(tx, tw, stride=stride, padding=pad).double().cpu().numpy()
        err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
        print(f"  ({flops / (ours * 1e-3) / 1e12:.1f} TFLOP/s hip.tensor, {flops / (theirs * 1e-3) / 1e12:.1f} "
              f"PyTorch; outputs differ by {err:.1e} of the largest)")
        res.update(torch=theirs, err=err)
        del tx, tw
        torch.cuda.empty_cache()
    else:
        print(f"  ({flops / (ours * 1e-3) / 1e12:.1f} TFLOP/s hip.tensor)")
    return res


def part_conv(args, torch, peak):
    import hip.tensor as ht
    ht.backends.matmul.allow_tf32 = False
    if torch is not None:           # cuDNN's own TF32 switch defaults to True: off, as ours
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.benchmark = args.cudnn_benchmark
    return {(case[0], dt): _conv_case(args, torch, case, dt)
            for dt in ("float32", "bfloat16") for case in CONV_CASES}


def summary(results, dtype="float32"):
    def verdict(ok):
        return "n/a" if ok is None else ("met" if ok else "NOT met")
    rows = []
    for key, name in (("a", "softmax"), ("b", "layer_norm")):
        r = results.get(key)
        if r:
            t = r.get("torch")
            ratio = t / r["hip.tensor"] if t else None
            rows.append((f"{name} rows {dtype} >= 0.9x PyTorch", f"{ratio:.2f}x" if ratio else "no PyTorch",
                         verdict(ratio >= 0.9 if ratio else None)))
    r = results.get("c")
    if r:
        for dt, v in r.items():
            ratio = v["torch"] / v["hip.tensor"]
            path = "hipBLASLt" if v["hipblaslt"] else "gemm"
            if dt == "float32":
                rows.append((f"MLP forward {dt} ({path}, vs PyTorch)", f"{ratio:.2f}x", "info"))
            else:
                rows.append((f"MLP forward {dt} ({path}) >= 1.0x PyTorch", f"{ratio:.2f}x", verdict(ratio >= 1.0)))
    for (label, dt), v in (results.get("d") or {}).items():
        if dt == "float32":
            ratio = v["torch"] / v["hip.tensor"] if v.get("torch") else None
            rows.append((f"conv2d {label} f32 >= 0.8x cuDNN", f"{ratio:.2f}x" if ratio else "no PyTorch",
                         verdict(ratio >= 0.8 if ratio else None)))
        elif v.get("torch"):
            rows.append((f"conv2d {label} {dt} (vs cuDNN)", f"{v['torch'] / v['hip.tensor']:.2f}x", "info"))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b,c,d", help="parts to run (default a,b,c,d)")
    ap.add_argument("--rows", type=int, default=8192)
    ap.add_argument("--cols", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=20, help="timed calls per contender, best taken (default 20)")
    ap.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16", "float64"),
                    help="(a), (b): the rows' dtype (default float32)")
    ap.add_argument("--conv-col-mb", default="", help="(d): also time im2col chunks of at most these MiB, e.g. 16,64")
    ap.add_argument("--cudnn-benchmark", action="store_true", help="(d): torch.backends.cudnn.benchmark = True")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    if open_device() is None:
        return 77
    torch = load_torch()
    if torch is not None:
        print(f"          PyTorch {torch.__version__} (CUDA {torch.version.cuda})")
    peak, peak_text = peak_bandwidth()
    print(f"peak      {peak_text}")
    print()
    table = [("a", f"softmax over rows, {args.rows} x {args.cols} {args.dtype}", part_softmax),
             ("b", f"layer_norm over rows, {args.rows} x {args.cols} {args.dtype}", part_layer_norm),
             ("c", "MLP forward, batch 4096, 1024-4096-4096-1024", part_mlp),
             ("d", "conv2d of ResNet-50 layers, N=32, float32 (TF32 off) and bfloat16", part_conv)]
    t0 = time.perf_counter()
    results, errors = run_parts(table, parts, args, torch, peak)
    return report(summary(results, args.dtype), errors, t0)


if __name__ == "__main__":
    sys.exit(main())
