"""python -m codegen.alias --cuda-include DIR --rocm-include DIR [--modules driver,runtime,nvrtc] [--out DIR]"""
from __future__ import annotations

import argparse
import json
import os
import sys

from . import generate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codegen.alias", description=__doc__)
    ap.add_argument("--cuda-include", required=True, help="CUDA headers (cuda.h, cuda_runtime_api.h, nvrtc.h)")
    ap.add_argument("--rocm-include", required=True, help="ROCm headers (hip/hip_runtime_api.h, hip/hiprtc.h)")
    ap.add_argument("--modules", default="", help="comma list (default: every spec in hip_as_cuda/specs)")
    ap.add_argument("--out", default=generate.OUT_DIR)
    a = ap.parse_args(argv)
    mods = [m for m in a.modules.split(",") if m] or None
    written = generate.generate_all(a.cuda_include, a.rocm_include, mods, a.out)
    for m in mods or generate.load_specs():
        p = os.path.join(a.out, "_coverage", f"{m}.json")
        if os.path.exists(p):
            s = json.load(open(p))["summary"]
            print(f"codegen.alias: {m}: {s['bridged']} of {s['functions']} functions bridged to HIP")
    print(f"codegen.alias: {len(written)} files written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
