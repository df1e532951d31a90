"""python -m codegen.nvidia --hip-include DIR --cuda-include DIR [--libs hip,hiprtc] [--out build/nvidia] [--build]"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ..bridge import spec as nvspec
from .generate import generate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codegen.nvidia", description=__doc__)
    ap.add_argument("--hip-include", required=True, help="ROCm include dir (the headers the bindings use)")
    ap.add_argument("--cuda-include", action="append", required=True, help="CUDA include dir (repeatable)")
    ap.add_argument("--libs", default="", help="comma list (default: every spec in codegen/specs/nvidia)")
    ap.add_argument("--out", default="build/nvidia")
    ap.add_argument("--build", default="", help="also compile the libraries into this dir (e.g. hip/_nvidia)")
    ap.add_argument("--cuda-lib", action="append", default=[], help="dir holding CUDA's libraries, for linking")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    libs = [l for l in a.libs.split(",") if l] or nvspec.all_libraries()
    t = time.perf_counter()
    try:
        generate(a.hip_include, a.cuda_include, libs, a.out)
    except Exception as e:
        print(f"codegen.nvidia: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    for lib in libs:
        s = json.load(open(os.path.join(a.out, f"hipnv_{lib}.json")))["summary"]
        print(f"codegen.nvidia: {lib}: {s['bridged']} bridged + {s['manual']} hand-written of {s['functions']} "
              f"({s['bridged_of_counterpart_pct']}% of those with a CUDA counterpart)")
    print(f"codegen.nvidia: generated in {time.perf_counter() - t:.1f} s")
    if a.build:
        from .build import build
        return build(libs, a.out, a.build, a.cuda_include, a.cuda_lib, a.j)
    return 0


if __name__ == "__main__":
    sys.exit(main())
