"""Function parity with AMD's HIP Python release for the same ROCm version (the oracle).

For every function both bind: the same parameters (names, order, count, defaults) and the same
returned tuple (length, and whether it starts with a status), read from AMD's own Cython sources
(its `return` statements, not its docstrings) and from our generated ones. The exceptions are the
specs' `parity_deviations` (AMD's binding contradicts the C declaration), each of which must still
match a function that differs: a stale entry fails too.
"""
from __future__ import annotations

import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import amd_hip_python as amd  # noqa: E402
import parity_report  # noqa: E402

from codegen import spec as specmod  # noqa: E402
from codegen.generate import header_version  # noqa: E402


@pytest.fixture(scope="module")
def compared(include64):
    version = ".".join(header_version(include64).split(".")[:2])
    try:
        wheel = amd.find_release(version)
    except amd.NoRelease as e:
        pytest.skip(str(e))
    A = amd.load(wheel, values=False)
    O = amd.load_ours(str(ROOT / "hip"))
    missing = [m for m in A if m not in O]
    if missing:
        pytest.skip(f"not built here: {', '.join(missing)}")
    return parity_report.compare_functions(A, O, parity_report.CSide(str(ROOT), include64))


def _deviations(lib):
    return specmod.load(lib).parity_deviations if lib in specmod.all_libraries() else {}


@pytest.mark.parametrize("lib", amd.MODULES)
def test_functions_match_amds(compared, lib):
    if lib not in compared["diffs"]:
        pytest.skip(f"{lib} is not built here")
    dev = _deviations(lib)
    left = [d for d in compared["diffs"][lib]
            if not any(re.fullmatch(p, d["function"]) for p in dev)]
    assert not left, "\n".join(
        f"{d['function']}: AMD {d['amd_sig']} -> {d['amd_returns']} ({d['amd_first']}), "
        f"ours {d['our_sig']} -> {d['our_returns']} ({d['our_first']})" for d in left[:30])


@pytest.mark.parametrize("lib", amd.MODULES)
def test_every_deviation_is_still_one(compared, lib):
    if lib not in compared["diffs"]:
        pytest.skip(f"{lib} is not built here")
    differing = [d["function"] for d in compared["diffs"][lib]]
    stale = [p for p in _deviations(lib) if not any(re.fullmatch(p, f) for f in differing)]
    assert not stale, f"{lib}.yaml parity_deviations match no differing function: {stale}"


def test_only_amd_functions_are_missing_from_our_headers(compared):
    """A function AMD binds and we do not is one our headers lack (an older library), never one we skip."""
    bad = {m: [(n, why) for n, why in v if "not in our headers" not in why]
           for m, v in compared["only_amd"].items()}
    assert not any(bad.values()), bad
