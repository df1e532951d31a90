"""hip.tensor.sparse and hip.tensor.distributed without a GPU: their kernels compile (ROCm hiprtc
for gfx90a; NVRTC for sm_90 where the wheel is there), bad input is refused with clear
exceptions before any device work, the id channels and the type/op tables."""
from __future__ import annotations

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._kernels import compiler as C
from hip.tensor._libs import sparse as L
from hip.tensor import distributed as dist
from hip.tensor import sparse

from test_tensor_kernels_compile import _nvrtc_compile, nvrtc  # noqa: F401  (the NVRTC fixture)


def test_importing_loads_no_library():
    from conftest import run_python
    r = run_python("""
        import sys
        import hip.tensor as ht
        import hip.tensor.sparse, hip.tensor.distributed
        assert ht.sparse is hip.tensor.sparse and ht.distributed is hip.tensor.distributed
        with open("/proc/self/maps") as f:
            libs = sorted({l.split()[-1].rsplit("/", 1)[-1] for l in f if ".so" in l})
        print([n for n in libs if any(k in n for k in ("amdhip", "hipsparse", "rccl", "nccl", "cusparse"))])
        print(sorted(m for m in sys.modules if m.startswith("mpi4py")))
    """)
    assert r.returncode == 0, r.stderr
    loaded, mods = r.stdout.splitlines()[:2]
    assert loaded == "[]", loaded
    assert mods == "[]", mods                        # mpi4py is imported only when a channel needs it


def test_kernels_compile_for_gfx90a():
    code = C.compile_code_object(L.KERNELS, arch="gfx90a")
    assert len(code) > 1000
    for name in ("ht_sp_rows_of", "ht_sp_indptr_of", "ht_sp_dense_f32", "ht_sp_dense_f64"):
        assert name.encode() in code


def test_kernels_compile_with_nvrtc_for_sm90(nvrtc):  # noqa: F811
    _nvrtc_compile(nvrtc, L.KERNELS)


@pytest.mark.parametrize("make,match", [
    (lambda: sparse.csr_matrix((np.ones(3), np.array([0, 1, 5]), np.array([0, 2, 3])), shape=(2, 3)),
     "column index 5 out of range"),
    (lambda: sparse.csr_matrix((np.ones(3), np.array([0, 1, 2]), np.array([0, 2, 1, 3])), shape=(3, 3)),
     "never decrease"),
    (lambda: sparse.csr_matrix((np.ones(3), np.array([0, 1, 2]), np.array([0, 2, 3])), shape=(3, 3)),
     "indptr has 3 entries"),
    (lambda: sparse.csr_matrix((np.ones(2), np.array([0, 1, 2]), np.array([0, 2, 3])), shape=(2, 3)),
     "same length"),
    (lambda: sparse.csr_matrix((np.ones(2), np.array([0.5, 1]), np.array([0, 2, 2])), shape=(2, 3)),
     "integers"),
    (lambda: sparse.csr_matrix(np.ones(3)), "2-D"),
    (lambda: sparse.csr_matrix(np.ones((2, 2, 2))), "2-D"),
    (lambda: sparse.csr_matrix(np.ones((2, 2)), shape=(2, -1)), "non-negative"),
    (lambda: sparse.csr_matrix((np.ones(2), (np.array([0, 1]), np.array([0, 1])))), "use coo_matrix"),
    (lambda: sparse.coo_matrix((np.ones(2), np.array([0, 1]), np.array([0, 1, 2]))), "use csr_matrix"),
    (lambda: sparse.coo_matrix((np.ones(2), (np.array([0, 1]), np.array([0, -1])))), r"\[0, 2\*\*31\)"),
    (lambda: sparse.coo_matrix((np.ones(2), (np.array([0, 1]), np.array([0, 1]))), shape=(1, 2)), "outside"),
    (lambda: sparse.coo_matrix((np.ones(3), (np.array([0, 1]), np.array([0, 1])))), "one length"),
    (lambda: sparse.coo_matrix(np.array([["a"]])), "not numeric"),
])
def test_bad_construction_raises_value_errors(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_bad_dtype():
    with pytest.raises(TypeError, match="float32, float64, complex64 or complex128"):
        sparse.csr_matrix(np.ones((2, 2)), dtype="int32")
    with pytest.raises(TypeError, match="not bfloat16"):
        sparse.coo_matrix(np.ones((2, 2)), dtype=ht.bfloat16)


def test_value_dtypes():
    assert [sparse._value_dtype(d).name for d in ("bool", "int8", "uint64", "float16", "bfloat16", "float32",
                                                  "float64", "complex64", "complex128")] == \
        ["float64", "float64", "float64", "float32", "float32", "float32", "float64", "complex64", "complex128"]


def test_scipy_like_shape_mismatch():
    class ScipyLike:                                     # SciPy's duck type (SciPy is not installed here)
        shape = (2, 3)

        def tocsr(self):
            return self
        data, indices, indptr = np.ones(1), np.array([1]), np.array([0, 1, 1])
    with pytest.raises(ValueError, match="does not match the SciPy"):
        sparse.csr_matrix(ScipyLike(), shape=(3, 3))


def test_canonical_csr_sorts_columns_inside_rows():
    data, idx, ptr = sparse._canonical_csr(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 0, 1, 0], np.int32),
                                           np.array([0, 3, 3, 4], np.int32), (3, 3))
    assert idx.tolist() == [0, 1, 2, 0] and data.tolist() == [2.0, 3.0, 1.0, 4.0]


# -- distributed ------------------------------------------------------------------------------------
def test_reduction_table():
    with pytest.raises(ValueError, match="op must be one of"):
        dist._reduction(ht.float32, "mean")
    with pytest.raises(TypeError, match="complex"):
        dist._reduction(ht.complex64, "max")
    with pytest.raises(TypeError, match="bool"):
        dist._reduction(ht.bool, "sum")
    with pytest.raises(TypeError, match="int16"):
        dist._reduction(ht.int16, "sum")
    assert set(dist._TYPES) | {"int16", "uint16"} == {d for d in
                                                      ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                                       "uint32", "uint64", "float16", "bfloat16", "float32",
                                                       "float64", "complex64", "complex128")}


@pytest.mark.parametrize("uid,err", [(b"x" * 12, ValueError), ("zz", ValueError), (12, TypeError),
                                     ("ab" * 64 + "00", ValueError)])
def test_bad_unique_ids(uid, err):
    with pytest.raises(err):
        dist._as_id(uid)


def test_unique_id_as_hex():
    uid = bytes(range(128))
    assert dist._as_id(uid.hex()) == uid == dist._as_id(bytearray(uid))


@pytest.mark.parametrize("rank,size", [(2, 2), (-1, 2), (0, 0)])
def test_bad_rank_and_size(rank, size, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(ValueError, match="rank"):
        dist.init_process_group(rank, size)


def test_rank_from_the_environment(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv(dist.ENV_ID, bytes(range(128)).hex())
    assert dist._resolve(None, None, None) == (1, 4, bytes(range(128)), None)
    monkeypatch.setenv("RANK", "one")
    with pytest.raises(ValueError, match=r"\$RANK must be an integer"):
        dist._resolve(None, None, None)


def test_id_file_waits_for_rank_0(tmp_path, monkeypatch):
    path = tmp_path / "id"
    monkeypatch.setenv(dist.ENV_TIMEOUT, "0.2")
    with pytest.raises(TimeoutError, match="rank 0 writes it"):
        dist._id_through_file(str(path), 1)
    path.write_bytes(bytes(range(128)))
    assert dist._id_through_file(str(path), 1) == bytes(range(128))
