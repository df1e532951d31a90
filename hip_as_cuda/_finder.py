"""Takes the `cuda.bindings` (and legacy `cuda.cuda`, `cuda.cudart`, `cuda.nvrtc`) imports of this
process for the alias, even where NVIDIA's cuda-python is installed: its other packages
(cuda.pathfinder, cuda.core) stay NVIDIA's."""
import importlib.machinery
import sys

from . import CUDA_DIR

OURS = ("cuda.bindings", "cuda.cuda", "cuda.cudart", "cuda.nvrtc", "cuda.ccuda", "cuda.ccudart", "cuda.cnvrtc")


class AliasFinder:
    """A meta path finder (find_spec is all the import system asks of one). Not derived from
    importlib.abc.MetaPathFinder: importing importlib.abc pulls in importlib.resources, pathlib,
    tempfile, ... (~8 ms at every `python -m hip_as_cuda` start)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "cuda":
            if importlib.machinery.PathFinder.find_spec("cuda") is not None:
                return None   # NVIDIA's namespace package: its other parts stay importable
            spec = importlib.machinery.ModuleSpec("cuda", None, is_package=True)
            spec.submodule_search_locations = [CUDA_DIR]
            return spec
        if not any(fullname == n or fullname.startswith(n + ".") for n in OURS):
            return None
        parent, _, _ = fullname.rpartition(".")
        where = [CUDA_DIR] if parent == "cuda" else list(sys.modules[parent].__path__)
        return importlib.machinery.PathFinder.find_spec(fullname, where)


def install() -> None:
    """Put the finder first (once); NVIDIA's modules imported before stay as they are."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
