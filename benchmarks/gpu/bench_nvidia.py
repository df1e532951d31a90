#!/usr/bin/env python3
"""HIP on NVIDIA: what the HIP-on-CUDA layer costs against CUDA itself, measured in one run.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_nvidia.py [--only a,b,c,d] [--layer PATH] ...

  (a) per-call overhead in C (benchmarks/gpu/call_overhead.c, built here with gcc -ldl): the
      layer's hipGetDevice vs cudaGetDevice, hipPeekAtLastError vs cudaPeekAtLastError and
      hipCtxGetCurrent vs the driver's cuCtxGetCurrent (the layer's own cost: the same libcuda
      on both sides, where the first two compare the layer's static cudart with the shared
      one), with device 0's primary context current, 31 alternating rounds of 3*10^5 calls each; the overhead is the median over rounds of
      (hip - cuda) in the same round; target: <= +30 ns a call.
  (b) hipMemcpy host->device of 256 MiB from pinned memory (hipHostMalloc) vs cudaMemcpy from
      cudaMallocHost memory through cuda.bindings; best of 10 alternating copies each;
      target: bandwidth ratio >= 0.97.
  (c) Python -> kernel launch: an empty kernel compiled with hiprtc and launched with
      hipModuleLaunchKernel in a loop (20000 launches, then synchronize), vs cuda.bindings'
      cuLaunchKernel of the same source compiled with cuda.bindings' NVRTC, vs CuPy's
      RawKernel; best of 5 rounds; target: <= 1.0x cuda.bindings.
  (d) sgemm 8192^3 (float32) through hipblasSgemm vs torch.matmul with TF32 off, timed with
      events, best of 3 rounds of 10; target: >= 0.98x torch.

Each part is guarded: one that fails is reported and the others still run. Prints the GPU model
and a summary table at the end. Exits 77 without a GPU (or without the layer), 1 if a part
failed, else 0 (nothing here asserts a timing). HIP_PLATFORM defaults to nvidia here.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import time

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(HERE))
import _util  # noqa: E402  (benchmarks/_util.py: machine())

DEFAULT_LAYER = os.path.join(REPO, "hip", "_nvidia", "libhip-nvidia-hip.so")
BUILD = os.path.join(REPO, "build", "bench-nvidia")
EMPTY_KERNEL = 'extern "C" __global__ void empty() {}\n'
MiB = 1 << 20


Skip = _util.Skip


def hip_modules():
    import hip
    from hip import hip as h
    return hip, h


def cuda_bindings():
    try:
        from cuda.bindings import driver, nvrtc, runtime
    except ImportError as e:
        raise Skip(f"cuda.bindings is not installed ({e})")
    return driver, runtime, nvrtc


def cuda_ok(result, what="CUDA call"):
    err, rest = result[0], result[1:]
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: {err!r}")
    return rest[0] if len(rest) == 1 else (rest or None)


def best_of(fn, rounds):
    return min(fn() for _ in range(rounds))


# -- (a) per-call overhead in C --------------------------------------------------------------------
def cudart_candidates() -> list[str]:
    """libcudart files to fall back on when the layer has not loaded one itself."""
    out = []
    for d in sys.path:
        out += sorted(glob.glob(os.path.join(d, "nvidia", "cu13", "lib", "libcudart.so.*")))
        out += sorted(glob.glob(os.path.join(d, "nvidia", "cuda_runtime", "lib", "libcudart.so.*")))
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            out += sorted(glob.glob(os.path.join(root, "lib64", "libcudart.so.*")))
            out += sorted(glob.glob(os.path.join(root, "lib", "libcudart.so.*")))
    return [p for p in out if os.path.isfile(p)]


# (a)'s pairs, in call_overhead.c's order: the layer's function, CUDA's.
PAIRS_A = (("hipGetDevice", "cudaGetDevice"), ("hipPeekAtLastError", "cudaPeekAtLastError"),
           ("hipCtxGetCurrent", "cuCtxGetCurrent"))


def part_a(args, layer: str) -> dict:
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    if cc is None:
        raise Skip("no C compiler (gcc)")
    if not os.path.isfile(layer):
        raise Skip(f"no layer library at {layer} (pass --layer or set HIP_PYTHON_HIP_LIBRARY)")
    os.makedirs(BUILD, exist_ok=True)
    exe = os.path.join(BUILD, "call_overhead")
    src = os.path.join(HERE, "call_overhead.c")
    r = subprocess.run([cc, "-O2", "-std=gnu11", "-o", exe, src, "-ldl"], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"gcc failed:\n{r.stderr[-3000:]}")
    cudart = args.cudart or ":".join(cudart_candidates())
    r = subprocess.run([exe, layer, cudart, str(args.calls), str(args.call_rounds)], capture_output=True,
                       text=True, timeout=600)
    if r.returncode:
        raise RuntimeError(f"call_overhead exited {r.returncode}: {r.stderr.strip()[-2000:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"  layer   {res['layer']}")
    print(f"  cudart  {res['cudart']} ({res['cudart_how']})")
    print(f"  driver  {res['driver']}")
    print(f"  {res['calls']} calls x {res['repeat']} alternating rounds: best ns/call of each, "
          "difference = median over rounds of (hip - cuda) in the same round")
    for hip_name, cuda_name in PAIRS_A:
        print(f"  {hip_name:<19} {res[hip_name]:7.2f} ns/call   {cuda_name:<20} "
              f"{res[cuda_name]:7.2f} ns/call   difference {res[hip_name + '_median_diff']:+6.2f} ns")
    return res


# -- (b) pinned host -> device copies ---------------------------------------------------------------
def part_b(args) -> dict:
    hip, h = hip_modules()
    _, rt, _ = cuda_bindings()
    size = args.copy_mib * MiB
    H2D = h.hipMemcpyKind.hipMemcpyHostToDevice
    hp = hip.check(h.hipHostMalloc(size, h.hipHostMallocDefault))
    hd = hip.check(h.hipMalloc(size))
    cp = cuda_ok(rt.cudaMallocHost(size), "cudaMallocHost")
    cd = cuda_ok(rt.cudaMalloc(size), "cudaMalloc")
    ckind = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
    try:
        ctypes.memset(int(hp), 1, size)
        ctypes.memset(int(cp), 1, size)

        def hip_copy():
            t0 = time.perf_counter()
            hip.check(h.hipMemcpy(hd, hp, size, H2D))
            return time.perf_counter() - t0

        def cuda_copy():
            t0 = time.perf_counter()
            cuda_ok(rt.cudaMemcpy(cd, cp, size, ckind), "cudaMemcpy")
            return time.perf_counter() - t0

        for _ in range(2):
            hip_copy()
            cuda_copy()
        th, tc = [], []
        for i in range(args.copies):
            if i % 2 == 0:
                th.append(hip_copy())
                tc.append(cuda_copy())
            else:
                tc.append(cuda_copy())
                th.append(hip_copy())
    finally:
        h.hipHostFree(hp)
        h.hipFree(hd)
        rt.cudaFreeHost(cp)
        rt.cudaFree(cd)
    res = {"hip_gbs": size / min(th) / 1e9, "cuda_gbs": size / min(tc) / 1e9,
           "hip_median_gbs": size / sorted(th)[len(th) // 2] / 1e9,
           "cuda_median_gbs": size / sorted(tc)[len(tc) // 2] / 1e9}
    res["ratio"] = res["hip_gbs"] / res["cuda_gbs"]
    print(f"  {args.copy_mib} MiB host->device from pinned memory, best (median) of {args.copies}")
    print(f"  hipMemcpy   {res['hip_gbs']:6.2f} GB/s ({res['hip_median_gbs']:6.2f})")
    print(f"  cudaMemcpy  {res['cuda_gbs']:6.2f} GB/s ({res['cuda_median_gbs']:6.2f})   (cuda.bindings)")
    print(f"  ratio {res['ratio']:.3f}")
    return res


# -- (c) kernel launch latency from Python ----------------------------------------------------------
def time_loop(launch, sync, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        launch()
    sync()
    return (time.perf_counter() - t0) / n * 1e6


def hip_launcher(arch: str):
    hip, h = hip_modules()
    from hip import hiprtc
    prog = hip.check(hiprtc.hiprtcCreateProgram(EMPTY_KERNEL.encode(), b"empty.hip", 0, None, None))
    err, = hiprtc.hiprtcCompileProgram(prog, 1, [f"--offload-arch={arch}".encode()])
    if err != hiprtc.hiprtcResult.HIPRTC_SUCCESS:
        log = bytearray(hip.check(hiprtc.hiprtcGetProgramLogSize(prog)))
        hip.check(hiprtc.hiprtcGetProgramLog(prog, log))
        raise RuntimeError(f"hiprtc: {err!r}: {log.decode(errors='replace')}")
    code = bytearray(hip.check(hiprtc.hiprtcGetCodeSize(prog)))
    hip.check(hiprtc.hiprtcGetCode(prog, code))
    hip.check(hiprtc.hiprtcDestroyProgram(prog))
    mod = hip.check(h.hipModuleLoadData(code))
    f = hip.check(h.hipModuleGetFunction(mod, b"empty"))
    launch_fn = h.hipModuleLaunchKernel
    for _ in range(100):                                   # checked launches first: the loop does not check
        hip.check(launch_fn(f, 1, 1, 1, 1, 1, 1, 0, None, None, None))
    hip.check(h.hipDeviceSynchronize())

    def launch():
        launch_fn(f, 1, 1, 1, 1, 1, 1, 0, None, None, None)

    def sync():
        hip.check(h.hipDeviceSynchronize())
    return launch, sync


def cuda_launcher(major: int, minor: int):
    drv, rt, nvrtc = cuda_bindings()
    import numpy as np
    cuda_ok(drv.cuInit(0), "cuInit")
    dev = cuda_ok(drv.cuDeviceGet(0), "cuDeviceGet")
    ctx = cuda_ok(drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    cuda_ok(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    prog = cuda_ok(nvrtc.nvrtcCreateProgram(EMPTY_KERNEL.encode(), b"empty.cu", 0, None, None), "nvrtcCreateProgram")
    opts = [f"--gpu-architecture=sm_{major}{minor}".encode()]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if int(err) != 0:
        raise RuntimeError(f"nvrtcCompileProgram: {err!r}")
    size = cuda_ok(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
    cubin = b" " * size
    cuda_ok(nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
    mod = cuda_ok(drv.cuModuleLoadData(np.frombuffer(cubin, np.uint8)), "cuModuleLoadData")
    f = cuda_ok(drv.cuModuleGetFunction(mod, b"empty"), "cuModuleGetFunction")
    launch_fn = drv.cuLaunchKernel
    for _ in range(100):
        cuda_ok(launch_fn(f, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0), "cuLaunchKernel")
    cuda_ok(drv.cuCtxSynchronize(), "cuCtxSynchronize")

    def launch():
        launch_fn(f, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)

    def sync():
        cuda_ok(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    return launch, sync


def cupy_launcher():
    try:
        import cupy
    except ImportError as e:
        raise Skip(f"CuPy is not installed ({e})")
    k = cupy.RawKernel(EMPTY_KERNEL, "empty")
    grid, block, noargs = (1,), (1,), ()
    for _ in range(100):
        k(grid, block, noargs)
    cupy.cuda.Device().synchronize()

    def launch():
        k(grid, block, noargs)

    def sync():
        cupy.cuda.Device().synchronize()
    return launch, sync


def part_c(args, props) -> dict:
    arch = props.gcnArchName.decode() if isinstance(props.gcnArchName, bytes) else str(props.gcnArchName)
    contenders = {"hip": lambda: hip_launcher(arch), "cuda.bindings": lambda: cuda_launcher(props.major, props.minor),
                  "cupy": cupy_launcher}
    launchers = {"hip": hip_launcher(arch)}              # without it the part fails
    notes = {}
    for name, make in contenders.items():
        if name in launchers:
            continue
        try:
            launchers[name] = make()
        except Skip as e:
            notes[name] = f"skipped: {e}"
        except Exception as e:   # one reference failing leaves the others
            notes[name] = f"failed: {type(e).__name__}: {e}"
    best = {name: float("inf") for name in launchers}
    names = list(launchers)
    for rnd in range(args.rounds):
        for name in (names if rnd % 2 == 0 else names[::-1]):
            launch, sync = launchers[name]
            best[name] = min(best[name], time_loop(launch, sync, args.launches))
    print(f"  empty kernel, 1x1 grid, {args.launches} launches then one synchronize, best of {args.rounds} rounds")
    for name in contenders:
        if name in best:
            print(f"  {name:14s} {best[name]:6.2f} us/launch")
        else:
            print(f"  {name:14s} {notes[name]}")
    res = {"us": best, "notes": notes}
    if "cuda.bindings" in best:
        res["ratio_cuda"] = best["hip"] / best["cuda.bindings"]
        print(f"  hip / cuda.bindings = {res['ratio_cuda']:.2f}x")
    if "cupy" in best:
        res["ratio_cupy"] = best["hip"] / best["cupy"]
        print(f"  hip / cupy          = {res['ratio_cupy']:.2f}x")
    return res


# -- (d) sgemm ------------------------------------------------------------------------------------
def part_d(args) -> dict:
    hip, h = hip_modules()
    from hip import hipblas
    import numpy as np
    try:
        import torch
    except ImportError as e:
        raise Skip(f"PyTorch is not installed ({e})")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    n = args.n
    nbytes = n * n * 4
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    H2D = h.hipMemcpyKind.hipMemcpyHostToDevice
    D2D = h.hipMemcpyKind.hipMemcpyDeviceToDevice
    da, db, dc = (hip.check(h.hipMalloc(nbytes)) for _ in range(3))
    handle = hip.check(hipblas.hipblasCreate())
    stream = hip.check(h.hipStreamCreate())
    start, stop = hip.check(h.hipEventCreate()), hip.check(h.hipEventCreate())
    try:
        hip.check(h.hipMemcpy(da, a, nbytes, H2D))
        hip.check(h.hipMemcpy(db, b, nbytes, H2D))
        hip.check(hipblas.hipblasSetStream(handle, stream))
        mode = ctypes.c_int(-1)                       # the caller's storage (AMD's HIP Python convention)
        hip.check(hipblas.hipblasGetMathMode(handle, mode))
        mode = hipblas.hipblasMath_t(mode.value)
        OP_N = hipblas.hipblasOperation_t.HIPBLAS_OP_N

        def hip_sgemm():   # row-major C = A @ B is column-major C^T = B^T A^T
            hip.check(hipblas.hipblasSgemm(handle, OP_N, OP_N, n, n, n, 1.0, db, n, da, n, 0.0, dc, n))

        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        tc = torch.empty_like(ta)

        def torch_sgemm():
            torch.matmul(ta, tb, out=tc)

        def hip_round():
            hip.check(h.hipEventRecord(start, stream))
            for _ in range(args.iters):
                hip_sgemm()
            hip.check(h.hipEventRecord(stop, stream))
            hip.check(h.hipEventSynchronize(stop))
            return hip.check(h.hipEventElapsedTime(start, stop)) / args.iters

        def torch_round():
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(args.iters):
                torch_sgemm()
            e1.record()
            e1.synchronize()
            return e0.elapsed_time(e1) / args.iters

        for _ in range(2):
            hip_sgemm()
            torch_sgemm()
        hip.check(h.hipStreamSynchronize(stream))
        torch.cuda.synchronize()
        ms_hip, ms_torch = float("inf"), float("inf")
        for rnd in range(args.gemm_rounds):
            if rnd % 2 == 0:
                ms_hip = min(ms_hip, hip_round())
                ms_torch = min(ms_torch, torch_round())
            else:
                ms_torch = min(ms_torch, torch_round())
                ms_hip = min(ms_hip, hip_round())
        # same inputs, both float32 without TF32: the products must agree closely
        got = torch.empty_like(tc)
        hip.check(h.hipMemcpy(got.data_ptr(), dc, nbytes, D2D))
        rel = float((got - tc).abs().max() / tc.abs().max())
    finally:
        h.hipEventDestroy(start)
        h.hipEventDestroy(stop)
        hipblas.hipblasDestroy(handle)
        h.hipStreamDestroy(stream)
        for d in (da, db, dc):
            h.hipFree(d)
    flop = 2.0 * n ** 3
    res = {"hip_tflops": flop / (ms_hip * 1e-3) / 1e12, "torch_tflops": flop / (ms_torch * 1e-3) / 1e12,
           "max_rel_diff": rel, "math_mode": getattr(mode, "name", str(mode))}
    res["ratio"] = res["hip_tflops"] / res["torch_tflops"]
    print(f"  sgemm {n}x{n}x{n} float32, {args.iters} per round, best of {args.gemm_rounds} rounds (events)")
    print(f"  hipblas math mode {res['math_mode']} (cuBLAS' default math: no TF32 for sgemm); "
          f"torch allow_tf32={torch.backends.cuda.matmul.allow_tf32}; "
          f"NVIDIA_TF32_OVERRIDE={os.environ.get('NVIDIA_TF32_OVERRIDE', 'unset')}")
    print(f"  hipblasSgemm  {res['hip_tflops']:6.2f} TFLOP/s ({ms_hip:.2f} ms)")
    print(f"  torch.matmul  {res['torch_tflops']:6.2f} TFLOP/s ({ms_torch:.2f} ms)")
    print(f"  ratio {res['ratio']:.3f}; max |C_hip - C_torch| / max |C| = {rel:.2e}"
          + ("  (large: TF32 on one side?)" if rel > 1e-4 else ""))
    return res


# -- main ------------------------------------------------------------------------------------------
def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="a,b,c,d", help="parts to run (default a,b,c,d)")
    ap.add_argument("--layer", default=None, help="the layer's libhip-nvidia-hip.so for (a) (default: the one "
                    "`hip` loaded, else HIP_PYTHON_HIP_LIBRARY, else hip/_nvidia/libhip-nvidia-hip.so)")
    ap.add_argument("--cudart", default=None, help="libcudart for (a) if the layer has not loaded one (PATH[:PATH])")
    ap.add_argument("--calls", type=int, default=300_000, help="(a) calls per round")
    ap.add_argument("--call-rounds", type=int, default=31, help="(a) alternating rounds")
    ap.add_argument("--copy-mib", type=int, default=256, help="(b) MiB per copy")
    ap.add_argument("--copies", type=int, default=10, help="(b) timed copies each")
    ap.add_argument("--launches", type=int, default=20_000, help="(c) launches per round")
    ap.add_argument("--rounds", type=int, default=5, help="(c) rounds")
    ap.add_argument("--n", type=int, default=8192, help="(d) matrix size")
    ap.add_argument("--iters", type=int, default=10, help="(d) sgemms per round")
    ap.add_argument("--gemm-rounds", type=int, default=3, help="(d) rounds")
    args = ap.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]

    from hip.errors import HipPythonError
    try:
        hip, h = hip_modules()
        err, count = h.hipGetDeviceCount()
    except HipPythonError as e:                              # the layer is not built / not found
        print(f"skipped: the HIP runtime could not be loaded: {str(e).splitlines()[0]}")
        return 77
    if err != h.hipError_t.hipSuccess or count == 0:
        print(f"skipped: no GPU ({getattr(err, 'name', err)}, {count} devices)")
        return 77
    props = h.hipDeviceProp_t()
    hip.check(h.hipGetDeviceProperties(props, 0))
    name = props.name.decode(errors="replace") if isinstance(props.name, bytes) else str(props.name)
    layer = args.layer or h._library.path or os.environ.get("HIP_PYTHON_HIP_LIBRARY") or DEFAULT_LAYER
    print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine  {_util.machine()}")
    print(f"GPU      {name} (device 0 of {count}), {props.gcnArchName.decode(errors='replace')}, "
          f"{props.multiProcessorCount} SMs, {props.totalGlobalMem / 2**30:.1f} GiB")
    print(f"HIP      {h._library.path} (HIP_PLATFORM={os.environ.get('HIP_PLATFORM')}); "
          f"driver {hip.check(h.hipDriverGetVersion())}, runtime {hip.check(h.hipRuntimeGetVersion())}")
    print(f"python   {platform.python_version()}")
    print()

    table = [("a", "C per-call overhead", lambda: part_a(args, layer)),
             ("b", "pinned H2D hipMemcpy vs cudaMemcpy", lambda: part_b(args)),
             ("c", "Python kernel launch latency", lambda: part_c(args, props)),
             ("d", f"sgemm {args.n}^3 hipblas vs torch", lambda: part_d(args))]
    results, errors = _util.run_parts(table, parts)

    print("summary")
    rows = []
    if "a" in results:
        r = results["a"]
        for hip_name, cuda_name in PAIRS_A:
            d = r[hip_name + "_median_diff"]
            rows.append((f"(a) {hip_name} - {cuda_name}"[:38], f"{d:+.1f} ns (best {r[hip_name]:.1f} vs "
                         f"{r[cuda_name]:.1f})", "<= +30 ns", verdict(d <= 30)))
    if "b" in results:
        r = results["b"]
        rows.append((f"(b) H2D {args.copy_mib} MiB pinned, hip/cuda", f"{r['ratio']:.3f} ({r['hip_gbs']:.1f} vs "
                     f"{r['cuda_gbs']:.1f} GB/s)", ">= 0.97", verdict(r["ratio"] >= 0.97)))
    if "c" in results:
        r = results["c"]
        us = r["us"]
        if "ratio_cuda" in r:
            rows.append(("(c) launch, hip/cuda.bindings", f"{r['ratio_cuda']:.2f}x ({us['hip']:.2f} vs "
                         f"{us['cuda.bindings']:.2f} us)", "<= 1.0x", verdict(r["ratio_cuda"] <= 1.0)))
        else:
            rows.append(("(c) launch, hip", f"{us['hip']:.2f} us", "<= 1.0x cuda.bindings",
                         r["notes"].get("cuda.bindings", "not measured")))
        if "ratio_cupy" in r:
            rows.append(("(c) launch, hip/cupy", f"{r['ratio_cupy']:.2f}x ({us['hip']:.2f} vs {us['cupy']:.2f} us)",
                         "(reference)", ""))
    if "d" in results:
        r = results["d"]
        rows.append(("(d) sgemm, hipblas/torch", f"{r['ratio']:.3f} ({r['hip_tflops']:.1f} vs "
                     f"{r['torch_tflops']:.1f} TFLOP/s)", ">= 0.98", verdict(r["ratio"] >= 0.98)))
    for key, why in errors.items():
        rows.append((f"({key})", why, "", ""))
    w = [max(len(row[i]) for row in rows) if rows else 0 for i in range(4)]
    for row in rows:
        print("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(row)).rstrip())
    return 1 if any(v.startswith("failed") for v in errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
