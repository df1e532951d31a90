"""`python -m hip`: what is installed, what it was generated from, what it finds."""
from __future__ import annotations

import importlib
import json
import os
import sys

import hip


def built_libraries() -> list[dict]:
    """Coverage reports of the libraries this build contains, in dependency order."""
    folder = os.path.join(os.path.dirname(hip.__file__), "_coverage")
    reports = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                reports.append(json.load(f))
    return sorted(reports, key=lambda r: (r["library"] != "hip", r["library"]))


def _why(e: OSError) -> str:
    """One line: what failed and the first reason (a missing driver, a missing file)."""
    tried = getattr(e, "tried", None)
    head = str(e).splitlines()[0].split("; set ")[0]
    return f"{head}: {tried[0][1]}" if tried else head


def main() -> int:
    print(f"hip-bindings {hip.__version__} (Python {sys.version.split()[0]})")
    from hip import _loader
    try:
        plat = _loader.platform() or "automatic (ROCm if found, else the NVIDIA layer)"
    except ValueError as e:
        plat = f"invalid: {e}"
    from hip._layer_names import nvidia_library
    layers = sorted(filter(None, map(nvidia_library, os.listdir(_loader.NVIDIA_DIR)))) \
        if os.path.isdir(_loader.NVIDIA_DIR) else []
    print(f"platform: {plat}; NVIDIA layer built for: {', '.join(layers) or 'none'}")
    reports = built_libraries()
    if not reports:
        print("no library modules are built (run ./build_pkgs.sh)")
        return 1
    print(f"generated from ROCm {reports[0]['rocm_version']} headers")
    print("libraries:")
    for r in reports:
        lib = r["library"]
        try:
            mod = importlib.import_module(f"hip.{lib}")   # every spec names its module after its library
        except ImportError as e:
            print(f"  {lib:10s} not importable: {e}")
            continue
        cover = f"{r['functions_bound']}/{r['functions_total']} functions"
        try:
            path = mod._library.load()
            print(f"  {lib:10s} {cover:20s} -> {path}")
        except OSError as e:
            print(f"  {lib:10s} {cover:20s} -> not loadable: {_why(e)}")
    alias_report()
    try:
        from hip import hip as h
        err, v = h.hipRuntimeGetVersion()
        if err == 0:
            # HIP_VERSION = major * 10000000 + minor * 100000 + patch
            runtime = f"{v // 10000000}.{v // 100000 % 100}.{v % 100000}"
            headers = reports[0]["rocm_version"]
            note = "" if runtime.split(".")[:2] == headers.split(".")[:2] else \
                f" (differs from the headers' {headers}: functions the runtime lacks raise SymbolNotFoundError)"
            print(f"HIP runtime: {runtime}{note}")
        err, count = h.hipGetDeviceCount()
        if err != 0:
            print(f"devices: none ({err.name}: {h.hipGetErrorString(err)[1].decode()})")
        else:
            print(f"devices: {count}")
            for d in range(count):
                err, name = h.hipDeviceGetName(256, d)
                label = name.decode(errors="replace") if err == 0 else f"(name unknown: {err.name})"
                print(f"  {d}: {label}")
    except OSError as e:
        print(f"devices: unknown ({_why(e)})")
    return 0


def alias_report() -> None:
    """The `cuda` alias (hip_as_cuda): per module, how many CUDA functions run on HIP."""
    try:
        import hip_as_cuda
    except ImportError:
        print("cuda alias: not installed")
        return
    cov = hip_as_cuda.coverage()
    if not cov:
        print("cuda alias: not built")
        return
    first = next(iter(cov.values()))
    print(f"cuda alias (python -m hip_as_cuda; from CUDA {first['cuda_version']} headers):")
    for m, d in cov.items():
        s = d["summary"]
        print(f"  cuda.bindings.{m:8s} {s['bridged']}/{s['functions']} functions on HIP, "
              f"{s['not_supported']} not supported")


if __name__ == "__main__":
    sys.exit(main())
