"""Under `python -m hip_as_cuda`, every Python process the program starts takes the alias too
(multiprocessing's spawned workers, pytest-xdist's, a subprocess running `sys.executable`):
`python -m hip_as_cuda` puts this folder first on their PYTHONPATH and sets HIP_AS_CUDA_CHILDREN.
A sitecustomize the interpreter would otherwise have found still runs, after this one."""
import os
import sys

if os.environ.get("HIP_AS_CUDA_CHILDREN") == "1":
    from hip_as_cuda._finder import install
    install()

# Chain to the next sitecustomize on the path (a distribution's, a virtualenv's), as if this one
# were not there.
_here = os.path.dirname(os.path.abspath(__file__))
_saved = sys.path[:]
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
_mine = sys.modules.pop("sitecustomize", None)
try:
    import sitecustomize  # noqa: F401  (the next one, if any)
except ImportError:
    sys.modules["sitecustomize"] = _mine
finally:
    sys.path[:] = _saved
