"""python -m codegen --include DIR [--libs hip,hiprtc] [--out hip/] [--dump-ir DIR]"""
from __future__ import annotations

import argparse
import os
import sys
import time

from .generate import available, generate_all


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    ap.add_argument("--include", required=True, help="ROCm include directory (holds hip/hip_runtime_api.h)")
    ap.add_argument("--libs", default="", help="comma list of libraries (default: every library whose headers DIR has)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(__file__)), "hip"))
    ap.add_argument("--dump-ir", default="", help="also write each library's IR as JSON here")
    a = ap.parse_args(argv)
    libs = [l for l in a.libs.split(",") if l]
    if not libs:   # every library whose headers (and its dependencies') the include dir has
        libs, missing = available(a.include)
        if missing:
            print(f"codegen: note: no headers for {', '.join(missing)} in {a.include}: not generated", file=sys.stderr)
    t = time.perf_counter()
    unmatched: dict[str, list] = {}
    try:
        written = generate_all(a.include, libs, a.out, a.dump_ir or None, unmatched=unmatched)
    except Exception as e:   # ParseError and spec errors carry their own clear message
        print(f"codegen: error: {e}", file=sys.stderr)
        return 1
    print(f"codegen: wrote {len(written)} files for {', '.join(libs)} in {time.perf_counter() - t:.1f} s")
    for lib, entries in unmatched.items():   # the shared rules need not serve every library
        own = [str(u) for u in entries if not u.entry.startswith("defaults.yaml")]
        if own:
            print(f"codegen: note: {lib}.yaml entries that match nothing in these headers: {'; '.join(own)}",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
