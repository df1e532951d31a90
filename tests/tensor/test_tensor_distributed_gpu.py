"""hip.tensor.distributed on the GPUs of one machine: one process driving every GPU
(Communicator.init_all, calls inside group()), one-rank groups, and two processes (one per GPU)
bootstrapped through an id file and through $HIP_TENSOR_RCCL_ID (tests/tensor/rccl_worker.py checks
every collective against NumPy in each rank). Tests that need 2 GPUs skip with fewer."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hip.tensor as ht
from hip import rccl
from hip.tensor import distributed as dist

from gpu_util import require_library

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("rccl_worker.py")


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(rccl)


def need(n: int) -> int:
    have = ht.device_count()
    if have < n:
        pytest.skip(f"needs {n} GPUs, {have} visible")
    return have


@pytest.fixture(scope="module")
def comms():
    need(2)
    cs = dist.Communicator.init_all([0, 1])
    yield cs
    for c in cs:
        c.destroy()


def on(dev, host, dtype=None):
    with ht.Device(dev):
        return ht.asarray(host, dtype=dtype)


def test_unique_id_is_bytes():
    uid = dist.get_unique_id()
    assert isinstance(uid, bytes) and len(uid) == dist.UNIQUE_ID_BYTES and any(uid)
    assert dist.get_unique_id() != uid


def test_one_rank_group():
    comm = dist.init_process_group(0, 1, device=0)
    try:
        assert (comm.rank, comm.world_size, comm.device_id) == (0, 1, 0)
        x = ht.asarray(np.arange(10, dtype=np.float32))
        assert comm.all_reduce(x) is x
        np.testing.assert_array_equal(x.get(), np.arange(10))
        g = comm.all_gather(x)
        assert g.shape == (1, 10)
        np.testing.assert_array_equal(g.get()[0], np.arange(10))
        np.testing.assert_array_equal(comm.reduce_scatter(x, op="max").get(), np.arange(10))
    finally:
        comm.destroy()
    assert "destroyed" in repr(comm)
    with pytest.raises(RuntimeError, match="destroyed"):
        comm.all_reduce(x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "float16", "bfloat16",
                                   "complex64", "complex128"])
def test_all_reduce_sum_in_group(comms, dtype):
    base = np.arange(300) % 7
    xs = [on(d, base * (d + 1), dtype) for d in (0, 1)]
    with dist.group():
        for c, x in zip(comms, xs):
            c.all_reduce(x)
    for x in xs:
        np.testing.assert_array_equal(x.get().astype(np.complex128), base * 3)


@pytest.mark.parametrize("op,want", [("sum", 1), ("prod", 0), ("max", 1), ("min", 0), ("avg", 0.5)])
def test_all_reduce_ops(comms, op, want):
    xs = [on(d, np.full(50, float(d), np.float64)) for d in (0, 1)]
    with dist.group():
        for c, x in zip(comms, xs):
            c.all_reduce(x, op=op)
    for x in xs:
        np.testing.assert_array_equal(x.get(), want)


def test_bool_max_min(comms):
    xs = [on(d, np.array([d == 0, True, False])) for d in (0, 1)]
    with dist.group():
        for c, x in zip(comms, xs):
            c.all_reduce(x, op="max")
    for x in xs:
        np.testing.assert_array_equal(x.get(), [True, True, False])


def test_non_contiguous_in_place_inside_a_group(comms):
    host = np.arange(60, dtype=np.float32).reshape(6, 10)
    bases = [on(d, host * (d + 1)) for d in (0, 1)]
    with dist.group():
        for c, b in zip(comms, bases):
            c.all_reduce(b[::2, 1::3])                      # written back once the group has ended
    for d, b in enumerate(bases):
        want = host * (d + 1)
        want[::2, 1::3] = host[::2, 1::3] * 3               # the rest of the base is untouched
        np.testing.assert_array_equal(b.get(), want)


def test_broadcast_reduce_all_gather_reduce_scatter(comms):
    payload = np.random.default_rng(5).standard_normal(1000)
    bs = [on(d, payload if d == 1 else np.zeros(1000)) for d in (0, 1)]
    with dist.group():
        for c, x in zip(comms, bs):
            c.broadcast(x, root=1)
    for x in bs:
        np.testing.assert_array_equal(x.get(), payload)

    rs = [on(d, np.arange(8.0) * (d + 1)) for d in (0, 1)]
    with dist.group():
        for c, x in zip(comms, rs):
            c.reduce(x, root=0)
    np.testing.assert_array_equal(rs[0].get(), np.arange(8.0) * 3)
    np.testing.assert_array_equal(rs[1].get(), np.arange(8.0) * 2)

    with dist.group():
        gs = [c.all_gather(on(d, np.full((2, 2), d, np.int16))) for d, c in enumerate(comms)]   # int16: bytes
    for g in gs:
        assert g.shape == (2, 2, 2) and g.dtype is ht.int16
        np.testing.assert_array_equal(g.get(), [np.zeros((2, 2)), np.ones((2, 2))])

    src = np.arange(12, dtype=np.float32).reshape(4, 3)
    with dist.group():
        outs = [c.reduce_scatter(on(d, src * (d + 1))[:, :], op="sum") for d, c in enumerate(comms)]
    for d, o in enumerate(outs):
        np.testing.assert_array_equal(o.get(), (src * 3)[2 * d:2 * d + 2])


def test_send_recv_in_group(comms):
    a = on(0, np.arange(6, dtype=np.float64))
    b = on(1, np.zeros(6))
    with dist.group():
        comms[0].send(a, 1)
        comms[1].recv(b, 0)
    np.testing.assert_array_equal(b.get(), np.arange(6))


def test_empty_arrays(comms):
    xs = [on(d, np.zeros(0, np.float32)) for d in (0, 1)]
    with dist.group():
        for c, x in zip(comms, xs):
            c.all_reduce(x)
            assert c.all_gather(x).shape == (2, 0)


def test_bad_input(comms):
    c0 = comms[0]
    with pytest.raises(TypeError, match="ndarray"):
        c0.all_reduce(np.ones(3))
    with pytest.raises(ValueError, match="device 1"):
        c0.all_reduce(on(1, np.ones(3)))
    with pytest.raises(ValueError, match="op must be"):
        c0.all_reduce(on(0, np.ones(3)), op="mean")
    with pytest.raises(TypeError, match="complex"):
        c0.all_reduce(on(0, np.ones(3, np.complex64)), op="max")
    with pytest.raises(TypeError, match="int16"):
        c0.all_reduce(on(0, np.ones(3, np.int16)))
    with pytest.raises(ValueError, match="root"):
        c0.broadcast(on(0, np.ones(3)), root=2)
    with pytest.raises(ValueError, match="first axis"):
        c0.reduce_scatter(on(0, np.ones(3)))
    with pytest.raises(ValueError, match="peer"):
        c0.send(on(0, np.ones(3)), 5)
    with pytest.raises(ValueError, match="out"):
        c0.all_gather(on(0, np.ones(3)), out=on(0, np.ones((2, 4))))


def run_ranks(tmp_path, env_of, n=2, timeout=240):
    """Start n worker processes (rank r's env from env_of(r)); every one must print 'rank r ok'."""
    procs = []
    for r in range(n):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(n), LOCAL_RANK=str(r),
                   PYTHONPATH=str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))
        env.pop(dist.ENV_ID, None)
        env.pop(dist.ENV_ID_FILE, None)
        env.update(env_of(r))
        procs.append(subprocess.Popen([sys.executable, str(WORKER)], cwd=str(ROOT), env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for r, (p, out) in enumerate(zip(procs, outs)):
        assert p.returncode == 0 and f"rank {r} ok" in out, f"rank {r} exited {p.returncode}:\n{out[-4000:]}"


def test_two_processes_id_file(tmp_path):
    need(2)
    path = str(tmp_path / "rccl.id")
    run_ranks(tmp_path, lambda r: {dist.ENV_ID_FILE: path})


def test_two_processes_id_env(tmp_path):
    need(2)
    uid = dist.get_unique_id().hex()
    run_ranks(tmp_path, lambda r: {dist.ENV_ID: uid})


def test_two_processes_mpi4py(tmp_path):
    """No rank, size or id in the environment: under `mpiexec -n 2` with mpi4py, rank and size come
    from COMM_WORLD and rank 0's unique id reaches rank 1 by an MPI broadcast."""
    need(2)
    pytest.importorskip("mpi4py")
    import shutil
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("mpi4py is installed but no mpiexec is on PATH")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", dist.ENV_ID, dist.ENV_ID_FILE):
        env.pop(k, None)
    r = subprocess.run([mpiexec, "-n", "2", sys.executable, str(WORKER)], cwd=str(ROOT), env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=240)
    assert r.returncode == 0 and "rank 0 ok" in r.stdout and "rank 1 ok" in r.stdout, r.stdout[-4000:]
