"""The `cuda` alias against NVIDIA's cuda.bindings (issue 12, item 6): every program in programs/
runs twice on the same GPU, once with NVIDIA's package (`python prog.py`) and once through our alias
(`python -m hip_as_cuda prog.py`); both must exit 0 with the same stdout.

The programs are written as users of cuda-bindings 13.x write them and print only deterministic
results (values checked against NumPy, statuses by name), never addresses or times. Skipped without
a GPU (tests/conftest.py), without NVIDIA's cuda-bindings seeing a device, or without hip_as_cuda.

NVIDIA's side runs without this repository on PYTHONPATH (our `cuda` must not shadow theirs). The
legacy programs (`from cuda import cuda, cudart, nvrtc`) need modules that cuda-bindings 13 removed:
NVIDIA's side then gets stand-ins that are what 12.9's deprecated modules were, `from
cuda.bindings.<module> import *`.
"""
from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.gpu

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
PROGRAMS = sorted(p for p in PROGRAMS_DIR.glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 300
LEGACY_SHIM = '''import warnings as _warnings

from cuda.bindings.{module} import *

_warnings.warn("The cuda.{name} module is deprecated and will be removed in a future release, "
               "please switch to use the cuda.bindings.{module} module instead.", FutureWarning, stacklevel=2)
'''


def _without_repo(pythonpath: str) -> str:
    keep = [p for p in pythonpath.split(os.pathsep)
            if p and not os.path.realpath(p).startswith(os.path.realpath(ROOT))]
    return os.pathsep.join(keep)


class Runners:
    def __init__(self, work: Path):
        self.work = work
        self.nvidia_env = dict(os.environ)
        self.nvidia_env["PYTHONPATH"] = _without_repo(os.environ.get("PYTHONPATH", ""))
        self.alias_env = dict(os.environ)
        self.alias_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        self.legacy_env = self.nvidia_env

    def run(self, args, env, timeout=TIMEOUT):
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                              cwd=str(self.work), timeout=timeout)

    def nvidia(self, program: Path):
        legacy = "from cuda import" in program.read_text()
        return self.run([str(program)], self.legacy_env if legacy else self.nvidia_env)

    def ours(self, program: Path):
        return self.run(["-m", "hip_as_cuda", str(program)], self.alias_env)


def _last_line(r) -> str:
    lines = (r.stderr or r.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit status {r.returncode}"


@pytest.fixture(scope="module")
def runners(tmp_path_factory) -> Runners:
    run = Runners(tmp_path_factory.mktemp("alias_programs"))
    r = run.run(["-c", textwrap.dedent("""
        import json, os
        import cuda.bindings
        from cuda.bindings import runtime
        err, n = runtime.cudaGetDeviceCount()
        print(json.dumps([os.path.dirname(cuda.bindings.__file__), cuda.bindings.__version__, n if err == 0 else 0,
                          err.name]))
    """)], run.nvidia_env, timeout=120)
    if r.returncode != 0:
        pytest.skip(f"NVIDIA's cuda-bindings is not usable here: {_last_line(r)}")
    where, version, devices, status = json.loads(r.stdout.strip().splitlines()[-1])
    if os.path.realpath(where).startswith(os.path.realpath(ROOT)):
        pytest.skip(f"cuda.bindings resolves to {where}, inside this repository, not NVIDIA's package")
    if devices == 0:
        pytest.skip(f"NVIDIA's cuda-bindings {version} sees no device ({status})")
    r = run.run(["-c", "import hip_as_cuda"], run.alias_env, timeout=120)
    if r.returncode != 0:
        pytest.skip(f"hip_as_cuda is not importable: {_last_line(r)}")
    if run.run(["-c", "import cuda.cuda"], run.nvidia_env, timeout=120).returncode != 0:
        shim = run.work / "legacy-shim" / "cuda"          # a portion of NVIDIA's `cuda` namespace package
        shim.mkdir(parents=True)
        for name, module in (("cuda", "driver"), ("cudart", "runtime"), ("nvrtc", "nvrtc")):
            (shim / f"{name}.py").write_text(LEGACY_SHIM.format(name=name, module=module))
        run.legacy_env = dict(run.nvidia_env)
        run.legacy_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(shim.parent), run.nvidia_env["PYTHONPATH"]) if p)
    return run


def _report(label: str, program: Path, r) -> str:
    return f"{program.name} {label} exited {r.returncode}\n--- stdout ---\n{r.stdout[-3000:]}\n--- stderr ---\n{r.stderr[-3000:]}"


def test_alias_takes_the_cuda_imports(runners):
    """Through `-m hip_as_cuda`, cuda.bindings is ours even though NVIDIA's is installed."""
    probe = runners.work / "which_cuda.py"
    probe.write_text("import cuda.bindings.driver as d, cuda.bindings.runtime as r, cuda.bindings.nvrtc as n\n"
                     "print(d.__file__); print(r.__file__); print(n.__file__)\n")
    theirs, ours = runners.nvidia(probe), runners.ours(probe)
    assert theirs.returncode == 0, _report("with NVIDIA's cuda.bindings", probe, theirs)
    assert ours.returncode == 0, _report("through hip_as_cuda", probe, ours)
    for t, o in zip(theirs.stdout.split(), ours.stdout.split()):
        assert os.path.dirname(t) != os.path.dirname(o), f"hip_as_cuda ran NVIDIA's module {o}"


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_same_output_as_cuda_bindings(program, runners):
    theirs = runners.nvidia(program)
    assert theirs.returncode == 0, "the program fails with NVIDIA's own cuda.bindings: fix the program\n" + \
        _report("with NVIDIA's cuda.bindings", program, theirs)
    ours = runners.ours(program)
    assert ours.returncode == 0, _report("through hip_as_cuda", program, ours) + \
        f"\n--- NVIDIA's stdout ---\n{theirs.stdout[-3000:]}"
    diff = "\n".join(difflib.unified_diff(theirs.stdout.splitlines(), ours.stdout.splitlines(),
                                          "cuda.bindings", "hip_as_cuda", lineterm=""))
    assert ours.stdout == theirs.stdout, f"{program.name}: outputs differ\n{diff}"
