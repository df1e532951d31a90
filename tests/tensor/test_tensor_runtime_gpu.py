"""hip.tensor's runtime substrate on a GPU: devices, streams and events; the caching allocator
(reuse on the same stream at once, on other streams only after the free-time event, record_stream,
OOM retry, empty_cache, no growth over 1e5 cycles); the pinned pool; compile -> load -> launch with
every argument kind; the kernel cache across processes; DLPack and CAI against our own capsules
and, where installed, PyTorch and CuPy (real peers), with the stream handshakes.

A "spin" kernel keeps a stream busy for tens of milliseconds, so that what must wait for it is
observed while it runs (a Python step takes microseconds)."""
from __future__ import annotations

import ctypes
import gc
import json
import math
import time
import tracemalloc

import numpy as np
import pytest

import hip
from conftest import run_python
from hip.tensor._kernels import compiler as C
from hip.tensor._core import device as D, interop as I, memory as M

pytestmark = pytest.mark.gpu

MiB = 1 << 20
SPIN_CYCLES = 100_000_000      # ~50-100 ms at 1-2 GHz

# No #include <hip/hip_runtime.h>: hiprtc provides it implicitly (ROCm 5.2's cannot even find it),
# NVRTC has these built in.
SOURCE = r'''
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fill_i32(int* out, int value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

extern "C" __global__ void args(signed char c, short s, int i, long long ll, unsigned long long u, float f,
                                double d, bool b, float2 z, double2 w, unsigned char uc, long long* oi, double* od) {
    oi[0] = c; oi[1] = s; oi[2] = i; oi[3] = ll; oi[4] = (long long)u; oi[5] = b ? 1 : 0; oi[6] = uc;
    od[0] = f; od[1] = d; od[2] = z.x; od[3] = z.y; od[4] = w.x; od[5] = w.y;
}

extern "C" __global__ void iota2d(int* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = y * 1000 + x;
}

extern "C" __global__ void reverse_block(float* x) {
    extern __shared__ float tile[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    tile[t] = x[base + t];
    __syncthreads();
    x[base + t] = tile[blockDim.x - 1 - t];
}

extern "C" __global__ void empty() { }

template <typename T>
__global__ void fill(T* out, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}
'''
NAMES = ("fill<float>", "fill<double>")


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        d = tmp_path_factory.mktemp("kernel-cache")
        mp.setenv("HIP_TENSOR_CACHE_DIR", str(d))
        yield d


@pytest.fixture(scope="module")
def mod(cache_dir):
    return C.compile_module(SOURCE, (), NAMES)


@pytest.fixture
def streams():
    s1, s2 = D.Stream(), D.Stream()
    yield s1, s2
    s1.synchronize()
    s2.synchronize()


def to_device(a: np.ndarray, stream=None) -> M.MemoryPointer:
    a = np.ascontiguousarray(a)
    m = M.alloc(a.nbytes, stream)
    M.memcpy(m, a.ctypes.data, a.nbytes, "h2d", stream)
    (stream or D.current_stream()).synchronize()
    return m


def to_host(m, shape, dtype, stream=None) -> np.ndarray:
    out = np.empty(shape, dtype)
    M.memcpy(out.ctypes.data, m, out.nbytes, "d2h", stream)
    (stream or D.current_stream()).synchronize()
    return out


def run_python_here(code: str, env: dict) -> str:
    """Run code in a fresh interpreter (same environment plus `env`); return its stdout."""
    r = run_python(code, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1]


def spin(mod, stream, cycles=SPIN_CYCLES):
    mod.get_function("spin").launch(1, 1, (cycles,), 0, stream)


# -- devices, streams, events ---------------------------------------------------------------------
def test_device_properties(props):
    d = D.Device()
    raw = props.gcnArchName
    raw = bytes(raw).split(b"\0", 1)[0].decode() if not isinstance(raw, str) else raw
    assert d.gcn_arch_name == raw and d.arch == raw.split(":")[0] == d.compute_capability
    if D.platform() == "nvidia":
        assert d.arch.startswith("sm_") and d.warp_size == 32
    else:
        assert d.arch.startswith("gfx") and d.warp_size in (32, 64)
    free, total = d.mem_info()
    assert 0 < free <= total and abs(total - d.total_memory) <= total // 20
    assert d.name and d.multiprocessor_count > 0 and 0 < d.max_threads_per_block <= 1024
    assert D.device_count() >= 1 and D.is_available()


def test_device_context_restores():
    start = D.get_device_id()
    with D.Device(0) as d:
        assert D.get_device_id() == 0 and d.id == 0
        with D.Device(D.device_count() - 1):
            assert D.get_device_id() == D.device_count() - 1
        assert D.get_device_id() == 0
    assert D.get_device_id() == start
    with pytest.raises(ValueError, match="does not exist"):
        with D.Device(D.device_count()):
            pass


def test_current_stream_and_null_stream():
    null = D.current_stream()
    assert null is D.Stream.null is D.null_stream() and null.ptr == 0 and null.handle is None
    s = D.Stream(non_blocking=True)
    assert s.ptr != 0 and s.handle is not None and s.device_id == D.get_device_id()
    with s:
        assert D.current_stream() is s
        inner = D.Stream()
        with inner:
            assert D.current_stream() is inner
        assert D.current_stream() is s
    assert D.current_stream() is null
    s.synchronize()
    assert s.query() is True


def test_events_time_and_order(mod, streams):
    s1, s2 = streams
    start, end = D.Event(), D.Event()
    start.record(s1)
    spin(mod, s1)
    end.record(s1)
    assert end.query() is False and s1.query() is False          # still spinning
    assert start.elapsed_time(end) > 1.0                          # ms; waits for `end`
    assert end.query() is True and s1.query() is True
    with pytest.raises(ValueError, match="timing"):
        D.Event(timing=False).record(s1).elapsed_time(end)


def test_wait_event_orders_two_streams(mod, streams):
    s1, s2 = streams
    n = 1 << 16
    m = M.alloc(n * 4, s1)
    M.memset(m, 0, n * 4, s1)
    spin(mod, s1)
    mod.get_function("fill_i32").launch(math.ceil(n / 256), 256, (m, np.int32(7), np.int32(n)), 0, s1)
    s2.wait_event(s1.record())
    host = M.alloc_pinned(n * 4)
    M.memcpy(host, m, n * 4, "d2h", s2)                           # ordered after the fill
    s2.synchronize()
    assert (host.numpy("int32") == 7).all()


# -- the caching allocator ------------------------------------------------------------------------
@pytest.fixture
def clean():
    """A fresh allocator for the device during the test (exact statistics, nothing cached by
    other tests); memory allocated before keeps returning to the allocator it came from."""
    gc.collect()
    dev = D.get_device_id()
    old = M._allocators.get(dev)
    fresh = M._allocators[dev] = M._DeviceAllocator(dev)
    yield fresh.stats()
    gc.collect()
    D.synchronize()
    fresh.empty_cache()
    if old is None:
        M._allocators.pop(dev, None)
    else:
        M._allocators[dev] = old


def test_rounding_pools_and_statistics(clean):
    a = M.alloc(1)
    assert a.ptr % 512 == 0 and a.size == 1
    assert M.memory_allocated() == 512
    assert M.memory_reserved() == 2 * MiB                         # a small segment
    b = M.alloc(3 * MiB)                                          # 1-10 MiB: a 20 MiB segment
    assert M.memory_reserved() == 22 * MiB
    c = M.alloc(25 * MiB)                                         # >= 10 MiB: rounded up to 2 MiB
    assert M.memory_reserved() == 48 * MiB
    d = M.alloc(11 * MiB)                                         # from the 17 MiB left of b's segment
    assert M.memory_reserved() == 48 * MiB
    s = M.memory_stats()
    assert s["num_device_alloc"] == 3 and s["allocation.all.current"] == 4 and s["cache_hits"] == 1
    # 25 MiB takes its whole 26 MiB segment (1 MiB left is too little to split off a large block)
    assert M.memory_allocated() == 512 + 3 * MiB + 26 * MiB + 11 * MiB == M.max_memory_allocated()
    assert s["requested_bytes.all.current"] == 1 + 3 * MiB + 25 * MiB + 11 * MiB
    del a, b, c, d
    assert M.memory_allocated() == 0 and M.memory_reserved() == 48 * MiB    # cached
    M.reset_peak_memory_stats()
    assert M.max_memory_allocated() == 0 and M.max_memory_reserved() == 48 * MiB
    M.empty_cache()
    assert M.memory_reserved() == 0
    assert M.memory_stats()["num_device_free"] == 3


def test_same_stream_reuses_at_once_without_sync(mod, streams, clean):
    s1, _ = streams
    m = M.alloc(4096, s1)
    p = m.ptr
    spin(mod, s1)
    del m
    hits = M.memory_stats()["cache_hits"]
    m2 = M.alloc(4096, s1)
    assert s1.query() is False                                    # no synchronization happened
    assert m2.ptr == p and M.memory_stats()["cache_hits"] == hits + 1


def test_other_streams_wait_for_the_free_event(mod, streams, clean):
    s1, s2 = streams
    m = M.alloc(12 * MiB, s1)                                     # a segment of its own, no remainder
    p = m.ptr
    spin(mod, s1)
    del m
    allocs = M.memory_stats()["num_device_alloc"]
    m2 = M.alloc(12 * MiB, s2)
    assert s1.query() is False
    assert m2.ptr != p                                            # s1 is still using p's block
    assert M.memory_stats()["num_device_alloc"] == allocs + 1
    s1.synchronize()                                              # the free-time event completed
    m3 = M.alloc(12 * MiB, s2)
    assert m3.ptr == p and M.memory_stats()["num_device_alloc"] == allocs + 1


def test_record_stream_delays_reuse(mod, streams, clean):
    s1, s2 = streams
    m = M.alloc(12 * MiB, s1)
    p = m.ptr
    spin(mod, s2)                                                 # s2 "uses" m
    m.record_stream(s2)
    del m
    assert M.memory_stats()["pending_frees"] == 1
    m2 = M.alloc(12 * MiB, s1)
    assert s2.query() is False and m2.ptr != p                    # not even s1 may take it yet
    s2.synchronize()
    m3 = M.alloc(12 * MiB, s1)
    assert m3.ptr == p and M.memory_stats()["pending_frees"] == 0


def test_reused_memory_holds_the_right_data_across_streams(mod, streams, clean):
    """Values written on s1 after a spin, freed, then reused on s2: s2's data never gets s1's."""
    s1, s2 = streams
    n = 1 << 20
    fill = mod.get_function("fill_i32")
    grid = math.ceil(n / 256)
    for _ in range(5):
        a = M.alloc(n * 4, s1)
        spin(mod, s1, SPIN_CYCLES // 10)
        fill.launch(grid, 256, (a, np.int32(1), np.int32(n)), 0, s1)   # runs after the spin
        del a
        b = M.alloc(n * 4, s2)
        fill.launch(grid, 256, (b, np.int32(2), np.int32(n)), 0, s2)
        assert (to_host(b, n, np.int32, s2) == 2).all()
        s1.synchronize()
        assert (to_host(b, n, np.int32, s2) == 2).all()            # s1's late fill hit other memory


def test_reserved_stays_flat_over_1e6_cycles(clean):
    """1e6 alloc/free cycles (the issue's count) of mixed sizes on one stream: after the first round no hipMalloc,
    reserved flat, memory_allocated back where it started; the Python-side lists stay small."""
    sizes = [512, 1000, 4096, 65536, 1 << 20, 3 << 20, 12 << 20, 777, 200_000]
    start = M.memory_allocated()
    ring = [None] * 7                                             # 7 live blocks, sizes cycle by 9
    warm, n = 2000, 1_000_000
    for i in range(warm):
        ring[i % 7] = M.alloc(sizes[i % len(sizes)])
    res, allocs = M.memory_reserved(), M.memory_stats()["num_device_alloc"]
    tracemalloc.start()
    t = time.perf_counter()
    for i in range(warm, warm + n):                               # the same sequence, continued
        ring[i % 7] = M.alloc(sizes[i % len(sizes)])
        if i == warm + 1000:
            snap = tracemalloc.take_snapshot()
    per = (time.perf_counter() - t) / n
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(snap, "filename"))
    tracemalloc.stop()
    assert M.memory_reserved() == res
    assert M.memory_stats()["num_device_alloc"] == allocs
    ring = None
    assert M.memory_allocated() == start
    assert grown < 256 * 1024, f"Python memory grew by {grown} bytes"
    a = M._allocators[D.get_device_id()]
    assert len(a.fenced) < 1000 and len(a.events) < 1000 and not a.pending
    print(f"\nalloc+free: {per * 1e6:.2f} us per cycle (tracemalloc on)")


def test_two_streams_stay_bounded(clean):
    s1, s2 = D.Stream(), D.Stream()
    ring = [None] * 8
    for i in range(4000):
        ring[i % 8] = M.alloc((i % 5 + 1) * 4096, s1 if i % 2 else s2)
    res = M.memory_reserved()
    for i in range(20_000):
        ring[i % 8] = M.alloc((i % 5 + 1) * 4096, s1 if i % 2 else s2)
    assert M.memory_reserved() <= 2 * res
    a = M._allocators[D.get_device_id()]
    assert len(a.fenced) < 5000 and sum(map(len, a.fences.values())) < 5000


def test_threads_and_garbage_collection(clean):
    """Four threads allocate and free at once, and frees arrive from the cyclic garbage collector
    in the middle of allocations (deferred, not lost): everything returns to the allocator."""
    import threading

    class Cycle:
        def __init__(self, mem):
            self.mem, self.me = mem, self

    errors = []

    def work(k):
        try:
            s = D.Stream()
            for i in range(5000):
                Cycle(M.alloc((i % 7 + 1) * 1000 + k, s if i % 3 else None))
        except Exception as e:      # reported below: a thread's exception would be lost
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    gc.collect()
    assert M.memory_allocated() == 0
    assert M.memory_stats()["allocation.all.current"] == 0


def test_concurrent_launches_keep_their_arguments(mod):
    """Launches of one signature from several threads share a packing buffer: each gets its own values."""
    import threading
    n, k = 4096, 8
    outs = [M.alloc(n * 4) for _ in range(k)]
    f = mod.get_function("fill_i32")

    def work(j):
        for _ in range(200):
            f.launch(n // 256, 256, (outs[j], np.int32(j + 1), np.int32(n)))

    threads = [threading.Thread(target=work, args=(j,)) for j in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    D.synchronize()
    for j in range(k):
        assert (to_host(outs[j], n, np.int32) == j + 1).all()


def test_out_of_memory_after_releasing_the_cache(clean):
    keep = M.alloc(4096)
    cached = M.alloc(30 * MiB)
    del cached                                                    # cached, released by the retry
    before = M.memory_stats()
    with pytest.raises(M.OutOfMemoryError, match="out of memory") as ei:
        M.alloc(4 * D.Device().total_memory)
    assert isinstance(ei.value, MemoryError) and isinstance(ei.value, hip.HipError)   # one error path
    assert int(ei.value.status) in M._OOM and ei.value.library == "hip" and ei.value.function == "hipMalloc"
    after = M.memory_stats()
    assert after["num_ooms"] == before["num_ooms"] + 1
    assert after["num_alloc_retries"] == before["num_alloc_retries"] + 1
    assert after["reserved_bytes.all.current"] < before["reserved_bytes.all.current"]
    ok = M.alloc(1 << 20)                                         # the device still works
    M.memset(ok, 0, 1 << 20)
    D.synchronize()
    del keep, ok


def test_no_caching_mode(cache_dir):
    r = run_python_here("""
        import json
        from hip.tensor._core import memory as M
        ms = [M.alloc(1000) for _ in range(3)]
        s = M.memory_stats()
        out = [s["num_device_alloc"], s["reserved_bytes.all.current"], s["allocated_bytes.all.current"]]
        del ms
        s = M.memory_stats()
        out += [s["num_device_free"], s["reserved_bytes.all.current"], s["caching"]]
        print(json.dumps(out))
    """, {"HIP_TENSOR_NO_MEMORY_CACHING": "1"})
    assert json.loads(r) == [3, 3 * 1024, 3 * 1024, 3, 0, False]


def test_memcpy_memset_round_trips(rng):
    x = rng.standard_normal(10_000).astype(np.float32)
    a = to_device(x)
    b = M.alloc(x.nbytes)
    M.memcpy(b, a, x.nbytes, "d2d")
    np.testing.assert_array_equal(to_host(b, x.shape, x.dtype), x)
    M.memset(b, 0xAB, 100)
    got = to_host(b, x.nbytes, np.uint8)
    assert (got[:100] == 0xAB).all() and (got[100:] == x.view(np.uint8)[100:]).all()
    c = M.alloc(x.nbytes)
    M.memcpy(c, a, x.nbytes)                                       # kind 'default'
    np.testing.assert_array_equal(to_host(c, x.shape, x.dtype), x)


def test_pinned_pool(mod, streams):
    s, _ = streams
    p = M.alloc_pinned(4096)
    v = p.numpy("float32", (1024,))
    v[:] = np.arange(1024, dtype=np.float32)
    d = M.alloc(4096, s)
    M.memcpy(d, p, 4096, "h2d", s)
    q = M.alloc_pinned(4096)
    M.memcpy(q, d, 4096, "d2h", s)
    s.synchronize()
    np.testing.assert_array_equal(q.numpy("float32"), v)
    with pytest.raises(ValueError, match="needs"):
        p.numpy("float64", (1024,))
    # a block still read by a queued copy is not handed out again until the copy is done
    busy = M.alloc_pinned(4096)
    spin(mod, s)
    M.memcpy(d, busy, 4096, "h2d", s)                              # records s on `busy`
    ptr = busy.ptr
    del busy
    other = M.alloc_pinned(4096)
    assert s.query() is False and other.ptr != ptr
    s.synchronize()
    hits = M.pinned_memory_stats()["cache_hits"]
    again = M.alloc_pinned(4096)
    assert again.ptr == ptr and M.pinned_memory_stats()["cache_hits"] == hits + 1
    view = M.alloc_pinned(64).numpy("uint8")
    gc.collect()
    view[:] = 5                                                    # the view keeps its block alive
    assert view.sum() == 5 * 64


# -- the allocator backends ------------------------------------------------------------------------
@pytest.fixture
def backend():
    """Restores the allocator a test switches."""
    prev = M.get_allocator()
    yield
    gc.collect()
    D.synchronize()
    M.set_allocator(prev)


def test_async_pool_allocator_round_trip_and_stats(mod, streams, backend):
    s1, s2 = streams
    a = M.AsyncPoolAllocator()
    M.set_allocator(a)
    x = np.arange(1 << 18, dtype=np.float32)
    m = to_device(x, s1)
    np.testing.assert_array_equal(to_host(m, x.shape, x.dtype, s1), x)
    st = M.memory_stats()
    assert st["allocated_bytes.all.current"] == x.nbytes and st["num_device_alloc"] == 1
    assert st["pool.reserved_bytes.current"] >= x.nbytes and st["pool.used_bytes.current"] >= x.nbytes
    spin(mod, s2)
    m.record_stream(s2)                         # the free waits on s2's spin, on s1
    del m
    assert M.memory_stats()["num_device_free"] == 1
    y = to_device(x * 2, s1)                    # ordered after the free, so after s2's spin
    assert s2.query() is True
    np.testing.assert_array_equal(to_host(y, x.shape, x.dtype, s1), x * 2)
    del y
    a.empty_cache()
    assert M.memory_stats()["pool.reserved_bytes.current"] == 0


def test_no_caching_allocator_returns_every_block(backend):
    M.set_allocator(M.NoCachingAllocator())
    before = M.memory_stats()
    m = M.alloc(3 * MiB)
    assert M.memory_reserved() == before["reserved_bytes.all.current"] + 3 * MiB
    del m
    gc.collect()
    st = M.memory_stats()
    assert st["reserved_bytes.all.current"] == before["reserved_bytes.all.current"]
    assert st["num_device_free"] == before["num_device_free"] + 1


# -- compile, load, launch ------------------------------------------------------------------------
def test_target_arch_and_options_on_this_device():
    arch = C.target_arch()
    assert arch == D.Device().gcn_arch_name
    opts = C.std_options(arch)
    if D.platform() == "nvidia":
        assert opts[-1] == f"--gpu-architecture={arch}" and "-O3" not in opts
    else:
        assert opts[-1] == f"--offload-arch={arch}"


def test_axpy(mod, rng):
    n = 100_000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = to_device(x), to_device(y)
    mod.get_function("axpy").launch(math.ceil(n / 256), 256, (np.float32(2.5), dx, dy, n))   # n: a Python int
    np.testing.assert_allclose(to_host(dy, n, np.float32), 2.5 * x + y, rtol=1e-5, atol=1e-6)


def test_every_argument_kind_reaches_the_kernel(mod):
    oi, od = M.alloc(7 * 8), M.alloc(6 * 8)
    f = mod.get_function("args")
    f.launch(1, 1, (np.int8(-5), np.int16(-300), np.int32(70000), 2 ** 40 + 3, np.uint64(2 ** 63 + 5),
                    np.float32(1.5), 2.25, True, np.complex64(3 - 4j), np.complex128(5 + 6j), np.uint8(200), oi,
                    C.Pointer(od.ptr)))
    ints, dbls = to_host(oi, 7, np.int64), to_host(od, 6, np.float64)
    assert ints.tolist() == [-5, -300, 70000, 2 ** 40 + 3, 2 ** 63 + 5 - 2 ** 64, 1, 200]
    assert dbls.tolist() == [1.5, 2.25, 3.0, -4.0, 5.0, 6.0]
    # the same through ctypes values and a foreign pointer object
    class Torchish:
        def __init__(self, p):
            self.p = p

        def data_ptr(self):
            return self.p
    f.launch((1,), (1, 1, 1), (ctypes.c_byte(1), ctypes.c_short(2), ctypes.c_int(3), ctypes.c_longlong(4),
                               ctypes.c_ulonglong(5), ctypes.c_float(6), ctypes.c_double(7), ctypes.c_bool(False),
                               np.complex64(8), np.complex128(9j), ctypes.c_ubyte(10), Torchish(oi.ptr), od))
    assert to_host(oi, 7, np.int64).tolist() == [1, 2, 3, 4, 5, 0, 10]
    assert to_host(od, 6, np.float64).tolist() == [6.0, 7.0, 8.0, 0.0, 0.0, 9.0]


def test_name_expressions(mod):
    assert mod.lowered_name("fill<float>").startswith("_Z")
    for expr, value, dtype in (("fill<float>", np.float32(2.5), np.float32), ("fill<double>", -1.25, np.float64)):
        out = M.alloc(1000 * np.dtype(dtype).itemsize)
        mod.get_function(expr).launch(4, 256, (out, value, np.int32(1000)))
        assert (to_host(out, 1000, dtype) == value).all()
    with pytest.raises(KeyError):
        mod.lowered_name("fill<int>")


def test_2d_grid_and_dynamic_shared_memory_on_a_stream(mod, streams):
    s, _ = streams
    w, h = 100, 37
    out = M.alloc(w * h * 4, s)
    mod.get_function("iota2d").launch((math.ceil(w / 16), math.ceil(h / 8)), (16, 8), (out, np.int32(w), np.int32(h)),
                                      0, s)
    yy, xx = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(to_host(out, (h, w), np.int32, s), yy * 1000 + xx)
    block, blocks = 128, 5
    x = np.arange(block * blocks, dtype=np.float32)
    d = to_device(x, s)
    mod.get_function("reverse_block").launch(blocks, block, (d,), block * 4, s)
    np.testing.assert_array_equal(to_host(d, x.size, np.float32, s), x.reshape(blocks, block)[:, ::-1].ravel())


def test_function_attributes(mod):
    f = mod.get_function("axpy")
    assert 1 <= f.max_threads_per_block <= 1024
    assert f.attributes["num_regs"] >= 0
    assert mod.get_function("axpy") is f


def test_launch_errors(mod):
    f = mod.get_function("empty")
    with pytest.raises(Exception, match="hipModuleLaunchKernel"):
        f.launch(1, 4096, ())                                       # too many threads per block
    from hip import hip as h
    h.hipGetLastError()
    with pytest.raises(TypeError, match="argument 0"):
        f.launch(1, 1, ("text",))
    D.synchronize()


def test_modules_are_cached_per_device_and_on_disk(cache_dir):
    src = SOURCE + "\n// cache test\n"
    before = C.stats()
    m1 = C.compile_module(src)
    m2 = C.compile_module(src)
    assert m1 is m2 and C.stats()["compiles"] == before["compiles"] + 1
    out = run_python_here("""
        import json
        import numpy as np
        from hip.tensor._kernels import compiler as C
        from hip.tensor._core import memory as M, device as D
        m = C.compile_module(%r)
        d = M.alloc(256 * 4)
        m.get_function("fill_i32").launch(1, 256, (d, np.int32(9), np.int32(256)))
        host = np.empty(256, np.int32)
        M.memcpy(host.ctypes.data, d, host.nbytes, "d2h")
        D.synchronize()
        print(json.dumps({**C.stats(), "ok": bool((host == 9).all())}))
    """ % src, {"HIP_TENSOR_CACHE_DIR": str(cache_dir)})
    s = json.loads(out)
    assert (s["compiles"], s["disk_hits"], s["module_loads"], s["ok"]) == (0, 1, 1, True)


def test_launch_cost(mod):
    """Per-launch wall time of an empty kernel (launches queue; one sync at the end)."""
    f = mod.get_function("empty")
    n = 20_000
    f.launch(1, 1, ())
    D.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f.launch(1, 1, ())
    D.synchronize()
    per = (time.perf_counter() - t) / n
    print(f"\nFunction.launch of an empty kernel: {per * 1e6:.2f} us per launch")
    assert per < 100e-6


# -- DLPack and CAI ---------------------------------------------------------------------------------
class Exporter:
    """A device-memory DLPack producer built on export_dlpack (what ndarray.__dlpack__ does)."""

    def __init__(self, mem, shape, dtype_name="float32", strides=None):
        self.mem, self.shape, self.dtype_name, self.strides = mem, shape, dtype_name, strides

    def __dlpack_device__(self):
        return I.dlpack_device(self.mem.device_id)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return I.export_dlpack(self.mem, self.mem.ptr, self.shape, self.strides, self.dtype_name,
                               self.mem.device_id, stream, max_version)


def test_dlpack_round_trip_keeps_the_memory_alive(clean):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = to_device(x)
    for max_version in (None, (1, 0)):
        cap = Exporter(m, (3, 4)).__dlpack__(max_version=max_version)
        imp = I.import_dlpack(cap)
        assert (imp.ptr, imp.shape, imp.strides, imp.dtype_name) == (m.ptr, (3, 4), (16, 4), "float32")
        assert (imp.device_type, imp.device_id) == I.dlpack_device(m.device_id)
    allocated = M.memory_allocated()
    del m, cap
    gc.collect()
    assert M.memory_allocated() == allocated                      # imp's owner holds the block
    np.testing.assert_array_equal(to_host(imp.ptr, (3, 4), np.float32), x)
    del imp
    gc.collect()
    assert M.memory_allocated() < allocated


def test_export_makes_the_consumer_stream_wait(mod, streams):
    producer, consumer = streams
    n = 1 << 16
    m = M.alloc(n * 4, producer)
    M.memset(m, 0, n * 4, producer)
    with producer:
        spin(mod, producer)
        mod.get_function("fill_i32").launch(math.ceil(n / 256), 256, (m, np.int32(5), np.int32(n)))
        cap = Exporter(m, (n,), "int32").__dlpack__(stream=consumer.ptr, max_version=(1, 0))
    imp = I.import_dlpack(cap)
    host = M.alloc_pinned(n * 4)
    M.memcpy(host, imp.ptr, n * 4, "d2h", consumer)
    assert producer.query() is False
    consumer.synchronize()
    assert (host.numpy("int32") == 5).all()


def test_import_cai_waits_on_the_producer_stream(mod, streams):
    producer, consumer = streams
    n = 1 << 16
    m = M.alloc(n * 4, producer)
    M.memset(m, 0, n * 4, producer)
    spin(mod, producer)
    mod.get_function("fill_i32").launch(math.ceil(n / 256), 256, (m, np.int32(3), np.int32(n)), 0, producer)

    class Producer:
        __cuda_array_interface__ = {"shape": (n,), "typestr": "<i4", "data": (m.ptr, False), "version": 3,
                                    "strides": None, "stream": producer.ptr}
    imp = I.import_cai(Producer(), stream=consumer)
    assert imp.device_id == m.device_id and imp.ptr == m.ptr
    host = M.alloc_pinned(n * 4)
    M.memcpy(host, imp.ptr, n * 4, "d2h", consumer)
    consumer.synchronize()
    assert (host.numpy("int32") == 3).all()


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA/ROCm device")
    return torch


def test_torch_consumes_our_dlpack():
    torch = torch_cuda()
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    m = to_device(x)
    t = torch.from_dlpack(Exporter(m, (4, 6)))
    assert t.data_ptr() == m.ptr and t.device.type == "cuda"
    np.testing.assert_array_equal(t.cpu().numpy(), x)
    tt = torch.from_dlpack(Exporter(m, (6, 4), strides=(1, 6)))    # a transposed view
    np.testing.assert_array_equal(tt.cpu().numpy(), x.T)
    del m
    gc.collect()
    np.testing.assert_array_equal(t.cpu().numpy(), x)             # t keeps our block alive


def test_we_consume_torch_tensors():
    torch = torch_cuda()
    t = torch.arange(24, dtype=torch.float32, device="cuda").reshape(4, 6)
    for obj in (t, t.T):
        imp = I.import_dlpack(obj)
        assert imp.ptr == obj.data_ptr() and imp.shape == tuple(obj.shape)
        assert imp.strides == tuple(s * 4 for s in obj.stride()) and imp.dtype_name == "float32"
        cai = I.import_cai(obj)
        assert (cai.ptr, cai.shape, cai.strides) == (imp.ptr, imp.shape, imp.strides)
        assert cai.device_id == obj.device.index
    flat = I.import_dlpack(t)
    np.testing.assert_array_equal(to_host(flat.ptr, (4, 6), np.float32), t.cpu().numpy())
    b = torch.tensor([1, 0, 1], dtype=torch.bool, device="cuda")
    assert I.import_dlpack(b).dtype_name == "bool"
    h16 = torch.ones(3, dtype=torch.bfloat16, device="cuda")
    assert I.import_dlpack(h16).dtype_name == "bfloat16"


def test_cupy_cai_and_dlpack():
    cp = pytest.importorskip("cupy")
    try:
        a = cp.arange(10, dtype=cp.float64)
    except Exception as e:          # no CUDA for CuPy here
        pytest.skip(f"CuPy cannot use the device: {e}")
    with cp.cuda.Stream(non_blocking=True) as s:
        b = a * 2
        imp = I.import_cai(b)                                      # waits on CuPy's stream (CAI v3)
        assert imp.ptr == b.data.ptr and imp.dtype_name == "float64"
        np.testing.assert_array_equal(to_host(imp.ptr, 10, np.float64), np.arange(10) * 2.0)
    m = to_device(np.arange(5, dtype=np.int32))
    c = cp.from_dlpack(Exporter(m, (5,), "int32"))
    assert int(c.data.ptr) == m.ptr and c.tolist() == [0, 1, 2, 3, 4]
