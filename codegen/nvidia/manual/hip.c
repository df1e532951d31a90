/* Hand-written part of the HIP runtime on CUDA: only what no rule can express.
 * Included verbatim into the generated hipnv_hip.c, after the hipabi_ types and converters. */
#include <stdio.h>
#include <stdlib.h>

/* HIP's runtime creates the device's primary context on first use; the CUDA driver API
 * needs one current. cudaFree(0) makes the runtime's primary context current. */
static __thread int hipnv_ctx_ready;
static void hipnv_ensure_context(void) {
    if (!hipnv_ctx_ready) {
        CUcontext c = NULL;
        if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || c == NULL)
            cudaFree(0);
        hipnv_ctx_ready = 1;
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
 * HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02), HIP_LAUNCH_PARAM_END ((void*)0x03). */
HIPNV_EXPORT hipabi_hipError_t hipModuleLaunchKernel(
        hipabi_hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
        unsigned int by, unsigned int bz, unsigned int shared, hipabi_hipStream_t stream,
        void** kernelParams, void** extra) {
    void* cextra[5];
    void** ce = NULL;
    hipnv_ensure_context();
    if (extra) {
        int n = 0, i = 0;
        while (extra[i] != (void*)0x03) {
            if (n > 2) return hipabi_hipErrorInvalidValue;
            if (extra[i] == (void*)0x01) cextra[n] = CU_LAUNCH_PARAM_BUFFER_POINTER;
            else if (extra[i] == (void*)0x02) cextra[n] = CU_LAUNCH_PARAM_BUFFER_SIZE;
            else return hipabi_hipErrorInvalidValue;
            cextra[n + 1] = extra[i + 1];
            n += 2;
            i += 2;
        }
        cextra[n] = CU_LAUNCH_PARAM_END;
        ce = cextra;
    }
    return hipnv_hipError_t_from_CUresult(cuLaunchKernel((CUfunction)f, gx, gy, gz, bx, by, bz, shared,
                                                          (CUstream)stream, kernelParams, ce));
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
    hipnv_ensure_context();
    CUresult r = cuDeviceGet(&d, deviceId);
    if (r == CUDA_SUCCESS) r = cuDeviceGetAttribute(pi, (CUdevice_attribute)da, d);
    return hipnv_hipError_t_from_CUresult(r);
}
