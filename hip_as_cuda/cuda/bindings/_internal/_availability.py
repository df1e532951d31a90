"""What the alias's `_inspect_function_pointer(name)`s answer, from one source for every module.

NVIDIA's return the address of the function pointer its binding loaded (0 where the library
lacks it). The alias has no CUDA function to point at: each call runs through a bridge to HIP, whose
function has HIP's ABI (calling it with CUDA's arguments would be wrong), so the answer is 1 where
the function runs, never an address. It runs where the generator's coverage report
(`hip_as_cuda.coverage()`) says it is bridged and the HIP function it names resolves through the
very `hip._loader.Library` the bridge resolves it with ("" names none: the bridge answers itself,
as cuGetErrorName does). Not-supported functions answer 0. A HIP library that cannot be loaded
raises the loader's LibraryNotFoundError, as NVIDIA's raise when libcuda or libnvrtc is missing.
"""
from __future__ import annotations


def pointers(functions: dict, library) -> dict[str, int]:
    """{'__' + CUDA function name: 1 or 0} for `functions` in the coverage report's form
    ({name: {'status': 'bridged' | 'not_supported', 'hip': HIP function or ''}})."""
    return {f"__{name}": int(f.get("status") == "bridged" and (not f.get("hip") or library.has_symbol(f["hip"])))
            for name, f in functions.items()}


def bridged_module(module: str) -> dict[str, int]:
    """pointers() of the alias's generated module `module` ('driver', 'runtime', 'nvrtc')."""
    import importlib

    import hip_as_cuda
    functions = hip_as_cuda.coverage().get(module, {}).get("functions", {})
    # The HIP C layer the generated cimport module resolves its bridges through (cydriver: hip.chip).
    library = importlib.import_module(f"cuda.bindings.cy{module}")._hip_c_layer.library
    return pointers(functions, library)


class Inspector:
    """NVIDIA's pair `_inspect_function_pointers()` / `_inspect_function_pointer(name)` over a
    table made once, on first use (`make()` loads the library)."""

    def __init__(self, make):
        self._make, self._table = make, None

    def all(self) -> dict[str, int]:
        if self._table is None:
            self._table = self._make()
        return self._table

    def one(self, name) -> int:
        # NVIDIA's is a Cython function taking `str name`: anything else but None is a TypeError.
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Argument 'name' has incorrect type (expected str, got {type(name).__name__})")
        return self.all()[name]   # KeyError for a name the module does not have, as NVIDIA's
