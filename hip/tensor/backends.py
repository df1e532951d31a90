"""`hip.tensor.backends`: switches of the libraries underneath, PyTorch's `torch.backends` style.

    ht.backends.matmul.allow_tf32 = True     # float32/complex64 matmul on TF32 tensor cores
    ht.backends.matmul.use_hipblaslt = False # nn.Linear / F.linear and matmul through hipBLAS's gemm only
    ht.backends.matmul.hipblaslt_autotune = True   # time hipBLASLt's candidates, keep the fastest

`matmul.allow_tf32` (default False, or `HIP_TENSOR_ALLOW_TF32=1` at import): float32 and complex64
gemms run with compute type HIPBLAS_COMPUTE_32F_FAST_TF32 on the nvidia platform (10-bit mantissa
products, float32 accumulation: about 1e-3 relative error, several times faster on an H100). AMD's
hipBLAS is left at HIPBLAS_COMPUTE_32F there (rocBLAS's xf32 is a per-handle math mode of a few
chips only), so the flag changes nothing on AMD. Read at each call: changing it needs no new
handle. The hipBLAS workspace is not configurable through hip.tensor (hipBLAS 6.4 has no
hipblasSetWorkspace): cuBLAS reads `CUBLAS_WORKSPACE_CONFIG` itself, as under PyTorch.

`matmul.use_hipblaslt` (default True, or `HIP_TENSOR_USE_HIPBLASLT=0` at import): `nn.Linear` and
`F.linear` in float16, bfloat16 and float32 run as one hipBLASLt matmul whose epilogue adds the bias
and applies ReLU or tanh-GELU, and `matmul` of two matrices goes to hipBLASLt for the dtypes and
sizes `_libs.blaslt.MATMUL_MIN_MNK` lists (none until its benchmark has measured where hipBLASLt is
faster), where hipBLASLt is built, its library loads and it has an algorithm for the shape; else, or when False, hipBLAS's gemm (and one
element-wise pass for the bias and activation). Read at each call.

`matmul.hipblaslt_autotune` (default False, or `HIP_TENSOR_HIPBLASLT_AUTOTUNE=1` at import; off
until it has been measured on a GPU): True, the first
call of each hipBLASLt matmul shape times the heuristic's best few algorithms on its stream (one
wait for the stream) and keeps the fastest for that shape, as `torch.backends.cudnn.benchmark` does;
never while a graph is being captured (the heuristic's first algorithm there). False: always the
heuristic's first algorithm, as PyTorch's cuBLASLt calls take it. Which algorithm wins may differ
between runs where two are equally fast, and with it the last bits of a result. Read at each call.
"""
from __future__ import annotations

import os

__all__: list[str] = []


class _MatmulFlags:
    """Flags read by every hipBLAS gemm and hipBLASLt matmul."""

    def __init__(self):
        self.allow_tf32 = os.environ.get("HIP_TENSOR_ALLOW_TF32", "") not in ("", "0")
        self.use_hipblaslt = os.environ.get("HIP_TENSOR_USE_HIPBLASLT", "1") != "0"
        self.hipblaslt_autotune = os.environ.get("HIP_TENSOR_HIPBLASLT_AUTOTUNE", "0") == "1"

    def __repr__(self):
        return (f"matmul(allow_tf32={self.allow_tf32}, use_hipblaslt={self.use_hipblaslt}, "
                f"hipblaslt_autotune={self.hipblaslt_autotune})")


matmul = _MatmulFlags()
