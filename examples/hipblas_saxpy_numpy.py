"""SAXPY (y = alpha * x + y) and SDOT with hipBLAS on NumPy arrays (needs a GPU and libhipblas).

alpha is a Python number, and hipblasSdot writes its result into a host array the caller passes
(as in AMD's HIP Python): the handle is in host pointer mode (set explicitly: a library default can
change, and where the scalars live must match it)."""
import numpy as np

import hip
from hip import hip as h, hipblas

from _gpu import require_gpu

require_gpu(hipblas)

n = 100_000
alpha = 2.5
rng = np.random.default_rng(42)
x = rng.random(n, dtype=np.float32)
y = rng.random(n, dtype=np.float32)
expected = alpha * x + y
nbytes = x.nbytes

x_d = hip.check(h.hipMalloc(nbytes))
y_d = hip.check(h.hipMalloc(nbytes))
handle = hip.check(hipblas.hipblasCreate())
try:
    hip.check(h.hipMemcpy(x_d, x, nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice))
    hip.check(h.hipMemcpy(y_d, y, nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice))
    hip.check(hipblas.hipblasSetPointerMode(handle, hipblas.hipblasPointerMode_t.HIPBLAS_POINTER_MODE_HOST))
    hip.check(hipblas.hipblasSaxpy(handle, n, alpha, x_d, 1, y_d, 1))                 # y_d = alpha*x_d + y_d
    dot = np.empty(1, dtype=np.float32)                                              # the result's storage
    hip.check(hipblas.hipblasSdot(handle, n, x_d, 1, y_d, 1, dot))                   # blocks until done
    hip.check(h.hipDeviceSynchronize())
    result = np.empty_like(y)
    hip.check(h.hipMemcpy(result, y_d, nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
finally:
    hip.check(hipblas.hipblasDestroy(handle))
    hip.check(h.hipFree(x_d))
    hip.check(h.hipFree(y_d))

assert np.allclose(result, expected, rtol=1e-6, atol=1e-6), np.max(np.abs(result - expected))
ref = float(np.dot(x.astype(np.float64), expected.astype(np.float64)))
assert abs(dot[0] - ref) <= 1e-4 * abs(ref), (dot[0], ref)
print(f"saxpy of {n} floats and sdot = {dot[0]:.6g} match NumPy")
print("ok")
