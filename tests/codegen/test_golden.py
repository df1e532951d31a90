"""The emitters' output for small headers equals the checked-in files (tests/codegen/golden/).

A failure prints the diff; when the change is intended, `python -m tests.codegen.golden --update`
rewrites the expected files, and the diff goes into the commit.
"""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import golden


def test_generated_files_equal_the_golden_files(tmp_path):
    golden.generate(tmp_path)
    diffs = golden.differences(tmp_path)
    assert not diffs, f"{len(diffs)} generated file(s) differ from tests/codegen/golden/expected " \
        "(python -m tests.codegen.golden --update accepts them):\n" + "\n".join(diffs)[:20000]


def test_golden_layer_c_compiles(tmp_path):
    """The NVIDIA layer's golden C is valid C against its CUDA-side header."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    r = subprocess.run([cc, "-fsyntax-only", "-std=gnu11", "-Wall", "-Werror", "-Wno-unused-function",
                        f"-I{golden.HEADERS / 'cuda'}", str(golden.EXPECTED / "nvidia" / "hipnv_demo.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]


def test_golden_modules_translate_with_cython(tmp_path):
    """Cython accepts every golden .pyx (translation only: the C headers are not needed)."""
    pytest.importorskip("Cython")
    pkg = tmp_path / "hip"
    pkg.mkdir()
    for f in [*(golden.ROOT / "hip").glob("*.pxd"), *golden.EXPECTED.glob("*.pxd"), *golden.EXPECTED.glob("*.pyx")]:
        shutil.copy(f, pkg)
    (pkg / "__init__.py").write_text("")
    for pyx in sorted(golden.EXPECTED.glob("*.pyx")):
        r = subprocess.run([sys.executable, "-m", "cython", "-3", "-I", str(tmp_path), "-o",
                            str(tmp_path / f"{pyx.stem}.c"), str(pkg / pyx.name)], capture_output=True, text=True)
        assert r.returncode == 0, f"{pyx.name}:\n{r.stdout[-3000:]}{r.stderr[-3000:]}"


def test_plans_of_the_demo_library():
    """What the plan decides, by role, for a few demo.h functions (the golden files show the Cython)."""
    from codegen import generate, plan, spec as specmod
    specs = {n: specmod.load(n, str(golden.SPECS)) for n in ("demo",)}
    module = generate.build_ir(specs["demo"], str(golden.HEADERS), specs)
    types = generate.analyse(module, specs["demo"], [], specs)
    plans = {fp.fn.name: fp for fp in plan.build(module, specs["demo"], types)}

    def roles(name):
        return [pp.role for pp in plans[name].params]
    assert roles("demoGetCount") == ["out_number"] and [e for e, _ in plans["demoGetCount"].returned] == ["_status(_r)", "_0"]
    assert roles("demoMalloc") == ["out_pointer", "int"]
    assert roles("demoExchangeMode") == ["inout_enum"]
    assert roles("demoProgramDestroy") == ["ref"]
    assert roles("demoAddCallback") == ["handle", "callback", "callback_data", "int"]
    assert plans["demoAddCallback"].callback.param.name == "callback"
    assert roles("demoLaunch") == ["pointer", "struct", "struct", "kernel_params", "packed", "handle"]
    assert plans["demoLaunch"].keep and not plans["demoGetCount"].keep
    assert [plans[f].result.kind for f in ("demoStatusOf", "demoReset", "demoVersion")] == ["status", "void", "value"]
    assert plans["demoDot"].guard is not None and plans["demoAxpy"].guard is not None
    assert plans["demoIaxpy"].guard is None and plans["demoGetSizes"].guard is None   # no host result / no handle
    assert "demoInternal" not in plans and "demoPrintf" not in plans                 # skipped, variadic
