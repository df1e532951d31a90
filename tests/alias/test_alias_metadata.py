"""Under `python -m hip_as_cuda` the process's cuda.bindings are the alias's, and so is what
importlib.metadata says of `cuda-bindings`: programs and NVIDIA's cuda.core read
`version("cuda-bindings")` before they use the bindings."""
from __future__ import annotations

import json

import pytest

from conftest import run_python

PROBE = """
import importlib.metadata as m, json, cuda.bindings
out = {"version": m.version("cuda-bindings"), "underscore": m.version("cuda_bindings"),
       "name": m.metadata("cuda-bindings")["Name"], "module": cuda.bindings.__version__,
       "listed": any((d.metadata["Name"] or "") == "cuda-bindings" and "hip_as_cuda" in str(d.locate_file(""))
                     for d in m.distributions())}
print(json.dumps(out))
"""


def test_cuda_bindings_metadata_is_the_alias_release(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    r = run_python("", args=["-m", "hip_as_cuda", str(script)])
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["version"] == got["underscore"] == got["module"]
    assert got["version"].startswith("13.") and got["name"] == "cuda-bindings"
    assert not got["listed"]        # answered by name only: no distribution that pip would list


CHILDREN = """
import json, multiprocessing as mp, os, subprocess, sys

def where(q):
    import cuda.bindings.driver as d
    q.put(d.__file__)

if __name__ == "__main__":
    child = subprocess.run([sys.executable, "-c", "import cuda.bindings.driver as d; print(d.__file__)"],
                           capture_output=True, text=True)
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=where, args=(q,))
    p.start()
    spawned = q.get(timeout=120)
    p.join()
    print(json.dumps({"subprocess": child.stdout.strip() or child.stderr[-300:], "spawned": spawned}))
"""


def test_python_processes_a_program_starts_take_the_alias(tmp_path):
    # pytest-xdist's workers and multiprocessing's spawned ones are new interpreters: without
    # hip_as_cuda/_children they would import the cuda.bindings first on the path, here NVIDIA's
    # (the oracle's release, put before everything else)
    import subprocess
    import sys
    import cuda_bindings_oracle as oracle
    try:
        py = oracle.ensure_venv(oracle.find_release())
    except oracle.NoRelease as e:
        pytest.skip(str(e))
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True).stdout.strip()
    if f"{sys.version_info[0]}.{sys.version_info[1]}" not in site:
        pytest.skip("the oracle's venv is of another Python")
    script = tmp_path / "children.py"
    script.write_text(CHILDREN)
    r = run_python("", args=[str(script)], env={"PYTHONPATH": site})
    assert "hip_as_cuda" not in r.stdout, "NVIDIA's release is not first on the path: the test proves nothing"
    r = run_python("", args=["-m", "hip_as_cuda", str(script)], env={"PYTHONPATH": site})
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert all("hip_as_cuda" in got[k] for k in ("subprocess", "spawned")), got
