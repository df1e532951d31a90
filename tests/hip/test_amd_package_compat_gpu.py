"""AMD's published HIP Python (rocm-bindings-hip) runs its basic calls against our HIP-on-CUDA
layer: the layer implements HIP's ABI faithfully enough for a binding we did not write.

The wheels are carried, not installed: HIP_PYTHON_AMD_WHEELS names a folder holding
rocm_bindings_core and rocm_bindings_hip wheels for this Python."""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

from conftest import ROOT

pytestmark = pytest.mark.gpu

SCRIPT = r'''
import ctypes, sys
import numpy as np
from rocm.bindings import hip, hiprtc

def ok(r):
    r = r if isinstance(r, tuple) else (r,)
    assert int(r[0]) == 0, r
    return r[1] if len(r) == 2 else r[1:]

n = ok(hip.hipGetDeviceCount())
assert n >= 1, n
props = ok(hip.hipGetDeviceProperties(0))
arch = props.gcnArchName
arch = arch.decode() if isinstance(arch, bytes) else str(arch)
name = props.name
name = name.decode() if isinstance(name, bytes) else str(name)
print("device", name, arch, props.multiProcessorCount, props.totalGlobalMem)
assert arch.startswith("sm_"), arch

x = np.arange(4096, dtype=np.float32)
y = np.zeros_like(x)
d = ok(hip.hipMalloc(x.nbytes))
ok(hip.hipMemcpy(d, x, x.nbytes, hip.hipMemcpyKind.hipMemcpyHostToDevice))

src = b"""
#include <hip/hip_runtime.h>
extern "C" __global__ void scale(float* a, float s, int n) {
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n) a[i] *= s;
}
"""
prog = ok(hiprtc.hiprtcCreateProgram(src, b"scale.cu", 0, [], []))
opts = [b"--offload-arch=" + arch.encode()]
r = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)
assert int(r[0]) == 0, r
size = ok(hiprtc.hiprtcGetCodeSize(prog))
code = bytearray(size)
ok(hiprtc.hiprtcGetCode(prog, code))
module = ok(hip.hipModuleLoadData(code))
kernel = ok(hip.hipModuleGetFunction(module, b"scale"))
ok(hip.hipModuleLaunchKernel(kernel, 16, 1, 1, 256, 1, 1, 0, None, None,
                             (d, ctypes.c_float(2.0), ctypes.c_int(x.size))))
ok(hip.hipDeviceSynchronize())
ok(hip.hipMemcpy(y, d, x.nbytes, hip.hipMemcpyKind.hipMemcpyDeviceToHost))
assert np.array_equal(y, 2 * x), y[:8]
ok(hip.hipFree(d))
print("AMD package OK")
'''


def test_amd_hip_python_runs_on_our_layer(tmp_path):
    wheels = os.environ.get("HIP_PYTHON_AMD_WHEELS", str(ROOT / ".dev" / "amd"))
    files = glob.glob(os.path.join(wheels, "rocm_bindings_*.whl"))
    if not files:
        pytest.skip(f"no rocm-bindings wheels in {wheels} (set HIP_PYTHON_AMD_WHEELS)")
    site = tmp_path / "site"
    for f in files:                      # a wheel is a zip: unpacking it is installing it here
        zipfile.ZipFile(f).extractall(site)
    rocm = tmp_path / "rocm" / "lib"
    rocm.mkdir(parents=True)
    layer = ROOT / "hip" / "_nvidia"
    for lib, names in (("hip", ["libamdhip64.so"]), ("hiprtc", ["libhiprtc.so"])):
        so = layer / f"libhip-nvidia-{lib}.so"
        assert so.exists(), f"layer not built: {so}"
        for n in names:
            os.symlink(so, rocm / n)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(PYTHONPATH=str(site), ROCM_PATH=str(tmp_path / "rocm"))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT)], capture_output=True, text=True,
                       env=env, cwd=str(tmp_path), timeout=300)
    print(r.stdout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "AMD package OK" in r.stdout
