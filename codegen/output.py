"""Writing generated files: the one writer (codegen.generate.write passes every generation's
files through it)."""
from __future__ import annotations

from . import runtime_api


def write_if_changed(path: str, text: str, written: list[str] | None = None) -> bool:
    """Write `text` to `path` unless the file already holds exactly that text.

    An unchanged file keeps its modification time, so build tools (setup.py's
    Cython step, gcc) do not redo work. `path` is appended to `written` either
    way (the list of files this run produced). Returns whether the file was written.
    """
    if path.endswith(".pyx"):
        runtime_api.check(text, path)       # every runtime entry point it names is declared
    try:
        with open(path) as f:
            same = f.read() == text
    except FileNotFoundError:
        same = False
    if not same:
        with open(path, "w") as f:
            f.write(text)
    if written is not None:
        written.append(path)
    return not same
