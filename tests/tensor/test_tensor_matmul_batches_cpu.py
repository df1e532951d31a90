"""matmul's batch plan without a device (`_api.linalg.gemm_batches`): which batch layouts hipBLAS
runs as one strided-batched call, which as one call over device arrays of the matrices' addresses
(attention's heads as views of one projection, broadcast, negative and permuted batches), and
which as a loop of strided-batched calls (a batch past hipBLAS's 32-bit count)."""
from __future__ import annotations

import numpy as np
import pytest

from hip.tensor._api.linalg import _INT_MAX, gemm_batches


def batch_strides(a: np.ndarray, batch) -> tuple:
    """The byte strides of a's matrices over `batch` (0 where broadcast), as matmul gives them."""
    from hip.tensor._core.shapes import broadcast_strides
    return broadcast_strides(a.shape[:-2], a.strides[:-2], batch)


def plan(a: np.ndarray, b: np.ndarray):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.empty(batch + (a.shape[-2], b.shape[-1]), a.dtype)
    return gemm_batches(batch, [batch_strides(a, batch), batch_strides(b, batch), out.strides[:-2]])


def projection(b=8, s=512, h=16, d=64, dtype=np.float16):
    """q, k, v as (b, h, s, d) views of a (b, s, 3, h, d) projection (a transformer's heads)."""
    qkv = np.empty((b, s, 3, h, d), dtype)
    return [qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3)]


def test_attention_heads_are_one_call_over_address_arrays():
    q, k, v = projection()
    shape, strides, arrays = plan(q, k.swapaxes(-1, -2))
    assert arrays and shape == (8, 16)
    assert strides[0] == strides[1] == (512 * 3 * 16 * 64 * 2, 64 * 2)
    assert strides[2] == (16 * 512 * 512 * 2, 512 * 512 * 2)
    p = np.empty((8, 16, 512, 512), np.float16)
    shape, strides, arrays = plan(p, v)
    assert arrays and shape == (8, 16) and strides[0] == (16 * 512 * 512 * 2, 512 * 512 * 2)


def test_heads_of_contiguous_tensors_are_one_strided_call():
    q = np.empty((8, 16, 512, 64), np.float32)
    k = np.empty((8, 16, 64, 512), np.float32)
    assert plan(q, k) == ((128,), [(512 * 64 * 4,), (64 * 512 * 4,), (512 * 512 * 4,)], False)
    # one sample's heads of the projection walk with one stride: one call, as before
    q1, k1, _ = projection(b=1)
    shape, _, arrays = plan(q1, k1.swapaxes(-1, -2))
    assert shape == (16,) and not arrays


@pytest.mark.parametrize("a_shape,a_view,b_shape,b_view,want_shape,want_arrays", [
    ((6, 5, 7), lambda t: t, (7, 3), lambda t: t, (6,), False),                     # b broadcast: stride 0
    ((2, 3, 5, 7), lambda t: t, (7, 3), lambda t: t, (6,), False),                  # both batch dims of b 0
    ((1, 4, 5, 7), lambda t: t, (4, 7, 3), lambda t: t, (4,), False),               # size 1 dropped
    ((4, 3, 5, 7), lambda t: t[::-1, ::-1], (7, 3), lambda t: t, (12,), False),     # reversed whole: one stride
    ((3, 1, 5, 7), lambda t: t, (4, 7, 3), lambda t: t, (3, 4), True),              # broadcast across each other
    ((4, 3, 5, 7), lambda t: t[::-1], (7, 3), lambda t: t, (4, 3), True),           # one dim reversed
    ((3, 4, 5, 7), lambda t: t[:, 1:3], (3, 2, 7, 3), lambda t: t, (3, 2), True),   # a slice of the heads
    ((2, 4, 3, 5, 7), lambda t: t.transpose(0, 2, 1, 3, 4), (4, 7, 3), lambda t: t, (2, 3, 4), True),
    ((5, 7), lambda t: t, (7, 3), lambda t: t, (1,), False),                        # no batch
])
def test_which_batches_need_address_arrays(a_shape, a_view, b_shape, b_view, want_shape, want_arrays):
    a, b = a_view(np.empty(a_shape, np.float32)), b_view(np.empty(b_shape, np.float32))
    shape, strides, arrays = plan(a, b)
    assert (shape, arrays) == (want_shape, want_arrays)
    assert len(strides) == 3 and all(len(s) == len(shape) for s in strides)


def test_a_batch_past_hipblas_count_is_a_loop_of_strided_calls():
    # the batch's count is hipBLAS's int: more matrices than that go as calls per outer index
    batch = (3, _INT_MAX)
    shape, _, arrays = gemm_batches(batch, [(8, 16), (0, 16), (16 * _INT_MAX, 16)])
    assert shape == batch and not arrays
    shape, _, arrays = gemm_batches((3, _INT_MAX // 3), [(8, 16), (0, 16), (16 * (_INT_MAX // 3), 16)])
    assert shape == (3, _INT_MAX // 3) and arrays
