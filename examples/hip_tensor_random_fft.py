"""hip.tensor's random and fft modules: a noisy signal from ht.random, filtered in the frequency
domain with ht.fft (hipRAND and hipFFT underneath), checked against numpy.fft.

Without a GPU it prints the shapes the transforms will give (numpy.fft's rules, no device needed),
then exits 77 ("skipped")."""
import numpy as np

import hip
import hip.tensor as ht

from _gpu import require_gpu, skip

batch, n = 4, 4096
print("rfft of", (batch, n), "->", ht.fft.output_shape("r2c", (batch, n), [n], [1]))

require_gpu()
from hip import hipfft, hiprand  # noqa: E402

for lib in (hiprand, hipfft):
    try:
        lib._library.load()
    except hip.LibraryNotFoundError as e:
        skip(f"the {e.library} library cannot be loaded (set {e.env})")

rng = ht.random.default_rng(2024)                      # seeded: the same numbers on every run here
t = ht.arange(n, dtype=ht.float64) / n
signal = ht.sin(2 * np.pi * 5 * t)                     # 5 cycles over the window
noisy = signal + rng.normal(0.0, 0.5, (batch, n))      # one noisy copy per row

spectrum = ht.fft.rfft(noisy, axis=-1)                 # one batched hipFFT plan for all rows
keep = ht.asarray((np.arange(n // 2 + 1) < 20).astype(np.float64))
filtered = ht.fft.irfft(spectrum * keep, n=n, axis=-1)

host = noisy.get()
want = np.fft.irfft(np.fft.rfft(host, axis=-1) * keep.get(), n=n, axis=-1)
np.testing.assert_allclose(filtered.get(), want, rtol=0, atol=1e-10)
error_before = float(ht.sqrt(((noisy - signal) ** 2).mean()).get())
error_after = float(ht.sqrt(((filtered - signal) ** 2).mean()).get())
assert error_after < error_before / 5, (error_before, error_after)
print(f"rms error {error_before:.3f} -> {error_after:.3f} after keeping 20 of {n // 2 + 1} frequencies")

k = rng.integers(0, 6, size=100_000)                   # a fair die, 0..5
counts = np.bincount(k.get(), minlength=6)
assert counts.min() > 15_000, counts
print("die counts", counts.tolist())
print("ok")
