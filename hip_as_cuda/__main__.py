"""python -m hip_as_cuda prog.py [args] | -m module [args] | (nothing: what the alias covers)

Runs an unchanged CUDA Python program on HIP: its `cuda.bindings` / `cuda.cuda` imports are
taken by the alias for this process, even where NVIDIA's cuda-python is installed.
"""
from __future__ import annotations

import runpy
import sys


def report() -> None:
    from . import coverage
    cov = coverage()
    if not cov:
        print("hip_as_cuda: the alias is not built (no coverage report found)")
        return
    for m, d in cov.items():
        s = d["summary"]
        print(f"cuda.bindings.{m:8s} CUDA {d['cuda_version']} on ROCm {d['rocm_version']} headers: "
              f"{s['bridged']} of {s['functions']} functions run on HIP, {s['not_supported']} return not-supported")


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        report()
        return 0
    from ._finder import install
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m hip_as_cuda -m: a module name is needed", file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
