"""hip.tensor's linear algebra, part 2, against NumPy: the hipSOLVER functions of ht.linalg (solve,
inv, det, slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, lstsq, pinv, matrix_rank,
matrix_norm 2/-2/nuc, matrix_power n < 0; hipBLAS's batched LU; eig and eigvals, on the host) for float32/float64/complex64/
complex128 and integer input, batched, broadcast, non-contiguous and empty; singular / not
positive definite matrices; dot, vdot, inner, einsum; float16/bfloat16 gemms against float32
references; the TF32 switch; solver handles per stream."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._libs import blas as _blas

pytestmark = pytest.mark.gpu

LA = ht.linalg
FLOATS = ["float32", "float64", "complex64", "complex128"]
EPS = {"float32": 1.2e-7, "complex64": 1.2e-7, "float64": 2.3e-16, "complex128": 2.3e-16}


@pytest.fixture
def rng():
    return np.random.default_rng(23)


def rand(name, shape, rng) -> np.ndarray:
    if name.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    if name.startswith("int"):
        return rng.integers(-4, 5, size=shape).astype(name)
    return rng.standard_normal(shape).astype(name)


def well_conditioned(name, shape, rng) -> np.ndarray:
    """Random matrices plus 2n + 2 on the diagonal (condition numbers of a few units)."""
    a = rand(name, shape, rng)
    n = shape[-1]
    return (a + (2 * n + 2) * np.eye(n, dtype=a.dtype)).astype(a.dtype)


def hermitian_pd(name, shape, rng) -> np.ndarray:
    g = rand(name, shape, rng)
    n = shape[-1]
    return (g @ np.conj(np.swapaxes(g, -1, -2)) + n * np.eye(n)).astype(name)


def close(got, want, name, scale=100.0):
    """Within `scale` ulps of the dtype times the reference's magnitude."""
    g = got.get() if isinstance(got, ht.ndarray) else np.asarray(got)
    want = np.asarray(want)
    assert g.shape == want.shape, (g.shape, want.shape)
    tol = scale * EPS[name] * max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(g.astype(np.complex128), want.astype(np.complex128), rtol=0, atol=tol)


def dev(a, name=None):
    return ht.asarray(a, dtype=name or a.dtype.name)


# -- solve, inv ----------------------------------------------------------------------------------------------------
SOLVE_SHAPES = [((5, 5), (5,)), ((5, 5), (5, 3)), ((2, 3, 4, 4), (3, 4, 2)), ((4, 6, 6), (6,)), ((1, 1), (1, 1)),
                ((3, 6, 6), (6, 1)), ((0, 4, 4), (0, 4, 2)), ((0, 0), (0,)), ((3, 3), (3, 0)), ((2, 0, 0), (2, 0, 5))]


@pytest.mark.parametrize("name", FLOATS)
def test_solve(name, rng):
    for sa, sb in SOLVE_SHAPES:
        a, b = well_conditioned(name, sa, rng), rand(name, sb, rng)
        got = LA.solve(dev(a), dev(b))
        assert got.dtype.name == name
        a128, b128 = a.astype(np.complex128), b.astype(np.complex128)
        if b.ndim == 1:                       # one vector for every matrix (NumPy 1.x read it otherwise)
            b128 = np.broadcast_to(b128[:, None], a.shape[:-1] + (1,))
        want = np.linalg.solve(a128, b128)
        close(got, want[..., 0] if b.ndim == 1 else want, name)


def test_solve_non_contiguous_and_mixed(rng):
    a = well_conditioned("float64", (3, 8, 8), rng)
    b = rand("float64", (3, 8, 10), rng)
    x = LA.solve(dev(a).mT, dev(b)[..., ::2])                            # transposed A, strided b
    close(x, np.linalg.solve(np.swapaxes(a, -1, -2), b[..., ::2]), "float64")
    x = LA.solve(dev(a)[::-1], dev(b)[:, ::-1, 3:4])                      # negative strides, one column
    close(x, np.linalg.solve(a[::-1], b[:, ::-1, 3:4]), "float64")
    with pytest.raises(LA.LinAlgError):                                    # (3, 8) is a matrix, not 3 vectors
        LA.solve(dev(a), dev(b)[:, :, 3])
    ai = rng.integers(1, 5, size=(4, 4)) + 8 * np.eye(4, dtype=np.int64)
    x = LA.solve(dev(ai.astype(np.int32)), dev(np.arange(4, dtype=np.int16)))
    assert x.dtype.name == "float64"                                       # integers: float64, as NumPy
    close(x, np.linalg.solve(ai, np.arange(4)), "float64")
    a32 = a[0].astype(np.float32)
    x = LA.solve(dev(a32), dev(b[0].astype(np.complex128)))
    assert x.dtype.name == "complex128"                                    # result_type(float32, complex128)
    close(x, np.linalg.solve(a32.astype(np.float64), b[0]), "complex128")


@pytest.mark.parametrize("name", FLOATS)
def test_inv(name, rng):
    for shape in [(6, 6), (3, 5, 5), (2, 1, 3, 3), (0, 0), (4, 0, 0), (0, 3, 3)]:
        a = well_conditioned(name, shape, rng)
        got = LA.inv(dev(a))
        assert got.dtype.name == name and got.shape == shape
        close(got, np.linalg.inv(a.astype(np.complex128)) if a.size else a, name)
    a = well_conditioned(name, (7, 7), rng)
    close(LA.inv(dev(a).mT), np.linalg.inv(a.T.astype(np.complex128)), name)


def test_solve_inv_batched_lu_and_the_looped_path(rng):
    """Batches of matrices up to BATCHED_LU_MAX_N take hipBLAS's getrfBatched/getrsBatched/
    getriBatched, larger ones a hipSOLVER getrf per matrix: both against NumPy, with a broadcast x1."""
    from hip.tensor._libs.solver import BATCHED_LU_MAX_N
    for n in (2, 33, BATCHED_LU_MAX_N, BATCHED_LU_MAX_N + 1):
        for name in ("float32", "complex128"):
            a = well_conditioned(name, (3, n, n), rng)
            b = rand(name, (2, 3, n, 2), rng)
            scale = 1000.0 if n > 100 else 100.0
            close(LA.solve(dev(a), dev(b)), np.linalg.solve(a.astype(np.complex128), b.astype(np.complex128)), name,
                  scale)
            close(LA.inv(dev(a)), np.linalg.inv(a.astype(np.complex128)), name, scale)
            d, want = LA.det(dev(a[:, :8, :8])), np.linalg.det(a[:, :8, :8].astype(np.complex128))
            close(d, want, name, 1e4)


@pytest.mark.parametrize("call", [LA.inv, lambda x: LA.solve(x, x[..., 0])])
def test_singular_raises(call):
    # Singular in floating point too: getrf reports a zero pivot only if elimination leaves an exact
    # 0, and with FMA (cuSOLVER) [[1, 2, 3], [2, 4, 6], ...] leaves 2 - 6 * fl(1/3) = 2^-53 instead.
    # Equal rows with power-of-two pivots (multipliers 1/4, 1/2 either way round) and a zero row
    # (0 - l * 0 = 0) eliminate exactly, whichever of x or x^T LAPACK factors.
    for s in (np.array([[1.0, 2.0, 4.0], [1.0, 2.0, 4.0], [0.0, 1.0, 1.0]]),
              np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [4.0, 5.0, 7.0]])):
        with pytest.raises(LA.LinAlgError, match="singular"):
            call(dev(s))
        batch = np.stack([np.eye(3), s, np.eye(3)])                         # one singular matrix in a batch
        with pytest.raises(LA.LinAlgError):
            call(dev(batch))
        with pytest.raises(np.linalg.LinAlgError):                          # NumPy agrees
            np.linalg.inv(s)
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.solve(s, s[..., 0])


# -- det, slogdet ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_det_slogdet(name, rng):
    for shape in [(5, 5), (3, 4, 4), (2, 2, 6, 6), (1, 1), (0, 0), (3, 0, 0), (0, 2, 2)]:
        a = rand(name, shape, rng)
        want = np.linalg.det(a.astype(np.complex128)) if a.size or shape[-1] == 0 else np.ones(shape[:-2])
        got = LA.det(dev(a))
        assert got.dtype.name == name and got.shape == shape[:-2]
        close(got, want, name, scale=1000.0)
        sign, logabs = LA.slogdet(dev(a))
        ws, wl = np.linalg.slogdet(a.astype(np.complex128)) if a.size or shape[-1] == 0 else (want, want * 0)
        assert sign.dtype.name == name and logabs.dtype.name == ht.dtype(name).real_dtype.name
        close(sign, ws, name, scale=1000.0)
        close(logabs, np.real(wl), name, scale=1000.0)
    p = np.eye(4)[[2, 0, 3, 1]].astype(name)                                # a permutation: det = its sign
    close(LA.det(dev(p)), np.linalg.det(p.astype(np.float64)), name)


def test_det_singular_and_noncontiguous(rng):
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert LA.det(dev(s)).get() == 0.0
    sign, logabs = LA.slogdet(dev(s))
    assert sign.get() == 0.0 and logabs.get() == -np.inf                    # NumPy: (0, -inf)
    a = rand("float64", (3, 6, 6), rng)
    close(LA.det(dev(a).mT[:, ::2, ::2]), np.linalg.det(np.swapaxes(a, -1, -2)[:, ::2, ::2]), "float64", 1000.0)
    close(LA.det(dev(np.array([[2, 1], [1, 3]], np.int32))), 5.0, "float64")


# -- cholesky --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_cholesky(name, rng):
    for shape in [(6, 6), (4, 5, 5), (2, 3, 4, 4), (1, 1), (0, 0), (3, 0, 0)]:
        a = hermitian_pd(name, shape, rng)
        want = np.linalg.cholesky(a.astype(np.complex128)) if a.size else a
        got = LA.cholesky(dev(a))
        assert got.dtype.name == name
        close(got, want, name, scale=1000.0)
        up = LA.cholesky(dev(a), upper=True)
        close(up, np.conj(np.swapaxes(want, -1, -2)), name, scale=1000.0)


def test_cholesky_reads_one_triangle_and_views(rng):
    a = hermitian_pd("complex128", (3, 5, 5), rng)
    junk = np.tril(a) + np.triu(np.full_like(a, 7 + 7j), 1)                 # garbage above the diagonal
    close(LA.cholesky(dev(junk)), np.linalg.cholesky(a), "complex128", 1000.0)
    big = np.zeros((3, 10, 10), np.complex128)
    big[:, ::2, ::2] = a
    close(LA.cholesky(dev(big)[:, ::2, ::2]), np.linalg.cholesky(a), "complex128", 1000.0)


def test_cholesky_not_positive_definite():
    m = np.eye(4)
    m[2, 2] = -1.0
    with pytest.raises(LA.LinAlgError, match="positive definite"):
        LA.cholesky(dev(m))
    with pytest.raises(LA.LinAlgError):
        LA.cholesky(dev(np.stack([np.eye(4), m])))                           # the batched path
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(m)


def test_cholesky_exact_zeros_input_kept_and_large(rng):
    """potrf(LOWER) on both sides: the other triangle is exactly 0, the input is not written, and a
    matrix past one block of the blocked algorithm (300) and a batch (potrfBatched) agree with NumPy."""
    for shape in [(300, 300), (3, 40, 40)]:
        a = hermitian_pd("float64", shape, rng)
        x = dev(a)
        low, up = LA.cholesky(x), LA.cholesky(x, upper=True)
        np.testing.assert_array_equal(x.get(), a)
        lh, uh = low.get(), up.get()
        assert np.all(np.triu(lh, 1) == 0) and np.all(np.tril(uh, -1) == 0)
        close(lh, np.linalg.cholesky(a), "float64", 1e4)
        close(uh, np.swapaxes(np.linalg.cholesky(a), -1, -2), "float64", 1e4)


# -- qr ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 7, 3), (2, 2, 3, 5), (0, 3), (3, 0), (0, 4, 2)])
def test_qr(name, shape, rng):
    a = rand(name, shape, rng)
    m, n = shape[-2:]
    k = min(m, n)
    for mode in ("reduced", "complete"):
        q, r = LA.qr(dev(a), mode=mode)
        qc = m if mode == "complete" else k
        assert q.shape == shape[:-2] + (m, qc) and r.shape == shape[:-2] + (qc, n)
        assert q.dtype.name == name and r.dtype.name == name
        qh, rh = q.get().astype(np.complex128), r.get().astype(np.complex128)
        close(qh @ rh, a.astype(np.complex128), name, 1000.0)
        close(np.conj(np.swapaxes(qh, -1, -2)) @ qh, np.broadcast_to(np.eye(qc), qh.shape[:-2] + (qc, qc)), name, 1000.0)
        assert np.all(np.tril(rh, -1) == 0)
        if a.size:                                                           # R as LAPACK's Householder QR, up to signs
            close(np.abs(rh), np.abs(np.linalg.qr(a.astype(np.complex128), mode=mode)[1]), name, 1000.0)
    r = LA.qr(dev(a), mode="r")
    assert r.shape == shape[:-2] + (k, n)


def test_qr_view_input(rng):
    a = rand("float64", (8, 10), rng)
    q, r = LA.qr(dev(a).mT[::2])                                             # (5, 8) from a strided transposed view
    close(q.get() @ r.get(), a.T[::2], "float64", 1000.0)


# -- svd -------------------------------------------------------------------------------------------------------------
SVD_SHAPES = [(6, 4), (4, 6), (5, 5), (3, 7, 2), (2, 2, 3, 5), (1, 1), (0, 3), (3, 0), (0, 4, 2)]


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", SVD_SHAPES)
def test_svd(name, shape, rng):
    a = rand(name, shape, rng)
    check_svd(a, dev(a), name)          # below, with the batched Jacobi tests


def test_matrix_norm_from_singular_values(rng):
    a = rand("complex128", (3, 5, 4), rng)
    for ord in (2, -2, "nuc"):
        close(LA.matrix_norm(dev(a), ord=ord), np.linalg.norm(a, ord=ord, axis=(-2, -1)), "complex128", 1000.0)
    got = LA.matrix_norm(dev(a.real.astype(np.float32)), ord=2, keepdims=True)
    close(got, np.linalg.norm(a.real, ord=2, axis=(-2, -1), keepdims=True), "float32", 1000.0)
    close(LA.matrix_norm(dev(np.arange(6, dtype=np.int32).reshape(2, 3)), ord="nuc"),
          np.linalg.norm(np.arange(6).reshape(2, 3), "nuc"), "float64", 1000.0)


def test_matrix_power_negative(rng):
    a = well_conditioned("float64", (2, 4, 4), rng)
    for n in (-1, -2, -5):
        close(LA.matrix_power(dev(a), n), np.linalg.matrix_power(a, n), "float64", 1e4)


# -- eigh ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(6, 6), (3, 5, 5), (2, 2, 4, 4), (1, 1), (0, 0), (2, 0, 0), (0, 3, 3)])
def test_eigh(name, shape, rng):
    a = hermitian_pd(name, shape, rng) - shape[-1] * np.eye(shape[-1], dtype=name)     # eigenvalues of both signs
    check_eigh(a, dev(a), name)         # below, with the batched Jacobi tests


# -- eig, eigvals: NumPy's geev on the host --------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS + ["int32"])
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (1, 1), (0, 0), (2, 0, 0), (0, 3, 3)])
def test_eig_eigvals(name, shape, rng):
    a = rand(name, shape, rng)
    x = dev(a)
    want = {"float32": np.complex64, "complex64": np.complex64}.get(name, np.complex128)
    ref = np.linalg.eig(a.astype(np.float64) if name == "int32" else a)
    w, v = LA.eig(x)
    assert isinstance(LA.eig(x), LA.EigResult)
    assert w.dtype.name == v.dtype.name == np.dtype(want).name           # complex even for real eigenvalues
    assert w.shape == shape[:-1] and v.shape == shape
    assert w.device == x.device and v.device == x.device
    real = "float64" if name == "int32" else name.replace("complex64", "float32").replace("complex128", "float64")
    close(w, ref.eigenvalues.astype(want), real, 1000.0)                  # the same LAPACK: the same order
    # x v = v diag(w), columns of unit length
    vh, wh = v.get(), w.get()
    close(a.astype(want) @ vh, vh * wh[..., None, :], real, 1000.0)
    if v.size:
        np.testing.assert_allclose(np.linalg.norm(vh, axis=-2), 1.0, rtol=1e-4)
    close(LA.eigvals(x), ref.eigenvalues.astype(want), real, 1000.0)
    assert LA.eigvals(x).dtype.name == np.dtype(want).name


def test_eig_of_views_and_non_finite(rng):
    a = rand("float64", (6, 6), rng)
    x = dev(a)[::-1, ::2][:3]                                                  # a strided view: copied as it is
    b = a[::-1, ::2][:3]
    close(LA.eigvals(x), np.linalg.eigvals(b).astype(np.complex128), "float64", 1000.0)
    rot = dev(np.array([[0.0, -1.0], [1.0, 0.0]]))
    np.testing.assert_allclose(np.sort_complex(LA.eigvals(rot).get()), [-1j, 1j], atol=1e-12)
    with pytest.raises(LA.LinAlgError):
        LA.eig(dev(np.array([[np.nan, 0.0], [0.0, 1.0]])))
    with pytest.raises(TypeError):
        LA.eigvals(dev(np.eye(2, dtype=np.float16)))


def test_eigh_reads_lower_triangle(rng):
    a = hermitian_pd("complex64", (4, 4), rng)
    junk = np.tril(a) + np.triu(np.full_like(a, 9 - 3j), 1)
    close(LA.eigvalsh(dev(junk)), np.linalg.eigvalsh(junk, UPLO="L"), "complex64", 1000.0)
    close(LA.eigvalsh(dev(a).mT), np.linalg.eigvalsh(a.T), "complex64", 1000.0)


# -- batched Jacobi (syevjBatched/heevjBatched, gesvdjBatched): batches of matrices up to 32 x 32 ---------------------
def _used(entry: str) -> bool:
    """Whether a call asked the workspace of `entry` (e.g. 'syevjBatched') since the test cleared
    the sizes: the batched path ran."""
    from hip.tensor._libs import solver as _solver
    return any(entry in k[1] for k in _solver._lwork_sizes)


def check_eigh(a: np.ndarray, x, name: str):
    """eigh/eigvalsh of the device array x (whose values are `a`) against NumPy: eigenvalues
    ascending and equal, A v = v w, V^H V = I (eigenvectors' signs/phases are not unique)."""
    n = a.shape[-1]
    real = ht.dtype(name).real_dtype.name
    w, v = LA.eigh(x)
    assert w.dtype.name == real and v.dtype.name == name and w.shape == a.shape[:-1] and v.shape == a.shape
    ww = np.linalg.eigvalsh(a.astype(np.complex128)) if a.size else np.zeros(a.shape[:-1])
    wh = w.get()
    assert (np.diff(wh, axis=-1) >= 0).all()
    close(w, ww, name, 1000.0)
    vh = v.get().astype(np.complex128)
    close(a.astype(np.complex128) @ vh, vh * wh[..., None, :], name, 1000.0)
    close(np.conj(np.swapaxes(vh, -1, -2)) @ vh, np.broadcast_to(np.eye(n), a.shape), name, 1000.0)
    close(LA.eigvalsh(x), ww, name, 1000.0)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("n", [1, 2, 7, 32, 33])
@pytest.mark.parametrize("batch", [(5,), (3, 4)])
def test_eigh_batched(name, n, batch, rng):
    from hip.tensor._libs import solver as _solver
    _solver._lwork_sizes.clear()
    a = hermitian_pd(name, batch + (n, n), rng) - n * np.eye(n, dtype=name)     # eigenvalues of both signs
    check_eigh(a, dev(a), name)
    op = ("sy" if name.startswith("float") else "he") + "evjBatched"
    assert _used(op) == (n <= 32)           # n = 33: one syevd/heevd per matrix


@pytest.mark.parametrize("name", FLOATS)
def test_eigh_batched_views_lower_triangle_empty(name, rng):
    # A principal submatrix of a Hermitian matrix is Hermitian: a strided, non-contiguous view.
    big = hermitian_pd(name, (6, 14, 14), rng)
    check_eigh(big[1::2, ::2, ::2], dev(big)[1::2, ::2, ::2], name)
    a = hermitian_pd(name, (4, 5, 5), rng)
    check_eigh(np.swapaxes(a, -1, -2).copy(), dev(a).mT, name)
    # Only the lower triangle is read, for each matrix of the batch.
    junk = np.tril(a) + np.triu(np.full_like(a, 9), 1)
    close(LA.eigvalsh(dev(junk)), np.linalg.eigvalsh(junk, UPLO="L"), name, 1000.0)
    for shape in [(0, 7, 7), (3, 0, 0), (2, 0, 4, 4)]:
        e = np.zeros(shape, name)
        w, v = LA.eigh(dev(e))
        assert w.shape == shape[:-1] and v.shape == shape and LA.eigvalsh(dev(e)).shape == shape[:-1]


def check_svd(a: np.ndarray, x, name: str):
    """svd (both full_matrices) and svdvals of x (values `a`) against NumPy: S descending and
    equal, U S Vh = A, U and Vh unitary (the vectors' signs/phases are not unique)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    real = ht.dtype(name).real_dtype.name
    ws = np.linalg.svd(a.astype(np.complex128), compute_uv=False) if a.size else np.zeros(batch + (k,))
    for full in (True, False):
        u, s, vh = LA.svd(x, full_matrices=full)
        uc, vr = (m, n) if full else (k, k)
        assert u.shape == batch + (m, uc) and vh.shape == batch + (vr, n) and s.shape == batch + (k,)
        assert s.dtype.name == real and u.dtype.name == name and vh.dtype.name == name
        sh = s.get()
        assert (np.diff(sh, axis=-1) <= 0).all()
        close(s, ws, name, 1000.0)
        uh, vhh = u.get().astype(np.complex128), vh.get().astype(np.complex128)
        close((uh[..., :, :k] * sh[..., None, :]) @ vhh[..., :k, :], a.astype(np.complex128), name, 1000.0)
        close(np.conj(np.swapaxes(uh, -1, -2)) @ uh, np.broadcast_to(np.eye(uc), batch + (uc, uc)), name, 1000.0)
        close(vhh @ np.conj(np.swapaxes(vhh, -1, -2)), np.broadcast_to(np.eye(vr), batch + (vr, vr)), name, 1000.0)
    close(LA.svdvals(x), ws, name, 1000.0)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("mn", [(1, 1), (2, 2), (7, 7), (32, 32), (7, 3), (3, 7), (32, 5), (33, 33), (33, 4), (4, 33)])
@pytest.mark.parametrize("batch", [(5,), (3, 4)])
def test_svd_batched(name, mn, batch, rng):
    from hip.tensor._libs import solver as _solver
    _solver._lwork_sizes.clear()
    a = rand(name, batch + mn, rng)
    check_svd(a, dev(a), name)
    from hip.tensor._api import decompositions as _decompositions
    assert _used("gesvdjBatched") == (_decompositions.SVD_BATCHED and max(mn) <= 32)   # else one gesvd per matrix


@pytest.mark.parametrize("name", FLOATS)
def test_svd_batched_views_and_empty(name, rng):
    big = rand(name, (6, 10, 12), rng)
    check_svd(big[::2, 1::2, ::3], dev(big)[::2, 1::2, ::3], name)       # (3, 5, 4), non-contiguous
    check_svd(np.swapaxes(big, -1, -2)[:2].copy(), dev(big).mT[:2], name)
    for shape in [(0, 7, 5), (3, 0, 4), (3, 4, 0), (2, 0, 3, 3)]:
        check_svd(np.zeros(shape, name), dev(np.zeros(shape, name)), name)


# -- lstsq -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("ashape,bshape", [((8, 3), (8,)), ((8, 3), (8, 2)), ((3, 8), (3,)), ((5, 5), (5, 4)),
                                           ((6, 0), (6, 2)), ((0, 3), (0,))])
def test_lstsq(name, ashape, bshape, rng):
    a, b = rand(name, ashape, rng), rand(name, bshape, rng)
    x, res, rank, s = LA.lstsq(dev(a), dev(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a.astype(np.complex128), b.astype(np.complex128), rcond=None)
    assert rank == wrank and isinstance(rank, int)
    close(x, wx, name, 1e4)
    close(s, ws, name, 1000.0)
    assert res.shape == wres.shape
    close(res, np.real(wres), name, 1e4)


def test_lstsq_rank_deficient(rng):
    a = rand("float64", (7, 4), rng)
    a[:, 3] = a[:, 0] + a[:, 1]                                                     # rank 3
    b = rand("float64", (7, 2), rng)
    x, res, rank, s = LA.lstsq(dev(a), dev(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b, rcond=None)
    assert rank == wrank == 3 and res.shape == wres.shape == (0,)
    close(x, wx, "float64", 1e4)                                                    # the minimum-norm solution


# -- dot, vdot, inner, einsum --------------------------------------------------------------------------------------
DOT_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 6)),
              ((), (3, 4)), ((3, 4), ()), ((0, 4), (4, 2)), ((3, 0), (0,))]


@pytest.mark.parametrize("name", ["float32", "complex128", "int32"])
def test_dot_inner_vdot(name, rng):
    for sa, sb in DOT_SHAPES:
        a, b = rand(name, sa, rng), rand(name, sb, rng)
        scale = 1e4 if name == "float32" else 100.0
        ref = "float32" if name == "int32" else name
        close(ht.dot(dev(a), dev(b)), np.dot(a, b), ref, scale)
        bi = rand(name, sb[:-1] + sa[-1:] if sa and sb else sb, rng)
        close(ht.inner(dev(a), dev(bi)), np.inner(a, bi), ref, scale)
    a, b = rand(name, (3, 4), rng), rand(name, (12,), rng)
    close(ht.vdot(dev(a), dev(b)), np.vdot(a, b), "float32" if name == "int32" else name, 1e4)
    close(ht.vdot(dev(a).mT, dev(b)), np.vdot(a.T, b), "float32" if name == "int32" else name, 1e4)


EINSUM = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
          ("i,i->", [(6,), (6,)]), ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]),
          ("ij->j", [(3, 4)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("ij,kj->ik", [(3, 4), (5, 4)]),
          ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]), ("ij,ij->ij", [(3, 4), (3, 4)]),
          ("ij,jk,k->i", [(3, 4), (4, 5), (5,)]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]),
          ("ijk,k->ij", [(2, 0, 3), (3,)]), ("ij,jk->ik", [(3, 0), (0, 2)])]


@pytest.mark.parametrize("name", ["float64", "complex64", "int64"])
@pytest.mark.parametrize("subscripts,shapes", EINSUM)
def test_einsum(name, subscripts, shapes, rng):
    ops = [rand(name, s, rng) for s in shapes]
    got = ht.einsum(subscripts, *[dev(o) for o in ops])
    want = np.einsum(subscripts, *ops)
    assert got.dtype.name == name
    close(got, want, "float64" if name == "int64" else name, 1e3)


# -- float16 / bfloat16 / TF32 gemms -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_gemm_against_float32_reference(name, rng):
    """float16/bfloat16 through hipblasGemmStridedBatchedEx with float32 accumulation: within the
    output's rounding of the float32 product of the (already rounded) inputs, also batched with a
    broadcast operand and a transposed one."""
    from gpu_tensor import round_bf16
    def host(shape):
        v = rng.uniform(-1, 1, shape).astype(np.float32)
        return round_bf16(v) if name == "bfloat16" else v.astype(np.float16).astype(np.float32)
    out_eps = 2.0 ** -8 if name == "bfloat16" else 2.0 ** -11
    for sa, sb in [((256, 512), (512, 128)), ((4, 64, 96), (96, 32)), ((3, 1, 33, 70), (5, 70, 17))]:
        a, b = host(sa), host(sb)
        got = ht.matmul(ht.asarray(a, dtype=name), ht.asarray(b, dtype=name)).get().astype(np.float32)
        want = a.astype(np.float64) @ b.astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=2 * out_eps, atol=2 * out_eps * np.sqrt(sa[-1]))
    a, b = host((64, 48)), host((80, 48))                                   # a @ b.mT: (64, 48) @ (48, 80)
    got = ht.matmul(ht.asarray(a, dtype=name), ht.asarray(b, dtype=name).mT).get().astype(np.float32)
    want = a.astype(np.float64) @ b.T.astype(np.float64)
    assert got.shape == want.shape == (64, 80)
    np.testing.assert_allclose(got, want, rtol=2 * out_eps, atol=2 * out_eps * 8)


def test_tf32_switch():
    """1 - 2^-12 is exact in float32 (and so are the partial sums here), but TF32 keeps 10 mantissa
    bits: on the nvidia platform with allow_tf32 the inputs round to 1 (or truncate to 1 - 2^-11),
    so the sum of k products differs from the exact one; without the flag the float32 gemm is
    exact. AMD ignores the flag."""
    from hip.tensor._core.device import platform
    k = 1024
    v = np.float32(1 - 2.0 ** -12)
    a = ht.asarray(np.full((128, k), v, np.float32))
    b = ht.asarray(np.ones((k, 128), np.float32))
    exact = k * float(v)
    assert ht.backends.matmul.allow_tf32 is False
    assert np.all(ht.matmul(a, b).get() == exact)
    ht.backends.matmul.allow_tf32 = True
    try:
        got = ht.matmul(a, b).get()
    finally:
        ht.backends.matmul.allow_tf32 = False
    if platform() == "nvidia":
        assert np.all(got != exact), "allow_tf32 did not change the float32 gemm (TF32 not used?)"
        np.testing.assert_allclose(got, exact, rtol=2e-3)
    else:
        assert np.all(got == exact)


# -- pinv, matrix_rank, eig ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 7, 2), (2, 2, 3, 5), (1, 1), (0, 3), (3, 0), (0, 4, 2)])
def test_pinv(name, shape, rng):
    a = rand(name, shape, rng)
    got = LA.pinv(dev(a))
    assert got.dtype.name == name and got.shape == shape[:-2] + (shape[-1], shape[-2])
    want = np.linalg.pinv(a.astype(np.complex128), rtol=None) if a.size else np.zeros(got.shape)
    close(got, want, name, 1e4)


def test_pinv_rank_deficient_tolerances_and_hermitian(rng):
    a = np.round(4 * rand("float64", (2, 7, 4), rng))                               # integers: exact sums
    a[..., 3] = a[..., 0] + a[..., 1]                                               # rank 3
    for kw in ({}, {"rtol": 1e-10}, {"rcond": 1e-10}):
        want = np.linalg.pinv(a, **(kw or {"rtol": None}))
        close(LA.pinv(dev(a), **kw), want, "float64", 1e4)
    rt = np.array([1e-10, 0.9])                                                   # per matrix: 0.9 drops more
    close(LA.pinv(dev(a), rtol=dev(rt)), np.linalg.pinv(a, rtol=rt), "float64", 1e4)
    h = hermitian_pd("complex128", (3, 5, 5), rng) - 10 * np.eye(5)                 # eigenvalues of both signs
    close(LA.pinv(dev(h), hermitian=True), np.linalg.pinv(h, hermitian=True, rtol=None), "complex128", 1e4)
    i = np.array([[1, 2], [2, 4], [0, 1]], np.int32)                                  # integers: float64
    p = LA.pinv(dev(i))
    assert p.dtype.name == "float64"
    close(p, np.linalg.pinv(i.astype(np.float64)), "float64", 1e4)


@pytest.mark.parametrize("name", FLOATS)
def test_matrix_rank(name, rng):
    a = np.round(4 * rand(name, (4, 6, 5), rng))                                  # integers: exact differences
    a[1, :, 4] = a[1, :, 0] - a[1, :, 2]                                            # ranks 5, 4, 3, 0
    a[2, :, 3:] = 0
    a[3] = 0
    got = LA.matrix_rank(dev(a))
    assert got.dtype.name == "int64" and got.shape == (4,)
    np.testing.assert_array_equal(got.get(), np.linalg.matrix_rank(a))
    np.testing.assert_array_equal(got.get(), [5, 4, 3, 0])
    s = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    tol = float(s[0, 2]) * 1.0001                                                     # drops a[0]'s 3 smallest
    for kw in ({"tol": tol}, {"rtol": 0.5}, {"tol": dev(np.full(4, tol))}):
        want = np.linalg.matrix_rank(a, **{k: (v.get() if isinstance(v, ht.ndarray) else v) for k, v in kw.items()})
        np.testing.assert_array_equal(LA.matrix_rank(dev(a), **kw).get(), want)
    h = hermitian_pd(name, (5, 5), rng) - 5 * np.eye(5, dtype=name)
    h[:, 0] = 0
    h[0, :] = 0
    assert LA.matrix_rank(dev(h), hermitian=True).get() == np.linalg.matrix_rank(h, hermitian=True) == 4


def test_matrix_rank_vectors_and_empty():
    assert LA.matrix_rank(dev(np.zeros(4))) == np.linalg.matrix_rank(np.zeros(4)) == 0
    assert LA.matrix_rank(dev(np.array([0.0, 2.0]))) == 1
    got = LA.matrix_rank(dev(np.zeros((2, 0, 3))))
    np.testing.assert_array_equal(got.get(), np.linalg.matrix_rank(np.zeros((2, 0, 3))))


# -- handles, streams -----------------------------------------------------------------------------------------------
def test_solver_handles_per_stream(rng):
    a = well_conditioned("float64", (5, 5), rng)
    b = rand("float64", (5, 2), rng)
    null = ht.current_stream()
    assert int(_blas.solver_handle(null)) == int(_blas.solver_handle(null))
    base = _blas.solver_handles_in_use()
    s = ht.Stream(non_blocking=True)
    with s:
        x = LA.solve(ht.asarray(a), ht.asarray(b))                           # on s: its own handle
        assert _blas.solver_handles_in_use() == base + 1
        assert int(_blas.solver_handle(s)) != int(_blas.solver_handle(null))
        s.synchronize()
    close(x, np.linalg.solve(a, b), "float64")


def test_bad_input_on_device():
    x = ht.asarray(np.eye(3))
    with pytest.raises(LA.LinAlgError):
        LA.solve(x, ht.asarray(np.ones(4)))
    with pytest.raises(TypeError):
        LA.inv(ht.asarray(np.eye(3), dtype="float16"))
    with pytest.raises(LA.LinAlgError):
        LA.cholesky(ht.asarray(np.ones((2, 3))))
    with pytest.raises(ValueError):
        LA.qr(x, mode="full")
    with pytest.raises(NotImplementedError):
        ht.einsum("ii->", x)
