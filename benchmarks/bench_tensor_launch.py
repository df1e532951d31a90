"""CPU cost of hip.tensor's Function.launch up to the hipModuleLaunchKernel call (no GPU needed).

The binding's function is swapped for a no-op that takes the same arguments (a no-op call's own
cost is subtracted), so the figure is what the layer adds per kernel launch before the binding
(whose call costs about as much as any hip.hip call, ~0.4-0.5 us here).

    python benchmarks/bench_tensor_launch.py
"""
from __future__ import annotations

import time

import numpy as np


def per_call(fn, n=200_000) -> float:
    fn()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def main() -> None:
    from hip.tensor import _compiler, _device

    class Arr:                      # stands for an ndarray: an int .ptr
        __slots__ = ("ptr",)

        def __init__(self, p):
            self.ptr = p

    null = _device.Stream.from_handle(0, 0)
    f = _compiler.Function(None, "k", 0x1234, device_id=0)
    x, y = Arr(0x7f0000000000), Arr(0x7f0000100000)
    args = (x, y, np.float32(2.0), 1000)
    calls = []
    real = _compiler._launch_kernel
    _compiler._launch_kernel = lambda *a: (0,)
    try:
        noop = per_call(lambda: (lambda *a: (0,))(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, None))
        launch = per_call(lambda: f.launch(4, 256, args, 0, null))
        launch_tuple = per_call(lambda: f.launch((4, 1), (256, 1, 1), args, 0, null))
    finally:
        _compiler._launch_kernel = real
    print(f"Function.launch up to the binding call, 4 args: {(launch - noop) * 1e6:.2f} us "
          f"(grid/block as tuples: {(launch_tuple - noop) * 1e6:.2f} us)")


if __name__ == "__main__":
    main()
