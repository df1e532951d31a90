"""python -m hip_as_cuda prog.py [args] | -m module [args] | (nothing: what the alias covers)

Runs an unchanged CUDA Python program on HIP: its `cuda.bindings` / `cuda.cuda` imports are
taken by the alias for this process, even where NVIDIA's cuda-python is installed.
"""
import runpy   # runpy itself is what `python -m` has imported already
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
    children()
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m hip_as_cuda -m: a module name is needed", file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(argv[0])))
        if argv[0].endswith(".py") and __import__("os").path.isfile(argv[0]):
            run_script(argv[0])
        else:   # a directory or zip file with __main__.py
            runpy.run_path(argv[0], run_name="__main__")
    return 0


def children() -> None:
    """Python processes the program starts take the alias too (hip_as_cuda/_children)."""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    path = [os.path.join(here, "_children"), os.path.dirname(here)]
    old = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(path + ([old] if old else []))
    os.environ["HIP_AS_CUDA_CHILDREN"] = "1"


def run_script(path: str) -> None:
    """Run a .py file as `python path` does, as the module __main__ (classes defined there
    pickle). Not runpy.run_path: it imports pkgutil, and with it typing and re (~5 ms more at
    every start than `python prog.py`)."""
    import builtins
    import types
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec")
    main = types.ModuleType("__main__")
    main.__file__, main.__builtins__, main.__cached__ = path, builtins, None
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
