"""Helpers of the GPU tests: library checks, device memory from and to NumPy, pinned views."""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

import hip
from hip import hip as h
from hip.errors import LibraryNotFoundError

H2D = h.hipMemcpyKind.hipMemcpyHostToDevice
D2H = h.hipMemcpyKind.hipMemcpyDeviceToHost
D2D = h.hipMemcpyKind.hipMemcpyDeviceToDevice
H2H = h.hipMemcpyKind.hipMemcpyHostToHost
DEFAULT = h.hipMemcpyKind.hipMemcpyDefault
SUCCESS = h.hipError_t.hipSuccess


def require_library(module) -> None:
    """Load `module`'s shared library now; skip the calling tests if it cannot be found.

    Meant for a module-scoped autouse fixture: a layer library not built yet gives skips.
    """
    try:
        module._library.load()
    except LibraryNotFoundError as e:
        first = str(e).splitlines()[0]
        pytest.skip(f"{module.__name__}: {first} ({len(e.tried)} places tried)")


def alias_linker_module(name: str):
    """The cuda alias's `cuda.bindings.<name>` over hiprtc's linker, or skip: no hiprtc, a hiprtc
    without hiprtcLink* (ROCm before 5.3), no alias built, or NVIDIA's cuda.bindings imported."""
    from hip import hiprtc
    require_library(hiprtc)
    if not hiprtc._library.has_symbol("hiprtcLinkCreate"):
        pytest.skip("this hiprtc has no linker (ROCm before 5.3)")
    mod = pytest.importorskip(f"cuda.bindings.{name}", reason="the cuda alias is not built")
    if "hip_as_cuda" not in (mod.__file__ or ""):
        pytest.skip("cuda.bindings here is NVIDIA's")
    return mod


def on_nvidia() -> bool:
    """Whether the HIP runtime loaded is the HIP-on-CUDA layer."""
    if os.environ.get("HIP_PLATFORM", "").lower() == "nvidia":
        return True
    path = h._library.load() or ""
    return "nvidia" in os.path.basename(path)


def cuda_runtime():
    """cuda.bindings.runtime, or skip (no cuda.bindings, or not on the NVIDIA layer)."""
    if not on_nvidia():
        pytest.skip("compares with CUDA: the HIP runtime loaded is not the NVIDIA layer")
    try:
        from cuda.bindings import runtime
    except ImportError as e:
        pytest.skip(f"cuda.bindings is not installed ({e})")
    err, n = runtime.cudaGetDeviceCount()
    if err != runtime.cudaError_t.cudaSuccess or n == 0:
        pytest.skip(f"cuda.bindings sees no device ({err})")
    return runtime


def cuda_check(result):
    """cuda.bindings' (err, values...) -> values, asserting success."""
    err, rest = result[0], result[1:]
    assert int(err) == 0, f"CUDA call failed: {err!r}"
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def host_view(ptr, count: int, dtype) -> np.ndarray:
    """A NumPy array over `count` elements of host memory at `ptr` (pinned or managed memory)."""
    dtype = np.dtype(dtype)
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(ptr))
    return np.frombuffer(buf, dtype=dtype)


def text(value) -> str:
    """A C string field as str: bytes up to the first NUL, decoded."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value)


class DeviceMemory:
    """Device allocations of one test, freed at its end; copies from and to NumPy."""

    def __init__(self):
        self.live = []

    def alloc(self, nbytes: int):
        d = hip.check(h.hipMalloc(max(int(nbytes), 1)))
        self.live.append(d)
        return d

    def put(self, array) -> "hip._pointer.DevicePointer":
        """Copy `array` (C-contiguous copy of its elements) to new device memory."""
        a = np.ascontiguousarray(array)
        d = self.alloc(a.nbytes)
        hip.check(h.hipMemcpy(d, a, a.nbytes, H2D))
        return d

    def get(self, d, shape, dtype) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        hip.check(h.hipMemcpy(out, d, out.nbytes, D2H))
        return out

    def free_all(self):
        while self.live:
            h.hipFree(self.live.pop())
