/* Hand-written part of the HIP runtime on CUDA: only what no rule can express.
 * Included verbatim into the generated hipnv_hip.c, after the hipabi_ types and converters. */
#include <stdio.h>
#include <stdlib.h>

/* HIP's runtime creates the device's primary context on first use; the CUDA driver API
 * needs one current. cudaFree(0) makes the runtime's primary context current. The calls that
 * only ask about devices or manage contexts (cuDeviceGet*, cuDevicePrimaryCtx*, cuCtxGetCurrent,
 * cuCtxSetCurrent, cuCtxPushCurrent, cuCtxPopCurrent, cuCtxCreate, cuCtxDestroy) need no context:
 * they only initialise the driver (hipnv_ensure_init), so a program sees the primary context
 * inactive and no context current until it makes one (codegen/specs/nvidia/hip.yaml `prologue`). */
static __thread int hipnv_ctx_ready;
static void hipnv_ensure_context(void) {
    if (!hipnv_ctx_ready) {
        CUcontext c = NULL;
        if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || c == NULL)
            cudaFree(0);
        hipnv_ctx_ready = 1;
    }
}

/* HIP needs no hipInit; the CUDA driver API needs cuInit before any other call. cuInit creates
 * no context. */
static int hipnv_init_done;
static void hipnv_ensure_init(void) {
    if (!__atomic_load_n(&hipnv_init_done, __ATOMIC_ACQUIRE)) {
        cuInit(0);
        __atomic_store_n(&hipnv_init_done, 1, __ATOMIC_RELEASE);
    }
}

/* Fields of hipDeviceProp_t that cudaDeviceProp no longer carries (CUDA 13 moved them to
 * attributes) or that mean something else on NVIDIA. gcnArchName names the target hiprtc
 * takes back as --offload-arch. ROCm 5's struct lacks some fields: HIPNV_HAS_FIELD says which. */
static void hipnv_device_prop_fixup(struct hipabi_hipDeviceProp_t* p, int dev) {
    int v = 0;
    snprintf(p->gcnArchName, sizeof p->gcnArchName, "sm_%d%d", p->major, p->minor);
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev) == cudaSuccess) p->clockRate = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) == cudaSuccess) p->memoryClockRate = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, dev) == cudaSuccess) p->computeMode = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, dev) == cudaSuccess)
        p->kernelExecTimeoutEnabled = v;
#if HIPNV_HAS_FIELD(hipDeviceProp_t, singleToDoublePrecisionPerfRatio)
    if (cudaDeviceGetAttribute(&v, cudaDevAttrSingleToDoublePrecisionPerfRatio, dev) == cudaSuccess)
        p->singleToDoublePrecisionPerfRatio = v;
#endif
#if HIPNV_HAS_FIELD(hipDeviceProp_t, deviceOverlap)
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, dev) == cudaSuccess) p->deviceOverlap = v;
#endif
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DLinearWidth, dev) == cudaSuccess)
        p->maxTexture1DLinear = v;
    p->cooperativeMultiDeviceLaunch = 0;
    /* what cudaDeviceProp.sharedMemPerMultiprocessor holds (a field ROCm 5's struct lacks) */
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess)
        p->maxSharedMemoryPerMultiProcessor = v;
    p->isLargeBar = 0;
}

HIPNV_EXPORT const char* hipGetErrorName(hipabi_hipError_t e) {
    const char* n = hipnv_name_hipError_t(e);
    return n ? n : "hipErrorUnknown";
}

/* hip/amd_detail/host_defines.h: HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01),
 * HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02), HIP_LAUNCH_PARAM_END ((void*)0x03); CUDA ends the
 * list with 0x00. `cextra` (5 entries) gets CUDA's list; *out is NULL for no `extra`. */
static int hipnv_extra(void** extra, void** cextra, void*** out) {
    int n = 0, i = 0;
    *out = NULL;
    if (!extra) return 0;
    while (extra[i] != (void*)0x03) {
        if (n > 2) return -1;
        if (extra[i] == (void*)0x01) cextra[n] = CU_LAUNCH_PARAM_BUFFER_POINTER;
        else if (extra[i] == (void*)0x02) cextra[n] = CU_LAUNCH_PARAM_BUFFER_SIZE;
        else return -1;
        cextra[n + 1] = extra[i + 1];
        n += 2;
        i += 2;
    }
    cextra[n] = CU_LAUNCH_PARAM_END;
    *out = cextra;
    return 0;
}

HIPNV_EXPORT hipabi_hipError_t hipModuleLaunchKernel(
        hipabi_hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
        unsigned int by, unsigned int bz, unsigned int shared, hipabi_hipStream_t stream,
        void** kernelParams, void** extra) {
    void* cextra[5];
    void** ce = NULL;
    hipnv_ensure_context();
    if (hipnv_extra(extra, cextra, &ce)) return hipabi_hipErrorInvalidValue;
    return hipnv_hipError_t_from_CUresult(cuLaunchKernel((CUfunction)f, gx, gy, gz, bx, by, bz, shared,
                                                          (CUstream)stream, kernelParams, ce));
}

/* Kernel nodes go to the driver's graph calls: the kernels of hip-bindings' Python programs are
 * module functions (hipModuleGetFunction: a CUfunction), which the runtime's cudaGraphAddKernelNode
 * does not take (its func is a __global__ function's host stub in this process:
 * CUDA_ERROR_INVALID_HANDLE). */
#pragma weak cuGraphAddKernelNode_v2
#pragma weak cuGraphKernelNodeGetParams_v2
#pragma weak cuGraphKernelNodeSetParams_v2
#pragma weak cuGraphExecKernelNodeSetParams_v2
#pragma weak cuFuncSetAttribute
/* The driver's parameters of HIP's node parameters p (cextra: room for their `extra`), with a
 * context current; else the status to answer (`have`: whether the driver has the call). */
static hipabi_hipError_t hipnv_kernel_node(int have, const struct hipabi_hipKernelNodeParams* p,
                                           CUDA_KERNEL_NODE_PARAMS* c, void** cextra) {
    if (!have) return hipabi_hipErrorNotSupported;
    hipnv_ensure_context();
    if (!p) return hipabi_hipErrorInvalidValue;
    memset(c, 0, sizeof *c);
    c->func = (CUfunction)p->func;
    c->gridDimX = p->gridDim.x;
    c->gridDimY = p->gridDim.y;
    c->gridDimZ = p->gridDim.z;
    c->blockDimX = p->blockDim.x;
    c->blockDimY = p->blockDim.y;
    c->blockDimZ = p->blockDim.z;
    c->sharedMemBytes = p->sharedMemBytes;
    c->kernelParams = p->kernelParams;
    return hipnv_extra(p->extra, cextra, &c->extra) ? hipabi_hipErrorInvalidValue : hipabi_hipSuccess;
}

HIPNV_EXPORT hipabi_hipError_t hipGraphAddKernelNode(hipabi_hipGraphNode_t* pGraphNode, hipabi_hipGraph_t graph,
                                                     const hipabi_hipGraphNode_t* pDependencies,
                                                     size_t numDependencies,
                                                     const struct hipabi_hipKernelNodeParams* pNodeParams) {
    CUDA_KERNEL_NODE_PARAMS c;
    void* cextra[5];
    hipabi_hipError_t e = hipnv_kernel_node(&cuGraphAddKernelNode_v2 != NULL, pNodeParams, &c, cextra);
    return e ? e : hipnv_hipError_t_from_CUresult(cuGraphAddKernelNode((CUgraphNode*)pGraphNode, (CUgraph)graph,
                                                                       (const CUgraphNode*)pDependencies,
                                                                       numDependencies, &c));
}

HIPNV_EXPORT hipabi_hipError_t hipGraphKernelNodeSetParams(hipabi_hipGraphNode_t node,
                                                           const struct hipabi_hipKernelNodeParams* pNodeParams) {
    CUDA_KERNEL_NODE_PARAMS c;
    void* cextra[5];
    hipabi_hipError_t e = hipnv_kernel_node(&cuGraphKernelNodeSetParams_v2 != NULL, pNodeParams, &c, cextra);
    return e ? e : hipnv_hipError_t_from_CUresult(cuGraphKernelNodeSetParams((CUgraphNode)node, &c));
}

HIPNV_EXPORT hipabi_hipError_t hipGraphExecKernelNodeSetParams(hipabi_hipGraphExec_t hGraphExec,
                                                               hipabi_hipGraphNode_t node,
                                                               const struct hipabi_hipKernelNodeParams* pNodeParams) {
    CUDA_KERNEL_NODE_PARAMS c;
    void* cextra[5];
    hipabi_hipError_t e = hipnv_kernel_node(&cuGraphExecKernelNodeSetParams_v2 != NULL, pNodeParams, &c, cextra);
    return e ? e : hipnv_hipError_t_from_CUresult(cuGraphExecKernelNodeSetParams((CUgraphExec)hGraphExec,
                                                                                 (CUgraphNode)node, &c));
}

/* The driver's parameters back: func is the node's CUfunction; `extra` is not given back (CUDA
 * keeps the arguments as kernelParams). */
HIPNV_EXPORT hipabi_hipError_t hipGraphKernelNodeGetParams(hipabi_hipGraphNode_t node,
                                                           struct hipabi_hipKernelNodeParams* pNodeParams) {
    CUDA_KERNEL_NODE_PARAMS c;
    CUresult r;
    if (!&cuGraphKernelNodeGetParams_v2) return hipabi_hipErrorNotSupported;
    hipnv_ensure_context();
    if (!pNodeParams) return hipabi_hipErrorInvalidValue;
    memset(&c, 0, sizeof c);
    r = cuGraphKernelNodeGetParams((CUgraphNode)node, &c);
    if (r != CUDA_SUCCESS) return hipnv_hipError_t_from_CUresult(r);
    memset(pNodeParams, 0, sizeof *pNodeParams);
    pNodeParams->func = (void*)c.func;
    pNodeParams->gridDim.x = c.gridDimX;
    pNodeParams->gridDim.y = c.gridDimY;
    pNodeParams->gridDim.z = c.gridDimZ;
    pNodeParams->blockDim.x = c.blockDimX;
    pNodeParams->blockDim.y = c.blockDimY;
    pNodeParams->blockDim.z = c.blockDimZ;
    pNodeParams->sharedMemBytes = c.sharedMemBytes;
    pNodeParams->kernelParams = c.kernelParams;
    return hipabi_hipSuccess;
}

struct hipnv_stream_callback { hipabi_hipStreamCallback_t fn; void* data; };

static void CUDART_CB hipnv_stream_trampoline(cudaStream_t s, cudaError_t status, void* p) {
    struct hipnv_stream_callback c = *(struct hipnv_stream_callback*)p;
    free(p);
    c.fn((hipabi_hipStream_t)s, hipnv_hipError_t_from_cudaError_t(status), c.data);
}

HIPNV_EXPORT hipabi_hipError_t hipStreamAddCallback(hipabi_hipStream_t stream, hipabi_hipStreamCallback_t callback,
                                                   void* userData, unsigned int flags) {
    struct hipnv_stream_callback* c;
    cudaError_t r;
    if (callback == NULL) return hipabi_hipErrorInvalidValue;
    c = malloc(sizeof *c);
    if (c == NULL) return hipabi_hipErrorOutOfMemory;
    c->fn = callback;
    c->data = userData;
    r = cudaStreamAddCallback((cudaStream_t)stream, hipnv_stream_trampoline, c, flags);
    if (r != cudaSuccess) free(c);
    return hipnv_hipError_t_from_cudaError_t(r);
}

/* hipFuncSetAttribute(func, ...) names a __global__ function by its host stub, which Python programs
 * do not have: theirs is a module function (hipModuleGetFunction: a CUfunction), whose attributes
 * cudaFuncSetAttribute does not set (it takes a stub, or a cudaKernel_t). The driver's
 * cuFuncSetAttribute sets them; HIP's two attributes have CUDA's values (8, 9). */
HIPNV_EXPORT hipabi_hipError_t hipFuncSetAttribute(const void* func, hipabi_hipFuncAttribute attr, int value) {
    CUfunction_attribute a;
    if (!&cuFuncSetAttribute) return hipabi_hipErrorNotSupported;
    hipnv_ensure_context();
    if (attr == hipabi_hipFuncAttributeMaxDynamicSharedMemorySize) a = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    else if (attr == hipabi_hipFuncAttributePreferredSharedMemoryCarveout) a = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    else return hipabi_hipErrorInvalidValue;
    if (func == NULL) return hipabi_hipErrorInvalidDeviceFunction;
    return hipnv_hipError_t_from_CUresult(cuFuncSetAttribute((CUfunction)func, a, value));
}

/* cudaDeviceAttr lacks some of the driver's attributes (CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_-
 * MANAGEMENT_SUPPORTED, ...): those HIP attributes are asked of cuDeviceGetAttribute. */
HIPNV_EXPORT hipabi_hipError_t hipDeviceGetAttribute(int* pi, hipabi_hipDeviceAttribute_t attr, int deviceId) {
    int ok = 1;
    int ra = hipnv_cudaDeviceAttr_from_hipDeviceAttribute_t((int)attr, &ok);
    if (ok) return hipnv_hipError_t_from_cudaError_t(cudaDeviceGetAttribute(pi, (enum cudaDeviceAttr)ra, deviceId));
    ok = 1;
    int da = hipnv_CUdevice_attribute_from_hipDeviceAttribute_t((int)attr, &ok);
    if (!ok) return hipabi_hipErrorInvalidValue;
    CUdevice d;
    hipnv_ensure_init();
    CUresult r = cuDeviceGet(&d, deviceId);
    if (r == CUDA_SUCCESS) r = cuDeviceGetAttribute(pi, (CUdevice_attribute)da, d);
    return hipnv_hipError_t_from_CUresult(r);
}

/* HIP names a module function by returning its name (NULL when it has none); CUDA's driver
 * writes it through an out pointer and answers with a status. */
#pragma weak cuFuncGetName
HIPNV_EXPORT const char* hipKernelNameRef(const hipabi_hipFunction_t f) {
    const char* name = NULL;
    if (!f || !&cuFuncGetName) return NULL;
    hipnv_ensure_context();
    return cuFuncGetName(&name, (CUfunction)f) == CUDA_SUCCESS ? name : NULL;
}

/* CUDA 12's update gives its result and the failing node in one record; HIP's takes two out
 * pointers (HIP's runtime refuses NULL ones, as here). */
#pragma weak cuGraphExecUpdate_v2
HIPNV_EXPORT hipabi_hipError_t hipGraphExecUpdate(hipabi_hipGraphExec_t hGraphExec, hipabi_hipGraph_t hGraph,
                                                  hipabi_hipGraphNode_t* hErrorNode_out,
                                                  hipabi_hipGraphExecUpdateResult* updateResult_out) {
    CUgraphExecUpdateResultInfo info;
    CUresult r;
    if (!&cuGraphExecUpdate_v2) return hipabi_hipErrorNotSupported;
    if (!hErrorNode_out || !updateResult_out) return hipabi_hipErrorInvalidValue;
    hipnv_ensure_context();
    memset(&info, 0, sizeof info);
    r = cuGraphExecUpdate((CUgraphExec)hGraphExec, (CUgraph)hGraph, &info);
    *hErrorNode_out = (hipabi_hipGraphNode_t)info.errorNode;
    *updateResult_out = (hipabi_hipGraphExecUpdateResult)info.result;
    return hipnv_hipError_t_from_CUresult(r);
}

/* OpenGL interop (hip_gl_interop.h). CUDA's cuda_gl_interop.h includes GL/gl.h, which a machine
 * without OpenGL's headers lacks, so CUDA's three runtime functions are declared here with GL's
 * types as HIP spells them (GLuint, GLenum: unsigned int). HIP's device lists (1, 2, 3) and
 * registration flags (0, 1, 2, 4, 8) have CUDA's values. Weak: a cudart without them answers
 * hipErrorNotSupported. */
extern cudaError_t cudaGLGetDevices(unsigned int* pCudaDeviceCount, int* pCudaDevices,
                                    unsigned int cudaDeviceCount, int deviceList);
extern cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource** resource, unsigned int buffer,
                                                unsigned int flags);
extern cudaError_t cudaGraphicsGLRegisterImage(struct cudaGraphicsResource** resource, unsigned int image,
                                               unsigned int target, unsigned int flags);
#pragma weak cudaGLGetDevices
#pragma weak cudaGraphicsGLRegisterBuffer
#pragma weak cudaGraphicsGLRegisterImage

HIPNV_EXPORT hipabi_hipError_t hipGLGetDevices(unsigned int* pHipDeviceCount, int* pHipDevices,
                                              unsigned int hipDeviceCount, int deviceList) {
    if (!&cudaGLGetDevices) return hipabi_hipErrorNotSupported;
    return hipnv_hipError_t_from_cudaError_t(cudaGLGetDevices(pHipDeviceCount, pHipDevices, hipDeviceCount, deviceList));
}

HIPNV_EXPORT hipabi_hipError_t hipGraphicsGLRegisterBuffer(hipabi_hipGraphicsResource** resource, unsigned int buffer,
                                                          unsigned int flags) {
    if (!&cudaGraphicsGLRegisterBuffer) return hipabi_hipErrorNotSupported;
    return hipnv_hipError_t_from_cudaError_t(
        cudaGraphicsGLRegisterBuffer((struct cudaGraphicsResource**)resource, buffer, flags));
}

HIPNV_EXPORT hipabi_hipError_t hipGraphicsGLRegisterImage(hipabi_hipGraphicsResource** resource, unsigned int image,
                                                         unsigned int target, unsigned int flags) {
    if (!&cudaGraphicsGLRegisterImage) return hipabi_hipErrorNotSupported;
    return hipnv_hipError_t_from_cudaError_t(
        cudaGraphicsGLRegisterImage((struct cudaGraphicsResource**)resource, image, target, flags));
}
