#!/usr/bin/env python3
"""hip.tensor's linear algebra against PyTorch and CuPy, measured in one process on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_tensor_linalg.py [--n 8192] [--reps 10]

  (a) sgemm n^3 (float32, no TF32 on any side): TFLOP/s; target >= 0.98x PyTorch.
  (b) the same with TF32 allowed (ht.backends.matmul.allow_tf32, torch.backends.cuda.matmul.
      allow_tf32; CuPy skipped: its switch, CUPY_TF32, is read at import).
  (c) bf16 gemm n^3 (float32 accumulation): TFLOP/s; target >= 0.98x PyTorch (CuPy has no bfloat16).
  (d) batched small gemm: --batch float32 matrices of 64 x 64 (one strided-batched call).
  (e) Cholesky of an --nf x --nf float32 SPD matrix (hip.tensor and PyTorch read the info output,
      hence wait for the GPU; CuPy does not by default).
  (f) solve of an --nf x --nf float32 system with one right-hand side (LU, then getrs).
  (g) solve of a batch of --batch float32 64 x 64 systems, one right-hand side each (hip.tensor:
      hipBLAS getrfBatched + getrsBatched).
  (h) inv of the same batch (hip.tensor: getrfBatched + getriBatched).
  (i) eigh of a batch of --batch float32 symmetric 16 x 16 matrices (eigenvalues and vectors;
      hip.tensor: one syevjBatched, reading the infos (a wait, as in (e)); PyTorch and CuPy pick
      their own cuSOLVER paths).
  (j) ht.matmul through hipBLAS against hipBLASLt (its fastest of the heuristic's candidates, and
      the heuristic's first alone) and PyTorch's torch.matmul, in float16, bfloat16 and float32 (no
      TF32), on the MLP's products (4096 x 1024 @ (4096 x 1024).T, 4096 x 4096 @ (4096 x 4096).T,
      4096 x 4096 @ (1024 x 4096).T: nn.Linear's x @ w.T) and squares 1024, 2048, 4096, 8192 (--j-max
      caps them); prints for each dtype the least m*n*k from which hipBLASLt was at least --j-margin
      faster on every larger product: the value for `_libs.blaslt.MATMUL_MIN_MNK` (matmul's route).
  (k), (l) attention's two matmuls, q @ k.mT then p @ v, in bfloat16 (k) and float32 (l, no
      TF32): q, k, v (b, h, s, d) = (8, 16, 512, 64) views of one (b, s, 3, h, d) projection;
      hip.tensor one gemm each over device arrays of the heads' addresses, PyTorch's torch.matmul
      on the same views (it copies the operands no one stride walks first).

GPU times are ht.Event pairs on the null stream around each call (the peers use it too), warm-up
first, best of --reps. A peer that cannot be imported is skipped with a message. Nothing asserts
a timing; exits 77 without a GPU, 1 if a part failed, else 0. HIP_PLATFORM defaults to nvidia.
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


def report(label, ms, flops=None, base_ms=None):
    rate = f"{flops / (ms * 1e-3) / 1e12:8.1f} TFLOP/s" if flops else ""
    ratio = f"  (hip.tensor {ms / base_ms:.2f}x as fast)" if base_ms and label != "hip.tensor" else ""
    print(f"  {label:<12} {ms:10.3f} ms  {rate}{ratio}")
    return {"ms": ms}


def contenders(args, peers, make, flops=None):
    """Time each contender's call; `make(lib)` returns (fn, keep-alive) or raises Skip."""
    out = {}
    for name, label in (("ht", "hip.tensor"), ("torch", "PyTorch"), ("cupy", "CuPy")):
        if name != "ht" and name not in peers:
            continue
        try:
            fn, keep = make(name)
        except Skip as e:
            print(f"  {label:<12} skipped: {e}")
            continue
        base = out.get("ht", {}).get("ms")
        out[name] = report(label, bt.gpu_ms(fn, args.reps), flops, base)
        del fn, keep
        bt.free_all(peers)
    return out


def part_gemm(args, peers, dtype: str, tf32: bool = False):
    import numpy as np
    import hip.tensor as ht
    n = args.n
    host = np.random.default_rng(0).uniform(-1, 1, (2, n, n)).astype(np.float32)

    def make(lib):
        if lib == "ht":
            x, y = ht.asarray(host[0], dtype=dtype), ht.asarray(host[1], dtype=dtype)
            return (lambda: ht.matmul(x, y)), (x, y)
        if lib == "torch":
            torch = peers["torch"]
            t = torch.from_numpy(host).cuda().to(getattr(torch, dtype))
            return (lambda: torch.matmul(t[0], t[1])), t
        if dtype == "bfloat16":
            raise Skip("CuPy has no bfloat16")
        if tf32:
            raise Skip("CuPy's TF32 switch (CUPY_TF32) is read at import")
        cp = peers["cupy"]
        c = cp.asarray(host)
        return (lambda: cp.matmul(c[0], c[1])), c

    torch = peers.get("torch")
    old = torch.backends.cuda.matmul.allow_tf32 if torch else None
    ht.backends.matmul.allow_tf32 = tf32
    if torch:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        return contenders(args, peers, make, 2.0 * n ** 3)
    finally:
        ht.backends.matmul.allow_tf32 = False
        if torch:
            torch.backends.cuda.matmul.allow_tf32 = old


def part_batched(args, peers):
    import numpy as np
    import hip.tensor as ht
    b, m = args.batch, 64
    host = np.random.default_rng(1).uniform(-1, 1, (2, b, m, m)).astype(np.float32)

    def make(lib):
        if lib == "ht":
            x, y = ht.asarray(host[0]), ht.asarray(host[1])
            return (lambda: ht.matmul(x, y)), (x, y)
        if lib == "torch":
            t = peers["torch"].from_numpy(host).cuda()
            return (lambda: peers["torch"].bmm(t[0], t[1])), t
        c = peers["cupy"].asarray(host)
        return (lambda: peers["cupy"].matmul(c[0], c[1])), c
    return contenders(args, peers, make, 2.0 * b * m ** 3)


def part_attention(args, peers, dtype: str):
    import numpy as np
    import hip.tensor as ht
    b, s, h, d = 8, 512, 16, 64
    host = np.random.default_rng(2).uniform(-1, 1, (b, s, 3, h, d)).astype(np.float32)
    p_host = np.random.default_rng(3).uniform(0, 1.0 / s, (b, h, s, s)).astype(np.float32)

    def make(lib):
        if lib == "ht":
            x, p = ht.asarray(host, dtype=dtype), ht.asarray(p_host, dtype=dtype)
            q, k, v = (x[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
            return (lambda: (ht.matmul(q, k.mT), ht.matmul(p, v))), (x, p)
        if lib == "torch":
            torch = peers["torch"]
            x = torch.from_numpy(host).cuda().to(getattr(torch, dtype))
            p = torch.from_numpy(p_host).cuda().to(getattr(torch, dtype))
            q, k, v = (x[:, :, i].transpose(1, 2) for i in range(3))
            return (lambda: (torch.matmul(q, k.transpose(-1, -2)), torch.matmul(p, v))), (x, p)
        raise Skip("hip.tensor against PyTorch only")

    torch = peers.get("torch")
    old = torch.backends.cuda.matmul.allow_tf32 if torch else None
    if torch:
        torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return contenders(args, peers, make, 2.0 * 2 * b * h * s * s * d)
    finally:
        if torch:
            torch.backends.cuda.matmul.allow_tf32 = old


def part_factor(args, peers, what: str):
    import numpy as np
    import hip.tensor as ht
    n = args.nf
    g = np.random.default_rng(2).standard_normal((n, n)).astype(np.float32)
    a = (g @ g.T / n + np.eye(n, dtype=np.float32)) if what == "cholesky" else g + np.sqrt(n) * np.eye(n, dtype=np.float32)
    a = a.astype(np.float32)       # np.sqrt(n) is a float64 scalar: NumPy 2 made the solve system float64
    rhs = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    assert a.dtype == rhs.dtype == np.float32      # every contender solves the same float32 system

    def make(lib):
        if lib == "ht":
            x, y = ht.asarray(a), ht.asarray(rhs)
            fn = (lambda: ht.linalg.cholesky(x)) if what == "cholesky" else (lambda: ht.linalg.solve(x, y))
            return fn, (x, y)
        if lib == "torch":
            torch = peers["torch"]
            x, y = torch.from_numpy(a).cuda(), torch.from_numpy(rhs).cuda()
            fn = (lambda: torch.linalg.cholesky(x)) if what == "cholesky" else (lambda: torch.linalg.solve(x, y))
            return fn, (x, y)
        cp = peers["cupy"]
        x, y = cp.asarray(a), cp.asarray(rhs)
        fn = (lambda: cp.linalg.cholesky(x)) if what == "cholesky" else (lambda: cp.linalg.solve(x, y))
        return fn, (x, y)
    flops = n ** 3 / 3 if what == "cholesky" else 2 * n ** 3 / 3
    return contenders(args, peers, make, flops)


def part_batched_lu(args, peers, what: str):
    import numpy as np
    import hip.tensor as ht
    b, m = args.batch, 64
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((b, m, m)) + m * np.eye(m)).astype(np.float32)
    rhs = rng.standard_normal((b, m, 1)).astype(np.float32)

    def make(lib):
        if lib == "ht":
            x, y, L = ht.asarray(a), ht.asarray(rhs), ht.linalg
        elif lib == "torch":
            x, y, L = peers["torch"].from_numpy(a).cuda(), peers["torch"].from_numpy(rhs).cuda(), peers["torch"].linalg
        else:
            x, y, L = peers["cupy"].asarray(a), peers["cupy"].asarray(rhs), peers["cupy"].linalg
        return ((lambda: L.solve(x, y)) if what == "solve" else (lambda: L.inv(x))), (x, y)
    return contenders(args, peers, make)


def part_batched_eigh(args, peers):
    import numpy as np
    import hip.tensor as ht
    b, m = args.batch, 16
    g = np.random.default_rng(5).standard_normal((b, m, m))
    a = (g + np.swapaxes(g, -1, -2)).astype(np.float32)

    def make(lib):
        if lib == "ht":
            x, L = ht.asarray(a), ht.linalg
        elif lib == "torch":
            x, L = peers["torch"].from_numpy(a).cuda(), peers["torch"].linalg
        else:
            x, L = peers["cupy"].asarray(a), peers["cupy"].linalg
        return (lambda: L.eigh(x)), x
    return contenders(args, peers, make)


JSHAPES = [("MLP 4096x1024 @ w.T", 4096, 4096, 1024, True), ("MLP 4096x4096 @ w.T", 4096, 4096, 4096, True),
           ("MLP 4096x4096 @ w.T (out 1024)", 4096, 1024, 4096, True)] + \
          [(f"square {n}", n, n, n, False) for n in (1024, 2048, 4096, 8192)]


def part_matmul_route(args, peers):
    """(j): {dtype: {"rows": {label: {"mnk", "hipblas", "lt", "lt_first", "torch"} (ms)}, "route": least m*n*k}}."""
    import numpy as np
    import hip.tensor as ht
    from hip.tensor._libs import blaslt
    if not blaslt.available():
        raise Skip("hipBLASLt does not load here")
    torch = peers.get("torch")
    if torch:
        torch.backends.cuda.matmul.allow_tf32 = False
    ht.backends.matmul.allow_tf32 = False
    rng = np.random.default_rng(6)
    out, saved = {}, dict(blaslt.MATMUL_MIN_MNK)
    try:
        for dt in ("float16", "bfloat16", "float32"):
            print(f" {dt}")
            rows = {}
            for label, m, n, k, wt in JSHAPES:
                if max(m, n, k) > args.j_max:
                    continue
                ha = rng.uniform(-1, 1, (m, k)).astype(np.float32)
                hb = rng.uniform(-1, 1, (n, k) if wt else (k, n)).astype(np.float32)
                a, b = ht.asarray(ha, dtype=dt), ht.asarray(hb, dtype=dt)
                b2 = b.mT if wt else b
                r = rows[label] = {"mnk": m * n * k}
                flops = 2.0 * m * n * k
                for key, lt, tune in (("hipblas", False, True), ("lt", True, True), ("lt_first", True, False)):
                    ht.backends.matmul.use_hipblaslt = lt
                    ht.backends.matmul.hipblaslt_autotune = tune
                    blaslt.MATMUL_MIN_MNK[dt] = 0
                    try:
                        r[key] = bt.gpu_ms(lambda: ht.matmul(a, b2), args.reps)
                    finally:
                        ht.backends.matmul.use_hipblaslt = True
                        ht.backends.matmul.hipblaslt_autotune = True
                        blaslt.MATMUL_MIN_MNK.clear()
                        blaslt.MATMUL_MIN_MNK.update(saved)
                if torch:
                    ta = torch.from_numpy(ha).cuda().to(getattr(torch, dt))
                    tb = torch.from_numpy(hb).cuda().to(getattr(torch, dt))
                    tb2 = tb.mT if wt else tb
                    r["torch"] = bt.gpu_ms(lambda: torch.matmul(ta, tb2), args.reps)
                    del ta, tb, tb2
                tf = lambda ms: f"{flops / (ms * 1e-3) / 1e12:7.1f}"   # noqa: E731
                theirs = f"  PyTorch {tf(r['torch'])}" if "torch" in r else ""
                print(f"  {label:<32} TFLOP/s: hipBLAS {tf(r['hipblas'])}  hipBLASLt {tf(r['lt'])} "
                      f"(first {tf(r['lt_first'])}){theirs}  hipBLASLt {r['hipblas'] / r['lt']:.3f}x hipBLAS")
                del a, b, b2
                bt.free_all(peers)
            least = route(rows, args.j_margin)
            print(f"  route {dt}: " + ("hipBLAS everywhere" if least is None else f"hipBLASLt from m*n*k >= {least}"))
            out[dt] = {"rows": rows, "route": least}
    finally:
        if torch:
            torch.backends.cuda.matmul.allow_tf32 = False
    suggested = {dt: v["route"] for dt, v in out.items() if v["route"] is not None}
    print(f" suggested MATMUL_MIN_MNK = {suggested} (now {saved})")
    return out


def route(rows, margin: float):
    """The least m*n*k from which hipBLASLt beat hipBLAS by `margin` on every product at least that large."""
    sizes = sorted({r["mnk"] for r in rows.values()})
    least = None
    for s in reversed(sizes):
        if all(r["hipblas"] / r["lt"] >= 1 + margin for r in rows.values() if r["mnk"] >= s):
            least = s
        else:
            break
    return least


def summary(results):
    rows = []
    for key, label in (("a", "sgemm vs PyTorch >= 0.98x"), ("c", "bf16 gemm vs PyTorch >= 0.98x")):
        r = results.get(key, {})
        if "ht" in r and "torch" in r:
            ratio = r["torch"]["ms"] / r["ht"]["ms"]
            rows.append((label, f"{ratio:.3f}x", "met" if ratio >= 0.98 else "NOT met"))
        else:
            rows.append((label, "n/a", "not measured"))
    for key, label in (("d", "batched 64^3 gemm vs PyTorch"), ("e", "cholesky vs PyTorch"), ("f", "solve vs PyTorch"),
                       ("g", "batched solve vs PyTorch"), ("h", "batched inv vs PyTorch"),
                       ("i", "batched eigh 16^2 vs PyTorch"), ("k", "attention bf16 vs PyTorch"),
                       ("l", "attention float32 vs PyTorch")):
        r = results.get(key, {})
        if "ht" in r and "torch" in r:
            rows.append((label, f"{r['torch']['ms'] / r['ht']['ms']:.3f}x", "(no target)"))
    for dt, v in (results.get("j") or {}).items():
        best = max(r["hipblas"] / r["lt"] for r in v["rows"].values())
        rows.append((f"matmul {dt}: hipBLASLt vs hipBLAS", f"up to {best:.3f}x",
                     "hipBLAS only" if v["route"] is None else f"route from mnk {v['route']}"))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b,c,d,e,f,g,h,i,j,k,l",
                    help="parts to run (default a,b,c,d,e,f,g,h,i,j,k,l)")
    ap.add_argument("--n", type=int, default=8192, help="gemm size of (a)-(c) (default 8192)")
    ap.add_argument("--batch", type=int, default=4096,
                    help="(d), (g), (h) batch of 64 x 64 matrices, (i) of 16 x 16 (default 4096)")
    ap.add_argument("--nf", type=int, default=4096, help="(e), (f) matrix size (default 4096)")
    ap.add_argument("--reps", type=int, default=10, help="timed calls per contender, best taken (default 10)")
    ap.add_argument("--j-max", type=int, default=8192, help="(j) largest dimension measured (default 8192)")
    ap.add_argument("--j-margin", type=float, default=0.01,
                    help="(j) how much faster hipBLASLt must be to be routed to (default 0.01: 1%%)")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    if bt.open_device() is None:
        return 77
    peers = bt.load_peers()
    bt.print_peers(peers)
    print()
    table = [("a", f"sgemm {args.n}^3 float32", lambda: part_gemm(args, peers, "float32")),
             ("b", f"sgemm {args.n}^3 float32, TF32 allowed", lambda: part_gemm(args, peers, "float32", tf32=True)),
             ("c", f"bf16 gemm {args.n}^3", lambda: part_gemm(args, peers, "bfloat16")),
             ("d", f"batched gemm {args.batch} x 64^3 float32", lambda: part_batched(args, peers)),
             ("e", f"cholesky {args.nf}^2 float32", lambda: part_factor(args, peers, "cholesky")),
             ("f", f"solve {args.nf}^2 float32, one right-hand side", lambda: part_factor(args, peers, "solve")),
             ("g", f"batched solve {args.batch} x 64^2 float32", lambda: part_batched_lu(args, peers, "solve")),
             ("h", f"batched inv {args.batch} x 64^2 float32", lambda: part_batched_lu(args, peers, "inv")),
             ("i", f"batched eigh {args.batch} x 16^2 float32", lambda: part_batched_eigh(args, peers)),
             ("j", "matmul through hipBLAS and hipBLASLt", lambda: part_matmul_route(args, peers)),
             ("k", "attention matmuls bfloat16", lambda: part_attention(args, peers, "bfloat16")),
             ("l", "attention matmuls float32", lambda: part_attention(args, peers, "float32"))]
    t0 = time.perf_counter()
    results, errors = bt.run_parts(table, parts)
    print("summary")
    for target, value, ok in summary(results):
        print(f"  {target:<32}  {value:<10} {ok}")
    for key, e in errors.items():
        print(f"  ({key}) {e}")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 1 if any(e.startswith("failed") for e in errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
