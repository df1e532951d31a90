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
from ._device import *  # noqa: E402,F401,F403
from ._memory import *  # noqa: E402,F401,F403
from ._compiler import *  # noqa: E402,F401,F403
from ._interop import *  # noqa: E402,F401,F403
from ._dtypes import *  # noqa: E402,F401,F403
from ._info import *  # noqa: E402,F401,F403
from ._array import *  # noqa: E402,F401,F403
from ._creation import *  # noqa: E402,F401,F403
from ._manipulation import *  # noqa: E402,F401,F403
from ._indexing import *  # noqa: E402,F401,F403
from ._elementwise_kernel import *  # noqa: E402,F401,F403
from ._reduction_kernel import *  # noqa: E402,F401,F403
from ._raw import *  # noqa: E402,F401,F403
from ._elementwise import *  # noqa: E402,F401,F403
from ._statistical import *  # noqa: E402,F401,F403
from ._sorting import *  # noqa: E402,F401,F403
from ._fusion import *  # noqa: E402,F401,F403
from ._searching import *  # noqa: E402,F401,F403
from ._set import *  # noqa: E402,F401,F403
from ._linalg import *  # noqa: E402,F401,F403
from ._einsum import *  # noqa: E402,F401,F403
from . import linalg  # noqa: E402,F401
from . import backends  # noqa: E402,F401
from . import fft, random  # noqa: E402,F401
from . import sparse, distributed  # noqa: E402,F401


def __getattr__(name):
    # hip.tensor.nn is imported on first use (`ht.nn`), keeping `import hip.tensor` light
    if name == "nn":
        import importlib
        return importlib.import_module(".nn", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
