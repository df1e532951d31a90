"""`RawKernel` and `RawModule`: user HIP C++ source compiled through `_kernels.compiler` (cached) and
launched through `Function.launch`, as CuPy's.

    k = RawKernel(r'extern "C" __global__ void scale(float* x, float a, int n) {...}', "scale")
    k((blocks,), (256,), (x, np.float32(2), np.int32(n)))

Arguments follow `Function.launch`: arrays (and anything with `.ptr`) are device pointers, NumPy
scalars keep their type, a Python int is int64, a float double. With `prelude=True` the source
is prefixed with hip.tensor's prelude (ht_half, ht_bfloat16, ht_complex64/128, ht_cast, ...).
"""
from __future__ import annotations

from .._core.device import get_device_id
from . import compiler as _compiler
from .source import PRELUDE

__all__ = ["RawKernel", "RawModule"]


class RawModule:
    """A module of kernels from source; compiled for a device on first use there."""

    def __init__(self, code: str, options=(), name_expressions=(), *, prelude: bool = False):
        if not isinstance(code, str):
            raise TypeError(f"code must be a str of HIP C++, got {type(code).__name__}")
        self.code = (PRELUDE + "\n" + code) if prelude else code
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions)
        self._modules: dict = {}

    def _module(self):
        dev = get_device_id()
        m = self._modules.get(dev)
        if m is None:
            m = self._modules[dev] = _compiler.compile_module(self.code, self.options, self.name_expressions)
        return m

    def compile(self) -> "RawModule":
        """Compile (and load) now for the current device."""
        self._module()
        return self

    def get_function(self, name: str) -> "RawKernel":
        """The kernel `name` (an extern "C" name or one of the name expressions)."""
        return RawKernel(self.code, name, self.options, _module=self)

    def lowered_name(self, expr: str) -> str:
        return self._module().lowered_name(expr)

    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size) of a __device__ variable of the module."""
        return self._module().get_global(name)


class RawKernel:
    """One kernel of user source. `kernel(grid, block, args, shared_mem=0, stream=None)`."""

    def __init__(self, code: str, name: str, options=(), *, prelude: bool = False, _module: RawModule | None = None):
        if not isinstance(name, str) or not name:
            raise TypeError("name must be the kernel's name (a non-empty str)")
        self.name = name
        self._rm = _module if _module is not None else RawModule(code, options, (), prelude=prelude)
        self.code = self._rm.code
        self.options = self._rm.options
        self._functions: dict = {}

    def _function(self):
        dev = get_device_id()
        f = self._functions.get(dev)
        if f is None:
            f = self._functions[dev] = self._rm._module().get_function(self.name)
        return f

    def compile(self) -> "RawKernel":
        self._function()
        return self

    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None) -> None:
        if not isinstance(args, (tuple, list)):
            raise TypeError("args must be a tuple or list of kernel arguments")
        self._function().launch(grid, block, tuple(args), shared_mem, stream)

    @property
    def attributes(self) -> dict:
        return self._function().attributes

    @property
    def max_threads_per_block(self) -> int:
        return self._function().max_threads_per_block

    def __repr__(self):
        return f"<RawKernel {self.name}>"
