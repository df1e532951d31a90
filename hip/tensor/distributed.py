"""`hip.tensor.distributed`: collectives on hip.tensor arrays through RCCL (NCCL on NVIDIA).

One process per GPU (torchrun-style):

    import hip.tensor as ht
    comm = ht.distributed.init_process_group()        # RANK, WORLD_SIZE (and an id channel) from the env
    x = ht.ones(1 << 20, dtype=ht.float32, device=comm.device_id)
    comm.all_reduce(x)                                # in place, on the current stream

One process driving several GPUs:

    comms = ht.distributed.Communicator.init_all([0, 1])
    with ht.distributed.group():                      # ncclGroupStart/End: one thread issues them all
        for c, x in zip(comms, xs):
            c.all_reduce(x)

Bootstrap: every rank needs the same 128-byte RCCL unique id, made by rank 0 (`get_unique_id()`,
bytes that any channel can carry). `init_process_group` takes it from, in this order: its
`unique_id` argument; $HIP_TENSOR_RCCL_ID (the id as 256 hex digits); $HIP_TENSOR_RCCL_ID_FILE (rank
0 writes the id there, the others wait for the file: give each run a fresh path on a file system
all ranks see); mpi4py's COMM_WORLD broadcast when mpi4py can be imported; a one-rank group makes
its own. Rank and size: the arguments, else $RANK and $WORLD_SIZE (torchrun's), else mpi4py's
COMM_WORLD, else 0 of 1. The device: `device`, else $LOCAL_RANK, else rank % device count.
$HIP_TENSOR_RCCL_TIMEOUT: seconds to wait for the id file (default 300).

Arrays: any hip.tensor dtype; reductions take 'sum', 'prod', 'max', 'min', 'avg' on the dtypes
RCCL reduces (int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64;
complex64/128 for 'sum' and 'avg', as pairs of reals; bool for 'max' and 'min'); data movement
(broadcast, all_gather, send/recv) takes every dtype. Calls run on the current stream of the
communicator's device and return at once (synchronize the stream, or read the result, to wait).
In-place calls on a non-contiguous array work on a contiguous copy and copy it back afterwards
(after the group ends, inside `group()`).
"""
from __future__ import annotations

import contextlib
import os
import threading
import time
import weakref

import numpy as np

from hip.errors import HipError, check

from ._api.creation import _device_id, zeros as _zeros
from ._core import dtypes as _dt
from ._core.array import ndarray
from ._core.device import Device as _Device, current_stream as _current_stream, device_count as _device_count
from ._kernels.elementwise import _on_device
from ._libs.loader import library

__all__ = ["Communicator", "DistributedError", "get_unique_id", "init_process_group", "group",
           "UNIQUE_ID_BYTES", "ENV_ID", "ENV_ID_FILE", "ENV_TIMEOUT"]

UNIQUE_ID_BYTES = 128            # NCCL_UNIQUE_ID_BYTES
ENV_ID = "HIP_TENSOR_RCCL_ID"
ENV_ID_FILE = "HIP_TENSOR_RCCL_ID_FILE"
ENV_TIMEOUT = "HIP_TENSOR_RCCL_TIMEOUT"

_OPS = {"sum": "ncclSum", "prod": "ncclProd", "max": "ncclMax", "min": "ncclMin", "avg": "ncclAvg"}
_TYPES = {"int8": "ncclInt8", "uint8": "ncclUint8", "int32": "ncclInt32", "uint32": "ncclUint32",
          "int64": "ncclInt64", "uint64": "ncclUint64", "float16": "ncclFloat16", "bfloat16": "ncclBfloat16",
          "float32": "ncclFloat32", "float64": "ncclFloat64", "bool": "ncclUint8",
          "complex64": "ncclFloat32", "complex128": "ncclFloat64"}


class DistributedError(HipError):
    """An RCCL call failed: `.status` (its ncclResult_t; `.result` is the same), `.library`,
    `.function`."""

    @property
    def result(self):
        return self.code


def _lib():
    return library("rccl")


# -- types and ops ----------------------------------------------------------------------------------
_reductions: dict = {}


def _reduction(d: _dt.DType, op: str):
    """(ncclDataType_t, ncclRedOp_t, elements per array element) for reducing dtype `d` with `op`."""
    r = _reductions.get((d, op)) if isinstance(op, str) else None
    if r is None:
        r = _reductions[(d, op)] = _new_reduction(d, op)
    return r


def _new_reduction(d: _dt.DType, op: str):
    if not isinstance(op, str) or op not in _OPS:
        raise ValueError(f"op must be one of {sorted(_OPS)}, got {op!r}")
    t = _TYPES.get(d.name)
    if t is None:
        raise TypeError(f"RCCL cannot reduce {d.name} arrays")
    if d.kind == "c" and op not in ("sum", "avg"):
        raise TypeError(f"op {op!r} is not defined on complex arrays (only 'sum' and 'avg')")
    if d.kind == "b" and op not in ("max", "min"):
        raise TypeError(f"op {op!r} on bool arrays: use 'max' (any) or 'min' (all)")
    C = _lib()
    return C.ncclDataType_t[t], C.ncclRedOp_t[_OPS[op]], 2 if d.kind == "c" else 1


def _movement(d: _dt.DType):
    """(ncclDataType_t, elements per array element) for copying dtype `d` (bytes when RCCL has no type)."""
    C = _lib()
    t = _TYPES.get(d.name)
    if t is None:
        return C.ncclDataType_t.ncclUint8, d.itemsize
    return C.ncclDataType_t[t], 2 if d.kind == "c" else 1


# -- groups -----------------------------------------------------------------------------------------
_tls = threading.local()


def _after(fn) -> None:
    """Run `fn` now, or, inside `group()`, once the group has ended (its collectives enqueued): the
    copy back of an in-place call on a non-contiguous array, or the release of a temporary."""
    if getattr(_tls, "depth", 0):
        _tls.after.append(fn)
    else:
        fn()


@contextlib.contextmanager
def group():
    """ncclGroupStart/End around the body: the calls inside are issued together when it ends (one
    thread can then drive one communicator per GPU). Nested groups end at the outermost."""
    C = _lib()
    check(C.ncclGroupStart(), "ncclGroupStart", DistributedError)
    depth = getattr(_tls, "depth", 0)
    if depth == 0:
        _tls.after = []
    _tls.depth = depth + 1
    ok = False
    try:
        yield
        ok = True
    finally:
        # the group is closed even when the body failed: NCCL's group depth is per thread and an
        # open group would defer every later call
        _tls.depth = depth
        result = C.ncclGroupEnd()
        after = _tls.after if depth == 0 else []
        if depth == 0:
            _tls.after = []
    if ok:
        check(result, "ncclGroupEnd", DistributedError)
        for fn in after:
            fn()


# -- unique ids -------------------------------------------------------------------------------------
def get_unique_id() -> bytes:
    """A new RCCL unique id (128 bytes) for `init_process_group`/`Communicator.init_rank`: made
    once, by rank 0, and carried to the other ranks by any channel."""
    C = _lib()
    uid = C.ncclUniqueId()
    check(C.ncclGetUniqueId(uid), "ncclGetUniqueId", DistributedError)
    return bytes(uid.internal)


def _as_id(unique_id) -> bytes:
    if isinstance(unique_id, str):
        try:
            unique_id = bytes.fromhex(unique_id)
        except ValueError:
            raise ValueError("a unique id given as str must be hex digits") from None
    if not isinstance(unique_id, (bytes, bytearray, memoryview)):
        raise TypeError(f"unique_id must be bytes (from get_unique_id()), got {type(unique_id).__name__}")
    unique_id = bytes(unique_id)
    if len(unique_id) != UNIQUE_ID_BYTES:
        raise ValueError(f"a unique id has {UNIQUE_ID_BYTES} bytes, got {len(unique_id)}")
    return unique_id


def _id_through_file(path: str, rank: int) -> bytes:
    """Rank 0 writes a new id to `path` (atomically: a temporary file renamed); the others wait
    for it."""
    if rank == 0:
        uid = get_unique_id()
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(uid)
        os.replace(tmp, path)
        return uid
    timeout = float(os.environ.get(ENV_TIMEOUT, "300"))
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path, "rb") as f:
                data = f.read()
            if len(data) == UNIQUE_ID_BYTES:
                return data
        except FileNotFoundError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"rank {rank}: no RCCL unique id in {path} after {timeout:g} s "
                               f"(${ENV_TIMEOUT}); rank 0 writes it")
        time.sleep(0.01)


def _mpi_world():
    """mpi4py's COMM_WORLD, or None when mpi4py cannot be imported."""
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    return MPI.COMM_WORLD


def _env_int(name: str):
    v = os.environ.get(name)
    if v is None or v == "":
        return None
    try:
        return int(v)
    except ValueError:
        raise ValueError(f"${name} must be an integer, got {v!r}") from None


def _resolve(rank, world_size, unique_id):
    """(rank, world_size, unique id or None, mpi comm or None) from the arguments and the env."""
    mpi = None
    if rank is None:
        rank = _env_int("RANK")
    if world_size is None:
        world_size = _env_int("WORLD_SIZE")
    if rank is None or world_size is None:
        mpi = _mpi_world()
        if mpi is not None and mpi.Get_size() > 1:
            rank = mpi.Get_rank() if rank is None else rank
            world_size = mpi.Get_size() if world_size is None else world_size
        else:
            rank = 0 if rank is None else rank
            world_size = 1 if world_size is None else world_size
    for name, v in (("rank", rank), ("world_size", world_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    rank, world_size = int(rank), int(world_size)
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"need 0 <= rank < world_size, got rank {rank} of {world_size}")
    if unique_id is None and os.environ.get(ENV_ID):
        unique_id = os.environ[ENV_ID]
    if unique_id is not None:
        unique_id = _as_id(unique_id)
    return rank, world_size, unique_id, mpi


def init_process_group(rank: int | None = None, world_size: int | None = None, unique_id=None, *,
                       device=None) -> "Communicator":
    """This process's Communicator in a group of `world_size` processes (one GPU each); blocks
    until every rank has joined. See the module's docstring for where each value comes from."""
    rank, world_size, uid, mpi = _resolve(rank, world_size, unique_id)
    if device is None:
        device = _env_int("LOCAL_RANK")
    if device is None:
        device = rank % max(_device_count(), 1)
    if uid is None:
        path = os.environ.get(ENV_ID_FILE)
        if path:
            uid = _id_through_file(path, rank)
        elif world_size == 1:
            uid = get_unique_id()
        else:
            mpi = mpi if mpi is not None else _mpi_world()
            if mpi is None or mpi.Get_size() != world_size:
                raise RuntimeError(
                    f"rank {rank} of {world_size}: no way to share the RCCL unique id: pass unique_id= "
                    f"(get_unique_id() on rank 0), or set ${ENV_ID} (hex) or ${ENV_ID_FILE}, or run "
                    f"under MPI with mpi4py installed")
            uid = mpi.bcast(get_unique_id() if rank == 0 else None, root=0)
    return Communicator.init_rank(uid, rank, world_size, device=device)


def _destroy(comm: int) -> None:
    from hip import rccl
    rccl.ncclCommDestroy(comm)


class Communicator:
    """An RCCL communicator: one rank of a group, bound to one GPU. Make it with
    `init_process_group`, `Communicator.init_rank` or `Communicator.init_all`."""

    def __init__(self, comm: int, rank: int, world_size: int, device_id: int):
        self._comm = int(comm)
        self.rank, self.world_size, self.device_id = rank, world_size, device_id
        self._finalizer = weakref.finalize(self, _destroy, self._comm)

    @classmethod
    def init_rank(cls, unique_id, rank: int, world_size: int, *, device=None) -> "Communicator":
        """ncclCommInitRank on `device` (the current one by default); blocks until all ranks join."""
        uid_bytes = _as_id(unique_id)
        if not 0 <= int(rank) < int(world_size):
            raise ValueError(f"need 0 <= rank < world_size, got rank {rank} of {world_size}")
        C = _lib()
        dev = _device_id(device)
        uid = C.ncclUniqueId(internal=uid_bytes)
        with _Device(dev):
            comm = check(C.ncclCommInitRank(int(world_size), uid, int(rank)), "ncclCommInitRank",
                         DistributedError)
        return cls(int(comm), int(rank), int(world_size), dev)

    @classmethod
    def init_all(cls, devices=None) -> list["Communicator"]:
        """One communicator per device of `devices` (default: every visible GPU), all in this
        process (ncclCommInitAll); rank i drives devices[i]. Issue their calls inside `group()`."""
        if devices is None:
            devices = list(range(_device_count()))
        devices = [int(d) for d in devices]
        if not devices:
            raise ValueError("init_all needs at least one device")
        if len(set(devices)) != len(devices):
            raise ValueError(f"init_all: a device appears twice in {devices}")
        C = _lib()
        storage = np.zeros(len(devices), np.uintp)             # one ncclComm_t per device, filled by the call
        check(C.ncclCommInitAll(storage, len(devices), np.array(devices, np.int32)), "ncclCommInitAll",
              DistributedError)
        return [cls(int(c), r, len(devices), d) for r, (c, d) in enumerate(zip(storage, devices))]

    @property
    def device(self):
        return _Device(self.device_id)

    @property
    def size(self) -> int:
        return self.world_size

    def __repr__(self) -> str:
        state = "destroyed" if not self._finalizer.alive else f"device {self.device_id}"
        return f"<Communicator rank {self.rank} of {self.world_size}, {state}>"

    def destroy(self) -> None:
        """ncclCommDestroy (also done when the Communicator is garbage collected)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    # -- plumbing ----------------------------------------------------------------------------------
    def _handle(self) -> int:
        if not self._finalizer.alive:
            raise RuntimeError("this Communicator was destroyed")
        return self._comm

    def _array(self, x, what: str) -> ndarray:
        if not isinstance(x, ndarray):
            raise TypeError(f"{what} must be a hip.tensor ndarray, got {type(x).__name__}")
        if x.device_id != self.device_id:
            raise ValueError(f"{what} is on device {x.device_id}; rank {self.rank}'s communicator is on "
                             f"device {self.device_id}")
        return x

    def _writable(self, x, what: str) -> ndarray:
        x = self._array(x, what)
        if x.flags.writeable is False:
            raise ValueError(f"{what} is read-only")
        return x

    def _root(self, root) -> int:
        if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < self.world_size:
            raise ValueError(f"root must be a rank in [0, {self.world_size}), got {root!r}")
        return int(root)

    def _in_place(self, x: ndarray, call) -> ndarray:
        """call(contiguous buffer, stream) on x's memory, or on a copy written back afterwards."""
        self._handle()
        with _on_device(self.device_id):
            stream = _current_stream(self.device_id)
            if x.size == 0:
                return x
            if x.flags.c_contiguous:
                call(x, stream)
                _after(lambda: x)                              # keeps x alive until the group ends
                return x
            tmp = x.copy()
            call(tmp, stream)

            def back():
                with _on_device(self.device_id):
                    x[...] = tmp
            _after(back)
            return x

    # -- collectives -------------------------------------------------------------------------------
    def all_reduce(self, x, op: str = "sum") -> ndarray:
        """x = op over all ranks of x, in place; returns x."""
        x = self._writable(x, "all_reduce's array")
        t, o, k = _reduction(x.dtype, op)
        C, comm = _lib(), self._handle()
        return self._in_place(x, lambda b, s: check(
            C.ncclAllReduce(b.ptr, b.ptr, b.size * k, t, o, comm, s.ptr), "ncclAllReduce", DistributedError))

    def broadcast(self, x, root: int = 0) -> ndarray:
        """x = root's x on every rank, in place; returns x."""
        x = self._writable(x, "broadcast's array")
        root = self._root(root)
        t, k = _movement(x.dtype)
        C, comm = _lib(), self._handle()
        return self._in_place(x, lambda b, s: check(
            C.ncclBroadcast(b.ptr, b.ptr, b.size * k, t, root, comm, s.ptr), "ncclBroadcast", DistributedError))

    def reduce(self, x, root: int = 0, op: str = "sum") -> ndarray:
        """On `root`, x = op over all ranks of x (in place; the other ranks' x is unchanged)."""
        x = self._writable(x, "reduce's array")
        root = self._root(root)
        t, o, k = _reduction(x.dtype, op)
        C, comm = _lib(), self._handle()
        return self._in_place(x, lambda b, s: check(
            C.ncclReduce(b.ptr, b.ptr, b.size * k, t, o, root, comm, s.ptr), "ncclReduce", DistributedError))

    def all_gather(self, x, out=None) -> ndarray:
        """Every rank's x stacked: an array of shape (world_size, *x.shape); out= receives it."""
        x = self._array(x, "all_gather's array")
        shape = (self.world_size,) + x.shape
        out = self._out(out, shape, x.dtype, "all_gather's out")
        t, k = _movement(x.dtype)
        C, comm = _lib(), self._handle()
        with _on_device(self.device_id):
            src = x if x.flags.c_contiguous else x.copy()
            if x.size:
                check(C.ncclAllGather(src.ptr, out.ptr, src.size * k, t, comm, _current_stream(self.device_id).ptr),
                      "ncclAllGather", DistributedError)
                _after(lambda: (src, out))
        return out

    def reduce_scatter(self, x, op: str = "sum", out=None) -> ndarray:
        """op over all ranks of x, split along axis 0 into world_size blocks: rank r gets block r
        (shape (x.shape[0] // world_size, *x.shape[1:])); out= receives it."""
        x = self._array(x, "reduce_scatter's array")
        if x.ndim == 0 or x.shape[0] % self.world_size:
            raise ValueError(f"reduce_scatter needs an array whose first axis divides by {self.world_size} "
                             f"ranks, got shape {x.shape}")
        t, o, k = _reduction(x.dtype, op)
        shape = (x.shape[0] // self.world_size,) + x.shape[1:]
        out = self._out(out, shape, x.dtype, "reduce_scatter's out")
        C, comm = _lib(), self._handle()
        with _on_device(self.device_id):
            src = x if x.flags.c_contiguous else x.copy()
            if out.size:
                check(C.ncclReduceScatter(src.ptr, out.ptr, out.size * k, t, o, comm,
                                          _current_stream(self.device_id).ptr), "ncclReduceScatter", DistributedError)
                _after(lambda: (src, out))
        return out

    def send(self, x, peer: int) -> None:
        """Send x to rank `peer` (which calls recv with an array of the same size and dtype)."""
        x = self._array(x, "send's array")
        peer = self._peer(peer)
        t, k = _movement(x.dtype)
        C, comm = _lib(), self._handle()
        with _on_device(self.device_id):
            src = x if x.flags.c_contiguous else x.copy()
            if x.size:
                check(C.ncclSend(src.ptr, src.size * k, t, peer, comm, _current_stream(self.device_id).ptr),
                      "ncclSend", DistributedError)
                _after(lambda: src)

    def recv(self, x, peer: int) -> ndarray:
        """Receive into x (in place) what rank `peer` sends; returns x."""
        x = self._writable(x, "recv's array")
        peer = self._peer(peer)
        t, k = _movement(x.dtype)
        C, comm = _lib(), self._handle()
        return self._in_place(x, lambda b, s: check(
            C.ncclRecv(b.ptr, b.size * k, t, peer, comm, s.ptr), "ncclRecv", DistributedError))

    def barrier(self) -> None:
        """Wait (on the host) until every rank has reached this point."""
        x = _zeros((1,), dtype=_dt.float32, device=self.device_id)
        self.all_reduce(x)
        x.get()

    def _peer(self, peer) -> int:
        if isinstance(peer, bool) or not isinstance(peer, (int, np.integer)) or not 0 <= peer < self.world_size:
            raise ValueError(f"peer must be a rank in [0, {self.world_size}), got {peer!r}")
        if int(peer) == self.rank and not getattr(_tls, "depth", 0):
            raise ValueError("send/recv to this rank itself needs both calls inside one group()")
        return int(peer)

    def _out(self, out, shape, d: _dt.DType, what: str) -> ndarray:
        if out is None:
            return ndarray._empty(shape, d, self.device_id)
        out = self._writable(out, what)
        if out.shape != shape or out.dtype is not d:
            raise ValueError(f"{what} must be {d.name} of shape {shape}, got {out.dtype.name} {out.shape}")
        if not out.flags.c_contiguous:
            raise ValueError(f"{what} must be C-contiguous")
        return out
