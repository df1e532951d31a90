"""Every examples/*.py runs: exit 0 passes, exit 77 means "needs a GPU" (skip), anything else fails.

On a machine without a GPU they skip; tools/gpu_check.sh runs them on the NVIDIA platform, where
each library example must also say which library is missing when its library cannot be loaded.
The cuda_*.py examples are CUDA Python programs (NVIDIA's cuda-bindings API): they run through our
alias, `python -m hip_as_cuda`, once hip_as_cuda exists.
"""
from __future__ import annotations

import importlib.util
import re

import pytest

import header_facts
from conftest import ROOT, run_python

# _gpu.py is the examples' shared GPU check, not an example
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_"))
SKIP = 77


@pytest.mark.skipif(not EXAMPLES, reason="examples/ holds no *.py files yet")
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
@pytest.mark.runtime
def test_example_runs(path):
    alias = path.name.startswith("cuda_") and importlib.util.find_spec("hip_as_cuda") is not None
    r = run_python("", args=(["-m", "hip_as_cuda"] if alias else []) + [str(path)], timeout=240)
    output = f"--- stdout ---\n{r.stdout[-4000:]}\n--- stderr ---\n{r.stderr[-4000:]}"
    if r.returncode == SKIP:
        pytest.skip(f"{path.name} needs a GPU: {(r.stdout.strip().splitlines() or [''])[-1]}")
    assert r.returncode == 0, f"{path.name} exited {r.returncode}\n{output}"


# Examples are named <library>_<what>.py; those that ask _gpu.require_gpu() for their library
# must say so when its file cannot be loaded.
LIBRARY_EXAMPLES = [p for p in EXAMPLES if re.search(r"require_gpu\(\s*\w", p.read_text())]


def test_examples_are_named_after_a_library():
    """<library>_<what>.py, or cuda_<what>.py for the CUDA Python programs the `cuda` alias runs."""
    libraries = set(header_facts.names()) | {"cuda"}
    assert [p.name for p in EXAMPLES if p.name.split("_")[0] not in libraries] == []


@pytest.mark.gpu
@pytest.mark.parametrize("path", LIBRARY_EXAMPLES, ids=[p.name for p in LIBRARY_EXAMPLES])
def test_library_example_without_its_library_skips(path):
    """A GPU but no library: the example says which library is missing and exits 77."""
    lib = path.name.split("_")[0]
    env = {f"HIP_PYTHON_{lib.upper()}_LIBRARY": f"/nonexistent/lib{lib}.so"}
    r = run_python("", args=[str(path)], env=env, timeout=120)
    assert r.returncode == SKIP, f"{path.name} exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert f"the {lib} library cannot be loaded" in r.stdout, r.stdout
