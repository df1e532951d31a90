"""Dask arrays of hip.tensor chunks: what Dask's `dask/array/backends.py` registers for CuPy,
registered for `hip.tensor.ndarray`, and the array backend `"hip"`.

Importing this module registers hip.tensor's array as a Dask chunk type (`register_chunk_type`) and
its implementations of Dask's dispatches: `concatenate_lookup`, `tensordot_lookup`,
`einsum_lookup`, `take_lookup`, `empty_lookup`, `percentile_lookup`, `numel_lookup`,
`nannumel_lookup`, `to_numpy_dispatch`, `to_cupy_dispatch` (and `to_hip_dispatch`, the way onto
this backend), with Dask's `sizeof` and `normalize_token` (a hash of the content, copied to the host
once: `da.from_array(x, name=False)` skips it). Everything else a chunk meets, NumPy's functions and ufuncs
on it, runs through hip.tensor's NumPy protocols (`__array_function__`, `__array_ufunc__`).

`import hip.tensor` imports this module where Dask is already imported (a Dask worker unpickling
hip.tensor chunks, a program that imported Dask first); otherwise import it (or `ht.dask`), or
select the backend, whose entry point (`dask.array.backends`, name `hip`) imports it::

    dask.config.set({"array.backend": "hip"})
    x = da.ones((1 << 20,), chunks=1 << 16)       # hip.tensor chunks on the current device

Chunks live on the device current where a task runs. `gpu_cluster()` starts `dask.distributed`
with one worker process per GPU, each seeing only its own device (as dask-cuda's LocalCUDACluster,
without dask-cuda); Dask schedules, hip.tensor computes. Chunks travel between processes through
the host (pickling copies to the host, as CuPy's does).
"""
from __future__ import annotations

import hashlib
import os

import dask.array as da
import numpy as np
from dask import config
from dask.array.backends import ArrayBackendEntrypoint, _nannumel, _numel_arraylike, array_creation_dispatch
from dask.array.chunk_types import register_chunk_type
from dask.array.dispatch import (concatenate_lookup, einsum_lookup, empty_lookup, nannumel_lookup,
                                 numel_lookup, percentile_lookup, take_lookup, tensordot_lookup,
                                 to_cupy_dispatch, to_numpy_dispatch)
from dask.sizeof import sizeof
from dask.tokenize import normalize_token
from dask.hashing import hash_buffer_hex
from dask.utils import Dispatch

from . import random as _random
from ._api.creation import asarray, empty
from ._api.einsum import einsum
from ._api.elementwise import ceil, floor, round as _round
from ._api.indexing import take
from ._api.linalg import tensordot
from ._api.manipulation import concat
from ._api.sorting import sort
from ._core import dtypes as _dt
from ._core.array import ndarray
from ._core.device import device_count, platform

__all__ = ["HipTensorBackendEntrypoint", "RandomState", "to_hip_dispatch", "meta", "gpu_cluster", "register"]

to_hip_dispatch = Dispatch("to_hip_dispatch")


def meta(dtype=None) -> ndarray:
    """A zero-size hip.tensor array: the `meta` of Dask arrays of hip.tensor chunks."""
    return empty((0,), dtype=_dt.default_float if dtype is None else dtype)


_meta = meta


# -- the dispatches --------------------------------------------------------------------------------
def _concatenate(arrays, axis=0):
    return concat(list(arrays), axis=axis)


def _tensordot(a, b, axes=2):
    return tensordot(a, b, axes=axes)


def _einsum(subscripts, *operands, dtype=None, casting="safe", order="K", optimize=False):
    # (casting, order and optimize are NumPy's: hip.tensor's results are C-ordered and its
    # contraction order is its own; dtype is the type the product is computed in)
    if dtype is not None:
        operands = [o.astype(dtype, copy=False) if isinstance(o, ndarray) else o for o in operands]
    return einsum(subscripts, *operands)


def _take(a, indices, axis=0):
    return take(a, indices if isinstance(indices, ndarray) else asarray(indices, device=a.device_id), axis=axis)


def _empty(shape, dtype=None):
    return empty(shape, dtype=dtype)


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _percentile(a, q, method="linear"):
    """One chunk's percentiles, NumPy's methods: (values at q, number of values)."""
    n = len(a)
    if not n:
        return None, n
    if method not in _METHODS:
        raise ValueError(f"percentile method must be one of {_METHODS}, got {method!r}")
    if a.dtype.kind not in "biuf":
        method = "nearest"
    q = q if isinstance(q, ndarray) else asarray(np.asarray(q, dtype=np.float64), device=a.device_id)
    s = sort(a.reshape(-1))
    pos = q.astype(_dt.float64) * ((n - 1) / 100.0)
    lo, hi = floor(pos), ceil(pos)
    if method == "lower":
        return take(s, lo.astype(_dt.int64)), n
    if method == "higher":
        return take(s, hi.astype(_dt.int64)), n
    if method == "nearest":
        return take(s, _round(pos).astype(_dt.int64)), n     # (halves to even, as NumPy's around)
    out = a.dtype if a.dtype.kind == "f" else _dt.float64
    v0 = take(s, lo.astype(_dt.int64)).astype(_dt.float64)
    v1 = take(s, hi.astype(_dt.int64)).astype(_dt.float64)
    vals = (v0 + v1) * 0.5 if method == "midpoint" else v0 + (v1 - v0) * (pos - lo)
    return vals.astype(out), n


def _to_numpy(data, **kwargs):
    return data.get()


def _to_cupy(data, **kwargs):
    import cupy                     # optional: only asked for when a CuPy backend is asked for
    return cupy.from_dlpack(data)


def _from_host(data, **kwargs):
    return asarray(data, **kwargs)


def _same(data, **kwargs):
    return data


def _token(x):
    # the content's hash, as Dask's for NumPy arrays (one copy to the host; name= skips it)
    return "hip.tensor.ndarray", x.dtype.name, x.shape, hash_buffer_hex(x.get())


def _register_cupy():
    import cupy                     # another library's device arrays come as views (DLPack, CAI)
    to_hip_dispatch.register(cupy.ndarray, _from_host)


_registered = False


def register() -> None:
    """Register hip.tensor's array with Dask, and the backend "hip" (done at import; again is a
    no-op)."""
    global _registered
    if _registered:
        return
    _registered = True
    register_chunk_type(ndarray)
    concatenate_lookup.register(ndarray, _concatenate)
    tensordot_lookup.register(ndarray, _tensordot)
    einsum_lookup.register(ndarray, _einsum)
    take_lookup.register(ndarray, _take)
    empty_lookup.register(ndarray, _empty)
    percentile_lookup.register(ndarray, _percentile)
    numel_lookup.register(ndarray, _numel_arraylike)        # (hip.tensor counts, as CuPy's)
    nannumel_lookup.register(ndarray, _nannumel)
    to_numpy_dispatch.register(ndarray, _to_numpy)
    to_cupy_dispatch.register(ndarray, _to_cupy)
    to_hip_dispatch.register(ndarray, _same)
    to_hip_dispatch.register(np.ndarray, _from_host)
    to_hip_dispatch.register_lazy("cupy", _register_cupy)
    sizeof.register(ndarray, lambda x: x.nbytes)
    normalize_token.register(ndarray, _token)
    # the backend too: found without the entry point's metadata (a checkout on PYTHONPATH)
    array_creation_dispatch.register_backend("hip", HipTensorBackendEntrypoint())


# -- one worker per GPU ---------------------------------------------------------------------------
def gpu_cluster(devices=None, *, threads_per_worker: int = 1, **cluster_options):
    """A `distributed.SpecCluster` on this machine with one worker process (a Nanny) per GPU of
    `devices` (ordinals; default all), each seeing only its device: `CUDA_VISIBLE_DEVICES` on the
    nvidia platform, `HIP_VISIBLE_DEVICES` on AMD, set before the worker's HIP starts (ordinals
    count within an inherited list). Workers have no host memory limit: their data is device
    memory, which Dask's spilling (by host memory) would copy to disk. Use it with
    `distributed.Client(cluster)`."""
    from distributed import Nanny, Scheduler, SpecCluster      # (distributed is optional)
    var = "CUDA_VISIBLE_DEVICES" if platform() == "nvidia" else "HIP_VISIBLE_DEVICES"
    devices = list(range(device_count()) if devices is None else devices)
    if not devices:
        raise ValueError("gpu_cluster: no devices")
    inherited = [d for d in os.environ.get(var, "").split(",") if d.strip()]
    visible = [inherited[d] if inherited else str(d) for d in devices]
    workers = {f"gpu-{d}": {"cls": Nanny, "options": {"nthreads": threads_per_worker, "memory_limit": 0,
                                                      "host": "127.0.0.1", "env": {var: v}}}
               for d, v in zip(devices, visible)}
    scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard": False, "dashboard_address": None}}
    return SpecCluster(workers=workers, scheduler=scheduler, **cluster_options)


# -- the backend ---------------------------------------------------------------------------------
class RandomState:
    """NumPy's `RandomState` methods over `hip.tensor.random` (what `da.random.random` & co. call
    per chunk with the "hip" backend), seeded from Dask's state data for the chunk. hipRAND's
    numbers: the same seed gives other numbers than NumPy's."""

    def __init__(self, seed=None):
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seed = int.from_bytes(hashlib.blake2b(np.ascontiguousarray(seed).tobytes(), digest_size=8).digest(),
                                  "little")
        self._rng = _random.default_rng(None if seed is None else int(seed) % (1 << 64))

    def random_sample(self, size=None, dtype=np.float64):
        return self._rng.random(size, dtype=dtype)

    random = random_sample

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        return self._rng.uniform(low, high, size, dtype=dtype)

    def standard_normal(self, size=None, dtype=np.float64):
        return self._rng.standard_normal(size, dtype=dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64):
        return self._rng.normal(loc, scale, size, dtype=dtype)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=np.float64):
        return self._rng.lognormal(mean, sigma, size, dtype=dtype)

    def poisson(self, lam=1.0, size=None):
        return self._rng.poisson(lam, size)

    def randint(self, low, high=None, size=None, dtype=np.int64):
        return self._rng.integers(low, high, size, dtype=dtype)

    def permutation(self, x):
        return self._rng.permutation(x)


def _with_meta(name, *args, meta=None, **kwargs):
    # Dask's own creation function, with a hip.tensor meta (as Dask's CuPy backend does)
    with config.set({"array.backend": "numpy"}):
        return getattr(da, name)(*args, meta=_meta() if meta is None else meta, **kwargs)


class HipTensorBackendEntrypoint(ArrayBackendEntrypoint):
    """The Dask array backend "hip" (`dask.config.set({"array.backend": "hip"})`): `da.ones`,
    `da.zeros`, `da.empty`, `da.full`, `da.arange` and `da.random` make hip.tensor chunks;
    `x.to_backend("hip")` moves an array's chunks to the device."""

    def __init__(self):
        register()

    @classmethod
    def to_backend_dispatch(cls):
        return to_hip_dispatch

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, ndarray):
            return data
        return data.map_blocks(cls.to_backend_dispatch(), **kwargs)

    @property
    def RandomState(self):
        return RandomState

    @property
    def default_bit_generator(self):
        raise NotImplementedError("hip.tensor.random has no NumPy BitGenerators: with the 'hip' backend use "
                                  "da.random.random & co. or da.random.RandomState (not default_rng)")

    @staticmethod
    def ones(*args, **kwargs):
        return _with_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args, **kwargs):
        return _with_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args, **kwargs):
        return _with_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args, **kwargs):
        return _with_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        with config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=_meta() if like is None else like, **kwargs)


register()
