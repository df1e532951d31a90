"""`hip.tensor`: GPU arrays and JIT kernels on HIP, built on `hip.hip`, `hip.hiprtc` and the
ROCm libraries (no CuPy, no PyTorch). Follows the Python array API standard (2023.12) and,
where it is silent, NumPy.

    import hip.tensor as ht
    x = ht.asarray(numpy_array)
    y = (x * 2 + 1).sum(axis=0).get()

Importing loads no HIP library (NumPy is imported); the first array or kernel does.

Layout (one idea per module):
  runtime substrate   _device (Device, Stream, Event), _memory (caching allocator, pinned pool,
                      statistics), _compiler (hiprtc, kernel cache in memory and on disk, launch),
                      _interop (DLPack and __cuda_array_interface__ primitives)
  arrays              _dtypes (dtypes, promotion table), _array (ndarray), _creation,
                      _manipulation, _indexing
  kernels             _elementwise_kernel (ElementwiseKernel), _reduction_kernel (ReductionKernel),
                      _raw (RawKernel, RawModule), _kernel_source (the C++ prelude and templates)
  array API functions _elementwise, _statistical, _searching, _sorting, _set, _linalg, _fusion

The interfaces between these parts and the rules they keep: docs/design.rst, "hip.tensor:
modules and contracts".
"""
import sys as _sys

from ._core.device import *  # noqa: E402,F401,F403
from ._core.memory import *  # noqa: E402,F401,F403
from ._kernels.compiler import *  # noqa: E402,F401,F403
from ._core.interop import *  # noqa: E402,F401,F403
from ._core.dtypes import *  # noqa: E402,F401,F403
from ._api.info import *  # noqa: E402,F401,F403
from ._core.array import *  # noqa: E402,F401,F403
from ._api.creation import *  # noqa: E402,F401,F403
from ._api.manipulation import *  # noqa: E402,F401,F403
from ._api.indexing import *  # noqa: E402,F401,F403
from ._kernels.elementwise import *  # noqa: E402,F401,F403
from ._kernels.reduction import *  # noqa: E402,F401,F403
from ._kernels.raw import *  # noqa: E402,F401,F403
from ._api.elementwise import *  # noqa: E402,F401,F403
from ._api.statistical import *  # noqa: E402,F401,F403
from ._api.sorting import *  # noqa: E402,F401,F403
from ._fusion.fuse import *  # noqa: E402,F401,F403
from ._api.searching import *  # noqa: E402,F401,F403
from ._api.sets import *  # noqa: E402,F401,F403
from ._api.linalg import *  # noqa: E402,F401,F403
from ._api.einsum import *  # noqa: E402,F401,F403
from . import linalg  # noqa: E402,F401
from . import backends  # noqa: E402,F401
from . import fft, random  # noqa: E402,F401
from . import sparse, distributed  # noqa: E402,F401
from ._core.array import register as _register

_register(namespace=_sys.modules[__name__])     # what an array's __array_namespace__() returns


def __getattr__(name):
    # hip.tensor.nn is imported on first use (`ht.nn`), keeping `import hip.tensor` light
    if name == "nn":
        import importlib
        return importlib.import_module(".nn", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
