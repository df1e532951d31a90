"""Dask arrays of hip.tensor chunks on every GPU of this machine (needs a GPU, dask and distributed).

`hip.tensor.dask.gpu_cluster()` starts `dask.distributed` with one worker process per GPU, each
seeing only its own device; Dask schedules, hip.tensor computes. The data is made on the workers
(map_blocks), so it never crosses the host. A sum and an element-wise chain over --mib MiB of
float32 in --chunk-mib MiB chunks, and a blocked matmul from the "hip" array backend's random
numbers, each checked against NumPy on the host. The workers are spawned processes that import
this file again: nothing at its top level may start HIP (a worker's device is chosen before).

    python3 examples/hip_tensor_dask.py [--mib 512] [--chunk-mib 64] [--n 2048]
"""
import argparse
import sys

import numpy as np

import hip.tensor as ht

from _gpu import require_gpu, skip

PERIOD = 1024       # the data: element i is (i % PERIOD) / PERIOD, exact in float32


def block(block_info=None):
    """This chunk of the data, made on the worker's GPU."""
    (lo, hi), = block_info[None]["array-location"]
    return ((ht.arange(lo, hi, dtype=ht.int64) % PERIOD).astype(ht.float32) / PERIOD)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mib", type=int, default=512)
    p.add_argument("--chunk-mib", type=int, default=64)
    p.add_argument("--n", type=int, default=2048, help="matmul size")
    a = p.parse_args()
    require_gpu()
    try:
        import dask
        import dask.array as da
        import distributed
    except ImportError as e:
        skip(f"needs dask and distributed ({e})")
    import hip.tensor.dask as hd
    n, c = a.mib << 18, a.chunk_mib << 18          # float32 elements
    with hd.gpu_cluster() as cluster, distributed.Client(cluster) as client:
        x = da.map_blocks(block, chunks=((c,) * (n // c) + ((n % c,) if n % c else ()),), dtype=np.float32,
                          meta=hd.meta(np.float32))
        x = x.persist()
        distributed.wait(x)
        where = {w: len(keys) for w, keys in client.has_what().items()}
        print(f"{len(cluster.workers)} worker(s), one per GPU; chunks per worker: {sorted(where.values())}")

        host = (np.arange(n) % PERIOD).astype(np.float32) / PERIOD
        total = x.sum(dtype=np.float64).compute()
        assert isinstance(total, ht.ndarray)
        np.testing.assert_allclose(float(total.get()), host.sum(dtype=np.float64), rtol=1e-12)
        print(f"sum of {a.mib} MiB of float32: {float(total.get()):.1f}")

        chain = ((x * 2 + 1) * x - 3).sum(dtype=np.float64).compute().get()
        np.testing.assert_allclose(float(chain), ((host * 2 + 1) * host - 3).sum(dtype=np.float64), rtol=1e-9)
        print(f"sum of (x * 2 + 1) * x - 3: {float(chain):.1f}")

        with dask.config.set({"array.backend": "hip"}):
            m = da.random.random((a.n, a.n), chunks=a.n // 2).astype(np.float32)
        m = m.persist()
        prod = (m @ m.T).compute()
        host_m = m.compute().get()
        np.testing.assert_allclose(prod.get(), host_m @ host_m.T, rtol=1e-4, atol=1e-3)
        print(f"blocked matmul {a.n}² in {(a.n // 2)}² blocks matches NumPy")
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
