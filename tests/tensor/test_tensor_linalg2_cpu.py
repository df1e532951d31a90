"""hip.tensor's hipSOLVER functions, einsum, dot/vdot/inner and the TF32 switch without a device:
bad input raises a clear Python exception before any device call (the arrays describe memory at a
fake address that is never touched), einsum's subscripts parse as NumPy's, and the switch is read
from the environment at import."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._core import dtypes as dt

from test_tensor_kernels_compile import check_hiprtc, check_nvrtc, no_disk_cache, nvrtc  # noqa: F401

BASE = 1 << 32
LA = ht.linalg


def fake(shape, dtype="float32") -> ht.ndarray:
    d = ht.dtype(dtype)
    strides = np.empty(shape, np.uint16 if d is dt.bfloat16 else d.numpy).strides
    return ht.ndarray._view_of(None, BASE, shape, strides, d, 0)


SQ = fake((3, 3))
RECT = fake((3, 4))
V3 = fake((3,))


@pytest.mark.parametrize("call,exc", [
    (lambda: LA.solve(np.eye(3), V3), TypeError),
    (lambda: LA.solve(SQ, np.ones(3)), TypeError),
    (lambda: LA.solve(RECT, V3), LA.LinAlgError),
    (lambda: LA.solve(V3, V3), LA.LinAlgError),
    (lambda: LA.solve(SQ, fake((4,))), LA.LinAlgError),
    (lambda: LA.solve(SQ, fake((4, 2))), LA.LinAlgError),
    (lambda: LA.solve(SQ, fake(())), LA.LinAlgError),
    (lambda: LA.solve(fake((3, 3), "float16"), V3), TypeError),
    (lambda: LA.solve(fake((3, 3), "bfloat16"), fake((3,), "bfloat16")), TypeError),
    (lambda: LA.solve(fake((2, 3, 3)), fake((4, 3, 1))), ValueError),
    (lambda: LA.inv(RECT), LA.LinAlgError),
    (lambda: LA.inv(V3), LA.LinAlgError),
    (lambda: LA.inv(fake((3, 3), "float16")), TypeError),
    (lambda: LA.det(RECT), LA.LinAlgError),
    (lambda: LA.det([[1.0]]), TypeError),
    (lambda: LA.slogdet(fake((2, 3, 2))), LA.LinAlgError),
    (lambda: LA.slogdet(fake((2, 2), "bfloat16")), TypeError),
    (lambda: LA.cholesky(RECT), LA.LinAlgError),
    (lambda: LA.cholesky(SQ, upper=1), TypeError),
    (lambda: LA.cholesky(fake((3, 3), "float16")), TypeError),
    (lambda: LA.qr(V3), LA.LinAlgError),
    (lambda: LA.qr(RECT, mode="raw"), ValueError),
    (lambda: LA.qr(RECT, mode="economic"), ValueError),
    (lambda: LA.svd(V3), LA.LinAlgError),
    (lambda: LA.svd(RECT, full_matrices=None), TypeError),
    (lambda: LA.svdvals(fake((3, 4), "float16")), TypeError),
    (lambda: LA.eigh(RECT), LA.LinAlgError),
    (lambda: LA.eigvalsh(fake((4,))), LA.LinAlgError),
    (lambda: LA.eigh(fake((2, 2), "bfloat16")), TypeError),
    (lambda: LA.lstsq(fake((2, 3, 4)), V3), LA.LinAlgError),
    (lambda: LA.lstsq(RECT, fake((4,))), LA.LinAlgError),
    (lambda: LA.lstsq(RECT, fake((3, 2, 2))), LA.LinAlgError),
    (lambda: LA.lstsq(RECT, V3, rcond="small"), TypeError),
    (lambda: LA.lstsq(RECT, np.ones(3)), TypeError),
    (lambda: LA.lstsq(fake((3, 4), "float16"), fake((3,), "float16")), TypeError),
    (lambda: LA.matrix_norm(fake((3, 4), "float16"), ord=-2), TypeError),
    (lambda: LA.matrix_power(fake((3, 3), "bfloat16"), -2), TypeError),
    (lambda: ht.dot(SQ, np.ones(3)), TypeError),
    (lambda: ht.dot(RECT, fake((3,))), ValueError),
    (lambda: ht.dot(fake((2, 4)), fake((2, 3, 4))), ValueError),
    (lambda: ht.inner(RECT, fake((3,))), ValueError),
    (lambda: ht.inner([1.0], V3), TypeError),
    (lambda: ht.vdot(RECT, V3), ValueError),
    (lambda: ht.vdot(RECT, np.ones(12)), TypeError),
    (lambda: LA.pinv(V3), LA.LinAlgError),
    (lambda: LA.pinv(np.eye(3)), TypeError),
    (lambda: LA.pinv(fake((3, 4), "float16")), TypeError),
    (lambda: LA.pinv(RECT, hermitian=True), LA.LinAlgError),            # eigh needs square matrices
    (lambda: LA.pinv(SQ, hermitian=1), TypeError),
    (lambda: LA.pinv(RECT, rtol="small"), TypeError),
    (lambda: LA.pinv(RECT, 1e-3, rtol=1e-3), ValueError),               # NumPy: not both
    (lambda: LA.matrix_rank(np.eye(3)), TypeError),
    (lambda: LA.matrix_rank(fake((3, 4), "bfloat16")), TypeError),
    (lambda: LA.matrix_rank(RECT, hermitian=True), LA.LinAlgError),
    (lambda: LA.matrix_rank(RECT, tol=1e-3, rtol=1e-3), ValueError),
    (lambda: LA.matrix_rank(RECT, tol="big"), TypeError),
    (lambda: LA.matrix_rank(RECT, rtol=[1e-3]), TypeError),
    (lambda: LA.eig(RECT), LA.LinAlgError),
    (lambda: LA.eigvals(np.eye(3)), TypeError),
    (lambda: LA.eig(fake((3, 3), "float16")), TypeError),
    (lambda: LA.eigvals(fake((2, 2), "bfloat16")), TypeError),
    (lambda: LA.eigvals(V3), LA.LinAlgError),
], ids=lambda v: "" if callable(v) else v.__name__)
def test_bad_input(call, exc):
    with pytest.raises(exc):
        call()


def test_matrix_norm_refuses_half_as_numpy():
    """matrix_norm 2, -2, 'nuc' of 2-byte floats: TypeError naming matrix_norm (not svdvals), as
    NumPy's linalg raises TypeError for float16."""
    for name in ("float16", "bfloat16"):
        for ord_ in (2, -2, "nuc"):
            with pytest.raises(TypeError, match=f"matrix_norm: {name} is not supported"):
                LA.matrix_norm(fake((3, 4), name), ord=ord_)
    with pytest.raises(TypeError, match="float16"):
        np.linalg.matrix_norm(np.ones((3, 4), np.float16), ord=2)


def test_pinv_matrix_rank_signatures_take_numpys_and_the_array_apis_arguments():
    """Every argument NumPy's pinv/matrix_rank and the array API's take, by the same name and kind."""
    import inspect
    for ours, theirs in ((LA.pinv, np.linalg.pinv), (LA.matrix_rank, np.linalg.matrix_rank)):
        o, t = inspect.signature(ours).parameters, inspect.signature(theirs).parameters
        for name, p in list(t.items())[1:]:
            assert name in o and o[name].kind == p.kind, (ours.__name__, name)
        assert o["rtol"].kind is inspect.Parameter.KEYWORD_ONLY and o["rtol"].default is None   # array API


def test_eig_runs_on_the_host_through_numpy(monkeypatch):
    """hipSOLVER (ROCm 6.4) has no geev: eig/eigvals copy x to the host, run NumPy's geev and copy
    back complex results of x's precision (the copies stubbed: no device here)."""
    import pathlib
    from hip.tensor._api import decompositions as D
    root = pathlib.Path(__file__).resolve().parents[2] / "build" / "rocm-sid" / "usr" / "include" / "hipsolver"
    if root.is_dir():           # the headers the bindings were generated from have no general eigensolver
        assert not [f for f in root.rglob("*.h") if "geev" in f.read_text(errors="replace").lower()]
    rng = np.random.default_rng(0)
    host = {}
    monkeypatch.setattr(ht.ndarray, "get", lambda self: host[self.dtype.name])
    monkeypatch.setattr(D, "asarray", lambda a, device=None: a)       # the copy back: the host array itself
    host["float32"] = rng.standard_normal((2, 4, 4)).astype(np.float32)
    host["float64"] = np.array([[0.0, -1.0], [1.0, 0.0]])            # a rotation: eigenvalues +-i
    host["int64"] = np.array([[2, 0], [0, 3]])                        # real eigenvalues: still complex
    host["complex64"] = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    for name, want in (("float32", np.complex64), ("float64", np.complex128), ("int64", np.complex128),
                       ("complex64", np.complex64)):
        a = host[name]
        x = fake(a.shape, name)
        w, v = LA.eig(x)
        assert isinstance(LA.eig(x), LA.EigResult) and w.dtype == v.dtype == want
        assert w.shape == a.shape[:-1] and v.shape == a.shape
        np.testing.assert_array_equal(w, np.linalg.eig(a.astype(np.result_type(a, np.float32))).eigenvalues)
        np.testing.assert_allclose(a.astype(want) @ v, v * w[..., None, :], rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(LA.eigvals(x), w)
    np.testing.assert_allclose(sorted(LA.eigvals(fake((2, 2), "float64")), key=lambda z: z.imag), [-1j, 1j])
    host["float64"] = np.array([[np.nan, 0.0], [0.0, 1.0]])
    with pytest.raises(LA.LinAlgError, match="eigvals"):
        LA.eigvals(fake((2, 2), "float64"))


def _solver_kernel_sources():
    """cholesky's zeroing of the lower triangle, and the batched calls' address arrays (hipSOLVER's
    and hipBLAS's of one operand, matmul's of three over 1 to 3 batch dimensions)."""
    from hip.tensor._api import decompositions as D
    from hip.tensor._kernels import elementwise as ek
    from hip.tensor._libs import blas as B
    out = []
    for name in ("float32", "float64", "complex64", "complex128"):
        d = ht.dtype(name)
        spec, b = ek.spec_for(D._zero_below, (dt.int64, dt.int64, d), kinds=("scalar", "scalar", "array"), ndim=0)
        out.append((f"zero_below[{name}]", D._zero_below.generate(spec, b)[0]))
    for operands, ndim in ((1, 1), (3, 1), (3, 2), (3, 3)):
        out.append((f"pointer_table[{operands}, {ndim}]", B.TABLE.source(operands, ndim)))
    return out


@pytest.mark.runtime
def test_solver_kernels_compile_with_hiprtc(no_disk_cache):  # noqa: F811
    check_hiprtc(_solver_kernel_sources())


def test_solver_kernels_compile_with_nvrtc(nvrtc):  # noqa: F811
    check_nvrtc(nvrtc, _solver_kernel_sources())


def test_linalg_error_is_numpys_kind():
    assert issubclass(LA.LinAlgError, ValueError)
    with pytest.raises(LA.LinAlgError, match="square"):
        LA.solve(RECT, V3)


@pytest.mark.parametrize("subscripts,shapes,exc,match", [
    ("ij,jk->ik", [(3, 4)], ValueError, "operand subscripts"),
    ("ij,jk->ik", [(3, 4), (5, 2)], ValueError, "sizes 4 and 5"),
    ("ijk,jk->ik", [(3, 4), (4, 2)], ValueError, "dimensions"),
    ("ii->i", [(3, 3)], NotImplementedError, "repeated"),
    ("...ij,jk->ik", [(2, 3, 4), (4, 2)], ValueError, "no '...'"),
    ("ij,jk->iik", [(3, 4), (4, 2)], ValueError, "repeat"),
    ("ij,jk->iz", [(3, 4), (4, 2)], ValueError, "no operand"),
    ("i1,1k->ik", [(3, 4), (4, 2)], ValueError, "invalid subscript"),
    ("", [], ValueError, "no operands"),
])
def test_einsum_bad_subscripts(subscripts, shapes, exc, match):
    with pytest.raises(exc, match=match):
        ht.einsum(subscripts, *[fake(s) for s in shapes])


def test_einsum_refuses_numpy_operands():
    with pytest.raises(TypeError):
        ht.einsum("ij->ji", np.ones((2, 2)))
    with pytest.raises(TypeError):
        ht.einsum(1, SQ)


@pytest.mark.parametrize("subscripts", ["ij,jk", "i,i", "ij,kj", "bij,bjk", "ij", "ba,ab", "ab,cd"])
def test_einsum_implicit_output_as_numpy(subscripts):
    """The implicit output labels (once-only labels, sorted) agree with NumPy's result shape."""
    from hip.tensor._api.einsum import _parse
    sizes = dict(zip("abcdijk", (2, 3, 4, 5, 6, 7, 8)))
    ins = subscripts.split(",")
    ops = [fake(tuple(sizes[c] for c in t)) for t in ins]
    want = np.einsum(subscripts, *[np.zeros(o.shape) for o in ops]).shape
    _, out, _ = _parse(subscripts, ops)
    assert tuple(sizes[c] for c in out) == want


def test_tf32_switch_default_and_environment():
    assert ht.backends.matmul.allow_tf32 is False
    code = "import hip.tensor as ht; print(ht.backends.matmul.allow_tf32)"
    env = dict(os.environ, HIP_TENSOR_ALLOW_TF32="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    env["HIP_TENSOR_ALLOW_TF32"] = "0"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_namespace():
    for name in ("solve", "inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh",
                 "lstsq", "matrix_norm", "matrix_power", "pinv", "matrix_rank", "eig", "eigvals", "LinAlgError"):
        assert name in LA.__all__ and callable(getattr(LA, name)), name
    for name in ("dot", "vdot", "inner", "einsum"):
        assert callable(getattr(ht, name)), name
