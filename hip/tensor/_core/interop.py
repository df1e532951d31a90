"""Zero-copy exchange with other libraries: DLPack capsules (export and import, legacy 0.8
"dltensor" and 1.x "dltensor_versioned") built with ctypes, and `__cuda_array_interface__` v3.

Stream handshakes follow the specs: an exporter makes the consumer's stream wait on its own
current stream with an event; an importer of CAI makes its stream wait on the producer's.
"""
from __future__ import annotations

import ctypes

from hip import hip as h
from hip.errors import check

from .device import Event, Stream, current_stream, get_device_id, platform

# Primitives for the array type (its __dlpack__, from_dlpack, asarray): nothing public in hip.tensor.
__all__: list[str] = []

kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLCUDAManaged = 1, 2, 3, 10, 11, 13
_GPU_TYPES = (kDLCUDA, kDLROCM, kDLCUDAManaged)
_READ_ONLY = 1 << 0                  # DLPACK_FLAG_BITMASK_READ_ONLY
_VERSION = (1, 0)                    # what this module writes into versioned capsules


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)   # void (*)(DLManagedTensor[Versioned]*)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# dtype name <-> (DLDataTypeCode, bits); kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6
_DL_CODES = {"bool": (6, 8), "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64),
             "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64), "float16": (2, 16),
             "float32": (2, 32), "float64": (2, 64), "bfloat16": (4, 16), "complex64": (5, 64),
             "complex128": (5, 128)}
_DL_NAMES = {v: k for k, v in _DL_CODES.items()}
_ITEMSIZE = {k: v[1] // 8 for k, v in _DL_CODES.items()}

# The C API through ctypes: PyCapsule calls on Python objects (py_object) and, inside the capsule
# destructor where the capsule is already dying, on its raw address (c_void_p, no reference taken).
_api = ctypes.pythonapi
_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, _Destructor)(
    ("PyCapsule_New", _api))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(("PyCapsule_SetName", _api))
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_raw_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

# Capsule names must outlive the capsules: static buffers.
_NAMES = {n: ctypes.create_string_buffer(n) for n in
          (b"dltensor", b"dltensor_versioned", b"used_dltensor", b"used_dltensor_versioned")}


# -- export ---------------------------------------------------------------------------------------
_exports: dict[int, tuple] = {}     # managed tensor address -> what it holds (owner, structs)


@_Deleter
def _delete_export(address):
    """The deleter of our managed tensors: the consumer (or our capsule destructor) is done."""
    _exports.pop(address, None)


@_Destructor
def _capsule_destructor(capsule):
    """A capsule still named "dltensor[_versioned]" was never consumed: delete its tensor."""
    for name in (b"dltensor", b"dltensor_versioned"):
        if _raw_is_valid(capsule, name):
            _exports.pop(_raw_pointer(capsule, name), None)
            return


def dlpack_device(device_id: int) -> tuple[int, int]:
    """`__dlpack_device__()` of device memory: (kDLROCM, id) on AMD, (kDLCUDA, id) on the nvidia platform."""
    return (kDLCUDA if platform() == "nvidia" else kDLROCM, int(device_id))


def _consumer_stream(value, device_type: int) -> int | None:
    """The stream handle a DLPack `stream=` value names; None: no synchronization (-1)."""
    if value is None:
        return 0                        # both specs: assume the legacy default stream
    if isinstance(value, Stream):
        return value.ptr
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"stream must be an int or None, got {type(value).__name__}")
    if value == -1:
        return None
    if device_type == kDLROCM:
        if value in (1, 2):
            raise ValueError(f"stream={value} is not valid for ROCm in the DLPack protocol (0 is the default stream)")
        return value
    if value == 0:
        raise ValueError("stream=0 is ambiguous for CUDA in the DLPack protocol: use 1 (legacy default) or 2 (per-thread)")
    return 0 if value == 1 else value   # 2 is hipStreamPerThread/cudaStreamPerThread


def _strides_c(shape, itemsize: int = 1) -> tuple:
    out, s = [], itemsize
    for d in reversed(shape):
        out.append(s)
        s *= max(int(d), 1)
    return tuple(reversed(out))


def export_dlpack(owner, ptr: int, shape, strides_in_elements, dtype_name: str, device_id: int,
                  stream=None, max_version=None, *, device_type: int | None = None,
                  readonly: bool = False):
    """A DLPack capsule over `ptr` that keeps `owner` alive until the consumer's deleter runs.

    `max_version` None (an old consumer) or < 1.0 gives a "dltensor" capsule (DLManagedTensor),
    else "dltensor_versioned" (DLManagedTensorVersioned 1.0, read-only flag from `readonly`).
    `stream`: the consumer's stream as the protocol passes it; the producer's current stream is
    made to happen before it (an event, no host synchronization); -1 skips that. `device_type`
    defaults to the GPU's (dlpack_device); kDLCPU exports host memory (stream must be None).
    """
    if device_type is None:
        device_type = dlpack_device(device_id)[0]
    if dtype_name not in _DL_CODES:
        raise TypeError(f"dtype {dtype_name!r} has no DLPack type code")
    shape = tuple(int(d) for d in shape)
    strides = _strides_c(shape) if strides_in_elements is None else tuple(int(s) for s in strides_in_elements)
    if len(strides) != len(shape):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    if device_type in _GPU_TYPES:
        consumer = _consumer_stream(stream, device_type)
        producer = current_stream(device_id)
        if consumer is not None and consumer != producer.ptr:
            ev = Event(timing=False).record(producer)
            check(h.hipStreamWaitEvent(consumer, ev.ptr, 0), "hipStreamWaitEvent")
    elif stream is not None:
        raise ValueError(f"stream must be None for device type {device_type} (host memory)")

    versioned = max_version is not None and tuple(max_version)[0] >= 1
    m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(ndim, 1))(*strides)
    t = m.dl_tensor
    t.data = int(ptr) or None
    t.device = DLDevice(device_type, int(device_id))
    t.ndim = ndim
    code, bits = _DL_CODES[dtype_name]
    t.dtype = DLDataType(code, bits, 1)
    t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    m.deleter = _delete_export
    if versioned:
        m.version = DLPackVersion(*_VERSION)
        m.flags = _READ_ONLY if readonly else 0
    address = ctypes.addressof(m)
    _exports[address] = (owner, m, shape_arr, strides_arr)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    try:
        return _capsule_new(address, ctypes.addressof(_NAMES[name]), _capsule_destructor)
    except BaseException:
        _exports.pop(address, None)
        raise


# -- import ---------------------------------------------------------------------------------------
class Imported:
    """Memory another library owns: `ptr` (first element), `shape`, `strides` (bytes, never None),
    `dtype_name`, `device_id`, `device_type` (DLPack code), `readonly`, `owner` (keep it alive
    while the memory is used)."""

    __slots__ = ("ptr", "shape", "strides", "dtype_name", "device_id", "device_type", "readonly", "owner")

    def __init__(self, ptr, shape, strides, dtype_name, device_id, device_type, readonly, owner):
        self.ptr, self.shape, self.strides, self.dtype_name = ptr, shape, strides, dtype_name
        self.device_id, self.device_type, self.readonly, self.owner = device_id, device_type, readonly, owner

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.dtype_name]

    def __repr__(self):
        return (f"<Imported {self.dtype_name}{list(self.shape)} at {self.ptr:#x} strides={self.strides} "
                f"device=({self.device_type}, {self.device_id})>")


class _DLPackOwner:
    """Holds a consumed managed tensor; calls its producer's deleter when collected."""

    __slots__ = ("address", "deleter", "producer")

    def __init__(self, address: int, deleter, producer):
        self.address, self.deleter, self.producer = address, deleter, producer

    def __del__(self):
        d, self.deleter = self.deleter, None
        if d:
            d(self.address)


def _protocol_stream(stream: Stream, device_type: int) -> int:
    """Our stream as the DLPack `stream=` value a producer expects."""
    if stream.ptr == 0 and device_type != kDLROCM:
        return 1                         # CUDA: 1 is the legacy default stream, 0 is disallowed
    return stream.ptr


def import_dlpack(obj, stream: Stream | None = None) -> Imported:
    """Consume a DLPack producer (an object with __dlpack__) or a capsule. For device memory the
    producer is asked to order its work before `stream` (default: our current stream there)."""
    if type(obj).__name__ == "PyCapsule":
        capsule, producer = obj, None
    else:
        if not hasattr(obj, "__dlpack__"):
            raise TypeError(f"{type(obj).__name__} is no DLPack producer (no __dlpack__) nor a capsule")
        dev_type, dev_id = (int(x) for x in obj.__dlpack_device__())
        s = None
        if dev_type in _GPU_TYPES:
            s = _protocol_stream(stream if stream is not None else current_stream(dev_id), dev_type)
        try:
            capsule = obj.__dlpack__(stream=s, max_version=_VERSION)
        except TypeError:                  # a producer older than DLPack 1.0's protocol
            capsule = obj.__dlpack__(stream=s)
        producer = obj
    if _capsule_is_valid(capsule, b"dltensor_versioned"):
        name = b"dltensor_versioned"
        address = _capsule_pointer(capsule, name)
        m = DLManagedTensorVersioned.from_address(address)
        if m.version.major > _VERSION[0]:
            raise BufferError(f"DLPack {m.version.major}.{m.version.minor} capsule: this consumer reads 1.x")
        readonly = bool(m.flags & _READ_ONLY)
    elif _capsule_is_valid(capsule, b"dltensor"):
        name = b"dltensor"
        address = _capsule_pointer(capsule, name)
        m = DLManagedTensor.from_address(address)
        readonly = False
    else:
        raise ValueError("not a DLPack capsule, or one already consumed")
    t = m.dl_tensor
    key = (t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or key not in _DL_NAMES:
        raise TypeError(f"DLPack dtype (code {t.dtype.code}, bits {t.dtype.bits}, lanes {t.dtype.lanes}) "
                        "is not supported")
    dtype_name = _DL_NAMES[key]
    itemsize = _ITEMSIZE[dtype_name]
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = (tuple(t.strides[i] * itemsize for i in range(t.ndim)) if t.strides
               else _strides_c(shape, itemsize))
    ptr = (t.data or 0) + t.byte_offset
    # Ownership passes to us only now that the capsule parsed: rename it, wrap the deleter.
    if _capsule_set_name(capsule, ctypes.addressof(_NAMES[b"used_" + name])) != 0:
        raise RuntimeError("PyCapsule_SetName failed")
    owner = _DLPackOwner(address, m.deleter, producer)
    return Imported(ptr, shape, strides, dtype_name, t.device.device_id, t.device.device_type, readonly, owner)


# -- __cuda_array_interface__ ---------------------------------------------------------------------
_TYPESTR = {("b", 1): "bool", ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
            ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
            ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64", ("c", 8): "complex64",
            ("c", 16): "complex128"}


def parse_cai(cai: dict, owner=None) -> tuple[Imported, int | None]:
    """Check and read a __cuda_array_interface__ dict (v0-v3). Returns (Imported with device_id None,
    the producer's stream handle to wait on or None)."""
    if not isinstance(cai, dict):
        raise TypeError(f"__cuda_array_interface__ is a dict, got {type(cai).__name__}")
    for k in ("shape", "typestr", "data", "version"):
        if k not in cai:
            raise ValueError(f"__cuda_array_interface__ lacks {k!r}")
    version = cai["version"]
    if not isinstance(version, int) or not 0 <= version <= 3:
        raise ValueError(f"__cuda_array_interface__ version {version!r} is not supported (0 to 3)")
    if cai.get("mask") is not None:
        raise ValueError("__cuda_array_interface__ with a mask is not supported")
    shape = tuple(cai["shape"])
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueError(f"bad shape {shape!r}")
    typestr = cai["typestr"]
    if not isinstance(typestr, str) or len(typestr) < 3:
        raise ValueError(f"bad typestr {typestr!r}")
    order, kind, size = typestr[0], typestr[1], typestr[2:]
    if not size.isdigit() or order not in "<>|=" or (order == ">" and int(size) > 1):
        raise TypeError(f"typestr {typestr!r}: only little-endian (or byte-sized) types are supported")
    dtype_name = _TYPESTR.get((kind, int(size)))
    if dtype_name is None:
        raise TypeError(f"typestr {typestr!r} is not a supported dtype")
    data = cai["data"]
    if not (isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], int)):
        raise ValueError(f"data must be (ptr: int, readonly: bool), got {data!r}")
    ptr, readonly = data[0], bool(data[1])
    size_total = 1
    for d in shape:
        size_total *= d
    if ptr == 0 and size_total != 0:
        raise ValueError("a null data pointer for a non-empty array")
    itemsize = _ITEMSIZE[dtype_name]
    strides = cai.get("strides")
    if strides is None:
        strides = _strides_c(shape, itemsize)
    else:
        strides = tuple(strides)
        if len(strides) != len(shape) or not all(isinstance(s, int) for s in strides):
            raise ValueError(f"strides {strides!r} do not match shape {shape!r}")
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise ValueError(f"stream must be an int or None, got {stream!r}")
        if stream == 0:
            raise ValueError("__cuda_array_interface__ stream 0 is disallowed by the spec (1: legacy default, 2: per-thread)")
        stream = 0 if stream == 1 else stream
    return Imported(ptr, shape, strides, dtype_name, None, dlpack_device(0)[0], readonly, owner), stream


_TYPESTR_OF = {name: ("|" if kind == "b" or size == 1 else "<") + kind + str(size)
               for (kind, size), name in _TYPESTR.items()}


def cai_dict(ptr: int, shape, strides, dtype_name: str, readonly: bool = False, stream: Stream | None = None) -> dict:
    """A __cuda_array_interface__ v3 dict for device memory. `strides` in bytes (None: C-contiguous);
    `stream` is where the data is being produced (the null stream is reported as 1, the legacy
    default stream; None: the consumer need not synchronize)."""
    if dtype_name not in _TYPESTR_OF:
        raise TypeError(f"dtype {dtype_name!r} has no __cuda_array_interface__ typestr")
    return {"shape": tuple(int(d) for d in shape), "typestr": _TYPESTR_OF[dtype_name], "descr": [("", _TYPESTR_OF[dtype_name])],
            "data": (int(ptr), bool(readonly)), "strides": None if strides is None else tuple(int(x) for x in strides),
            "version": 3, "stream": None if stream is None else (stream.ptr or 1)}


def _pointer_device(ptr: int) -> int:
    """The device owning a device address (hipPointerGetAttributes), else the current device."""
    if ptr:
        attrs = h.hipPointerAttribute_t()
        r = h.hipPointerGetAttributes(attrs, ptr)
        if not r[0]:
            return int(attrs.device)
        h.hipGetLastError()
    return get_device_id()


def import_cai(obj, stream: Stream | None = None) -> Imported:
    """Read `obj.__cuda_array_interface__`; when it names a producer stream, `stream` (default: our
    current stream on that device) waits on it with an event, as CAI v3 asks of consumers."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError(f"{type(obj).__name__} has no __cuda_array_interface__")
    imp, producer = parse_cai(cai, owner=obj)
    imp.device_id = _pointer_device(imp.ptr)
    if producer is not None:
        consumer = stream if stream is not None else current_stream(imp.device_id)
        if producer != consumer.ptr:
            consumer.wait_event(Event(timing=False).record(Stream.from_handle(producer, imp.device_id)))
    return imp
