"""Under `python -m hip_as_cuda` the process's cuda.bindings are the alias's, and so is what
importlib.metadata says of `cuda-bindings`: programs and NVIDIA's cuda.core read
`version("cuda-bindings")` before they use the bindings."""
from __future__ import annotations

import json

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
