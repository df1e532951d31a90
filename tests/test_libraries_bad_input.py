"""Bad arguments to the six libraries raise TypeError/ValueError/OverflowError (or BufferError for
read-only memory) before anything reaches C; nothing crashes.

All cases run in one fresh interpreter whose HIP_PYTHON_<LIB>_LIBRARY variables point nowhere: an
argument that wrongly converts shows up as LibraryNotFoundError (the call went on to load the
library) instead of reaching a real library with garbage, and a crash kills only that interpreter
(every case then fails, with its exit status).
"""
from __future__ import annotations

import json

import pytest

import header_facts
from conftest import run_python

C2C = "hipfft.hipfftType_t.HIPFFT_C2C"
OP_N = "hipblas.hipblasOperation_t.HIPBLAS_OP_N"
SP_OP = "hipsparse.hipsparseOperation_t.HIPSPARSE_OPERATION_NON_TRANSPOSE"
F32 = "rccl.ncclDataType_t.ncclFloat32"
SUM = "rccl.ncclRedOp_t.ncclSum"
R32F = "hip.hipDataType.HIP_R_32F"
I32 = "hipsparse.hipsparseIndexType_t.HIPSPARSE_INDEX_32I"
BASE0 = "hipsparse.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO"


# A handle that passes the handle check (a non-NULL address; the libraries point nowhere, so no
# call is made), so each case reaches the argument it is about; NULL handles have cases of their own.
H = "8"


def _saxpy(n="1", alpha="1.0", x="None", y="None", handle=H):
    return f"hipblas.hipblasSaxpy({handle}, {n}, {alpha}, {x}, 1, {y}, 1)"


def _sgemm(ta=OP_N, alpha="1.0", m="1"):
    return f"hipblas.hipblasSgemm({H}, {ta}, {OP_N}, {m}, 1, 1, {alpha}, None, 1, None, 1, 0.0, None, 1)"


def _getrs(trans=OP_N, n="1"):
    return f"hipsolver.hipsolverDgetrs({H}, {trans}, {n}, 1, None, 1, None, None, 1, None, 0, None)"


def _csrmv(op=SP_OP, alpha="1.0"):
    return f"hipsparse.hipsparseScsrmv({H}, {op}, 1, 1, 1, {alpha}, None, None, None, None, None, 0.0, None)"


def _allreduce(count="1", dtype=F32, op=SUM):
    return f"rccl.ncclAllReduce(None, None, {count}, {dtype}, {op}, None, None)"


# (id, expression, accepted exception type names)
CASES = [
    # hipBLAS
    ("hipblas handle given str", _saxpy(handle="'handle'"), "TypeError"),
    ("hipblas handle given float", _saxpy(handle="1.5"), "TypeError"),
    ("hipblas n given None", _saxpy(n="None"), "TypeError"),
    ("hipblas n given float", _saxpy(n="1.5"), "TypeError"),
    ("hipblas n given str", _saxpy(n="'1'"), "TypeError"),
    ("hipblas n over 32 bits", _saxpy(n="2**31"), "OverflowError"),
    ("hipblas 64-bit n over 64 bits", "hipblas.hipblasSaxpy_64(8, 2**63, 1.0, None, 1, None, 1)", "OverflowError"),
    ("hipblas alpha given str", _saxpy(alpha="'2.0'"), "TypeError"),
    ("hipblas alpha given bool", _saxpy(alpha="True"), "TypeError"),
    ("hipblas complex alpha for a real function", _saxpy(alpha="1j"), "TypeError"),
    ("hipblas float64 host array for float*", _saxpy(x="np.zeros(2)", y="np.zeros(2, np.float32)"), "TypeError"),
    ("hipblas int32 host array for float*", _saxpy(x="np.zeros(2, np.int32)", y="np.zeros(2, np.float32)"),
     "TypeError"),
    ("hipblas alpha given a list", _saxpy(alpha="[1.0]"), "TypeError"),
    ("hipblas complex alpha given str", "hipblas.hipblasCaxpy(None, 1, 'x', None, 1, None, 1)", "TypeError"),
    ("hipblas double complex alpha given None-like str", "hipblas.hipblasZaxpy_v2(None, 1, '1j', None, 1, None, 1)",
     "TypeError"),
    ("hipblas x given str", _saxpy(x="'abc'"), "TypeError"),
    ("hipblas x given float", _saxpy(x="2.0"), "TypeError"),
    ("hipblas x given negative address", _saxpy(x="-8"), "OverflowError"),
    ("hipblas x given bool", _saxpy(x="True"), "TypeError"),
    ("hipblas read-only y", _saxpy(y="b'abcdabcd'"), "BufferError TypeError"),
    ("hipblas non-contiguous y", _saxpy(y="np.zeros(8, np.float32)[::2]"), "BufferError ValueError TypeError"),
    ("hipblas out-of-range transA", _sgemm(ta="999"), "ValueError"),
    ("hipblas None as transA", _sgemm(ta="None"), "TypeError"),
    ("hipblas str as transA", _sgemm(ta="'N'"), "TypeError"),
    ("hipblas enum of the wrong class", _sgemm(ta="hipblas.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER"), "TypeError"),
    ("hipblas gemm m given float", _sgemm(m="2.0"), "TypeError"),
    ("hipblas pointer mode out of range", "hipblas.hipblasSetPointerMode(8, 5)", "ValueError"),
    ("hipblas batched pointer list with str",
     f"hipblas.hipblasSgemmBatched(None, {OP_N}, {OP_N}, 1, 1, 1, 1.0, ['a'], 1, None, 1, 0.0, None, 1, 1)",
     "TypeError"),
    ("hipblas Sdot result is a parameter", "hipblas.hipblasSdot(None, 1, None, 1, None, 1)", "TypeError"),
    ("hipblas Sdot result into read-only memory", "hipblas.hipblasSdot(None, 1, None, 1, None, 1, b'abcd')",
     "BufferError TypeError"),
    ("hipblas Sdot result into float64 storage",
     "hipblas.hipblasSdot(None, 1, None, 1, None, 1, np.zeros(1, np.float64))", "TypeError"),
    ("hipblas Isamax index into float32 storage",
     "hipblas.hipblasIsamax(None, 1, None, 1, np.zeros(1, np.float32))", "TypeError"),
    ("hipblas pointer mode into read-only memory", "hipblas.hipblasGetPointerMode(None, b'abcd')",
     "BufferError TypeError"),
    # hipRAND
    ("hiprand rng type out of range", "hiprand.hiprandCreateGenerator(12345)", "ValueError"),
    ("hiprand rng type None", "hiprand.hiprandCreateGenerator(None)", "TypeError"),
    ("hiprand rng type str", "hiprand.hiprandCreateGenerator('HIPRAND_RNG_PSEUDO_DEFAULT')", "TypeError"),
    ("hiprand rng type of the wrong enum", "hiprand.hiprandCreateGenerator(hiprand.rocrand_rng_type.ROCRAND_RNG_PSEUDO_DEFAULT)",
     "TypeError"),
    ("hiprand negative size_t count", "hiprand.hiprandGenerate(8, None, -1)", "OverflowError"),
    ("hiprand None count", "hiprand.hiprandGenerate(None, None, None)", "TypeError"),
    ("hiprand float count", "hiprand.hiprandGenerateUniform(None, None, 4.0)", "TypeError"),
    ("hiprand mean None", "hiprand.hiprandGenerateNormal(None, None, 4, None, 1.0)", "TypeError"),
    ("hiprand stddev str", "hiprand.hiprandGenerateNormal(None, None, 4, 0.0, '1')", "TypeError"),
    ("hiprand lambda str", "hiprand.hiprandGeneratePoisson(None, None, 4, 'x')", "TypeError"),
    ("hiprand negative seed", "hiprand.hiprandSetPseudoRandomGeneratorSeed(8, -1)", "OverflowError"),
    ("hiprand seed over 64 bits", "hiprand.hiprandSetPseudoRandomGeneratorSeed(8, 2**64)", "OverflowError"),
    ("hiprand read-only output", "hiprand.hiprandGenerateUniform(None, b'abcd', 1)", "BufferError TypeError"),
    ("hiprand ordering out of range", "hiprand.hiprandSetGeneratorOrdering(8, 99999)", "ValueError"),
    ("hiprand generator given str", "hiprand.hiprandDestroyGenerator('gen')", "TypeError"),
    # hipSPARSE
    ("hipsparse index base out of range", "hipsparse.hipsparseSetMatIndexBase(8, 7)", "ValueError"),
    ("hipsparse matrix type None", "hipsparse.hipsparseSetMatType(None, None)", "TypeError"),
    ("hipsparse data type out of range", "hipsparse.hipsparseCreateDnVec(None, 4, None, 12345)", "ValueError"),
    ("hipsparse size None", f"hipsparse.hipsparseCreateDnVec(None, None, None, {R32F})", "TypeError"),
    ("hipsparse int64 size over 64 bits", f"hipsparse.hipsparseCreateDnVec(None, 2**63, None, {R32F})",
     "OverflowError"),
    ("hipsparse descriptor storage is a parameter", f"hipsparse.hipsparseCreateDnVec(4, None, {R32F})", "TypeError"),
    ("hipsparse descriptor storage given str", f"hipsparse.hipsparseCreateDnVec('descr', 4, None, {R32F})",
     "TypeError"),
    ("hipsparse index type out of range",
     f"hipsparse.hipsparseCreateCsr(None, 2, 2, 2, None, None, None, 99, {I32}, {BASE0}, {R32F})", "ValueError"),
    ("hipsparse op None", _csrmv(op="None"), "TypeError"),
    ("hipsparse op of hipblas", _csrmv(op=OP_N), "TypeError ValueError"),
    ("hipsparse alpha str", _csrmv(alpha="'a'"), "TypeError"),
    ("hipsparse complex alpha for a real function", _csrmv(alpha="2j"), "TypeError"),
    ("hipsparse generic alpha needs a pointer",
     f"hipsparse.hipsparseSpMV(None, {SP_OP}, 2.5, None, None, 0.0, None, {R32F}, "
     "hipsparse.hipsparseSpMVAlg_t.HIPSPARSE_SPMV_ALG_DEFAULT, None)", "TypeError"),
    ("hipsparse descriptor size is a parameter", "hipsparse.hipsparseSpMatGetSize(None)", "TypeError"),
    ("hipsparse int64 descriptor size into int32 storage",
     "hipsparse.hipsparseSpMatGetSize(None, np.zeros(1, np.int32), None, None)", "TypeError"),
    ("hipsparse version into read-only memory", "hipsparse.hipsparseGetVersion(None, b'abcd')",
     "BufferError TypeError"),
    # hipFFT
    ("hipfft type out of range", "hipfft.hipfftPlan1d(8, 12345, 1)", "ValueError"),
    ("hipfft type None", "hipfft.hipfftPlan1d(8, None, 1)", "TypeError"),
    ("hipfft nx None", f"hipfft.hipfftPlan1d(None, {C2C}, 1)", "TypeError"),
    ("hipfft nx over 32 bits", f"hipfft.hipfftPlan1d(2**31, {C2C}, 1)", "OverflowError"),
    ("hipfft batch float", f"hipfft.hipfftPlan1d(8, {C2C}, 1.0)", "TypeError"),
    ("hipfft plan is not a parameter", f"hipfft.hipfftPlan1d(None, 8, {C2C}, 1)", "TypeError"),
    ("hipfft direction str", "hipfft.hipfftExecC2C(None, None, None, 'forward')", "TypeError"),
    ("hipfft direction over 32 bits", "hipfft.hipfftExecC2C(8, None, None, 2**40)", "OverflowError"),
    ("hipfft extents with str", f"hipfft.hipfftPlanMany(1, ['8'], None, 1, 1, None, 1, 1, {C2C}, 1)", "TypeError"),
    ("hipfft extents with float", f"hipfft.hipfftPlanMany(1, [8.5], None, 1, 1, None, 1, 1, {C2C}, 1)", "TypeError"),
    ("hipfft extent over 32 bits", f"hipfft.hipfftPlanMany(1, [2**40], None, 1, 1, None, 1, 1, {C2C}, 1)",
     "OverflowError"),
    ("hipfft extents given float", f"hipfft.hipfftPlanMany(1, 8.0, None, 1, 1, None, 1, 1, {C2C}, 1)", "TypeError"),
    ("hipfft auto allocation str", "hipfft.hipfftSetAutoAllocation(None, 'yes')", "TypeError"),
    ("hipfft property out of range", "hipfft.hipfftGetProperty(99, None)", "ValueError"),
    ("hipfft version is a parameter", "hipfft.hipfftGetVersion()", "TypeError"),
    ("hipfft version into float32 storage", "hipfft.hipfftGetVersion(np.zeros(1, np.float32))", "TypeError"),
    # hipSOLVER
    ("hipsolver trans out of range", _getrs(trans="999"), "ValueError"),
    ("hipsolver trans None", _getrs(trans="None"), "TypeError"),
    ("hipsolver trans of the wrong enum", _getrs(trans="hipsolver.hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER"),
     "TypeError"),
    ("hipsolver n over 32 bits", _getrs(n="2**31"), "OverflowError"),
    ("hipsolver m str", "hipsolver.hipsolverDgetrf_bufferSize(None, 'a', 1, None, 1, None)", "TypeError"),
    ("hipsolver lwork is a parameter", "hipsolver.hipsolverDgetrf_bufferSize(None, 1, 1, None, 1)", "TypeError"),
    ("hipsolver lwork into int64 storage",
     "hipsolver.hipsolverDgetrf_bufferSize(None, 1, 1, None, 1, np.zeros(1, np.int64))", "TypeError"),
    ("hipsolver lwork into read-only memory", "hipsolver.hipsolverDgetrf_bufferSize(None, 1, 1, None, 1, b'abcd')",
     "BufferError TypeError"),
    ("hipsolver data type out of range",
     f"hipsolver.hipsolverDnXgetrf_bufferSize(8, 8, 1, 1, 12345, None, 1, {R32F}, None, None)", "ValueError"),
    ("hipsolver 64-bit m over 64 bits",
     f"hipsolver.hipsolverDnXgetrf_bufferSize(8, 8, 2**63, 1, {R32F}, None, 1, {R32F}, None, None)",
     "OverflowError"),
    ("hipsolver stream str", "hipsolver.hipsolverSetStream(None, 'stream')", "TypeError"),
    ("hipfft extents shorter than rank", f"hipfft.hipfftPlanMany(3, [8, 8], None, 1, 0, None, 1, 0, {C2C}, 1)",
     "ValueError"),
    ("hipfft int64 extents (C reads int32)",
     f"hipfft.hipfftPlanMany(2, np.array([8, 8]), None, 1, 0, None, 1, 0, {C2C}, 1)", "TypeError"),
    ("hipfft inembed shorter than rank",
     f"hipfft.hipfftPlanMany(2, [8, 8], [8], 1, 0, None, 1, 0, {C2C}, 1)", "ValueError"),
    ("hipfft extents shorter than rank in MakePlanMany",
     f"hipfft.hipfftMakePlanMany(None, 2, [8], None, 1, 0, None, 1, 0, {C2C}, 1)", "ValueError"),
    # RCCL
    ("rccl ndev None", "rccl.ncclCommInitAll(None, None, None)", "TypeError"),
    ("rccl ndev float", "rccl.ncclCommInitAll(None, 1.5, None)", "TypeError"),
    ("rccl ndev over 32 bits", "rccl.ncclCommInitAll(None, 2**40, None)", "OverflowError"),
    ("rccl ndev overflow in the profiling entry", "rccl.pncclCommInitAll(None, 2**40, None)", "OverflowError"),
    ("rccl devlist with str", "rccl.ncclCommInitAll(None, 2, ['a', 'b'])", "TypeError"),
    ("rccl devlist with float", "rccl.ncclCommInitAll(None, 2, [0.0, 1.0])", "TypeError"),
    ("rccl devlist of int64 (C reads int32)", "rccl.ncclCommInitAll(None, 2, np.array([0, 1], np.int64))",
     "TypeError"),
    ("rccl devlist shorter than ndev", "rccl.ncclCommInitAll(None, 3, [0, 1])", "ValueError"),
    ("rccl devlist array shorter than ndev", "rccl.pncclCommInitAll(None, 2, np.zeros(1, np.int32))", "ValueError"),
    ("rccl communicators are a parameter", "rccl.ncclCommInitAll(2, [0, 1])", "TypeError"),
    ("rccl communicator array shorter than ndev", "rccl.ncclCommInitAll(np.zeros(1, np.uintp), 2, [0, 1])",
     "ValueError"),
    ("rccl communicators into read-only memory", "rccl.ncclCommInitAll(b'12345678', 1, [0])",
     "BufferError TypeError"),
    ("rccl unique id storage of the wrong struct", "rccl.ncclGetUniqueId(hip.dim3())", "TypeError"),
    ("rccl unique id storage is a parameter", "rccl.ncclGetUniqueId()", "TypeError"),
    ("rccl async error into int64 storage", "rccl.ncclCommGetAsyncError(None, np.zeros(1, np.int64))", "TypeError"),
    ("rccl negative count", _allreduce(count="-1"), "OverflowError"),
    ("rccl count None", _allreduce(count="None"), "TypeError"),
    ("rccl data type out of range", _allreduce(dtype="12345"), "ValueError"),
    ("rccl data type None", _allreduce(dtype="None"), "TypeError"),
    ("rccl reduction out of range", _allreduce(op="12345"), "ValueError"),
    ("rccl reduction of the wrong enum", _allreduce(op=F32), "TypeError"),
    ("rccl unique id given str", "rccl.ncclCommInitRank(1, 'id', 0)", "TypeError"),
    ("rccl unique id given None", "rccl.ncclCommInitRank(1, None, 0)", "TypeError"),
    ("rccl unique id of the wrong struct", "rccl.ncclCommInitRank(1, hip.dim3(), 0)", "TypeError"),
    ("rccl unique id too long", "rccl.ncclUniqueId(internal=b'x' * 200)", "ValueError"),
    ("rccl root float", f"rccl.ncclBcast(None, 1, {F32}, 0.5, None, None)", "TypeError"),
    ("rccl result out of range", "rccl.ncclGetErrorString(999)", "ValueError"),
]

PRELUDE = """
import numpy as np
from hip import hip, hipblas, hiprand, hipsparse, hipfft, hipsolver, rccl
"""

SCRIPT = PRELUDE + """
import builtins, json, sys
import hip as pkg
cases = json.loads(sys.argv[1])
out = {}
for name, expr, excs in cases:
    types = tuple(getattr(builtins, n) for n in excs.split())
    try:
        eval(expr)
    except pkg.LibraryNotFoundError:
        out[name] = "LibraryNotFoundError: the arguments converted and the call went on to load the library"
    except types:
        continue
    except BaseException as e:
        out[name] = f"{type(e).__name__}: {e}"
    else:
        out[name] = "no exception"
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def results():
    env = {f"HIP_PYTHON_{lib.upper()}_LIBRARY": f"/nonexistent/lib{lib}.so" for lib in header_facts.SIX}
    r = run_python("", env=env, args=["-c", SCRIPT, json.dumps(CASES)])
    assert r.returncode == 0, f"interpreter died (exit {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_case_ids_are_unique():
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("name,expr,excs", CASES, ids=[c[0] for c in CASES])
def test_bad_argument_raises(results, name, expr, excs):
    assert name not in results, f"{expr}: expected {excs}, got {results[name]}"


def test_every_library_is_covered():
    for lib in header_facts.SIX:
        assert sum(1 for _, e, _ in CASES if e.startswith(f"{lib}.")) >= 8, lib
