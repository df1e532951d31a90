"""hip.tensor's linear algebra against NumPy: matmul through hipBLAS (float16, bfloat16, float32,
float64, complex64, complex128) and the tiled kernel (integers, bool) over 1-d/2-d/batched and
broadcast shapes, transposed/strided/negative/stride-0 operands, empty and k = 0 products, mixed
dtypes, larger sizes; batches no one stride walks (attention's heads as views of one projection,
negative, broadcast and permuted batch dimensions): one gemm over device arrays of addresses, the
arrays kept for a loop's repeated calls and made in the graph's pool during a capture; hipBLAS
handles per stream; tensordot, vecdot, matrix_transpose; the hip.tensor.linalg namespace (norms,
diagonal, trace, outer, cross, matrix_power)."""
from __future__ import annotations

import gc
import os
import sys

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import memory as M
from hip.tensor._libs import blas as _blas

from gpu_tensor import ALL, KIND, to_device, values

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))
from _networks import count_launches  # noqa: E402

pytestmark = pytest.mark.gpu

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = [n for n in ALL if KIND[n] in "biu"]
NUMERIC = FLOATS + INTS


@pytest.fixture
def rng():
    return np.random.default_rng(17)


def data(name, shape, rng):
    """Small values: integer products stay small, float sums stay well conditioned."""
    return values(name, shape, rng, low=-1.0, high=1.0, int_low=-3, int_high=3)


def ref(a: np.ndarray, name: str) -> np.ndarray:
    """The host values NumPy computes the reference with (2-byte floats in float64)."""
    return a.astype(np.float64) if name in ("float16", "bfloat16", "float32") else a


def check_product(got: ht.ndarray, want: np.ndarray, name: str, k: int):
    """Per-dtype tolerance: the result's rounding plus a sqrt(k)-growing summation error."""
    g = got.get()
    assert g.shape == want.shape, (g.shape, want.shape)
    if KIND[name] in "biu":
        np.testing.assert_array_equal(g, want.astype(g.dtype))
        return
    eps = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 2e-6, "complex64": 2e-6,
           "float64": 1e-14, "complex128": 1e-14}[name]
    tol = 4 * eps * max(1.0, np.sqrt(k))
    np.testing.assert_allclose(g.astype(np.complex128), want.astype(np.complex128), rtol=tol, atol=tol)


SHAPES = [((5, 7), (7, 3)), ((7,), (7, 4)), ((5, 7), (7,)), ((7,), (7,)), ((2, 5, 7), (7, 3)),
          ((5, 7), (4, 7, 3)), ((2, 1, 5, 7), (3, 7, 4)), ((6, 5, 7), (6, 7, 2)), ((0, 7), (7, 3)),
          ((5, 0), (0, 3)), ((2, 0, 5, 7), (7, 3)), ((1, 1), (1, 1))]


@pytest.mark.parametrize("name", NUMERIC)
def test_matmul_shapes(name, rng):
    for sa, sb in SHAPES:
        a, b = data(name, sa, rng), data(name, sb, rng)
        got = ht.matmul(to_device(a, name), to_device(b, name))
        assert got.dtype.name == name
        check_product(got, np.matmul(ref(a, name), ref(b, name)), name, sa[-1])


A_VIEWS = [("row-major", (4, 6, 16), lambda t: t[..., :8]), ("strided-columns", (4, 6, 16), lambda t: t[..., ::2]),
           ("column-major", (4, 16, 6), lambda t: t.mT[..., :8]), ("negative", (4, 6, 16), lambda t: t[::-1, ::-1, 8:]),
           ("broadcast-batch", (4, 6, 16), lambda t: t[:1, :, :8]), ("one-row", (4, 6, 16), lambda t: t[:, 2:3, :8])]
B_VIEWS = [("contiguous", (4, 8, 12), lambda t: t), ("strided-columns", (4, 8, 12), lambda t: t[..., ::3]),
           ("column-major", (4, 12, 8), lambda t: t.mT), ("negative", (4, 8, 12), lambda t: t[:, ::-1, ::-2]),
           ("broadcast-batch", (4, 8, 12), lambda t: t[2:3]), ("one-column", (4, 8, 12), lambda t: t[..., 5:6])]


@pytest.mark.parametrize("name", NUMERIC)
def test_matmul_layouts(name, rng):
    """Operands used in place (row- or column-major, negative-free) or copied first."""
    for la, sa, fa in A_VIEWS:
        a = data(name, sa, rng)
        x = to_device(a, name)
        for lb, sb, fb in B_VIEWS:
            b = data(name, sb, rng)
            got = ht.matmul(fa(x), fb(to_device(b, name)))
            check_product(got, np.matmul(ref(fa(a), name), ref(fb(b), name)), name, 8)


def test_matmul_broadcast_batch_strides(rng):
    """Stride-0 batch operands (one strided-batched call) and batch dimensions that do not
    collapse (a call per outer index)."""
    a = data("float32", (3, 1, 5, 6), rng)
    b = data("float32", (4, 6, 2), rng)
    x, y = to_device(a, "float32"), to_device(b, "float32")
    check_product(ht.matmul(x, y), np.matmul(ref(a, "float32"), ref(b, "float32")), "float32", 6)
    c = data("complex128", (3, 4, 5, 6), rng)
    z = to_device(c, "complex128")[:, ::2]
    d = data("complex128", (2, 6, 3), rng)
    check_product(ht.matmul(z, to_device(d, "complex128")), np.matmul(c[:, ::2], d), "complex128", 6)


@pytest.mark.parametrize("d1,d2", [("int8", "float32"), ("float16", "bfloat16"), ("int32", "uint8"),
                                   ("float32", "complex128"), ("bool", "int16"), ("float16", "float32"),
                                   ("uint64", "int64")])
def test_matmul_mixed_dtypes(d1, d2, rng):
    a, b = data(d1, (3, 5), rng), data(d2, (5, 4), rng)
    got = ht.matmul(to_device(a, d1), to_device(b, d2))
    rt = ht.result_type(ht.dtype(d1), ht.dtype(d2))
    assert got.dtype == rt
    host = np.complex128 if rt.kind == "c" else np.float64
    check_product(got, np.matmul(a.astype(host), b.astype(host)), rt.name, 5)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "float16", "bfloat16", "int32"])
def test_matmul_larger(name, rng):
    a, b = data(name, (257, 300), rng), data(name, (300, 191), rng)
    check_product(ht.matmul(to_device(a, name), to_device(b, name)), np.matmul(ref(a, name), ref(b, name)), name, 300)
    a, b = data(name, (16, 64, 48), rng), data(name, (16, 48, 80), rng)
    check_product(ht.matmul(to_device(a, name), to_device(b, name)), np.matmul(ref(a, name), ref(b, name)), name, 48)


def test_matmul_integer_wraps_and_bool():
    a = np.full((2, 3), 100, np.int8)
    b = np.full((3, 2), 3, np.int8)
    np.testing.assert_array_equal(ht.matmul(ht.asarray(a), ht.asarray(b)).get(), np.matmul(a, b))
    p = np.array([[True, False], [False, False]])
    q = np.array([[False, True], [True, True]])
    np.testing.assert_array_equal(ht.matmul(ht.asarray(p), ht.asarray(q)).get(), np.matmul(p, q))


def test_matmul_refuses():
    x = ht.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError):
        ht.matmul(x, x)
    with pytest.raises(ValueError):
        ht.matmul(x, ht.asarray(np.float32(2)))
    with pytest.raises(ValueError):
        ht.matmul(ht.asarray(np.zeros((2, 3, 4))), ht.asarray(np.zeros((3, 4, 5))))
    with pytest.raises(TypeError):
        ht.matmul(x, np.zeros((4, 2)))


def test_blas_handles_per_stream(rng):
    """One handle per stream, bound once; a dead stream's handle serves the next new stream;
    a matmul on a side stream is ordered on it."""
    a = data("float32", (32, 32), rng)
    x = to_device(a, "float32")
    want = ref(a, "float32") @ ref(a, "float32")
    check_product(ht.matmul(x, x), want, "float32", 32)
    base = _blas.handles_in_use()
    null = ht.current_stream()
    assert int(_blas.handle(null)) == int(_blas.handle(null))
    s = ht.Stream(non_blocking=True)
    with s:
        y = ht.matmul(x, x)
        assert _blas.handles_in_use() == base + 1
        assert int(_blas.handle(s)) != int(_blas.handle(null))
    s.synchronize()
    check_product(y, want, "float32", 32)
    w = ht.Stream.from_handle(s.ptr)              # a second wrapper: another Stream object, no memory on it
    hw = int(_blas.handle(w))
    assert _blas.handles_in_use() == base + 2
    del w
    gc.collect()
    assert _blas.handles_in_use() == base + 1     # back to the device's pool ...
    w2 = ht.Stream.from_handle(s.ptr)
    assert int(_blas.handle(w2)) == hw            # ... and bound to the next stream


# -- batches no one stride walks --------------------------------------------------------------------------
def qkv(name, rng, b=2, s=16, h=4, d=8):
    """A (b, s, 3, h, d) projection and its q, k, v as (b, h, s, d) views (a transformer's heads),
    on the device and on the host."""
    host = data(name, (b, s, 3, h, d), rng)
    x = to_device(host, name)
    return x, [x[:, :, i].transpose(0, 2, 1, 3) for i in range(3)], [host[:, :, i].transpose(0, 2, 1, 3)
                                                                   for i in range(3)]


@pytest.mark.parametrize("name", FLOATS)
def test_matmul_attention_heads_one_gemm(name, rng):
    """q @ k.mT and p @ v on views whose samples and heads no one stride walks: one gemm each
    (its address arrays one kernel, the first time), as NumPy."""
    _, (q, k, v), (hq, hk, hv) = qkv(name, rng)
    _blas._tables.clear()
    got, kernels, gemms = count_launches(lambda: ht.matmul(q, k.mT))
    assert (kernels, gemms) == (1, 1)
    check_product(got, np.matmul(ref(hq, name), ref(hk, name).swapaxes(-1, -2)), name, 8)
    hp = data(name, (2, 4, 16, 16), rng)
    p = to_device(hp, name)
    got, kernels, gemms = count_launches(lambda: ht.matmul(p, v))
    assert (kernels, gemms) == (1, 1)
    check_product(got, np.matmul(ref(hp, name), ref(hv, name)), name, 16)


def test_matmul_attention_loop_reuses_its_address_arrays(rng):
    """A loop's calls get the allocator's same blocks, hence the same address arrays: once it has
    settled, each call is one gemm and no kernel. The transformer block's size (8 x 16 heads of
    512 x 64), bfloat16, as NumPy."""
    x, (q, k, v), (hq, hk, hv) = qkv("bfloat16", rng, b=8, s=512, h=16, d=64)
    counts = []
    for _ in range(7):
        y = None                                        # the previous output is freed first
        y, kernels, gemms = count_launches(lambda: ht.matmul(q, k.mT))
        counts.append((kernels, gemms))
    assert counts[3:] == [(0, 1)] * 4, counts
    want = np.matmul(ref(hq[:2, :4], "bfloat16"), ref(hk[:2, :4], "bfloat16").swapaxes(-1, -2))
    check_product(y[:2, :4], want, "bfloat16", 64)


# (a, b) host shapes and the views taken of them on both sides: batch dimensions that do not
# collapse, each with its own stride pattern
ODD_BATCHES = [
    ("negative-and-step", (3, 4, 5, 6), lambda t: t[::-1, ::2], (3, 2, 6, 7), lambda t: t),
    ("broadcast", (3, 1, 5, 6), lambda t: t, (4, 6, 7), lambda t: t),
    ("broadcast-negative", (3, 1, 5, 6), lambda t: t[::-1], (4, 6, 7), lambda t: t[::-1]),
    ("copied-and-permuted", (3, 4, 5, 12), lambda t: t[:, ::2, :, ::2], (2, 3, 6, 7),
     lambda t: t.transpose(1, 0, 2, 3)),
    ("three-dims", (2, 4, 3, 5, 6), lambda t: t.transpose(0, 2, 1, 3, 4), (4, 6, 7), lambda t: t),
    ("column-major", (3, 2, 6, 5), lambda t: t.transpose(1, 0, 3, 2), (2, 3, 6, 7), lambda t: t),
    ("vector", (3, 4, 5, 6), lambda t: t[:, 1:3], (6,), lambda t: t),
    ("zero-and-negative", (1, 4, 5, 6), lambda t: t[:, ::-1], (3, 1, 6, 7), lambda t: t),
    ("one-element-aligned", (3, 4, 5, 7), lambda t: t[:, 1:3, :, 1:], (3, 2, 6, 8), lambda t: t[..., 1:]),
]


@pytest.mark.parametrize("name", FLOATS)
def test_matmul_odd_batch_strides(name, rng):
    for label, sa, fa, sb, fb in ODD_BATCHES:
        a, b = data(name, sa, rng), data(name, sb, rng)
        x, y = fa(to_device(a, name)), fb(to_device(b, name))
        got, _, gemms = count_launches(lambda: ht.matmul(x, y))
        assert gemms == 1, label
        want = np.matmul(ref(fa(a), name), ref(fb(b), name))
        check_product(got, want, name, sb[-2] if len(sb) > 1 else sb[0])


def _view_numpy(t, n: int) -> np.ndarray:
    return ht.ndarray._view_of(t, t.ptr, (n,), (8,), ht.uint64, t.device_id).get()


def test_pointer_table_addresses_and_key():
    """The addresses of each operand's matrices in C order (negative strides wrap below the base);
    the same key gives the kept array without a launch, another key another array."""
    s = ht.current_stream()
    shape = (3, 4, 5)
    ops = ((1 << 40, (-600, 0, 48)), (7 << 30, (8, 24, 96)), (5 << 20, (4000, 1000, 200)))
    t, kernels, _ = count_launches(lambda: _blas.pointer_table(s, shape, ops))
    assert kernels == 1
    idx = np.indices(shape).reshape(3, -1)
    want = np.concatenate([(base + (np.asarray(st)[:, None] * idx).sum(0)).astype(np.uint64) for base, st in ops])
    np.testing.assert_array_equal(_view_numpy(t, want.size), want)
    again, kernels, _ = count_launches(lambda: _blas.pointer_table(s, shape, ops))
    assert again is t and kernels == 0
    other = _blas.pointer_table(s, shape, ops[:2])
    assert other is not t
    np.testing.assert_array_equal(_view_numpy(other, 120), want[:120])


def test_pointer_tables_evicted_by_use(rng, monkeypatch):
    """With room for two arrays, four products in turn, twice: each right (an evicted array is
    made again), two kept."""
    monkeypatch.setattr(_blas, "TABLES", 2)
    _blas._tables.clear()
    x, (q, k, v), (hq, hk, hv) = qkv("float32", rng)
    pairs = [(q, k.mT, hq, hk.swapaxes(-1, -2)), (k, q.mT, hk, hq.swapaxes(-1, -2)),
             (q, v.mT, hq, hv.swapaxes(-1, -2)), (v, k.mT, hv, hk.swapaxes(-1, -2))]
    for _ in range(2):
        for a, b, ha, hb in pairs:
            check_product(ht.matmul(a, b), np.matmul(ref(ha, "float32"), ref(hb, "float32")), "float32", 8)
    assert len(_blas._tables) == 2


def test_matmul_attention_in_a_graph_capture(rng):
    """Captured (after a warm-up on the capture's stream, as PyTorch asks): the address arrays come
    from the graph's pool and are not kept; eager work between replays (new blocks written) leaves
    the replay right; new input copied in is read."""
    x, (q, k, v), (hq, hk, hv) = qkv("float32", rng)
    _blas._tables.clear()
    s = ht.Stream(non_blocking=True)
    with s:
        ht.matmul(q, k.mT)
    s.synchronize()
    assert len(_blas._tables) == 1
    g = ht.Graph()
    before = M.memory_stats()["allocated_bytes.all.current"]
    with ht.graph(g, stream=s):
        out = ht.matmul(q, k.mT)
    assert M.memory_stats()["allocated_bytes.all.current"] == before
    assert len(_blas._tables) == 1                  # nothing kept from the capture
    junk = [ht.full((n,), -7.0, dtype=ht.float32) for n in (64, 128, 1000, 4096)]
    g.replay()
    check_product(out, np.matmul(ref(hq, "float32"), ref(hk, "float32").swapaxes(-1, -2)), "float32", 8)
    h2 = data("float32", x.shape, rng)
    x[...] = ht.asarray(h2)
    g.replay()
    ht.synchronize()
    q2, k2 = (h2[:, :, i].transpose(0, 2, 1, 3) for i in range(2))
    check_product(out, np.matmul(ref(q2, "float32"), ref(k2, "float32").swapaxes(-1, -2)), "float32", 8)
    del junk


# -- tensordot, vecdot, matrix_transpose -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "int32", "float16"])
def test_tensordot(name, rng):
    a, b = data(name, (3, 4, 5), rng), data(name, (4, 5, 2), rng)
    x, y = to_device(a, name), to_device(b, name)
    for axes in (2, 0, ([1], [0]), ([1, 2], [0, 1]), ([2, 1], [1, 0])):
        check_product(ht.tensordot(x, y, axes=axes), np.tensordot(ref(a, name), ref(b, name), axes=axes), name, 20)
    check_product(ht.tensordot(x, ht.permute_dims(y, (1, 2, 0)), axes=1),
                  np.tensordot(ref(a, name), ref(b, name).transpose(1, 2, 0), axes=1), name, 5)
    s = np.tensordot(ref(a, name)[0, 0], ref(a, name)[1, 1], axes=1)
    got = ht.tensordot(x[0, 0], x[1, 1], axes=1)
    assert got.shape == ()
    check_product(got, np.asarray(s), name, 5)
    with pytest.raises(ValueError):
        ht.tensordot(x, y, axes=([0], [0]))


@pytest.mark.parametrize("name", NUMERIC)
def test_vecdot(name, rng):
    a, b = data(name, (3, 4, 5), rng), data(name, (4, 5), rng)
    x, y = to_device(a, name), to_device(b, name)
    got = ht.vecdot(x, y)
    assert got.dtype.name == name
    want = np.vecdot(ref(a, name), ref(b, name)) if KIND[name] != "b" else np.vecdot(a, b)
    check_product(got, want, name, 5)
    check_product(ht.vecdot(x[:, ::-1, 1:], y[::-1, 1:], axis=-2),
                  np.vecdot(ref(a, name)[:, ::-1, 1:], ref(b, name)[::-1, 1:], axis=-2)
                  if KIND[name] != "b" else np.vecdot(a[:, ::-1, 1:], b[::-1, 1:], axis=-2), name, 4)
    e = ht.vecdot(to_device(data(name, (3, 0), rng), name), to_device(data(name, (3, 0), rng), name))
    np.testing.assert_array_equal(e.get(), np.zeros(3, e.get().dtype))
    with pytest.raises(ValueError):
        ht.vecdot(x, y[:, :4])


def test_vecdot_conjugates_the_first_operand():
    a = np.array([1 + 2j, 3 - 1j], np.complex64)
    b = np.array([2 - 1j, 1j], np.complex64)
    np.testing.assert_allclose(ht.vecdot(ht.asarray(a), ht.asarray(b)).get(), np.vecdot(a, b), rtol=1e-6)


def test_matrix_transpose_is_a_view(rng):
    a = data("float64", (2, 3, 4), rng)
    x = ht.asarray(a)
    t = ht.matrix_transpose(x)
    assert t.shape == (2, 4, 3) and t.ptr == x.ptr
    np.testing.assert_array_equal(t.get(), np.swapaxes(a, -1, -2))
    with pytest.raises(ValueError):
        ht.matrix_transpose(ht.asarray(a[0, 0]))


# -- hip.tensor.linalg ----------------------------------------------------------------------------------------
NORM_TOL = {"float16": 3e-3, "bfloat16": 2e-2, "float32": 1e-5, "complex64": 1e-5}


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128", "float16", "bfloat16", "int16", "uint8", "bool"])
def test_vector_and_matrix_norms(name, rng):
    a = data(name, (3, 4, 5), rng)
    x = to_device(a, name)
    h = a.astype(np.float64) if name in ("float16", "bfloat16", "float32") else a
    rt = NORM_TOL.get(name, 1e-12)
    for ord_ in (2, 1, np.inf, -np.inf, 0, 3, 0.5):
        for axis in (None, -1, (0, 2)):
            got = ht.linalg.vector_norm(x, axis=axis, ord=ord_)
            want = np.linalg.vector_norm(h, axis=axis, ord=ord_)
            if name not in ("float16", "bfloat16"):
                assert got.dtype.name == np.asarray(want).dtype.name or KIND[name] == "f", (got.dtype, want.dtype)
            np.testing.assert_allclose(got.get().astype(np.float64), want, rtol=rt, atol=rt)
    for ord_ in ("fro", 1, -1, np.inf, -np.inf):
        for keepdims in (False, True):
            got = ht.linalg.matrix_norm(x, ord=ord_, keepdims=keepdims)
            np.testing.assert_allclose(got.get().astype(np.float64),
                                       np.linalg.matrix_norm(h, ord=ord_, keepdims=keepdims), rtol=rt, atol=rt)
    for ord_ in (2, -2, "nuc"):                         # from the singular values (hipSOLVER)
        if name in ("float16", "bfloat16"):
            # NumPy's linalg refuses 2-byte floats (TypeError "array type float16 is unsupported in
            # linalg") and so do we, rather than compute in float32 behind the caller's back.
            if name == "float16":
                with pytest.raises(TypeError):
                    np.linalg.matrix_norm(a, ord=ord_)
            with pytest.raises(TypeError, match=f"matrix_norm: {name} is not supported"):
                ht.linalg.matrix_norm(x, ord=ord_)
            continue
        for keepdims in (False, True):
            got = ht.linalg.matrix_norm(x, ord=ord_, keepdims=keepdims)
            want = np.linalg.matrix_norm(a, ord=ord_, keepdims=keepdims)
            assert got.dtype.name == want.dtype.name and got.shape == want.shape, (got.dtype, got.shape, want.dtype)
            np.testing.assert_allclose(got.get().astype(np.float64), want, rtol=rt, atol=rt)


@pytest.mark.parametrize("name", ["float32", "int64", "complex128", "bool", "float16"])
def test_diagonal_trace_outer(name, rng):
    a = data(name, (2, 4, 6), rng)
    x = to_device(a, name)
    for off in (0, 2, -3, 6, -4):
        np.testing.assert_array_equal(ht.linalg.diagonal(x, offset=off).get(),
                                      np.linalg.diagonal(a, offset=off).astype(ht.linalg.diagonal(x).get().dtype))
        if KIND[name] != "b":
            np.testing.assert_allclose(ht.linalg.trace(x, offset=off).get().astype(np.complex128),
                                       np.linalg.trace(ref(a, name), offset=off), rtol=1e-2 if name == "float16" else 1e-6)
    v, w = data(name, (5,), rng), data(name, (3,), rng)
    got = ht.linalg.outer(to_device(v, name), to_device(w, name)[::-1])
    np.testing.assert_allclose(got.get().astype(np.complex128), np.outer(ref(v, name), ref(w, name)[::-1]),
                               rtol=1e-2 if name == "float16" else 1e-6)


def test_cross(rng):
    a = data("float64", (4, 1, 3), rng)
    b = data("float64", (5, 3), rng)
    np.testing.assert_allclose(ht.linalg.cross(ht.asarray(a), ht.asarray(b)).get(), np.linalg.cross(a, b), rtol=1e-12)
    c = data("int32", (3, 6), rng)
    np.testing.assert_array_equal(ht.linalg.cross(ht.asarray(c), ht.asarray(c[::-1]), axis=0).get(),
                                  np.cross(c, c[::-1], axis=0))
    with pytest.raises(ValueError):
        ht.linalg.cross(ht.asarray(a[..., :2]), ht.asarray(b[..., :2]))


@pytest.mark.parametrize("name", ["int32", "float64"])
def test_matrix_power(name, rng):
    m = data(name, (2, 4, 4), rng)
    x = to_device(m, name)
    for n in (0, 1, 2, 3, 6):
        np.testing.assert_allclose(ht.linalg.matrix_power(x, n).get(), np.linalg.matrix_power(m, n), rtol=1e-10)
    # n < 0: powers of the inverse; a diagonally dominant matrix (|off-diagonal row sums| <= 9 for
    # int32 values in [-3, 3], <= 3 for float64 ones in [-1, 1]) is safely invertible.
    w = (m + (10 if name == "int32" else 4) * np.eye(4, dtype=m.dtype)).astype(m.dtype)
    for n in (-1, -2, -3):
        got = ht.linalg.matrix_power(to_device(w, name), n)
        want = np.linalg.matrix_power(w, n)
        assert got.dtype.name == want.dtype.name == "float64", (got.dtype, want.dtype)
        np.testing.assert_allclose(got.get(), want, rtol=1e-10, atol=1e-13)
    s = np.array([[1, 2, 4], [1, 2, 4], [0, 1, 1]], m.dtype)          # exactly singular (see test_singular_raises)
    with pytest.raises(ht.linalg.LinAlgError):
        ht.linalg.matrix_power(to_device(s, name), -1)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.matrix_power(s, -1)
    with pytest.raises(ValueError):
        ht.linalg.matrix_power(x[:, :3], 2)
