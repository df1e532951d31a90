"""CUDA headers -> the same IR the HIP side uses (one module per layer library)."""
from __future__ import annotations

import os
import re

from .. import clang_parse, ir
from ..ir_builder import Builder


def cuda_version(include_dirs: list[str]) -> str:
    for d in include_dirs:
        p = os.path.join(d, "cuda.h")
        if os.path.exists(p):
            m = re.search(r"#define CUDA_VERSION (\d+)", open(p).read())
            if m:
                v = int(m.group(1))
                return f"{v // 1000}.{v % 1000 // 10}"
    return "unknown"


def find_header(include_dirs: list[str], header: str) -> str:
    for d in include_dirs:
        p = os.path.join(d, header)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"CUDA header {header} not found in {', '.join(include_dirs)}")


def build(headers: list[str], include_dirs: list[str], defines=(), together: bool = False,
          type_dirs=()) -> ir.Module:
    """Parse `headers` in C mode, each on its own or (together) in one translation unit in this
    order; every declaration under the include dirs, and under type_dirs (stand-ins for system
    headers CUDA's include: GLuint), belongs to 'cuda'."""
    paths = [find_header(include_dirs, h) for h in headers]
    if together:
        tus = [clang_parse.parse_together(paths, include_dirs, list(defines), "c")]
    else:
        tus = [clang_parse.parse(p, include_dirs, list(defines), "c") for p in paths]
    # Owner by path: every file under the (first) dir holding each header is CUDA's, and so is
    # the CUDA runtime's dir: its types (cudaStream_t, cudaDataType) are in every library's API,
    # and a library's headers need not sit beside it (the toolkit in /usr/local/cuda/include,
    # NCCL's nccl.h in /usr/include).
    roots = {os.path.dirname(p) for p in paths}
    try:
        roots.add(os.path.dirname(find_header(include_dirs, "cuda_runtime_api.h")))
    except FileNotFoundError:
        pass
    roots = sorted(roots | {os.path.realpath(d) for d in type_dirs})
    mod = None
    for root in roots:   # several dirs (PyPI wheels ship one include dir per package)
        m = Builder("cuda", root, {"": "cuda"}, None, set()).build(tus, headers, cuda_version(include_dirs), "c")
        m.api = "CUDA"
        if mod is None:
            mod = m
        else:
            _merge(mod, m)
    add_wrapped_aliases(mod, tus)
    return mod


def add_wrapped_aliases(mod: ir.Module, tus) -> None:
    """CUDA's per-thread-stream wrappers (`#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)`)
    as aliases of the functions they name."""
    names = {f.name for f in mod.functions}
    for k, v in _wrapped_aliases(tus).items():
        if v in names and k not in names:
            mod.aliases.setdefault(k, v)


def _wrapped_aliases(tus) -> dict[str, str]:
    """`#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)`: a name wrapped in a function-like macro."""
    out = {}
    for tu in tus:
        for _, t in clang_parse.macro_definitions(tu):
            if len(t) == 5 and t[2] == "(" and t[4] == ")" and t[1].startswith("__") and t[3].isidentifier():
                out[t[0]] = t[3]
    return out


def _merge(into: ir.Module, other: ir.Module) -> None:
    for attr in ("enums", "records", "typedefs", "functions", "macros"):
        have = {x.name for x in getattr(into, attr)}
        getattr(into, attr).extend(x for x in getattr(other, attr) if x.name not in have)
    for k, v in other.aliases.items():
        into.aliases.setdefault(k, v)
