"""PTX helpers: the ISA version a PTX text declares, and the CUDA release that first loads it."""
from __future__ import annotations

# The PTX ISA documentation's release history (docs.nvidia.com/cuda/parallel-thread-execution,
# "Release Notes"): each PTX ISA version and the CUDA release that introduced it, up to PTX ISA 9.3
# (CUDA 13.3). PTX ISA 1.5 shipped with a driver (r190), not with a CUDA release, so it has no
# entry (unknown, as in cuda-bindings); 8.5 came with CUDA 12.5 (and 12.6), 8.6 with 12.7.
_RELEASES = """
1.0 1.0   1.1 1.1   1.2 2.0   1.3 2.1   1.4 2.2
2.0 3.0   2.1 3.1   2.2 3.2   2.3 4.0
3.0 4.1   3.1 5.0   3.2 5.5
4.0 6.0   4.1 6.5   4.2 7.0   4.3 7.5
5.0 8.0
6.0 9.0   6.1 9.1   6.2 9.2   6.3 10.0  6.4 10.1  6.5 10.2
7.0 11.0  7.1 11.1  7.2 11.2  7.3 11.3  7.4 11.4  7.5 11.5  7.6 11.6  7.7 11.7  7.8 11.8
8.0 12.0  8.1 12.1  8.2 12.2  8.3 12.3  8.4 12.4  8.5 12.5  8.6 12.7  8.7 12.8  8.8 12.9
9.0 13.0  9.1 13.1  9.2 13.2  9.3 13.3
"""
_table: dict | None = None   # "8.8" -> 12090, made on first use
_directive = None            # the compiled `.version` pattern, made on first use (no `re` at import)


def _cuda_versions() -> dict:
    global _table
    if _table is None:
        words = _RELEASES.split()
        _table = {ptx: int(cuda.split(".")[0]) * 1000 + int(cuda.split(".")[1]) * 10
                  for ptx, cuda in zip(words[::2], words[1::2])}
    return _table


def get_minimal_required_cuda_ver_from_ptx_ver(ptx_version: str) -> int:
    """The oldest CUDA driver, nvPTXCompiler or nvJitLink version (1000 * major + 10 * minor:
    12090 for CUDA 12.9) that loads PTX of ISA version `ptx_version` (the `.version` directive's
    text, e.g. "8.8"). ValueError for a version the release history does not list."""
    try:
        return _cuda_versions()[ptx_version]
    except KeyError:
        raise ValueError(f"Unknown or unsupported PTX ISA version: {ptx_version}") from None


def get_ptx_ver(ptx: str) -> str:
    """The PTX ISA version ("8.8") that PTX source text `ptx` declares in its `.version` directive.
    ValueError where there is none."""
    global _directive
    if _directive is None:
        import re
        _directive = re.compile(r"\.version\s+([0-9]+\.[0-9]+)")   # the first one, anywhere
    m = _directive.search(ptx)
    if m is None:
        raise ValueError("No .version directive found in PTX source. Is it a valid PTX?")
    return m.group(1)
