"""The factorizations of `hip.tensor.linalg` through hipSOLVER (`_libs.solver.Job`) and hipBLAS's batched
LU: solve, inv, det, slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, lstsq, and from them
pinv and matrix_rank; eig/eigvals on the host (NumPy's LAPACK geev: hipSOLVER 6.4 has none).

Dtypes: float32, float64, complex64, complex128; integers and bool are computed in float64 (as
NumPy); float16/bfloat16 raise TypeError (as NumPy and PyTorch's CPU linalg). Batches (..., M, N)
are one call per matrix on one handle and one workspace, except cholesky (potrfBatched), the LU
of batches of matrices up to BATCHED_LU_MAX_N (hipBLAS getrfBatched, getrsBatched, getriBatched),
and eigh of batches of matrices up to JACOBI_BATCHED_MAX_N (syevjBatched; gesvdjBatched: see SVD_BATCHED);
the info outputs of a batch come back in one copy, so each function waits for its results once.
Layout: a C-ordered copy of x is x^T to LAPACK, a C-ordered copy of x.mT is x itself; each
function picks the one that saves a transpose (the derivations are in the comments).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.shapes import broadcast_shapes, prod
from .._kernels.elementwise import ElementwiseKernel, _on_device
from .._libs.solver import (BATCHED_LU_MAX_N, JACOBI_BATCHED_MAX_N, Job, LinAlgError, enums, getrf_batched,
                            getri_batched, getrs_batched, jacobi_params, pointers)
from .creation import arange, asarray, eye, ones, triu, zeros
from .elementwise import abs as _abs, log
from .linalg import diagonal, matmul
from .manipulation import broadcast_to, reshape
from .searching import count_nonzero, where
from .statistical import any as _any, max as _max, prod as _prod, sum as _sum

__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "lstsq",
           "pinv", "matrix_rank", "eig", "eigvals", "LinAlgError", "SlogdetResult", "QRResult", "SVDResult",
           "EighResult", "EigResult"]

SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])

_INT_MAX = 2 ** 31 - 1


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


def _solver_dtype(name: str, *dts) -> _dt.DType:
    d = _dt.result_type(*dts)
    if d.kind in "biu":
        return _dt.float64
    if d.kind not in "fc" or d.itemsize < 4:
        raise TypeError(f"{name}: {d.name} is not supported (hipSOLVER takes float32, float64, complex64, "
                        f"complex128; convert first)")
    return d


def _matrices(x, name: str, square: bool = True) -> _dt.DType:
    """Check x is a stack of (square) matrices; its computation dtype."""
    _need_array(x, name)
    if x.ndim < 2:
        raise LinAlgError(f"{name}: {x.ndim}-dimensional array given; it must be at least two-dimensional")
    if square and x.shape[-1] != x.shape[-2]:
        raise LinAlgError(f"{name}: the last 2 dimensions must be square, got shape {x.shape}")
    if max(x.shape[-2:]) > _INT_MAX:
        raise ValueError(f"{name}: matrices of shape {x.shape[-2:]} exceed hipSOLVER's 32-bit sizes")
    return _solver_dtype(name, x.dtype)


def _stack(x):
    """(m, n, min(m, n), the batch shape, the number of matrices) of a stack of (m, n) matrices."""
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    return m, n, min(m, n), batch, prod(batch)


def _on(x):
    return _on_device(x.device_id)


def _step(a: ndarray) -> int:
    """Bytes from one matrix of the C-ordered buffer `a` to the next."""
    return a.shape[-1] * a.shape[-2] * a.itemsize


# -- LU: solve, inv, det, slogdet --------------------------------------------------------------------------------
def _lu(job: Job, a: ndarray, nb: int, n: int, ipiv: ndarray):
    """LU of each n x n matrix of `a` in place (info slots 0..nb-1): one hipBLAS getrfBatched for
    a batch of small matrices (returns its pointer array, which getrs/getri take), else one
    hipSOLVER getrf per matrix (returns None)."""
    if nb > 1 and n <= BATCHED_LU_MAX_N:
        return getrf_batched(job, a, nb, n, _step(a), ipiv)
    work = job.work(job.lwork("getrf", n, n, a.ptr, n, key=(n,)) * a.itemsize)
    for i in range(nb):
        job("getrf", n, n, a.ptr + i * _step(a), n, work.ptr, ipiv.ptr + 4 * n * i, job.info_ptr(i))
    return None


def solve(x1, x2, /) -> ndarray:
    """x solving x1 @ x = x2 (x2 of shape (M,) is one vector for every matrix, as the array API
    says; else (..., M, K)); batch dimensions broadcast. A singular x1 raises LinAlgError."""
    _need_array(x2, "solve")
    _matrices(x1, "solve")
    if x1.device_id != x2.device_id:
        raise ValueError(f"solve: arrays on different devices ({x1.device_id}, {x2.device_id})")
    d = _solver_dtype("solve", x1.dtype, x2.dtype)
    n = x1.shape[-1]
    vector = x2.ndim == 1
    if x2.ndim == 0:
        raise LinAlgError("solve: x2 must be at least one-dimensional")
    b = x2._view(x2.ptr, x2.shape + (1,), x2.strides + (0,)) if vector else x2
    if b.shape[-2] != n:
        raise LinAlgError(f"solve: x1 of shape {x1.shape} and x2 of shape {x2.shape} do not match")
    batch = broadcast_shapes(x1.shape[:-2], () if vector else b.shape[:-2])
    k = b.shape[-1]
    with _on(x1):
        # x1's C-ordered copy is x1^T to LAPACK: getrs with OP_T solves (x1^T)^T x = b. The right
        # side is needed column-major: the C-ordered copy of b.mT.
        a = broadcast_to(x1, batch + (n, n)).astype(d)
        bt = broadcast_to(b, batch + (n, k)).mT.astype(d)
        nb = prod(batch)
        if nb and n and k:
            op_t = enums()[1]
            job = Job(d, nb + 1, x1.device_id)        # slot nb: every getrs's (bad arguments only)
            ipiv = ndarray._empty((nb, n), _dt.int32, x1.device_id)
            ptrs = _lu(job, a, nb, n, ipiv)
            if ptrs is not None:
                getrs_batched(job, "T", n, k, ptrs, ipiv, bt, nb, _step(bt))
            else:                       # getrs reports bad arguments only: its info is not read
                for i in range(nb):
                    job("getrs", op_t, n, k, a.ptr + i * _step(a), n, ipiv.ptr + 4 * n * i, bt.ptr + i * _step(bt),
                        n, job.info_ptr(nb))
            if (job.infos()[:nb] > 0).any():
                raise LinAlgError("solve: singular matrix")
    x = bt.mT
    return reshape(x, batch + (n,)) if vector else x


def inv(x, /) -> ndarray:
    """The inverse of each square matrix; singular: LinAlgError. A batch of small matrices: one
    getrfBatched and one getriBatched; otherwise getrf/getrs against the identity."""
    d = _matrices(x, "inv")
    n = x.shape[-1]
    nb = prod(x.shape[:-2])
    if not (nb > 1 and 0 < n <= BATCHED_LU_MAX_N):
        return solve(x, eye(n, dtype=d, device=x.device_id))
    with _on(x):
        # The C-ordered copy is x^T to LAPACK; getri writes (x^T)^-1 = (x^-1)^T column-major,
        # which read row-major is x^-1.
        a = x.astype(d)
        out = ndarray._empty(x.shape, d, x.device_id)
        job = Job(d, 2 * nb, x.device_id)
        ipiv = ndarray._empty((nb, n), _dt.int32, x.device_id)
        ptrs = getrf_batched(job, a, nb, n, _step(a), ipiv)
        getri_batched(job, n, ptrs, ipiv, out, nb, _step(out), nb)
        if (job.infos() > 0).any():
            raise LinAlgError("inv: singular matrix")
        return out


def _lu_diag(x, d: _dt.DType):
    """(diagonal of U, sign of the row permutation as dtype d) of each matrix of x."""
    n = x.shape[-1]
    nb = prod(x.shape[:-2])
    a = x.astype(d)                           # x^T to LAPACK: det(x^T) = det(x)
    ipiv = ndarray._empty(x.shape[:-2] + (n,), _dt.int32, x.device_id)
    if nb and n:
        job = Job(d, nb, x.device_id)
        _lu(job, a, nb, n, ipiv)                # info > 0 (exactly singular) leaves a zero on U's diagonal
        swaps = count_nonzero(ipiv != arange(1, n + 1, dtype=_dt.int32, device=x.device_id), axis=-1)
        parity = (1 - 2 * (swaps % 2)).astype(d)
    else:
        parity = ones(x.shape[:-2], dtype=d, device=x.device_id)
    return diagonal(a), parity


def det(x, /) -> ndarray:
    """The determinant of each square matrix (LU: product of U's diagonal, sign of the pivots)."""
    d = _matrices(x, "det")
    with _on(x):
        diag, parity = _lu_diag(x, d)
        return (_prod(diag, axis=-1) * parity).astype(d, copy=False)


def slogdet(x, /) -> SlogdetResult:
    """(sign, log |det|) of each square matrix; singular: sign 0, logabsdet -inf (as NumPy)."""
    d = _matrices(x, "slogdet")
    with _on(x):
        diag, parity = _lu_diag(x, d)
        mag = _abs(diag)
        unit = where(mag == 0, 0, diag / mag.astype(d))
        sign = (_prod(unit, axis=-1) * parity).astype(d, copy=False)
        return SlogdetResult(sign, _sum(log(mag), axis=-1).astype(d.real_dtype, copy=False))


# -- Cholesky ----------------------------------------------------------------------------------------------------
# Zeroes what potrf leaves of the input below the diagonal of the row-major buffer (in place,
# writing only those elements).
_zero_below = ElementwiseKernel("int64 rows, int64 cols", "X y",
                                "const long long c = i % cols, r = (i / cols) % rows; if (r > c) y = X(0);",
                                "ht_zero_below_diagonal")


def cholesky(x, /, *, upper: bool = False) -> ndarray:
    """L with L @ L^H = x (or U = L^H when upper=True) of each Hermitian positive-definite matrix;
    reads x's lower triangle (upper: its upper one); not positive definite: LinAlgError."""
    d = _matrices(x, "cholesky")
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky: upper must be a bool, got {upper!r}")
    n = x.shape[-1]
    nb = prod(x.shape[:-2])
    with _on(x):
        # potrf(LOWER) always: cuSOLVER's UPPER is about twice as slow at 4096^2 (measured by MLX,
        # ml-explore/mlx#4208, not by us yet). A column-major L is a row-major L^T, so:
        # upper=False: the C copy of x.mT is x to LAPACK (potrf reads x's lower triangle); L lands
        #   column-major and x's factor is the view a.mT (column-major L).
        # upper=True: the C copy of x is x^T to LAPACK (its lower triangle is x's upper one);
        #   L_M L_M^H = x^T, so U = L_M^T, which is `a` read row-major: U^H U = conj(L_M) L_M^T = x.
        # Either way the factor is the upper triangle of the row-major buffer a.
        a = x.astype(d) if upper else x.mT.astype(d)
        if nb and n:
            lower = enums()[2]
            job = Job(d, nb, x.device_id)
            if nb == 1:
                lw = job.lwork("potrf", lower, n, a.ptr, n, key=(n,))
                work = job.work(lw * a.itemsize)
                job("potrf", lower, n, a.ptr, n, work.ptr, lw, job.info_ptr(0))
            else:
                ptrs = pointers(a, nb, _step(a))
                job("potrfBatched", lower, n, ptrs.ptr, n, job.info_ptr(0), nb)
            _zero_below(np.int64(n), np.int64(n), a)        # queued before the wait on the infos
            info = job.infos()[:nb]
            if (info > 0).any():
                raise LinAlgError(f"cholesky: matrix not positive definite (leading minor {int(info[info > 0][0])})")
        return a if upper else a.mT


# -- QR ----------------------------------------------------------------------------------------------------------
def qr(x, /, *, mode: str = "reduced"):
    """Q, R with x = Q @ R: mode 'reduced' (Q: (..., M, K), R: (..., K, N), K = min(M, N)),
    'complete' (Q: (..., M, M), R: (..., M, N)), or 'r' (R alone, as NumPy's mode='r')."""
    d = _matrices(x, "qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    m, n, k, batch, nb = _stack(x)
    dev = x.device_id
    qcols = m if mode == "complete" else k
    with _on(x):
        w = x.mT.astype(d)                      # (..., n, m): x column-major, lda = m
        if not (nb and k):
            rrows = m if mode == "complete" else k
            r = zeros(batch + (rrows, n), dtype=d, device=dev)
            if mode == "r":
                return r
            q = broadcast_to(eye(m, qcols, dtype=d, device=dev), batch + (m, qcols)).copy()
            return QRResult(q, r)
        job = Job(d, 2 * nb, dev)
        tau = ndarray._empty((nb, k), d, dev)
        tstep = k * d.itemsize
        lw = job.lwork("geqrf", m, n, w.ptr, m, key=(m, n))
        work = job.work(lw * d.itemsize)
        for i in range(nb):
            job("geqrf", m, n, w.ptr + i * _step(w), m, tau.ptr + i * tstep, work.ptr, lw, job.info_ptr(i))
        f = w.mT                                # the factored matrix, (..., m, n) view
        r = triu(f if mode == "complete" else f[..., :k, :])
        if mode == "r":
            job.infos()
            return r
        if qcols > n:                           # complete with m > n: Q's room is m x m
            qb = zeros(batch + (m, m), dtype=d, device=dev)
            qb[..., :n, :] = w
        else:
            qb = w                              # Q's k columns overwrite the first k of w
        gen = "orgqr" if d.kind == "f" else "ungqr"
        lw = job.lwork(gen, m, qcols, k, qb.ptr, m, tau.ptr, key=(m, qcols, k))
        work = job.work(lw * d.itemsize)
        for i in range(nb):
            job(gen, m, qcols, k, qb.ptr + i * _step(qb), m, tau.ptr + i * tstep, work.ptr, lw,
                job.info_ptr(nb + i))
        job.infos()
        return QRResult(qb[..., :qcols, :].mT, r)


# -- SVD ---------------------------------------------------------------------------------------------------------
# gesvdjBatched is off: on an H200 (cuSOLVER 13) it gave wrong singular values for some matrices of
# batches of non-square float64/complex128 matrices (test_svd_batched, 2026-11-26) where the looped
# gesvd is right; _svd_batched stays for when that is understood.
SVD_BATCHED = False


def _svd(x, name: str, full_matrices: bool, compute_uv: bool):
    d = _matrices(x, name, square=False)
    if not isinstance(full_matrices, bool):
        raise TypeError(f"{name}: full_matrices must be a bool, got {full_matrices!r}")
    m, n, k, batch, nb = _stack(x)
    dev = x.device_id
    real = d.real_dtype
    with _on(x):
        if not (nb and k):
            s = zeros(batch + (k,), dtype=real, device=dev)
            if not compute_uv:
                return s
            uc, vr = (m, n) if full_matrices else (k, k)
            u = broadcast_to(eye(m, uc, dtype=d, device=dev), batch + (m, uc)).copy()
            vh = broadcast_to(eye(vr, n, dtype=d, device=dev), batch + (vr, n)).copy()
            return SVDResult(u, s, vh)
        if SVD_BATCHED and 1 < nb <= _INT_MAX and max(m, n) <= JACOBI_BATCHED_MAX_N:
            return _svd_batched(x, name, d, full_matrices, compute_uv)
        # cuSOLVER's gesvd wants rows >= cols: a tall x goes in as itself (the C copy of x.mT), a
        # wide one as x^T (the C copy of x). For x^T = U' S V'^H: x = conj(V') S U'^T, and the
        # row-major reading of the column-major outputs is exactly that (see the returns).
        tall = m >= n
        w = x.mT.astype(d) if tall else x.astype(d)
        r, c = (m, n) if tall else (n, m)
        job_ch = ord("N") if not compute_uv else ord("A") if full_matrices else ord("S")
        ucols = r if full_matrices else c
        ub = ndarray._empty(batch + (ucols, r) if compute_uv else (1,), d, dev)
        vb = ndarray._empty(batch + (c, c) if compute_uv else (1,), d, dev)
        s = ndarray._empty(batch + (c,), real, dev)
        job = Job(d, nb, dev)
        lw = job.lwork("gesvd", r, c, key=(r, c))
        work = job.work(lw * d.itemsize)
        rwork = job.work(c * real.itemsize)
        us, vs = (_step(ub), _step(vb)) if compute_uv else (0, 0)
        for i in range(nb):
            job("gesvd", job_ch, job_ch, r, c, w.ptr + i * _step(w), r, s.ptr + i * c * real.itemsize,
                ub.ptr + i * us, r, vb.ptr + i * vs, c, work.ptr, lw, rwork.ptr, job.info_ptr(i))
        if (job.infos()[:nb] > 0).any():
            raise LinAlgError(f"{name}: SVD did not converge")
        if not compute_uv:
            return s
        if tall:
            return SVDResult(ub.mT, s, vb.mT)
        return SVDResult(vb, s, ub)


def _svd_batched(x, name: str, d: _dt.DType, full_matrices: bool, compute_uv: bool):
    """One gesvdjBatched (Jacobi) for a batch of matrices up to 32 x 32. It takes any m, n (no
    rows >= cols rule) and returns full U (m x m) and V (n x n, not V^H), column-major."""
    m, n, k, batch, nb = _stack(x)
    dev = x.device_id
    real = d.real_dtype
    w = x.mT.astype(d)                      # x column-major, lda = m
    ub = ndarray._empty(batch + (m, m) if compute_uv else (1,), d, dev)
    vb = ndarray._empty(batch + (n, n) if compute_uv else (1,), d, dev)
    s = ndarray._empty(batch + (k,), real, dev)
    jobz = enums()[4 if compute_uv else 5]
    params = jacobi_params("gesvdj", real)
    job = Job(d, nb, dev)
    lw = job.lwork("gesvdjBatched", jobz, m, n, w.ptr, m, s.ptr, ub.ptr, m, vb.ptr, n, key=(compute_uv, m, n, nb),
                   after=(params, nb))
    work = job.work(lw * d.itemsize)
    job("gesvdjBatched", jobz, m, n, w.ptr, m, s.ptr, ub.ptr, m, vb.ptr, n, work.ptr, lw, job.info_ptr(0), params, nb)
    if (job.infos()[:nb] > 0).any():
        raise LinAlgError(f"{name}: SVD did not converge")
    if not compute_uv:
        return s
    # ub read row-major is U^T, vb is V^T: Vh = V^H = conj(vb).
    u, vh = ub.mT, vb.conj()
    if not full_matrices:
        u, vh = u[..., :, :k], vh[..., :k, :]
    return SVDResult(u, s, vh)


def svd(x, /, *, full_matrices: bool = True) -> SVDResult:
    """U, S, Vh with x = U @ diag(S) @ Vh, S descending (real), for each matrix."""
    return _svd(x, "svd", full_matrices, True)


def svdvals(x, /) -> ndarray:
    """The singular values of each matrix, descending."""
    return _svd(x, "svdvals", False, False)


# -- Hermitian eigenproblem --------------------------------------------------------------------------------------
def _eigh(x, name: str, vectors: bool):
    d = _matrices(x, name)
    _, n, _, batch, nb = _stack(x)
    dev = x.device_id
    real = d.real_dtype
    with _on(x):
        w = x.mT.astype(d)                      # x column-major: eigenvectors land in its columns
        vals = ndarray._empty(batch + (n,), real, dev)
        if nb and n:
            _, _, lower, _, vec, novec = enums()
            jobz = vec if vectors else novec
            op = "syevd" if d.kind == "f" else "heevd"
            job = Job(d, nb, dev)
            if 1 < nb <= _INT_MAX and n <= JACOBI_BATCHED_MAX_N:
                # One syevjBatched/heevjBatched (Jacobi) for the batch: matrices n*n elements apart,
                # eigenvalues n apart, ascending (the params sort them), one info per matrix.
                op = ("sy" if d.kind == "f" else "he") + "evjBatched"
                params = jacobi_params("syevj", real)
                lw = job.lwork(op, jobz, lower, n, w.ptr, n, vals.ptr, key=(vectors, n, nb), after=(params, nb))
                work = job.work(lw * d.itemsize)
                job(op, jobz, lower, n, w.ptr, n, vals.ptr, work.ptr, lw, job.info_ptr(0), params, nb)
            else:
                lw = job.lwork(op, jobz, lower, n, w.ptr, n, vals.ptr, key=(vectors, n))
                work = job.work(lw * d.itemsize)
                for i in range(nb):
                    job(op, jobz, lower, n, w.ptr + i * _step(w), n, vals.ptr + i * n * real.itemsize, work.ptr, lw,
                        job.info_ptr(i))
            if (job.infos()[:nb] > 0).any():
                raise LinAlgError(f"{name}: the eigenvalue computation did not converge")
        return EighResult(vals, w.mT) if vectors else vals


def eigh(x, /) -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors (columns) of each Hermitian matrix, read from
    its lower triangle (NumPy's UPLO='L')."""
    return _eigh(x, "eigh", True)


def eigvalsh(x, /) -> ndarray:
    """The eigenvalues (ascending, real) of each Hermitian matrix (its lower triangle)."""
    return _eigh(x, "eigvalsh", False)


# -- least squares -----------------------------------------------------------------------------------------------
def lstsq(a, b, /, rcond=None):
    """NumPy's lstsq: (x, residuals, rank, s) minimizing ||b - a x||_2 for a 2-d `a` (M, N) and b
    (M,) or (M, K), through the SVD (as LAPACK's gelsd: singular values <= rcond * max(s) count as
    zero; rcond None: eps * max(M, N)). residuals: squared 2-norms of b - a x per column when
    rank == N < M, else shape (0,); rank: a Python int (this waits for the SVD); s: a's singular
    values."""
    _need_array(a, "lstsq")
    _need_array(b, "lstsq")
    if a.ndim != 2:
        raise LinAlgError(f"lstsq: a must be 2-dimensional, got shape {a.shape}")
    if b.ndim not in (1, 2):
        raise LinAlgError(f"lstsq: b must be 1- or 2-dimensional, got shape {b.shape}")
    if a.device_id != b.device_id:
        raise ValueError(f"lstsq: arrays on different devices ({a.device_id}, {b.device_id})")
    m, n = a.shape
    if b.shape[0] != m:
        raise LinAlgError(f"lstsq: incompatible dimensions {a.shape} and {b.shape}")
    d = _solver_dtype("lstsq", a.dtype, b.dtype)
    if rcond is None:
        rcond = float(_dt.finfo(d).eps) * max(m, n)
    elif isinstance(rcond, bool) or not isinstance(rcond, (int, float)):
        raise TypeError(f"lstsq: rcond must be a number or None, got {rcond!r}")
    with _on(a):
        a = a.astype(d, copy=False)
        bb = b.astype(d, copy=False)
        b2 = bb._view(bb.ptr, (m, 1), bb.strides + (0,)) if b.ndim == 1 else bb
        u, s, vh = svd(a, full_matrices=False)
        if s.size:
            keep = s > _max(s) * float(rcond)
            rank = int(count_nonzero(keep).item())
            sinv = where(keep, 1 / s, 0).astype(d)
        else:
            rank, sinv = 0, s.astype(d)
        y = matmul(u.mT.conj(), b2) * sinv[:, None]
        x = matmul(vh.mT.conj(), y)
        if rank == n and m > n:
            resid = _sum(_abs(matmul(a, x) - b2) ** 2, axis=0)
        else:
            resid = ndarray._empty((0,), d.real_dtype, a.device_id)
        if b.ndim == 1:
            x = x[:, 0]
        return x, resid.astype(d.real_dtype, copy=False), rank, s


# -- from the SVD: pinv, matrix_rank -----------------------------------------------------------------------------
def _rtol(name: str, rtol, rcond, d: _dt.DType, m: int, n: int):
    """The relative cutoff: rtol or NumPy's rcond (not both); neither: max(M, N) * eps (the array
    API's default; NumPy's pinv without rtol uses 1e-15). A float, or an array broadcast over the
    batch (given a trailing axis here)."""
    if rtol is not None and rcond is not None:
        raise ValueError(f"{name}: `rtol` and `rcond` can't be both set")
    r = rtol if rtol is not None else rcond
    if r is None:
        return float(_dt.finfo(d.real_dtype).eps) * max(m, n)
    if isinstance(r, ndarray):
        return r[..., None]
    if isinstance(r, bool) or not isinstance(r, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: rtol must be a real number or a hip.tensor array, got {type(r).__name__}")
    return float(r)


def pinv(x, /, rcond=None, hermitian: bool = False, *, rtol=None) -> ndarray:
    """The Moore-Penrose pseudo-inverse of each matrix (..., M, N) -> (..., N, M), from the SVD
    (hermitian=True: from eigh, reading the lower triangle): singular values at most rtol times the
    largest count as zero (rtol None: max(M, N) * eps; NumPy's `rcond` is accepted instead)."""
    d = _matrices(x, "pinv", square=hermitian)
    if not isinstance(hermitian, bool):
        raise TypeError(f"pinv: hermitian must be a bool, got {hermitian!r}")
    m, n = x.shape[-2:]
    cut = _rtol("pinv", rtol, rcond, d, m, n)
    if m == 0 or n == 0:
        return zeros(x.shape[:-2] + (n, m), dtype=d, device=x.device_id)
    with _on(x):
        if hermitian:                   # x = V diag(w) V^H: pinv = V diag(1/w, large |w|) V^H
            w, v = eigh(x)
            s = _abs(w)
            large = s > _max(s, axis=-1, keepdims=True) * cut
            return matmul(v * where(large, 1 / w, 0)[..., None, :], v.mT.conj()).astype(d, copy=False)
        u, s, vh = svd(x, full_matrices=False)      # pinv = V diag(1/s, large s) U^H
        large = s > _max(s, axis=-1, keepdims=True) * cut
        return matmul(vh.mT.conj() * where(large, 1 / s, 0)[..., None, :], u.mT.conj()).astype(d, copy=False)


def matrix_rank(x, /, tol=None, hermitian: bool = False, *, rtol=None) -> ndarray | int:
    """The number of singular values of each matrix above the tolerance (int64, the batch's shape):
    `tol` absolute, else rtol times the largest (rtol None: max(M, N) * eps), NumPy's and the
    array API's rules; hermitian=True: |eigenvalues| (lower triangle). A 0-d or 1-d x: NumPy's
    Python int, 1 unless every element is 0 (this waits for the GPU)."""
    _need_array(x, "matrix_rank")
    if not isinstance(hermitian, bool):
        raise TypeError(f"matrix_rank: hermitian must be a bool, got {hermitian!r}")
    if x.ndim < 2:
        return int(bool(_any(x != 0).get()))
    d = _matrices(x, "matrix_rank", square=hermitian)
    m, n = x.shape[-2:]
    if tol is not None and rtol is not None:
        raise ValueError("matrix_rank: `tol` and `rtol` can't be both set")
    if tol is not None:
        if isinstance(tol, ndarray):
            tol = tol[..., None]
        elif isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
            raise TypeError(f"matrix_rank: tol must be a real number or a hip.tensor array, got {type(tol).__name__}")
        else:
            tol = float(tol)
    else:
        rel = _rtol("matrix_rank", rtol, None, d, m, n)
    with _on(x):
        s = _abs(eigvalsh(x)) if hermitian else svdvals(x)
        if min(m, n) == 0:
            return count_nonzero(s, axis=-1)            # zeros of the batch's shape
        if tol is None:
            tol = _max(s, axis=-1, keepdims=True) * rel
        return count_nonzero(s > tol, axis=-1)


# -- the general eigenproblem: on the host ------------------------------------------------------------------
# hipSOLVER (ROCm 6.4) has no general (non-Hermitian) eigensolver (no geev in its headers, which the
# bindings follow, so cuSOLVER's Xgeev is out of reach on the nvidia platform too): eig and eigvals
# copy x to the host, call NumPy's LAPACK geev and copy the results back.
def _eig_host(x, name: str, vectors: bool):
    d = _matrices(x, name)
    c = _dt.result_type(d, _dt.complex64)            # the complex type of d's precision
    a = x.get().astype(d.numpy, copy=False)          # waits for x's stream
    try:
        r = np.linalg.eig(a) if vectors else np.linalg.eigvals(a)
    except np.linalg.LinAlgError as e:               # non-finite input, or geev did not converge
        raise LinAlgError(f"{name}: {e}") from None

    def device(v):
        return asarray(np.ascontiguousarray(v, dtype=c.numpy), device=x.device_id)
    return EigResult(device(r.eigenvalues), device(r.eigenvectors)) if vectors else device(r)


def eig(x, /) -> EigResult:
    """Eigenvalues (..., M) and right eigenvectors (..., M, M; columns, unit length) of each square
    matrix, always complex (complex64 for float32 input, complex128 for float64 and integers), in
    LAPACK's order. Computed on the host: x is copied there and NumPy's geev runs on it (hipSOLVER has
    no general eigensolver); the results are copied back to x's device."""
    return _eig_host(x, "eig", True)


def eigvals(x, /) -> ndarray:
    """The eigenvalues (..., M) of each square matrix, complex as eig's; on the host, as eig."""
    return _eig_host(x, "eigvals", False)
