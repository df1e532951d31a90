"""ht.fuse without a GPU: tracing (result dtypes against NumPy's for every chain of
tests/oracles/fusion_chains.py and every dtype; the cache per dtypes/ndims/scalar types; hip.tensor
reached as `ht.x`, `hip.tensor.x`, imported names, closures and helper functions), clear errors
for what cannot be fused, and every generated kernel compiled by the real ROCm hiprtc for gfx90a
(and NVRTC for sm_90 where its wheel is in build/cuda-pypi), with the FMA barrier checked in the
gfx90a machine code (llvm-objdump) and in NVRTC's PTX."""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._kernels import compiler as C
from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import source as ks
from hip.tensor import sin as imported_sin

from fusion_chains import CHAINS
from test_tensor_kernels_compile import _layer_hip_runtime_h, check_hiprtc, check_nvrtc, no_disk_cache, nvrtc  # noqa: F401

FULL_LAYOUTS = (dt.float32, dt.float16, dt.bfloat16, dt.int32, dt.complex128, dt.bool)
BATCH = 160


def _specs(extra):
    return [type(e) for e in extra]


def _fused(name):
    make, kinds, extra = CHAINS[name]
    return ht.fuse(make(ht), kernel_name=name), kinds, extra


# -- types --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CHAINS))
def test_result_dtype_is_numpys(name):
    """Every dtype a chain takes gives NumPy's result dtype (bfloat16, which NumPy lacks, traces)."""
    f, kinds, extra = _fused(name)
    make = CHAINS[name][0]
    checked = 0
    for d in dt.ALL:
        if d.kind not in kinds:
            continue
        plan = f.lower((d, 2), (d, 2), *_specs(extra))
        if d is dt.bfloat16:
            continue
        a = np.ones((2, 3), d.numpy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = np.asarray(make(np)(a, a, *extra))
        assert plan.out_dtypes[0].name == ref.dtype.name, (d.name, plan.out_dtypes[0].name, ref.dtype.name)
        checked += 1
    assert checked >= 4


def test_mixed_dtypes_and_scalars_promote_as_eager():
    f = ht.fuse(lambda x, y, s: x * y + s)
    assert f.lower((dt.int8, 1), (dt.uint8, 1), int).out_dtypes == [dt.int16]
    assert f.lower((dt.int8, 1), (dt.uint8, 1), float).out_dtypes == [dt.float64]   # NumPy: int + float -> f64
    assert f.lower((dt.float16, 1), (dt.bfloat16, 1), float).out_dtypes == [dt.float32]
    assert f.lower((dt.float32, 1), (dt.float32, 1), complex).out_dtypes == [dt.complex64]
    assert f.lower((dt.float32, 1), (dt.float32, 1), np.float64).out_dtypes == [dt.float64]  # NumPy scalars are strong
    g = ht.fuse(lambda x: ht.where(x > 0, x, 1.5))
    assert g.lower((dt.int32, 2)).out_dtypes == [dt.float64]
    assert g.lower((dt.float16, 2)).out_dtypes == [dt.float16]


def test_reduction_rules_follow_statistical():
    f = ht.fuse(lambda x: (x + 1).sum(axis=0))
    assert f.lower((dt.int8, 2)).out_dtypes == [dt.int64]
    assert f.lower((dt.uint16, 2)).out_dtypes == [dt.uint64]
    assert f.lower((dt.float16, 2)).bindings == {"A": dt.float32, "Y": dt.float16}   # accumulates in float32
    m = ht.fuse(lambda x: (x * 2).mean())
    assert m.lower((dt.int32, 3)).out_dtypes == [dt.float64]
    b = ht.fuse(lambda x: (x > 1).all(axis=(0, 2), keepdims=True))
    plan = b.lower((dt.float32, 3))
    assert plan.out_dtypes == [dt.bool] and plan.axes == (0, 2) and plan.keepdims


def test_one_plan_per_dtypes_ndims_and_scalar_types():
    f = ht.fuse(lambda x, s: x * s)
    p1 = f.lower((dt.float32, 2), float)
    assert f.lower((dt.float32, 2), float) is p1
    assert f.lower((dt.float32, 3), float) is not p1
    assert f.lower((dt.float64, 2), float) is not p1
    assert f.lower((dt.float32, 2), int) is not p1
    assert len(f._plans) == 4


def test_kernel_reads_each_input_once_and_has_one_output():
    plan = ht.fuse(lambda x, y: (x * y + x) * y - x).lower((dt.float32, 1), (dt.float32, 1))
    assert isinstance(plan.kernel, ht.ElementwiseKernel)
    assert [p.name for p in plan.kernel.in_params] == ["in0", "in1"]
    assert [p.name for p in plan.kernel.out_params] == ["out0"]
    body = plan.sources()[0][1]
    assert body.count("_p0") == body.count("_p1") == body.count("_p2") == 2     # the signature, one access


def test_unused_arguments_are_not_kernel_inputs():
    plan = ht.fuse(lambda x, y, z: x + 1).lower((dt.float32, 1), (dt.float32, 2), (dt.int8, 1))
    assert [n.info for n in plan.arrays] == [0]


# -- how the function reaches hip.tensor ------------------------------------------------------------
K = 3.0


def _helper(x):
    return ht.cos(x) * K


def test_namespaces_imports_closures_and_helpers_are_traced():
    import hip.tensor

    def make(ns):
        return lambda x: ns.exp(x)
    cases = [lambda x: imported_sin(x) + 1, lambda x: hip.tensor.sin(x), make(ht), lambda x: _helper(x) + K]
    for fn in cases:
        plan = ht.fuse(fn).lower((dt.float32, 1))
        assert plan.out_dtypes == [dt.float32]
    inner = ht.fuse(lambda x: x * 2)
    plan = ht.fuse(lambda x, y: inner(x) + y).lower((dt.float32, 1), (dt.float32, 1))
    assert "ht_mul" in plan.sources()[0][1] and "ht_add" in plan.sources()[0][1]


# -- what cannot be fused -------------------------------------------------------------------------------
def _lower_error(fn, *specs, exc=TypeError):
    with pytest.raises(exc) as e:
        ht.fuse(fn).lower(*(specs or ((dt.float32, 2),)))
    return str(e.value)


def test_unsupported_operations_are_named():
    assert "'reshape'" in _lower_error(lambda x: x.reshape(4), exc=AttributeError)
    assert "hip.tensor.concat cannot be fused" in _lower_error(lambda x: ht.concat([x, x]))
    assert "indexing" in _lower_error(lambda x: x[0])
    assert "matmul" in _lower_error(lambda x: x @ x)
    assert "var is not fused" in _lower_error(lambda x: x.var())
    assert "sum after max" in _lower_error(lambda x: x.max().sum())
    assert "add combines the result of the reduction" in _lower_error(lambda x, y: x.sum() + y, (dt.float32, 1),
                                                                       (dt.float32, 1))
    assert "in-place operator +=" in _lower_error(_inplace)
    assert "truth value" in _lower_error(_branch)
    assert "scalar argument 1" in _lower_error(lambda x, s: x + s * 2, (dt.float32, 1), float)
    assert "the shape" in _lower_error(lambda x: x.shape)
    assert "clip with array bounds" in _lower_error(lambda x, y: ht.clip(x, y), (dt.float32, 1), (dt.float32, 1))
    assert "NumPy's" in _lower_error(lambda x: np.sin(x))
    assert "where: expected a hip.tensor array" in _lower_error(lambda x: ht.where(True, x, 0))
    assert "must return a traced array" in _lower_error(lambda x: 3)
    assert "does not come from the reduction" in _lower_error(lambda x: (x.sum(), x + 1)[1])


def _inplace(x):
    x += 1
    return x


def _branch(x):
    return x if x > 0 else -x


def test_eager_type_errors_stay_eager_type_errors():
    assert "subtract is not defined for bool" in _lower_error(lambda x: x - x, (dt.bool, 1))
    assert "max is not defined for complex" in _lower_error(lambda x: x.max(), (dt.complex64, 1))
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        ht.fuse(lambda x: x + 300).lower((dt.int8, 1))
    with pytest.raises((IndexError, ValueError)):
        ht.fuse(lambda x: x.sum(axis=2)).lower((dt.float32, 2))


def test_bad_arguments():
    f = ht.fuse(lambda x: x + 1)
    with pytest.raises(TypeError, match="asarray"):
        f(np.ones(3))
    with pytest.raises(TypeError, match="positionally"):
        f(x=1)
    with pytest.raises(TypeError, match="at least one hip.tensor array"):
        f.lower(float)
    with pytest.raises(TypeError, match="takes a Python function"):
        ht.fuse(len)
    with pytest.raises(TypeError, match="arguments are hip.tensor arrays"):
        f.lower("x")


# -- every kernel compiles ------------------------------------------------------------------------------
def fusion_matrix():
    out = []
    for name in sorted(CHAINS):
        f, kinds, extra = _fused(name)
        for d in dt.ALL:
            if d.kind not in kinds:
                continue
            srcs = f.lower((d, 2), (d, 2), *_specs(extra)).sources()
            if d not in FULL_LAYOUTS:      # the others: the contiguous/inner and one strided/outer layout
                srcs = srcs[:2]
            out += [(f"{name}[{d.name}]/{label}", body) for label, body in srcs]
    return out


MATRIX = fusion_matrix()
BATCHES = [MATRIX[i:i + BATCH] for i in range(0, len(MATRIX), BATCH)]


def test_matrix_names_are_unique():
    names = [m for _, body in MATRIX for m in re.findall(r'__global__ void (\w+)\(', body)]
    assert len(names) == len(set(names)) == len(MATRIX) > 400


@pytest.mark.runtime
@pytest.mark.parametrize("batch", range(len(BATCHES)))
def test_batch_compiles_with_hiprtc_for_gfx90a(batch, no_disk_cache):  # noqa: F811
    check_hiprtc(BATCHES[batch])


@pytest.mark.parametrize("batch", range(len(BATCHES)))
def test_batch_compiles_with_nvrtc_for_sm90(batch, nvrtc):  # noqa: F811
    check_nvrtc(nvrtc, BATCHES[batch])


# -- no multiply-add contracted across two operations ---------------------------------------------------------
def _chain_source(barrier: bool) -> str:
    body = ht.fuse(lambda x, y: (x * y + x) * y - x).lower((dt.float32, 1), (dt.float32, 1)).sources()[0][1]
    return body if barrier else body.replace("ht_fuse_keep(t", "(void)(t")


@pytest.mark.runtime
def test_gfx90a_code_has_no_fma_across_operations(no_disk_cache, tmp_path):  # noqa: F811
    """The compiler contracts x*y + x into one FMA unless the barrier stops it: eager evaluation,
    one kernel per operation, rounds the product first, and fused results must be eager's."""
    objdump = shutil.which("llvm-objdump")
    if objdump is None:
        pytest.skip("llvm-objdump is not installed")
    from hip import hiprtc
    try:
        hiprtc._library.load()
    except OSError as e:
        pytest.skip(f"hiprtc does not load: {str(e).splitlines()[0]}")

    def isa(src, tmp):
        with open(tmp, "wb") as f:
            f.write(C.compile_code_object(ks.source(src), opts, "gfx90a"))
        return subprocess.run([objdump, "-d", "--mcpu=gfx90a", tmp], capture_output=True, text=True, check=True).stdout
    tmp = str(tmp_path / "chain.o")
    opts = ("-ffp-contract=fast",)            # the control: clang's default for HIP contracts
    plain = isa(_chain_source(False), tmp)
    opts = ()                                 # compile_code_object adds std_options (no contraction)
    fused = isa(_chain_source(True), tmp)
    assert re.search(r"v_fmac?_f32", plain), "the control kernel should contract (else this test proves nothing)"
    assert not re.search(r"v_fmac?_f32", fused)
    assert re.search(r"v_mul_f32", fused) and re.search(r"v_add_f32", fused)


def _nvrtc_ptx(lib, src: str, extra=()) -> str:
    header = _layer_hip_runtime_h().encode()
    names = (ctypes.c_char_p * 1)(b"hip/hip_runtime.h")
    bodies = (ctypes.c_char_p * 1)(header)
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 1, bodies, names) == 0
    try:
        given = [b"--gpu-architecture=compute_90", b"-std=c++17", *extra]
        opts = (ctypes.c_char_p * len(given))(*given)
        assert lib.nvrtcCompileProgram(prog, len(given), opts) == 0
        n = ctypes.c_size_t()
        assert lib.nvrtcGetPTXSize(prog, ctypes.byref(n)) == 0
        buf = ctypes.create_string_buffer(n.value)
        assert lib.nvrtcGetPTX(prog, buf) == 0
        return buf.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def test_ptx_has_no_fma_across_operations(nvrtc):  # noqa: F811
    """With the fused kernels' options as the HIP-on-CUDA layer's hiprtc hands them to NVRTC
    (-ffp-contract=off: --fmad=false), the PTX rounds every product (mul.rn): ptxas contracts a
    plain mul.f32 + add.f32 into an FMA, which made fused != eager on an H100."""
    assert "--fmad=false" in C.std_options("sm_90") and "-ffp-contract=off" in C.std_options("gfx90a")
    plain = _nvrtc_ptx(nvrtc, ks.source(_chain_source(False)))
    fused = _nvrtc_ptx(nvrtc, ks.source(_chain_source(True)), [b"--fmad=false"])
    assert "fma.rn.f32" in plain, "the control kernel should contract (else this test proves nothing)"
    assert "fma.rn.f32" not in fused
    # two rounded products per element of the chain, whatever elements per thread the loop unrolls
    assert fused.count("mul.rn.f32") == 2 * fused.count("sub.rn.f32") > 0 and "mul.f32" not in fused
