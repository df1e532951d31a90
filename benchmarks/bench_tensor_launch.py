"""CPU cost of hip.tensor's launch path, of a whole small `x + y`, and of the library-backed
operators and views of a transformer block (no GPU needed).

1. Function.launch up to the hipModuleLaunchKernel call: the C function it calls (hip.tensor._core.launch)
   is swapped for a C no-op, so the figure is what the layer adds per kernel launch.
2. `x + y` on 1000-element float32 arrays (made by ndarray._empty at fake device addresses): the whole
   host path of one small op (checks, promotion, kernel lookup, allocation from the caching
   allocator and the free of the result, argument packing; in C since ddcdf50, the
   per-op path of docs/tensor.rst) with the three HIP calls it makes
   swapped for no-ops: hipGetDevice (answers device 0) and the launch (C no-ops in
   hip.tensor._core.launch), hipMalloc (a fake address; called once, for the first segment); the
   kernel's compile and load are swapped for a fake Function.

    LD_LIBRARY_PATH=build/rocm-runtime/usr/lib/x86_64-linux-gnu \
        .venv/bin/python benchmarks/bench_tensor_launch.py

Times are the thread's CPU time (the machine is shared). On the 2-core CPU machine (Python 3.11),
same day: at bad372f (its HIP calls swapped for Python no-ops) x + y 27.8 us, x + 2.0 35 us,
Function.launch 0.99 us before the binding's own ~0.45 us; at 658ed2d x + y 4.3 us, x + 2.0
5.1 us, Function.launch 0.34 us in all. Another day: at bac3ce2 x + y 4.66 us, x + 2.0 5.48 us,
ht.add(x, y) 4.63 us; at 6238329 (the per-op path in C) x + y 0.64 us, x + 2.0 0.74 us,
ht.add(x, y) 0.67 us, Function.launch 0.33 us.

3. The library-backed operators and the views (`library_ops`), bfloat16: nn.functional.linear
   (hipBLASLt with its epilogue; gelu's pass after it), matmul of two matrices and of attention's
   head views (one hipblasGemmBatchedEx_v2 over a kept address table), layer_norm, softmax, the
   views, and benchmarks/_networks.py's fused encoder block forward, with every HIP, hipBLAS and
   hipBLASLt call they make a no-op answering success (hipMalloc hands out fake addresses;
   hipBLASLt gets a plan with one algorithm and no descriptors, so it counts as available).

   Same machine and day, best of 3 runs of best of 5, us per call: before = cf8f3b8, after =
   3c9f9dd (per-call decisions kept by key, `_core.plans`):

   F.linear(x, w, b, activation='relu')        13.97 ->  7.84
   F.linear(x, w)                              12.83 ->  7.61
   F.linear(x, w, b, residual=r)               14.85 ->  7.96
   F.linear(x, w, b, activation='gelu')        27.26 -> 15.31
   ht.matmul 2-d (1024, 1024) @ (1024, 1024)   22.72 ->  9.62
   ht.matmul attention views                   25.93 ->  9.96
   F.layer_norm (4096, 1024)                   16.26 ->  8.92
   F.softmax (8, 16, 512, 512), scale          11.84 ->  7.65
   x[:, :, 0]                                   7.52 ->  1.74
   x.transpose(0, 2, 1, 3)                      3.86 ->  1.20
   x.reshape((4096, 1024))                      4.97 ->  0.84
   x.mT                                         4.50 ->  0.47
   encoder block forward                      385.6  -> 205.3

   About half of what is left of each operator is the caching allocator's large-block path
   (Python: its outputs are past the C fast path's small blocks).

4. benchmarks/_networks.py's ResNet-18 forward at batch 32, float32, as written and fused (the
   BatchNorms' folding swapped for fake biases), with per-sample gemms and one gemm per
   convolution, in the same no-op setting. Same machine and day, best of 2 runs, us per forward:
   before = 0eda2d1, after = a9ffcdc (conv, eval batch_norm and the pools keep plans):

   as written                                2214 -> 803
   fused, per-sample gemms                   1658 -> 401
   fused, one gemm per conv                  1867 -> 410
"""
from __future__ import annotations

import time

import numpy as np


def per_call(fn, n=200_000) -> float:
    """Best of 5 of the thread's CPU time per call (other processes on the machine count less)."""
    fn()
    best = float("inf")
    for _ in range(5):
        t = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - t) / n)
    return best


def main() -> None:
    from hip.tensor._kernels import compiler as _compiler
    from hip.tensor._core import device as _device, launch as _launch

    class Arr:                      # stands for an ndarray: an int .ptr
        __slots__ = ("ptr",)

        def __init__(self, p):
            self.ptr = p

    null = _device.Stream.from_handle(0, 0)
    f = _compiler.Function(None, "k", 0x1234, device_id=0)
    x, y = Arr(0x7f0000000000), Arr(0x7f0000100000)
    args = (x, y, np.float32(2.0), 1000)
    _launch._benchmark_noops(True)
    try:
        launch = per_call(lambda: f.launch(4, 256, args, 0, null))
        launch_tuple = per_call(lambda: f.launch((4, 1), (256, 1, 1), args, 0, null))
    finally:
        _launch._benchmark_noops(False)
    print(f"Function.launch up to the hipModuleLaunchKernel call, 4 args: {launch * 1e6:.2f} us "
          f"(grid/block as tuples: {launch_tuple * 1e6:.2f} us)")
    small_op()
    library_ops()


def small_op() -> None:
    """`x + y` (and `x + 2.0`) on 1000 float32 with the HIP calls swapped for no-ops."""
    from hip import hip as h
    import hip.tensor as ht
    from hip.tensor._kernels import compiler as _compiler, elementwise as ek
    from hip.tensor._core import dtypes as _dtypes, launch as _launch
    from hip.tensor._core.array import ndarray

    swaps = [(h, "hipMalloc", lambda size: (0, 0x7e0000000000)),
             (ek.ElementwiseKernel, "_compile", lambda self, *a: _compiler.Function(None, "k", 0x1234, 0))]
    saved = [(o, n, getattr(o, n)) for o, n, _ in swaps]
    for o, n, f in swaps:
        setattr(o, n, f)
    _launch._benchmark_noops(True)
    ek._grid_cap.setdefault(0, 132 * 32)
    try:
        shape, f32 = (1000,), _dtypes.float32
        x, y = ndarray._empty(shape, f32, 0), ndarray._empty(shape, f32, 0)
        add = per_call(lambda: x + y, 50_000)
        add_scalar = per_call(lambda: x + 2.0, 50_000)
        add_fn = per_call(lambda: ht.add(x, y), 50_000)
    finally:
        _launch._benchmark_noops(False)
        for o, n, f in saved:
            setattr(o, n, f)
    print(f"x + y, 1000 float32, whole Python path with no-op HIP calls: {add * 1e6:.2f} us "
          f"(x + 2.0: {add_scalar * 1e6:.2f} us, ht.add(x, y): {add_fn * 1e6:.2f} us)")


class _FakeLib:
    """A hip.hipblas / hip.hipblaslt stand-in: the real module's enums and types, its calls that
    `library_ops` reaches answered with success and nothing done."""

    def __init__(self, module, names, success):
        self._module, self._names, self._success = module, set(names), success

    def __getattr__(self, name):
        if name in self._names:
            success = self._success
            return lambda *args: (success,)
        return getattr(self._module, name)


class _FakePlan:
    """blaslt._Plan with one algorithm and no descriptors (nothing of hipBLASLt is called)."""

    def __init__(self, L, handle, *args):
        import threading
        self.lock = threading.Lock()
        self.desc = self.a = self.b = self.c = None
        self.algos, self.best, self.times = [(None, 0)], None, []
        self.bias_ptr, self.bias = np.zeros(1, np.uint64), None
        self.alpha, self.beta = np.ones(1, np.float32), np.zeros(1, np.float32)

    algo = None

    def workspace_needed(self) -> int:
        return 0


def _encoder_block(ht, dtype):
    """benchmarks/_networks.py's encoder block (fused), its parameters arrays of `dtype`."""
    import os
    import sys
    from hip.tensor._core.array import ndarray
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _networks
    block = _networks.ht_encoder_block(ht)
    for _, m, name, v in list(block._named("_parameters")):
        m._parameters[name] = ndarray._empty(v.shape, dtype, 0)
    return block


def _resnet18(ht, dtype, fused: bool):
    """benchmarks/_networks.py's ResNet-18 in eval, its parameters and buffers arrays of `dtype`;
    `fused`: its BatchNorms folded (the folding itself swapped for a fake bias: no device here)."""
    import os
    import sys
    from hip.tensor._core.array import ndarray
    from hip.tensor.nn import utils
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _networks
    model = _networks.ht_resnet18(ht)
    for table in ("_parameters", "_buffers"):
        for _, m, name, v in list(model._named(table)):
            getattr(m, table)[name] = ndarray._empty(v.shape, dtype if v.dtype.kind == "f" else v.dtype, 0)
    model.eval()
    if fused:
        saved = utils.fuse_conv_bn_weights
        utils.fuse_conv_bn_weights = lambda w, *rest: (w, ndarray._empty((w.shape[0],), w.dtype, 0))
        try:
            model.fuse()
        finally:
            utils.fuse_conv_bn_weights = saved
    return model


def library_ops() -> None:
    """The Python cost of nn.functional.linear, matmul (2-d and attention's batched views),
    layer_norm, softmax and the views an attention block takes, with every HIP, hipBLAS and
    hipBLASLt call swapped for a no-op answering success (the kernels' compiles for fake Functions)."""
    from hip import hip as h, hipblas as hb, hipblaslt as hlt
    import hip.tensor as ht
    from hip.tensor._kernels import compiler as _compiler, elementwise as ek
    from hip.tensor._core import dtypes as _dt, launch as _launch
    from hip.tensor._core.array import ndarray
    from hip.tensor._core.device import current_stream
    from hip.tensor._libs import blas, blaslt

    class _Module:
        def get_function(self, name):
            return _compiler.Function(None, name, 0x1234, 0)

    ok = hb.hipblasStatus_t.HIPBLAS_STATUS_SUCCESS
    fake_blas = _FakeLib(hb, ("hipblasGemmBatchedEx_v2", "hipblasGemmStridedBatchedEx_v2", "hipblasSgemmBatched",
                              "hipblasSgemmStridedBatched"), ok)
    fake_lt = _FakeLib(hlt, ("hipblasLtMatmul", "hipblasLtMatmulDescSetAttribute"), ok)
    none = h.hipStreamCaptureStatus.hipStreamCaptureStatusNone
    top = [0x7e0000000000]

    def malloc(size):               # distinct fake addresses: the allocator keeps several large segments
        top[0] += (size + (1 << 21) - 1) & ~((1 << 21) - 1)
        return 0, top[0]
    swaps = [(h, "hipMalloc", malloc),
             (h, "hipMemsetAsync", lambda *args: (h.hipError_t.hipSuccess,)),
             (h, "hipMemcpyAsync", lambda *args: (h.hipError_t.hipSuccess,)),
             (h, "hipStreamIsCapturing", lambda s: (h.hipError_t.hipSuccess, none)),
             (ek.ElementwiseKernel, "_compile", lambda self, *a: _compiler.Function(None, "k", 0x1234, 0)),
             (_compiler, "compile_module", lambda *a, **k: _Module()),
             (blas, "_lib", lambda: fake_blas), (blaslt, "_Plan", _FakePlan)]
    saved = [(o, n, getattr(o, n)) for o, n, _ in swaps]
    for o, n, f in swaps:
        setattr(o, n, f)
    _launch._benchmark_noops(True)
    ek._grid_cap.setdefault(0, 132 * 32)
    saved_lt = dict(blaslt._state)
    blaslt._state["lib"] = fake_lt
    blaslt._workspace_sizes.setdefault(0, 32 << 20)
    s = current_stream(0)
    blas._blas_handles.by_stream.setdefault((0, s.uid), 1)
    blaslt._handles.by_stream.setdefault((0, s.uid), 1)
    rows = []
    try:
        F = ht.nn.functional
        bf = _dt.bfloat16
        x, w, b = ndarray._empty((4096, 1024), bf, 0), ndarray._empty((4096, 1024), bf, 0), \
            ndarray._empty((4096,), bf, 0)
        r = ndarray._empty((4096, 4096), bf, 0)
        rows.append(("F.linear(x, w, b, activation='relu'), hipBLASLt", per_call(
            lambda: F.linear(x, w, b, activation="relu"), 20_000)))
        rows.append(("F.linear(x, w), hipBLASLt", per_call(lambda: F.linear(x, w), 20_000)))
        rows.append(("F.linear(x, w, b, residual=r), hipBLASLt", per_call(
            lambda: F.linear(x, w, b, residual=r), 20_000)))
        rows.append(("F.linear(x, w, b, activation='gelu'): then one element-wise pass", per_call(
            lambda: F.linear(x, w, b, activation="gelu"), 20_000)))
        a2, b2 = ndarray._empty((1024, 1024), bf, 0), ndarray._empty((1024, 1024), bf, 0)
        rows.append(("ht.matmul 2-d (1024, 1024) @ (1024, 1024)", per_call(lambda: ht.matmul(a2, b2), 20_000)))
        qkv = ndarray._empty((8, 512, 3, 16, 64), bf, 0)
        q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
        kt = k.mT
        rows.append(("ht.matmul attention views (8,16,512,64) @ (8,16,64,512)", per_call(
            lambda: ht.matmul(q, kt), 20_000)))
        h2 = ndarray._empty((4096, 1024), bf, 0)
        lw, lb = ndarray._empty((1024,), bf, 0), ndarray._empty((1024,), bf, 0)
        rows.append(("F.layer_norm (4096, 1024) with weight and bias", per_call(
            lambda: F.layer_norm(h2, (1024,), lw, lb), 20_000)))
        sc = ndarray._empty((8, 16, 512, 512), bf, 0)
        rows.append(("F.softmax (8,16,512,512), dim=-1, scale", per_call(
            lambda: F.softmax(sc, dim=-1, scale=0.125), 20_000)))
        y5 = ndarray._empty((8, 512, 3, 16, 64), bf, 0)
        y3 = ndarray._empty((8, 512, 1024), bf, 0)
        rows.append(("x[:, :, 0] of (8, 512, 3, 16, 64)", per_call(lambda: y5[:, :, 0], 50_000)))
        rows.append(("x.transpose(0, 2, 1, 3)", per_call(lambda: q.transpose(0, 2, 1, 3), 50_000)))
        rows.append(("x.reshape((4096, 1024)) of (8, 512, 1024)", per_call(lambda: y3.reshape((4096, 1024)), 50_000)))
        rows.append(("x.mT", per_call(lambda: k.mT, 50_000)))
        block = _encoder_block(ht, bf)
        xb = ndarray._empty((8, 512, 1024), bf, 0)
        rows.append(("encoder block forward (8, 512, 1024), bfloat16 (_networks.ht_encoder_block)",
                     per_call(lambda: block(xb), 1_000)))
        from hip.tensor.nn import _conv
        xr = ndarray._empty((32, 3, 224, 224), _dt.float32, 0)
        saved_one = _conv.ONE_GEMM
        try:
            for label, fused, one in (("as written", False, saved_one), ("fused, per-sample gemms", True, False),
                                      ("fused, one gemm per conv", True, True)):
                _conv.ONE_GEMM = one
                net = _resnet18(ht, _dt.float32, fused)
                rows.append((f"ResNet-18 forward, batch 32, float32, {label}", per_call(lambda: net(xr), 200)))
        finally:
            _conv.ONE_GEMM = saved_one
    finally:
        _launch._benchmark_noops(False)
        for o, n, f in saved:
            setattr(o, n, f)
        blaslt._state.clear()
        blaslt._state.update(saved_lt)
        blaslt._plans.clear()
    for name, t in rows:
        print(f"{name}: {t * 1e6:.2f} us")


if __name__ == "__main__":
    main()
