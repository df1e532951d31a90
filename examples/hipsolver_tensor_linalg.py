"""hip.tensor's linear algebra: solve, Cholesky, QR, SVD, eigh and a least-squares fit through
hipSOLVER, einsum through hipBLAS, each checked against NumPy. Exits 77 without a GPU."""
import numpy as np

import hip.tensor as ht
from hip import hipblas, hipsolver

from _gpu import require_gpu

require_gpu(hipsolver, hipblas)
LA = ht.linalg
rng = np.random.default_rng(0)

# A batch of 8 well-conditioned 64 x 64 systems, one right-hand side each.
ha = rng.standard_normal((8, 64, 64)) + 64 * np.eye(64)
hb = rng.standard_normal((8, 64, 1))
a, b = ht.asarray(ha), ht.asarray(hb)
x = LA.solve(a, b)
np.testing.assert_allclose(x.get(), np.linalg.solve(ha, hb), rtol=1e-12, atol=1e-14)
np.testing.assert_allclose(LA.det(a).get(), np.linalg.det(ha), rtol=1e-10)

# Cholesky of symmetric positive-definite matrices (float32); a singular one raises LinAlgError.
spd = (ha @ ha.transpose(0, 2, 1)).astype(np.float32)
L = LA.cholesky(ht.asarray(spd))
np.testing.assert_allclose(L.get(), np.linalg.cholesky(spd), rtol=2e-4, atol=2e-3)
try:
    LA.inv(ht.asarray(np.ones((3, 3))))
except LA.LinAlgError as e:
    print(f"inv of a singular matrix: LinAlgError({e})")

# QR and SVD of a tall complex matrix; eigh of a Hermitian one.
hc = rng.standard_normal((100, 20)) + 1j * rng.standard_normal((100, 20))
q, r = LA.qr(ht.asarray(hc))
np.testing.assert_allclose(q.get() @ r.get(), hc, atol=1e-12)
u, s, vh = LA.svd(ht.asarray(hc), full_matrices=False)
np.testing.assert_allclose(s.get(), np.linalg.svd(hc, compute_uv=False), rtol=1e-12)
w, v = LA.eigh(ht.asarray(hc.conj().T @ hc))
np.testing.assert_allclose(w.get(), s.get()[::-1] ** 2, rtol=1e-10)

# A least-squares fit of a cubic to noisy samples (NumPy's lstsq tuple).
t = np.linspace(-1, 1, 200)
vander = np.vander(t, 4)
y = vander @ np.array([0.5, -1.0, 2.0, 0.25]) + 1e-3 * rng.standard_normal(200)
coef, res, rank, sv = LA.lstsq(ht.asarray(vander), ht.asarray(y))
want = np.linalg.lstsq(vander, y, rcond=None)
np.testing.assert_allclose(coef.get(), want[0], rtol=1e-10)
assert rank == want[2] == 4

# einsum: batched attention scores as one strided-batched gemm.
qh, kh = rng.standard_normal((2, 4, 16, 32)), rng.standard_normal((2, 4, 24, 32))
scores = ht.einsum("bhqd,bhkd->bhqk", ht.asarray(qh), ht.asarray(kh))
np.testing.assert_allclose(scores.get(), np.einsum("bhqd,bhkd->bhqk", qh, kh), rtol=1e-12, atol=1e-12)
print(f"solve {x.shape}, cholesky {L.shape}, qr {q.shape}/{r.shape}, svd {s.shape}, eigh {w.shape}, "
      f"lstsq rank {rank}, einsum {scores.shape}")
print("ok")
