/* A stand-in for libhipblas/libhipfft/libhipsolver/librccl/libhipsparse used by
 * tests/test_libraries_intent.py: each function is defined against the real header's prototype
 * (the compiler checks the signature) and reflects what it received into its outputs, so a test
 * can see exactly what the bindings passed (numbers for alpha/beta, arrays, structs by value)
 * and that outputs (handles, plans, results, workspace sizes) come back. No GPU involved. */
#include <stdint.h>
#include <string.h>
#include <hipblas/hipblas.h>
#include <hipfft/hipfft.h>
#include <hipsolver/hipsolver.h>
#include <hipsparse/hipsparse.h>
#include <rccl/rccl.h>

#define FAKE_HANDLE ((void*)(uintptr_t)0x5a5a0000u)

/* -- hipBLAS ------------------------------------------------------------------------------ */
hipblasStatus_t hipblasCreate(hipblasHandle_t* handle) { *handle = FAKE_HANDLE; return HIPBLAS_STATUS_SUCCESS; }
hipblasStatus_t hipblasDestroy(hipblasHandle_t handle)
{ return handle == FAKE_HANDLE ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_INVALID_VALUE; }
hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t* mode)
{ *mode = HIPBLAS_POINTER_MODE_DEVICE; return HIPBLAS_STATUS_SUCCESS; }

/* y[0] = *alpha, y[1] = x[0], y[2] = n (x and y are host arrays here). */
#define AXPY(NAME, T)                                                                              \
    hipblasStatus_t NAME(hipblasHandle_t h, int n, const T* alpha, const T* x, int incx, T* y, int incy) \
    {                                                                                              \
        if(h != FAKE_HANDLE) return HIPBLAS_STATUS_HANDLE_IS_NULLPTR;                              \
        y[0] = *alpha; if(x) y[1] = x[0];                                                          \
        return HIPBLAS_STATUS_SUCCESS;                                                             \
    }
AXPY(hipblasSaxpy, float)
AXPY(hipblasDaxpy, double)
AXPY(hipblasCaxpy, hipblasComplex)
AXPY(hipblasZaxpy, hipblasDoubleComplex)
AXPY(hipblasCaxpy_v2, hipComplex)
AXPY(hipblasZaxpy_v2, hipDoubleComplex)

/* C[0] = alpha, C[1] = beta, C[2] = transA, C[3] = transB, C[4] = m*10000 + n*100 + k, C[5] = lda*10000 + ldb*100 + ldc */
hipblasStatus_t hipblasSgemm(hipblasHandle_t h, hipblasOperation_t transA, hipblasOperation_t transB, int m, int n,
                             int k, const float* alpha, const float* AP, int lda, const float* BP, int ldb,
                             const float* beta, float* CP, int ldc)
{
    CP[0] = *alpha; CP[1] = *beta; CP[2] = transA; CP[3] = transB;
    CP[4] = m * 10000 + n * 100 + k; CP[5] = lda * 10000 + ldb * 100 + ldc;
    return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasSdot(hipblasHandle_t h, int n, const float* x, int incx, const float* y, int incy, float* result)
{
    float s = 0; for(int i = 0; i < n; i++) s += x[i * incx] * y[i * incy];
    *result = s; return HIPBLAS_STATUS_SUCCESS;
}
hipblasStatus_t hipblasCdotc(hipblasHandle_t h, int n, const hipblasComplex* x, int incx, const hipblasComplex* y,
                             int incy, hipblasComplex* result)
{ result->x = 1.5f; result->y = -2.5f; return HIPBLAS_STATUS_SUCCESS; }
hipblasStatus_t hipblasIsamax(hipblasHandle_t h, int n, const float* x, int incx, int* result)
{ *result = n + 7; return HIPBLAS_STATUS_SUCCESS; }

/* -- hipFFT ------------------------------------------------------------------------------- */
hipfftResult hipfftCreate(hipfftHandle* plan) { *plan = (hipfftHandle)(uintptr_t)0x30000; return HIPFFT_SUCCESS; }
hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch)
{
    if(type != HIPFFT_C2C) return HIPFFT_INVALID_TYPE;
    *plan = (hipfftHandle)(uintptr_t)(0x10000 + nx * 16 + batch); return HIPFFT_SUCCESS;
}
hipfftResult hipfftPlanMany(hipfftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                            int* onembed, int ostride, int odist, hipfftType type, int batch)
{
    *plan = (hipfftHandle)(uintptr_t)(0x20000 + rank * 0x1000 + n[0] * 16 + (rank > 1 ? n[1] : 0));
    return inembed == NULL && onembed == NULL ? HIPFFT_SUCCESS : HIPFFT_INVALID_VALUE;
}
hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type, int batch, size_t* workSize)
{ *workSize = (size_t)nx * batch * 8; return HIPFFT_SUCCESS; }
hipfftResult hipfftGetSize(hipfftHandle plan, size_t* workSize) { *workSize = (size_t)(uintptr_t)plan; return HIPFFT_SUCCESS; }
hipfftResult hipfftGetVersion(int* version) { *version = 10042; return HIPFFT_SUCCESS; }
hipfftResult hipfftDestroy(hipfftHandle plan) { return HIPFFT_SUCCESS; }

/* -- hipSOLVER ---------------------------------------------------------------------------- */
hipsolverStatus_t hipsolverCreate(hipsolverHandle_t* handle) { *handle = FAKE_HANDLE; return HIPSOLVER_STATUS_SUCCESS; }
hipsolverStatus_t hipsolverDestroy(hipsolverHandle_t handle)
{ return handle == FAKE_HANDLE ? HIPSOLVER_STATUS_SUCCESS : HIPSOLVER_STATUS_INVALID_VALUE; }
hipsolverStatus_t hipsolverDgetrf_bufferSize(hipsolverHandle_t handle, int m, int n, double* A, int lda, int* lwork)
{ *lwork = m * 1000 + n * 10 + lda; return HIPSOLVER_STATUS_SUCCESS; }
hipsolverStatus_t hipsolverDnXgetrf_bufferSize(hipsolverDnHandle_t handle, hipsolverDnParams_t params, int64_t m,
                                               int64_t n, hipDataType dataTypeA, const void* A, int64_t lda,
                                               hipDataType computeType, size_t* lworkOnDevice, size_t* lworkOnHost)
{ *lworkOnDevice = 111; *lworkOnHost = 222; return HIPSOLVER_STATUS_SUCCESS; }
/* devInfo[0] = lwork, devIpiv[0] = m * 100 + n, A[0] = lda */
hipsolverStatus_t hipsolverDgetrf(hipsolverHandle_t handle, int m, int n, double* A, int lda, double* work,
                                  int lwork, int* devIpiv, int* devInfo)
{ devInfo[0] = lwork; devIpiv[0] = m * 100 + n; A[0] = lda; return HIPSOLVER_STATUS_SUCCESS; }
/* devInfo[0] = trans, B[0] = nrhs */
hipsolverStatus_t hipsolverDgetrs(hipsolverHandle_t handle, hipsolverOperation_t trans, int n, int nrhs, double* A,
                                  int lda, int* devIpiv, double* B, int ldb, double* work, int lwork, int* devInfo)
{ devInfo[0] = trans; B[0] = nrhs; return HIPSOLVER_STATUS_SUCCESS; }

/* -- hipSPARSE ---------------------------------------------------------------------------- */
#define CSRMV(NAME, T)                                                                             \
    hipsparseStatus_t NAME(hipsparseHandle_t h, hipsparseOperation_t transA, int m, int n, int nnz,      \
                           const T* alpha, const hipsparseMatDescr_t descrA, const T* csrSortedValA,     \
                           const int* csrSortedRowPtrA, const int* csrSortedColIndA, const T* x,         \
                           const T* beta, T* y)                                                          \
    { y[0] = *alpha; y[1] = *beta; return HIPSPARSE_STATUS_SUCCESS; }
CSRMV(hipsparseScsrmv, float)
CSRMV(hipsparseDcsrmv, double)
CSRMV(hipsparseCcsrmv, hipComplex)
CSRMV(hipsparseZcsrmv, hipDoubleComplex)

/* -- RCCL --------------------------------------------------------------------------------- */
ncclResult_t ncclGetVersion(int* version) { *version = 22005; return ncclSuccess; }
ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId)
{ for(int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) uniqueId->internal[i] = (char)i; return ncclSuccess; }
ncclResult_t pncclGetUniqueId(ncclUniqueId* uniqueId) { return ncclGetUniqueId(uniqueId); }
/* the id arrives by value: the handle encodes the sum of its bytes and the rank */
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank)
{
    unsigned s = 0; for(int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) s += (unsigned char)commId.internal[i];
    *comm = (ncclComm_t)(uintptr_t)(0x100000 + s * 16 + rank); return nranks > 0 ? ncclSuccess : ncclInvalidArgument;
}
/* one communicator per device: 0x1000 * (i + 1) + devlist[i] (0xff for a NULL devlist) */
ncclResult_t ncclCommInitAll(ncclComm_t* comm, int ndev, const int* devlist)
{
    for(int i = 0; i < ndev; i++) comm[i] = (ncclComm_t)(uintptr_t)(0x1000 * (i + 1) + (devlist ? devlist[i] : 0xff));
    return ndev > 0 ? ncclSuccess : ncclInvalidArgument;
}
ncclResult_t pncclCommInitAll(ncclComm_t* comm, int ndev, const int* devlist) { return ncclCommInitAll(comm, ndev, devlist); }
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) { *count = (int)((uintptr_t)comm >> 12); return ncclSuccess; }
ncclResult_t ncclCommDestroy(ncclComm_t comm) { return ncclSuccess; }
ncclResult_t ncclGroupStart(void) { return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) { return ncclSuccess; }
