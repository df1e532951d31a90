"""Kernels: hiprtc compilation, a code-object cache in memory and on disk (CuPy's design), modules
per device, and `Function.launch`, the one launch path of the layer.

Cache key: SHA-256 of the source, the options (the standard ones included), name expressions,
target arch, platform, hiprtc version, runtime version and this package's version. Disk cache:
`HIP_TENSOR_CACHE_DIR` (default ~/.cache/hip-tensor/kernels; set but empty disables it); one file
per key, checked by a digest of its content, written atomically. `stats()` counts compiles, so a
test can show that a second process compiles nothing.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import tempfile
import threading

from hip import hip as h
from hip.errors import HipError, check, status_error

from .._core import launch as _hot
from .._core.device import Device, _error, current_stream, device_count, get_device_id, platform

# Public in hip.tensor; stats(), cache_dir(), arch_options(), clear_memory_cache() stay module-level.
__all__ = ["compile_module", "compile_code_object", "target_arch", "std_options", "Module", "Function",
           "Pointer", "CompileError"]

_CACHE_FORMAT = 1
_MAGIC = b"HIPTENSORKC\x01"
_lock = threading.RLock()
_stats = {"compiles": 0, "memory_hits": 0, "disk_hits": 0, "disk_writes": 0, "disk_errors": 0, "module_loads": 0}


def stats() -> dict:
    """Counters of this process: compiles (hiprtc runs), memory_hits, disk_hits, disk_writes,
    disk_errors (unreadable or corrupt cache files, recompiled), module_loads (hipModuleLoadData)."""
    return dict(_stats)


class CompileError(HipError):
    """A hiprtc call on a kernel source failed: `.status` (the hiprtcResult), `.library` ('hiprtc'),
    `.function`, `log` (the compiler's output), `source` and `options`."""

    def __init__(self, code, message: str | None = None, function: str | None = None, *, log: str = "",
                 source: str = "", options: tuple = ()):
        super().__init__(code, message, function)
        self.log, self.source, self.options = log, source, tuple(options)
        self.args = (f"{self.args[0]}\noptions: {' '.join(self.options)}\n{log.strip()}",)


# -- target and options ---------------------------------------------------------------------------
def target_arch(device_id: int | None = None) -> str:
    """The architecture kernels are compiled for: the device's gcnArchName ('gfx90a:sramecc+:xnack-'
    on AMD, 'sm_90' on NVIDIA); with no device, $HIP_TENSOR_ARCH, else 'gfx90a' ('sm_90' on the
    nvidia platform)."""
    if device_count() > 0:
        return Device(device_id).gcn_arch_name
    return os.environ.get("HIP_TENSOR_ARCH") or ("sm_90" if platform() == "nvidia" else "gfx90a")


def _is_nvidia_arch(arch: str) -> bool:
    return arch.startswith(("sm_", "compute_"))


def arch_options(arch: str) -> tuple[str, ...]:
    """The compiler option naming `arch`: NVRTC's --gpu-architecture for sm_XX/compute_XX, hiprtc's
    --offload-arch otherwise."""
    if not arch or not isinstance(arch, str):
        raise ValueError(f"invalid target architecture {arch!r}")
    return (f"--gpu-architecture={arch}",) if _is_nvidia_arch(arch) else (f"--offload-arch={arch}",)


def std_options(arch: str) -> tuple[str, ...]:
    """Options every kernel gets: C++17, -O3 (AMD; NVRTC optimizes by default and has no -O3), no
    multiply-add contraction, arch. No contraction keeps every kernel's rounding that of its C++
    (NumPy's on the host has none either): a fused chain then equals eager evaluation bit for bit
    (complex products contracted inside one eager operation differed on an H100), and the kernels
    are memory-bound, so FMAs would gain nothing."""
    nv = _is_nvidia_arch(arch)
    return ("-std=c++17",) + (("--fmad=false",) if nv else ("-O3", "-ffp-contract=off")) + arch_options(arch)


_versions: tuple | None = None


def _toolchain_versions() -> tuple:
    """(hiprtc version, runtime version, package version): parts of the cache key."""
    global _versions
    if _versions is None:
        from hip import hiprtc
        import hip
        r = hiprtc.hiprtcVersion()
        rtc = f"{r[1]}.{r[2]}" if not r[0] else "unknown"
        try:
            r = h.hipRuntimeGetVersion()
            rt = str(r[1]) if not r[0] else "unknown"
        except OSError:
            rt = "unavailable"
        _versions = (rtc, rt, f"{hip.__version__}/{_CACHE_FORMAT}")
    return _versions


def _key(source: str, options: tuple, names: tuple, arch: str) -> str:
    rtc, rt, pkg = _toolchain_versions()
    m = hashlib.sha256()
    for part in (pkg, platform(), arch, rtc, rt, "\0".join(options), "\0".join(names), source):
        b = part.encode()
        m.update(len(b).to_bytes(8, "little"))   # length-prefixed: parts cannot run into each other
        m.update(b)
    return m.hexdigest()


# -- disk cache -----------------------------------------------------------------------------------
def cache_dir() -> str | None:
    """The disk cache directory, or None where HIP_TENSOR_CACHE_DIR is set but empty."""
    d = os.environ.get("HIP_TENSOR_CACHE_DIR")
    if d is None:
        return os.path.join(os.path.expanduser("~"), ".cache", "hip-tensor", "kernels")
    return d or None


def _disk_path(key: str) -> str | None:
    d = cache_dir()
    return os.path.join(d, key + ".hipko") if d else None


def _disk_read(key: str):
    path = _disk_path(key)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        if not data.startswith(_MAGIC):
            raise ValueError("bad magic")
        n = int.from_bytes(data[len(_MAGIC):len(_MAGIC) + 4], "little")
        start = len(_MAGIC) + 4
        meta = json.loads(data[start:start + n])
        code = data[start + n:]
        if meta["key"] != key or hashlib.sha256(code).hexdigest() != meta["sha256"]:
            raise ValueError("digest mismatch")
        return code, meta["lowered"]
    except (ValueError, KeyError, UnicodeDecodeError):
        _stats["disk_errors"] += 1      # corrupt or foreign: recompile and overwrite
        return None


def _disk_write(key: str, code: bytes, lowered: dict) -> None:
    path = _disk_path(key)
    if path is None:
        return
    meta = json.dumps({"key": key, "sha256": hashlib.sha256(code).hexdigest(), "lowered": lowered}).encode()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + len(meta).to_bytes(4, "little") + meta + code)
        os.replace(tmp, path)            # atomic: concurrent processes see a whole file or none
        _stats["disk_writes"] += 1
    except OSError:
        _stats["disk_errors"] += 1       # a read-only cache dir must not break compilation


# -- compilation ----------------------------------------------------------------------------------
def _text(v) -> str:
    if isinstance(v, str):
        return v
    if not isinstance(v, (bytes, bytearray)):
        v = ctypes.string_at(int(v))
    return bytes(v).split(b"\0", 1)[0].decode()


def _hiprtc_compile(source: str, options: tuple, names: tuple) -> tuple[bytes, dict]:
    from hip import hiprtc
    R = hiprtc.hiprtcResult
    error = functools.partial(CompileError, source=source, options=options)
    prog = check(hiprtc.hiprtcCreateProgram(source.encode(), b"hip_tensor_kernel.hip", 0, None, None),
                 "hiprtcCreateProgram", error)
    try:
        for n in names:
            check(hiprtc.hiprtcAddNameExpression(prog, n.encode()), f"hiprtcAddNameExpression({n!r})", error)
        opts = [o.encode() for o in options]
        _stats["compiles"] += 1
        err = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)[0]
        if err != R.HIPRTC_SUCCESS:
            log = ""
            r = hiprtc.hiprtcGetProgramLogSize(prog)
            if r[0] == R.HIPRTC_SUCCESS and r[1]:
                buf = bytearray(r[1])
                hiprtc.hiprtcGetProgramLog(prog, buf)
                log = bytes(buf).rstrip(b"\0").decode(errors="replace")
            raise status_error(err, "hiprtcCompileProgram", functools.partial(error, log=log))
        size = check(hiprtc.hiprtcGetCodeSize(prog), "hiprtcGetCodeSize", error)
        if not size:
            raise error(R.HIPRTC_SUCCESS, "hiprtc returned no code", "hiprtcGetCodeSize")
        code = bytearray(size)
        check(hiprtc.hiprtcGetCode(prog, code), "hiprtcGetCode", error)
        lowered = {}
        for n in names:
            lowered[n] = _text(check(hiprtc.hiprtcGetLoweredName(prog, n.encode()),
                                     f"hiprtcGetLoweredName({n!r})", error))
        return bytes(code), lowered
    finally:
        hiprtc.hiprtcDestroyProgram(prog)


_code_cache: dict[str, tuple[bytes, dict]] = {}


def _as_options(options) -> tuple[str, ...]:
    if isinstance(options, (str, bytes)):
        options = (options,)
    out = []
    for o in options:
        if isinstance(o, bytes):
            o = o.decode()
        if not isinstance(o, str):
            raise TypeError(f"compiler options are str, got {type(o).__name__}")
        out.append(o)
    return tuple(out)


def _code_object(source: str, options, arch: str | None, names) -> tuple[str, bytes, dict]:
    """(key, code object, lowered names) through the memory and disk caches."""
    if not isinstance(source, str):
        raise TypeError(f"kernel source is str, got {type(source).__name__}")
    if arch is None:
        arch = target_arch()
    options = std_options(arch) + _as_options(options)
    names = _as_options(names)
    key = _key(source, options, names, arch)
    with _lock:
        hit = _code_cache.get(key)
        if hit is not None:
            _stats["memory_hits"] += 1
            return key, hit[0], hit[1]
        hit = _disk_read(key)
        if hit is not None:
            _stats["disk_hits"] += 1
        else:
            hit = _hiprtc_compile(source, options, names)
            _disk_write(key, *hit)
        _code_cache[key] = hit
        return key, hit[0], hit[1]


def compile_code_object(source: str, options=(), arch: str | None = None, name_expressions=()) -> bytes:
    """The code object of `source` for `arch` (default: target_arch()), with std_options(arch) then
    `options`; through the caches. Needs no device (the CPU compile check uses it)."""
    return _code_object(source, options, arch, name_expressions)[1]


_modules: dict[tuple, "Module"] = {}


def compile_module(source: str, options=(), name_expressions=()) -> "Module":
    """`source` compiled for the current device and loaded there (cached per device).

    Sources need no `#include <hip/hip_runtime.h>`: hiprtc provides it (ROCm 5.2's cannot even
    find the header) and NVRTC has the built-ins (threadIdx, float2, clock64, ...)."""
    device_id = get_device_id()
    fast = (device_id, source, options if isinstance(options, tuple) else tuple(options),
            name_expressions if isinstance(name_expressions, tuple) else tuple(name_expressions))
    m = _modules.get(fast)
    if m is not None:
        return m
    key, code, lowered = _code_object(source, fast[2], target_arch(device_id), fast[3])
    with _lock:
        m = _modules.get((device_id, key))
        if m is None:
            m = _modules[(device_id, key)] = Module(code, device_id, lowered)
        _modules[fast] = m
    return m


def clear_memory_cache() -> None:
    """Forget compiled code and loaded modules of this process (modules stay loaded)."""
    with _lock:
        _code_cache.clear()
        _modules.clear()


# -- modules and functions ------------------------------------------------------------------------
class Module:
    """A code object loaded on a device (hipModuleLoadData)."""

    __slots__ = ("handle", "ptr", "device_id", "code", "_lowered", "_functions")

    def __init__(self, code: bytes, device_id: int, lowered: dict | None = None):
        with Device(device_id):
            handle = check(h.hipModuleLoadData(code), "hipModuleLoadData")
        _stats["module_loads"] += 1
        self.handle, self.ptr, self.device_id, self.code = handle, int(handle), device_id, code
        self._lowered = dict(lowered or {})
        self._functions: dict[str, Function] = {}

    def lowered_name(self, expr: str) -> str:
        """The mangled name of a name expression given at compile time ('fill<float>')."""
        try:
            return self._lowered[expr]
        except KeyError:
            raise KeyError(f"{expr!r} was not a name expression of this module's compile "
                           f"(known: {sorted(self._lowered)})") from None

    def get_function(self, name: str) -> "Function":
        """A kernel by its name or by a name expression of the compile."""
        f = self._functions.get(name)
        if f is None:
            symbol = self._lowered.get(name, name)
            with Device(self.device_id):
                fn = check(h.hipModuleGetFunction(self.ptr, symbol.encode()), f"hipModuleGetFunction({symbol!r})")
            f = self._functions[name] = Function(self, symbol, int(fn))
        return f

    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of a __device__ variable."""
        symbol = self._lowered.get(name, name)
        with Device(self.device_id):
            ptr, size = check(h.hipModuleGetGlobal(self.ptr, symbol.encode()), f"hipModuleGetGlobal({symbol!r})")
        return int(ptr), int(size)


class Pointer:
    """A device address as a kernel argument (a bare int is packed as int64)."""

    __slots__ = ("ptr", "owner")

    def __init__(self, ptr: int, owner=None):
        self.ptr, self.owner = int(ptr), owner

    def __repr__(self):
        return f"<Pointer {self.ptr:#x}>"


_FUNC_ATTRIBUTES = {a.name[len("HIP_FUNC_ATTRIBUTE_"):].lower(): a for a in h.hipFunction_attribute
                    if a.name != "HIP_FUNC_ATTRIBUTE_MAX"}


class Function:
    """A kernel of a loaded Module. `launch` is the one launch path of hip.tensor.

    Launch arguments: Python int (int64), float (double), bool; NumPy scalars (their exact type);
    ctypes values (their bytes and alignment); None (a null pointer); device pointers: objects with
    an int `.ptr` (MemoryPointer, ndarray, Pointer), `data_ptr` (torch), hip.hip Pointers, or
    `__cuda_array_interface__`.
    """

    __slots__ = ("module", "name", "ptr", "device_id", "_attributes")

    def __init__(self, module: Module | None, name: str, ptr: int, device_id: int | None = None):
        self.module, self.name, self.ptr = module, name, int(ptr)
        self.device_id = module.device_id if module is not None else (device_id or 0)
        self._attributes = None

    def launch(self, grid, block, args, shared_mem: int = 0, stream=None) -> None:
        """Launch on `stream` (the current stream of the function's device by default).

        `stream` is a Stream (or an int handle). The arguments are packed and launched in C
        (`_core.launch.launch`: hip._kernel_args' packer, no hip.hip call); arguments of no kind
        it packs are a TypeError ("bad kernel arguments: kernel argument i: ..."), raised before
        the launch. benchmarks/bench_tensor_launch.py measures the CPU cost.
        """
        if stream is None:
            sptr = current_stream(self.device_id).ptr
        else:
            sptr = stream if type(stream) is int else stream.ptr
        if type(args) is not tuple:
            args = tuple(args)
        r = _hot.launch(self.ptr, grid, block, shared_mem, sptr, args)
        if r:
            raise _error(r, f"hipModuleLaunchKernel({self.name})")

    __call__ = launch

    @property
    def attributes(self) -> dict:
        """hipFuncGetAttribute values: max_threads_per_block, shared_size_bytes, num_regs, ..."""
        if self._attributes is None:
            out = {}
            with Device(self.device_id):
                for name, attr in _FUNC_ATTRIBUTES.items():
                    r = h.hipFuncGetAttribute(attr, self.ptr)
                    if not r[0]:
                        out[name] = int(r[1])
            self._attributes = out
        return self._attributes

    @property
    def max_threads_per_block(self) -> int:
        return self.attributes["max_threads_per_block"]

    def __repr__(self):
        return f"<Function {self.name} on device {self.device_id}>"

