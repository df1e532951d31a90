"""hip.tensor._core.memory without a GPU: PyTorch's size classes, argument checks and the statistics of
an unused device. The allocator itself (reuse, streams, OOM, no leak over 1e5 cycles) runs in
tests/tensor/test_tensor_runtime_gpu.py: without a device there is no hipMalloc to exercise."""
from __future__ import annotations

import pytest

from hip.tensor._core import memory as M
from hip.tensor._core.device import Stream

KiB, MiB = 1 << 10, 1 << 20


@pytest.mark.parametrize("nbytes,rounded", [(1, 512), (512, 512), (513, 1024), (4000, 4096), (MiB, MiB),
                                            (MiB + 1, MiB + 512)])
def test_sizes_round_up_to_512_bytes(nbytes, rounded):
    assert M._round(nbytes) == rounded


@pytest.mark.parametrize("size,segment", [
    (512, 2 * MiB), (MiB, 2 * MiB),                  # small pool: 2 MiB segments
    (MiB + 512, 20 * MiB), (10 * MiB - 512, 20 * MiB),   # 1-10 MiB share 20 MiB segments
    (10 * MiB, 10 * MiB), (11 * MiB, 12 * MiB), (100 * MiB + 512, 102 * MiB),   # larger: 2 MiB multiples
])
def test_segment_sizes_follow_pytorch(size, segment):
    assert M._segment_size(size) == segment


def test_stats_of_an_unused_device_are_zero():
    s = M.memory_stats(7)
    for k in ("allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
              "reserved_bytes.all.peak", "num_device_alloc", "num_alloc_retries", "num_ooms", "cache_hits"):
        assert s[k] == 0, k
    assert M.memory_allocated(7) == M.memory_reserved(7) == M.max_memory_allocated(7) == 0
    M.reset_peak_memory_stats(7)


def test_zero_bytes_is_a_null_pointer_without_a_device():
    null = Stream.from_handle(0, device_id=0)
    m = M.alloc(0, null)
    assert (m.ptr, m.size, m.device_id, m.stream) == (0, 0, 0, null)
    m.record_stream(Stream.from_handle(0x10, 0))   # nothing to delay
    del m


def test_bad_sizes_and_kinds_are_refused_before_any_call():
    null = Stream.from_handle(0, device_id=0)
    with pytest.raises(ValueError, match="negative"):
        M.alloc(-1, null)
    with pytest.raises(TypeError):
        M.alloc(1.5, null)
    with pytest.raises(ValueError, match="kind"):
        M.memcpy(0x1000, 0x2000, 16, "up", null)
    with pytest.raises(ValueError, match="negative"):
        M.memcpy(0x1000, 0x2000, -1, "d2d", null)
    with pytest.raises(TypeError, match=r"\.ptr"):
        M.memcpy("dst", 0x2000, 16, "d2d", null)
    M.memcpy(0x1000, 0x2000, 0, "d2d", null)        # nothing to copy: no call
    M.memset(0x1000, 0, 0, null)
    with pytest.raises(ValueError, match="negative"):
        M.alloc_pinned(-5)


def test_no_caching_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("HIP_TENSOR_NO_MEMORY_CACHING", "1")
    assert M._DeviceAllocator(5).caching is False
    monkeypatch.delenv("HIP_TENSOR_NO_MEMORY_CACHING")
    assert M._DeviceAllocator(5).caching is True
    assert M.memory_stats(9)["caching"] is True


def test_out_of_memory_error_is_a_memory_error():
    assert issubclass(M.OutOfMemoryError, MemoryError)
