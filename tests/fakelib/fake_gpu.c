/* A CPU stand-in for the HIP runtime and the five math/communication libraries the examples use,
 * so that tests/test_examples.py can run examples/{hipblas,hiprand,hipfft,hipsparse,hipsolver,rccl}_*.py
 * end to end on a machine without a GPU. "Device memory" is host memory; every function checks its
 * arguments the way the real library documents them (sizes, leading dimensions, index types, pointer
 * modes, workspace sizes, group semantics) and returns an error status otherwise, so an example that
 * passes wrong arguments fails here. Prototypes come from the real headers (hiprand.h is C++-only:
 * its few functions are declared by hand with the same ABI). FAKE_GPU_DEVICES sets the device count
 * (default 2). */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <hip/hip_runtime_api.h>
#include <hipblas/hipblas.h>
#include <hipfft/hipfft.h>
#include <hipsolver/hipsolver.h>
#include <hipsparse/hipsparse.h>
#include <rccl/rccl.h>

/* -- HIP runtime ------------------------------------------------------------------------------ */
static int current_device = 0;

static int device_count(void)
{
    const char* s = getenv("FAKE_GPU_DEVICES");
    return s ? atoi(s) : 2;
}

hipError_t hipGetDeviceCount(int* count) { *count = device_count(); return hipSuccess; }
hipError_t hipSetDevice(int deviceId)
{
    if(deviceId < 0 || deviceId >= device_count()) return hipErrorInvalidDevice;
    current_device = deviceId; return hipSuccess;
}
hipError_t hipGetDevice(int* deviceId) { *deviceId = current_device; return hipSuccess; }
hipError_t hipDeviceSynchronize(void) { return hipSuccess; }
const char* hipGetErrorString(hipError_t error) { return error == hipSuccess ? "no error" : "fake error"; }
const char* hipGetErrorName(hipError_t error) { return error == hipSuccess ? "hipSuccess" : "hipErrorFake"; }

hipError_t hipMalloc(void** ptr, size_t size)
{
    if(ptr == NULL) return hipErrorInvalidValue;
    *ptr = calloc(1, size ? size : 1);
    return *ptr ? hipSuccess : hipErrorOutOfMemory;
}
hipError_t hipFree(void* ptr) { free(ptr); return hipSuccess; }
hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind)
{
    if(sizeBytes && (dst == NULL || src == NULL)) return hipErrorInvalidValue;
    if(kind < hipMemcpyHostToHost || kind > hipMemcpyDefault) return hipErrorInvalidMemcpyDirection;
    memmove(dst, src, sizeBytes); return hipSuccess;
}

struct ihipStream_t { int device; };
hipError_t hipStreamCreate(hipStream_t* stream)
{
    *stream = malloc(sizeof(struct ihipStream_t)); (*stream)->device = current_device; return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t stream) { return hipSuccess; }
hipError_t hipStreamDestroy(hipStream_t stream) { free(stream); return hipSuccess; }

/* -- hipBLAS ---------------------------------------------------------------------------------- */
struct fake_blas { hipblasPointerMode_t mode; };
hipblasStatus_t hipblasCreate(hipblasHandle_t* handle)
{
    struct fake_blas* b = malloc(sizeof *b); b->mode = HIPBLAS_POINTER_MODE_HOST; *handle = b;
    return HIPBLAS_STATUS_SUCCESS;
}
hipblasStatus_t hipblasDestroy(hipblasHandle_t handle) { free(handle); return HIPBLAS_STATUS_SUCCESS; }
hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t mode)
{
    if(mode != HIPBLAS_POINTER_MODE_HOST && mode != HIPBLAS_POINTER_MODE_DEVICE) return HIPBLAS_STATUS_INVALID_ENUM;
    ((struct fake_blas*)handle)->mode = mode; return HIPBLAS_STATUS_SUCCESS;
}
const char* hipblasStatusToString(hipblasStatus_t status) { return status ? "fake hipBLAS error" : "success"; }
hipblasStatus_t hipblasSaxpy(hipblasHandle_t handle, int n, const float* alpha, const float* x, int incx, float* y,
                             int incy)
{
    if(!handle) return HIPBLAS_STATUS_NOT_INITIALIZED;
    if(!alpha || !x || !y || incx == 0 || incy == 0) return HIPBLAS_STATUS_INVALID_VALUE;
    if(((struct fake_blas*)handle)->mode != HIPBLAS_POINTER_MODE_HOST) return HIPBLAS_STATUS_NOT_SUPPORTED;
    for(int i = 0; i < n; i++) y[(size_t)i * incy] += *alpha * x[(size_t)i * incx];
    return HIPBLAS_STATUS_SUCCESS;
}
hipblasStatus_t hipblasSdot(hipblasHandle_t handle, int n, const float* x, int incx, const float* y, int incy,
                            float* result)
{
    if(!handle) return HIPBLAS_STATUS_NOT_INITIALIZED;
    if(!x || !y || !result) return HIPBLAS_STATUS_INVALID_VALUE;
    double s = 0; for(int i = 0; i < n; i++) s += (double)x[(size_t)i * incx] * y[(size_t)i * incy];
    *result = (float)s; return HIPBLAS_STATUS_SUCCESS;
}

/* -- hipRAND (hiprand.h is C++-only: same ABI, declared here) --------------------------------- */
typedef struct fake_rng { uint64_t state; int type; }* fake_hiprandGenerator_t;
int hiprandCreateGenerator(fake_hiprandGenerator_t* generator, int rng_type)
{
    if(rng_type < 400 || rng_type > 504) return 103; /* HIPRAND_STATUS_TYPE_ERROR */
    *generator = malloc(sizeof(struct fake_rng)); (*generator)->state = 0x853c49e6748fea9bULL;
    (*generator)->type = rng_type; return 0;
}
int hiprandDestroyGenerator(fake_hiprandGenerator_t generator) { if(!generator) return 101; free(generator); return 0; }
int hiprandSetPseudoRandomGeneratorSeed(fake_hiprandGenerator_t generator, unsigned long long seed)
{ if(!generator) return 101; generator->state = seed * 6364136223846793005ULL + 1442695040888963407ULL; return 0; }
int hiprandGenerateUniform(fake_hiprandGenerator_t generator, float* output_data, size_t n)
{
    if(!generator) return 101;
    if(!output_data) return 102;
    for(size_t i = 0; i < n; i++) {   /* xorshift64*: 24 random bits -> (0, 1] */
        uint64_t x = generator->state; x ^= x >> 12; x ^= x << 25; x ^= x >> 27; generator->state = x;
        uint32_t r = (uint32_t)((x * 0x2545F4914F6CDD1DULL) >> 40);
        output_data[i] = (float)(r + 1) / 16777216.0f;
    }
    return 0;
}

/* -- hipFFT ----------------------------------------------------------------------------------- */
struct hipfftHandle_t { int n, batch; hipfftType type; };
hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch)
{
    if(!plan) return HIPFFT_INVALID_VALUE;
    if(nx < 1 || batch < 1) return HIPFFT_INVALID_SIZE;
    *plan = malloc(sizeof(struct hipfftHandle_t)); (*plan)->n = nx; (*plan)->batch = batch; (*plan)->type = type;
    return HIPFFT_SUCCESS;
}
hipfftResult hipfftDestroy(hipfftHandle plan) { if(!plan) return HIPFFT_INVALID_PLAN; free(plan); return HIPFFT_SUCCESS; }
hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex* idata, hipfftComplex* odata, int direction)
{
    if(!plan) return HIPFFT_INVALID_PLAN;
    if(plan->type != HIPFFT_C2C) return HIPFFT_INVALID_TYPE;
    if(direction != HIPFFT_FORWARD && direction != HIPFFT_BACKWARD) return HIPFFT_INVALID_VALUE;
    if(!idata || !odata) return HIPFFT_INVALID_VALUE;
    int n = plan->n;
    double complex* tmp = malloc(sizeof(double complex) * n);
    for(int b = 0; b < plan->batch; b++) {
        hipfftComplex* in = idata + (size_t)b * n;
        hipfftComplex* out = odata + (size_t)b * n;
        for(int k = 0; k < n; k++) {
            double complex s = 0;
            for(int j = 0; j < n; j++) {
                double a = direction * 2.0 * M_PI * (double)((long long)j * k % n) / n;
                s += (in[j].x + I * in[j].y) * (cos(a) + I * sin(a));
            }
            tmp[k] = s;
        }
        for(int k = 0; k < n; k++) { out[k].x = (float)creal(tmp[k]); out[k].y = (float)cimag(tmp[k]); }
    }
    free(tmp);
    return HIPFFT_SUCCESS;
}

/* -- hipSPARSE (generic API, CSR, float32) ------------------------------------------------------ */
struct fake_csr { int64_t rows, cols, nnz; int* row_ptr; int* col_ind; float* val; };
struct fake_vec { int64_t size; float* val; };
struct fake_sparse { hipsparsePointerMode_t mode; };
hipsparseStatus_t hipsparseCreate(hipsparseHandle_t* handle)
{
    struct fake_sparse* s = malloc(sizeof *s); s->mode = HIPSPARSE_POINTER_MODE_HOST; *handle = s;
    return HIPSPARSE_STATUS_SUCCESS;
}
hipsparseStatus_t hipsparseDestroy(hipsparseHandle_t handle) { free(handle); return HIPSPARSE_STATUS_SUCCESS; }
hipsparseStatus_t hipsparseSetPointerMode(hipsparseHandle_t handle, hipsparsePointerMode_t mode)
{
    if(!handle) return HIPSPARSE_STATUS_NOT_INITIALIZED;
    if(mode != HIPSPARSE_POINTER_MODE_HOST && mode != HIPSPARSE_POINTER_MODE_DEVICE) return HIPSPARSE_STATUS_INVALID_VALUE;
    ((struct fake_sparse*)handle)->mode = mode; return HIPSPARSE_STATUS_SUCCESS;
}
const char* hipsparseGetErrorString(hipsparseStatus_t status) { return status ? "fake hipSPARSE error" : "success"; }
hipsparseStatus_t hipsparseCreateCsr(hipsparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                     void* csrRowOffsets, void* csrColInd, void* csrValues,
                                     hipsparseIndexType_t csrRowOffsetsType, hipsparseIndexType_t csrColIndType,
                                     hipsparseIndexBase_t idxBase, hipDataType valueType)
{
    if(csrRowOffsetsType != HIPSPARSE_INDEX_32I || csrColIndType != HIPSPARSE_INDEX_32I
       || idxBase != HIPSPARSE_INDEX_BASE_ZERO || valueType != HIP_R_32F)
        return HIPSPARSE_STATUS_NOT_SUPPORTED;
    if(rows < 0 || cols < 0 || nnz < 0 || !csrRowOffsets || (nnz && (!csrColInd || !csrValues)))
        return HIPSPARSE_STATUS_INVALID_VALUE;
    int* rp = csrRowOffsets;
    if(rp[0] != 0 || rp[rows] != nnz) return HIPSPARSE_STATUS_INVALID_VALUE;
    for(int64_t r = 0; r < rows; r++)
        if(rp[r + 1] < rp[r]) return HIPSPARSE_STATUS_INVALID_VALUE;
    for(int64_t k = 0; k < nnz; k++)
        if(((int*)csrColInd)[k] < 0 || ((int*)csrColInd)[k] >= cols) return HIPSPARSE_STATUS_INVALID_VALUE;
    struct fake_csr* m = malloc(sizeof *m);
    *m = (struct fake_csr){rows, cols, nnz, csrRowOffsets, csrColInd, csrValues};
    *spMatDescr = m; return HIPSPARSE_STATUS_SUCCESS;
}
hipsparseStatus_t hipsparseDestroySpMat(hipsparseConstSpMatDescr_t spMatDescr)
{ free((void*)spMatDescr); return HIPSPARSE_STATUS_SUCCESS; }
hipsparseStatus_t hipsparseCreateDnVec(hipsparseDnVecDescr_t* dnVecDescr, int64_t size, void* values,
                                       hipDataType valueType)
{
    if(valueType != HIP_R_32F) return HIPSPARSE_STATUS_NOT_SUPPORTED;
    if(size < 0 || (size && !values)) return HIPSPARSE_STATUS_INVALID_VALUE;
    struct fake_vec* v = malloc(sizeof *v); v->size = size; v->val = values; *dnVecDescr = v;
    return HIPSPARSE_STATUS_SUCCESS;
}
hipsparseStatus_t hipsparseDestroyDnVec(hipsparseConstDnVecDescr_t dnVecDescr)
{ free((void*)dnVecDescr); return HIPSPARSE_STATUS_SUCCESS; }

static hipsparseStatus_t spmv_check(hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha,
                                    const struct fake_csr* A, const struct fake_vec* x, const void* beta,
                                    const struct fake_vec* y, hipDataType computeType, hipsparseSpMVAlg_t alg)
{
    if(!handle) return HIPSPARSE_STATUS_NOT_INITIALIZED;
    if(!alpha || !beta || !A || !x || !y) return HIPSPARSE_STATUS_INVALID_VALUE;
    if(opA != HIPSPARSE_OPERATION_NON_TRANSPOSE || computeType != HIP_R_32F) return HIPSPARSE_STATUS_NOT_SUPPORTED;
    if(alg != HIPSPARSE_SPMV_ALG_DEFAULT && alg != HIPSPARSE_SPMV_CSR_ALG1) return HIPSPARSE_STATUS_NOT_SUPPORTED;
    if(x->size != A->cols || y->size != A->rows) return HIPSPARSE_STATUS_INVALID_VALUE;
    return HIPSPARSE_STATUS_SUCCESS;
}
#define SPMV_BUFFER 256
hipsparseStatus_t hipsparseSpMV_bufferSize(hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha,
                                           hipsparseConstSpMatDescr_t matA, hipsparseConstDnVecDescr_t vecX,
                                           const void* beta, const hipsparseDnVecDescr_t vecY,
                                           hipDataType computeType, hipsparseSpMVAlg_t alg,
                                           size_t* pBufferSizeInBytes)
{
    hipsparseStatus_t s = spmv_check(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg);
    if(s == HIPSPARSE_STATUS_SUCCESS) *pBufferSizeInBytes = SPMV_BUFFER;
    return s;
}
hipsparseStatus_t hipsparseSpMV(hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha,
                                hipsparseConstSpMatDescr_t matA, hipsparseConstDnVecDescr_t vecX, const void* beta,
                                const hipsparseDnVecDescr_t vecY, hipDataType computeType, hipsparseSpMVAlg_t alg,
                                void* externalBuffer)
{
    hipsparseStatus_t s = spmv_check(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg);
    if(s != HIPSPARSE_STATUS_SUCCESS) return s;
    if(!externalBuffer) return HIPSPARSE_STATUS_INVALID_VALUE;
    memset(externalBuffer, 0xab, SPMV_BUFFER);   /* the buffer must really be that large */
    const struct fake_csr* A = matA;
    const struct fake_vec* x = vecX;
    struct fake_vec* y = (struct fake_vec*)vecY;
    if(((struct fake_sparse*)handle)->mode != HIPSPARSE_POINTER_MODE_HOST) return HIPSPARSE_STATUS_NOT_SUPPORTED;
    float a = *(const float*)alpha, b = *(const float*)beta;   /* host pointer mode */
    for(int64_t r = 0; r < A->rows; r++) {
        double s = 0;
        for(int k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) s += (double)A->val[k] * x->val[A->col_ind[k]];
        y->val[r] = (float)(a * s + b * y->val[r]);
    }
    return HIPSPARSE_STATUS_SUCCESS;
}

/* -- hipSOLVER (LAPACK getrf/getrs, column-major, 1-based pivots) ------------------------------ */
hipsolverStatus_t hipsolverCreate(hipsolverHandle_t* handle) { *handle = malloc(1); return HIPSOLVER_STATUS_SUCCESS; }
hipsolverStatus_t hipsolverDestroy(hipsolverHandle_t handle) { free(handle); return HIPSOLVER_STATUS_SUCCESS; }
hipsolverStatus_t hipsolverDgetrf_bufferSize(hipsolverHandle_t handle, int m, int n, double* A, int lda, int* lwork)
{
    if(!handle) return HIPSOLVER_STATUS_NOT_INITIALIZED;
    if(m < 0 || n < 0 || lda < (m > 1 ? m : 1) || !lwork) return HIPSOLVER_STATUS_INVALID_VALUE;
    *lwork = 2 * n + 1; return HIPSOLVER_STATUS_SUCCESS;   /* elements */
}
hipsolverStatus_t hipsolverDgetrs_bufferSize(hipsolverHandle_t handle, hipsolverOperation_t trans, int n, int nrhs,
                                             double* A, int lda, int* devIpiv, double* B, int ldb, int* lwork)
{
    if(!handle) return HIPSOLVER_STATUS_NOT_INITIALIZED;
    if(n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || !lwork) return HIPSOLVER_STATUS_INVALID_VALUE;
    *lwork = n; return HIPSOLVER_STATUS_SUCCESS;
}
hipsolverStatus_t hipsolverDgetrf(hipsolverHandle_t handle, int m, int n, double* A, int lda, double* work, int lwork,
                                  int* devIpiv, int* devInfo)
{
    if(!handle) return HIPSOLVER_STATUS_NOT_INITIALIZED;
    if(m < 0 || n < 0 || lda < (m > 1 ? m : 1) || !A || !devIpiv || !devInfo) return HIPSOLVER_STATUS_INVALID_VALUE;
    if(lwork < 2 * n + 1 || !work) return HIPSOLVER_STATUS_INVALID_VALUE;
    work[lwork - 1] = 0;                              /* the workspace must really hold lwork elements */
#define a(i, j) A[(size_t)(j) * lda + (i)]
    int info = 0, mn = m < n ? m : n;
    for(int k = 0; k < mn; k++) {
        int p = k;
        for(int i = k + 1; i < m; i++) if(fabs(a(i, k)) > fabs(a(p, k))) p = i;
        devIpiv[k] = p + 1;
        if(a(p, k) == 0) { if(!info) info = k + 1; continue; }
        if(p != k) for(int j = 0; j < n; j++) { double t = a(k, j); a(k, j) = a(p, j); a(p, j) = t; }
        for(int i = k + 1; i < m; i++) a(i, k) /= a(k, k);
        for(int j = k + 1; j < n; j++)
            for(int i = k + 1; i < m; i++) a(i, j) -= a(i, k) * a(k, j);
    }
    *devInfo = info;
    return HIPSOLVER_STATUS_SUCCESS;
}
hipsolverStatus_t hipsolverDgetrs(hipsolverHandle_t handle, hipsolverOperation_t trans, int n, int nrhs, double* A,
                                  int lda, int* devIpiv, double* B, int ldb, double* work, int lwork, int* devInfo)
{
    if(!handle) return HIPSOLVER_STATUS_NOT_INITIALIZED;
    if(trans != HIPSOLVER_OP_N) return HIPSOLVER_STATUS_NOT_SUPPORTED;
    if(n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || !A || !devIpiv || !B || !devInfo)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if(lwork < n || (lwork && !work)) return HIPSOLVER_STATUS_INVALID_VALUE;
#define b(i, j) B[(size_t)(j) * ldb + (i)]
    for(int c = 0; c < nrhs; c++) {
        for(int k = 0; k < n; k++) {                  /* P B */
            int p = devIpiv[k] - 1;
            if(p < 0 || p >= n) return HIPSOLVER_STATUS_INVALID_VALUE;
            if(p != k) { double t = b(k, c); b(k, c) = b(p, c); b(p, c) = t; }
        }
        for(int i = 0; i < n; i++)                    /* L y = P B (unit diagonal) */
            for(int k = 0; k < i; k++) b(i, c) -= a(i, k) * b(k, c);
        for(int i = n - 1; i >= 0; i--) {             /* U x = y */
            for(int k = i + 1; k < n; k++) b(i, c) -= a(i, k) * b(k, c);
            b(i, c) /= a(i, i);
        }
    }
    *devInfo = 0;
    return HIPSOLVER_STATUS_SUCCESS;
}

/* -- RCCL: one process, ncclCommInitAll, collectives between ncclGroupStart/End ---------------- */
struct ncclComm { int rank, nranks, device; };
struct pending { const float* send; float* recv; size_t count; int rank; };
static int group_depth = 0, npending = 0;
static struct pending queue[64];

ncclResult_t ncclGetVersion(int* version) { *version = 21804; return ncclSuccess; }
const char* ncclGetErrorString(ncclResult_t result) { return result ? "fake RCCL error" : "no error"; }
ncclResult_t ncclCommInitAll(ncclComm_t* comm, int ndev, const int* devlist)
{
    if(ndev < 1 || ndev > device_count() || !comm) return ncclInvalidArgument;
    for(int i = 0; i < ndev; i++) {
        int d = devlist ? devlist[i] : i;
        if(d < 0 || d >= device_count()) return ncclInvalidArgument;
        comm[i] = malloc(sizeof(struct ncclComm)); comm[i]->rank = i; comm[i]->nranks = ndev; comm[i]->device = d;
    }
    return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) { free(comm); return ncclSuccess; }
ncclResult_t ncclGroupStart(void) { group_depth++; return ncclSuccess; }
static ncclResult_t run_allreduce(void)
{
    if(npending == 0) return ncclSuccess;
    size_t count = queue[0].count;
    int nranks = npending;
    float* sum = calloc(count ? count : 1, sizeof(float));
    for(int r = 0; r < nranks; r++) {
        if(queue[r].count != count) { free(sum); return ncclInvalidArgument; }
        for(size_t i = 0; i < count; i++) sum[i] += queue[r].send[i];
    }
    for(int r = 0; r < nranks; r++) memcpy(queue[r].recv, sum, count * sizeof(float));
    free(sum); npending = 0;
    return ncclSuccess;
}
ncclResult_t ncclGroupEnd(void)
{
    if(group_depth == 0) return ncclInvalidUsage;
    if(--group_depth == 0) return run_allreduce();
    return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, hipStream_t stream)
{
    if(!comm || !sendbuff || !recvbuff) return ncclInvalidArgument;
    if(datatype != ncclFloat32 || op != ncclSum) return ncclInvalidArgument;   /* what this fake implements */
    if(stream && stream->device != comm->device) return ncclInvalidArgument;    /* a stream of the comm's device */
    if(npending != comm->rank) return ncclInvalidUsage;
    queue[npending++] = (struct pending){sendbuff, recvbuff, count, comm->rank};
    if(group_depth == 0) {
        if(comm->nranks != 1) return ncclInvalidUsage;   /* several ranks from one thread: needs a group */
        return run_allreduce();
    }
    return ncclSuccess;
}
