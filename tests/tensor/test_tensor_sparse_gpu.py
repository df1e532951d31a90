"""hip.tensor.sparse against NumPy dense results (and SciPy where it is installed): CSR and COO
from dense, NumPy and hip.tensor arrays, SciPy matrices; toarray; SpMV and SpMM (also batched,
non-contiguous, mixed-dtype and empty operands, dense @ sparse); transpose; scalar scaling;
conversions; products on a side stream; bad input."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip import hipsparse
from hip.tensor import sparse

from gpu_util import require_library

pytestmark = pytest.mark.gpu

DTYPES = ["float32", "float64", "complex64", "complex128"]
FORMATS = {"csr": sparse.csr_matrix, "coo": sparse.coo_matrix}
TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "complex64": dict(rtol=1e-5, atol=1e-5),
       "float64": dict(rtol=1e-12, atol=1e-12), "complex128": dict(rtol=1e-12, atol=1e-12)}


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hipsparse)


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def random_dense(rng, m, n, dtype, density=0.2):
    a = rng.standard_normal((m, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((m, n))
    a = a * (rng.random((m, n)) < density)
    if m > 3:
        a[3, :] = 0                                    # an empty row
    if n > 2:
        a[:, 2] = 0                                    # an empty column
    return a.astype(dtype)


def vector(rng, n, dtype):
    v = rng.standard_normal(n)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(n)
    return v.astype(dtype)


def close(got, want, dtype):
    np.testing.assert_allclose(got, want, **TOL[np.dtype(dtype).name])


def ref(a):
    return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_from_dense_and_back(fmt, dtype, rng):
    a = random_dense(rng, 37, 23, dtype)
    for src in (a, ht.asarray(a)):
        s = FORMATS[fmt](src)
        assert s.format == fmt and s.shape == a.shape and s.dtype.name == dtype
        assert s.nnz == np.count_nonzero(a)
        dense = s.toarray()
        assert isinstance(dense, ht.ndarray) and dense.dtype.name == dtype
        np.testing.assert_array_equal(dense.get(), a)
        np.testing.assert_array_equal(s.todense().get(), a)
    rows, cols = np.nonzero(a)
    if fmt == "csr":
        np.testing.assert_array_equal(s.indices.get(), cols)
        np.testing.assert_array_equal(s.indptr.get(), np.concatenate([[0], np.cumsum(np.count_nonzero(a, 1))]))
    else:
        np.testing.assert_array_equal(s.row.get(), rows)
        np.testing.assert_array_equal(s.col.get(), cols)
    assert s.indices.dtype is ht.int32 if fmt == "csr" else s.row.dtype is ht.int32


def test_integer_and_half_data_become_float():
    a = np.array([[0, 2], [3, 0]], np.int64)
    assert sparse.csr_matrix(a).dtype is ht.float64
    assert sparse.coo_matrix(a.astype(np.float16)).dtype is ht.float32
    assert sparse.csr_matrix(a, dtype="complex64").dtype is ht.complex64


def test_csr_from_arrays_unsorted_with_duplicates(rng):
    # row 0: columns 3, 0, 3 (unsorted, a duplicate); row 1 empty; row 2: column 1
    data = np.array([1.0, 2.0, 4.0, 8.0])
    indices = np.array([3, 0, 3, 1])
    indptr = np.array([0, 3, 3, 4])
    want = np.zeros((3, 4))
    np.add.at(want, (np.repeat([0, 1, 2], np.diff(indptr)), indices), data)
    for args in ((data, indices, indptr), tuple(ht.asarray(x) for x in (data, indices, indptr))):
        s = sparse.csr_matrix(args, shape=(3, 4))
        np.testing.assert_array_equal(s.toarray().get(), want)
        np.testing.assert_array_equal(s.indices.get(), [0, 3, 3, 1])   # sorted inside each row
        x = vector(rng, 4, np.float64)
        close((s @ x).get(), want @ x, np.float64)
    assert sparse.csr_matrix((data, indices, indptr)).shape == (3, 4)  # shape inferred


def test_csr_check_false_takes_device_arrays():
    data = ht.asarray(np.array([1.0, 2.0, 3.0], np.float32))
    indices = ht.asarray(np.array([0, 2, 1], np.int32))
    indptr = ht.asarray(np.array([0, 2, 3], np.int32))
    s = sparse.csr_matrix((data, indices, indptr), shape=(2, 3), check=False)
    assert s.data.ptr == data.ptr and s.indices.ptr == indices.ptr           # no copy
    np.testing.assert_array_equal(s.toarray().get(), [[1, 0, 2], [0, 3, 0]])


def test_coo_from_triplets_any_order_with_duplicates(rng):
    m, n, nnz = 9, 7, 40
    row, col = rng.integers(0, m, nnz), rng.integers(0, n, nnz)          # unsorted, duplicates
    data = rng.standard_normal(nnz)
    want = np.zeros((m, n))
    np.add.at(want, (row, col), data)
    s = sparse.coo_matrix((data, (row, col)), shape=(m, n))
    r, c = s.row.get(), s.col.get()
    assert (np.diff(r) >= 0).all() and all((np.diff(c[r == i]) >= 0).all() for i in range(m))
    close(s.toarray().get(), want, np.float64)
    close(s.tocsr().toarray().get(), want, np.float64)
    x = vector(rng, n, np.float64)
    close((s @ x).get(), want @ x, np.float64)
    close(s.T.toarray().get(), want.T, np.float64)
    d = sparse.coo_matrix((ht.asarray(data), (ht.asarray(row), ht.asarray(col))), shape=(m, n))
    close(d.toarray().get(), want, np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_spmv(fmt, dtype, rng):
    a = random_dense(rng, 120, 77, dtype)
    s = FORMATS[fmt](a)
    x = vector(rng, 77, dtype)
    y = s @ x
    assert isinstance(y, ht.ndarray) and y.shape == (120,) and y.dtype.name == dtype
    close(y.get(), ref(a) @ ref(x), dtype)
    close(s.dot(ht.asarray(x)).get(), ref(a) @ ref(x), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_spmm(fmt, dtype, rng):
    a = random_dense(rng, 64, 50, dtype)
    s = FORMATS[fmt](a)
    b = random_dense(rng, 50, 9, dtype, density=1.0)
    c = s @ ht.asarray(b)
    assert c.shape == (64, 9) and c.dtype.name == dtype
    close(c.get(), ref(a) @ ref(b), dtype)


@pytest.mark.parametrize("fmt", FORMATS)
def test_products_on_non_contiguous_and_batched_operands(fmt, rng):
    a = random_dense(rng, 40, 30, np.float64)
    s = FORMATS[fmt](a)
    big = rng.standard_normal(60)
    close((s @ ht.asarray(big)[::2]).get(), a @ big[::2], np.float64)            # strided vector
    bt = rng.standard_normal((5, 30))
    close((s @ ht.asarray(bt).T).get(), a @ bt.T, np.float64)                      # transposed matrix
    batch = rng.standard_normal((3, 30, 4))
    got = s @ ht.asarray(batch)
    assert got.shape == (3, 40, 4)
    close(got.get(), np.einsum("mn,bnk->bmk", a, batch), np.float64)


@pytest.mark.parametrize("fmt", FORMATS)
def test_dense_at_sparse(fmt, rng):
    a = random_dense(rng, 25, 18, np.float32)
    s = FORMATS[fmt](a)
    v = vector(rng, 25, np.float32)
    close((v @ s).get(), ref(v) @ ref(a), np.float32)
    m = rng.standard_normal((6, 25)).astype(np.float32)
    close((ht.asarray(m) @ s).get(), ref(m) @ ref(a), np.float32)


def test_mixed_dtypes_promote(rng):
    a = random_dense(rng, 20, 10, np.float32)
    s = sparse.csr_matrix(a)
    x64 = rng.standard_normal(10)
    y = s @ x64
    assert y.dtype is ht.float64
    close(y.get(), ref(a) @ x64, np.float64)
    xi = np.arange(10, dtype=np.int32)
    assert (s @ xi).dtype is ht.dtype(np.result_type(np.float32, np.int32))
    xc = vector(rng, 10, np.complex64)
    yc = s @ xc
    assert yc.dtype is ht.complex64
    close(yc.get(), ref(a) @ ref(xc), np.complex64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_transpose(fmt, dtype, rng):
    a = random_dense(rng, 31, 45, dtype)
    s = FORMATS[fmt](a)
    t = s.T
    assert t.format == fmt and t.shape == (45, 31) and t.dtype.name == dtype
    np.testing.assert_array_equal(t.toarray().get(), a.T)                        # not conjugated
    np.testing.assert_array_equal(t.T.toarray().get(), a)
    if fmt == "csr":
        want = sparse.csr_matrix(a.T)
        np.testing.assert_array_equal(t.indptr.get(), want.indptr.get())
        np.testing.assert_array_equal(t.indices.get(), want.indices.get())
    x = vector(rng, 31, dtype)
    close((t @ x).get(), ref(a).T @ ref(x), dtype)


@pytest.mark.parametrize("fmt", FORMATS)
def test_conversions(fmt, rng):
    a = random_dense(rng, 17, 13, np.complex128)
    s = FORMATS[fmt](a)
    other = s.tocoo() if fmt == "csr" else s.tocsr()
    np.testing.assert_array_equal(other.toarray().get(), a)
    np.testing.assert_array_equal(sparse.csr_matrix(s).toarray().get(), a)
    np.testing.assert_array_equal(sparse.coo_matrix(s).toarray().get(), a)
    c = s.astype("complex64")
    assert c.dtype is ht.complex64
    np.testing.assert_array_equal(c.toarray().get(), a.astype(np.complex64))
    cp = s.copy()
    assert cp.data.ptr != s.data.ptr
    assert sparse.issparse(s) and not sparse.issparse(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_scaling(fmt, dtype, rng):
    a = random_dense(rng, 12, 8, dtype)
    s = FORMATS[fmt](a)
    for got, want in ((2.5 * s, 2.5 * a), (s * 3, a * 3), (s.multiply(-0.5), a * -0.5), (s / 4, a / 4),
                      (-s, -a), (s * np.float32(2), a * 2)):
        assert got.format == fmt and got.dtype.name == dtype
        close(got.toarray().get(), want, dtype)
    z = s * (1 + 2j)
    assert z.dtype.kind == "c"
    close(z.toarray().get(), a * (1 + 2j), np.result_type(dtype, np.complex64))
    np.testing.assert_array_equal(s.toarray().get(), a)                            # unchanged


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", [(0, 5), (4, 0), (0, 0), (3, 4)])
def test_empty(fmt, shape, rng):
    a = np.zeros(shape, np.float32)                                               # (3, 4): no nonzeros
    s = FORMATS[fmt](a)
    assert s.nnz == 0 and s.shape == shape
    np.testing.assert_array_equal(s.toarray().get(), a)
    np.testing.assert_array_equal(s.T.toarray().get(), a.T)
    y = s @ np.ones(shape[1], np.float32)
    assert y.shape == (shape[0],)
    np.testing.assert_array_equal(y.get(), np.zeros(shape[0]))
    c = s @ np.ones((shape[1], 3), np.float32)
    np.testing.assert_array_equal(c.get(), np.zeros((shape[0], 3)))
    if shape == (3, 4):
        full = sparse.csr_matrix(random_dense(rng, 3, 4, np.float32, 1.0))
        np.testing.assert_array_equal((full @ np.ones((4, 0), np.float32)).get(), np.zeros((3, 0)))


def test_products_follow_the_current_stream(rng):
    from hip.tensor._libs import sparse as _sparse_lib
    a = random_dense(rng, 300, 200, np.float32, density=0.05)
    s = sparse.csr_matrix(a)
    x = vector(rng, 200, np.float32)
    null = ht.current_stream()
    null.synchronize()                      # s was uploaded on the null stream; `side` does not wait for it
    side = ht.Stream(non_blocking=True)
    with side:
        dx = ht.asarray(x)
        y = s @ dx
        assert int(_sparse_lib.handle(side)) != int(_sparse_lib.handle(null))
        assert int(_sparse_lib.handle(side)) == int(_sparse_lib.handle(side))
    side.synchronize()
    close(y.get(), ref(a) @ ref(x), np.float32)


def test_scipy_round_trip_and_products(rng):
    sp = pytest.importorskip("scipy.sparse")
    a = random_dense(rng, 50, 40, np.float64, density=0.1)
    for m in (sp.csr_matrix(a), sp.coo_matrix(a), sp.csc_matrix(a)):
        for fmt, cls in FORMATS.items():
            s = cls(m)
            np.testing.assert_array_equal(s.toarray().get(), a)
            back = s.get()
            assert back.format == fmt
            np.testing.assert_array_equal(back.toarray(), a)
    s = sparse.csr_matrix(sp.csr_matrix(a))
    x = rng.standard_normal(40)
    close((s @ x).get(), sp.csr_matrix(a) @ x, np.float64)
    np.testing.assert_array_equal(s.T.get().toarray(), sp.csr_matrix(a).T.toarray())


def test_bad_input(rng):
    s = sparse.csr_matrix(random_dense(rng, 5, 4, np.float32))
    with pytest.raises(ValueError, match="not aligned"):
        s @ np.ones(5, np.float32)
    with pytest.raises(ValueError, match="not aligned"):
        s @ np.ones((3, 4), np.float32)
    with pytest.raises(TypeError, match="SpGEMM"):
        s @ s
    with pytest.raises(TypeError):
        s * np.ones((5, 4))
    with pytest.raises(TypeError, match="float32, float64"):
        s.astype("int32")
    with pytest.raises(ValueError):
        s @ 2.0
    with pytest.raises(ValueError, match="shape"):
        sparse.csr_matrix(np.ones((2, 2)), shape=(3, 3))
    with pytest.raises(ValueError, match="indptr"):
        sparse.csr_matrix((ht.ones(2), ht.asarray(np.array([0, 1], np.int32)), ht.asarray(np.array([0, 1], np.int32))),
                          shape=(2, 2))
