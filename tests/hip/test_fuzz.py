"""The seeded fuzz subset (tests/fuzz): every public function of every built module, called with
bad arguments in forked workers against the real runtime: no crash, no hang, no write past a
buffer, and bad input refused before a missing library or symbol is reached. Calls whose only
fault is an arbitrary int address are left out (ints are addresses by contract).

The full run (every candidate, the release check) is `python -m tests.fuzz --full`
(docs/design.rst, "Bad input"); CI runs this subset, bounded to a few minutes on 2 cores.
"""
from __future__ import annotations

import importlib.util
import json

import pytest

import header_facts
from conftest import ROOT, run_python

pytestmark = pytest.mark.runtime

LIBS = header_facts.names()


def _built(lib: str) -> bool:
    """Built in this checkout (not found through another install of the package)."""
    spec = importlib.util.find_spec(f"hip.{lib}")
    return spec is not None and str(spec.origin).startswith(str(ROOT / "hip"))


def test_fuzz_subset_finds_nothing(include64, tmp_path):
    built = [l for l in LIBS if _built(l)]
    report = tmp_path / "fuzz.json"
    r = run_python("", env={"HIP_PYTHON_INCLUDE": include64}, timeout=600,
                   args=["-m", "tests.fuzz", "--subset", "3", "--seed", "1", "--workers", "2",
                         "--libs", ",".join(built), "--json", str(report)])
    assert report.exists(), r.stderr[-3000:]
    rep = json.loads(report.read_text())
    assert rep["calls"] > 10 * len(built)
    assert set(rep["by_module"]) == set(built)
    assert r.returncode == 0, r.stdout[-6000:]
