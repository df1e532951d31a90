"""Classes made on first use (a spec's conventions.lazy_classes, codegen/emit/lazy.py): which
enum classes and typedef subclasses the emitter keeps eager, and, in the alias's real generated
modules, that a lazily made class behaves as one made at import (identity under every name,
isinstance, pickling, dir(), `import *`, the functions that take and return it), in a fresh
interpreter where nothing has touched the classes yet."""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys

import pytest

from conftest import GOLDEN, HEADERS, ROOT

BINDINGS = ROOT / "hip_as_cuda" / "cuda" / "bindings"


def emit_lazy_demo(manual: str = "", lazy: bool = True) -> str:
    """tests/codegen/headers/lazy_classes.h through the emitter, with the golden spec
    tests/codegen/golden/specs/lazy.yaml."""
    from codegen import generate, plan, spec as specmod
    from codegen.emit import pylayer
    spec = specmod.load("lazy", str(GOLDEN / "specs"))
    if not lazy:
        spec = dataclasses.replace(spec, conventions=dataclasses.replace(spec.conventions, lazy_classes=""))
    specs = {"lazy": spec}
    module = generate.build_ir(spec, str(HEADERS), specs)
    types = generate.analyse(module, spec, [], specs)
    return pylayer.emit(module, spec, types, specs, plan.build(module, spec, types), manual=manual)


def test_only_classes_function_bodies_use_are_made_on_first_use():
    out = emit_lazy_demo()
    # lazyMode: only calls take and return it: made on first use, under all its names
    assert "\nlazyMode_t = _enum.define" not in out and "\nlazyMode = " not in out and "\n_lazyMode__Base" not in out
    assert "_p.enum_arg(_cls_lazyMode(), mode, 0)" in out and "_enum.member(_cls_lazyMode(), _0)" in out
    assert "cdef dict _lazy_enum_names = {'lazyMode_t': 'lazyMode_t', 'lazyMode': 'lazyMode_t', " \
           "'_lazyMode__Base': 'lazyMode_t', 'lazyKind_t'" in out
    assert "    'lazyMode_t': ('LAZY_MODE_A 0 LAZY_MODE_B 1', \"\"\"\"\"\", False, '', None)," in out
    assert "        _cls_lazyMode_obj = _lazy_enum('lazyMode')" in out
    # the status enum (status helpers) stays as it was
    for kept in ("lazyStatus_t = _enum.define", "_enum.member(lazyStatus_t, v)"):
        assert kept in out
    # a struct field's enum: the field table names it, found on the field's first read
    assert "\nlazyKind_t = _enum.define" not in out and "    'lazyKind_t': ('LAZY_KIND_X 0 LAZY_KIND_Y 2'," in out
    assert "'enum', hip_py_layout_lazyDesc_st[2], 0, 'lazyKind', 0, -1)" in out
    # typedef subclasses only a call returns: made on first use (the base first), through an accessor
    assert "\nlazyDesc = type(" not in out and "\nlazyDesc_v1 = type(" not in out
    assert "cdef dict _lazy_subclass_bases = {'lazyDesc_v1': 'lazyDesc_st', 'lazyDesc': 'lazyDesc_v1'}" in out
    assert "    _o0 = _cls_lazyDesc()()" in out and "_lazy_subclass('lazyDesc')" in out
    assert "def __getattr__(name):" in out and "def __dir__():" in out


def test_classes_a_hand_written_tail_names_are_made_at_import():
    out = emit_lazy_demo(manual="\ndef make_desc():\n    return lazyDesc()\n")
    assert out.endswith("\ndef make_desc():\n    return lazyDesc()\n")
    # lazyDesc is eager, and so is its base; the body's accessor is then the module global
    assert "\nlazyDesc_v1 = type('lazyDesc_v1', (lazyDesc_st,)" in out and "\nlazyDesc = type('lazyDesc', (lazyDesc_v1,)" in out
    assert "cdef dict _lazy_subclass_bases = {}" in out
    assert "cdef inline object _cls_lazyDesc():\n    return lazyDesc\n" in out


def test_without_the_convention_every_class_is_made_at_import():
    out = emit_lazy_demo(lazy=False)
    assert "_cls_" not in out and "_lazy_" not in out and "__getattr__" not in out
    assert "\nlazyMode_t = _enum.define" in out and "\nlazyDesc = type('lazyDesc', (lazyDesc_v1,)" in out
    assert "_p.enum_arg(lazyMode, mode, 0)" in out and "    _o0 = lazyDesc()" in out


def _generated(name: str) -> str:
    path = BINDINGS / f"{name}.pyx"
    if not path.exists():
        pytest.skip("the cuda alias is not generated")
    return path.read_text()


def _lazy_sets(text: str) -> tuple[set[str], set[str]]:
    enums = re.search(r"^cdef dict _lazy_enum_args = \{(.*?)^\}$", text, re.M | re.S)
    subs = re.search(r"^cdef dict _lazy_subclass_bases = \{(.*)\}$", text, re.M)
    return (set(re.findall(r"^    '(\w+)': \(", enums.group(1), re.M)) if enums else set(),
            set(re.findall(r"'(\w+)': '\w+'", subs.group(1))) if subs else set())


def test_the_generated_alias_modules_make_rarely_used_classes_on_first_use():
    """The real modules: most classes lazy, the status enums and what module-level code names eager."""
    driver, runtime, nvrtc = (_generated(m) for m in ("driver", "runtime", "nvrtc"))
    enums, subs = _lazy_sets(driver)
    assert len(enums) > 50 and len(subs) > 100
    assert {"CUdevice_attribute", "CUjit_option"} <= enums and "CUDA_MEMCPY3D" in subs
    assert "CUresult" not in enums and "\nCUresult = _enum.define(" in driver          # the status helpers
    assert "CUarray_format" in enums and "0, 'CUarray_format_enum', 0, -1)" in driver   # a struct field's
    assert "_p.enum_arg(_cls_CUdevice_attribute_enum(), attrib, 1)" in driver and "\n    _o1 = _cls_CUDA_MEMCPY3D()()" in driver
    enums, subs = _lazy_sets(runtime)
    assert "cudaDeviceAttr" in enums and "cudaError_t" not in enums
    # a class a hand-written tail names (make_cudaPitchedPtr) is defined at import
    for name in re.findall(r"\b(cuda\w+)\(", (ROOT / "hip_as_cuda" / "manual" / "py_runtime.pyx").read_text()):
        assert name not in enums | subs
    assert _lazy_sets(nvrtc) == (set(), set()) and "__getattr__" not in nvrtc


CHILD = r'''
import enum, pickle, threading
from cuda.bindings import driver, runtime
lazy = [n for n in ("CUdevice_attribute", "CUjit_option", "cudaDeviceAttr") if n not in vars(driver) and n not in vars(runtime)]
assert len(lazy) == 3, lazy
# a function's enum argument before anything touched the class: member and int alike
st, v = driver.cuDeviceGetAttribute(1, 0)
assert isinstance(st, driver.CUresult), st       # no device here; CUDA_SUCCESS on a GPU
assert "CUdevice_attribute" in vars(driver)          # made by the call, bound under its names
E = driver.CUdevice_attribute
assert E is driver.CUdevice_attribute_enum is driver._CUdevice_attribute_enum__Base
m = E.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
assert driver.cuDeviceGetAttribute(m, 0)[0] is st
assert isinstance(m, enum.IntEnum) and m == 1 and E(1) is m and pickle.loads(pickle.dumps(m)) is m
assert str(m) == "<CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1>"
# cuda.bindings hands any int to C, which refuses a value no member has; one past C's int is an OverflowError
assert driver.cuDeviceGetAttribute(10 ** 6, 0) == (driver.CUresult.CUDA_ERROR_INVALID_VALUE, None)
try:
    driver.cuDeviceGetAttribute(2 ** 40, 0)
except OverflowError:
    pass
else:
    raise AssertionError("a value past C's int is refused")
# first made by attribute access, from several threads at once: one class
got = []
ts = [threading.Thread(target=lambda: got.append(driver.CUjit_option)) for _ in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
assert len({id(c) for c in got}) == 1 and got[0] is driver.CUjit_option_enum
# a struct field's enum class, made by the field's first read
assert "CUarray_format" not in vars(driver)
f = driver.CUDA_ARRAY_DESCRIPTOR(Format=2).Format
assert type(f) is driver.CUarray_format is driver.CUarray_format_enum and f == 2
assert driver.CUDA_ARRAY_DESCRIPTOR(Format=f).Format is f
assert "cudaDeviceAttr" in dir(runtime) and "cudaDeviceAttr" not in vars(runtime)
ns = {}
exec("from cuda.bindings.runtime import *", ns)
assert ns["cudaDeviceAttr"] is runtime.cudaDeviceAttr and not hasattr(runtime, "__all__")
try:
    driver.no_such_name
except AttributeError as e:
    assert "no_such_name" in str(e)
print("ok")
'''


def test_lazy_enum_classes_behave_as_eager_ones(tmp_path):
    driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")
    if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
        pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)")
    prog = tmp_path / "prog.py"
    prog.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda", str(prog)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
