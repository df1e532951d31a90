"""`hip.tensor`: GPU arrays and JIT kernels on HIP, built on `hip.hip`, `hip.hiprtc` and the
ROCm libraries (no CuPy, no PyTorch). Follows the Python array API standard (2025.12; an earlier
version through `x.__array_namespace__(api_version=...)`) and, where it is silent, NumPy.

    import hip.tensor as ht
    x = ht.asarray(numpy_array)
    y = (x * 2 + 1).sum(axis=0).get()

Importing loads no HIP library (NumPy is imported); the first array or kernel does.

Layout: subpackages by role on floors, each importing only from its own floor and those below
(tests/tensor/test_tensor_layering.py checks it), bottom up:
  _core      the runtime substrate and the array: launch (the C launch path), dtypes, shapes,
             device (Device, Stream, Event), memory (caching allocator, pinned pool, statistics),
             graph (Graph, graph: capture and replay),
             interop (DLPack and __cuda_array_interface__), array (ndarray: a leaf, whose operators
             call the floors above through its dispatch table, filled at their import)
  _kernels   compiler (hiprtc, kernel caches, launch), source (the C++ prelude), elementwise
             (ElementwiseKernel), reduction (ReductionKernel), template, raw (RawKernel,
             RawModule), copy (the casting copy)
  _libs      loader, blas (hipBLAS, hipSOLVER handles), solver, sparse (hipSPARSE), fft_layout
  _api       the array API's sections: creation, elementwise, statistical, manipulation, indexing,
             searching, sorting, sets, linalg, einsum, info; nanfunctions (NumPy's nansum & co.);
             numpy_creation (NumPy's array, identity, loadtxt & co.);
             decompositions (linalg's hipSOLVER half);
             numpy_protocols (NumPy's functions and ufuncs on hip.tensor arrays)
  _fusion    ht.fuse: trace, names, fuse
  public     linalg, fft, random, sparse, distributed, nn (imported on first use), backends,
             dask (Dask arrays of hip.tensor chunks; imported on first use, or at once where
             Dask is imported already)

The interfaces between these parts and the rules they keep: docs/design.rst, "hip.tensor:
modules and contracts".
"""
import sys as _sys

from ._core.device import *  # noqa: F401,F403
from ._core.memory import *  # noqa: F401,F403
from ._core.graph import *  # noqa: F401,F403
from ._core.interop import *  # noqa: F401,F403
from ._core.dtypes import *  # noqa: F401,F403
from ._core.array import *  # noqa: F401,F403
from ._kernels.compiler import *  # noqa: F401,F403
from ._kernels.elementwise import *  # noqa: F401,F403
from ._kernels.reduction import *  # noqa: F401,F403
from ._kernels.raw import *  # noqa: F401,F403
from ._api.info import *  # noqa: F401,F403
from ._api.creation import *  # noqa: F401,F403
from ._api.manipulation import *  # noqa: F401,F403
from ._api.indexing import *  # noqa: F401,F403
from ._api.elementwise import *  # noqa: F401,F403
from ._api.statistical import *  # noqa: F401,F403
from ._api.sorting import *  # noqa: F401,F403
from ._api.searching import *  # noqa: F401,F403
from ._api.sets import *  # noqa: F401,F403
from ._api.linalg import *  # noqa: F401,F403
from ._api.einsum import *  # noqa: F401,F403
from ._api.nanfunctions import *  # noqa: F401,F403
from ._api.numpy_creation import *  # noqa: F401,F403
from ._api import numpy_protocols as _numpy_protocols  # noqa: F401  (NumPy's __array_ufunc__/__array_function__)
from ._fusion.fuse import *  # noqa: F401,F403
from . import backends, distributed, fft, linalg, random, sparse  # noqa: F401
from ._core.array import register as _register

_register(namespace=_sys.modules[__name__])     # what an array's __array_namespace__() returns

if _sys.modules.get("dask") is not None:
    # Dask is here (a Dask worker unpickling hip.tensor chunks, or a program that imported it
    # first): register hip.tensor's array with it (hip.tensor.dask; Dask stays optional)
    import importlib as _importlib
    _importlib.import_module(".dask", __name__)


def __getattr__(name):
    # hip.tensor.nn and hip.tensor.dask are imported on first use (`ht.nn`, `ht.dask`), keeping
    # `import hip.tensor` light (and Dask optional)
    if name in ("nn", "dask"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
