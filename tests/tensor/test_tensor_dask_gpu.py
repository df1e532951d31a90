"""Dask arrays of hip.tensor chunks against NumPy: element-wise chains, reductions (nan-reductions
and arg-reductions too), percentiles, blocked matmul,
tensordot and einsum, concatenation, rechunking, fancy indexing, the "hip" array backend's creation
functions and random numbers, moving between backends, and the threaded and distributed schedulers
(the chunks of a LocalCluster travel through pickling). Registration without a device:
test_tensor_dask_cpu.py."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import dask                                     # noqa: E402

import hip.tensor as ht                         # noqa: E402
import hip.tensor.dask as hd                    # noqa: E402

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(3)
A = RNG.uniform(-1, 1, (60, 48)).astype(np.float32)
B = RNG.uniform(-1, 1, (48, 36)).astype(np.float32)
V = RNG.uniform(0, 10, 1000)
NANS = A.copy()
NANS[RNG.random(A.shape) < 0.1] = np.nan
NANS[:, 7] = np.nan                 # an all-NaN column (nanmax & co. warn on it, nanargmax raises)


def _dask(a, chunks):
    return da.from_array(ht.asarray(a), chunks=chunks, asarray=False)


def _check(result, want, rtol=2e-5, atol=2e-5):
    """A computed Dask result: a hip.tensor array equal to NumPy's."""
    assert isinstance(result, ht.ndarray), type(result)
    got = result.get()
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_chunks_and_meta_are_hip_tensor():
    x = _dask(A, (16, 20))
    assert isinstance(x._meta, ht.ndarray) and x._meta.size == 0
    assert x.numblocks == (4, 3) and x.dtype == np.float32
    assert all(isinstance(b, ht.ndarray) for b in x.to_delayed().ravel() for b in [b.compute()])
    assert "hip.tensor" in repr(x) or "ndarray" in repr(x)


@pytest.mark.parametrize("name, f", [
    ("chain", lambda x: (x * 2 + 1) ** 2 - np.sin(x) / 3),
    ("ufuncs", lambda x: da.exp(x) + da.maximum(x, 0.25) - np.tanh(x)),
    ("where", lambda x: da.where(x > 0, x, -x)),
    ("transpose", lambda x: x.T + 1),
    ("broadcast", lambda x: x - x.mean(axis=0, keepdims=True)),
])
def test_elementwise(name, f):
    _check(f(_dask(A, (16, 20))).compute(), f(A))


@pytest.mark.parametrize("name, f", [
    ("sum", lambda x: x.sum()), ("sum0", lambda x: x.sum(axis=0)), ("sum1", lambda x: x.sum(axis=1, keepdims=True)),
    ("mean", lambda x: x.mean()), ("mean1", lambda x: x.mean(axis=1)),
    ("var", lambda x: x.var(axis=0)), ("std", lambda x: x.std(ddof=1)),
    ("max", lambda x: x.max(axis=1)), ("min", lambda x: x.min()), ("prod", lambda x: (x * 0.1 + 1).prod(axis=0)),
    ("any", lambda x: (x > 0.99).any(axis=1)), ("all", lambda x: (x > -2).all()),
    ("cumsum", lambda x: x.cumsum(axis=0)),
])
def test_reductions(name, f):
    _check(f(_dask(A, (16, 20))).compute(), f(A), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name, f", [
    ("nansum", lambda m, x: m.nansum(x)), ("nansum0", lambda m, x: m.nansum(x, axis=0)),
    ("nanprod1", lambda m, x: m.nanprod(x * 0.1 + 1, axis=1)),
    ("nanmean", lambda m, x: m.nanmean(x[:, 8:])), ("nanmean1", lambda m, x: m.nanmean(x, axis=1)),
    ("nanvar1", lambda m, x: m.nanvar(x, axis=1)), ("nanstd", lambda m, x: m.nanstd(x[:, :7], ddof=1)),
    ("nanmax1", lambda m, x: m.nanmax(x, axis=1)), ("nanmin", lambda m, x: m.nanmin(x)),
    ("nancumsum0", lambda m, x: m.nancumsum(x, axis=0)), ("nancumprod1", lambda m, x: m.nancumprod(x * 0.1 + 1, axis=1)),
])
def test_nan_reductions(name, f):
    _check(f(da, _dask(NANS, (16, 20))).compute(), f(np, NANS), rtol=1e-4, atol=1e-4)


def _warned(f):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = f()
    return r, [(w.category, str(w.message)) for w in rec]


@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nanmean"])
def test_nan_reductions_of_all_nan_slices_warn_as_dask_on_numpy_chunks(name):
    # Dask silences NumPy's "All-NaN slice encountered" in its nanmax/nanmin chunk and aggregate
    # functions (dask/array/reductions.py, _nanmax_skip), and nanmean never divides by an empty
    # count: over NumPy chunks as over hip.tensor chunks, the all-NaN column is NaN, with the same
    # warnings (none). NumPy's own warnings on hip.tensor arrays: test_tensor_numpy_protocols_gpu.py.
    f = getattr(da, name)
    want, want_w = _warned(lambda: f(da.from_array(NANS, chunks=(16, 20)), axis=0).compute(scheduler="sync"))
    got, got_w = _warned(lambda: f(_dask(NANS, (16, 20)), axis=0).compute(scheduler="sync"))
    _check(got, want)
    assert np.isnan(got.get()[7])
    assert [w for w in got_w if w[0] is RuntimeWarning] == [w for w in want_w if w[0] is RuntimeWarning]


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
def test_arg_reductions(name, axis):
    a = NANS[:, 8:] if name.startswith("nan") else A
    x = _dask(a, (16, 12))
    got = getattr(da, name)(x, axis=axis).compute()
    assert isinstance(got, ht.ndarray)
    np.testing.assert_array_equal(got.get(), getattr(np, name)(a, axis=axis))
    kept = getattr(da, name)(x, axis=axis, keepdims=True).compute()
    np.testing.assert_array_equal(kept.get(), getattr(np, name)(a, axis=axis, keepdims=True))


def test_nanargmax_of_an_all_nan_slice_raises():
    with pytest.raises(ValueError, match="All.NaN slice"):
        da.nanargmax(_dask(NANS, (16, 20)), axis=0).compute()


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_percentile(method, monkeypatch):
    # Dask's own (approximate) merge over chunks: the same on hip.tensor chunks as on NumPy's
    # sorted stably. The merge orders the chunks' percentiles by np.argsort, and its result
    # depends on the order of equal values: each chunk's maximum comes twice (q=100 and the 100
    # Dask appends), once with no weight, and at q=87.5 (the weights below add up to 87.5% of the
    # data exactly) the zero-weight copy first gives that maximum, the weighted one first the
    # value below it. hip.tensor's argsort is stable (as CuPy's); NumPy's default quicksort
    # leaves the order of ties unspecified (here it puts the zero-weight copy first).
    q = [0.0, 5.0, 33.3, 50.0, 87.5, 100.0]
    got = da.percentile(_dask(V, 125), q, method=method).compute()
    monkeypatch.setattr(np, "argsort", functools.partial(np.argsort, kind="stable"))
    want = da.percentile(da.from_array(V, chunks=125), q, method=method).compute()
    monkeypatch.undo()
    _check(got, want, rtol=1e-10, atol=1e-10)
    one = da.percentile(_dask(V, 1000), 50.0, method=method).compute()   # one chunk: NumPy's exactly
    np.testing.assert_allclose(one.get(), np.percentile(V, 50.0, method=method), rtol=1e-12)


def test_percentile_merge_sorts_ties_stably():
    # the call of Dask's merge that meets equal values: np.argsort of the chunks' percentiles
    # concatenated (each chunk's maximum twice), on hip.tensor NumPy's stable order
    calc_q = np.array([0.0, 0.0, 5.0, 33.3, 50.0, 87.5, 100.0, 100.0])
    vals = np.concatenate([np.percentile(V[i:i + 125], calc_q) for i in range(0, V.size, 125)])
    got = np.argsort(ht.asarray(vals))
    assert isinstance(got, ht.ndarray)
    want = np.argsort(vals, kind="stable")
    np.testing.assert_array_equal(got.get(), want)
    assert list(want[48:50]) == [54, 55]        # the tie deciding q=87.5: the weighted copy first


def test_blocked_matmul_tensordot_einsum():
    x, y = _dask(A, (16, 12)), _dask(B, (12, 10))
    _check((x @ y).compute(), A @ B, rtol=1e-4, atol=1e-4)
    _check(da.tensordot(x, y, axes=1).compute(), np.tensordot(A, B, axes=1), rtol=1e-4, atol=1e-4)
    _check(da.einsum("ij,jk->ik", x, y).compute(), np.einsum("ij,jk->ik", A, B), rtol=1e-4, atol=1e-4)
    _check(da.dot(x, y).compute(), A @ B, rtol=1e-4, atol=1e-4)


def test_concatenate_stack_rechunk_and_indexing():
    x, y = _dask(A, (16, 20)), _dask(A * 2, (30, 8))
    _check(da.concatenate([x, y], axis=0).compute(), np.concatenate([A, A * 2]))
    _check(da.stack([x, y]).rechunk((1, 7, 48)).compute(), np.stack([A, A * 2]))
    _check(x.rechunk((60, 1)).compute(), A)
    idx = np.array([0, 59, 3, 3, 17])
    _check(x[idx].compute(), A[idx])
    _check(x[:, [1, 40, 2]].compute(), A[:, [1, 40, 2]])
    _check(x[5:50:3, ::-2].compute(), A[5:50:3, ::-2])
    _check(x[x[:, 0] > 0].compute(), A[A[:, 0] > 0])


def test_numpy_backed_arrays_move_to_the_hip_backend_and_back():
    n = da.from_array(A, chunks=(16, 20))
    h = n.to_backend("hip")
    assert isinstance(h._meta, ht.ndarray)
    _check((h * 3).compute(), A * 3)
    back = h.to_backend("numpy").compute()
    assert isinstance(back, np.ndarray)
    np.testing.assert_array_equal(back, A)


def test_the_hip_backend_creates_hip_tensor_chunks():
    with dask.config.set({"array.backend": "hip"}):
        for x, want in ((da.ones((10, 7), chunks=4, dtype=np.float32), np.ones((10, 7), np.float32)),
                        (da.zeros(9, chunks=4), np.zeros(9)),
                        (da.full((3, 5), 2.5, chunks=2), np.full((3, 5), 2.5)),
                        (da.arange(3, 40, 2, chunks=5), np.arange(3, 40, 2))):
            assert isinstance(x._meta, ht.ndarray) and x._meta.size == 0
            r = x.compute()
            _check(r, want)
            assert r.dtype == want.dtype
        e = da.empty((4, 4), chunks=2)
        assert isinstance(e._meta, ht.ndarray) and isinstance(e.compute(), ht.ndarray)
        r = da.random.random((1000,), chunks=250)
        got = r.compute()
        assert isinstance(got, ht.ndarray) and got.shape == (1000,)
        g = got.get()
        assert 0 <= g.min() and g.max() < 1 and 0.4 < g.mean() < 0.6
        s = da.random.RandomState(7)
        a, b = s.normal(1.0, 2.0, size=(400,), chunks=100), da.random.RandomState(7).normal(1.0, 2.0, size=(400,), chunks=100)
        np.testing.assert_array_equal(a.compute().get(), b.compute().get())     # seeded: reproducible
    assert dask.config.get("array.backend") != "hip"


def test_percentile_chunks():
    # percentile_lookup, per chunk, against NumPy's methods
    x = ht.asarray(V)
    q = np.array([0.0, 10.0, 33.3, 50.0, 99.0, 100.0])
    for method in ("linear", "lower", "higher", "nearest", "midpoint"):
        vals, n = hd._percentile(x, q, method)
        assert n == V.size
        np.testing.assert_allclose(vals.get(), np.percentile(V, q, method=method), rtol=1e-12)


@pytest.mark.parametrize("scheduler", ["threads", "sync"])
def test_schedulers(scheduler):
    x = _dask(A, (16, 20))
    _check(((x + 1) * x).sum(axis=0).compute(scheduler=scheduler), ((A + 1) * A).sum(axis=0), rtol=1e-4, atol=1e-4)


def test_distributed_one_worker_per_gpu():
    distributed = pytest.importorskip("distributed")

    def worker_device():        # (nested: pickled by value, the workers cannot import this file)
        import os
        import hip.tensor
        return hip.tensor.get_device_id(), os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("HIP_VISIBLE_DEVICES")

    with hd.gpu_cluster() as cluster, distributed.Client(cluster) as client:
        seen = client.run(worker_device)
        assert len(seen) == ht.device_count()
        visible = sorted(v[1] if ht.platform() == "nvidia" else v[2] for v in seen.values())
        assert visible == [str(i) for i in range(ht.device_count())] and {v[0] for v in seen.values()} == {0}
        x = _dask(A, (16, 20))
        y = client.compute(((x * 2) @ _dask(B, (20, 12))).sum(axis=1)).result()
        _check(y, (A * 2 @ B).sum(axis=1), rtol=1e-4, atol=1e-4)
        with dask.config.set({"array.backend": "hip"}):
            z = da.ones((1 << 16,), chunks=1 << 13, dtype=np.float32)
        total = client.compute((z * 2).sum()).result()
        assert isinstance(total, ht.ndarray) and float(total.get()) == 2.0 * (1 << 16)
