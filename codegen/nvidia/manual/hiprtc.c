/* Hand-written part of hiprtc on NVRTC: the HIP device header NVRTC lacks, AMD option
 * spellings, CUBIN-or-PTX code, and hiprtc's linker on the driver's (cuLink*, at the end;
 * nvJitLink for links with LTO-IR). Included verbatim into the generated hipnv_hiprtc.c. */
#include <dlfcn.h>
#include <stdint.h>
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
/* ---- hiprtc linking: the CUDA driver's JIT linker, nvJitLink for LTO-IR ---------------------
 *
 * On AMD, hiprtcLink* wraps comgr's linker of LLVM bitcode; here it is the driver's cuLink*
 * (libcuda), which is on every machine the layer runs on. cuLink* takes PTX, CUBINs (relocatable
 * ones too), fatbinaries, host objects and archives: every HIPRTC_JIT_INPUT_* kind CUDA has a
 * name for, but no LTO-IR from CUDA 12 on. A link that is given LTO-IR (NVRTC's -dlto output,
 * what hiprtcGetBitcode returns for such a program; HIPRTC_JIT_INPUT_NVVM or one of AMD's bitcode
 * kinds) runs on nvJitLink instead, opened at that first need (hipnv_nvjitlink below): every
 * input of the link state goes to it, with -lto and the target's -arch=sm_XX.
 *
 * hiprtcGetBitcode returns NVRTC's LTO-IR after -dlto, else its PTX: with -fgpu-rdc
 * (--relocatable-device-code=true to NVRTC) it keeps the __device__ functions no kernel of its
 * own calls, and declares the extern ones another program defines, for the linker to resolve.
 * The driver compiles PTX up to its own PTX ISA version only, so where NVRTC is newer than the
 * driver (CUDA's minor-version compatibility) it returns the relocatable CUBIN that NVRTC made
 * for the device instead. */
#pragma weak cuCtxGetCurrent
#pragma weak cuDriverGetVersion
#pragma weak cuLinkCreate_v2
#pragma weak cuLinkAddData_v2
#pragma weak cuLinkAddFile_v2
#pragma weak cuLinkComplete
#pragma weak cuLinkDestroy
#pragma weak nvrtcVersion
#pragma weak nvrtcGetLTOIRSize
#pragma weak nvrtcGetLTOIR

static int hipnv_has_ltoir(nvrtcProgram p) {
    size_t n = 0;
    return &nvrtcGetLTOIRSize && nvrtcGetLTOIRSize(p, &n) == NVRTC_SUCCESS && n > 0;
}

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
    if (hipnv_has_ltoir(p)) return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetLTOIRSize(p, bitcode_size));
    if (hipnv_bitcode_is_ptx(p))   /* the size counts PTX's terminating NUL, which cuLinkAddData wants */
        return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetPTXSize(p, bitcode_size));
    return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetCUBINSize(p, bitcode_size));
}

HIPNV_EXPORT hipabi_hiprtcResult hiprtcGetBitcode(hipabi_hiprtcProgram prog, char* bitcode) {
    nvrtcProgram p = (nvrtcProgram)prog;
    if (bitcode == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (p == NULL) return hipabi_HIPRTC_ERROR_INVALID_PROGRAM;
    if (hipnv_has_ltoir(p)) return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetLTOIR(p, bitcode));
    if (hipnv_bitcode_is_ptx(p)) return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetPTX(p, bitcode));
    return hipnv_hiprtcResult_from_nvrtcResult(nvrtcGetCUBIN(p, bitcode));
}

/* One input as given, for nvJitLink should LTO-IR join the link: `kind` nvJitLink's input type,
 * `data` a copy of the bytes, or (file) NULL and `name` the path nvJitLink reads. */
struct hipnv_rtc_input {
    int kind, file;
    unsigned char* data;
    size_t size;
    char* name;
};

/* A link state: the driver's, and the options it was created with. The driver writes output
 * options (CU_JIT_WALL_TIME, the log sizes) back into the option values until cuLinkDestroy, so
 * they must outlive the caller's array, which a binding may free when hiprtcLinkCreate returns
 * (HIP Python's does). Outputs are not copied back: AMD's hiprtc writes none either. Every input
 * is also kept: a link given LTO-IR (`lto`) runs on nvJitLink, whose CUBIN is `image`. */
struct hipnv_rtc_link {
    CUlinkState cu;
    unsigned n;
    CUjit_option* opts;
    void** vals;
    struct hipnv_rtc_input* in;
    unsigned n_in, cap_in;
    int lto;
    void* image;
    size_t image_size;
};

/* ---- nvJitLink, for links of LTO-IR -----------------------------------------------------------
 * Opened on first need: $HIP_PYTHON_NVJITLINK_LIBRARY (a file; nothing else is tried), else
 * libnvJitLink.so.13, then .so.12, in the folder of the libnvrtc the layer uses (NVIDIA's cu13
 * wheel and the toolkit keep them together), in that folder's ../../nvjitlink/lib (the cu12
 * wheels' nvidia/nvjitlink/lib), then by name (the layer's run path, the system's). Its
 * functions by their plain names, which every libnvJitLink exports, as cuda.bindings finds them. */
#define HIPNV_NVJITLINK_CUBIN 1      /* nvJitLinkInputType */
#define HIPNV_NVJITLINK_PTX 2
#define HIPNV_NVJITLINK_LTOIR 3
#define HIPNV_NVJITLINK_FATBIN 4
#define HIPNV_NVJITLINK_OBJECT 5
#define HIPNV_NVJITLINK_LIBRARY 6

struct hipnv_nvjitlink {
    int (*create)(void** handle, uint32_t n, const char** options);
    int (*destroy)(void** handle);
    int (*add_data)(void* handle, int kind, const void* data, size_t size, const char* name);
    int (*add_file)(void* handle, int kind, const char* path);
    int (*complete)(void* handle);
    int (*cubin_size)(void* handle, size_t* size);
    int (*cubin)(void* handle, void* cubin);
    int (*error_log_size)(void* handle, size_t* size);
    int (*error_log)(void* handle, char* log);
    int (*info_log_size)(void* handle, size_t* size);
    int (*info_log)(void* handle, char* log);
};

static void* hipnv_nvjitlink_open(void) {
    static const char* const names[] = {"libnvJitLink.so.13", "libnvJitLink.so.12"};
    const char* env = getenv("HIP_PYTHON_NVJITLINK_LIBRARY");
    Dl_info info;
    char path[4096];
    void* h = NULL;
    if (env && *env) return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    if (&nvrtcVersion && dladdr((void*)&nvrtcVersion, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
        int dir = (int)(strrchr(info.dli_fname, '/') - info.dli_fname);
        for (int sibling = 0; sibling < 2 && !h; sibling++)
            for (size_t i = 0; i < sizeof names / sizeof *names && !h; i++) {
                snprintf(path, sizeof path, "%.*s%s/%s", dir, info.dli_fname, sibling ? "/../../nvjitlink/lib" : "",
                         names[i]);
                h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            }
    }
    for (size_t i = 0; i < sizeof names / sizeof *names && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return h;
}

/* The functions, or NULL where no libnvJitLink (with all of them) was found. */
static const struct hipnv_nvjitlink* hipnv_nvjitlink(void) {
    static struct hipnv_nvjitlink fns;
    static int state;   /* 0: not tried, 1: found, 2: not found */
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    void* h;
    struct hipnv_nvjitlink f;
    if (s) return s == 1 ? &fns : NULL;
    h = hipnv_nvjitlink_open();
    if (h) {
#define HIPNV_SYM(field, name) do { void* p_ = dlsym(h, name); memcpy(&f.field, &p_, sizeof p_); } while (0)
        HIPNV_SYM(create, "nvJitLinkCreate");
        HIPNV_SYM(destroy, "nvJitLinkDestroy");
        HIPNV_SYM(add_data, "nvJitLinkAddData");
        HIPNV_SYM(add_file, "nvJitLinkAddFile");
        HIPNV_SYM(complete, "nvJitLinkComplete");
        HIPNV_SYM(cubin_size, "nvJitLinkGetLinkedCubinSize");
        HIPNV_SYM(cubin, "nvJitLinkGetLinkedCubin");
        HIPNV_SYM(error_log_size, "nvJitLinkGetErrorLogSize");
        HIPNV_SYM(error_log, "nvJitLinkGetErrorLog");
        HIPNV_SYM(info_log_size, "nvJitLinkGetInfoLogSize");
        HIPNV_SYM(info_log, "nvJitLinkGetInfoLog");
#undef HIPNV_SYM
        if (f.create && f.destroy && f.add_data && f.add_file && f.complete && f.cubin_size && f.cubin &&
            f.error_log_size && f.error_log && f.info_log_size && f.info_log) {
            fns = f;   /* racing first callers write the same values */
            __atomic_store_n(&state, 1, __ATOMIC_RELEASE);
            return &fns;
        }
    }
    __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    return NULL;
}

/* The value of link option `o` (NULL if not given) and whether it was given. */
static int hipnv_link_option(const struct hipnv_rtc_link* L, CUjit_option o, void** value) {
    for (unsigned i = 0; i < L->n; i++)
        if (L->opts[i] == o) {
            *value = L->vals[i];
            return 1;
        }
    return 0;
}

/* Write text into the log buffer of options `buf`/`size` (the caller's, as the driver would). */
static void hipnv_link_log(const struct hipnv_rtc_link* L, CUjit_option buf, CUjit_option size, const char* text) {
    void *b = NULL, *n = NULL;
    if (hipnv_link_option(L, buf, &b) && hipnv_link_option(L, size, &n) && b && (uintptr_t)n > 0)
        snprintf((char*)b, (size_t)(uintptr_t)n, "%s", text);
}

/* Keep an input (its bytes copied, or its path) for nvJitLink. */
static hipabi_hiprtcResult hipnv_link_keep(struct hipnv_rtc_link* L, int kind, const void* data, size_t size,
                                           const char* name, int file) {
    struct hipnv_rtc_input* x;
    if (L->n_in == L->cap_in) {
        unsigned cap = L->cap_in ? 2 * L->cap_in : 8;
        struct hipnv_rtc_input* in = realloc(L->in, cap * sizeof *in);
        if (!in) return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY;
        L->in = in;
        L->cap_in = cap;
    }
    x = &L->in[L->n_in];
    x->kind = kind;
    x->file = file;
    x->size = size;
    x->data = NULL;
    x->name = strdup(name ? name : "hiprtc input");
    if (!file && (x->data = malloc(size ? size : 1)) != NULL) memcpy(x->data, data, size);
    if (!x->name || (!file && !x->data)) {
        free(x->name);
        free(x->data);
        return hipabi_HIPRTC_ERROR_OUT_OF_MEMORY;
    }
    L->n_in++;
    return hipabi_HIPRTC_SUCCESS;
}

static int hipnv_nvjitlink_kind(CUjitInputType t) {
    switch (t) {
    case CU_JIT_INPUT_CUBIN: return HIPNV_NVJITLINK_CUBIN;
    case CU_JIT_INPUT_PTX: return HIPNV_NVJITLINK_PTX;
    case CU_JIT_INPUT_NVVM: return HIPNV_NVJITLINK_LTOIR;
    case CU_JIT_INPUT_FATBINARY: return HIPNV_NVJITLINK_FATBIN;
    case CU_JIT_INPUT_OBJECT: return HIPNV_NVJITLINK_OBJECT;
    case CU_JIT_INPUT_LIBRARY: return HIPNV_NVJITLINK_LIBRARY;
    default: return 0;
    }
}

/* nvJitLink's -arch=sm_XX: the link's CU_JIT_TARGET (sm_90a's is CU_TARGET_COMPUTE_90 plus the
 * accelerated base), else the current device's. 0 where there is neither. */
static int hipnv_link_arch(const struct hipnv_rtc_link* L, char* out, size_t n) {
    void* v = NULL;
    int dev = 0, major = 0, minor = 0;
    if (hipnv_link_option(L, CU_JIT_TARGET, &v)) {
        unsigned t = (unsigned)(uintptr_t)v;
        const char* suffix = "";
#ifdef CU_COMPUTE_ACCELERATED_TARGET_BASE
        if (t & CU_COMPUTE_ACCELERATED_TARGET_BASE) suffix = "a";
#endif
#ifdef CU_COMPUTE_FAMILY_TARGET_BASE
        if (t & CU_COMPUTE_FAMILY_TARGET_BASE) suffix = "f";
#endif
        snprintf(out, n, "-arch=sm_%u%s", t & 0xffffu, suffix);
        return 1;
    }
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return 0;
    snprintf(out, n, "-arch=sm_%d%d", major, minor);
    return 1;
}

/* nvJitLink's log (error or info) into the caller's buffer of options `buf`/`size`. */
static void hipnv_nvjitlink_log(const struct hipnv_rtc_link* L, const struct hipnv_nvjitlink* J, void* h, int error) {
    size_t n = 0;
    char* text;
    if ((error ? J->error_log_size(h, &n) : J->info_log_size(h, &n)) != 0 || n <= 1 || !(text = malloc(n))) return;
    if ((error ? J->error_log(h, text) : J->info_log(h, text)) == 0) {
        text[n - 1] = 0;
        if (error) hipnv_link_log(L, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, text);
        else hipnv_link_log(L, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, text);
    }
    free(text);
}

/* The link on nvJitLink: -arch, -lto, the JIT options nvJitLink has a spelling for, every input. */
static hipabi_hiprtcResult hipnv_lto_complete(struct hipnv_rtc_link* L) {
    const struct hipnv_nvjitlink* J = hipnv_nvjitlink();
    char arch[32], regs[40];
    const char* o[8];
    uint32_t k = 0;
    void *h = NULL, *v = NULL;
    size_t n = 0;
    int r;
    if (!J) return hipabi_HIPRTC_ERROR_LINKING;   /* checked when the LTO-IR was added */
    if (!hipnv_link_arch(L, arch, sizeof arch)) {
        hipnv_link_log(L, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                       "ERROR: no target: the link has no CU_JIT_TARGET and no device is current");
        return hipabi_HIPRTC_ERROR_LINKING;
    }
    o[k++] = arch;
    o[k++] = "-lto";
    if (hipnv_link_option(L, CU_JIT_MAX_REGISTERS, &v)) {
        snprintf(regs, sizeof regs, "-maxrregcount=%u", (unsigned)(uintptr_t)v);
        o[k++] = regs;
    }
    if (hipnv_link_option(L, CU_JIT_GENERATE_DEBUG_INFO, &v) && v) o[k++] = "-g";
    if (hipnv_link_option(L, CU_JIT_GENERATE_LINE_INFO, &v) && v) o[k++] = "-lineinfo";
    if (hipnv_link_option(L, CU_JIT_LOG_VERBOSE, &v) && v) o[k++] = "-verbose";
    if (hipnv_link_option(L, CU_JIT_OPTIMIZATION_LEVEL, &v) && !v) o[k++] = "-O0";
    r = J->create(&h, k, o);
    if (r != 0) {
        hipnv_link_log(L, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                       "ERROR: nvJitLinkCreate failed (the target or an option)");
        return hipabi_HIPRTC_ERROR_LINKING;
    }
    for (unsigned i = 0; i < L->n_in && r == 0; i++)
        r = L->in[i].file ? J->add_file(h, L->in[i].kind, L->in[i].name)
                          : J->add_data(h, L->in[i].kind, L->in[i].data, L->in[i].size, L->in[i].name);
    if (r == 0) r = J->complete(h);
    if (r == 0) r = J->cubin_size(h, &n);
    if (r == 0 && n > 0 && (L->image = malloc(n)) != NULL && J->cubin(h, L->image) == 0) L->image_size = n;
    hipnv_nvjitlink_log(L, J, h, 1);
    hipnv_nvjitlink_log(L, J, h, 0);
    J->destroy(&h);
    if (L->image_size) return hipabi_HIPRTC_SUCCESS;
    free(L->image);
    L->image = NULL;
    return r == 0 && n > 0 ? hipabi_HIPRTC_ERROR_OUT_OF_MEMORY : hipabi_HIPRTC_ERROR_LINKING;
}

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
 * code; 0xBA55ED50 starts a fatbinary; "!<arch>" an archive; 0x7F4E43ED NVRTC's LTO-IR (and
 * LLVM bitcode's magics: NVVM IR) is LTO-IR, for nvJitLink; anything else is PTX (what
 * hiprtcGetBitcode returns without -dlto). */
static int hipnv_amd_input(hipabi_hiprtcJITInputType t) {
    return t == hipabi_HIPRTC_JIT_INPUT_LLVM_BITCODE || t == hipabi_HIPRTC_JIT_INPUT_LLVM_BUNDLED_BITCODE ||
           t == hipabi_HIPRTC_JIT_INPUT_LLVM_ARCHIVES_OF_BUNDLED_BITCODE;
}

static CUjitInputType hipnv_input_kind(const unsigned char* p, size_t size, CUjitInputType otherwise) {
    if (size >= 20 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F')
        return (p[18] | p[19] << 8) == 190 ? CU_JIT_INPUT_CUBIN : CU_JIT_INPUT_OBJECT;
    if (size >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba) return CU_JIT_INPUT_FATBINARY;
    if (size >= 8 && memcmp(p, "!<arch>\n", 8) == 0) return CU_JIT_INPUT_LIBRARY;
    if (size >= 4 && (memcmp(p, "\xed\x43\x4e\x7f", 4) == 0 ||   /* NVRTC's LTO-IR */
                      memcmp(p, "BC\xc0\xde", 4) == 0 || memcmp(p, "\xde\xc0\x17\x0b", 4) == 0))   /* bitcode */
        return CU_JIT_INPUT_NVVM;
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
    if (t == CU_JIT_INPUT_NVVM) {   /* LTO-IR: the driver links none; nvJitLink will */
        if (!hipnv_nvjitlink()) {
            hipnv_link_log(L, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           "ERROR: LTO-IR needs nvJitLink, and no libnvJitLink.so.13 or .so.12 was found "
                           "(HIP_PYTHON_NVJITLINK_LIBRARY names one)");
            return hipabi_HIPRTC_ERROR_INVALID_INPUT;
        }
        hr = hipnv_link_keep(L, HIPNV_NVJITLINK_LTOIR, data, size, name, 0);
        if (hr == hipabi_HIPRTC_SUCCESS) L->lto = 1;
        return hr;
    }
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
    if (hr == hipabi_HIPRTC_SUCCESS) hr = hipnv_link_keep(L, hipnv_nvjitlink_kind(t), data, size, name, 0);
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
    int ok = 1;
    CUjitInputType t;
    if (L == NULL || file_path == NULL) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    t = (CUjitInputType)hipnv_CUjitInputType_from_hiprtcJITInputType((int)input_type, &ok);
    if (!ok) return hipabi_HIPRTC_ERROR_INVALID_INPUT;
    if (!hipnv_amd_input(input_type) && t != CU_JIT_INPUT_NVVM) {   /* a kind the driver knows: it reads the file */
        unsigned k = 0;
        CUjit_option* o = NULL;
        void** v = NULL;
        hr = hipnv_jit_options(num_options, options_ptr, option_values, &k, &o, &v);
        if (hr == hipabi_HIPRTC_SUCCESS)
            hr = hipnv_link_status(cuLinkAddFile_v2(L->cu, t, file_path, k, o, v),
                                   hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
        if (hr == hipabi_HIPRTC_SUCCESS) hr = hipnv_link_keep(L, hipnv_nvjitlink_kind(t), NULL, 0, file_path, 1);
        free(o);
        free(v);
        return hr;
    }
    /* One of AMD's kinds, or LTO-IR: read the file, so that its bytes say what it holds (as
     * hiprtcLinkAddData). */
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
    if (L->lto) {
        hipabi_hiprtcResult hr = L->image ? hipabi_HIPRTC_SUCCESS : hipnv_lto_complete(L);
        if (hr != hipabi_HIPRTC_SUCCESS) return hr;
        *bin_out = L->image;
        if (size_out) *size_out = L->image_size;
        return hipabi_HIPRTC_SUCCESS;
    }
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
    for (unsigned i = 0; i < L->n_in; i++) {
        free(L->in[i].data);
        free(L->in[i].name);
    }
    free(L->in);
    free(L->image);
    free(L->opts);
    free(L->vals);
    free(L);
    return hipnv_link_status(r, hipabi_HIPRTC_ERROR_INTERNAL_ERROR);
}
#endif
