"""Takes the `cuda.bindings` (and legacy `cuda.cuda`, `cuda.cudart`, `cuda.nvrtc`) imports of this
process for the alias, even where NVIDIA's cuda-python is installed: its other packages
(cuda.pathfinder, cuda.core) stay NVIDIA's."""
import importlib.machinery
import sys

from . import CUDA_DIR

OURS = ("cuda.bindings", "cuda.cuda", "cuda.cudart", "cuda.nvrtc", "cuda.ccuda", "cuda.ccudart", "cuda.cnvrtc")


class MetadataFinder:
    """Answers importlib.metadata for `cuda-bindings` and takes no import: what the installed
    `cuda` package of the alias registers (cuda/bindings/__init__.py), where no NVIDIA
    cuda-bindings distribution is installed to answer."""

    def find_spec(self, fullname, path=None, target=None):
        return None

    def find_distributions(self, context=None):
        """importlib.metadata's question: the alias answers for `cuda-bindings` (the release it
        follows), as programs and NVIDIA's cuda.core check `version("cuda-bindings")` before
        using the bindings this process imports, which are ours. Other names (and the listing
        of every distribution) are left to the other finders."""
        name = getattr(context, "name", None)
        if not name or name.replace("-", "_").replace(".", "_").lower() != "cuda_bindings":
            return iter(())
        return iter((_bindings_distribution(),))


class AliasFinder(MetadataFinder):
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


def _bindings_distribution():
    """cuda-bindings' metadata as the alias has it: name and version (cuda/bindings/__init__.py's)."""
    import importlib.metadata
    import os
    import re

    with open(os.path.join(CUDA_DIR, "bindings", "__init__.py")) as f:
        version = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)

    class AliasBindings(importlib.metadata.Distribution):
        def read_text(self, filename):
            if filename == "METADATA":
                return (f"Metadata-Version: 2.1\nName: cuda-bindings\nVersion: {version}\n"
                        "Summary: the cuda alias of hip-bindings: cuda.bindings on HIP\n")
            return None

        def locate_file(self, path):
            return os.path.join(CUDA_DIR, "bindings", str(path))

    return AliasBindings()


def install() -> None:
    """Put the finder first (once); NVIDIA's modules imported before stay as they are."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())


def install_metadata() -> None:
    """The installed `cuda` package's half: importlib.metadata's `cuda-bindings` is ours (once)."""
    if not any(isinstance(f, MetadataFinder) for f in sys.meta_path):
        sys.meta_path.append(MetadataFinder())
