"""hip.tensor's hipBLASLt path without a GPU: where hipBLASLt is not built or its library does not
load (here: no runtime of it loads), `_libs.blaslt.linear` declines before any device call and
`nn.functional.linear` keeps its gemm path; the epilogues and types it names are hipBLASLt's; the
switch. The fused results against PyTorch: tests/tensor/test_tensor_blaslt_gpu.py."""
from __future__ import annotations

import pytest

from conftest import library_module, run_python
from hip.tensor import backends
from hip.tensor._core import dtypes as _dt
from hip.tensor._libs import blaslt


def test_epilogues_and_types_are_hipblaslts():
    L = library_module("hipblaslt")
    from hip import hip as h
    for plain, with_bias in blaslt.EPILOGUES.values():
        assert L.hipblasLtEpilogue_t[plain].name == plain and L.hipblasLtEpilogue_t[with_bias].name == with_bias
    assert set(blaslt.EPILOGUES) == {"identity", "relu", "gelu_tanh"}   # hipBLASLt's GELU is tanh's
    for name, data in blaslt.DTYPES.items():
        assert h.hipDataType[data].name == data and _dt.dtype(name).name == name


def test_declines_without_the_library():
    """No hipBLASLt runtime here: `linear` says so (False) and touches no device; `available` too."""
    L = library_module("hipblaslt")
    try:
        L._library.load()
        pytest.skip("a hipBLASLt library loads here")
    except Exception:
        pass
    assert blaslt.available() is False
    assert blaslt.linear(object(), _dt.float16, 8, 8, 8, 0, 0, None, 0, "relu") is False


def test_declines_what_it_does_not_fuse():
    for args in [(_dt.float64, 8, 8, 8, "relu"), (_dt.float16, 8, 8, 8, "silu"), (_dt.float16, 0, 8, 8, "relu"),
                 (_dt.float32, 8, 8, 0, "identity"), (_dt.bfloat16, 2 ** 31, 8, 8, "identity")]:
        d, m, n, k, act = args
        assert blaslt.linear(object(), d, m, n, k, 0, 0, None, 0, act) is False, args


def test_declines_where_the_module_is_not_built():
    """A build without hipBLASLt (ROCm 5.x headers): no module, the gemm path."""
    r = run_python("""
        import sys
        sys.modules["hip.hipblaslt"] = None            # as if never built
        from hip.tensor._libs import blaslt
        from hip.tensor._core import dtypes
        print("RESULT", blaslt.available(), blaslt.linear(object(), dtypes.float32, 4, 4, 4, 0, 0, None, 0, "relu"))
    """)
    assert "RESULT False False" in r.stdout, r.stdout + r.stderr


def test_switch():
    assert backends.matmul.use_hipblaslt is True
    assert "use_hipblaslt=True" in repr(backends.matmul)
    r = run_python("""
        from hip.tensor import backends
        print("RESULT", backends.matmul.use_hipblaslt)
    """, env={"HIP_TENSOR_USE_HIPBLASLT": "0"})
    assert "RESULT False" in r.stdout, r.stdout + r.stderr
