"""The `cuda` alias: CUDA Python programs (NVIDIA's cuda.bindings API) running on HIP.

`cuda.bindings.driver`, `.runtime` and `.nvrtc` (and the cimport layers `cydriver`,
`cyruntime`, `cynvrtc`) follow cuda-bindings 13.x and call HIP underneath; they are generated
from CUDA's headers by codegen.alias (specs: hip_as_cuda/specs/). Where NVIDIA's
cuda-bindings is not installed, the install provides the `cuda` package itself; everywhere,
`python -m hip_as_cuda prog.py [args]` runs a program with its `cuda` imports taken by ours.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CUDA_DIR = os.path.join(HERE, "cuda")
MODULES = ("driver", "runtime", "nvrtc")


def coverage() -> dict[str, dict]:
    """Per module: how many CUDA functions are bridged to HIP, and each one's status and reason
    (the generator's report, hip_as_cuda/cuda/bindings/_coverage/<module>.json)."""
    import json   # here, not at the top: `import cuda.bindings.driver` imports this package
    out = {}
    for m in MODULES:
        p = os.path.join(CUDA_DIR, "bindings", "_coverage", f"{m}.json")
        if os.path.exists(p):
            with open(p) as f:
                out[m] = json.load(f)
    return out
