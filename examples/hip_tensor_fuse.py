"""hip.tensor's fuse: a chain of element-wise operations (and a final reduction) as one kernel.

Without a GPU it prints the device function the chain becomes (tracing needs no device), then
exits 77 ("skipped")."""
import numpy as np

import hip.tensor as ht

from _gpu import require_gpu


@ht.fuse
def chain(x, y):
    return (x * y + x) * y - x              # one kernel: reads x and y once, writes the result


@ht.fuse
def sum_sq_dev(x, m):
    return ((x - m) ** 2).sum(axis=1)       # one reduction kernel whose map is the chain


@ht.fuse
def soft_clip(x, limit):
    return ht.where(ht.abs(x) > limit, limit * ht.tanh(x / limit), x)   # `limit`: a scalar argument


plan = chain.lower((ht.float32, 1), (ht.float32, 1))
source = plan.sources()[0][1]
print(source[source.index("HT_D float ht_fz_"):source.index("#endif", source.index("HT_D float ht_fz_"))])

require_gpu()

rng = np.random.default_rng(0)
hx, hy = rng.standard_normal((1000, 256)), rng.standard_normal((1000, 256))
x, y = ht.asarray(hx), ht.asarray(hy)

z = chain(x, y)
np.testing.assert_allclose(z.get(), (hx * hy + hx) * hy - hx, rtol=1e-14, atol=1e-14)
assert np.array_equal(z.get(), ((x * y + x) * y - x).get())           # the same bits as eager

m = ht.asarray(hx.mean(axis=1, keepdims=True))
s = sum_sq_dev(x, m)
np.testing.assert_allclose(s.get(), ((hx - hx.mean(axis=1, keepdims=True)) ** 2).sum(axis=1), rtol=1e-12)

c = soft_clip(x, 1.5)
np.testing.assert_allclose(c.get(), np.where(np.abs(hx) > 1.5, 1.5 * np.tanh(hx / 1.5), hx), rtol=1e-14)
print(f"chain: {z.shape} {z.dtype}, sum_sq_dev: {s.shape}, soft_clip: {c.shape}; "
      f"{len(chain._plans) + len(sum_sq_dev._plans) + len(soft_clip._plans)} kernels traced")
print("ok")
