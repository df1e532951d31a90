"""The alias takes exactly the inputs NVIDIA's cuda-bindings takes, value by value.

The same probe runs in the oracle's side venv (NVIDIA's release: tests/oracles/cuda_bindings_oracle.py)
and through `python -m hip_as_cuda`. Without a GPU or a driver NVIDIA's binding converts every
argument first, then fails to load libcuda (RuntimeError: "accepted") or answers
cudaErrorInsufficientDriver (a status: "accepted"); a conversion it refuses raises TypeError,
OverflowError or ValueError. Ours, without a device, answers HIP's status when it takes the
arguments. So each call is reduced to "accepted" or the exception's type, and both must agree.
"""
import json

import pytest

import cuda_bindings_oracle as oracle

# Calls whose arguments each exercise one rule: integers (floats truncate, bools and NumPy
# integers are ints, negatives and overflow refused, str refused), enums (any int, another enum
# class's member), integer-typedef objects (range by C's size), handles.
CALLS = [
    ("launch float grid", "d.cuLaunchKernel(0, 1.7, 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("launch negative grid", "d.cuLaunchKernel(0, -1, 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("launch grid past 32 bits", "d.cuLaunchKernel(0, 2**32, 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("launch str grid", "d.cuLaunchKernel(0, '1', 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("launch bool grid", "d.cuLaunchKernel(0, True, 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("launch NumPy grid", "d.cuLaunchKernel(0, np.int64(3), 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("launch NumPy float grid", "d.cuLaunchKernel(0, np.float32(2.5), 1, 1, 1, 1, 1, 0, 0, 0, 0)"),
    ("hostRegister float size", "r.cudaHostRegister(0, 3.9, 0)"),
    ("hostRegister float flags", "r.cudaHostRegister(0, 3, 1.5)"),
    ("memAlloc float", "d.cuMemAlloc(3.5)"),
    ("memAlloc negative", "d.cuMemAlloc(-1)"),
    ("memAlloc None", "d.cuMemAlloc(None)"),
    ("memAlloc past 64 bits", "d.cuMemAlloc(2**64)"),
    ("cuuint32_t float", "d.cuuint32_t(5.5)"),
    ("cuuint32_t 2**64-1", "d.cuuint32_t(2**64 - 1)"),
    ("cuuint32_t 2**32", "d.cuuint32_t(2**32)"),
    ("cuuint32_t 2**32-1", "d.cuuint32_t(2**32 - 1)"),
    ("cuuint32_t -1", "d.cuuint32_t(-1)"),
    ("cuuint64_t 2**64", "d.cuuint64_t(2**64)"),
    ("cuuint64_t -1", "d.cuuint64_t(-1)"),
    ("CUdeviceptr -1", "d.CUdeviceptr(-1)"),
    ("CUdeviceptr 2**64-1", "d.CUdeviceptr(2**64 - 1)"),
    ("CUdeviceptr float", "d.CUdeviceptr(1.5)"),
    ("CUdevice float", "d.CUdevice(1.5)"),
    ("runtime attribute given the driver's enum",
     "r.cudaDeviceGetAttribute(d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)"),
    ("runtime attribute given an int", "r.cudaDeviceGetAttribute(1, 0)"),
    ("runtime attribute given a float", "r.cudaDeviceGetAttribute(1.0, 0)"),
    ("driver attribute given the runtime's enum", "d.cuDeviceGetAttribute(r.cudaDeviceAttr.cudaDevAttrMaxThreadsPerBlock, 0)"),
    ("driver attribute given a bool", "d.cuDeviceGetAttribute(True, 0)"),
    ("driver attribute no member has", "d.cuDeviceGetAttribute(99999, 0)"),
    ("driver attribute given a str", "d.cuDeviceGetAttribute('x', 0)"),
    ("driver attribute given a str of digits", "d.cuDeviceGetAttribute('1', 0)"),
    ("runtime attribute given bytes of digits", "r.cudaDeviceGetAttribute(b'1', 0)"),
    ("driver attribute given None", "d.cuDeviceGetAttribute(None, 0)"),
    ("driver attribute past C's int", "d.cuDeviceGetAttribute(2**40, 0)"),
    ("funcGetName NULL", "d.cuFuncGetName(0)"),
    ("funcGetName None", "d.cuFuncGetName(None)"),
    ("coredump flag given a bool",
     "d.cuCoredumpSetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_TRIGGER_HOST, False)"),
    # coredump values typed by the attribute (cuda.bindings' _HelperCUcoredumpSettings)
    ("coredump flag given a str", "d.cuCoredumpSetAttribute(d.CUcoredumpSettings.CU_COREDUMP_LIGHTWEIGHT, 'x')"),
    ("coredump flag given None", "d.cuCoredumpSetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_ENABLE_ON_EXCEPTION, None)"),
    ("coredump file given bytes", "d.cuCoredumpSetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_FILE, b'core')"),
    ("coredump pipe given a bytearray", "d.cuCoredumpSetAttribute(d.CUcoredumpSettings.CU_COREDUMP_PIPE, bytearray(b'p'))"),
    ("coredump file given a str", "d.cuCoredumpSetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_FILE, 'core')"),
    ("coredump file given None", "d.cuCoredumpSetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_FILE, None)"),
    ("coredump file given an int", "d.cuCoredumpSetAttribute(d.CUcoredumpSettings.CU_COREDUMP_FILE, 1)"),
    ("coredump generation flags set", "d.cuCoredumpSetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_GENERATION_FLAGS, 1)"),
    ("coredump generation flags read", "d.cuCoredumpGetAttribute(d.CUcoredumpSettings.CU_COREDUMP_GENERATION_FLAGS)"),
    ("coredump file read", "d.cuCoredumpGetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_FILE)"),
    ("coredump flag read", "d.cuCoredumpGetAttributeGlobal(d.CUcoredumpSettings.CU_COREDUMP_TRIGGER_HOST)"),
    ("coredump attribute None", "d.cuCoredumpGetAttributeGlobal(None)"),
    ("coredump attribute of another enum", "d.cuCoredumpGetAttributeGlobal(d.CUdevice_attribute(7))"),
    ("dim3 _ptr=0", "r.dim3(_ptr=0)"),
    ("void* given a float", "r.cudaMemcpy(1.5, 0, 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    ("void* given a bool", "r.cudaMemcpy(True, 0, 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    # (bytes where C writes, cudaMemcpy(b'xx', ...), NVIDIA's takes and writes into; the alias
    # refuses it: bytes are immutable. docs/alias.rst)
    ("const void* given bytes", "r.cudaMemcpy(0, b'xx', 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    ("void* given a NumPy integer", "r.cudaMemcpy(np.int64(5), 0, 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    ("void* given a str", "r.cudaMemcpy('x', 0, 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    ("void* given a list", "r.cudaMemcpy([1], 0, 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    ("void* given an object", "r.cudaMemcpy(object(), 0, 0, r.cudaMemcpyKind.cudaMemcpyDefault)"),
    ("CUdeviceptr parameter given a float", "d.cuMemsetD8(1.5, 0, 0)"),
    ("CUdeviceptr parameter given a bool", "d.cuMemsetD8(True, 0, 0)"),
    ("stream given a float", "d.cuStreamSynchronize(1.5)"),
    ("stream given a bool", "d.cuStreamSynchronize(True)"),
    ("stream given a str", "d.cuStreamSynchronize('x')"),
    ("stream given -1", "d.cuStreamSynchronize(-1)"),
]

PROBE = r'''
import json, sys
try:
    import numpy as np
except ImportError:          # the oracle's venv holds NVIDIA's wheels alone
    np = None
from cuda.bindings import driver as d, runtime as r
out = {}
for label, expr in json.loads(sys.argv[1]):
    if np is None and "np." in expr:
        out[label] = "n/a"
        continue
    try:
        eval(expr)
        out[label] = "accepted"
    except RuntimeError:      # NVIDIA's: the arguments converted, then no libcuda to load
        out[label] = "accepted"
    except Exception as e:
        out[label] = type(e).__name__
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[dict, dict]:
    pytest.importorskip("numpy")
    try:
        return oracle.probe_both(PROBE, str(tmp_path_factory.mktemp("rules")), [json.dumps(CALLS)])
    except oracle.NoRelease as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("label", [c[0] for c in CALLS])
def test_the_alias_takes_what_nvidias_binding_takes(both, label):
    theirs, ours = both
    if "n/a" in (theirs[label], ours[label]):
        pytest.skip("NumPy is not importable on one side")
    assert ours[label] == theirs[label], f"{label}: NVIDIA's {theirs[label]}, ours {ours[label]}"
