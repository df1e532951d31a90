"""Bad arguments raise TypeError/ValueError/OverflowError (or BufferError for read-only memory)
before anything reaches C; nothing crashes.

All cases run in one fresh interpreter whose HIP_PYTHON_<LIB>_LIBRARY variables point nowhere: an
argument that wrongly converts shows up as LibraryNotFoundError (the call went on to load the
library) instead of reaching a real library with garbage, and a crash kills only that interpreter
(every case then fails, with its exit status).

The cases are hand-written for what each library is known for, plus, for every library that has
a spec, cases derived from its stubs (hip/<lib>.pyi): a function's integer parameter given a str,
None, a float and a value over 64 bits, an enum parameter given None, a str and a value outside
the enum, too many arguments.
"""
from __future__ import annotations

import ast
import json

import pytest

import header_facts
from conftest import ROOT, run_python, stub_functions

HtoH = "hip.hipMemcpyKind.hipMemcpyHostToHost"
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
HAND = [
    # HIP
    # numbers
    ("int param given str", "hip.hipSetDevice('0')", "TypeError"),
    ("int param given None", "hip.hipSetDevice(None)", "TypeError"),
    ("int param given float", "hip.hipSetDevice(1.5)", "TypeError"),
    ("int param overflow", "hip.hipSetDevice(2**40)", "OverflowError"),
    ("negative size_t", "hip.hipMalloc(-1)", "OverflowError"),
    ("negative unsigned flags", "hip.hipStreamCreateWithFlags(-1)", "OverflowError"),
    ("negative memcpy size", f"hip.hipMemcpy(bytearray(4), bytearray(4), -4, {HtoH})", "OverflowError"),
    ("None as size", f"hip.hipMemcpy(bytearray(4), bytearray(4), None, {HtoH})", "TypeError"),
    # enums
    ("None as enum", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, None)", "TypeError"),
    ("str as enum", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, 'hipMemcpyHostToHost')", "TypeError"),
    ("out-of-range enum value", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, 12345)", "ValueError"),
    ("enum of the wrong class", "hip.hipMemcpy(bytearray(4), bytearray(4), 4, hip.hipError_t.hipSuccess)", "TypeError"),
    ("enum constructor unknown value", "hip.hipError_t(123456)", "ValueError"),
    ("enum lookup unknown name", "hip.hipError_t['hipNoSuchError']", "KeyError"),
    # pointers
    ("bytes as memcpy dst", f"hip.hipMemcpy(b'abcd', bytearray(4), 4, {HtoH})", "BufferError TypeError"),
    ("read-only memoryview as dst", f"hip.hipMemcpy(memoryview(b'abcd'), bytearray(4), 4, {HtoH})", "BufferError TypeError"),
    ("bytes as memset dst", "hip.hipMemset(b'abcd', 0, 4)", "BufferError TypeError"),
    ("non-contiguous array as pointer", f"hip.hipMemcpy(np.zeros(8)[::2], bytearray(4), 4, {HtoH})", "ValueError BufferError TypeError"),
    ("str as pointer", f"hip.hipMemcpy(bytearray(4), 'abcd', 4, {HtoH})", "TypeError"),
    ("float as pointer", "hip.hipFree(1.5)", "TypeError"),
    ("object as pointer", "hip.hipFree(object())", "TypeError"),
    ("negative int as pointer", "hip.hipFree(-1)", "OverflowError"),
    ("Pointer from str", "Pointer('x')", "TypeError"),
    ("str in kernel argument list", "hip.hipModuleLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, ['x'], None)", "TypeError"),
    # kernelParams items point at argument values in host memory: device memory there would be
    # read by the driver as host memory (a crash), so it is refused
    ("device array in kernelParams", "hip.hipModuleLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, [ctypes.c_int(1), CudaArray()], None)", "TypeError"),
    ("DLPack device tensor in launch args", "hip.hipLaunchKernel(None, hip.dim3(), hip.dim3(), [DLPackOnDevice()], 0, None)", "TypeError"),
    # C strings
    ("embedded NUL in bytes path", "hip.hipModuleLoad(b'a\\x00b')", "ValueError"),
    ("embedded NUL in str path", "hip.hipModuleLoad('a\\x00b')", "ValueError"),
    ("embedded NUL in hiprtc option", "hiprtc.hiprtcCompileProgram(None, 1, [b'-O\\x001'])", "ValueError"),
    ("embedded NUL in hiprtc source", "hiprtc.hiprtcCreateProgram(b'int x;\\x00', b'p.hip', 0, None, None)", "ValueError"),
    ("hiprtc program given a struct", "hiprtc.hiprtcCompileProgram(hip.hipDeviceProp_t(), 0, [])", "TypeError"),
    ("hiprtc program given a stream", "hiprtc.hiprtcGetCodeSize(hip.ihipStream_t.from_ptr(8))", "TypeError"),
    ("hiprtc program by reference given a struct", "hiprtc.hiprtcDestroyProgram(hip.dim3(5, 6, 7))", "TypeError"),
    ("hiprtc program by reference given a struct's createRef()",
     "hiprtc.hiprtcDestroyProgram(hip.dim3(5, 6, 7).createRef())", "TypeError"),
    # structs
    ("dim3 negative field", "hip.dim3(x=-1)", "OverflowError"),
    ("dim3 field over 32 bits", "hip.dim3(x=2**40)", "OverflowError"),
    ("dim3 field set over 32 bits", "setattr(hip.dim3(), 'y', 2**32)", "OverflowError"),
    ("dim3 field from str", "hip.dim3(x='1')", "TypeError"),
    ("dim3 field from complex", "hip.dim3(x=1j)", "TypeError"),
    ("dim3 field from NaN", "hip.dim3(x=float('nan'))", "ValueError"),
    ("unknown struct kwarg", "hip.dim3(w=1)", "TypeError"),
    ("too many positional fields", "hip.dim3(1, 2, 3, 4)", "TypeError"),
    ("char array too long", "setattr(hip.hipDeviceProp_t(), 'name', b'x' * 4096)", "ValueError"),
    ("struct view of NULL", "hip.dim3.from_ptr(0)", "ValueError"),
    ("wrong struct class for struct pointer", "hip.hipGetDeviceProperties(hip.dim3(), 0)", "TypeError"),
    # a Python buffer where C reads a struct: C would read past it and follow the pointer fields it
    # found there (an H100 crashed on the alias's cuGraphKernelNodeSetParams_v2(0, b'x'))
    ("1-byte buffer as struct pointer", f"hip.hipGraphKernelNodeSetParams({H}, b'x')", "ValueError"),
    ("short NumPy array as struct pointer", f"hip.hipGraphKernelNodeSetParams({H}, np.zeros(1, np.uint8))", "ValueError"),
    ("short ctypes object as struct pointer", f"hip.hipGraphKernelNodeSetParams({H}, ctypes.c_int(0))", "ValueError"),
    # a NULL address for a C string the call reads (an H100 crashed on cuGetProcAddress_v2(0, 0, 0))
    ("NULL address as C string", f"hip.hipModuleGetFunction({H}, 0)", "ValueError"),
    ("NULL Pointer as C string", f"hip.hipModuleGetFunction({H}, Pointer(0))", "ValueError"),
    ("wrong struct class for attributes", "hip.hipPointerGetAttributes(hip.dim3(), None)", "TypeError"),
    ("str for struct by value", "hip.hipLaunchKernel(None, 'abc', 1, None, 0, None)", "TypeError"),
    ("wrong struct for struct by value", "hip.hipLaunchKernel(None, hip.hipDeviceProp_t(), 1, None, 0, None)", "TypeError"),
    # a struct or handle object of another C type: C would read its memory as its own type
    # (hiprtcDestroyProgram(dim3()) read the dim3 as a program and crashed)
    ("handle of another type", "hip.hipStreamSynchronize(hip.ihipEvent_t.from_ptr(8))", "TypeError"),
    ("struct as a handle", "hip.hipEventRecord(hip.ihipEvent_t.from_ptr(8), hip.dim3())", "TypeError"),
    ("handle as a struct pointer", "hip.hipGetDevicePropertiesR0600(hip.ihipStream_t.from_ptr(8), 0)", "TypeError"),
    ("struct of another type as handle array", f"hip.hipGraphAddDependencies({H}, hip.dim3(), hip.dim3(), 1)",
     "TypeError"),
    ("handle of another type as handle storage", "hip.hipGraphGetNodes(8, hip.ihipStream_t.from_ptr(8))", "TypeError"),
    # what the call fills: text and structs it returns, arrays the caller passes (AMD's convention)
    ("name buffer is not a parameter", "hip.hipDeviceGetName(bytearray(256), 256, 0)", "TypeError"),
    ("name length given str", "hip.hipDeviceGetName('256', 0)", "TypeError"),
    ("name length over 32 bits", "hip.hipDeviceGetName(2**40, 0)", "OverflowError"),
    ("uuid storage is not a parameter", "hip.hipDeviceGetUuid(hip.hipUUID_t(), 0)", "TypeError"),
    ("graph log buffer shorter than bufferSize", "hip.hipGraphInstantiate(8, bytearray(4), 16)", "ValueError"),
    ("graph log buffer None with a bufferSize", "hip.hipGraphInstantiate(8, None, 16)", "ValueError"),
    ("CU mask into read-only memory", "hip.hipExtStreamGetCUMask(None, 2, b'abcdefgh')", "BufferError TypeError"),
    ("CU mask into int64 storage", "hip.hipExtStreamGetCUMask(None, 2, np.zeros(2, np.int64))", "TypeError"),
    ("external memory storage given str", "hip.hipImportExternalMemory('x', None)", "TypeError"),
    # callbacks
    ("non-callable callback", "hip.hipStreamAddCallback(None, 5.0, None, 0)", "TypeError"),
    ("str callback", "hip.hipStreamAddCallback(None, 'callback', None, 0)", "TypeError"),
    # hipBLAS
    ("hipblas handle given str", _saxpy(handle="'handle'"), "TypeError"),
    ("hipblas handle given float", _saxpy(handle="1.5"), "TypeError"),
    ("hipblas handle given a struct", _saxpy(handle="hip.dim3()"), "TypeError"),
    ("hipblas handle given a stream", _saxpy(handle="hip.ihipStream_t.from_ptr(8)"), "TypeError"),
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
    # C takes no size for the revision text: hipSPARSE writes up to 256 bytes (the spec's buffer[256])
    ("hipsparse revision into a short buffer", "hipsparse.hipsparseGetGitRevision(8, bytearray(1))", "ValueError"),
    ("hipsparse revision into NULL", "hipsparse.hipsparseGetGitRevision(8, None)", "ValueError"),
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
    ("rccl devlist with str", "rccl.ncclCommInitAll([0, 0], 2, ['a', 'b'])", "TypeError"),
    ("rccl devlist with float", "rccl.ncclCommInitAll([0, 0], 2, [0.0, 1.0])", "TypeError"),
    ("rccl devlist of int64 (C reads int32)", "rccl.ncclCommInitAll([0, 0], 2, np.array([0, 1], np.int64))",
     "TypeError"),
    ("rccl devlist shorter than ndev", "rccl.ncclCommInitAll([0, 0, 0], 3, [0, 1])", "ValueError"),
    ("rccl devlist array shorter than ndev", "rccl.pncclCommInitAll([0, 0], 2, np.zeros(1, np.int32))", "ValueError"),
    ("rccl comm None for ndev communicators", "rccl.ncclCommInitAll(None, 2, None)", "ValueError"),
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
    # rocFFT
    ("rocfft lengths fewer than dimensions", "rocfft.rocfft_plan_create(0, 0, 0, 3, [8, 8], 1, None)", "ValueError"),
    ("rocfft negative dimensions", "rocfft.rocfft_plan_create(0, 0, 0, -1, [8], 1, None)", "OverflowError"),
    ("rocfft strides fewer than their count", "rocfft.rocfft_plan_description_set_data_layout("
     f"{H}, 0, 0, None, None, 2, [1], 0, 1, [1], 0)", "ValueError"),
    ("rocfft plan given a plan description", "rocfft.rocfft_execute(rocfft.rocfft_plan_description_t.from_ptr(8), "
     "None, None, None)", "TypeError"),
    ("rocfft buffers given a str", f"rocfft.rocfft_execute({H}, 'x', None, None)", "TypeError"),
    # Comgr: handles are structs passed by value
    ("comgr data given a data set", "amd_comgr.amd_comgr_release_data(amd_comgr.amd_comgr_data_set_s())", "TypeError"),
    ("comgr data given a str", "amd_comgr.amd_comgr_get_data_kind('data')", "TypeError"),
    ("comgr buffer shorter than its size", "amd_comgr.amd_comgr_get_data(amd_comgr.amd_comgr_data_s(), 16, "
     "bytearray(4))", "ValueError"),
    ("comgr bytes as the buffer it fills", "amd_comgr.amd_comgr_get_data(amd_comgr.amd_comgr_data_s(), 4, b'abcd')",
     "BufferError TypeError"),
    ("comgr options fewer than count", "amd_comgr.amd_comgr_action_info_set_option_list("
     "amd_comgr.amd_comgr_action_info_s(), [b'-O3'], 2)", "ValueError"),
    ("comgr isa name None", "amd_comgr.amd_comgr_action_info_set_isa_name(amd_comgr.amd_comgr_action_info_s(), None)",
     "TypeError ValueError"),
    # AMD SMI
    ("amdsmi handles fewer than count", f"amdsmi.amdsmi_get_processor_handles({H}, 4, [8])", "ValueError"),
    ("amdsmi uuid buffer shorter than its length", f"amdsmi.amdsmi_get_gpu_device_uuid({H}, 64, bytearray(8))",
     "ValueError"),
    ("amdsmi processor handle given a str", "amdsmi.amdsmi_get_gpu_id('gpu0')", "TypeError"),
    ("amdsmi negative init flags", "amdsmi.amdsmi_init(-1)", "OverflowError"),
    ("amdsmi struct of the wrong class", f"amdsmi.amdsmi_get_gpu_asic_info({H}, amdsmi.amdsmi_version_t())",
     "TypeError"),
    # MIOpen
    ("miopen dims fewer than nbDims", f"miopen.miopenSetTensorDescriptor({H}, miopen.miopenDataType_t.miopenFloat, "
     "4, [1, 2], [1, 1, 1, 1])", "ValueError"),
    ("miopen negative nbDims", f"miopen.miopenSetTensorDescriptor({H}, miopen.miopenDataType_t.miopenFloat, -1, [], [])",
     "ValueError"),
    ("miopen tensor descriptor given a handle", "miopen.miopenGetTensorNumBytes(miopen.miopenHandle.from_ptr(8))",
     "TypeError"),
    ("miopen solution data shorter than size", "miopen.miopenLoadSolution(b'xy', 16)", "ValueError"),
    ("miopen solution saved into bytes", f"miopen.miopenSaveSolution({H}, b'xy')", "BufferError TypeError"),
    # rocBLAS, rocSOLVER
    ("rocblas handle given str", "rocblas.rocblas_sscal('h', 1, 1.0, None, 1)", "TypeError"),
    ("rocblas handle given a stream", "rocblas.rocblas_sscal(hip.ihipStream_t.from_ptr(8), 1, 1.0, None, 1)",
     "TypeError"),
    ("rocblas alpha given str", f"rocblas.rocblas_sscal({H}, 1, '1.0', None, 1)", "TypeError"),
    ("rocblas complex alpha for a real function", f"rocblas.rocblas_sscal({H}, 1, 1j, None, 1)", "TypeError"),
    ("rocblas n over 32 bits", f"rocblas.rocblas_sscal({H}, 2**40, 1.0, None, 1)", "OverflowError"),
    ("rocblas operation of the wrong enum",
     f"rocblas.rocblas_sgemm({H}, {HtoH}, 111, 1, 1, 1, 1.0, None, 1, None, 1, 0.0, None, 1)", "TypeError"),
    ("rocblas operation out of range",
     f"rocblas.rocblas_sgemm({H}, 12345, 111, 1, 1, 1, 1.0, None, 1, None, 1, 0.0, None, 1)", "ValueError"),
    ("rocblas result into read-only memory", f"rocblas.rocblas_sdot({H}, 4, None, 1, None, 1, b'abcd')",
     "BufferError TypeError"),
    ("rocblas version buffer shorter than len", "rocblas.rocblas_get_version_string(bytearray(4), 64)", "ValueError"),
    ("rocblas version buffer None", "rocblas.rocblas_get_version_string(None, 64)", "ValueError"),
    ("rocsolver info into read-only memory", f"rocsolver.rocsolver_dgetrf({H}, 1, 1, None, 1, None, b'abcd')",
     "BufferError TypeError"),
    ("rocsolver handle given a struct", "rocsolver.rocsolver_dgetrf(hip.dim3(), 1, 1, None, 1, None, None)",
     "TypeError"),
    ("rocsolver matrix list with a str", f"rocsolver.rocsolver_dgetrf({H}, 1, 1, [1.0, 'x'], 1, None, None)",
     "TypeError"),
    ("rocsolver version buffer shorter than len", "rocsolver.rocsolver_get_version_string(bytearray(2), 100)",
     "ValueError"),
]


# -- cases derived from the stubs, for every library --------------------------------------------------
def _stub(lib: str) -> list:
    """The top-level statements of hip/<lib>.pyi; [] when not generated."""
    path = ROOT / "hip" / f"{lib}.pyi"
    return ast.parse(path.read_text()).body if path.exists() else []


# Enum classes of every stub (a library's parameters may be of HIP's enums).
ENUMS = {n.name for lib in header_facts.names() for n in _stub(lib)
         if isinstance(n, ast.ClassDef) and any(ast.unparse(b) == "Enum" for b in n.bases)}


_PLAIN = {"int": "0", "float": "0.0", "Any": "8"}   # Any: an address (handles refuse NULL)


def _call(lib, fn, params, i=None, value=None, extra=False):
    """`lib.fn(...)` with neutral arguments (0, 0.0, an address, an enum's first member, a new struct),
    parameter i replaced by `value`; with `extra`, one argument too many."""
    args = [value if k == i else _PLAIN.get(ann, f"_neutral({lib!r}, {ann!r})") for k, (_, ann) in enumerate(params)]
    return f"{lib}.{fn}({', '.join(args + (['0'] if extra else []))})"


def derived_cases(lib: str) -> list[tuple[str, str, str]]:
    out = []
    functions = [(fn, ps) for fn, ps in stub_functions(lib).items() if ps]
    # A parameter typed Any may be a struct by value that None does not convert to (and whose
    # TypeError would hide the case's own): the functions whose other parameters are all numbers
    # or enums go first.
    functions.sort(key=lambda f: any(a == "Any" for _, a in f[1]))
    ints = next(((fn, ps, k) for fn, ps in functions for k, (_, a) in enumerate(ps) if a == "int"), None)
    if ints:
        fn, ps, k = ints
        exact = not any(a == "Any" for _, a in ps)
        for what, value, exc in (("a str", "'1'", "TypeError"), ("None", "None", "TypeError"),
                                 ("a float", "1.5", "TypeError"), ("2**64", "2**64", "OverflowError")):
            if exact or exc == "TypeError":
                out.append((f"{lib} (derived): {fn} int parameter {ps[k][0]} given {what}", _call(lib, fn, ps, k, value),
                            exc))
    enums = next(((fn, ps, k) for fn, ps in functions for k, (_, a) in enumerate(ps) if a in ENUMS), None)
    if enums:
        fn, ps, k = enums
        cls = f"_neutral_class({lib!r}, {ps[k][1]!r})"
        exact = not any(a == "Any" for _, a in ps)
        for what, value, exc in (("None", "None", "TypeError"), ("a str", "'x'", "TypeError"),
                                 ("a value outside the enum", f"_outside({cls})", "ValueError")):
            if exact or exc == "TypeError":
                out.append((f"{lib} (derived): {fn} enum parameter {ps[k][0]} given {what}",
                            _call(lib, fn, ps, k, value), exc))
    if functions:
        fn, ps = functions[0]
        out.append((f"{lib} (derived): {fn} given one argument too many", _call(lib, fn, ps, extra=True), "TypeError"))
    return out


DERIVED = [c for lib in header_facts.names() for c in derived_cases(lib)]
CASES = HAND + DERIVED

PRELUDE = """
import ctypes, importlib
import numpy as np


class CudaArray:
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0x7f0000000000, False), "version": 3}


class DLPackOnDevice:
    def __dlpack_device__(self):
        return (2, 0)   # kDLCUDA

import hip as _pkg
import hip._enum
from hip._pointer import Pointer
try:
    from hip import hip
except ImportError:   # a build of other libraries only (HIP_PYTHON_LIBS)
    hip = None

def _neutral_class(lib, name):
    return getattr(importlib.import_module("hip." + lib), name, None) or getattr(hip, name)

def _neutral(lib, name):
    cls = _neutral_class(lib, name)
    return list(cls)[0] if issubclass(cls, _pkg._enum.Enum) else cls()

def _outside(cls):
    return max(int(m) for m in cls) + 1000
"""

SCRIPT = PRELUDE + """
import builtins, json, sys
cases, libraries = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out, built = {}, []
for lib in libraries:
    try:
        globals()[lib] = importlib.import_module("hip." + lib)
        built.append(lib)
    except ImportError:
        pass
for name, expr, excs in cases:
    types = tuple(getattr(builtins, n) for n in excs.split())
    try:
        eval(expr)
    except _pkg.LibraryNotFoundError:
        out[name] = "LibraryNotFoundError: the arguments converted and the call went on to load the library"
    except types:
        continue
    except NameError as e:
        out[name] = f"NameError: {e}"
    except BaseException as e:
        out[name] = f"{type(e).__name__}: {e}"
    else:
        out[name] = "no exception"
print(json.dumps({"failed": out, "built": built}))
"""


def _library_of(expr: str) -> str:
    return expr.split(".")[0]


@pytest.fixture(scope="module")
def results():
    libs = header_facts.names()
    env = {f"HIP_PYTHON_{lib.upper()}_LIBRARY": f"/nonexistent/lib{lib}.so" for lib in libs}
    r = run_python("", env=env, args=["-c", SCRIPT, json.dumps(CASES), json.dumps(libs)])
    assert r.returncode == 0, f"interpreter died (exit {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_case_ids_are_unique():
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("name,expr,excs", CASES, ids=[c[0] for c in CASES])
def test_bad_argument_raises(results, name, expr, excs):
    lib = _library_of(expr)
    if lib in header_facts.names() and lib not in results["built"]:
        pytest.skip(f"hip.{lib} is not built")
    assert name not in results["failed"], f"{expr}: expected {excs}, got {results['failed'][name]}"


@pytest.mark.parametrize("lib", header_facts.names())
def test_every_library_is_covered(results, lib):
    if lib not in results["built"]:
        pytest.skip(f"hip.{lib} is not built")
    assert sum(1 for _, e, _ in CASES if _library_of(e) == lib) >= 5, lib


def test_text_length_below_one_is_not_called():
    """Text a call writes into `len` bytes (hipDeviceGetName): a length below 1 leaves no room for
    the NUL C writes at [len - 1] (the alias's cuDeviceGetName(0, 0) crashed an H100), so the call
    is not made and the status is hipErrorInvalidValue; with the library pointing nowhere, a call
    made would have raised LibraryNotFoundError instead."""
    r = run_python("""
        from hip import hip
        for f in (hip.hipDeviceGetName, hip.hipDeviceGetPCIBusId):
            for n in (0, -1):
                print(f.__name__, n, f(n, 0)[0].name)
    """, env={"HIP_PYTHON_HIP_LIBRARY": "/nonexistent/libhip.so"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split("\n")[:-1] == [f"{f} {n} hipErrorInvalidValue" for f in ("hipDeviceGetName", "hipDeviceGetPCIBusId")
                                         for n in (0, -1)]
