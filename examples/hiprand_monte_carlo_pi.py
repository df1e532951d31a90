"""Estimate pi from uniform random points generated on the GPU by hipRAND (needs a GPU and libhiprand).

The fraction of points (x, y) in (0, 1]^2 with x^2 + y^2 <= 1 approaches pi / 4."""
import math

import numpy as np

import hip
from hip import hip as h, hiprand

from _gpu import require_gpu

require_gpu(hiprand)

n = 1 << 22                                   # points; 2n floats (x, y interleaved)
samples = np.empty(2 * n, dtype=np.float32)
nbytes = samples.nbytes

samples_d = hip.check(h.hipMalloc(nbytes))
gen = hip.check(hiprand.hiprandCreateGenerator(hiprand.hiprandRngType.HIPRAND_RNG_PSEUDO_DEFAULT))
try:
    hip.check(hiprand.hiprandSetPseudoRandomGeneratorSeed(gen, 1234))
    hip.check(hiprand.hiprandGenerateUniform(gen, samples_d, 2 * n))      # uniform in (0, 1]
    hip.check(h.hipDeviceSynchronize())
    hip.check(h.hipMemcpy(samples, samples_d, nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
finally:
    hip.check(hiprand.hiprandDestroyGenerator(gen))
    hip.check(h.hipFree(samples_d))

assert samples.min() > 0.0 and samples.max() <= 1.0, (samples.min(), samples.max())
x, y = samples[0::2].astype(np.float64), samples[1::2].astype(np.float64)
inside = np.count_nonzero(x * x + y * y <= 1.0)
pi = 4.0 * inside / n
# the estimate's standard deviation is 4 * sqrt(p (1 - p) / n) ~ 0.0008 here: allow 8 of them
assert abs(pi - math.pi) < 8 * 4 * math.sqrt((math.pi / 4) * (1 - math.pi / 4) / n), pi
print(f"pi ~ {pi:.5f} from {n} points (error {abs(pi - math.pi):.1e})")
print("ok")
