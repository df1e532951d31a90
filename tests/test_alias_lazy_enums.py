"""The alias's enum classes made on first use (codegen/alias/lazy_enums.py): what the rewrite keeps
eager, and that a lazily made class behaves as one made at import (identity under every name,
isinstance, pickling, dir(), `import *`, the functions that take and return it), in a fresh
interpreter where nothing has touched the classes yet."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from codegen.alias.lazy_enums import lazy

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")
if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
    pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)", allow_module_level=True)

MODULE = '''\
from hip import _enum
Status = _enum.define('Status', 'OK 0 BAD 1', __name__, """status""", style='cuda')
status_enum = Status
Kind = _enum.define('Kind', 'A 0 B 1', __name__, """kinds
of things""", signed=True)
kind_enum = Kind
_kind_enum__Base = kind_enum   # a comment
Field = _enum.define('Field', 'X 0', __name__, """""")
Own = _enum.define('Own', 'Y 0', __name__, """""")
S = _struct.define('S', 4, (
    ('f', 0, 'enum', 4, 0, Field, 0, -1),), __name__, """Kind and Own in a docstring""", None)
cdef object _SUCCESS = Status.OK

def f(k):
    """Kind, Field, Own"""
    cdef int _a0 = <int>_p.enum_arg(kind_enum, k)
    return (_enum.member(Kind, 1), _enum.member(Own, 0))

def g(x):
    return isinstance(x, Own)
'''


def test_only_enums_used_by_function_calls_become_lazy():
    out = lazy(MODULE)
    # Kind: referenced only as an argument of the two call forms: made on first use
    assert "Kind = _enum.define" not in out and "\nkind_enum = " not in out and "\n_kind_enum__Base = " not in out
    assert "_p.enum_arg(_lazy_enum_Kind(), k)" in out and "_enum.member(_lazy_enum_Kind(), 1)" in out
    assert "'kind_enum': 'Kind'" in out and "'_kind_enum__Base': 'Kind'" in out
    assert "'Kind': ('A 0 B 1', \"\"\"kinds\nof things\"\"\", True, '')" in out
    # Status (module-level status helpers), Field (a struct's field table), Own (isinstance in a
    # body, no call form) stay as they were
    for kept in ("Status = _enum.define", "status_enum = Status", "Field = _enum.define", "Own = _enum.define",
                 "_enum.member(Own, 0)", "isinstance(x, Own)"):
        assert kept in out
    assert lazy("x = 1\n") == "x = 1\n"



SUBCLASSES = """\
S_st = _struct.define('S_st', 4, (), __name__, \"\"\"S\"\"\", None)
S_v1 = type('S_v1', (S_st,), {'__slots__': (), '__module__': __name__, '__doc__': S_st.__doc__})
S = type('S', (S_v1,), {'__slots__': (), '__module__': __name__, '__doc__': S_v1.__doc__})
T_v1 = type('T_v1', (S_st,), {'__slots__': (), '__module__': __name__, '__doc__': S_st.__doc__})
T = type('T', (T_v1,), {'__slots__': (), '__module__': __name__, '__doc__': T_v1.__doc__})
U = type('U', (S_st,), {'__slots__': (), '__module__': __name__, '__doc__': S_st.__doc__})
_typed = {8: ('s', T)}

def f(n):
    _o0 = S()
    _k0 = _s.record_array(S_v1, n)
    raise TypeError(f"not a 'U' {n}")
"""


def test_typedef_subclasses_nothing_refers_to_become_lazy():
    out = lazy(SUBCLASSES)
    # S and S_v1: only their own lines name them; T is in a table, so T and its base T_v1 stay
    assert "\nS = type(" not in out and "\nS_v1 = type(" not in out
    assert "\nT = type('T', (T_v1,)" in out and "\nT_v1 = type('T_v1', (S_st,)" in out
    assert "cdef dict _lazy_subclass_bases = {'S_v1': 'S_st', 'S': 'S_v1'}" in out
    # a body's references as values go through accessors; a name inside a string keeps its class eager
    assert "    _o0 = _lazy_subclass_S()()" in out and "_s.record_array(_lazy_subclass_S_v1(), n)" in out
    assert "cdef inline object _lazy_subclass_S():" in out
    assert "\nU = type('U', (S_st,)" in out and 'f"not a \'U\' {n}"' in out
    assert "cdef dict _lazy_enum_names = {}" in out and "def __getattr__(name):" in out

CHILD = r'''
import enum, pickle, threading
from cuda.bindings import driver, runtime
lazy = [n for n in ("CUdevice_attribute", "CUjit_option", "cudaDeviceAttr") if n not in vars(driver) and n not in vars(runtime)]
assert len(lazy) == 3, lazy
# a function's enum argument before anything touched the class: member and int alike
st, v = driver.cuDeviceGetAttribute(1, 0)
assert st is driver.CUresult.CUDA_ERROR_INVALID_DEVICE or st is driver.CUresult.CUDA_ERROR_NO_DEVICE, st
assert "CUdevice_attribute" in vars(driver)          # made by the call, bound under its names
E = driver.CUdevice_attribute
assert E is driver.CUdevice_attribute_enum is driver._CUdevice_attribute_enum__Base
m = E.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
assert driver.cuDeviceGetAttribute(m, 0)[0] is st
assert isinstance(m, enum.IntEnum) and m == 1 and E(1) is m and pickle.loads(pickle.dumps(m)) is m
assert str(m) == "<CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1>"
try:
    driver.cuDeviceGetAttribute(10 ** 6, 0)
except ValueError:
    pass
else:
    raise AssertionError("a value no member has is refused")
# first made by attribute access, from several threads at once: one class
got = []
ts = [threading.Thread(target=lambda: got.append(driver.CUjit_option)) for _ in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
assert len({id(c) for c in got}) == 1 and got[0] is driver.CUjit_option_enum
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
    prog = tmp_path / "prog.py"
    prog.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda", str(prog)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
