"""Complex-to-complex FFT with hipFFT, forward and back, compared with numpy.fft (needs a GPU and
libhipfft). hipFFT's inverse is unnormalized: backward(forward(x)) = n * x."""
import numpy as np

import hip
from hip import hip as h, hipfft

from _gpu import require_gpu

require_gpu(hipfft)

n, batch = 1024, 4
rng = np.random.default_rng(7)
x = (rng.standard_normal((batch, n)) + 1j * rng.standard_normal((batch, n))).astype(np.complex64)
nbytes = x.nbytes

x_d = hip.check(h.hipMalloc(nbytes))
y_d = hip.check(h.hipMalloc(nbytes))
plan = hip.check(hipfft.hipfftPlan1d(n, hipfft.hipfftType_t.HIPFFT_C2C, batch))   # batch transforms of n
try:
    hip.check(h.hipMemcpy(x_d, x, nbytes, h.hipMemcpyKind.hipMemcpyHostToDevice))
    hip.check(hipfft.hipfftExecC2C(plan, x_d, y_d, hipfft.HIPFFT_FORWARD))          # out of place
    hip.check(h.hipDeviceSynchronize())
    spectrum = np.empty_like(x)
    hip.check(h.hipMemcpy(spectrum, y_d, nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
    hip.check(hipfft.hipfftExecC2C(plan, y_d, y_d, hipfft.HIPFFT_BACKWARD))        # in place
    hip.check(h.hipDeviceSynchronize())
    back = np.empty_like(x)
    hip.check(h.hipMemcpy(back, y_d, nbytes, h.hipMemcpyKind.hipMemcpyDeviceToHost))
finally:
    hip.check(hipfft.hipfftDestroy(plan))
    hip.check(h.hipFree(x_d))
    hip.check(h.hipFree(y_d))

ref = np.fft.fft(x.astype(np.complex128), axis=1)
err_fwd = np.max(np.abs(spectrum - ref)) / np.max(np.abs(ref))
err_back = np.max(np.abs(back / n - x)) / np.max(np.abs(x))
assert err_fwd < 1e-5, err_fwd
assert err_back < 1e-5, err_back
print(f"{batch} FFTs of {n} points: relative error {err_fwd:.1e} (forward), {err_back:.1e} (round trip)")
print("ok")
