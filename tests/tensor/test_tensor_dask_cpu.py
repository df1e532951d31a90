"""hip.tensor with Dask, without a device: hip.tensor imports without Dask (it is optional) and
registers with Dask where Dask is imported; the registrations (chunk type, every dispatch Dask's
backends.py registers for CuPy, sizeof); the array backend "hip" found through the entry point
that pyproject.toml declares, the way Dask finds installed backends. Computations: the GPU half,
test_tensor_dask_gpu.py."""
from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from conftest import run_python

da = pytest.importorskip("dask.array")
tomllib = pytest.importorskip("tomllib")        # (Python 3.11+)

import hip.tensor as ht                         # noqa: E402
import hip.tensor.dask as hd                    # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
X = ht.ndarray._view_of(None, 1 << 32, (4, 6), (24, 4), ht.float32, 0)     # memory never touched


def test_hip_tensor_imports_without_dask():
    r = run_python("""
        import sys
        sys.modules["dask"] = None                      # Dask not installed
        import hip.tensor as ht
        assert "hip.tensor.dask" not in sys.modules
        try:
            ht.dask
        except ImportError as e:
            print("ImportError:", e)
    """)
    assert r.returncode == 0, r.stderr
    assert "ImportError" in r.stdout and "dask" in r.stdout


def test_hip_tensor_imported_after_dask_registers_itself():
    r = run_python("""
        import sys
        import dask
        import hip.tensor as ht
        from dask.array.chunk_types import is_valid_chunk_type
        from dask.array.dispatch import concatenate_lookup
        print("hip.tensor.dask" in sys.modules, is_valid_chunk_type(ht.ndarray),
              concatenate_lookup.dispatch(ht.ndarray).__module__)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True", "hip.tensor.dask"]


def test_importing_hip_tensor_alone_leaves_dask_out():
    r = run_python("import sys, hip.tensor; print('dask' in sys.modules)")
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


def test_the_array_is_a_dask_chunk_type():
    from dask.array.chunk_types import is_valid_array_chunk, is_valid_chunk_type
    assert is_valid_chunk_type(ht.ndarray) and is_valid_array_chunk(X)
    assert ht.dask is hd


@pytest.mark.parametrize("lookup, impl", [
    ("concatenate_lookup", "_concatenate"), ("tensordot_lookup", "_tensordot"), ("einsum_lookup", "_einsum"),
    ("take_lookup", "_take"), ("empty_lookup", "_empty"), ("percentile_lookup", "_percentile"),
    ("numel_lookup", "_numel_arraylike"), ("nannumel_lookup", "_nannumel"), ("to_numpy_dispatch", "_to_numpy"),
    ("to_cupy_dispatch", "_to_cupy"),
])
def test_every_dispatch_dask_registers_for_cupy_is_registered(lookup, impl):
    import dask.array.dispatch as D
    assert getattr(D, lookup).dispatch(ht.ndarray) is getattr(hd, impl)


def test_the_dispatches_cupy_gets_are_all_here():
    # what dask/array/backends.py registers for cupy.ndarray (read from its source): each has ours
    import dask.array.backends as B
    import inspect
    import re
    src = inspect.getsource(B.register_cupy)
    cupy_lookups = set(re.findall(r"(\w+_(?:lookup|dispatch))\.register\(cupy\.ndarray", src))
    import dask.array.dispatch as D
    assert cupy_lookups and {"concatenate_lookup", "percentile_lookup", "to_numpy_dispatch"} <= cupy_lookups
    for name in cupy_lookups:
        assert ht.ndarray in getattr(D, name)._lookup, name


def test_sizeof_is_the_device_bytes_and_tokens_hash_the_content():
    from dask.sizeof import sizeof
    from dask.tokenize import normalize_token
    assert sizeof(X) == X.nbytes == 96
    assert normalize_token.dispatch(ht.ndarray) is hd._token


def test_to_hip_dispatch():
    assert hd.to_hip_dispatch.dispatch(ht.ndarray) is hd._same
    assert hd.to_hip_dispatch.dispatch(np.ndarray) is hd._from_host
    assert hd.to_hip_dispatch(X) is X


def test_importing_registers_the_backend_without_the_entry_points_metadata():
    from dask.array.backends import array_creation_dispatch
    assert isinstance(array_creation_dispatch._lookup.get("hip"), hd.HipTensorBackendEntrypoint)


def test_registering_twice_is_a_no_op():
    from dask.array.chunk_types import _HANDLED_CHUNK_TYPES
    n = _HANDLED_CHUNK_TYPES.count(ht.ndarray)
    hd.register()
    assert _HANDLED_CHUNK_TYPES.count(ht.ndarray) == n == 1


def _declared_entry_point() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["entry-points"]["dask.array.backends"]["hip"]


def test_pyproject_declares_the_backend_entry_point():
    value = _declared_entry_point()
    assert value == "hip.tensor.dask:HipTensorBackendEntrypoint"
    cls = metadata.EntryPoint("hip", value, "dask.array.backends").load()
    from dask.array.backends import ArrayBackendEntrypoint
    assert cls is hd.HipTensorBackendEntrypoint and issubclass(cls, ArrayBackendEntrypoint)
    installed = {ep.name: ep.value for ep in metadata.entry_points(group="dask.array.backends")}
    if "hip" in installed:                      # an install of this checkout made after the entry point
        assert installed["hip"] == value


def test_dask_finds_the_backend_through_installed_metadata(tmp_path, monkeypatch):
    # the metadata an install writes from pyproject.toml, on sys.path: Dask's own lookup finds it
    dist = tmp_path / "hip_bindings_entry-0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hip-bindings-entry\nVersion: 0.0\n")
    (dist / "entry_points.txt").write_text(f"[dask.array.backends]\nhip = {_declared_entry_point()}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from dask.array.backends import array_creation_dispatch
    from dask.backends import detect_entrypoints
    detect_entrypoints.cache_clear()
    monkeypatch.delitem(array_creation_dispatch._lookup, "hip", raising=False)
    try:
        backend = array_creation_dispatch.dispatch("hip")
    finally:
        detect_entrypoints.cache_clear()
    assert isinstance(backend, hd.HipTensorBackendEntrypoint)
    assert backend.to_backend_dispatch() is hd.to_hip_dispatch
    assert backend.RandomState is hd.RandomState
    with pytest.raises(NotImplementedError, match="BitGenerators"):
        backend.default_bit_generator
    import dask
    with dask.config.set({"array.backend": "hip"}):
        assert array_creation_dispatch.backend == "hip"


def test_random_state_seeds_from_dask_state_data():
    from dask.utils import random_state_data
    a, b = random_state_data(2, np.random.RandomState(0))
    assert hd.RandomState(a)._rng.seed != hd.RandomState(b)._rng.seed
    assert hd.RandomState(a)._rng.seed == hd.RandomState(a.copy())._rng.seed
    assert hd.RandomState(7)._rng.seed == 7
    assert sys.modules["hip.tensor.dask"] is hd


def test_arg_reductions_take_dasks_dict_path_for_hip_tensor_chunks():
    # Dask's arg_chunk/arg_combine try a NumPy structured array (np.empty_like with a record
    # dtype) and fall back to a dict on TypeError, as for CuPy: hip.tensor refuses before any
    # device work; the rest (np.unravel_index, np.ravel_multi_index, indexing) is in the table
    with pytest.raises(TypeError, match="no data type"):
        np.empty_like(X, shape=(1, 1), dtype=[("vals", np.float32), ("arg", np.int64)])
    from hip.tensor._api import numpy_protocols
    for f in (np.unravel_index, np.ravel_multi_index, np.nanmax, np.nanmin, np.nanargmax, np.nanargmin):
        assert f in numpy_protocols.table().functions
