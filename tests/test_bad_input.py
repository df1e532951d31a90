"""Bad arguments raise Python exceptions before anything reaches C; nothing crashes.

Each case is a Python expression; the conversion layer must reject it with the
given exception type. The whole set also runs in one fresh interpreter, so a
segfault (which pytest itself would not survive) shows up as a failed exit code.
"""
from __future__ import annotations

import builtins
import json

import pytest

from conftest import run_python

HtoH = "hip.hipMemcpyKind.hipMemcpyHostToHost"

# (id, expression, exception type names)
CASES = [
    # numbers
    ("int param given str", "hip.hipSetDevice('0')", "TypeError"),
    ("int param given None", "hip.hipSetDevice(None)", "TypeError"),
    ("int param given float", "hip.hipSetDevice(1.5)", "TypeError"),
    ("int param overflow", "hip.hipSetDevice(2**40)", "OverflowError"),
    ("negative size_t", "hip.hipMalloc(-1)", "OverflowError"),
    ("negative unsigned flags", "hip.hipStreamCreateWithFlags(-1)", "OverflowError"),
    ("negative memcpy size", f"hip.hipMemcpy(bytearray(4), bytearray(4), -4, {HtoH})", "OverflowError"),
    ("None as size", f"hip.hipMemcpy(bytearray(4), bytearray(4), None, {HtoH})", "TypeError"),
    # enums
    ("None as enum", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, None)", "TypeError"),
    ("str as enum", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, 'hipMemcpyHostToHost')", "TypeError"),
    ("out-of-range enum value", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, 12345)", "ValueError"),
    ("enum of the wrong class", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, hip.hipError_t.hipSuccess)", "TypeError"),
    ("enum constructor unknown value", "hip.hipError_t(123456)", "ValueError"),
    ("enum lookup unknown name", "hip.hipError_t['hipNoSuchError']", "KeyError"),
    # pointers
    ("bytes as memcpy dst", f"hip.hipMemcpy(b'abcd', bytearray(4), 4, {HtoH})", "BufferError TypeError"),
    ("read-only memoryview as dst", f"hip.hipMemcpy(memoryview(b'abcd'), bytearray(4), 4, {HtoH})", "BufferError TypeError"),
    ("bytes as memset dst", "hip.hipMemset(b'abcd', 0, 4)", "BufferError TypeError"),
    ("non-contiguous array as pointer", f"hip.hipMemcpy(np.zeros(8)[::2], bytearray(4), 4, {HtoH})", "ValueError BufferError TypeError"),
    ("str as pointer", f"hip.hipMemcpy(bytearray(4), 'abcd', 4, {HtoH})", "TypeError"),
    ("float as pointer", "hip.hipFree(1.5)", "TypeError"),
    ("object as pointer", "hip.hipFree(object())", "TypeError"),
    ("negative int as pointer", "hip.hipFree(-1)", "OverflowError"),
    ("Pointer from str", "Pointer('x')", "TypeError"),
    ("str in kernel argument list", "hip.hipModuleLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, ['x'], None)", "TypeError"),
    # kernelParams items point at argument values in host memory: device memory there would be
    # read by the driver as host memory (a crash), so it is refused
    ("device array in kernelParams", "hip.hipModuleLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, [ctypes.c_int(1), CudaArray()], None)", "TypeError"),
    ("DLPack device tensor in launch args", "hip.hipLaunchKernel(None, hip.dim3(), hip.dim3(), [DLPackOnDevice()], 0, None)", "TypeError"),
    # C strings
    ("embedded NUL in bytes path", "hip.hipModuleLoad(b'a\\x00b')", "ValueError"),
    ("embedded NUL in str path", "hip.hipModuleLoad('a\\x00b')", "ValueError"),
    ("embedded NUL in hiprtc option", "hiprtc.hiprtcCompileProgram(None, 1, [b'-O\\x001'])", "ValueError"),
    ("embedded NUL in hiprtc source", "hiprtc.hiprtcCreateProgram(b'int x;\\x00', b'p.hip', 0, None, None)", "ValueError"),
    # structs
    ("dim3 negative field", "hip.dim3(x=-1)", "OverflowError"),
    ("dim3 field over 32 bits", "hip.dim3(x=2**40)", "OverflowError"),
    ("dim3 field set over 32 bits", "setattr(hip.dim3(), 'y', 2**32)", "OverflowError"),
    ("dim3 field from str", "hip.dim3(x='1')", "TypeError"),
    ("dim3 field from str", "hip.dim3(x='1')", "TypeError"),
    ("dim3 field from complex", "hip.dim3(x=1j)", "TypeError"),
    ("dim3 field from NaN", "hip.dim3(x=float('nan'))", "ValueError"),
    ("unknown struct kwarg", "hip.dim3(w=1)", "TypeError"),
    ("too many positional fields", "hip.dim3(1, 2, 3, 4)", "TypeError"),
    ("char array too long", "setattr(hip.hipDeviceProp_t(), 'name', b'x' * 4096)", "ValueError"),
    ("struct view of NULL", "hip.dim3.from_ptr(0)", "ValueError"),
    ("wrong struct class for struct pointer", "hip.hipGetDeviceProperties(hip.dim3(), 0)", "TypeError"),
    ("wrong struct class for attributes", "hip.hipPointerGetAttributes(hip.dim3(), None)", "TypeError"),
    ("str for struct by value", "hip.hipLaunchKernel(None, 'abc', 1, None, 0, None)", "TypeError"),
    ("wrong struct for struct by value", "hip.hipLaunchKernel(None, hip.hipDeviceProp_t(), 1, None, 0, None)", "TypeError"),
    # what the call fills: text and structs it returns, arrays the caller passes (AMD's convention)
    ("name buffer is not a parameter", "hip.hipDeviceGetName(bytearray(256), 256, 0)", "TypeError"),
    ("name length given str", "hip.hipDeviceGetName('256', 0)", "TypeError"),
    ("name length over 32 bits", "hip.hipDeviceGetName(2**40, 0)", "OverflowError"),
    ("uuid storage is not a parameter", "hip.hipDeviceGetUuid(hip.hipUUID_t(), 0)", "TypeError"),
    ("CU mask into read-only memory", "hip.hipExtStreamGetCUMask(None, 2, b'abcdefgh')", "BufferError TypeError"),
    ("CU mask into int64 storage", "hip.hipExtStreamGetCUMask(None, 2, np.zeros(2, np.int64))", "TypeError"),
    ("external memory storage given str", "hip.hipImportExternalMemory('x', None)", "TypeError"),
    # callbacks
    ("non-callable callback", "hip.hipStreamAddCallback(None, 5.0, None, 0)", "TypeError"),
    ("str callback", "hip.hipStreamAddCallback(None, 'callback', None, 0)", "TypeError"),
]

PRELUDE = """
import ctypes
import numpy as np


class CudaArray:
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0x7f0000000000, False), "version": 3}


class DLPackOnDevice:
    def __dlpack_device__(self):
        return (2, 0)   # kDLCUDA

import hip as _pkg
from hip import hip, hiprtc
from hip._pointer import Pointer
"""


@pytest.fixture(scope="module")
def ns():
    namespace = {}
    exec(PRELUDE, namespace)
    return namespace


@pytest.mark.parametrize("expr,excs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_argument_raises(ns, expr, excs):
    types = tuple(getattr(builtins, n) for n in excs.split())
    with pytest.raises(types):
        eval(expr, ns)


def test_all_bad_inputs_in_one_process_without_crashing():
    """The same set in a fresh interpreter: a crash would kill it, so the exit code tells."""
    script = PRELUDE + f"""
import builtins, json, sys
cases = json.loads({json.dumps(json.dumps(CASES))})
wrong = []
for name, expr, excs in cases:
    types = tuple(getattr(builtins, n) for n in excs.split())
    try:
        eval(expr)
    except types:
        continue
    except BaseException as e:
        wrong.append(f"{{name}}: {{type(e).__name__}}: {{e}}")
    else:
        wrong.append(f"{{name}}: no exception")
print("WRONG", len(wrong))
for w in wrong:
    print(w)
"""
    r = run_python(script)
    assert r.returncode == 0, f"interpreter died (exit {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert "WRONG 0\n" in r.stdout, r.stdout[-3000:]
