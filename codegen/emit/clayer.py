"""Emit the cimport layer's implementation: hip/<cimport_module>.pyx.

Each C function is a few lines: resolve the symbol on first use (with the
GIL, through the shared Library), then call through the cached pointer
without the GIL.
"""
from __future__ import annotations

from .. import ir
from ..spec import Spec
from ..types import TypeIndex
from . import cdecl, common


def library_candidates(spec: Spec, header_major: int) -> list[str]:
    """File names to try: the headers' ROCm major first, then newest first, then the bare name."""
    majors = sorted(spec.library_names, reverse=True)
    if header_major in majors:
        majors.remove(header_major)
        majors.insert(0, header_major)
    names = [n for m in majors for n in spec.library_names[m]]
    if spec.library_bare:
        names.append(spec.library_bare)
    return list(dict.fromkeys(names))


def emit(module: ir.Module, spec: Spec, types: TypeIndex) -> str:
    major = int(module.version.split(".")[0])
    cands = library_candidates(spec, major)
    out = [common.banner(module), "# cython: language_level=3",
           f'"""C layer of {spec.doc or spec.library}: lazily loaded functions; cimport it from Cython."""',
           "from hip._loader cimport Library", "",
           "# Private to this module: a .pxd-level name would be shadowed by cimport * in dependants.",
           f"cdef Library _lib = Library({spec.library!r}, {spec.library_env!r}, {tuple(cands)!r})",
           "library = _lib", ""]
    for fn in common.bound_functions(module):
        ptr = f"_p_{fn.name}"
        params = ", ".join(types.cy(p.type) for p in fn.params)
        if fn.variadic:
            params += ", ..."
        fptype = f"{types.cy(fn.result)} (*)({params}) noexcept nogil"
        args = ", ".join(p.name for p in fn.params)
        ret = "" if types.resolve(fn.result).kind == "void" else "return "
        out += [f"cdef void* {ptr} = NULL",
                f"cdef {cdecl.prototype(fn, types)}:",
                f"    global {ptr}",
                f"    if {ptr} == NULL:",
                f"        with gil:",
                f"            {ptr} = _lib.symbol(b\"{fn.name}\")",
                f"    {ret}(<{fptype}>{ptr})({args})", ""]
    return "\n".join(out) + "\n"
