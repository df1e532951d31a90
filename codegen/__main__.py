"""The generator's command line (codegen/generate.py): one command for the three generations.

    python -m codegen [bindings] --include DIR [--libs hip,hiprtc] [--out hip/] [--dump-ir DIR]
    python -m codegen nvidia --hip-include DIR --cuda-include DIR [--cuda-include DIR ...]
                             [--libs hip,hiprtc] [--out build/nvidia] [--build DIR] [--cuda-lib DIR] [-j N]
    python -m codegen alias --cuda-include DIR --rocm-include DIR [--modules driver,runtime,nvrtc] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from . import generate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m codegen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="generation")
    b = sub.add_parser("bindings", help="the bindings (hip/*.pyx ...) from ROCm's headers")
    b.add_argument("--include", required=True, help="ROCm include directory (holds hip/hip_runtime_api.h)")
    b.add_argument("--libs", default="", help="comma list of libraries (default: every library whose headers DIR has)")
    b.add_argument("--out", default=os.path.join(ROOT, "hip"))
    b.add_argument("--dump-ir", default="", help="also write each library's IR as JSON here")
    n = sub.add_parser("nvidia", help="the HIP-on-CUDA layer (codegen/nvidia)")
    n.add_argument("--hip-include", required=True, help="ROCm include dir (the headers the bindings use)")
    n.add_argument("--cuda-include", action="append", required=True, help="CUDA include dir (repeatable)")
    n.add_argument("--libs", default="", help="comma list (default: every spec in codegen/specs/nvidia)")
    n.add_argument("--out", default="build/nvidia")
    n.add_argument("--build", default="", help="also compile the libraries into this dir (e.g. hip/_nvidia)")
    n.add_argument("--cuda-lib", action="append", default=[], help="dir holding CUDA's libraries, for linking")
    n.add_argument("-j", type=int, default=os.cpu_count() or 1)
    a = sub.add_parser("alias", help="the `cuda` alias (codegen/alias)")
    a.add_argument("--cuda-include", required=True, help="CUDA headers (cuda.h, cuda_runtime_api.h, nvrtc.h)")
    a.add_argument("--rocm-include", required=True, help="ROCm headers (hip/hip_runtime_api.h, hip/hiprtc.h)")
    a.add_argument("--modules", default="", help="comma list (default: every spec in hip_as_cuda/specs)")
    a.add_argument("--out", default="", help="default: hip_as_cuda/cuda/bindings")
    return ap


def _names(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def bindings(a) -> list[str]:
    libs = _names(a.libs)
    if not libs:   # every library whose headers (and its dependencies') the include dir has
        libs, missing = generate.available(a.include)
        if missing:
            print(f"codegen: note: no headers for {', '.join(missing)} in {a.include}: not generated", file=sys.stderr)
    unmatched: dict[str, list] = {}
    written = generate.generate_bindings(a.include, libs, a.out, a.dump_ir or None, unmatched=unmatched)
    for lib, entries in unmatched.items():   # the shared rules need not serve every library
        own = [str(u) for u in entries if not u.entry.startswith("defaults.yaml")]
        if own:
            print(f"codegen: note: {lib}.yaml entries that match nothing in these headers: {'; '.join(own)}",
                  file=sys.stderr)
    return [f"wrote {len(written)} files for {', '.join(libs)}"]


def nvidia(a) -> list[str]:
    from .bridge import spec as bridgespec
    libs = _names(a.libs) or bridgespec.all_libraries()
    written = generate.generate_layer(a.hip_include, a.cuda_include, libs, a.out)
    out = []
    for lib in libs:
        s = json.load(open(os.path.join(a.out, f"hipnv_{lib}.json")))["summary"]
        out.append(f"{lib}: {s['bridged']} bridged + {s['manual']} hand-written of {s['functions']} "
                   f"({s['bridged_of_counterpart_pct']}% of those with a CUDA counterpart)")
    return out + [f"wrote {len(written)} files to {a.out}"]


def alias(a) -> list[str]:
    from .alias import modules
    mods = _names(a.modules) or None
    out_dir = a.out or modules.OUT_DIR
    written = generate.generate_alias(a.cuda_include, a.rocm_include, mods, out_dir)
    out = []
    for m in mods or modules.load_specs():
        s = json.load(open(os.path.join(out_dir, "_coverage", f"{m}.json")))["summary"]
        out.append(f"{m}: {s['bridged']} of {s['functions']} functions bridged to HIP")
    return out + [f"wrote {len(written)} files to {out_dir}"]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv.insert(0, "bindings")   # the first form's generation may go unnamed
    a = _parser().parse_args(argv)
    if a.generation is None:
        _parser().error("name a generation: bindings, nvidia or alias")
    t = time.perf_counter()
    try:
        lines = {"bindings": bindings, "nvidia": nvidia, "alias": alias}[a.generation](a)
    except Exception as e:   # ParseError and spec errors carry their own clear message
        print(f"codegen: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    lines[-1] += f" in {time.perf_counter() - t:.1f} s"
    print("\n".join(f"codegen: {line}" for line in lines), flush=True)
    if a.generation == "nvidia" and a.build:
        from .bridge import spec as bridgespec
        from .nvidia.build import build
        return build(_names(a.libs) or bridgespec.all_libraries(), a.out, a.build, a.cuda_include, a.cuda_lib, a.j)
    return 0


if __name__ == "__main__":
    sys.exit(main())
