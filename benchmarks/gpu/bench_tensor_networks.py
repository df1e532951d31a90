#!/usr/bin/env python3
"""Whole networks on hip.tensor.nn against PyTorch eager, measured in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor_networks.py [--reps 10] [--only a,b]

  (a) ResNet-18 (torchvision's architecture and names), batch 32, 3 x 224 x 224, eval, no grad.
  (b) a transformer encoder block (PyTorch's TransformerEncoderLayer, batch_first, post-norm):
      batch 8, sequence 512, width 1024, 16 heads, MLP 4096 with erf GELU, attention as matmul,
      softmax, matmul on both sides.

Both networks are defined on both sides in benchmarks/_networks.py; the PyTorch model's
state_dict is loaded into hip.tensor's by `load_state_dict`. float32 with TF32 off on both sides
(torch.backends.cudnn.allow_tf32 and .cuda.matmul.allow_tf32 False, ht.backends.matmul.allow_tf32
False; cudnn.benchmark left at PyTorch's default, off), then bfloat16 (the same weights rounded;
informational). hip.tensor runs each network as written (one operator per PyTorch operator) and
with its fusions (ResNet: BatchNorm folded into the convolutions, ReLU and the residual add in
the pass after each gemm, with and without one gemm per convolution (`_conv.ONE_GEMM`); block:
residuals as hipBLASLt's C, the attention scale in the softmax). Each line: GPU time (best of
--reps, ht.Event pairs on the null stream, warm-up first), PyTorch's time over ours, the max
difference to PyTorch's output relative to its largest value, and the launches of one forward
(hip.tensor's own kernels + hipBLAS/hipBLASLt calls; PyTorch's GPU kernels from its profiler).
Targets (float32): >= 1.0x PyTorch, within 1e-4. Nothing asserts a timing; exits 77 without a
GPU, 1 if a part failed, else 0. HIP_PLATFORM defaults to nvidia here.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from bench_tensor import Skip, free_all, gpu_ms, open_device, report, run_parts  # noqa: E402
import _networks as nets  # noqa: E402

TOL = 1e-4


def load_torch():
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        return torch
    except ImportError as e:
        print(f"PyTorch: skipped ({e})")
        return None


def torch_kernels(torch, fn) -> int | None:
    """GPU kernels of one call of fn, from PyTorch's profiler (None where it does not run)."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                   and "memcpy" not in e.name.lower() and "memset" not in e.name.lower())
    except Exception:       # no CUPTI/kineto in this build
        return None


def kernel_times(torch, fn, top: int):
    """Print the top GPU kernels of one call of fn by total time, from PyTorch's profiler, which
    records every kernel of the process (hip.tensor's and its libraries' as well as PyTorch's)."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
    except Exception as e:      # no CUPTI/kineto in this build
        print(f"    (no profile: {e})")
        return
    acc = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            n, us = acc.get(e.name, (0, 0.0))
            acc[e.name] = (n + 1, us + e.time_range.elapsed_us())
    total = sum(us for _, us in acc.values()) or 1.0
    for name, (n, us) in sorted(acc.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"    {us / 1e3:8.3f} ms {100 * us / total:5.1f}% x{n:<4} {name[:110]}")


def line(label, ms, base_ms=None, err=None, launches=None):
    ratio = f"  PyTorch/ours {base_ms / ms:5.2f}x" if base_ms else ""
    e = f"  max rel diff {err:.1e}" if err is not None else ""
    n = f"  launches {launches}" if launches else ""
    print(f"  {label:<40} {ms:9.3f} ms{ratio}{e}{n}")


def _compare(args, torch, make_torch, make_ht, x_host, variants, dtypes):
    """Time PyTorch's model and hip.tensor's variants per dtype (label -> prepare(model), which
    returns its undo; only the fused ones in bfloat16), all from one PyTorch state_dict."""
    import hip.tensor as ht
    out = {}
    for dt in dtypes:
        tdt = getattr(torch, dt)
        print(f" {dt}")
        tm = make_torch().to("cuda").eval()
        sd = tm.state_dict()
        tm = tm.to(tdt)
        tx = torch.from_numpy(x_host).to(device="cuda", dtype=tdt)
        with torch.no_grad():
            t_ms = gpu_ms(lambda: tm(tx), args.reps)
            want = tm(tx).float().cpu().numpy()
            t_launch = torch_kernels(torch, lambda: tm(tx))
        line("PyTorch eager", t_ms, launches=None if t_launch is None else f"{t_launch} kernels")
        if args.profile:
            with torch.no_grad():
                kernel_times(torch, lambda: tm(tx), args.profile)
        res = {"torch": t_ms}
        x = ht.asarray(x_host, dtype=dt)
        for label, prepare in variants.items():
            if dt != "float32" and not label.startswith("fused"):
                continue
            m = make_ht().eval()
            m.load_state_dict(sd)
            restore = prepare(m)
            try:
                m.to(dt)
                ms = gpu_ms(lambda: m(x), args.reps)
                y, kernels, lib = nets.count_launches(lambda: m(x))
                if args.profile and torch is not None:
                    print(f"  hip.tensor {label}:")
                    kernel_times(torch, lambda: m(x), args.profile)
            finally:
                restore()
            err = nets.max_rel_diff(y.astype("float32").get(), want)
            line(f"hip.tensor {label}", ms, t_ms, err, f"{kernels} kernels + {lib} gemms")
            res[label] = {"ms": ms, "err": err, "kernels": kernels, "library": lib}
            del m, y
            free_all({})
        out[dt] = res
        del tm, tx, x
        free_all({"torch": torch})
    return out


def _plain(m):
    return lambda: None


def part_resnet(args, torch, _):
    import numpy as np
    import hip.tensor as ht
    from hip.tensor.nn import _conv
    if torch is None:
        raise Skip("the networks are compared with PyTorch's, which is not here")

    def fused(one_gemm):
        def prepare(m):
            saved = _conv.ONE_GEMM
            _conv.ONE_GEMM = one_gemm
            m.fuse()
            return lambda: setattr(_conv, "ONE_GEMM", saved)
        return prepare

    torch.manual_seed(0)
    host = np.random.default_rng(0).standard_normal((args.resnet_batch, 3, args.image, args.image)).astype(np.float32)
    return _compare(args, torch,
                    lambda: nets.randomize_batch_norms(torch, nets.torch_resnet18(torch)),
                    lambda: nets.ht_resnet18(ht), host,
                    {"as written": _plain, "fused": fused(True), "fused, per-sample gemms": fused(False)},
                    ("float32", "bfloat16"))


def part_block(args, torch, _):
    import numpy as np
    import hip.tensor as ht
    if torch is None:
        raise Skip("the networks are compared with PyTorch's, which is not here")

    def plain(m):
        m.fused = False
        return lambda: None

    torch.manual_seed(0)
    host = np.random.default_rng(1).standard_normal((args.batch, args.seq, args.width)).astype(np.float32)
    dims = (args.width, args.heads, args.mlp)
    return _compare(args, torch, lambda: nets.torch_encoder_block(torch, *dims),
                    lambda: nets.ht_encoder_block(ht, *dims), host,
                    {"as written": plain, "fused": _plain}, ("float32", "bfloat16"))


def summary(results):
    rows = []
    for key, name in (("a", "ResNet-18"), ("b", "encoder block")):
        r = results.get(key)
        if not r:
            continue
        for dt, v in r.items():
            best = min((k for k in v if k != "torch"), key=lambda k: v[k]["ms"])
            ratio, err = v["torch"] / v[best]["ms"], v[best]["err"]
            if dt == "float32":
                ok = ratio >= 1.0 and err <= TOL
                rows.append((f"{name} {dt} >= 1.0x PyTorch, <= 1e-4", f"{ratio:.2f}x, {err:.1e} ({best})",
                             "met" if ok else "NOT met"))
            else:
                rows.append((f"{name} {dt} (vs PyTorch)", f"{ratio:.2f}x, {err:.1e} ({best})", "info"))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b", help="parts to run (default a,b)")
    ap.add_argument("--reps", type=int, default=10, help="timed calls per contender, best taken (default 10)")
    ap.add_argument("--resnet-batch", type=int, default=32)
    ap.add_argument("--image", type=int, default=224)
    ap.add_argument("--batch", type=int, default=8, help="(b) batch")
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--mlp", type=int, default=4096)
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="print each side's N costliest GPU kernels (PyTorch's profiler)")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    if open_device() is None:
        return 77
    import hip.tensor as ht
    torch = load_torch()
    ht.backends.matmul.allow_tf32 = False
    if torch is not None:
        print(f"          PyTorch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN "
              f"{torch.backends.cudnn.version()})")
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    from hip.tensor._libs import blaslt
    print(f"hipBLASLt {'loads' if blaslt.available() else 'does not load: gemm + pass paths only'}")
    print()
    table = [("a", f"ResNet-18, batch {args.resnet_batch}, 3 x {args.image}^2, eval", part_resnet),
             ("b", f"encoder block, batch {args.batch}, sequence {args.seq}, width {args.width}, {args.heads} heads, "
                   f"MLP {args.mlp}", part_block)]
    t0 = time.perf_counter()
    results, errors = run_parts(table, parts, args, torch, None)
    return report(summary(results), errors, t0, width=40)


if __name__ == "__main__":
    sys.exit(main())
