"""The one thin wrapper over libclang: builds translation units, refuses errors.

Nothing else in the generator creates libclang objects; ir_builder walks the
cursors this module returns.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess

import clang.cindex as ci


class ParseError(RuntimeError):
    """libclang reported an error: generating from a half-parsed header is never safe."""


@functools.lru_cache(maxsize=None)
def builtin_include_dir() -> str:
    """Compiler builtin headers (stddef.h, stdint.h, ...).

    The PyPI libclang wheel ships no clang resource headers; without them
    parsing carries on and `size_t` silently becomes `int`. Take clang's
    resource dir if a system clang exists, else gcc's builtin include dir.
    """
    env = os.environ.get("HIP_CODEGEN_RESOURCE_INCLUDE")
    if env:
        return env
    for cc in ("clang", "gcc", "cc"):
        exe = shutil.which(cc)
        if not exe:
            continue
        try:
            out = subprocess.check_output([exe, "-print-file-name=include"], text=True).strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        if os.path.isfile(os.path.join(out, "stddef.h")):
            return out
    raise ParseError("no compiler builtin headers found (stddef.h): install gcc or clang, "
                     "or set HIP_CODEGEN_RESOURCE_INCLUDE")


def parse(header: str, include_dirs: list[str], defines: list[str], language: str = "c",
          extra_args: list[str] | None = None, unsaved=None) -> ci.TranslationUnit:
    """Parse `header` (a path; its text may be in `unsaved`, libclang's (path, text) pairs); raise
    ParseError on any error diagnostic."""
    args = ["-x", "c++" if language == "c++" else "c",
            "-std=c++17" if language == "c++" else "-std=c11"]
    args += [f"-D{d}" for d in defines]
    args += [f"-I{d}" for d in include_dirs]
    args += ["-isystem", builtin_include_dir()]
    args += list(extra_args or ())
    index = ci.Index.create()
    opts = (ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
            | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    try:
        tu = index.parse(header, args=args, unsaved_files=unsaved, options=opts)
    except ci.TranslationUnitLoadError as e:
        raise ParseError(f"libclang could not parse {header}: {e}") from None
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        lines = "\n".join(f"  {d.location.file}:{d.location.line}: {d.spelling}" for d in errors[:20])
        raise ParseError(f"{len(errors)} error(s) parsing {header} with {' '.join(args)}:\n{lines}")
    return tu


def parse_together(headers: list[str], include_dirs: list[str], defines: list[str],
                   language: str = "c") -> ci.TranslationUnit:
    """Parse `headers` (paths) as one translation unit that includes them in order, as a program
    (or the module compiled from them) does: a header may use what an earlier one declared
    (CUDA's cudaVDPAU.h uses VDPAU's and cuda.h's types without including them)."""
    lines = "".join(f'#include "{os.path.abspath(h)}"\n' for h in headers)
    name = os.path.join(os.path.dirname(os.path.abspath(headers[0])), "<together>.h")
    return parse(name, include_dirs, defines, language, unsaved=[(name, lines)])


def macro_definitions(tu: ci.TranslationUnit):
    """(name, token spellings) of each macro the translation unit defines, in order; the first
    token is the name (`#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)` gives
    ['cuMemcpyHtoD', '__CUDA_API_PTDS', '(', 'cuMemcpyHtoD_v2', ')'])."""
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.MACRO_DEFINITION:
            yield c.spelling, [x.spelling for x in c.get_tokens()]
