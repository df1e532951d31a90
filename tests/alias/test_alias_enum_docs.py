"""Enum members carry their own docs, as cuda.bindings' (13.2 on): the enumerator's comment in
the CUDA header. cuda.core builds its error messages from them (`CUDAError: CUDA_ERROR_X:
<explanation>`), cleaned of reST roles and line breaks; before, every member answered the
class's doc ("Error codes"). The oracle: NVIDIA's release, every member of every enum class of
driver, runtime and nvrtc, cleaned the way cuda.core cleans them."""
from __future__ import annotations

import re

import pytest

import cuda_bindings_oracle as oracle

pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")

PROBE = r'''
import json
from cuda.bindings import driver, runtime, nvrtc
out = {}
for mname, mod in (("driver", driver), ("runtime", runtime), ("nvrtc", nvrtc)):
    for n in sorted(dir(mod)):
        c = getattr(mod, n)
        if not isinstance(c, type) or c.__name__ != n or not hasattr(c, "__members__"):   # NVIDIA's FastEnum
            continue
        for m in c:
            if m.__doc__ != c.__doc__:
                out[f"{mname}.{n}.{m.name}"] = m.__doc__
print(json.dumps(out))
'''


def clean(doc: str | None) -> str:
    """cuda.core's cleaning (enum_explanations_helpers.clean_enum_member_docstring), in short."""
    s = (doc or "").replace("\n:py:obj:`~.Interactions`", ' "Interactions ')
    s = re.sub(r":(?:[a-z]+:)?[a-z]+:`([^`]+)`", lambda m: re.sub(r"^~?\.", "", m.group(1)), s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"\1", s)
    s = re.sub(r"\*([^*]+)\*", r"\1", s)
    s = re.sub(r"\s+", " ", s).strip()
    # hyphens NVIDIA's line wrapping spaced ("non- applicable"), joined again
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"(?<=[0-9A-Za-z_])- (?=[0-9A-Za-z_])", "-", s)
        s = re.sub(r"(?<=[0-9A-Za-z_]) -(?=[0-9A-Za-z_])", "-", s)
    return s


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    try:
        return oracle.probe_both(PROBE, str(tmp_path_factory.mktemp("enum_docs")))
    except oracle.NoRelease as e:
        pytest.skip(str(e))


def test_error_members_explain_themselves(both):
    nvidia, ours = both
    # (NVIDIA's generator loses the comment of an enumerator written after a leading comma:
    # cudaErrorApiFailureBase has none there, its header's here)
    errors = [k for k in nvidia if k.startswith(("driver.CUresult.", "runtime.cudaError_t.")) and clean(nvidia[k])]
    assert len(errors) > 150, "few error members compared: the probe is wrong"
    missing = sorted(k for k in errors if k not in ours)
    assert not missing, f"members with no doc of their own: {missing[:10]}"
    differ = {k: (clean(nvidia[k]), clean(ours[k])) for k in errors if clean(nvidia[k]) != clean(ours[k])}
    assert not differ, f"{len(differ)} differ from NVIDIA's, e.g. {list(differ.items())[:3]}"


def test_most_members_documented_as_nvidias(both):
    nvidia, ours = both
    same = sum(1 for k, d in nvidia.items() if k in ours and clean(d) == clean(ours[k]))
    # Not the same: NVIDIA's generator names sections for some references ("Stream Memory
    # Operations" for \\ref CUDA_MEMOP), keeps `::` in runtime's, shifts the docs of CUjit_target's
    # later members by one; aliases of a value (CU_CTX_SCHED_BLOCKING_SYNC) are one member here
    assert same >= 0.9 * len(nvidia), f"{same} of {len(nvidia)} members documented as NVIDIA's"


def test_cuda_core_cleaning_of_three_pinned_examples():
    # cuda_core/tests/test_cuda_utils.py pins these (its cleanup must give exactly this text)
    from cuda.bindings import driver, runtime
    assert clean(driver.CUresult.CUDA_ERROR_INVALID_CONTEXT.__doc__).startswith(
        "This most frequently indicates that there is no context bound to the current thread. "
        "This can also be returned if the context passed to an API call is not a valid handle "
        "(such as a context that has had cuCtxDestroy() invoked on it).")
    assert clean(runtime.cudaError_t.cudaErrorIncompatibleDriverContext.__doc__).endswith(
        'Please see "Interactions with the CUDA Driver API" for more information.')
    assert driver.CUresult.__doc__ != driver.CUresult.CUDA_ERROR_INVALID_VALUE.__doc__
