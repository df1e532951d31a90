"""Shared by the examples: exit with status 77 ("skipped", as the test suite reads it) when there
is no GPU, or when a library an example needs cannot be loaded."""
import sys

import hip
from hip import hip as h


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def require_gpu(*libraries):
    """Return the number of GPUs; exit 77 without one, or when a module of `libraries`
    (hipblas, rccl, ...) cannot load its shared library."""
    try:
        err, count = h.hipGetDeviceCount()
    except hip.LibraryNotFoundError as e:
        skip(f"no HIP runtime ({e})")
    if err != h.hipError_t.hipSuccess or count == 0:
        skip(f"no GPU ({err.name})")
    for lib in libraries:
        try:
            lib._library.load()
        except hip.LibraryNotFoundError as e:
            skip(f"the {e.library} library cannot be loaded (set {e.env})")
    return count
