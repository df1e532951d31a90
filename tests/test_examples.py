"""Every examples/*.py runs: exit 0 passes, exit 77 means "needs a GPU" (skip), anything else fails."""
from __future__ import annotations

import pytest

from conftest import ROOT, run_python

EXAMPLES = sorted((ROOT / "examples").glob("*.py")) if (ROOT / "examples").is_dir() else []
SKIP = 77


@pytest.mark.skipif(not EXAMPLES, reason="examples/ holds no *.py files yet")
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    r = run_python("", args=[str(path)], timeout=240)
    output = f"--- stdout ---\n{r.stdout[-4000:]}\n--- stderr ---\n{r.stderr[-4000:]}"
    if r.returncode == SKIP:
        pytest.skip(f"{path.name} needs a GPU: {(r.stdout.strip().splitlines() or [''])[-1]}")
    assert r.returncode == 0, f"{path.name} exited {r.returncode}\n{output}"

