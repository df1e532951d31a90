#!/usr/bin/env python3
"""The `cuda` alias's cost (issue 12, item 9), measured in one run on one GPU.

    HIP_PLATFORM=nvidia python3 benchmarks/gpu/bench_alias.py [--calls N] [--launches N] [--rounds R] [--imports N]
    python3 benchmarks/gpu/bench_alias.py --imports-only [--nvidia-python PY]    (c) alone, no GPU needed
    python3 benchmarks/gpu/bench_alias.py --stand-in [--nvidia-python PY]        (s) alone, no GPU needed

Three contenders, each in its own fresh interpreters with the same timing code:
  nvidia  NVIDIA's cuda.bindings       python worker.py            (this repository off PYTHONPATH)
  alias   ours, cuda.bindings on HIP   python -m hip_as_cuda worker.py
  hip     our hip directly             python worker.py hip       (what the alias calls underneath)

  (a) a cheap call: cudaGetDevice (hip: hipGetDevice) and cuCtxGetCurrent (hip: hipCtxGetCurrent),
      ns per call, best of --repeat timeit repeats of --calls calls;
  (b) cuLaunchKernel of an almost empty kernel with 4 arguments given as ((values), (ctypes types))
      (hip: hipModuleLaunchKernel with a list of 4 ctypes values), 1 block of 32 threads on a
      non-blocking stream, --launches launches then one synchronize, us per launch, best of 5;
      and both of ours with the same arguments in the one form both take, ((int, int, 256, 0.5),
      (c_void_p, c_void_p, c_int, c_float)): the alias - hip figure;
  (c) `import cuda.bindings.driver` in fresh interpreters, --imports samples each, min and median
      (our .py files byte-compiled first, as pip installs them):
      the import statement itself (timed inside the program) and the whole process less a bare
      interpreter's start (what a user waits for, the hip_as_cuda launcher included).
  (s) the Python side alone: cuCtxGetCurrent of the alias and of NVIDIA's bindings over stand-in
      libraries built here whose cuCtxGetCurrent returns at once (a HIP library for the alias,
      HIP_PLATFORM=amd; a libcuda.so.1 that hands it to NVIDIA's bindings through
      cuGetProcAddress), so that neither HIP-on-CUDA layer nor driver is in the figure; --rounds
      processes each, alternating. Timing only, no device: it runs where NVIDIA's package imports.
  (a') (a)'s two calls again with NVIDIA's bindings and the alias loaded into one process (NVIDIA's
      first, then the alias through its import hook), on the one libcuda and the one context,
      timed in turns: what differs between two processes (which CUDA threads run where, the
      machine's state at that moment) is out of the comparison. --rounds processes. Needs
      NVIDIA's package in this interpreter (not with --nvidia-python).
(a) and (b) run --rounds times, the contenders' order alternating, and keep each one's best.
Targets: alias - hip <= +40 ns a call; alias <= 1.0x cuda.bindings for (a) and (b); import <= 0.5x.

Nothing here asserts a timing. Exits 77 without a GPU or without hip_as_cuda, 1 if a contender
failed, else 0. NVIDIA's cuda.bindings missing: the comparisons with it are skipped, the rest runs.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("HIP_PLATFORM", "nvidia")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(HERE))
import _util  # noqa: E402  (benchmarks/_util.py: machine())

KERNEL = 'extern "C" __global__ void k4(float *a, const float *b, int n, float s) { if (n < 0) a[0] = s * b[0]; }\n'

WORKER = r'''
import ctypes, json, os, sys, timeit
if os.environ.get("BENCH_ALIAS_CPU"):   # every contender on the same core (--cpu)
    os.sched_setaffinity(0, {int(os.environ["BENCH_ALIAS_CPU"])})
KERNEL = %(kernel)r
calls, repeat, launches = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


def best_ns(fn):
    return min(timeit.Timer(fn).repeat(repeat=repeat, number=calls)) / calls * 1e9


def best_launch_us(launch, sync):
    for _ in range(200):
        launch()
    sync()
    best = float("inf")
    for _ in range(5):
        t = timeit.default_timer()
        for _ in range(launches):
            launch()
        sync()
        best = min(best, (timeit.default_timer() - t) / launches * 1e6)
    return best


def same_form(d_a, d_b):
    """The kernel arguments in the one form both hip.hip and the alias take, as the same objects:
    ((values), (ctypes types)) with the device pointers as ints (the alias - hip comparison)."""
    return ((int(d_a), int(d_b), 256, 0.5), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_float))


def ok(r):
    """A cuda.bindings call's outputs; RuntimeError unless it succeeded."""
    if int(r[0]) != 0:
        raise RuntimeError(repr(r[0]))
    return r[1] if len(r) == 2 else r[1:]


def cuda_contender():
    from cuda.bindings import driver, nvrtc, runtime
    ok(driver.cuInit(0))
    ok(runtime.cudaSetDevice(0))
    ok(runtime.cudaFree(0))
    dev = ok(driver.cuDeviceGet(0))
    major = ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    prog = ok(nvrtc.nvrtcCreateProgram(KERNEL.encode(), b"k4.cu", 0, [], []))
    opts = [f"--gpu-architecture=sm_{major}{minor}".encode()]
    ok(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    cubin = b" " * ok(nvrtc.nvrtcGetCUBINSize(prog))
    ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = ok(driver.cuModuleLoadData(cubin))
    f = ok(driver.cuModuleGetFunction(module, b"k4"))
    d_a, d_b = ok(driver.cuMemAlloc(1024)), ok(driver.cuMemAlloc(1024))
    stream = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    args = ((d_a, d_b, 256, 0.5), (None, None, ctypes.c_int, ctypes.c_float))
    same = same_form(d_a, d_b)
    launch_fn, get_device, get_ctx = driver.cuLaunchKernel, runtime.cudaGetDevice, driver.cuCtxGetCurrent
    ok(launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, args, 0))
    ok(launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, same, 0))
    ok(driver.cuStreamSynchronize(stream))
    sync = lambda: ok(driver.cuStreamSynchronize(stream))
    return {
        "cheap": best_ns(get_device),
        "ctx": best_ns(get_ctx),
        "launch": best_launch_us(lambda: launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, args, 0), sync),
        "launch_same": best_launch_us(lambda: launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, same, 0), sync),
        "module": driver.__file__,
    }


def hip_contender():
    import hip
    from hip import hip as h, hiprtc
    props = h.hipDeviceProp_t()
    hip.check(h.hipGetDeviceProperties(props, 0))
    hip.check(h.hipSetDevice(0))
    arch = props.gcnArchName
    arch = arch.decode() if isinstance(arch, bytes) else str(arch)
    prog = hip.check(hiprtc.hiprtcCreateProgram(KERNEL.encode(), b"k4.hip", 0, None, None))
    err, = hiprtc.hiprtcCompileProgram(prog, 1, [f"--offload-arch={arch}".encode()])
    if err != hiprtc.hiprtcResult.HIPRTC_SUCCESS:
        raise RuntimeError(f"hiprtc: {err!r}")
    code = bytearray(hip.check(hiprtc.hiprtcGetCodeSize(prog)))
    hip.check(hiprtc.hiprtcGetCode(prog, code))
    module = hip.check(h.hipModuleLoadData(code))
    f = hip.check(h.hipModuleGetFunction(module, b"k4"))
    d_a, d_b = hip.check(h.hipMalloc(1024)), hip.check(h.hipMalloc(1024))
    stream = hip.check(h.hipStreamCreateWithFlags(h.hipStreamNonBlocking))
    params = [ctypes.c_void_p(int(d_a)), ctypes.c_void_p(int(d_b)), ctypes.c_int(256), ctypes.c_float(0.5)]
    launch_fn, get_device, get_ctx = h.hipModuleLaunchKernel, h.hipGetDevice, h.hipCtxGetCurrent
    same = same_form(d_a, d_b)
    hip.check(launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, params, None))
    hip.check(launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, same, None))
    hip.check(h.hipStreamSynchronize(stream))
    sync = lambda: hip.check(h.hipStreamSynchronize(stream))
    return {
        "cheap": best_ns(get_device),
        "ctx": best_ns(get_ctx),
        "launch": best_launch_us(lambda: launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, params, None), sync),
        "launch_same": best_launch_us(lambda: launch_fn(f, 1, 1, 1, 32, 1, 1, 0, stream, same, None), sync),
        "module": h.__file__,
    }


def both_contenders():
    """NVIDIA's bindings, then the alias, in this one process over the one libcuda: the cheap calls
    timed in turns, so that both meet the same process, threads and machine state."""
    from cuda.bindings import driver as nd, runtime as nr
    ok(nd.cuInit(0))
    ok(nr.cudaSetDevice(0))
    ok(nr.cudaFree(0))
    for k in [k for k in sys.modules if k == "cuda.bindings" or k.startswith("cuda.bindings.")]:
        del sys.modules[k]
    from hip_as_cuda._finder import install
    install()
    from cuda.bindings import driver as ad, runtime as ar
    if not ad.__file__.startswith(os.path.dirname(__import__("hip_as_cuda").__file__) + os.sep):
        raise RuntimeError(f"the alias did not take cuda.bindings: {ad.__file__}")
    ok(ad.cuInit(0))
    ok(ar.cudaSetDevice(0))
    if int(ok(ad.cuCtxGetCurrent())) != int(ok(nd.cuCtxGetCurrent())):
        raise RuntimeError("the two bindings see different current contexts")
    fns = [("nvidia", "cheap", nr.cudaGetDevice), ("nvidia", "ctx", nd.cuCtxGetCurrent),
           ("alias", "cheap", ar.cudaGetDevice), ("alias", "ctx", ad.cuCtxGetCurrent)]
    out = {"nvidia": {"cheap": float("inf"), "ctx": float("inf"), "module": nd.__file__},
           "alias": {"cheap": float("inf"), "ctx": float("inf"), "module": ad.__file__}}
    for turn in range(5):
        for who, key, fn in (fns if turn %% 2 == 0 else fns[::-1]):
            out[who][key] = min(out[who][key], best_ns(fn))
    return out


mode = sys.argv[1]
print(json.dumps(hip_contender() if mode == "hip" else both_contenders() if mode == "both" else cuda_contender()))
''' % {"kernel": KERNEL}

IMPORT_PROBE = """import time
t0 = time.perf_counter()
import cuda.bindings.driver
t1 = time.perf_counter()
print(t1 - t0, cuda.bindings.driver.__file__)
"""
CONTENDERS = ("nvidia", "alias", "hip")


def environments() -> dict[str, dict]:
    """nvidia: this repository off PYTHONPATH (our cuda must not shadow theirs); alias, hip: on it."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and not os.path.realpath(p).startswith(os.path.realpath(REPO))]
    nvidia = dict(base, PYTHONPATH=os.pathsep.join(rest)) if rest else base
    ours = dict(base, PYTHONPATH=os.pathsep.join([REPO] + rest))
    return {"nvidia": nvidia, "alias": ours, "hip": ours}


NVIDIA_PYTHON = [sys.executable]   # --nvidia-python: an interpreter whose environment has NVIDIA's package


def command(who: str, script: str, *args) -> list[str]:
    if who == "alias":
        return [sys.executable, "-m", "hip_as_cuda", script, *args]
    if who == "nvidia":
        return [*NVIDIA_PYTHON, script, *args]
    return [sys.executable, script, *args]


def run(cmd, env, cwd, timeout=300):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def last_line(r) -> str:
    lines = (r.stderr or r.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit status {r.returncode}"


def probe(envs, work) -> dict[str, str]:
    """Which contenders can run here: {who: ''} or {who: why not}."""
    why = {}
    r = run([*NVIDIA_PYTHON, "-c", "import json, cuda.bindings.driver as d; print(json.dumps(d.__file__))"],
            envs["nvidia"], work, timeout=120)
    if r.returncode != 0:
        why["nvidia"] = f"NVIDIA's cuda.bindings is not importable: {last_line(r)}"
    elif os.path.realpath(json.loads(r.stdout.strip().splitlines()[-1])).startswith(
            os.path.realpath(os.path.join(REPO, "hip_as_cuda")) + os.sep):   # (a side venv in build/ is fine)
        why["nvidia"] = "cuda.bindings resolves to this repository's alias, not NVIDIA's package"
    r = run([sys.executable, "-c", "import hip_as_cuda"], envs["alias"], work, timeout=120)
    if r.returncode != 0:
        why["alias"] = f"hip_as_cuda is not importable: {last_line(r)}"
    return why


def measure_calls(args, envs, work, able) -> tuple[dict, dict]:
    worker = os.path.join(work, "worker.py")
    with open(worker, "w") as f:
        f.write(WORKER)
    best = {who: {"cheap": float("inf"), "ctx": float("inf"), "launch": float("inf"), "launch_same": float("inf")}
            for who in able}
    errors, modules = {}, {}
    every = {who: {"cheap": [], "ctx": []} for who in able}   # each process's best: the spread
    for rnd in range(args.rounds):
        order = list(able) if rnd % 2 == 0 else list(able)[::-1]
        for who in order:
            if who in errors:
                continue
            extra = ["hip"] if who == "hip" else ["cuda"]
            r = run(command(who, worker, *extra, str(args.calls), str(args.repeat), str(args.launches)),
                    envs[who], work)
            if r.returncode != 0:
                errors[who] = f"failed: {last_line(r)}"
                print(f"  {who}: {r.stderr.strip()[-2000:]}", file=sys.stderr)
                continue
            res = json.loads(r.stdout.strip().splitlines()[-1])
            modules[who] = res.pop("module")
            for k, v in res.items():
                best[who][k] = min(best[who][k], v)
                if k in every[who]:
                    every[who][k].append(v)
    for who, m in modules.items():
        print(f"  {who:7s} {m}")
    for who, b in best.items():   # the processes' median next to the best (the target's figure)
        for k, v in every[who].items():
            b[k + "_median"] = statistics.median(v) if v else float("nan")
    return {w: b for w, b in best.items() if w not in errors}, errors


def measure_one_process(args, envs, work) -> dict:
    """(a'): both bindings in each of --rounds processes (worker.py both): {who: {key: best,
    key_median: median of the processes' bests}}."""
    worker = os.path.join(work, "worker.py")
    every = {"nvidia": {"cheap": [], "ctx": []}, "alias": {"cheap": [], "ctx": []}}
    for _ in range(args.rounds):
        r = run([sys.executable, worker, "both", str(args.calls), str(args.repeat), str(args.launches)],
                envs["alias"], work)
        if r.returncode != 0:
            raise RuntimeError(f"both bindings in one process failed: {last_line(r)}")
        res = json.loads(r.stdout.strip().splitlines()[-1])
        for who, got in res.items():
            for k in every[who]:
                every[who][k].append(got[k])
    out = {}
    for who, d in every.items():
        out[who] = {k: min(v) for k, v in d.items()}
        out[who].update({k + "_median": statistics.median(v) for k, v in d.items()})
        print(f"  {who:7s} cudaGetDevice    {out[who]['cheap']:6.1f} ({out[who]['cheap_median']:6.1f}) ns   "
              f"cuCtxGetCurrent  {out[who]['ctx']:6.1f} ({out[who]['ctx_median']:6.1f}) ns")
    return out


def measure_imports(args, envs, work, able) -> dict:
    probe_py = os.path.join(work, "import_probe.py")
    with open(probe_py, "w") as f:
        f.write(IMPORT_PROBE)
    empty = os.path.join(work, "empty.py")
    with open(empty, "w") as f:
        f.write("")
    samples = {who: {"statement": [], "process": []} for who in able if who != "hip"}
    bare = []
    for i in range(args.imports):
        t = time.perf_counter()
        run([sys.executable, empty], envs["nvidia"], work)
        bare.append(time.perf_counter() - t)
        for who in (list(samples) if i % 2 == 0 else list(samples)[::-1]):
            t = time.perf_counter()
            r = run(command(who, probe_py), envs[who], work)
            elapsed = time.perf_counter() - t
            if r.returncode != 0:
                raise RuntimeError(f"{who}: import cuda.bindings.driver failed: {last_line(r)}")
            samples[who]["statement"].append(float(r.stdout.split()[0]))
            samples[who]["process"].append(elapsed)
    start = min(bare)
    out = {}
    for who, s in samples.items():
        out[who] = {"statement_min": min(s["statement"]), "statement_median": statistics.median(s["statement"]),
                    "process_min": min(s["process"]) - start,
                    "process_median": statistics.median(s["process"]) - statistics.median(bare)}
    print(f"  bare interpreter start: min {start * 1e3:.1f} ms, median {statistics.median(bare) * 1e3:.1f} ms "
          f"({args.imports} samples)")
    for who, o in out.items():
        print(f"  {who:7s} import statement {o['statement_min'] * 1e3:7.2f} ms (median {o['statement_median'] * 1e3:7.2f})"
              f"   process less bare start {o['process_min'] * 1e3:7.2f} ms (median {o['process_median'] * 1e3:7.2f})")
    return out


STAND_IN_HIP = r"""/* bench_alias --stand-in: a HIP library whose calls return at once. */
int hipInit(unsigned int flags) { (void)flags; return 0; }
int hipCtxGetCurrent(void** ctx) { *ctx = (void*)0x1234; return 0; }
"""

STAND_IN_CUDA = r"""/* bench_alias --stand-in: a libcuda.so.1 whose calls return at once; NVIDIA's bindings find
 * them through cuGetProcAddress. */
#include <string.h>
int cuInit(unsigned int flags) { (void)flags; return 0; }
int cuDriverGetVersion(int* v) { *v = 13000; return 0; }
int cuCtxGetCurrent(void** ctx) { *ctx = (void*)0x1234; return 0; }
int cuGetProcAddress_v2(const char* s, void** p, int ver, unsigned long long flags, int* found);
static const struct { const char* name; void* fn; } FNS[] = {
    {"cuInit", (void*)cuInit}, {"cuDriverGetVersion", (void*)cuDriverGetVersion},
    {"cuCtxGetCurrent", (void*)cuCtxGetCurrent}, {"cuGetProcAddress", (void*)cuGetProcAddress_v2}, {0, 0}};
int cuGetProcAddress_v2(const char* s, void** p, int ver, unsigned long long flags, int* found) {
    (void)ver; (void)flags;
    for (int i = 0; FNS[i].name; i++)
        if (!strcmp(FNS[i].name, s)) { *p = FNS[i].fn; if (found) *found = 1; return 0; }
    *p = 0; if (found) *found = 0;
    return 500;   /* CUDA_ERROR_NOT_FOUND */
}
int cuGetProcAddress(const char* s, void** p, int ver, unsigned long long flags) {
    return cuGetProcAddress_v2(s, p, ver, flags, 0);
}
"""

STAND_IN_WORKER = r"""
import os, sys, timeit
if os.environ.get("BENCH_ALIAS_CPU"):
    os.sched_setaffinity(0, {int(os.environ["BENCH_ALIAS_CPU"])})
from cuda.bindings import driver
calls, repeat = int(sys.argv[1]), int(sys.argv[2])
assert int(driver.cuInit(0)[0]) == 0
f = driver.cuCtxGetCurrent
r = f()
assert int(r[0]) == 0 and int(r[1]) == 0x1234, r   # the stand-in answered, not a real library
print(min(timeit.Timer(f).repeat(repeat=repeat, number=calls)) / calls * 1e9)
"""


def stand_in(args) -> int:
    """(s): the alias and NVIDIA's bindings over stand-in libraries, no GPU involved."""
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    if cc is None:
        print("skipped: no C compiler (gcc) for the stand-in libraries")
        return 77
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(REPO, "hip"),
                    os.path.join(REPO, "hip_as_cuda")], check=False)
    envs = environments()
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="bench-alias-") as work:
        why = probe(envs, work)
        if why:
            print(f"skipped: {'; '.join(why.values())}")
            return 77
        libdir = os.path.join(work, "cuda")
        os.makedirs(libdir)
        hip_lib, cuda_lib = os.path.join(work, "libhip-stand-in.so"), os.path.join(libdir, "libcuda.so.1")
        for src, out in ((STAND_IN_HIP, hip_lib), (STAND_IN_CUDA, cuda_lib)):
            c = out + ".c"
            with open(c, "w") as f:
                f.write(src)
            subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", out, c], check=True)
        worker = os.path.join(work, "stand_in.py")
        with open(worker, "w") as f:
            f.write(STAND_IN_WORKER)
        envs = {"nvidia": dict(envs["nvidia"], LD_LIBRARY_PATH=os.pathsep.join(
                    [libdir] + [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p])),
                "alias": dict(envs["alias"], HIP_PLATFORM="amd", HIP_PYTHON_HIP_LIBRARY=hip_lib)}
        if cpu >= 0:
            for env in envs.values():
                env["BENCH_ALIAS_CPU"] = str(cpu)
        print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
        print(f"machine  {_util.machine()}")
        print(f"python   ours {sys.executable}, NVIDIA's {' '.join(NVIDIA_PYTHON)}")
        print(f"(s) cuCtxGetCurrent over stand-in libraries, {args.rounds} processes each"
              + (f", all on CPU {cpu}" if cpu >= 0 else "") + f", best of {args.repeat} x {args.calls} calls")
        got = {"nvidia": [], "alias": []}
        for rnd in range(args.rounds):
            for who in (["nvidia", "alias"] if rnd % 2 == 0 else ["alias", "nvidia"]):
                r = run(command(who, worker, str(args.calls), str(args.repeat)), envs[who], work)
                if r.returncode != 0:
                    print(f"  {who}: failed: {last_line(r)}")
                    return 1
                got[who].append(float(r.stdout.strip().splitlines()[-1]))
    for who, v in got.items():
        print(f"  {who:7s} {min(v):6.1f} ns best ({statistics.median(v):6.1f} median)")
    a, n = got["alias"], got["nvidia"]
    print(f"  alias/cuda.bindings: {min(a) / min(n):.2f}x (best), "
          f"{statistics.median(a) / statistics.median(n):.2f}x (median)")
    return 0


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def imports_only(args) -> int:
    """(c) without a GPU: neither import touches the device."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(REPO, "hip"),
                    os.path.join(REPO, "hip_as_cuda")], check=False)
    envs = environments()
    with tempfile.TemporaryDirectory(prefix="bench-alias-") as work:
        why = probe(envs, work)
        if why:
            print(f"skipped: {'; '.join(why.values())}")
            return 77
        print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
        print(f"machine  {_util.machine()}")
        print(f"python   ours {sys.executable}, NVIDIA's {' '.join(NVIDIA_PYTHON)}")
        print(f"(c) import cuda.bindings.driver, {args.imports} fresh interpreters each")
        imports = measure_imports(args, envs, work, ["nvidia", "alias"])
    a, n = imports["alias"], imports["nvidia"]
    print(f"  import statement, alias/cuda.bindings: {a['statement_min'] / n['statement_min']:.2f}x (min), "
          f"{a['statement_median'] / n['statement_median']:.2f}x (median); target <= 0.5x")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200_000, help="(a) calls per timeit repeat")
    ap.add_argument("--repeat", type=int, default=7, help="(a) timeit repeats per process")
    ap.add_argument("--launches", type=int, default=20_000, help="(b) launches per timed loop")
    ap.add_argument("--cpu", type=int, default=None,
                    help="(a, b) run every contender's process on this CPU (default: the last one this process "
                         "may use; -1: no pinning). The cheap calls' spread between processes was larger "
                         "than the gaps being measured without it")
    ap.add_argument("--rounds", type=int, default=3, help="(a, b) processes per contender, order alternating")
    ap.add_argument("--imports", type=int, default=15, help="(c) fresh interpreters per contender")
    ap.add_argument("--imports-only", action="store_true",
                    help="(c) alone, without a GPU (a CPU proxy: NVIDIA's import needs no driver)")
    ap.add_argument("--stand-in", action="store_true",
                    help="(s) alone, without a GPU: the Python side over stand-in libraries")
    ap.add_argument("--nvidia-python", help="interpreter with NVIDIA's cuda.bindings (default: this one), run "
                    "isolated (-I); e.g. build/cuda-bindings-oracle/venv-13.0.3-cp311/bin/python")
    args = ap.parse_args()
    if args.nvidia_python:
        NVIDIA_PYTHON[:] = [os.path.abspath(args.nvidia_python), "-I"]   # the runs change directory
    if args.imports_only:
        return imports_only(args)
    if args.stand_in:
        return stand_in(args)

    from hip.errors import HipPythonError
    try:
        from hip import hip as h
        err, count = h.hipGetDeviceCount()
    except HipPythonError as e:
        print(f"skipped: the HIP runtime could not be loaded: {str(e).splitlines()[0]}")
        return 77
    if err != h.hipError_t.hipSuccess or count == 0:
        print(f"skipped: no GPU ({getattr(err, 'name', err)}, {count} devices)")
        return 77
    props = h.hipDeviceProp_t()
    h.hipGetDeviceProperties(props, 0)
    name = props.name.decode(errors="replace") if isinstance(props.name, bytes) else str(props.name)

    # As installed: pip writes the .pyc files NVIDIA's package imports from; a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 (the GPU machines set it) would compile our Python modules from
    # source at every import instead.
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(REPO, "hip"),
                    os.path.join(REPO, "hip_as_cuda")], check=False)
    envs = environments()
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    if cpu >= 0:
        for env in envs.values():
            env["BENCH_ALIAS_CPU"] = str(cpu)
    with tempfile.TemporaryDirectory(prefix="bench-alias-") as work:
        why = probe(envs, work)
        if "alias" in why:
            print(f"skipped: {why['alias']}")
            return 77
        able = [w for w in CONTENDERS if w not in why]
        print(f"date     {datetime.datetime.now().isoformat(timespec='seconds')}")
        print(f"machine  {_util.machine()}")
        print(f"GPU      {name} (device 0 of {count}); HIP {h._library.path} (HIP_PLATFORM={os.environ.get('HIP_PLATFORM')})")
        print(f"python   {platform.python_version()} ({sys.executable})")
        for who, reason in why.items():
            print(f"{who}: skipped: {reason}")
        print()

        print(f"(a, b) cheap calls and launches: {args.rounds} processes per contender, best of each"
              + (f", all on CPU {cpu}" if cpu >= 0 else ""))
        best, errors = measure_calls(args, envs, work, able)
        print("  (ns: best process (median of the processes))")
        for who, b in best.items():
            print(f"  {who:7s} {'cudaGetDevice' if who != 'hip' else 'hipGetDevice':16s} {b['cheap']:6.1f} "
                  f"({b['cheap_median']:6.1f}) ns   "
                  f"{'cuCtxGetCurrent' if who != 'hip' else 'hipCtxGetCurrent*':16s} {b['ctx']:6.1f} ({b['ctx_median']:6.1f}) ns   "
                  f"launch {b['launch']:6.2f} us   same form {b['launch_same']:6.2f} us")
        if "hip" in best:   # so the alias - hip rows compare cudaGetDevice only
            print("  * deprecated in HIP's header: hip.hipCtxGetCurrent warns (DeprecationWarning) at every call")
        for who, e in errors.items():
            print(f"  {who:7s} {e}")
        print()
        one = {}
        if "nvidia" in best and "alias" in best and NVIDIA_PYTHON == [sys.executable]:
            print(f"(a') the cheap calls with both bindings in one process, timed in turns: {args.rounds} processes"
                  + (f", all on CPU {cpu}" if cpu >= 0 else ""))
            print("  (ns: best process (median of the processes))")
            try:
                one = measure_one_process(args, envs, work)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                errors["one process"] = f"failed: {e}"
                print(f"  failed: {e}")
            print()
        print(f"(c) import cuda.bindings.driver, {args.imports} fresh interpreters each")
        try:
            imports = measure_imports(args, envs, work, [w for w in able if w not in errors])
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            imports = {}
            errors["import"] = f"failed: {e}"
            print(f"  failed: {e}")
        print()

    print("summary")
    rows = []
    if "alias" in best and "hip" in best:
        a, hh = best["alias"], best["hip"]
        rows.append(("(a) cudaGetDevice - hipGetDevice", f"{a['cheap'] - hh['cheap']:+.1f} ns "
                     f"({a['cheap']:.1f} vs {hh['cheap']:.1f})", "<= +40 ns", verdict(a["cheap"] - hh["cheap"] <= 40)))
        d = (a["launch_same"] - hh["launch_same"]) * 1e3
        rows.append(("(b) cuLaunchKernel - hipModuleLaunchKernel, same args", f"{d:+.0f} ns ({a['launch_same']:.2f} vs "
                     f"{hh['launch_same']:.2f} us)", "<= +40 ns", verdict(d <= 40)))
        d = (a["launch"] - hh["launch"]) * 1e3
        rows.append(("(b) alias tuple form - hip list form", f"{d:+.0f} ns ({a['launch']:.2f} vs "
                     f"{hh['launch']:.2f} us)", "", ""))
    if "alias" in best and "nvidia" in best:
        a, n = best["alias"], best["nvidia"]
        for key, label in (("cheap", "(a) cudaGetDevice"), ("ctx", "(a) cuCtxGetCurrent"), ("launch", "(b) cuLaunchKernel tuple form")):
            unit = "us" if key == "launch" else "ns"
            med = f", median {a[key + '_median'] / n[key + '_median']:.2f}x" if key + "_median" in a else ""
            rows.append((f"{label}, alias/cuda.bindings", f"{a[key] / n[key]:.2f}x ({a[key]:.2f} vs {n[key]:.2f} {unit}{med})",
                         "<= 1.0x", verdict(a[key] <= n[key])))
    if one:
        a, n = one["alias"], one["nvidia"]
        for key, label in (("cheap", "(a') cudaGetDevice"), ("ctx", "(a') cuCtxGetCurrent")):
            rows.append((f"{label}, one process, alias/cuda.bindings", f"{a[key] / n[key]:.2f}x ({a[key]:.2f} vs "
                         f"{n[key]:.2f} ns, median {a[key + '_median'] / n[key + '_median']:.2f}x)",
                         "<= 1.0x", verdict(a[key] <= n[key])))
    if "alias" in imports and "nvidia" in imports:
        a, n = imports["alias"], imports["nvidia"]
        rows.append(("(c) import statement, alias/cuda.bindings", f"{a['statement_min'] / n['statement_min']:.2f}x "
                     f"({a['statement_min'] * 1e3:.1f} vs {n['statement_min'] * 1e3:.1f} ms)", "<= 0.5x",
                     verdict(a["statement_min"] <= 0.5 * n["statement_min"])))
        rows.append(("(c) process less start, alias/cuda.bindings", f"{a['process_min'] / n['process_min']:.2f}x "
                     f"({a['process_min'] * 1e3:.1f} vs {n['process_min'] * 1e3:.1f} ms)", "<= 0.5x",
                     verdict(a["process_min"] <= 0.5 * n["process_min"])))
    for who, reason in list(why.items()) + list(errors.items()):
        rows.append((f"{who}", reason if len(reason) <= 100 else reason[:97] + "...", "", ""))
    w = [max(len(row[i]) for row in rows) if rows else 0 for i in range(4)]
    for row in rows:
        print("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(row)).rstrip())
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
