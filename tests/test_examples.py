"""Every examples/*.py runs: exit 0 passes, exit 77 means "needs a GPU" (skip), anything else fails.

The library examples (hipblas_*, hiprand_*, hipfft_*, hipsparse_*, hipsolver_*, rccl_*) also run
end to end against tests/fakelib/fake_gpu.c, a CPU stand-in for the HIP runtime and the libraries
that checks its arguments as the real ones document them: on a machine without a GPU they would
otherwise only ever be skipped.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

import header_facts
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



LIBRARY_EXAMPLES = [p for p in EXAMPLES if p.name.split("_")[0] in header_facts.SIX]


@pytest.fixture(scope="module")
def fake_gpu(include64, tmp_path_factory):
    cc = shutil.which("gcc")
    if cc is None:
        pytest.skip("no gcc")
    so = tmp_path_factory.mktemp("fake_gpu") / "libfake_gpu.so"
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-D__HIP_PLATFORM_AMD__", f"-I{include64}",
                        str(ROOT / "tests" / "fakelib" / "fake_gpu.c"), "-o", str(so), "-lm"],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"gcc failed:\n{r.stderr[-4000:]}"
    return str(so)


def test_every_library_has_an_example():
    assert {p.name.split("_")[0] for p in LIBRARY_EXAMPLES} == set(header_facts.SIX)


@pytest.mark.parametrize("path", LIBRARY_EXAMPLES, ids=[p.name for p in LIBRARY_EXAMPLES])
def test_library_example_on_fake_gpu(path, fake_gpu):
    env = {f"HIP_PYTHON_{lib.upper()}_LIBRARY": fake_gpu for lib in ["hip"] + header_facts.SIX}
    env["FAKE_GPU_DEVICES"] = "2"
    r = run_python("", args=[str(path)], env=env, timeout=240)
    output = f"--- stdout ---\n{r.stdout[-4000:]}\n--- stderr ---\n{r.stderr[-4000:]}"
    assert r.returncode == 0, f"{path.name} exited {r.returncode} on the fake GPU\n{output}"
    assert r.stdout.strip().splitlines()[-1] == "ok", output


@pytest.mark.parametrize("path", LIBRARY_EXAMPLES, ids=[p.name for p in LIBRARY_EXAMPLES])
def test_library_example_without_its_library_skips(path, fake_gpu):
    """A GPU but no library: the example says which library is missing and exits 77."""
    lib = path.name.split("_")[0]
    env = {f"HIP_PYTHON_{lib.upper()}_LIBRARY": f"/nonexistent/lib{lib}.so", "HIP_PYTHON_HIP_LIBRARY": fake_gpu}
    r = run_python("", args=[str(path)], env=env, timeout=120)
    assert r.returncode == SKIP, f"{path.name} exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert f"the {lib} library cannot be loaded" in r.stdout, r.stdout
