"""One process at a time in a cache directory: parallel test workers (pytest-xdist) download and
install the oracles' releases (wheels, side venvs, extracted JSON) once, not over each other.
Re-entrant within a process, so a locked function may call another."""
from __future__ import annotations

import contextlib
import fcntl
import os
import threading

_held: dict[str, list] = {}      # directory -> [open lock file, depth]
_guard = threading.RLock()


@contextlib.contextmanager
def locked(directory: str):
    directory = os.path.abspath(directory)
    with _guard:
        entry = _held.get(directory)
        if entry is None:
            os.makedirs(directory, exist_ok=True)
            f = open(os.path.join(directory, ".lock"), "w")
            fcntl.flock(f, fcntl.LOCK_EX)
            entry = _held[directory] = [f, 0]
        entry[1] += 1
        try:
            yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                fcntl.flock(entry[0], fcntl.LOCK_UN)
                entry[0].close()
                del _held[directory]
