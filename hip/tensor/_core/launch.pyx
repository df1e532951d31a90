# cython: language_level=3
"""hip.tensor's per-op hot path in C: kernel-argument packing and the hipModuleLaunchKernel call
(`Function.launch` calls `launch`), and hipGetDevice (`_core.device.get_device_id` calls
`current_device`).

Arguments are packed by CuPy's RawKernel convention (a Python int is an int64 value, a bool one
byte, a NumPy scalar its value), which hip._pointer's packers (KernelArgs, kernel_params: HIP
Python's and cuda.bindings' convention, where an int or a buffer is an address) contradict: hence
a packer of its own.

The HIP functions come from the library hip.chip loads (its `library`, symbols resolved on first
use), so this module compiles without HIP headers, on both platforms.
"""
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_FORMAT
from cpython.long cimport PyLong_AsLongLong, PyLong_AsUnsignedLongLong
from cpython.float cimport PyFloat_AS_DOUBLE
from libc.string cimport memcpy, strcmp
from libc.stdint cimport int64_t, uint64_t, uintptr_t

from hip._loader cimport Library

ctypedef int (*launch_fn)(void*, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                          unsigned int, unsigned int, void*, void**, void**) noexcept nogil
ctypedef int (*get_device_fn)(int*) noexcept nogil

cdef enum:
    MAX_ARGS = 256
    MAX_BYTES = 4096            # CUDA's classic limit on a kernel's parameters
    MAX_WORDS = 512             # MAX_BYTES in uint64

cdef launch_fn _launch = NULL
cdef get_device_fn _get_device = NULL
cdef launch_fn _real_launch = NULL
cdef get_device_fn _real_get_device = NULL

cdef object _ndarray = None     # hip.tensor's ndarray: its `_ptr` slot is read directly
cdef object _np_generic = None
cdef object _ctypes_kinds = None
cdef object _ctypes_plain = None    # ctypes numbers and arrays: packed from their buffer
cdef set _ptr_kinds = set()     # types whose int `.ptr` is a device address (not ctypes values)


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


def bind(np_generic, ctypes_kinds):
    """NumPy's scalar base class and the ctypes classes (left to Python): set by _compiler."""
    global _np_generic, _ctypes_kinds, _ctypes_plain
    import ctypes
    _np_generic, _ctypes_kinds, _ctypes_plain = np_generic, ctypes_kinds, (ctypes._SimpleCData, ctypes.Array)


def bind_ndarray(ndarray):
    """hip.tensor's ndarray, whose `_ptr` is read directly (before this, through `.ptr`)."""
    global _ndarray
    _ndarray = ndarray


cdef inline Py_ssize_t _align(Py_ssize_t off, Py_ssize_t a) noexcept:
    return (off + a - 1) & ~(a - 1)


cdef int _scalar_size(const char* fmt) noexcept:
    """Bytes of a NumPy scalar of buffer format `fmt` that a kernel takes, 0 for others."""
    cdef char c
    if fmt == NULL:
        return 0
    if fmt[0] != 0 and fmt[1] == 0:
        c = fmt[0]
        if c == b'?' or c == b'b' or c == b'B':
            return 1
        if c == b'h' or c == b'H' or c == b'e':
            return 2
        if c == b'i' or c == b'I' or c == b'f':
            return 4
        if c == b'l' or c == b'L' or c == b'q' or c == b'Q' or c == b'd':
            return 8
        return 0
    if strcmp(fmt, b"Zf") == 0:
        return 8
    if strcmp(fmt, b"Zd") == 0:
        return 16
    return 0


cdef int _dim3(object d, unsigned int* out) except -1:
    """An int or a tuple of 1 to 3 ints, each in [1, 2^32): 0; anything else 1 (left to Python)."""
    cdef Py_ssize_t k, n
    cdef unsigned long long v
    out[0] = out[1] = out[2] = 1
    if type(d) is int:
        if d < 1 or d > 0xFFFFFFFF:
            return 1
        out[0] = <unsigned int>d
        return 0
    if type(d) is not tuple:
        return 1
    n = len(<tuple>d)
    if n < 1 or n > 3:
        return 1
    for k in range(n):
        x = (<tuple>d)[k]
        if type(x) is not int or x < 1 or x > 0xFFFFFFFF:
            return 1
        out[k] = <unsigned int>x
    return 0


cdef Py_ssize_t _pack_buffer(object a, char* buf, Py_ssize_t off, bint ctypes_value,
                             Py_ssize_t* size) except -2:
    """Copy the bytes of a NumPy scalar, or of a ctypes number or array of numbers, into `buf`
    aligned as C aligns it (a number's size; an array's element size): the offset, or -1 for
    other kinds (datetime64, structures, big-endian or long double ctypes... go to the plans)."""
    cdef Py_buffer view
    cdef const char* fmt
    cdef Py_ssize_t align
    try:
        PyObject_GetBuffer(a, &view, PyBUF_FORMAT)
    except Exception:
        return -1
    fmt = view.format
    if ctypes_value and fmt != NULL and (fmt[0] == b'<' or fmt[0] == b'@' or fmt[0] == b'='):
        fmt += 1
    align = _scalar_size(fmt)
    size[0] = view.len
    if align == 0 or (view.itemsize != align if ctypes_value else view.len != align) or view.len % align:
        PyBuffer_Release(&view)
        return -1
    off = _align(off, align)
    if off + view.len > MAX_BYTES:
        PyBuffer_Release(&view)
        return -1
    memcpy(buf + off, view.buf, view.len)
    PyBuffer_Release(&view)
    return off


cdef Py_ssize_t _pack(tuple args, char* buf, void** params) except -2:
    """Pack `args` into `buf` (MAX_BYTES) with C alignment, params[i] the address of argument i;
    the bytes used, or -1 when an argument is not of the kinds packed here."""
    cdef Py_ssize_t n = len(args), i, off = 0, size
    cdef int64_t iv
    cdef uint64_t uv
    cdef double dv
    cdef char cv
    if n > MAX_ARGS or _np_generic is None:
        return -1
    for i in range(n):
        a = args[i]
        t = type(a)
        if t is _ndarray:
            p = a._ptr
            size = 8
            off = _align(off, 8)
            if off + size > MAX_BYTES:
                return -1
            uv = PyLong_AsUnsignedLongLong(p)
            memcpy(buf + off, &uv, 8)
        elif t is int:
            size = 8
            off = _align(off, 8)
            if off + size > MAX_BYTES:
                return -1
            try:
                iv = PyLong_AsLongLong(a)
            except OverflowError:
                return -1
            memcpy(buf + off, &iv, 8)
        elif t is float:
            size = 8
            off = _align(off, 8)
            if off + size > MAX_BYTES:
                return -1
            dv = PyFloat_AS_DOUBLE(a)
            memcpy(buf + off, &dv, 8)
        elif t is bool:
            size = 1
            if off + size > MAX_BYTES:
                return -1
            cv = 1 if a is True else 0
            buf[off] = cv
        elif a is None:
            size = 8
            off = _align(off, 8)
            if off + size > MAX_BYTES:
                return -1
            uv = 0
            memcpy(buf + off, &uv, 8)
        elif t in _ptr_kinds:           # (MemoryPointer, Pointer, ...: checked once per type below)
            p = a.ptr
            if not isinstance(p, int):
                return -1
            size = 8
            off = _align(off, 8)
            if off + size > MAX_BYTES:
                return -1
            try:
                uv = PyLong_AsUnsignedLongLong(p)
            except OverflowError:
                return -1
            memcpy(buf + off, &uv, 8)
        elif isinstance(a, _np_generic):
            off = _pack_buffer(a, buf, off, False, &size)
            if off < 0:
                return -1
        elif isinstance(a, _ctypes_plain):
            off = _pack_buffer(a, buf, off, True, &size)
            if off < 0:
                return -1
        elif isinstance(a, _ctypes_kinds) or not isinstance(getattr(a, "ptr", None), int):
            return -1                   # (the plans' other kinds: ctypes structures, data_ptr, CAI...)
        else:
            _ptr_kinds.add(t)           # a device pointer: an int `.ptr` (the plans' rule)
            return _pack(args, buf, params)
        params[i] = buf + off
        off += size
    return off


def launch(uintptr_t func, grid, block, unsigned int shared_mem, uintptr_t stream, tuple args):
    """Pack `args` and launch on `grid` x `block` (ints or tuples of 1 to 3 positive ints); the
    hipError_t as an int, or -1 (nothing launched) when an argument is not of the kinds packed here
    (Python int/float/bool, None, ndarray, NumPy scalars, ctypes numbers and arrays of numbers,
    objects with an int `.ptr`), -2 when grid or block is not of those forms: the caller then
    checks and packs them in Python."""
    cdef unsigned int g[3]
    cdef unsigned int b[3]
    cdef uint64_t storage[MAX_WORDS]
    cdef void* params[MAX_ARGS]
    cdef int err
    if _dim3(grid, g) or _dim3(block, b):
        return -2
    if _launch == NULL:
        _resolve()
    if _pack(args, <char*>storage, params) < 0:
        return -1
    with nogil:
        err = _launch(<void*>func, g[0], g[1], g[2], b[0], b[1], b[2], shared_mem, <void*>stream, params, NULL)
    return err


def pack(tuple args):
    """(packed bytes, each argument's offset in them) as `launch` passes them, or None where it
    leaves the arguments to Python: for tests, which compare it with the Python plans."""
    cdef uint64_t storage[MAX_WORDS]
    cdef void* params[MAX_ARGS]
    cdef Py_ssize_t used = _pack(args, <char*>storage, params), i
    if used < 0:
        return None
    return (<char*>storage)[:used], [<char*>params[i] - <char*>storage for i in range(len(args))]


def current_device():
    """hipGetDevice's device, or -(its error code) when it fails."""
    cdef int dev = 0, err
    if _get_device == NULL:
        _resolve()
    err = _get_device(&dev)
    return -err if err else dev


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
