"""The runtime's interface to generated code is declared once (hip/_pointer.pxd, hip/_struct.pxd,
hip/_kernel_args.pxd, read by codegen/runtime_api.py), and the one writer refuses a generated module that names an
entry point they do not declare: at generation, not when Cython compiles it."""
from __future__ import annotations

import glob
import os

import pytest

from codegen import runtime_api
from codegen.output import write_if_changed
from conftest import GOLDEN, ROOT


def test_declared_names_are_the_pxds_top_level_declarations():
    p, s, ka = runtime_api.declared("_p"), runtime_api.declared("_s"), runtime_api.declared("_ka")
    assert {"Pointer", "NDBuffer", "IntValue", "addr", "handle_arg", "enum_arg", "int_value_storage",
            "wrap", "hip_pointer_new"} <= p
    assert {"Struct", "record_arg", "typed_values"} <= s
    assert {"KernelArgs", "kernel_params", "kernel_extra", "INT_ADDRESS", "INT_CTYPES", "INT_INT64"} <= ka
    assert not {"_describe", "_set", "_length", "_ptr"} & p      # a class's members are not entry points
    assert not {"params", "values", "keep"} & ka
    assert not {"kernel_params", "kernel_params_cuda", "KernelArgs"} & p   # one packer: hip/_kernel_args


def test_every_generated_module_names_only_declared_entry_points():
    modules = [*glob.glob(str(GOLDEN / "expected" / "*.pyx")), *glob.glob(str(ROOT / "hip" / "*.pyx")),
               *glob.glob(str(ROOT / "hip_as_cuda" / "cuda" / "bindings" / "*.pyx"))]
    used = 0
    for path in modules:
        text = open(path).read()
        runtime_api.check(text, path)
        used += len(runtime_api._USE.findall(text)) if runtime_api._CIMPORT.search(text) else 0
    assert used > 1000        # the golden modules alone name hundreds


def test_the_writer_refuses_an_undeclared_entry_point(tmp_path):
    text = "cimport hip._pointer as _p\ncimport hip._struct as _s\n\ndef f(x):\n    return _p.addr(x), _p.no_such_entry(x)\n"
    path = tmp_path / "m.pyx"
    with pytest.raises(runtime_api.UndeclaredEntryPoint, match=r"_p\.no_such_entry.*hip/_pointer\.pxd"):
        write_if_changed(str(path), text)
    assert not path.exists()
    write_if_changed(str(path), text.replace("_p.no_such_entry", "_p.waddr"))
    assert os.path.exists(path)
