/* Hand-written part of hiprtc on NVRTC: the HIP device header NVRTC lacks, AMD option
 * spellings, and CUBIN-or-PTX code. Included verbatim into the generated hipnv_hiprtc.c. */
#include <stdio.h>
#include <stdlib.h>

/* What `#include <hip/hip_runtime.h>` gives device code, spelled for CUDA. */
static const char hipnv_hip_runtime_h[] =
    "#pragma once\n"
    "#define __HIP_PLATFORM_NVIDIA__ 1\n"
    "#define __HIP_PLATFORM_NVCC__ 1\n"
    "#define __HIPCC_RTC__ 1\n"
    "#define __HIP_DEVICE_COMPILE__ 1\n"
    "#define hipThreadIdx_x threadIdx.x\n#define hipThreadIdx_y threadIdx.y\n#define hipThreadIdx_z threadIdx.z\n"
    "#define hipBlockIdx_x blockIdx.x\n#define hipBlockIdx_y blockIdx.y\n#define hipBlockIdx_z blockIdx.z\n"
    "#define hipBlockDim_x blockDim.x\n#define hipBlockDim_y blockDim.y\n#define hipBlockDim_z blockDim.z\n"
    "#define hipGridDim_x gridDim.x\n#define hipGridDim_y gridDim.y\n#define hipGridDim_z gridDim.z\n"
    "#define HIP_KERNEL_NAME(...) __VA_ARGS__\n"
    "#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];\n"
    "#define HIP_DYNAMIC_SHARED_ATTRIBUTE\n"
    "#define __HOST_DEVICE__ __host__ __device__\n";
static const char hipnv_hip_fp16_h[] = "#pragma once\n#include <cuda_fp16.h>\n";

HIPNV_EXPORT hipabi_hiprtcResult hiprtcCreateProgram(hipabi_hiprtcProgram* prog, const char* src, const char* name,
                                                     int numHeaders, const char** headers,
                                                     const char** includeNames) {
    int n = numHeaders > 0 ? numHeaders : 0;
    const char** hs = malloc((n + 3) * sizeof *hs);
    const char** ns = malloc((n + 3) * sizeof *ns);
    nvrtcResult r;
    if (!hs || !ns) { free(hs); free(ns); return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY; }
    if (n && (!headers || !includeNames)) { free(hs); free(ns); return hipabi_HIPRTC_ERROR_INVALID_INPUT; }
    for (int i = 0; i < n; i++) { hs[i] = headers[i]; ns[i] = includeNames[i]; }
    hs[n] = hipnv_hip_runtime_h;     ns[n] = "hip/hip_runtime.h";
    hs[n + 1] = hipnv_hip_runtime_h; ns[n + 1] = "hip_runtime.h";
    hs[n + 2] = hipnv_hip_fp16_h;    ns[n + 2] = "hip/hip_fp16.h";
    r = nvrtcCreateProgram((nvrtcProgram*)prog, src, name, n + 3, hs, ns);
    free(hs);
    free(ns);
    return hipnv_hiprtcResult_from_nvrtcResult(r);
}

static int hipnv_starts(const char* s, const char* p) { return strncmp(s, p, strlen(p)) == 0; }

/* AMD's options mean nothing to NVRTC (and it rejects -O3): keep what NVRTC understands, turn an
 * sm_XX/compute_XX --offload-arch into --gpu-architecture, and target the current device's sm_XX
 * when no NVIDIA architecture is named (so hiprtcGetCode returns a CUBIN). */
HIPNV_EXPORT hipabi_hiprtcResult hiprtcCompileProgram(hipabi_hiprtcProgram prog, int numOptions,
                                                      const char** options) {
    int n = numOptions > 0 ? numOptions : 0, k = 0, arch = 0;
    const char** out = malloc((n + 1) * sizeof *out);
    char* bufs = malloc((size_t)(n + 1) * 64);
    nvrtcResult r;
    if (!out || !bufs) { free(out); free(bufs); return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY; }
    for (int i = 0; i < n; i++) {
        const char* o = options ? options[i] : NULL;
        const char* v = NULL;
        if (o == NULL) continue;
        if (hipnv_starts(o, "--offload-arch=")) v = o + 15;
        else if (hipnv_starts(o, "-offload-arch=")) v = o + 14;
        else if (hipnv_starts(o, "--gpu-architecture=")) v = o + 19;
        else if (hipnv_starts(o, "-arch=")) v = o + 6;
        if (v) {
            if (hipnv_starts(v, "sm_") || hipnv_starts(v, "compute_")) {
                snprintf(bufs + 64 * k, 64, "--gpu-architecture=%s", v);
                out[k] = bufs + 64 * k;
                k++;
                arch = 1;
            }
            continue;   /* gfx targets: this device is not one */
        }
        if ((o[0] == '-' && o[1] == 'O' && strlen(o) <= 3) || hipnv_starts(o, "-mcumode") ||
            hipnv_starts(o, "-mno-cumode") || hipnv_starts(o, "-mwavefrontsize") || !strcmp(o, "-fno-gpu-rdc"))
            continue;
        if (!strcmp(o, "-ffast-math")) o = "--use_fast_math";
        else if (!strcmp(o, "-fgpu-rdc")) o = "--relocatable-device-code=true";
        out[k++] = o;
    }
    if (!arch) {
        int dev = 0, major = 0, minor = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess) {
            snprintf(bufs + 64 * k, 64, "--gpu-architecture=sm_%d%d", major, minor);
            out[k] = bufs + 64 * k;
            k++;
        }
    }
    r = nvrtcCompileProgram((nvrtcProgram)prog, k, out);
    free(out);
    free(bufs);
    return hipnv_hiprtcResult_from_nvrtcResult(r);
}

static int hipnv_has_cubin(nvrtcProgram p) {
    size_t n = 0;
    return nvrtcGetCUBINSize(p, &n) == NVRTC_SUCCESS && n > 0;
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcGetCodeSize(hipabi_hiprtcProgram prog, size_t* size) {
    nvrtcProgram p = (nvrtcProgram)prog;
    if (size == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (p && hipnv_has_cubin(p)) return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetCUBINSize(p, size));
    return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetPTXSize(p, size));
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcGetCode(hipabi_hiprtcProgram prog, char* code) {
    nvrtcProgram p = (nvrtcProgram)prog;
    if (code == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (p && hipnv_has_cubin(p)) return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetCUBIN(p, code));
    return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetPTX(p, code));
}
