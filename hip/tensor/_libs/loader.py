"""The ROCm libraries hip.tensor calls besides the runtime (hipBLAS, hipSOLVER, hipSPARSE, hipFFT,
hipRAND, RCCL), loaded through hip's one loader.

Their failures go through `hip.errors.check(result, function, error)`, `error` being the
library's class here (BlasError, SparseError, FFTError, RandError, DistributedError: HipErrors
carrying `.status` and `.library`); a missing library raises hip.errors.LibraryNotFoundError as
the loader made it.
"""
from __future__ import annotations

import functools
import importlib

__all__: list[str] = []


@functools.cache        # a failure is not cached: a later call searches again (the loader decides)
def library(name: str):
    """The module hip.<name> ('hipblas', 'rccl', ...) with its shared library loaded."""
    mod = importlib.import_module(f"hip.{name}")
    # loaded now rather than at the first call so that a missing library fails before the
    # caller queues any device work for it
    mod._library.load()
    return mod
