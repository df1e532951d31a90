"""One rank of tests/tensor/test_tensor_distributed_gpu.py's multi-process runs (not a test module).

    RANK=r WORLD_SIZE=n [HIP_TENSOR_RCCL_ID_FILE=path | HIP_TENSOR_RCCL_ID=hex] python rccl_worker.py

Joins the group through init_process_group (the channel the environment names), runs every
collective on hip.tensor arrays, checks the results against NumPy, prints "rank R ok"."""
import sys

import numpy as np

import hip.tensor as ht
from hip.tensor import distributed as dist


def main() -> int:
    comm = dist.init_process_group()
    r, n, dev = comm.rank, comm.world_size, comm.device_id
    assert comm.device_id == r % ht.device_count(), (comm.device_id, r)
    with ht.Device(dev):
        base = np.arange(1000, dtype=np.float64)

        for dtype in ("float32", "float64", "int32", "int64", "float16", "bfloat16", "complex64"):
            x = ht.asarray(base[:64] * (r + 1), dtype=dtype)
            comm.all_reduce(x)
            want = base[:64] * (n * (n + 1) // 2)
            np.testing.assert_allclose(x.get().astype(np.complex128 if dtype == "complex64" else np.float64),
                                       want, rtol=1e-2 if dtype in ("float16", "bfloat16") else 0)

        for op, want in (("max", n - 1), ("min", 0), ("prod", np.prod(np.arange(1, n + 1)))):
            v = (r + 1) if op == "prod" else r
            x = ht.full((10,), v, dtype=ht.float32)
            comm.all_reduce(x, op=op)
            assert (x.get() == want).all(), (op, x.get(), want)
        x = ht.full((10,), float(2 * r), dtype=ht.float64)
        comm.all_reduce(x, op="avg")
        np.testing.assert_allclose(x.get(), n - 1)

        xs = ht.asarray(np.tile(base[:20] * (r + 1), (3, 1)))[:, ::2]              # non-contiguous, in place
        comm.all_reduce(xs)
        np.testing.assert_array_equal(xs.get(), np.tile(base[:20:2] * (n * (n + 1) // 2), (3, 1)))

        b = ht.asarray(base * 7 if r == n - 1 else np.zeros_like(base))
        comm.broadcast(b, root=n - 1)
        np.testing.assert_array_equal(b.get(), base * 7)

        x = ht.asarray(base * (r + 1))
        comm.reduce(x, root=0)
        np.testing.assert_array_equal(x.get(), base * (n * (n + 1) // 2) if r == 0 else base * (r + 1))

        g = comm.all_gather(ht.asarray(np.full((2, 3), r, np.int32)))
        assert g.shape == (n, 2, 3)
        np.testing.assert_array_equal(g.get(), np.arange(n, dtype=np.int32)[:, None, None] * np.ones((1, 2, 3)))
        gb = comm.all_gather(ht.asarray(np.array([r % 2 == 0, True])))                # bool: as bytes
        np.testing.assert_array_equal(gb.get(), [[i % 2 == 0, True] for i in range(n)])

        rs = comm.reduce_scatter(ht.asarray(np.arange(n * 4, dtype=np.float32).reshape(n * 2, 2) * (r + 1)))
        assert rs.shape == (2, 2)
        full = np.arange(n * 4, dtype=np.float32).reshape(n * 2, 2) * (n * (n + 1) // 2)
        np.testing.assert_array_equal(rs.get(), full[2 * r:2 * r + 2])

        if n >= 2:                                                                  # a ring of send/recv
            out = ht.zeros((5,), dtype=ht.int64)
            with dist.group():
                comm.send(ht.asarray(np.arange(5) + 100 * r), (r + 1) % n)
                comm.recv(out, (r - 1) % n)
            np.testing.assert_array_equal(out.get(), np.arange(5) + 100 * ((r - 1) % n))
            if r == 0:
                comm.send(ht.asarray(np.array([3.5, 4.5])), 1)
            elif r == 1:
                got = comm.recv(ht.zeros((2,)), 0)
                np.testing.assert_array_equal(got.get(), [3.5, 4.5])

        e = ht.zeros((0,), dtype=ht.float32)
        comm.all_reduce(e)
        assert comm.all_gather(e).shape == (n, 0)
        comm.barrier()
    comm.destroy()
    print(f"rank {r} ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
