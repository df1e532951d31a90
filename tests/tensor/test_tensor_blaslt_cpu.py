"""hip.tensor's hipBLASLt path without a GPU: where hipBLASLt is not built or its library does not
load (here: no runtime of it loads), `_libs.blaslt.linear` and `gemm` decline before any device
call and `nn.functional.linear` and `matmul` keep hipBLAS; what they decline whatever the library;
the epilogues and types it names are hipBLASLt's; the switches; the workspace by device; matmul's
route. The results against PyTorch, the algorithm choice: tests/tensor/test_tensor_blaslt_gpu.py."""
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
    """Declined before the library is looked at (a stream that is no stream is never touched)."""
    for args in [(_dt.float64, 8, 8, 8, "relu"), (_dt.float16, 8, 8, 8, "silu"), (_dt.float16, 0, 8, 8, "relu"),
                 (_dt.float32, 8, 8, 0, "identity"), (_dt.bfloat16, 2 ** 31, 8, 8, "identity")]:
        d, m, n, k, act = args
        assert blaslt.linear(object(), d, m, n, k, 0, 0, None, 0, act) is False, args
    for x, w, b, y in [(256, 0, None, 0), (0, 0, 2, 0), (0, 0, None, 0x100 + 128)]:     # not 256-byte aligned
        assert blaslt.linear(object(), _dt.float16, 8, 8, 8, x, w, b, y, "relu") is False
    assert blaslt.linear(object(), _dt.float16, 8, 8, 8, 0, 0, None, 0, "relu", residual=0x200 + 64) is False


def test_gemm_declines():
    for d, m, n, k, a, b, c in [(_dt.float64, 8, 8, 8, 0, 0, 0), (_dt.complex64, 8, 8, 8, 0, 0, 0),
                                (_dt.float16, 0, 8, 8, 0, 0, 0), (_dt.float16, 8, 8, 2 ** 31, 0, 0, 0),
                                (_dt.float16, 8, 8, 8, 64, 0, 0), (_dt.bfloat16, 8, 8, 8, 0, 0, 512 + 2)]:
        assert blaslt.gemm(object(), d, False, True, m, n, k, a, m, b, k, c, m) is False, (d, m, n, k, a, b, c)
    L = library_module("hipblaslt")
    try:
        L._library.load()
    except Exception:
        assert blaslt.gemm(object(), _dt.float16, False, False, 8, 8, 8, 0, 8, 0, 8, 0, 8) is False   # no library


def test_matmul_route(monkeypatch):
    """Nothing goes to hipBLASLt until MATMUL_MIN_MNK lists a dtype; then its products from that
    many multiply-adds; other dtypes stay."""
    assert not any(blaslt.prefer(d, 8192, 8192, 8192) for d in (_dt.float16, _dt.bfloat16, _dt.float32))
    monkeypatch.setattr(blaslt, "MATMUL_MIN_MNK", {"float16": 1024 ** 3, "bfloat16": 1024 ** 3})
    assert blaslt.prefer(_dt.float16, 1024, 1024, 1024) and blaslt.prefer(_dt.bfloat16, 4096, 1024, 256)
    assert not blaslt.prefer(_dt.float16, 1024, 1024, 1023) and not blaslt.prefer(_dt.bfloat16, 64, 64, 64)
    for d in (_dt.float32, _dt.float64, _dt.complex64):
        assert not blaslt.prefer(d, 8192, 8192, 8192)


def test_workspace_is_pytorchs_default():
    """PyTorch's: 32 MiB on NVIDIA compute capability 9, 10 and 12 (`:4096:8`), `:4096:2:16:8`
    on others; 76 MiB for hipBLASLt on AMD."""
    w = blaslt.default_workspace_bytes
    assert w("nvidia", 9) == w("nvidia", 10) == w("nvidia", 12) == 4096 * 1024 * 8 == 32 << 20
    assert w("nvidia", 8) == w("nvidia", 7) == 4096 * 1024 * 2 + 16 * 1024 * 8
    assert w("amd", 9) == 76 * 1024 * 1024


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


def test_switches():
    assert backends.matmul.use_hipblaslt is True and backends.matmul.hipblaslt_autotune is False
    assert "use_hipblaslt=True" in repr(backends.matmul) and "hipblaslt_autotune=False" in repr(backends.matmul)
    r = run_python("""
        from hip.tensor import backends
        print("RESULT", backends.matmul.use_hipblaslt, backends.matmul.hipblaslt_autotune)
    """, env={"HIP_TENSOR_USE_HIPBLASLT": "0", "HIP_TENSOR_HIPBLASLT_AUTOTUNE": "1"})
    assert "RESULT False True" in r.stdout, r.stdout + r.stderr


def test_no_timing_where_the_runtime_cannot_say_a_stream_is_not_capturing():
    """Algorithm timing waits for its stream, which a capture forbids: a stream the runtime does not
    answer for (here: no device) counts as capturing."""
    from hip import hip as h
    from hip.tensor._core.device import null_stream
    from hip.tensor._core.graph import stream_is_capturing
    s = null_stream(0)
    if h.hipStreamIsCapturing(s.ptr)[0] == h.hipError_t.hipSuccess:
        pytest.skip("the runtime answers here (a device)")
    assert stream_is_capturing(s) is True
