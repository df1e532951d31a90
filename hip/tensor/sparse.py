"""`hip.tensor.sparse`: CSR and COO matrices on the GPU, products through hipSPARSE's generic API.

    import hip.tensor as ht
    a = ht.sparse.csr_matrix(dense_or_scipy_matrix)      # or csr_matrix((data, indices, indptr), shape=)
    y = a @ x                                            # SpMV (x 1-D) or SpMM (x 2-D, or batched 3-D)
    a.T, 2.5 * a, a.toarray(), a.tocoo(), a.get()        # SciPy's names

Values are float32, float64, complex64 or complex128 (bool and integer data become float64,
float16/bfloat16 float32); indices are int32 (so nnz < 2**31), base 0. A matrix is canonical
when it is built from host data or checked (the default): row offsets start at 0, end at nnz and
never decrease, indices lie inside the shape, and within a row the column indices are sorted
(duplicates are kept and add up, as in SciPy). COO matrices keep their entries sorted by row,
then column. `check=False` takes device arrays as they are (no copy to the host), trusting them.

Conversions from dense and SciPy input run on the host (NumPy); products, the transpose (CSR:
hipsparseCsr2cscEx2; COO: through CSR), CSR <-> COO and `toarray` run on the device, on the
current stream of the matrix's device. SciPy is optional: it is duck-typed (`.tocsr()`,
`.indptr`...) and imported only by `.get()`.
"""
from __future__ import annotations

import numbers

import numpy as np

from ._api.creation import _device_id, asarray as _asarray, zeros as _zeros_array
from ._core import dtypes as _dt
from ._core.array import ndarray
from ._core.device import current_stream as _current_stream
from ._kernels.elementwise import _on_device
from ._libs import sparse as _L

__all__ = ["csr_matrix", "coo_matrix", "issparse", "isspmatrix_csr", "isspmatrix_coo"]


def _value_dtype(d) -> _dt.DType:
    """The sparse value dtype for data of dtype `d`."""
    d = _dt.dtype(d)
    if d.kind in "biu":
        return _dt.float64
    if d.name in ("float16", "bfloat16"):
        return _dt.float32
    return d


def _sparse_dtype(dtype) -> _dt.DType:
    d = _dt.dtype(dtype)
    if d.name not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"sparse matrices hold float32, float64, complex64 or complex128 values, not {d.name}")
    return d


def _shape2(shape) -> tuple[int, int]:
    try:
        m, n = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be two non-negative integers, got {shape!r}") from None
    if m < 0 or n < 0:
        raise ValueError(f"shape must be two non-negative integers, got {shape!r}")
    return m, n


def _host(x, what: str) -> np.ndarray:
    a = x.get() if isinstance(x, ndarray) else np.asarray(x)
    if a.dtype.kind in "OUSV":
        raise TypeError(f"{what}: {a.dtype} data is not numeric")
    return a


def _host_index(x, what: str) -> np.ndarray:
    a = _host(x, what)
    if a.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integers, got {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > np.iinfo(np.int32).max):
        raise ValueError(f"{what} must lie in [0, 2**31): got values from {a.min()} to {a.max()}")
    return a.astype(np.int32)


def _is_scipy_sparse(x) -> bool:
    return not isinstance(x, (_SparseBase, ndarray, np.ndarray)) and hasattr(x, "tocsr") and hasattr(x, "shape")


def _canonical_csr(data, indices, indptr, shape):
    """Checked host CSR arrays with sorted column indices inside each row."""
    m, n = shape
    if indptr.size != m + 1:
        raise ValueError(f"indptr has {indptr.size} entries; a matrix of {m} rows needs {m + 1}")
    if data.ndim != 1 or data.size != indices.size:
        raise ValueError(f"data ({data.shape}) and indices ({indices.shape}) must be 1-D of the same length")
    nnz = indices.size
    if indptr[0] != 0 or indptr[-1] != nnz or (np.diff(indptr) < 0).any():
        raise ValueError(f"indptr must start at 0, end at nnz = {nnz} and never decrease")
    if nnz and indices.max() >= n:
        raise ValueError(f"column index {indices.max()} out of range for {n} columns")
    rows = np.repeat(np.arange(m, dtype=np.int32), np.diff(indptr))
    order = np.lexsort((indices, rows))
    return data[order], indices[order], indptr


def _csr_from_dense(a: np.ndarray):
    if a.ndim != 2:
        raise ValueError(f"a sparse matrix is made from a 2-D array, got {a.ndim}-D")
    rows, cols = np.nonzero(a)                              # row-major order: sorted by row, then column
    indptr = np.zeros(a.shape[0] + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=a.shape[0]), out=indptr[1:])
    return a[rows, cols], cols.astype(np.int32), indptr


def _host_csr(arg, shape, what):
    """(data, indices, indptr, shape) on the host, canonical, from any host-side input."""
    if _is_scipy_sparse(arg):
        s = arg.tocsr()
        shape = _shape2(s.shape) if shape is None else _shape2(shape)
        if tuple(s.shape) != shape:
            raise ValueError(f"shape {shape} does not match the SciPy matrix's {tuple(s.shape)}")
        data = np.asarray(s.data)
        return _canonical_csr(data, _host_index(s.indices, "indices"), _host_index(s.indptr, "indptr"), shape) \
            + (shape,)
    a = _host(arg, what)
    if a.ndim != 2:
        raise ValueError(f"{what}: a sparse matrix is made from a 2-D array, got shape {a.shape}")
    if shape is not None and _shape2(shape) != a.shape:
        raise ValueError(f"shape {tuple(shape)} does not match the array's {a.shape}")
    return _csr_from_dense(a) + (a.shape,)


def _values_dtype(dtype, data) -> _dt.DType:
    """The dtype of a sparse matrix's values: `dtype`, else that of `data` (any array)."""
    if dtype is not None:
        return _sparse_dtype(dtype)
    return _value_dtype(data.dtype if isinstance(data, ndarray) else np.asarray(data).dtype)


def _where(device, arrays) -> int:
    """The device id: `device`, else that of the first hip.tensor array of `arrays`, else the current."""
    if device is None:
        device = next((a.device_id for a in arrays if isinstance(a, ndarray)), None)
    return _device_id(device)


def _upload(host: np.ndarray, d: _dt.DType, device_id: int) -> ndarray:
    return _asarray(host, dtype=d, device=device_id)


def _stream(device_id: int):
    return _current_stream(device_id)


def _empty(shape, d: _dt.DType, device_id: int) -> ndarray:
    return ndarray._empty(tuple(shape), d, device_id)


def _zeros(shape, d: _dt.DType, device_id: int) -> ndarray:
    return _zeros_array(shape, dtype=d, device=device_id)


def _device_array(x, what: str, device_id: int | None, dtype=None) -> ndarray:
    """A contiguous 1-D ht array of `x` (kept as is when it already is one)."""
    a = _asarray(x, dtype=dtype, device=device_id)
    if a.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {a.shape}")
    return a if a.flags.c_contiguous else a.copy()


class _SparseBase:
    """What CSR and COO share: shape, dtype, nnz, device, products and scaling."""

    format = ""
    _index_names: tuple[str, str] = ("", "")     # the two int32 index arrays of the format
    ndim = 2
    __array_ufunc__ = None      # NumPy operands defer to ours: ndarray @ A -> A.__rmatmul__, no object arrays

    def __init__(self, arg, shape=None, dtype=None, *, device=None, copy=False, check=True):
        if isinstance(arg, _SparseBase):
            self._set_from_sparse(arg, dtype, copy)
        elif isinstance(arg, tuple):
            self._set_from_arrays(arg, shape, dtype, device, check)     # the format's own arrays
        else:
            data, indices, indptr, shape = _host_csr(arg, shape, type(self).__name__)
            self._set_from_csr(data, indices, indptr, shape, _values_dtype(dtype, data), _where(device, (arg,)))

    def _set(self, data, index0, index1, shape) -> None:
        _sparse_dtype(data.dtype)
        self.data, self._shape = data, tuple(shape)
        setattr(self, self._index_names[0], index0)
        setattr(self, self._index_names[1], index1)

    @classmethod
    def _make(cls, data, index0, index1, shape):
        a = object.__new__(cls)
        a._set(data, index0, index1, shape)
        return a

    def _indices(self) -> tuple[ndarray, ndarray]:
        return tuple(getattr(self, n) for n in self._index_names)

    def _like(self, data):
        """The same pattern (index arrays copied) with `data`."""
        return self._make(data, *(i.copy() for i in self._indices()), self.shape)

    def _make_like(self, data):
        """The same pattern (index arrays shared) with `data`."""
        return self._make(data, *self._indices(), self.shape)

    def _set_from_sparse(self, arg, dtype, copy) -> None:
        src = getattr(arg, "to" + self.format)()
        if dtype is not None and _sparse_dtype(dtype) is not src.dtype:
            src = src.astype(dtype)
        elif copy or src is arg:
            src = src.copy()
        self._set(src.data, *src._indices(), src.shape)

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    @property
    def dtype(self) -> _dt.DType:
        return self.data.dtype

    @property
    def nnz(self) -> int:
        return self.data.size

    @property
    def size(self) -> int:
        return self.nnz

    @property
    def device(self):
        return self.data.device

    def __repr__(self) -> str:
        return (f"<{self.shape[0]}x{self.shape[1]} sparse matrix of type {self.dtype.name} with {self.nnz} "
                f"stored elements in {'Compressed Sparse Row' if self.format == 'csr' else 'COOrdinate'} "
                f"format on device {self.data.device_id}>")

    def __len__(self):
        raise TypeError("sparse matrix length is ambiguous; use .nnz or .shape[0]")

    def __bool__(self):
        if self.shape == (1, 1):
            return self.nnz != 0
        raise ValueError("the truth value of a sparse matrix with more than one element is ambiguous")

    def todense(self) -> ndarray:
        """The dense matrix (a hip.tensor ndarray; SciPy's returns np.matrix)."""
        return self.toarray()

    def get(self, stream=None):
        """A SciPy sparse matrix of the same format with the values copied to the host."""
        import scipy.sparse
        if self.format == "csr":
            return scipy.sparse.csr_matrix((self.data.get(stream), self.indices.get(stream), self.indptr.get(stream)),
                                           shape=self.shape)
        return scipy.sparse.coo_matrix((self.data.get(stream), (self.row.get(stream), self.col.get(stream))),
                                       shape=self.shape)

    # -- scaling ---------------------------------------------------------------------------------
    def multiply(self, other):
        """Element-wise product with a scalar (a sparse matrix of the same format)."""
        if isinstance(other, ndarray) and other.ndim == 0:
            other = other.get()[()]
        if isinstance(other, np.ndarray) and other.ndim == 0:
            other = other[()]
        if isinstance(other, (bool, np.bool_)) or not isinstance(other, (numbers.Number, np.number)):
            raise TypeError(f"sparse matrices multiply element-wise by a scalar only, not {type(other).__name__}")
        return self._with_data(self.data * other)

    def __mul__(self, other):
        try:
            return self.multiply(other)
        except TypeError:
            return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, (bool, np.bool_)) or not isinstance(other, (numbers.Number, np.number)):
            return NotImplemented
        return self._with_data(self.data / other)

    def __neg__(self):
        return self._with_data(-self.data)

    def _with_data(self, data: ndarray):
        d = _value_dtype(data.dtype)
        if d is not data.dtype:
            data = data.astype(d)
        return self._like(data)

    def astype(self, dtype):
        """A copy with values of `dtype` (float32, float64, complex64, complex128)."""
        return self._like(self.data.astype(_sparse_dtype(dtype)))

    def copy(self):
        return self._like(self.data.copy())

    # -- products --------------------------------------------------------------------------------
    def dot(self, other):
        return self @ other

    def __matmul__(self, other):
        if isinstance(other, _SparseBase):
            raise TypeError("sparse @ sparse (SpGEMM) is not supported: convert one operand with .toarray()")
        if isinstance(other, (numbers.Number, np.number)):
            raise ValueError("matmul: a scalar operand is not allowed, use *")
        dev = self.data.device_id
        x = _asarray(other, device=dev)
        m, n = self.shape
        if x.ndim not in (1, 2, 3) or x.shape[-2 if x.ndim > 1 else 0] != n:
            raise ValueError(f"matmul: shapes {self.shape} and {x.shape} are not aligned "
                             f"(a vector of {n}, an {n} x k matrix or a batch of them is needed)")
        d = _value_dtype(_dt.result_type(self.dtype, x.dtype))
        a = self if d is self.dtype else self._make_like(self.data.astype(d))
        out_shape = (m,) if x.ndim == 1 else (m, x.shape[-1]) if x.ndim == 2 else (x.shape[0], m, x.shape[-1])
        if self.nnz == 0 or x.size == 0 or m == 0:
            return _zeros(out_shape, d, dev)
        if x.ndim == 3:                       # a batch is one SpMM: A [X_0 ... X_b-1], columns side by side
            b, k = x.shape[0], x.shape[2]
            x = x.transpose(1, 0, 2).astype(d).reshape(n, b * k)
        # the dense operands are C-contiguous and 16-byte aligned (cuSPARSE's generic API wants
        # aligned values; fresh allocations are)
        if x.dtype is not d or not x.flags.c_contiguous or x.ptr % 16:
            x = x.astype(d)
        out = _empty((m,) if x.ndim == 1 else (m, x.shape[1]), d, dev)
        if x.ndim == 2 and a.format == "coo":
            a = a.tocsr()                     # as CuPy does: row-major SpMM is CSR's well-trodden path
        with _on_device(dev):
            (_L.spmv if x.ndim == 1 else _L.spmm)(a, x, out, _stream(dev))
        if len(out_shape) == 3:
            out = out.reshape(m, b, k).transpose(1, 0, 2).copy()
        return out

    def __rmatmul__(self, other):
        """other @ A = (A^T other^T)^T for a vector or a matrix `other`."""
        if isinstance(other, (numbers.Number, np.number)):
            raise ValueError("matmul: a scalar operand is not allowed, use *")
        x = _asarray(other, device=self.data.device_id)
        if x.ndim == 1:
            return self.T @ x
        if x.ndim == 2:
            return (self.T @ x.T).T
        raise ValueError(f"matmul: a {x.ndim}-D dense operand on the left of a sparse matrix is not supported")


class csr_matrix(_SparseBase):
    """Compressed Sparse Row matrix: `indptr` (m + 1 int32 row offsets), `indices` (int32 column
    of each stored value), `data`, all hip.tensor arrays.

    csr_matrix(dense)                        a 2-D hip.tensor/NumPy array (zeros are dropped)
    csr_matrix(scipy_matrix)                 any SciPy sparse matrix or array (its .tocsr())
    csr_matrix(coo_or_csr)                   a hip.tensor sparse matrix (converted on the device)
    csr_matrix((data, indices, indptr), shape=(m, n))   NumPy or hip.tensor arrays
    """

    format = "csr"
    _index_names = ("indices", "indptr")

    def _set_from_arrays(self, arg: tuple, shape, dtype, device, check) -> None:
        if len(arg) != 3:
            raise ValueError("csr_matrix takes (data, indices, indptr); for (data, (row, col)) use coo_matrix")
        data, indices, indptr = arg
        if shape is None:
            ip, ix = _host_index(indptr, "indptr"), _host_index(indices, "indices")
            shape = (ip.size - 1, int(ix.max()) + 1 if ix.size else 0)
        shape = _shape2(shape)
        d = _values_dtype(dtype, data)
        if check or not all(isinstance(a, ndarray) for a in arg):
            csr = _canonical_csr(_host(data, "data"), _host_index(indices, "indices"), _host_index(indptr, "indptr"),
                                 shape)
            self._set_from_csr(*csr, shape, d, _where(device, arg))
            return
        dev = _where(device, arg)
        self._set(_device_array(data, "data", dev, d), _device_array(indices, "indices", dev, _dt.int32),
                  _device_array(indptr, "indptr", dev, _dt.int32), shape)
        if self.indptr.size != shape[0] + 1 or self.indices.size != self.data.size:
            raise ValueError("indptr needs shape[0] + 1 entries and indices as many as data")

    def _set_from_csr(self, data, indices, indptr, shape, d: _dt.DType, dev: int) -> None:
        self._set(_upload(data, d, dev), _upload(indices, _dt.int32, dev), _upload(indptr, _dt.int32, dev), shape)

    def tocsr(self, copy=False) -> "csr_matrix":
        return self.copy() if copy else self

    def tocoo(self, copy=False) -> "coo_matrix":
        dev = self.data.device_id
        row = _empty((self.nnz,), _dt.int32, dev)
        if self.nnz:
            _L.rows_of(self.indptr, row, self.shape[0], dev, _stream(dev))
        data, col = (self.data.copy(), self.indices.copy()) if copy else (self.data, self.indices)
        return coo_matrix._make(data, row, col, self.shape)

    def toarray(self) -> ndarray:
        """The dense matrix (C order, a hip.tensor ndarray)."""
        dev = self.data.device_id
        out = _zeros(self.shape, self.dtype, dev)
        if self.nnz and out.size:
            _L.csr_to_dense(self, out, dev, _stream(dev))
        return out

    def transpose(self) -> "csr_matrix":
        """A^T as a CSR matrix (hipsparseCsr2cscEx2: A's CSC arrays are A^T's CSR arrays)."""
        m, n = self.shape
        dev = self.data.device_id
        if self.nnz == 0:
            return csr_matrix._make(_empty((0,), self.dtype, dev), _empty((0,), _dt.int32, dev),
                                    _zeros((n + 1,), _dt.int32, dev), (n, m))
        indptr, indices, data = (_empty((n + 1,), _dt.int32, dev), _empty((self.nnz,), _dt.int32, dev),
                                 _empty((self.nnz,), self.dtype, dev))
        with _on_device(dev):
            _L.csr2csc(self, indptr, indices, data, _stream(dev))
        return csr_matrix._make(data, indices, indptr, (n, m))

    @property
    def T(self) -> "csr_matrix":
        return self.transpose()


class coo_matrix(_SparseBase):
    """COOrdinate matrix: `row`, `col` (int32) and `data`, hip.tensor arrays, sorted by row then
    column (duplicates add up).

    coo_matrix(dense) / coo_matrix(scipy_matrix) / coo_matrix(sparse)
    coo_matrix((data, (row, col)), shape=(m, n))   NumPy or hip.tensor arrays, in any order
    """

    format = "coo"
    _index_names = ("row", "col")

    def _set_from_arrays(self, arg: tuple, shape, dtype, device, check) -> None:
        if not (len(arg) == 2 and isinstance(arg[1], tuple) and len(arg[1]) == 2):
            raise ValueError("coo_matrix takes (data, (row, col)); for (data, indices, indptr) use csr_matrix")
        data, (row, col) = arg
        arrays = (data, row, col)
        d = _values_dtype(dtype, data)
        if not check and all(isinstance(a, ndarray) for a in arrays):
            if shape is None:
                raise ValueError("coo_matrix(..., check=False) needs shape")
            dev = _where(device, arrays)
            self._set(_device_array(data, "data", dev, d), _device_array(row, "row", dev, _dt.int32),
                      _device_array(col, "col", dev, _dt.int32), _shape2(shape))
            if not self.row.size == self.col.size == self.data.size:
                raise ValueError("data, row and col must have the same length")
            return
        hd, hr, hc = _host(data, "data"), _host_index(row, "row"), _host_index(col, "col")
        if not hd.ndim == 1 or not hr.size == hc.size == hd.size:
            raise ValueError(f"data, row and col must be 1-D of one length, got {hd.shape}, {hr.shape}, {hc.shape}")
        if shape is None:
            shape = (int(hr.max()) + 1 if hr.size else 0, int(hc.max()) + 1 if hc.size else 0)
        shape = _shape2(shape)
        if hr.size and (hr.max() >= shape[0] or hc.max() >= shape[1]):
            raise ValueError(f"an index lies outside the shape {shape}")
        order = np.lexsort((hc, hr))
        dev = _where(device, arrays)
        self._set(_upload(hd[order], d, dev), _upload(hr[order], _dt.int32, dev), _upload(hc[order], _dt.int32, dev),
                  shape)

    def _set_from_csr(self, data, indices, indptr, shape, d: _dt.DType, dev: int) -> None:
        row = np.repeat(np.arange(shape[0], dtype=np.int32), np.diff(indptr))
        self._set(_upload(data, d, dev), _upload(row, _dt.int32, dev), _upload(indices, _dt.int32, dev), shape)

    def tocoo(self, copy=False) -> "coo_matrix":
        return self.copy() if copy else self

    def tocsr(self, copy=False) -> "csr_matrix":
        dev = self.data.device_id
        indptr = _empty((self.shape[0] + 1,), _dt.int32, dev)
        _L.indptr_of(self.row, indptr, self.nnz, self.shape[0], dev, _stream(dev))
        data, col = (self.data.copy(), self.col.copy()) if copy else (self.data, self.col)
        return csr_matrix._make(data, col, indptr, self.shape)

    def toarray(self) -> ndarray:
        return self.tocsr().toarray()

    def transpose(self) -> "coo_matrix":
        """A^T, sorted by row again (through CSR's transpose)."""
        return self.tocsr().T.tocoo()

    @property
    def T(self) -> "coo_matrix":
        return self.transpose()


def issparse(x) -> bool:
    return isinstance(x, _SparseBase)


def isspmatrix_csr(x) -> bool:
    return isinstance(x, csr_matrix)


def isspmatrix_coo(x) -> bool:
    return isinstance(x, coo_matrix)
