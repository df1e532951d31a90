"""cuda.bindings on HIP (the `cuda` alias of hip-bindings): driver, runtime, nvrtc."""
import os as _os

# Installed as the `cuda` package (no NVIDIA cuda-bindings in the environment), this file sits in
# site-packages/cuda/bindings while the compiled modules stay in hip_as_cuda/cuda/bindings.
try:
    import hip_as_cuda as _h
    _d = _os.path.join(_h.CUDA_DIR, "bindings")
    if _os.path.realpath(_d) not in map(_os.path.realpath, __path__):
        __path__.append(_d)
        # the installed `cuda` package (not the checkout, not `python -m hip_as_cuda`): no
        # distribution answers importlib.metadata's "cuda-bindings", which cuda.core asks
        from hip_as_cuda._finder import install_metadata
        install_metadata()
except ImportError:
    pass

__version__ = "13.3.1"   # the cuda-bindings release followed (its oracle; CUDA 13.3 headers)
