"""The Python environment being installed into (not pip's isolated build environment)."""
from __future__ import annotations

import json
import subprocess
import sys

# -I: ignore PYTHONPATH, which pip points at its build environment.
_HIP_OWNERS = r"""
import importlib.metadata as md, json
owners = set()
for d in md.distributions():
    top = (d.read_text("top_level.txt") or "").split()
    files = [str(f) for f in (d.files or [])]
    if "hip" in top or any(f.startswith("hip/") for f in files):
        owners.add(d.metadata["Name"])
print(json.dumps(sorted(owners)))
"""


def other_hip_packages(ours: str, python: str = sys.executable) -> list[str]:
    """Distributions other than `ours` that install the top-level package `hip` (AMD's
    hip-python, rocm-bindings-hip): ours would overwrite their files, and theirs ours."""
    try:
        r = subprocess.run([python, "-I", "-c", _HIP_OWNERS], capture_output=True, text=True, timeout=120)
        owners = json.loads(r.stdout or "[]")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return []
    norm = lambda n: n.lower().replace("_", "-")   # noqa: E731
    return [o for o in owners if norm(o) != norm(ours)]
