"""hip.tensor.sparse: a CSR matrix from NumPy, SpMV and SpMM through hipSPARSE's generic API, the
transpose, scaling and COO, checked against NumPy's dense products (needs a GPU and hipSPARSE).

The matrix is the 1-D Laplacian (2 on the diagonal, -1 beside it): A @ x is a second difference."""
import numpy as np

import hip.tensor as ht
from hip import hipsparse

from _gpu import require_gpu

require_gpu(hipsparse)

n = 1000
dense = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
a = ht.sparse.csr_matrix(dense)                          # from a dense NumPy array (zeros dropped)
print(a)

x = np.linspace(0.0, 1.0, n) ** 2
y = a @ x                                                # SpMV: a hip.tensor ndarray
np.testing.assert_allclose(y.get(), dense @ x, rtol=1e-12, atol=1e-12)

b = np.random.default_rng(0).standard_normal((n, 8))
c = a @ ht.asarray(b)                                    # SpMM: a dense n x 8 result
np.testing.assert_allclose(c.get(), dense @ b, rtol=1e-12, atol=1e-12)

upper = ht.sparse.csr_matrix(np.triu(dense))             # not symmetric: the transpose differs
np.testing.assert_array_equal(upper.T.toarray().get(), np.triu(dense).T)
np.testing.assert_allclose((0.5 * upper @ x).get(), 0.5 * np.triu(dense) @ x, rtol=1e-12, atol=1e-12)

coo = a.tocoo()                                          # row, col, data
print(f"COO: {coo.nnz} entries, first rows {coo.row[:4].get()}, cols {coo.col[:4].get()}")
np.testing.assert_array_equal(coo.toarray().get(), dense)
print("ok")
