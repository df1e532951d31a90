# cython: language_level=3
"""hip.tensor's per-op hot path in C: the hipModuleLaunchKernel call (`Function.launch` calls
`launch`; the element-wise fast path `launch_dims`), hipGetDevice (`_core.device.get_device_id`
calls `current_device`), a stream's fields (`StreamBase`, the base of `_core.device.Stream`) and
the thread's current stream (`current_stream`, as `_core.device.current_stream`, whose state
`bind_streams` names).

Arguments are packed by hip._kernel_args, the one packer, under CuPy's RawKernel rule (INT_INT64:
a Python int is an int64 value, a bool one byte, a NumPy scalar its value), into buffers on the
stack (a heap block for more than MAX_ARGS arguments or MAX_BYTES of values).

The HIP functions come from the library hip.chip loads (its `library`, symbols resolved on first
use), so this module compiles without HIP headers, on both platforms.
"""
from libc.stdint cimport uint64_t, uintptr_t

cimport cython
from cpython.pystate cimport PyThreadState, PyThreadState_Get

from hip._loader cimport Library
from hip._kernel_args cimport KernelArgs, INT_INT64, kernel_params, pack_values, dim3

cdef extern from "Python.h":
    uint64_t PyThreadState_GetID(PyThreadState* tstate)

ctypedef int (*launch_fn)(void*, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                          unsigned int, unsigned int, void*, void**, void**) noexcept nogil
ctypedef int (*get_device_fn)(int*) noexcept nogil

cdef enum:
    MAX_ARGS = 256
    MAX_BYTES = 4096            # CUDA's classic limit on a kernel's parameters
    MAX_WORDS = 512             # MAX_BYTES in uint64

cdef unsigned long long _launches = 0     # kernels launched (`launches`)
cdef launch_fn _launch = NULL
cdef get_device_fn _get_device = NULL
cdef launch_fn _real_launch = NULL
cdef get_device_fn _real_get_device = NULL

cdef int _resolve() except -1:
    global _launch, _get_device, _real_launch, _real_get_device
    from hip.chip import library
    cdef Library lib = library
    _real_launch = <launch_fn>lib.symbol(b"hipModuleLaunchKernel")
    _real_get_device = <get_device_fn>lib.symbol(b"hipGetDevice")
    if _launch == NULL:
        _launch = _real_launch
    if _get_device == NULL:
        _get_device = _real_get_device
    return 0


cdef int launch_args(uintptr_t func, object grid, object block, unsigned int shared_mem, uintptr_t stream,
                     tuple args) except? -1:
    """`launch` from C: the hipError_t (0: launched)."""
    cdef unsigned int g[3]
    cdef unsigned int b[3]
    dim3(grid, g, "grid")
    dim3(block, b, "block")
    return launch_dims(func, g, b, shared_mem, stream, args)


cdef int launch_dims(uintptr_t func, const unsigned int* g, const unsigned int* b, unsigned int shared_mem,
                     uintptr_t stream, tuple args) except? -1:
    """`launch_args` with grid and block as C dims: the hipError_t (0: launched)."""
    global _launches
    cdef uint64_t storage[MAX_WORDS]
    cdef void* params[MAX_ARGS]
    cdef void** pp = params
    cdef Py_ssize_t used = MAX_BYTES + 1
    cdef KernelArgs held
    cdef int err
    if _launch == NULL:
        _resolve()
    # (No try around the packer: it raises hip.tensor's TypeError itself, and a try cost ~5 ns.)
    if len(args) <= MAX_ARGS:
        used = pack_values(args, INT_INT64, <char*>storage, MAX_BYTES, params)
    if used > MAX_BYTES:            # more than the stack holds: a heap block, packed alike
        held = kernel_params(args, INT_INT64)
        pp = held.params
    with nogil:
        err = _launch(<void*>func, g[0], g[1], g[2], b[0], b[1], b[2], shared_mem, <void*>stream, pp, NULL)
    _launches += 1
    return err


def launches():
    """The kernel launches this process has asked for (hipModuleLaunchKernel calls, failed ones
    included): what a test counts, whichever path of hip.tensor launched."""
    return _launches


def launch(uintptr_t func, grid, block, unsigned int shared_mem, uintptr_t stream, tuple args):
    """Pack `args` (hip._kernel_args, INT_INT64) and launch on `grid` x `block` (an int or a tuple
    of 1 to 3 positive ints each): the hipError_t as an int. Arguments of no kind the rule packs:
    TypeError ("bad kernel arguments: ..."); grid or block of another form: TypeError, ValueError,
    OverflowError (hip._kernel_args.dim3). Nothing is launched after an error."""
    return launch_args(func, grid, block, shared_mem, stream, args)


def pack(tuple args):
    """(packed bytes, each argument's offset in them) as `launch` passes them (for tests)."""
    cdef uint64_t storage[MAX_WORDS]
    cdef void* params[MAX_ARGS]
    cdef Py_ssize_t used = MAX_BYTES + 1, i
    cdef KernelArgs k
    if len(args) <= MAX_ARGS:
        used = pack_values(args, INT_INT64, <char*>storage, MAX_BYTES, params)
    if used > MAX_BYTES:
        k = kernel_params(args, INT_INT64)
        return k.values[:k._size], [<char*>k.params[i] - k.values for i in range(len(args))]
    return (<char*>storage)[:used], [<char*>params[i] - <char*>storage for i in range(len(args))]


cdef int device() noexcept:
    """hipGetDevice's device, or -(its error code) when it fails."""
    cdef int dev = 0, err
    if _get_device == NULL:
        try:
            _resolve()
        except Exception:
            return -1000000         # no library: the callers' Python paths report it
    err = _get_device(&dev)
    return -err if err else dev


def current_device():
    """hipGetDevice's device, or -(its error code) when it fails."""
    if _get_device == NULL:
        _resolve()
    return device()


@cython.auto_pickle(False)
cdef class StreamBase:
    """A stream's fields that the per-op path reads: `ptr` (the handle as an int), `uid` (its
    identity for the allocator), `device_id`."""


cdef object _tls = None             # _core.device's thread state (its `streams`: {device: Stream})
cdef dict _null_streams = None      # _core.device's null stream of each device
cdef object _current_stream = None  # _core.device.current_stream: the cases this one does not take


def bind_streams(tls, dict null_streams not None, current_stream):
    """_core.device's state behind `current_stream`: its thread state, null streams, and function."""
    global _tls, _null_streams, _current_stream
    _tls, _null_streams, _current_stream = tls, null_streams, current_stream


cdef uint64_t _streams_thread = 0     # the thread (PyThreadState_GetID) whose `_tls.streams` ...
cdef dict _streams_of_thread = None    # ... this is (a thread's dict, once made, stays the same)


cdef object current_stream(int device_id):
    """The thread's current stream of `device_id` (_core.device.current_stream)."""
    global _streams_thread, _streams_of_thread
    cdef object streams
    cdef object s
    cdef uint64_t tid = PyThreadState_GetID(PyThreadState_Get())
    if tid == _streams_thread:
        streams = _streams_of_thread
    else:
        streams = _tls.streams          # (a threading.local: ~500 instructions a lookup)
        if streams is None:             # this thread's dict, made here rather than at its first `with`
            streams = _tls.streams = {}
        if type(streams) is dict:
            _streams_thread, _streams_of_thread = tid, streams
    if streams:
        s = (<dict>streams).get(device_id)
        if s is not None:
            return s
    s = _null_streams.get(device_id)
    if s is None:
        s = _current_stream(device_id)
    return s


cdef int _noop_launch(void* f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                      unsigned int by, unsigned int bz, unsigned int shared, void* stream, void** params,
                      void** extra) noexcept nogil:
    return 0


cdef int _noop_get_device(int* dev) noexcept nogil:
    dev[0] = 0
    return 0


def _benchmark_noops(bint on):
    """Swap hipModuleLaunchKernel and hipGetDevice for no-ops (device 0) or back: for
    benchmarks/bench_tensor_launch.py, which times the layer without a GPU. Never in tests."""
    global _launch, _get_device
    if on:
        _launch, _get_device = _noop_launch, _noop_get_device
    else:
        _launch, _get_device = _real_launch, _real_get_device
