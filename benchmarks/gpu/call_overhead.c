/* Per-call cost of the HIP-on-CUDA layer against calling CUDA directly, in C (no Python).
 *
 *   call_overhead LAYER.so [CUDART[:CUDART...]] [N] [REPEAT]
 *
 * dlopens the layer (libhip-nvidia-hip.so) and the CUDA runtime, then times N calls of
 * hipGetDevice vs cudaGetDevice and hipPeekAtLastError vs cudaPeekAtLastError, REPEAT rounds
 * alternating which goes first; prints the best ns/call of each and the median over rounds of
 * the paired difference (hip - cuda in the same round) as one JSON line. The paired median is
 * the figure to read: a call that costs ~1 us drifts by more than the layer's cost between
 * rounds, so the difference of two minima from different rounds is mostly noise.
 * The CUDA runtime used is one already loaded (found by soname), else the first of the given
 * paths that opens, else libcudart.so.13/.12/.so from the linker's search. Where the layer links
 * cudart statically (spec key link_static), it has its own copy: the figure is then the layer
 * against the shared libcudart, static against shared included.
 * Device 0's primary context is made current first, through both.
 * Built by benchmarks/gpu/bench_nvidia.py: gcc -O2 -std=gnu11 call_overhead.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*get_fn)(void*);   /* hipGetDevice(int*), cuCtxGetCurrent(CUcontext*) */
typedef int (*status_fn)(void);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char* path_of(void* h) {
    struct link_map* m = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &m) == 0 && m && m->l_name && m->l_name[0]) return m->l_name;
    return "?";
}

static void* sym(void* h, const char* lib, const char* name) {
    void* p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "call_overhead: %s has no %s\n", lib, name);
        exit(3);
    }
    return p;
}

/* Each loop checks the status (as a caller would) and keeps the device in a volatile sink. */
static volatile int sink;

static double time_get(get_fn f, long n) {
    long long out = 0;   /* room for an int or a handle */
    int bad = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) bad |= f(&out);
    double t = now() - t0;
    if (bad) { fprintf(stderr, "call_overhead: a Get call failed\n"); exit(4); }
    sink = (int)out;
    return t / (double)n * 1e9;
}

static double time_status(status_fn f, long n) {
    int bad = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) bad |= f();
    double t = now() - t0;
    sink = bad;
    return t / (double)n * 1e9;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(const double* sorted, int n) {
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s LAYER.so [CUDART[:CUDART...]] [N] [REPEAT]\n", argv[0]);
        return 2;
    }
    const char* layer_path = argv[1];
    const char* cudart_list = argc > 2 ? argv[2] : "";
    long n = argc > 3 ? atol(argv[3]) : 10000000L;
    int repeat = argc > 4 ? atoi(argv[4]) : 5;

    void* layer = dlopen(layer_path, RTLD_NOW | RTLD_LOCAL);
    if (!layer) { fprintf(stderr, "call_overhead: %s\n", dlerror()); return 3; }

    const char* sonames[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
    void* cudart = NULL;
    const char* how = "already loaded by the layer";
    for (int i = 0; sonames[i] && !cudart; i++) cudart = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
    if (!cudart && cudart_list[0]) {
        char* list = strdup(cudart_list);
        for (char* p = strtok(list, ":"); p && !cudart; p = strtok(NULL, ":")) cudart = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        free(list);
        how = "opened from the given path";
    }
    for (int i = 0; sonames[i] && !cudart; i++) {
        cudart = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        how = "opened by soname";
    }
    if (!cudart) { fprintf(stderr, "call_overhead: no CUDA runtime could be opened\n"); return 3; }

    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) { fprintf(stderr, "call_overhead: %s\n", dlerror()); return 3; }

    /* The pairs: the layer's function, CUDA's, and where CUDA's comes from. */
    enum { NPAIR = 3 };
    static const char* names[NPAIR][2] = {{"hipGetDevice", "cudaGetDevice"},
                                          {"hipPeekAtLastError", "cudaPeekAtLastError"},
                                          {"hipCtxGetCurrent", "cuCtxGetCurrent"}};
    void* from[NPAIR] = {cudart, cudart, driver};
    const int takes_out[NPAIR] = {1, 0, 1};
    void* fn[NPAIR][2];
    for (int i = 0; i < NPAIR; i++) {
        fn[i][0] = sym(layer, "layer", names[i][0]);
        fn[i][1] = sym(from[i], from[i] == driver ? "libcuda" : "cudart", names[i][1]);
    }

    /* Initialize both and make device 0's primary context current, as any program that has
     * allocated has it: without a current context cudart's cudaGetDevice takes ~0.8 us instead
     * of ~30 ns, and the layer's cost drowns in that. Then warm the caches. */
    typedef int (*set_device_fn)(int);
    typedef int (*free_fn)(void*);
    if (((set_device_fn)sym(layer, "layer", "hipSetDevice"))(0) != 0 ||
        ((free_fn)sym(layer, "layer", "hipFree"))(NULL) != 0 ||
        ((set_device_fn)sym(cudart, "cudart", "cudaSetDevice"))(0) != 0 ||
        ((free_fn)sym(cudart, "cudart", "cudaFree"))(NULL) != 0) {
        fprintf(stderr, "call_overhead: could not make device 0's context current\n");
        return 4;
    }
    for (int i = 0; i < NPAIR; i++)
        for (int j = 0; j < 2; j++)
            takes_out[i] ? time_get((get_fn)fn[i][j], n / 10 + 1) : time_status((status_fn)fn[i][j], n / 10 + 1);

    double best[NPAIR][2];
    double* diff[NPAIR];
    for (int i = 0; i < NPAIR; i++) {
        best[i][0] = best[i][1] = 1e300;
        diff[i] = calloc((size_t)repeat, sizeof(double));
    }
    for (int r = 0; r < repeat; r++) {
        for (int i = 0; i < NPAIR; i++) {
            double t[2];
            for (int k = 0; k < 2; k++) {
                int j = r % 2 ? 1 - k : k;
                t[j] = takes_out[i] ? time_get((get_fn)fn[i][j], n) : time_status((status_fn)fn[i][j], n);
                if (t[j] < best[i][j]) best[i][j] = t[j];
            }
            diff[i][r] = t[0] - t[1];
        }
    }
    printf("{\"layer\": \"%s\", \"cudart\": \"%s\", \"cudart_how\": \"%s\", \"driver\": \"%s\", "
           "\"calls\": %ld, \"repeat\": %d",
           path_of(layer), path_of(cudart), how, path_of(driver), n, repeat);
    for (int i = 0; i < NPAIR; i++) {
        qsort(diff[i], (size_t)repeat, sizeof(double), cmp_double);
        printf(", \"%s\": %.3f, \"%s\": %.3f, \"%s_median_diff\": %.3f",
               names[i][0], best[i][0], names[i][1], best[i][1], names[i][0], median(diff[i], repeat));
    }
    printf("}\n");
    return 0;
}
