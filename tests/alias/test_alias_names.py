"""Every public name of NVIDIA's cuda-bindings modules exists in the alias: no accepted list.

The names come from NVIDIA's installed release (tests/oracles/cuda_bindings_oracle.py: the release the
alias follows, 13.3.x), as its describer sees them: functions, classes (enums included) and
constants that the module defines, not what it re-exports (typing.Any, ctypes). A program that
names one of them must not meet an AttributeError; what HIP cannot do answers the module's
not-supported status instead (docs/alias.rst).
"""
import pytest

import cuda_bindings_oracle as oracle

# Modules whose names are not all there yet, with what is missing; each must fail until it is
# complete (strict), so that this list only shrinks.
INCOMPLETE: dict[str, str] = {}


@pytest.fixture(scope="module")
def facts():
    try:
        return oracle.load()
    except oracle.NoRelease as e:
        pytest.skip(f"NVIDIA's cuda-bindings cannot be had here: {e}")


def _ours(module: str) -> set[str]:
    import importlib
    mod = importlib.import_module(f"cuda.bindings.{module}")
    if "hip_as_cuda" not in (getattr(mod, "__file__", "") or "") and module in oracle.MODULES[:3]:
        pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)")
    return set(dir(mod))


@pytest.mark.parametrize("module", [
    pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=INCOMPLETE[m])) if m in INCOMPLETE else m
    for m in oracle.MODULES])
def test_every_name_of_nvidias_module_exists(facts, module):
    d = facts["modules"].get(module)
    if d is None or "error" in d:
        pytest.skip(f"NVIDIA's cuda.bindings.{module} did not import in the oracle's venv")
    theirs = set(d["functions"]) | set(d["classes"]) | set(d["constants"])
    missing = sorted(theirs - _ours(module))
    assert not missing, f"{len(missing)} of {len(theirs)} names missing: {', '.join(missing)}"


@pytest.mark.parametrize("module", ["driver", "runtime", "nvrtc"])
def test_anonymous_nested_records_have_nvidias_names(facts, module):
    """anon_struct<i>/anon_union<i>: NVIDIA's names exactly (the numbering counts the anonymous
    members lifted into their parent, which have no class), each the class of the same nested
    record: it has the fields of NVIDIA's class of that name."""
    import importlib
    import re
    anon = re.compile(r"anon_(struct|union)\d+")
    theirs = {n: c for n, c in facts["modules"][module]["classes"].items() if anon.fullmatch(n)}
    _ours(module)   # skips where cuda.bindings is NVIDIA's
    mod = importlib.import_module(f"cuda.bindings.{module}")
    assert {n for n in dir(mod) if anon.fullmatch(n)} == set(theirs)
    for name, c in theirs.items():
        ours = oracle.describe_class(getattr(mod, name))   # ours also have the Pointer's ptr, is_ptr_null
        assert set(c["properties"]) <= set(ours["properties"]), name
