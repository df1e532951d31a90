"""ROCm 5.7 builds: hip, hiprtc and hipSPARSE generated from Debian trixie's headers (the ROCm
Debian stable ships) and compiled by setup.py, as build_pkgs.sh builds the package.

hipSPARSE 5.7 has no hipsparseGetErrorString, which 6.x declares: the generated module must
work without it. About 2 minutes of CPU (Cython and gcc; 2 minutes wall on 2 cores), in a scratch
copy of the package.
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import header_facts
from conftest import ROOT, compile_and_run

LIBS = ["hip", "hiprtc", "hipsparse"]


@pytest.fixture(scope="module")
def built57(include57, tmp_path_factory) -> str:
    """A package tree (setup.py, codegen/, build_support/, hip/) in tmp: generated from 5.7, built in place."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    tree = tmp_path_factory.mktemp("rocm57")
    shutil.copy(ROOT / "setup.py", tree)
    for d in ("codegen", "build_support"):
        shutil.copytree(ROOT / d, tree / d, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "hip").mkdir()
    for pattern in ("*.py", "_*.pyx", "_*.pxd", "py.typed"):   # the package's own sources, nothing generated
        for f in glob.glob(str(ROOT / "hip" / pattern)):
            shutil.copy(f, tree / "hip")
    # hip.tensor: its compiled launch path is one of the runtime modules setup.py always builds
    shutil.copytree(ROOT / "hip" / "tensor", tree / "hip" / "tensor",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    r = subprocess.run([sys.executable, "-m", "codegen", "--include", include57, "--libs", ",".join(LIBS),
                        "--out", str(tree / "hip")], cwd=tree, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    jobs = str(min(4, os.cpu_count() or 1))
    env = dict(os.environ, HIP_PYTHON_INCLUDE=include57, HIP_PYTHON_LIBS=",".join(LIBS), HIP_PYTHON_JOBS=jobs,
               HIP_PYTHON_NVIDIA="no", HIP_PYTHON_OPT="-O0")   # a throwaway build: what it binds, not its speed
    r = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace", "-j", jobs],
                       cwd=tree, env=env, capture_output=True, text=True)
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    return str(tree)


def run_in(tree: str, code: str) -> str:
    """Run Python with only the scratch tree's package importable; return its stdout."""
    env = dict(os.environ, PYTHONPATH=tree)
    r = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-4000:]
    return r.stdout


def test_modules_are_the_5_7_build(built57):
    out = json.loads(run_in(built57, f"""
import json, importlib
mods = {{l: importlib.import_module("hip." + l) for l in {LIBS!r}}}
print(json.dumps({{l: [m.__rocm_version__, m.__file__] for l, m in mods.items()}}))
"""))
    for lib in LIBS:
        version, path = out[lib]
        assert version.startswith("5.7."), (lib, version)
        assert path.startswith(built57) and path.endswith(".so"), path


def test_every_header_function_is_bound(built57, include57):
    funcs = {lib: sorted(header_facts.functions(include57, lib)) for lib in LIBS}
    assert "hipsparseGetErrorString" not in funcs["hipsparse"]   # what made 5.7 fail to build
    assert len(funcs["hipsparse"]) > 400 and len(funcs["hip"]) > 300
    missing = json.loads(run_in(built57, f"""
import json, importlib
funcs = {json.dumps(funcs)}
print(json.dumps({{l: [n for n in names if not callable(getattr(importlib.import_module("hip." + l), n, None))]
                  for l, names in funcs.items()}}))
"""))
    assert missing == {lib: [] for lib in LIBS}


def test_struct_sizes_match_gcc(built57, include57, tmp_path):
    names = ["hipDeviceProp_t", "hipPointerAttribute_t", "hipMemcpy3DParms"]
    lines = "\n".join(f'    printf("%zu\\n", sizeof({n}));' for n in names)
    expect = compile_and_run(tmp_path, "#include <stdio.h>\n#include <hip/hip_runtime_api.h>\n"
                             f"int main(void) {{\n{lines}\n    return 0;\n}}\n", include57).split()
    got = run_in(built57, f"from hip import hip\nfor n in {names!r}: print(getattr(hip, n)._size_)").split()
    assert got == expect


def test_hipsparse_status_without_error_string(built57):
    """check() raises HipError named after the status; 5.7 has no function to describe it."""
    out = json.loads(run_in(built57, """
import json, hip
from hip import hipsparse
s = hipsparse.hipsparseStatus_t.HIPSPARSE_STATUS_INVALID_VALUE
try:
    hip.check((s, None))
except hip.HipError as e:
    print(json.dumps([e.name, e.message, int(e.code), hasattr(hipsparse, "hipsparseGetErrorString")]))
"""))
    assert out == ["HIPSPARSE_STATUS_INVALID_VALUE", "HIPSPARSE_STATUS_INVALID_VALUE", 3, False]
