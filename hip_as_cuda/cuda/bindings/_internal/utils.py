"""NVIDIA's cuda.bindings._internal.utils names that Python code reaches: the exceptions its
library wrappers raise, and the C compiler the compiled modules were built with."""
from __future__ import annotations


class FunctionNotFoundError(RuntimeError):
    """A library function is not in the loaded library (what NVIDIA's nvJitLink/NVVM wrappers raise)."""


class NotSupportedError(RuntimeError):
    """The function is not supported here."""


def result_error(name: str, result, module: str, doc: str) -> type:
    """An exception class of a library's Result enum, as NVIDIA's nvJitLinkError and nvvmError:
    `status` is the Result, the message 'NAME (value)', and it pickles by its status."""

    def __init__(self, status):
        self.status = status
        try:
            text = result(status).name
        except (ValueError, TypeError):
            text = "UNKNOWN"
        Exception.__init__(self, f"{text} ({int(status)})")

    def __reduce__(self):
        return type(self), (self.status,)

    return type(name, (Exception,), {"__init__": __init__, "__reduce__": __reduce__,
                                     "__module__": module, "__doc__": doc})


def get_c_compiler() -> str:
    """'GCC <version>', 'Clang <version>' or 'Unknown': the compiler that built the alias's compiled
    modules. NVIDIA's reports the one that compiled its own from the compiler's macros; ours are
    built by the user's `pip install`, so the compiled cimport module's ELF .comment section, where
    the compiler records itself, says it (elsewhere: 'Unknown')."""
    import importlib.util
    import re
    spec = importlib.util.find_spec("cuda.bindings.cydriver")
    try:
        comments = _elf_comments(spec.origin) if spec is not None and spec.origin else []
    except (OSError, ValueError):
        comments = []
    # The linker keeps each object's entry once, in link order: the C runtime's start files (made
    # by the system's GCC, also in a clang build) come first, so clang's entry wins, else GCC's last.
    for c in comments:
        m = re.search(r"clang version (.+)", c)
        if m:
            return f"Clang {m.group(1)}"
    for c in reversed(comments):
        if c.startswith("GCC: "):
            return f"GCC {c[5:]}"
    return "Unknown"


def _elf_comments(path: str) -> list[str]:
    """The strings of ELF file `path`'s .comment section ([] for a file that is no ELF)."""
    import struct
    with open(path, "rb") as f:
        ident = f.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF" or ident[4] not in (1, 2) or ident[5] not in (1, 2):
            return []
        wide, end = ident[4] == 2, "<" if ident[5] == 1 else ">"
        f.seek(0x28 if wide else 0x20)
        shoff, = struct.unpack(end + ("Q" if wide else "I"), f.read(8 if wide else 4))
        f.seek(0x3A if wide else 0x2E)
        shentsize, shnum, shstrndx = struct.unpack(end + "HHH", f.read(6))

        def section(i: int) -> tuple[int, int, int]:   # (name offset, file offset, size)
            f.seek(shoff + i * shentsize)
            name, _, _, _, off, size = struct.unpack(end + ("IIQQQQ" if wide else "IIIIII"),
                                                     f.read(40 if wide else 24))
            return name, off, size

        _, off, size = section(shstrndx)
        f.seek(off)
        names = f.read(size)
        for i in range(shnum):
            name, off, size = section(i)
            if names[name:names.find(b"\0", name)] == b".comment":
                f.seek(off)
                return [s.decode(errors="replace") for s in f.read(size).split(b"\0") if s]
    return []
