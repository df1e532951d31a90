"""What generated modules may call in the hand-written runtime, declared once: the names
`hip/_pointer.pxd`, `hip/_struct.pxd` and `hip/_kernel_args.pxd` declare, which generated code
reaches as `_p.NAME`, `_s.NAME` and `_ka.NAME` (`cimport hip._pointer as _p`, ...). The one writer
(codegen/output.py) checks every generated module against them, so an emitter that names a
missing entry point fails at generation, not later when Cython compiles its output."""
from __future__ import annotations

import functools
import os
import re

HIP_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hip")
# the alias a generated module cimports each runtime module as -> its declarations
MODULES = {"_p": "_pointer.pxd", "_s": "_struct.pxd", "_ka": "_kernel_args.pxd"}
_CIMPORT = re.compile(r"^cimport hip\.(_pointer|_struct|_kernel_args) as (_p|_s|_ka)$", re.M)
_USE = re.compile(r"(?<![\w.])(_p|_s|_ka)\.(\w+)")


class UndeclaredEntryPoint(ValueError):
    """Generated code names something the runtime's .pxd does not declare."""


@functools.lru_cache(maxsize=None)
def declared(alias: str, hip_dir: str = HIP_DIR) -> frozenset:
    """The names `alias`'s .pxd declares: its classes, functions (inline ones too), the C names
    its `cdef extern` blocks give Cython and its enums' constants."""
    with open(os.path.join(hip_dir, MODULES[alias])) as f:
        text = re.sub(r'"""(.|\n)*?"""', "", f.read())          # C in docstrings of extern blocks
    names = set(re.findall(r"^cdef\s+class\s+(\w+)", text, re.M))
    in_extern = in_enum = False
    for line in text.splitlines():
        code = line.split("#", 1)[0].rstrip()
        if not code.strip():
            continue
        if not code[0].isspace():               # a top-level declaration (a class's members are not)
            in_extern = code.startswith("cdef extern")
            in_enum = re.match(r"cp?def\s+enum\b", code) is not None
            if not code.startswith("cdef ") or in_extern or in_enum:
                continue
        elif in_enum:
            m = re.match(r"\s*(\w+)\s*(=.*)?$", code)
            if m:
                names.add(m.group(1))
            continue
        elif not in_extern:
            continue
        m = re.match(r"\s*(?:cdef\s+)?(?:inline\s+)?[\w\s\*\[\]]*?\b(\w+)\s*(?:\"[^\"]*\"\s*)?\(", code)
        if m:
            names.add(m.group(1))
    return frozenset(names)


def check(text: str, where: str = "generated code", hip_dir: str = HIP_DIR) -> None:
    """Raise UndeclaredEntryPoint if `text` calls a `_p.`/`_s.` name the runtime does not declare
    (only in a module that cimports the runtime under those names)."""
    aliases = {a for _, a in _CIMPORT.findall(text)}
    if not aliases:
        return
    missing = sorted({f"{a}.{n}" for a, n in _USE.findall(text) if a in aliases and n not in declared(a, hip_dir)})
    if missing:
        raise UndeclaredEntryPoint(
            f"{where} names {', '.join(missing)}, which {' and '.join('hip/' + MODULES[a] for a in sorted(aliases))} "
            "do not declare: declare it there (the runtime's interface to generated code) or fix the emitter")
