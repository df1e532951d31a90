"""Compiled Cython written against NVIDIA's cuda-bindings (cuda.core 1.2.0 is such code) runs over
the alias: it finds each `cy*` function in the module's `__pyx_capi__` by name and Cython checks
the capsule's signature string, character for character. Both come from NVIDIA's installed
release (the oracle's side venv, tests/oracles/cuda_bindings_oracle.py): every entry of its
cydriver, cyruntime, cynvrtc, cynvvm and cynvjitlink is in ours with the same signature, and each
function's `except?` value (what the caller tests before it asks for a Python error) is the one
NVIDIA's .pxd declares.
"""
from __future__ import annotations

import pytest

import cuda_bindings_oracle as oracle

pytest.importorskip("cuda.bindings.cydriver", reason="the cuda alias is not built")

MODULES = ("cydriver", "cyruntime", "cynvrtc", "cynvvm", "cynvjitlink")

PROBE = r'''
import ctypes, importlib, json, os, re, sys
name_of = ctypes.pythonapi.PyCapsule_GetName
name_of.restype, name_of.argtypes = ctypes.c_char_p, [ctypes.py_object]
out = {}
for m in sys.argv[1:]:
    mod = importlib.import_module("cuda.bindings." + m)
    capi = {k: name_of(v).decode() for k, v in mod.__pyx_capi__.items()}
    pxd = open(os.path.join(os.path.dirname(mod.__file__), m + ".pxd")).read()
    excepts = {f: e.replace(" ", "") for f, e in
               re.findall(r"^cdef [^#\n]*?\b(\w+)\([^\n]*\)\s*except\s*\?\s*(\S+)\s+nogil", pxd, re.M)}
    out[m] = {"capi": capi, "except": excepts}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    try:
        return oracle.probe_both(PROBE, str(tmp_path_factory.mktemp("capi")), MODULES)
    except oracle.NoRelease as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("module", MODULES)
def test_every_capi_entry_has_nvidias_name_and_signature(both, module):
    nvidia, ours = both[0][module]["capi"], both[1][module]["capi"]
    assert len(nvidia) > 10, "NVIDIA's module exports no C functions: the probe is wrong"
    missing = sorted(set(nvidia) - set(ours))
    differ = {f: (nvidia[f], ours[f]) for f in nvidia if f in ours and ours[f] != nvidia[f]}
    assert not missing and not differ, {"missing": missing, "signature differs": differ}


@pytest.mark.parametrize("module", MODULES)
def test_every_except_value_is_nvidias(both, module):
    nvidia, ours = both[0][module]["except"], both[1][module]["except"]
    assert nvidia, "no except? clause found in NVIDIA's .pxd: the probe is wrong"
    differ = {f: (e, ours.get(f)) for f, e in nvidia.items() if ours.get(f) != e}
    assert not differ, differ
