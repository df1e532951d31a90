"""The Python environment being installed into (not pip's isolated build environment)."""
from __future__ import annotations

import json
import subprocess
import sys

# -I: ignore PYTHONPATH, which pip points at its build environment.
_OWNERS = r"""
import importlib.metadata as md, json, sys
path = sys.argv[1]
owners = set()
for d in md.distributions():
    top = (d.read_text("top_level.txt") or "").split()
    files = [str(f) for f in (d.files or [])]
    if path in top or any(f.startswith(path + "/") for f in files):
        owners.add(d.metadata["Name"])
print(json.dumps(sorted(owners)))
"""


def _owners(path: str, ours: str, python: str) -> list[str]:
    try:
        r = subprocess.run([python, "-I", "-c", _OWNERS, path], capture_output=True, text=True, timeout=120)
        owners = json.loads(r.stdout or "[]")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return []
    norm = lambda n: n.lower().replace("_", "-")   # noqa: E731
    return [o for o in owners if norm(o) != norm(ours)]


def other_hip_packages(ours: str, python: str = sys.executable) -> list[str]:
    """Distributions other than `ours` that install the top-level package `hip` (AMD's
    hip-python, rocm-bindings-hip): ours would overwrite their files, and theirs ours."""
    return _owners("hip", ours, python)


def cuda_bindings_packages(ours: str, python: str = sys.executable) -> list[str]:
    """Distributions that install `cuda/bindings` (NVIDIA's cuda-bindings, cuda-python 12's
    cuda-python): where one is, our alias is not installed as `cuda` (python -m hip_as_cuda)."""
    return _owners("cuda/bindings", ours, python)
