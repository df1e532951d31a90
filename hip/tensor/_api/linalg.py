"""The array API's linear algebra functions of the main namespace (2023.12): matmul, tensordot,
vecdot, matrix_transpose; and the linalg extension's diagonal (a view, which the factorizations use).

matmul: NumPy's rules (1-d operands gain and lose a dimension, batch dimensions broadcast), dtype
`result_type(x1, x2)`. Floating and complex dtypes go to hipBLAS (`_libs.blas`): row-major C = A B is
column-major C^T = B^T A^T, so B is BLAS's first operand; each operand is used in place when its
matrices are row- or column-major with a positive leading dimension (transposed views included),
else copied; the batch is one call (`gemm_batches`): strided-batched where its dimensions collapse
to one stride, else over device arrays of the matrices' addresses (any strides: negative, zero,
views such as attention's heads of a fused projection). One product of two matrices goes to
hipBLASLt instead where `_libs.blaslt.prefer` says it is faster (`ht.backends.matmul.use_hipblaslt`)
and hipBLASLt takes it. Integer and bool dtypes use a 16x16 shared-memory tiled kernel that reads any strides
(wrap-around arithmetic as NumPy; bool: or of ands). NumPy's dot, inner (through tensordot) and
vdot (through vecdot) complete the main namespace; einsum is in `_api.einsum`.
"""
from __future__ import annotations

import itertools
import operator

import numpy as np

from .. import backends
from .._core import dtypes as _dt
from .._core.array import ndarray, register
from .._core.device import current_stream
from .._core.plans import PlanCache, layout
from .._core.shapes import broadcast_shapes, broadcast_strides, c_strides, collapse, normalize_axis, prod
from .._kernels.elementwise import _on_device
from .._kernels.reduction import ReductionKernel
from .._kernels.template import TemplateKernel, dims, launch_grid
from .._libs import blas as B
from .._libs import blaslt as LT
from .creation import _memset0
from .elementwise import math_dtype, multiply
from .manipulation import permute_dims, reshape

__all__ = ["matmul", "tensordot", "vecdot", "matrix_transpose", "dot", "vdot", "inner"]

_INT_MAX = 2 ** 31 - 1


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


def _numeric(name, *dts):
    for d in dts:
        if d.kind not in "biufc":
            raise TypeError(f"{name} is not defined for {d.name}")


# -- the tiled kernel (integers, bool) -------------------------------------------------------------------------
TILE = 16


def _tiled_source(d: _dt.DType, bn: int):
    T = d.ctype
    name = f"ht_matmul_tiled_{d.name}_{bn}"
    src = f"""
extern "C" __global__ void {name}(const char* __restrict__ A, const char* __restrict__ B, {T}* C,
        long long M, long long N, long long K, long long sam, long long sak, long long sbk, long long sbn,
        ht_dims<{bn}> bshape, ht_dims<{bn}> bsa, ht_dims<{bn}> bsb, long long nbatch, long long tiles_m) {{
    typedef {T} T;
    __shared__ T As[{TILE}][{TILE} + 1];
    __shared__ T Bs[{TILE}][{TILE} + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long col = (long long)blockIdx.x * {TILE} + tx;
    for (long long t = blockIdx.y; t < nbatch * tiles_m; t += gridDim.y) {{
        const long long b = t / tiles_m, row = (t - b * tiles_m) * {TILE} + ty;
        const long long oa = ht_offset<{bn}>(b, bshape, bsa), ob = ht_offset<{bn}>(b, bshape, bsb);
        T acc = T(0);
        for (long long k0 = 0; k0 < K; k0 += {TILE}) {{
            As[ty][tx] = (row < M && k0 + tx < K) ? ht_at<T>(A, oa + row * sam + (k0 + tx) * sak) : T(0);
            Bs[ty][tx] = (k0 + ty < K && col < N) ? ht_at<T>(B, ob + (k0 + ty) * sbk + col * sbn) : T(0);
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < {TILE}; ++kk) acc = ht_add(acc, ht_mul(As[ty][kk], Bs[kk][tx]));
            __syncthreads();
        }}
        if (row < M && col < N) C[(b * M + row) * N + col] = acc;
    }}
}}
"""
    return src, name


TILED = TemplateKernel("ht_matmul_tiled", _tiled_source)


def _tiled(a: ndarray, b: ndarray, out: ndarray, batch) -> None:
    m, k = a.shape[-2:]
    n = b.shape[-1]
    sa = broadcast_strides(a.shape[:-2], a.strides[:-2], batch)
    sb = broadcast_strides(b.shape[:-2], b.strides[:-2], batch)
    bshape, (sa, sb) = collapse(batch, [sa, sb])
    if not bshape:
        bshape, sa, sb = (1,), (0,), (0,)
    nbatch = prod(batch)
    tiles_m = -(-m // TILE)
    dev = out.device_id
    fn = TILED.function(dev, out.dtype, len(bshape))
    grid = (-(-n // TILE), min(nbatch * tiles_m, 65535), 1)
    launch_grid(fn, grid, (TILE, TILE, 1),
                [a, b, out, m, n, k, a.strides[-2], a.strides[-1], b.strides[-2], b.strides[-1],
                 dims(bshape), dims(sa), dims(sb), nbatch, tiles_m], dev)


# -- hipBLAS ---------------------------------------------------------------------------------------------------
def blas_layout(rows: int, cols: int, rs: int, cs: int, itemsize: int):
    """How BLAS (column-major) can read a rows x cols matrix with byte strides (rs, cs):
    ('N', ld) when it is row-major (BLAS sees its transpose), ('T', ld) when column-major, None
    when neither (negative, zero or overlapping strides: the caller copies)."""
    if rs % itemsize or cs % itemsize:
        return None
    rs //= itemsize
    cs //= itemsize
    if (cols == 1 or cs == 1) and (rows == 1 or rs >= cols):
        ld = rs if rows > 1 else cols
        return ("N", max(ld, cols, 1)) if ld <= _INT_MAX else None
    if (rows == 1 or rs == 1) and (cols == 1 or cs >= rows):
        ld = cs if cols > 1 else rows
        return ("T", max(ld, rows, 1)) if ld <= _INT_MAX else None
    return None


def _blas_operand(x: ndarray, rows: int, cols: int):
    lay = _blas_layout_of(x, rows, cols)
    if lay is None or any(s % x.itemsize for s in x.strides[:-2]):
        x = x.copy()
        lay = _blas_layout_of(x, rows, cols)
    return x, lay


def gemm_batches(batch, strides):
    """How hipBLAS walks a batch of products whose operands have these byte strides over `batch`
    (broadcast: 0 where repeated): (shape, strides, arrays) with the batch collapsed to the fewest
    dimensions (at least one). arrays False: one strided-batched call per index of all dimensions
    but the last (one call when they collapse to one stride, or when the batch is past hipBLAS's
    32-bit count); True: one call over device arrays of the matrices' addresses."""
    shape, strides = collapse(batch, strides)
    if not shape:
        shape, strides = (1,), [(0,) for _ in strides]
    return shape, strides, len(shape) > 1 and prod(shape) <= _INT_MAX


def _blas(a: ndarray, b: ndarray, out: ndarray, batch) -> tuple:
    """out = a @ b over `batch` through hipBLAS (out's matrices C-contiguous; its batch strides any);
    returns (the operands as hipBLAS read them (copies where it cannot read one in place), the
    `_gemm_layout` it ran)."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if max(m, n, k) > _INT_MAX:
        raise ValueError(f"matmul: dimensions ({m}, {k}) x ({k}, {n}) exceed hipBLAS's 32-bit sizes")
    a, b = _blas_operand(a, m, k)[0], _blas_operand(b, k, n)[0]
    how = _gemm_layout(a, b, batch, out.strides[:-2], out.itemsize)
    _gemm(a.ptr, b.ptr, out, how)
    return a, b, how


def _gemm_layout(a: ndarray, b: ndarray, batch, out_strides, isz: int) -> tuple:
    """How hipBLAS runs out = a @ b for operands it reads in place (`_blas_operand`'s), out's batch
    strides `out_strides`: (m, n, k, B^T and A^T transposed, ldb, lda, batch shape, A's, B's and
    C's batch strides, whether over address arrays, the count of products)."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    (opa, lda), (opb, ldb) = _blas_layout_of(a, m, k), _blas_layout_of(b, k, n)
    sa = broadcast_strides(a.shape[:-2], a.strides[:-2], batch)
    sb = broadcast_strides(b.shape[:-2], b.strides[:-2], batch)
    bshape, (sa, sb, sc), arrays = gemm_batches(batch, [sa, sb, out_strides])
    if bshape == (1,):
        sc = (m * n * isz,)             # one product: C's stride as a batch of it would have
    return m, n, k, opb == "T", opa == "T", ldb, lda, bshape, sa, sb, sc, arrays, prod(bshape)


def _blas_layout_of(x: ndarray, rows: int, cols: int):
    return blas_layout(rows, cols, x.strides[-2], x.strides[-1], x.itemsize)


def _gemm(a: int, b: int, out: ndarray, how: tuple) -> None:
    """out (C-contiguous) = A @ B, A and B at addresses a and b, through `_gemm_layout`."""
    m, n, k, tb, ta, ldb, lda, bshape, sa, sb, sc, arrays, nb = how
    d, dev, c = out._dtype, out._device_id, out._ptr
    isz = d.itemsize
    with _on_device(dev):
        stream = current_stream(dev)
        # C^T (n x m, column-major, ldc n) = op(B^T) op(A^T)
        if arrays:
            table = B.table(stream, bshape, ((b, sb), (a, sa), (c, sc)), nb)
            B.gemm_batched(stream, d, tb, ta, n, m, k, table.ptr, ldb, 0,
                           table.ptr + 8 * nb, lda, 0, table.ptr + 16 * nb, n, 0, nb, arrays=True)
            return
        outer, inner = bshape[:-1], bshape[-1]
        if not outer and inner == 1 and backends.matmul.use_hipblaslt and LT.prefer(d, m, n, k) \
                and LT.gemm(stream, d, tb, ta, n, m, k, b, ldb, a, lda, c, n):
            return
        if not outer and inner <= _INT_MAX:                  # one strided-batched call
            B.gemm_batched(stream, d, tb, ta, n, m, k, b, ldb, sb[-1] // isz, a, lda, sa[-1] // isz,
                           c, n, sc[-1] // isz, inner)
            return
        for idx in itertools.product(*[range(e) for e in outer]):
            oa = sum(i * s for i, s in zip(idx, sa))
            ob = sum(i * s for i, s in zip(idx, sb))
            oc = sum(i * s for i, s in zip(idx, sc))
            for start in range(0, inner, _INT_MAX):          # batch counts are 32-bit too
                cnt = min(inner - start, _INT_MAX)
                B.gemm_batched(stream, d, tb, ta, n, m, k,
                               b + ob + start * sb[-1], ldb, sb[-1] // isz,
                               a + oa + start * sa[-1], lda, sa[-1] // isz,
                               c + oc + start * sc[-1], n, sc[-1] // isz, cnt)


# -- matmul ----------------------------------------------------------------------------------------------------
# (operands' shapes, strides, dtypes, devices) -> (result dtype, device, out's shape, the result's
# shape and strides as a view of out or None, `_gemm_layout`): float and complex products whose
# operands hipBLAS reads in place, the checks passed
_plans = PlanCache()


def matmul(x1, x2, /) -> ndarray:
    """Matrix product with NumPy's rules for 1-d operands and broadcast batch dimensions."""
    key = None
    if type(x1) is ndarray and type(x2) is ndarray:
        key = (layout(x1), layout(x2))
        plan = _plans.get(key)
        if plan is not None:
            d, dev, shape, view, how = plan
            out = ndarray._empty(shape, d, dev)
            _gemm(x1._ptr, x2._ptr, out, how)
            return out if view is None else out._view(out._ptr, *view)
    _need_array(x1, "matmul")
    _need_array(x2, "matmul")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul: 0-d operands are not allowed (use multiply)")
    if x1.device_id != x2.device_id:
        raise ValueError(f"matmul: arrays on different devices ({x1.device_id}, {x2.device_id})")
    d = _dt.result_type(x1.dtype, x2.dtype)
    _numeric("matmul", d)
    a = x1 if x1.ndim > 1 else x1._view(x1.ptr, (1,) + x1.shape, (0,) + x1.strides)
    b = x2 if x2.ndim > 1 else x2._view(x2.ptr, x2.shape + (1,), x2.strides + (0,))
    m, k = a.shape[-2:]
    k2, n = b.shape[-2:]
    if k != k2:
        raise ValueError(f"matmul: the contracted dimensions differ: {x1.shape} @ {x2.shape} ({k} != {k2})")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dev = x1.device_id
    out = ndarray._empty(batch + (m, n), d, dev)
    shape = batch + ((m,) if x1.ndim > 1 else ()) + ((n,) if x2.ndim > 1 else ())
    if out.size:
        if k == 0:
            _memset0(out)
        else:
            a0, b0 = a, b
            a = a.astype(d, copy=False)
            b = b.astype(d, copy=False)
            if d.kind in "fc":
                a, b, how = _blas(a, b, out, batch)
                if key is not None and a is a0 and b is b0:        # read in place: no cast, no copy
                    view = None if shape == out.shape else (shape, c_strides(shape, d.itemsize))
                    _plans.put(key, (d, dev, out.shape, view, how))
            else:
                _tiled(a, b, out, batch)
    return out if shape == out.shape else reshape(out, shape)


def matrix_transpose(x, /) -> ndarray:
    """A view of x with its last two axes swapped."""
    _need_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return x.mT


def diagonal(x, /, *, offset: int = 0) -> ndarray:
    """A view of the `offset` diagonal of the last two axes (the diagonal is the last axis)."""
    _need_array(x, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal needs at least 2 dimensions, got {x.ndim}")
    k = operator.index(offset)
    m, n = x.shape[-2:]
    s0, s1 = x.strides[-2:]
    if k >= 0:
        length, ptr = min(m, n - k), x.ptr + k * s1
    else:
        length, ptr = min(m + k, n), x.ptr - k * s0
    length = max(0, length)
    return x._view(ptr if length else x.ptr, x.shape[:-2] + (length,), x.strides[:-2] + (s0 + s1,))


def tensordot(x1, x2, /, *, axes=2) -> ndarray:
    """Sum of products over `axes` (an int N: the last N of x1 with the first N of x2; or two
    sequences of axes), as one matmul of the permuted, reshaped operands."""
    _need_array(x1, "tensordot")
    _need_array(x2, "tensordot")
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        nax = operator.index(axes)
        if nax < 0:
            raise ValueError(f"tensordot: axes must be non-negative, got {nax}")
        if nax > x1.ndim or nax > x2.ndim:
            raise ValueError(f"tensordot: axes={nax} exceeds the operands' dimensions ({x1.ndim}, {x2.ndim})")
        a1 = list(range(x1.ndim - nax, x1.ndim))
        a2 = list(range(nax))
    else:
        try:
            s1, s2 = axes
        except (TypeError, ValueError):
            raise TypeError("tensordot: axes must be an int or a pair of sequences of axes") from None
        s1 = [s1] if isinstance(s1, (int, np.integer)) else list(s1)
        s2 = [s2] if isinstance(s2, (int, np.integer)) else list(s2)
        if len(s1) != len(s2):
            raise ValueError(f"tensordot: {len(s1)} axes of x1 against {len(s2)} axes of x2")
        a1 = [normalize_axis(a, x1.ndim) for a in s1]
        a2 = [normalize_axis(a, x2.ndim) for a in s2]
        if len(set(a1)) != len(a1) or len(set(a2)) != len(a2):
            raise ValueError("tensordot: repeated axis")
    for i, j in zip(a1, a2):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(f"tensordot: shape mismatch on contracted axes: {x1.shape}[{i}] != {x2.shape}[{j}]")
    free1 = [i for i in range(x1.ndim) if i not in a1]
    free2 = [i for i in range(x2.ndim) if i not in a2]
    K = prod(x1.shape[i] for i in a1)
    f1 = tuple(x1.shape[i] for i in free1)
    f2 = tuple(x2.shape[i] for i in free2)
    A = reshape(permute_dims(x1, free1 + a1), (prod(f1), K))
    Bm = reshape(permute_dims(x2, a2 + free2), (K, prod(f2)))
    return reshape(matmul(A, Bm), f1 + f2)


_vecdot_k = ReductionKernel("X1 x1, X2 x2", "Y y", "ht_mul(ht_conj(ht_cast<A>(x1)), ht_cast<A>(x2))",
                            "ht_add(a, b)", "y = ht_cast<Y>(a)", "0", "ht_vecdot", reduce_type="A")


def _vector_axis(name: str, x1, x2, axis, size: int | None = None) -> tuple[tuple, int]:
    """(the broadcast shape, `axis` of it) for products of the vectors along `axis` of two operands:
    both reach that axis, with one length (`size` where given)."""
    shape = broadcast_shapes(x1.shape, x2.shape)
    if not shape:
        raise ValueError(f"{name} needs at least 1-d operands")
    ax = normalize_axis(axis, len(shape))
    n = shape[ax] if size is None else size
    for x in (x1, x2):
        i = ax - (len(shape) - x.ndim)
        if i < 0 or x.shape[i] != n:
            need = "one length" if size is None else f"length {size}"
            raise ValueError(f"{name}: operands of shapes {x1.shape} and {x2.shape} need {need} along axis {axis}")
    return shape, ax


def vecdot(x1, x2, /, *, axis=-1) -> ndarray:
    """Dot products along `axis` of the broadcast operands, conjugating x1 (complex)."""
    _need_array(x1, "vecdot")
    _need_array(x2, "vecdot")
    d = _dt.result_type(x1.dtype, x2.dtype)
    _numeric("vecdot", d)
    _, ax = _vector_axis("vecdot", x1, x2, axis)
    return _vecdot_k(x1, x2, axis=ax, _bindings={"A": math_dtype(d), "Y": d})


def dot(a, b, /) -> ndarray:
    """NumPy's dot: a product for a 0-d operand, else the sum over a's last axis and b's
    second-to-last (its only one when 1-d)."""
    _need_array(a, "dot")
    _need_array(b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def inner(a, b, /) -> ndarray:
    """NumPy's inner: the sum over the last axes of a and b (no conjugation); 0-d: a product."""
    _need_array(a, "inner")
    _need_array(b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def vdot(a, b, /) -> ndarray:
    """NumPy's vdot: the dot product of the flattened arrays, conjugating a (complex); a 0-d array."""
    _need_array(a, "vdot")
    _need_array(b, "vdot")
    if a.size != b.size:
        raise ValueError(f"vdot: arrays of {a.size} and {b.size} elements")
    return vecdot(reshape(a, (a.size,)), reshape(b, (b.size,)))


# ndarray's x @ y
register(matmul=matmul)
