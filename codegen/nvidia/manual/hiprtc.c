/* Hand-written part of hiprtc on NVRTC: the HIP device header NVRTC lacks, AMD option
 * spellings, CUBIN-or-PTX code, and hiprtc's linker on the driver's (cuLink*, at the end).
 * Included verbatim into the generated hipnv_hiprtc.c. */
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
        else if (!strcmp(o, "-ffp-contract=off")) o = "--fmad=false";   /* clang's: no FMA contraction */
        else if (!strcmp(o, "-ffp-contract=fast")) o = "--fmad=true";
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

#ifdef HIPNV_HAS_hiprtcJITInputType   /* hiprtc's linker API: ROCm 5.3 and later */
/* ---- hiprtc linking: the CUDA driver's JIT linker ------------------------------------------
 *
 * On AMD, hiprtcLink* wraps comgr's linker of LLVM bitcode; here it is the driver's cuLink*
 * (libcuda). Not nvJitLink: the driver is on every machine the layer runs on, while nvJitLink
 * is one more library (libnvJitLink, a wheel of its own) to find and link, and its advantage,
 * link-time optimization of LTO-IR, serves no HIP program: they link what hiprtcGetBitcode
 * returned. cuLink* takes PTX, CUBINs (relocatable ones too), fatbinaries, host objects and
 * archives: every HIPRTC_JIT_INPUT_* kind CUDA has a name for.
 *
 * hiprtcGetBitcode returns NVRTC's PTX: with -fgpu-rdc (--relocatable-device-code=true to
 * NVRTC) it keeps the __device__ functions no kernel of its own calls, and declares the extern
 * ones another program defines, for the linker to resolve. The driver compiles PTX up to its
 * own PTX ISA version only, so where NVRTC is newer than the driver (CUDA's minor-version
 * compatibility) it returns the relocatable CUBIN that NVRTC made for the device instead. */
#pragma weak cuCtxGetCurrent
#pragma weak cuDriverGetVersion
#pragma weak cuLinkCreate_v2
#pragma weak cuLinkAddData_v2
#pragma weak cuLinkAddFile_v2
#pragma weak cuLinkComplete
#pragma weak cuLinkDestroy
#pragma weak nvrtcVersion

static int hipnv_bitcode_is_ptx(nvrtcProgram p) {
    size_t n = 0;
    int drv = 0, major = 0, minor = 0;
    if (!hipnv_has_cubin(p)) return 1;
    if (nvrtcGetPTXSize(p, &n) != NVRTC_SUCCESS || n <= 1) return 0;
    if (&cuDriverGetVersion && &nvrtcVersion && cuDriverGetVersion(&drv) == CUDA_SUCCESS &&
        nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && drv > 0 && drv < major * 1000 + minor * 10)
        return 0;   /* NVRTC 13.2's PTX on a 13.0 driver: the CUBIN */
    return 1;
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcGetBitcodeSize(hipabi_hiprtcProgram prog, size_t* bitcode_size) {
    nvrtcProgram p = (nvrtcProgram)prog;
    if (bitcode_size == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (p == NULL) return hipabi_HIPRTC_ERROR_INVALID_PROGRAM;
    if (hipnv_bitcode_is_ptx(p))   /* the size counts PTX's terminating NUL, which cuLinkAddData wants */
        return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetPTXSize(p, bitcode_size));
    return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetCUBINSize(p, bitcode_size));
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcGetBitcode(hipabi_hiprtcProgram prog, char* bitcode) {
    nvrtcProgram p = (nvrtcProgram)prog;
    if (bitcode == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (p == NULL) return hipabi_HIPRTC_ERROR_INVALID_PROGRAM;
    if (hipnv_bitcode_is_ptx(p)) return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetPTX(p, bitcode));
    return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetCUBIN(p, bitcode));
}

/* A link state: the driver's, and the options it was created with. The driver writes output
 * options (CU_JIT_WALL_TIME, the log sizes) back into the option values until cuLinkDestroy, so
 * they must outlive the caller's array, which a binding may free when hiprtcLinkCreate returns
 * (HIP Python's does). Outputs are not copied back: AMD's hiprtc writes none either. */
struct hipnv_rtc_link {
    CUlinkState cu;
    unsigned n;
    CUjit_option* opts;
    void** vals;
};

/* HIP's JIT options as CUDA's (the converter maps them by name; the values mean the same on
 * both). AMD's own (hipJitOptionIRtoISAOpt*Ext: flags for AMD's compiler) are dropped as
 * hiprtcCompileProgram drops AMD's compiler options; a number that is no option is refused. */
static hipabi_hiprtcResult hipnv_jit_options(unsigned n, const hipabi_hiprtcJIT_option* opts, void* const* vals,
                                             unsigned* out_n, CUjit_option** out_opts, void*** out_vals) {
    CUjit_option* o;
    void** v;
    unsigned k = 0;
    *out_n = 0;
    *out_opts = NULL;
    *out_vals = NULL;
    if (n == 0) return hipabi_HIPRTC_SUCCESS;
    if (opts == NULL || vals == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    o = malloc(n * sizeof *o);
    v = malloc(n * sizeof *v);
    if (!o || !v) { free(o); free(v); return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY; }
    for (unsigned i = 0; i < n; i++) {
        int ok = 1;
        int c = hipnv_CUjit_option_from_hiprtcJIT_option((int)opts[i], &ok);
        if (!ok) {
            if (opts[i] == hipabi_HIPRTC_JIT_IR_TO_ISA_OPT_EXT || opts[i] == hipabi_HIPRTC_JIT_IR_TO_ISA_OPT_COUNT_EXT)
                continue;
            free(o);
            free(v);
            return hipabi_HIPRTC_ERROR_INVALID_OPTION;
        }
        o[k] = (CUjit_option)c;
        v[k] = vals[i];
        k++;
    }
    *out_n = k;
    *out_opts = o;
    *out_vals = v;
    return hipabi_HIPRTC_SUCCESS;
}

/* The status of a failed cuLink* call: HIP's for bad arguments and memory, else `failed`
 * (AMD's for the step: PROGRAM_CREATION_FAILURE for an input, LINKING for the link). */
static hipabi_hiprtcResult hipnv_link_status(CUresult r, hipabi_hiprtcResult failed) {
    switch (r) {
    case CUDA_SUCCESS: return hipabi_HIPRTC_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE: return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    default: return failed;
    }
}

/* AMD's input kinds (LLVM bitcode, bundles, archives of bundles) name AMD formats: on NVIDIA the
 * bytes say what they are. ELF is a CUBIN (e_machine EM_CUDA, 190) or a host object with device
 * code; 0xBA55ED50 starts a fatbinary; "!<arch>" an archive; anything else is PTX (what
 * hiprtcGetBitcode returns). */
static int hipnv_amd_input(hipabi_hiprtcJITInputType t) {
    return t == hipabi_HIPRTC_JIT_INPUT_LLVM_BITCODE || t == hipabi_HIPRTC_JIT_INPUT_LLVM_BUNDLED_BITCODE ||
           t == hipabi_HIPRTC_JIT_INPUT_LLVM_ARCHIVES_OF_BUNDLED_BITCODE;
}

static CUjitInputType hipnv_input_kind(const unsigned char* p, size_t size, CUjitInputType otherwise) {
    if (size >= 20 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F')
        return (p[18] | p[19] << 8) == 190 ? CU_JIT_INPUT_CUBIN : CU_JIT_INPUT_OBJECT;
    if (size >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba) return CU_JIT_INPUT_FATBINARY;
    if (size >= 8 && memcmp(p, "!<arch>\n", 8) == 0) return CU_JIT_INPUT_LIBRARY;
    return otherwise;
}

static hipabi_hiprtcResult hipnv_link_add(struct hipnv_rtc_link* L, hipabi_hiprtcJITInputType type, const void* data,
                                          size_t size, const char* name, unsigned num_options,
                                          hipabi_hiprtcJIT_option* options, void** values) {
    int ok = 1;
    CUjitInputType t = (CUjitInputType)hipnv_CUjitInputType_from_hiprtcJITInputType((int)type, &ok);
    unsigned n = 0;
    CUjit_option* o = NULL;
    void** v = NULL;
    char* copy = NULL;
    hipabi_hiprtcResult hr;
    CUresult r;
    if (!ok) return hipabi_HIPRTC_ERROR_INVALID_INPUT;   /* SPIR-V, or no input kind at all */
    if (hipnv_amd_input(type)) t = hipnv_input_kind(data, size, t);
    if (t == CU_JIT_INPUT_PTX && memchr(data, 0, size) == NULL) {
        /* The driver reads PTX up to its NUL: one past the caller's bytes if they have none. */
        copy = malloc(size + 1);
        if (!copy) return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY;
        memcpy(copy, data, size);
        copy[size] = 0;
        data = copy;
        size++;
    }
    hr = hipnv_jit_options(num_options, options, values, &n, &o, &v);
    if (hr == hipabi_HIPRTC_SUCCESS) {
        r = cuLinkAddData_v2(L->cu, t, (void*)data, size, name ? name : "hiprtc input", n, o, v);
        hr = hipnv_link_status(r, hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
    }
    free(copy);
    free(o);
    free(v);
    return hr;
}

/* The CUDA context the linker compiles for (its device's architecture): HIP programs need none
 * current, so the runtime's primary context is made current, as the HIP layer's driver calls do. */
static void hipnv_rtc_context(void) {
    CUcontext c = NULL;
    if (&cuCtxGetCurrent && (cuCtxGetCurrent(&c) != CUDA_SUCCESS || c == NULL))
        cudaFree(0);
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcLinkCreate(unsigned int num_options, hipabi_hiprtcJIT_option* option_ptr,
                                                  void** option_vals_pptr, hipabi_hiprtcLinkState* hip_link_state_ptr) {
    struct hipnv_rtc_link* L;
    hipabi_hiprtcResult hr;
    CUresult r;
    if (hip_link_state_ptr == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (!&cuLinkCreate_v2) return hipabi_HIPRTC_ERROR_INTERNAL_ERROR;   /* no CUDA driver */
    L = calloc(1, sizeof *L);
    if (!L) return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY;
    hr = hipnv_jit_options(num_options, option_ptr, option_vals_pptr, &L->n, &L->opts, &L->vals);
    if (hr != hipabi_HIPRTC_SUCCESS) { free(L); return hr; }
    hipnv_rtc_context();
    r = cuLinkCreate_v2(L->n, L->opts, L->vals, &L->cu);
    if (r != CUDA_SUCCESS) {
        free(L->opts);
        free(L->vals);
        free(L);
        return r == CUDA_ERROR_INVALID_VALUE ? hipabi_HIPRTC_ERROR_INVALID_OPTION
                                             : hipnv_link_status(r, hipabi_HIPRTC_ERROR_INTERNAL_ERROR);
    }
    *hip_link_state_ptr = (hipabi_hiprtcLinkState)L;
    return hipabi_HIPRTC_SUCCESS;
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcLinkAddData(hipabi_hiprtcLinkState hip_link_state, hipabi_hiprtcJITInputType input_type,
                                                   void* image, size_t image_size, const char* name,
                                                   unsigned int num_options, hipabi_hiprtcJIT_option* options_ptr,
                                                   void** option_values) {
    struct hipnv_rtc_link* L = (struct hipnv_rtc_link*)hip_link_state;
    if (L == NULL || image == NULL || image_size == 0) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    return hipnv_link_add(L, input_type, image, image_size, name, num_options, options_ptr, option_values);
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcLinkAddFile(hipabi_hiprtcLinkState hip_link_state, hipabi_hiprtcJITInputType input_type,
                                                   const char* file_path, unsigned int num_options,
                                                   hipabi_hiprtcJIT_option* options_ptr, void** option_values) {
    struct hipnv_rtc_link* L = (struct hipnv_rtc_link*)hip_link_state;
    FILE* f;
    long n;
    unsigned char* buf;
    hipabi_hiprtcResult hr;
    if (L == NULL || file_path == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (!hipnv_amd_input(input_type)) {   /* a kind the driver knows: it reads the file */
        int ok = 1;
        CUjitInputType t = (CUjitInputType)hipnv_CUjitInputType_from_hiprtcJITInputType((int)input_type, &ok);
        unsigned k = 0;
        CUjit_option* o = NULL;
        void** v = NULL;
        if (!ok) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
        hr = hipnv_jit_options(num_options, options_ptr, option_values, &k, &o, &v);
        if (hr == hipabi_HIPRTC_SUCCESS)
            hr = hipnv_link_status(cuLinkAddFile_v2(L->cu, t, file_path, k, o, v),
                                   hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
        free(o);
        free(v);
        return hr;
    }
    /* One of AMD's kinds: read the file, so that its bytes say what it holds (as hiprtcLinkAddData). */
    f = fopen(file_path, "rb");
    if (!f) return hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE;
    }
    buf = malloc((size_t)n);
    if (!buf) { fclose(f); return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY; }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE;
    }
    fclose(f);
    hr = hipnv_link_add(L, input_type, buf, (size_t)n, file_path, num_options, options_ptr, option_values);
    free(buf);
    return hr;
}

/* The image is owned by the link state and freed by hiprtcLinkDestroy: AMD's contract (its
 * link program holds the executable) and the driver's (cuLinkComplete's cubin belongs to the
 * CUlinkState), so it is handed out as it is. Load it before destroying the link state. */
HIPNV_EXPORT hipabi_hiprtcResult hiprtcLinkComplete(hipabi_hiprtcLinkState hip_link_state, void** bin_out,
                                                    size_t* size_out) {
    struct hipnv_rtc_link* L = (struct hipnv_rtc_link*)hip_link_state;
    size_t n = 0;
    CUresult r;
    if (L == NULL || bin_out == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    r = cuLinkComplete(L->cu, bin_out, &n);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY;
    if (r != CUDA_SUCCESS) return hipabi_HIPRTC_ERROR_LINKING;   /* the arguments were checked: the inputs' fault */
    if (size_out) *size_out = n;
    return hipabi_HIPRTC_SUCCESS;
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcLinkDestroy(hipabi_hiprtcLinkState hip_link_state) {
    struct hipnv_rtc_link* L = (struct hipnv_rtc_link*)hip_link_state;
    CUresult r;
    if (L == NULL) return hipabi_HIPRTC_SUCCESS;   /* as AMD's: deleting nothing */
    r = cuLinkDestroy(L->cu);
    free(L->opts);
    free(L->vals);
    free(L);
    return hipnv_link_status(r, hipabi_HIPRTC_ERROR_INTERNAL_ERROR);
}
#endif
