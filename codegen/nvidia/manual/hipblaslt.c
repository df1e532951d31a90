/* Hand-written part of hipBLASLt on cuBLASLt: what no rule can express. Included verbatim into
 * the generated hipnv_hipblaslt.c, after the hipabi_ types and converters.
 *
 * 1. Attribute values. The Set/GetAttribute calls pass the value as bytes; where the value is an
 *    enum whose numbers differ between the libraries (hipblasOperation_t's HIPBLAS_OP_N is 111,
 *    cublasOperation_t's CUBLAS_OP_N 0; data types, epilogues, orders, pointer and scale modes),
 *    the layer converts it by name, as it converts the attribute itself.
 * 2. Algorithms. hipblasLtMatmulAlgo_t holds 16 bytes of data (and max_workspace_bytes);
 *    cuBLASLt's cublasLtMatmulAlgo_t is 64 bytes. The layer keeps every distinct cuBLASLt
 *    algorithm it hands out in a table (for the life of the process; a program asks for few) and
 *    writes a tag and the table index into the HIP struct, which hipblasLtMatmul reads back.
 * 3. hipblasLtGetVersion takes the handle and an int*; cublasLtGetVersion returns the number. */
#include <pthread.h>

/* -- attribute values ------------------------------------------------------------------------ */
enum { HIPNV_LT_MATMUL_DESC, HIPNV_LT_LAYOUT, HIPNV_LT_TRANSFORM };

/* The HIP enum behind attribute `attr` of descriptor kind `kind`, or 0 where the value is no enum
 * whose numbers differ (pointers, counts, strides). */
enum { HIPNV_LT_OP = 1, HIPNV_LT_EPILOGUE, HIPNV_LT_DATATYPE, HIPNV_LT_POINTER_MODE, HIPNV_LT_ORDER,
       HIPNV_LT_SCALE_MODE };
static int hipnv_lt_value_kind(int kind, int attr) {
    switch (kind) {
    case HIPNV_LT_MATMUL_DESC:
        switch (attr) {
        case hipabi_HIPBLASLT_MATMUL_DESC_TRANSA: case hipabi_HIPBLASLT_MATMUL_DESC_TRANSB: return HIPNV_LT_OP;
        case hipabi_HIPBLASLT_MATMUL_DESC_EPILOGUE: return HIPNV_LT_EPILOGUE;
        case hipabi_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
        case hipabi_HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: return HIPNV_LT_DATATYPE;
        case hipabi_HIPBLASLT_MATMUL_DESC_POINTER_MODE: return HIPNV_LT_POINTER_MODE;
        case hipabi_HIPBLASLT_MATMUL_DESC_A_SCALE_MODE:
        case hipabi_HIPBLASLT_MATMUL_DESC_B_SCALE_MODE: return HIPNV_LT_SCALE_MODE;
        }
        return 0;
    case HIPNV_LT_LAYOUT:
        switch (attr) {
        case hipabi_HIPBLASLT_MATRIX_LAYOUT_TYPE: return HIPNV_LT_DATATYPE;
        case hipabi_HIPBLASLT_MATRIX_LAYOUT_ORDER: return HIPNV_LT_ORDER;
        }
        return 0;
    case HIPNV_LT_TRANSFORM:
        switch (attr) {
        case hipabi_HIPBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE: return HIPNV_LT_DATATYPE;
        case hipabi_HIPBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE: return HIPNV_LT_POINTER_MODE;
        case hipabi_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA:
        case hipabi_HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB: return HIPNV_LT_OP;
        }
        return 0;
    }
    return 0;
}

/* A HIP value of enum `vk` as CUDA's (*ok = 0 where CUDA has no such member). */
static int hipnv_lt_value_to_cuda(int vk, int v, int* ok) {
    switch (vk) {
    case HIPNV_LT_OP: return hipnv_cublasOperation_t_from_hipblasOperation_t(v, ok);
    case HIPNV_LT_EPILOGUE: return hipnv_cublasLtEpilogue_t_from_hipblasLtEpilogue_t(v, ok);
    case HIPNV_LT_DATATYPE: return hipnv_cudaDataType_t_from_hipDataType(v, ok);
    case HIPNV_LT_POINTER_MODE: return hipnv_cublasLtPointerMode_t_from_hipblasLtPointerMode_t(v, ok);
    case HIPNV_LT_ORDER: return hipnv_cublasLtOrder_t_from_hipblasLtOrder_t(v, ok);
    case HIPNV_LT_SCALE_MODE: return hipnv_cublasLtMatmulMatrixScale_t_from_hipblasLtMatmulMatrixScale_t(v, ok);
    }
    return v;
}

static int hipnv_lt_value_to_hip(int vk, int v) {
    switch (vk) {
    case HIPNV_LT_OP: return hipnv_hipblasOperation_t_from_cublasOperation_t(v);
    case HIPNV_LT_EPILOGUE: return hipnv_hipblasLtEpilogue_t_from_cublasLtEpilogue_t(v);
    case HIPNV_LT_DATATYPE: return hipnv_hipDataType_from_cudaDataType_t(v);
    case HIPNV_LT_POINTER_MODE: return hipnv_hipblasLtPointerMode_t_from_cublasLtPointerMode_t(v);
    case HIPNV_LT_ORDER: return hipnv_hipblasLtOrder_t_from_cublasLtOrder_t(v);
    case HIPNV_LT_SCALE_MODE: return hipnv_hipblasLtMatmulMatrixScale_t_from_cublasLtMatmulMatrixScale_t(v);
    }
    return v;
}

/* The value to pass CUDA for a Set call: `buf` itself, or `*tmp` holding its converted enum (every
 * enum-valued attribute is 4 bytes on both sides; another size is passed on for CUDA to refuse).
 * NULL with *ok = 0: a member CUDA lacks. */
static const void* hipnv_lt_set_value(int kind, int attr, const void* buf, size_t size, int32_t* tmp, int* ok) {
    int vk = hipnv_lt_value_kind(kind, attr);
    if (!vk || !buf || size != sizeof *tmp)
        return buf;
    memcpy(tmp, buf, sizeof *tmp);
    *tmp = hipnv_lt_value_to_cuda(vk, *tmp, ok);
    return *ok ? tmp : NULL;
}

/* After a successful Get call: the enum CUDA wrote into `buf`, as HIP's. */
static void hipnv_lt_got_value(int kind, int attr, void* buf, size_t size) {
    int32_t v;
    int vk = hipnv_lt_value_kind(kind, attr);
    if (!vk || !buf || size != sizeof v)
        return;
    memcpy(&v, buf, sizeof v);
    v = hipnv_lt_value_to_hip(vk, v);
    memcpy(buf, &v, sizeof v);
}

static hipabi_hipblasStatus_t hipnv_lt_status(cublasStatus_t r) {
    return (hipabi_hipblasStatus_t)hipnv_hipblasStatus_t_from_cublasStatus_t((int)r);
}

/* The bodies of hipblasLt<X>SetAttribute(obj, attr, buf, sizeInBytes) and
 * hipblasLt<X>GetAttribute(obj, attr, buf, sizeInBytes, sizeWritten) on cuBLASLt's call `call`:
 * the attribute converted by name (`from_hip`; one CUDA lacks is HIPBLAS_STATUS_INVALID_VALUE),
 * an enum value converted as above (`kind`). */
#define HIPNV_LT_SET(kind, from_hip, call, cobj_t, cattr_t, obj) \
    int ok = 1; \
    int32_t tmp; \
    int cattr = from_hip((int)attr, &ok); \
    const void* v = ok ? hipnv_lt_set_value(kind, (int)attr, buf, sizeInBytes, &tmp, &ok) : NULL; \
    if (!ok) return hipabi_HIPBLAS_STATUS_INVALID_VALUE; \
    return hipnv_lt_status(call((cobj_t)obj, (cattr_t)cattr, v, sizeInBytes))
#define HIPNV_LT_GET(kind, from_hip, call, cobj_t, cattr_t, obj) \
    int ok = 1; \
    int cattr = from_hip((int)attr, &ok); \
    cublasStatus_t r; \
    if (!ok) return hipabi_HIPBLAS_STATUS_INVALID_VALUE; \
    r = call((cobj_t)obj, (cattr_t)cattr, buf, sizeInBytes, sizeWritten); \
    if (r == CUBLAS_STATUS_SUCCESS) hipnv_lt_got_value(kind, (int)attr, buf, sizeInBytes); \
    return hipnv_lt_status(r)

HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatmulDescSetAttribute(hipabi_hipblasLtMatmulDesc_t matmulDesc,
        hipabi_hipblasLtMatmulDescAttributes_t attr, const void* buf, size_t sizeInBytes) {
    HIPNV_LT_SET(HIPNV_LT_MATMUL_DESC, hipnv_cublasLtMatmulDescAttributes_t_from_hipblasLtMatmulDescAttributes_t,
                 cublasLtMatmulDescSetAttribute, cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, matmulDesc);
}
HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatmulDescGetAttribute(hipabi_hipblasLtMatmulDesc_t matmulDesc,
        hipabi_hipblasLtMatmulDescAttributes_t attr, void* buf, size_t sizeInBytes, size_t* sizeWritten) {
    HIPNV_LT_GET(HIPNV_LT_MATMUL_DESC, hipnv_cublasLtMatmulDescAttributes_t_from_hipblasLtMatmulDescAttributes_t,
                 cublasLtMatmulDescGetAttribute, cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, matmulDesc);
}

HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatrixLayoutSetAttribute(hipabi_hipblasLtMatrixLayout_t matLayout,
        hipabi_hipblasLtMatrixLayoutAttribute_t attr, const void* buf, size_t sizeInBytes) {
    HIPNV_LT_SET(HIPNV_LT_LAYOUT, hipnv_cublasLtMatrixLayoutAttribute_t_from_hipblasLtMatrixLayoutAttribute_t,
                 cublasLtMatrixLayoutSetAttribute, cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, matLayout);
}
HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatrixLayoutGetAttribute(hipabi_hipblasLtMatrixLayout_t matLayout,
        hipabi_hipblasLtMatrixLayoutAttribute_t attr, void* buf, size_t sizeInBytes, size_t* sizeWritten) {
    HIPNV_LT_GET(HIPNV_LT_LAYOUT, hipnv_cublasLtMatrixLayoutAttribute_t_from_hipblasLtMatrixLayoutAttribute_t,
                 cublasLtMatrixLayoutGetAttribute, cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, matLayout);
}

HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatrixTransformDescSetAttribute(
        hipabi_hipblasLtMatrixTransformDesc_t transformDesc,
        hipabi_hipblasLtMatrixTransformDescAttributes_t attr, const void* buf, size_t sizeInBytes) {
    HIPNV_LT_SET(HIPNV_LT_TRANSFORM,
                 hipnv_cublasLtMatrixTransformDescAttributes_t_from_hipblasLtMatrixTransformDescAttributes_t,
                 cublasLtMatrixTransformDescSetAttribute, cublasLtMatrixTransformDesc_t,
                 cublasLtMatrixTransformDescAttributes_t, transformDesc);
}
HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatrixTransformDescGetAttribute(
        hipabi_hipblasLtMatrixTransformDesc_t transformDesc,
        hipabi_hipblasLtMatrixTransformDescAttributes_t attr, void* buf, size_t sizeInBytes, size_t* sizeWritten) {
    HIPNV_LT_GET(HIPNV_LT_TRANSFORM,
                 hipnv_cublasLtMatrixTransformDescAttributes_t_from_hipblasLtMatrixTransformDescAttributes_t,
                 cublasLtMatrixTransformDescGetAttribute, cublasLtMatrixTransformDesc_t,
                 cublasLtMatrixTransformDescAttributes_t, transformDesc);
}

/* -- algorithms ------------------------------------------------------------------------------ */
#define HIPNV_LT_ALGO_TAG 0x4c41564eu   /* "NVAL": a HIP algorithm struct this layer wrote */
static pthread_mutex_t hipnv_lt_algo_lock = PTHREAD_MUTEX_INITIALIZER;
static cublasLtMatmulAlgo_t* hipnv_lt_algos;
static uint32_t hipnv_lt_nalgos, hipnv_lt_algo_cap;

/* The table index of `a`, added if new; UINT32_MAX when out of memory. */
static uint32_t hipnv_lt_algo_index(const cublasLtMatmulAlgo_t* a) {
    uint32_t i;
    pthread_mutex_lock(&hipnv_lt_algo_lock);
    for (i = 0; i < hipnv_lt_nalgos; i++)
        if (!memcmp(&hipnv_lt_algos[i], a, sizeof *a))
            break;
    if (i == hipnv_lt_nalgos) {
        if (i == hipnv_lt_algo_cap) {
            uint32_t cap = hipnv_lt_algo_cap ? 2 * hipnv_lt_algo_cap : 64;
            cublasLtMatmulAlgo_t* t = realloc(hipnv_lt_algos, cap * sizeof *t);
            if (!t) {
                pthread_mutex_unlock(&hipnv_lt_algo_lock);
                return UINT32_MAX;
            }
            hipnv_lt_algos = t;
            hipnv_lt_algo_cap = cap;
        }
        hipnv_lt_algos[hipnv_lt_nalgos++] = *a;
    }
    pthread_mutex_unlock(&hipnv_lt_algo_lock);
    return i;
}

/* HIP's struct standing for cuBLASLt's algorithm `a` (0 when out of memory). */
static int hipnv_lt_algo_put(hipabi_hipblasLtMatmulAlgo_t* h, const cublasLtMatmulAlgo_t* a, size_t workspace) {
    uint32_t i = hipnv_lt_algo_index(a), tag = HIPNV_LT_ALGO_TAG;
    if (i == UINT32_MAX)
        return 0;
    memset(h, 0, sizeof *h);
    memcpy(h->data, &tag, sizeof tag);
    memcpy(h->data + 4, &i, sizeof i);
    h->max_workspace_bytes = workspace;
    return 1;
}

/* The cuBLASLt algorithm a HIP struct stands for; 0 when the struct is none this layer wrote. */
static int hipnv_lt_algo_get(const hipabi_hipblasLtMatmulAlgo_t* h, cublasLtMatmulAlgo_t* out) {
    uint32_t tag, i;
    int found = 0;
    memcpy(&tag, h->data, sizeof tag);
    memcpy(&i, h->data + 4, sizeof i);
    if (tag != HIPNV_LT_ALGO_TAG)
        return 0;
    pthread_mutex_lock(&hipnv_lt_algo_lock);
    if (i < hipnv_lt_nalgos) {
        *out = hipnv_lt_algos[i];
        found = 1;
    }
    pthread_mutex_unlock(&hipnv_lt_algo_lock);
    return found;
}

HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(
        hipabi_hipblasLtHandle_t handle, hipabi_hipblasLtMatmulDesc_t matmulDesc,
        hipabi_hipblasLtMatrixLayout_t Adesc, hipabi_hipblasLtMatrixLayout_t Bdesc,
        hipabi_hipblasLtMatrixLayout_t Cdesc, hipabi_hipblasLtMatrixLayout_t Ddesc,
        hipabi_hipblasLtMatmulPreference_t pref, int requestedAlgoCount,
        hipabi_hipblasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount) {
    cublasLtMatmulHeuristicResult_t* res = NULL;
    int n = 0;
    cublasStatus_t r;
    if (requestedAlgoCount > 0 && !heuristicResultsArray)
        return hipabi_HIPBLAS_STATUS_INVALID_VALUE;
    if (requestedAlgoCount > 0) {
        res = calloc((size_t)requestedAlgoCount, sizeof *res);
        if (!res) return hipabi_HIPBLAS_STATUS_ALLOC_FAILED;
    }
    r = cublasLtMatmulAlgoGetHeuristic((cublasLtHandle_t)handle, (cublasLtMatmulDesc_t)matmulDesc,
                                       (cublasLtMatrixLayout_t)Adesc, (cublasLtMatrixLayout_t)Bdesc,
                                       (cublasLtMatrixLayout_t)Cdesc, (cublasLtMatrixLayout_t)Ddesc,
                                       (cublasLtMatmulPreference_t)pref, requestedAlgoCount, res, &n);
    if (r == CUBLAS_STATUS_SUCCESS && res) {
        for (int k = 0; k < n && k < requestedAlgoCount; k++) {
            hipabi_hipblasLtMatmulHeuristicResult_t* h = &heuristicResultsArray[k];
            memset(h, 0, sizeof *h);
            if (!hipnv_lt_algo_put(&h->algo, &res[k].algo, res[k].workspaceSize)) {
                free(res);
                return hipabi_HIPBLAS_STATUS_ALLOC_FAILED;
            }
            h->workspaceSize = res[k].workspaceSize;
            h->state = (hipabi_hipblasStatus_t)hipnv_hipblasStatus_t_from_cublasStatus_t((int)res[k].state);
            h->wavesCount = res[k].wavesCount;
            memcpy(h->reserved, res[k].reserved, sizeof h->reserved);
        }
    }
    free(res);
    if (returnAlgoCount) *returnAlgoCount = n;
    return hipnv_lt_status(r);
}

HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtMatmul(
        hipabi_hipblasLtHandle_t handle, hipabi_hipblasLtMatmulDesc_t matmulDesc, const void* alpha, const void* A,
        hipabi_hipblasLtMatrixLayout_t Adesc, const void* B, hipabi_hipblasLtMatrixLayout_t Bdesc, const void* beta,
        const void* C, hipabi_hipblasLtMatrixLayout_t Cdesc, void* D, hipabi_hipblasLtMatrixLayout_t Ddesc,
        const hipabi_hipblasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSizeInBytes,
        hipabi_hipStream_t stream) {
    cublasLtMatmulAlgo_t a;
    if (algo && !hipnv_lt_algo_get(algo, &a))
        return hipabi_HIPBLAS_STATUS_INVALID_VALUE;   /* no algorithm hipblasLtMatmulAlgoGetHeuristic gave */
    return hipnv_lt_status(cublasLtMatmul(
        (cublasLtHandle_t)handle, (cublasLtMatmulDesc_t)matmulDesc, alpha, A, (cublasLtMatrixLayout_t)Adesc, B,
        (cublasLtMatrixLayout_t)Bdesc, beta, C, (cublasLtMatrixLayout_t)Cdesc, D, (cublasLtMatrixLayout_t)Ddesc,
        algo ? &a : NULL, workspace, workspaceSizeInBytes, (cudaStream_t)stream));
}

/* -- version --------------------------------------------------------------------------------- */
HIPNV_EXPORT hipabi_hipblasStatus_t hipblasLtGetVersion(hipabi_hipblasLtHandle_t handle, int* version) {
    (void)handle;
    if (!version) return hipabi_HIPBLAS_STATUS_INVALID_VALUE;
    *version = (int)cublasLtGetVersion();   /* cuBLASLt's own: major * 10000 + minor * 100 + patch */
    return hipabi_HIPBLAS_STATUS_SUCCESS;
}
