"""hip.tensor.distributed from one process: a communicator per visible GPU (Communicator.init_all)
and an all-reduce of hip.tensor arrays issued together inside group() (needs a GPU and RCCL; with
one GPU it runs with one rank).

With one process per GPU the same calls read (launch with torchrun, or set RANK/WORLD_SIZE and
HIP_TENSOR_RCCL_ID_FILE yourself):

    comm = ht.distributed.init_process_group()
    comm.all_reduce(x)
"""
import numpy as np

import hip.tensor as ht
from hip import rccl

from _gpu import require_gpu

ndev = require_gpu(rccl)

comms = ht.distributed.Communicator.init_all(list(range(ndev)))
base = np.arange(1 << 16, dtype=np.float32)
xs = []
for c in comms:
    with ht.Device(c.device_id):
        xs.append(ht.asarray(base * (c.rank + 1)))          # rank r contributes (r + 1) * base

with ht.distributed.group():                                # one thread drives every GPU
    for c, x in zip(comms, xs):
        c.all_reduce(x)

expected = base * (ndev * (ndev + 1) // 2)
for c, x in zip(comms, xs):
    assert np.array_equal(x.get(), expected), (c.rank, x[:4].get(), expected[:4])
    c.destroy()
print(f"all_reduce of {base.size} floats over {ndev} GPU(s): every rank has the sum")
print("ok")
