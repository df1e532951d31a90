/* A library in HIP's style for the emitter golden tests (tests/codegen/golden): every function
 * returns a status enum, outputs go through pointers; one declaration per kind of
 * parameter and result the Python layer converts. */
#include <stddef.h>
#include <stdint.h>

typedef enum demoStatus { DEMO_SUCCESS = 0, DEMO_ERROR_INVALID = 1, DEMO_ERROR_NOT_SUPPORTED = 2 } demoStatus_t;
typedef enum demoMode { DEMO_MODE_SAFE = 0, DEMO_MODE_FAST = 1 } demoMode;
typedef enum demoPointerMode { DEMO_POINTER_MODE_HOST = 0, DEMO_POINTER_MODE_DEVICE = 1 } demoPointerMode;
enum { DEMO_MAX_DEVICES = 8 };

/* Handles: opaque structs, a struct the header defines, and a void* the spec calls a handle. */
typedef struct demoStream_st* demoStream_t;
typedef struct demoProgram_st* demoProgram_t;
typedef struct demoEvent { int id; } *demoEvent_t;
typedef void* demoBlas_t;
struct demoOpaque;

/* dim3-like: three extents a lone int may stand for (the spec gives the defaults). */
typedef struct demoDim { unsigned int x, y, z; } demoDim;
typedef struct { float x, y; } demoComplex;

/** Device information: every kind of field. */
typedef struct demoInfo {
    char name[16];                 /**< text */
    unsigned char uuid[16];
    char key[8];                   /**< data: binary_fields */
    int version;
    demoMode mode;
    demoStream_t stream;
    demoDim dims;
    double clock;
    _Bool enabled;
    const char* label;
    void (*hook)(int);
    union { int i; float f; } value;
    unsigned int flagA : 1;
    unsigned int flagB : 3;
    size_t sizes[2];
} demoInfo;

typedef void (*demoCallback_t)(demoStream_t stream, demoStatus_t status, void* userData);
typedef void (*demoHostFn_t)(void* userData);

#define DEMO_VERSION 3
#define DEMO_NAME "demo"
#define demoGetCountAlias demoGetCount
#define DEMO_OK DEMO_SUCCESS
#define DEMO_MAX DEMO_MAX_DEVICES

/* -- outputs ------------------------------------------------------------------------------ */
demoStatus_t demoGetCount(int* count);
demoStatus_t demoStreamCreate(demoStream_t* stream);
demoStatus_t demoEventCreate(demoEvent_t* event);
demoStatus_t demoMalloc(void** ptr, size_t size);
demoStatus_t demoHostAlloc(void** ptr, size_t size, unsigned int flags);
demoStatus_t demoGetName(const char** name, int id);
demoStatus_t demoGetMode(demoMode* mode);
demoStatus_t demoGetInfo(demoInfo* info, int device);
demoStatus_t demoGetStreams(demoStream_t* streams, int n);
demoStatus_t demoGetValues(unsigned long long* values, size_t n);
demoStatus_t demoGetSizes(size_t* total, double* ratio, int64_t* offset);
/* -- in and out ----------------------------------------------------------------------------- */
demoStatus_t demoExchangeMode(demoMode* mode);
demoStatus_t demoScale(double* value, int* counter);
/* -- the caller's value, by address ---------------------------------------------------------- */
demoStatus_t demoProgramDestroy(demoProgram_t* prog);
demoStatus_t demoRelease(size_t* n);
demoStatus_t demoFree(void** ptr);
/* -- inputs ------------------------------------------------------------------------------ */
demoStatus_t demoStreamDestroy(demoStream_t stream);
demoStatus_t demoBlasDestroy(demoBlas_t handle);
demoStatus_t demoLoad(const char* fname);
demoStatus_t demoCompile(demoProgram_t prog, int numOptions, const char** options);
demoStatus_t demoGetLog(demoProgram_t prog, char* log);
demoStatus_t demoLaunch(const void* f, demoDim grid, demoDim block, void** kernelParams, void** extra,
                        demoStream_t stream);
demoStatus_t demoWaitAll(const demoStream_t* streams, int n);
demoStatus_t demoSum(const int* values, int n, float* weights, const demoDim* dims);
demoStatus_t demoSetOptions(unsigned int numOptions, demoMode* options, void** optionValues);
demoStatus_t demoSetScale(float scale, double bias);
demoStatus_t demoSetLimits(unsigned int a, long b, size_t c, int8_t d, uint64_t e, _Bool flag, char ch,
                           unsigned short h);
demoStatus_t demoSetMode(demoMode mode);
demoStatus_t demoSetInfo(const demoInfo* info, demoInfo* update, struct demoOpaque* opaque);
demoStatus_t demoMemset(void* dst, int value, size_t n);
demoStatus_t demoMemcpy(void* dst, const void* src, size_t n);
demoStatus_t demoSetHook(void (*hook)(int), demoHostFn_t fn);
demoStatus_t demoAddCallback(demoStream_t stream, demoCallback_t callback, void* userData, unsigned int flags);
demoStatus_t demoLaunchHostFunc(demoStream_t stream, demoHostFn_t fn, void* userData);
/* -- numbers: a Python number in a local, or a pointer (device pointer mode) ------------------- */
demoStatus_t demoGetPointerMode(demoBlas_t handle, demoPointerMode* mode);
demoStatus_t demoAxpy(demoBlas_t handle, int n, const float* alpha, const float* x, float* y);
demoStatus_t demoZaxpy(demoBlas_t handle, int n, const demoComplex* alpha, const demoComplex* x, demoComplex* y);
demoStatus_t demoIaxpy(demoBlas_t handle, int n, const unsigned int* alpha, const void* beta);
demoStatus_t demoDot(demoBlas_t handle, int n, const float* x, const float* y, float* result);
demoStatus_t demoZdot(demoBlas_t handle, int n, const demoComplex* x, const demoComplex* y, demoComplex* result);
demoStatus_t demoIamax(demoBlas_t handle, int n, const float* x, demoMode* mode);
/* -- results other than the status ------------------------------------------------------------ */
const char* demoGetErrorString(demoStatus_t status);
void demoReset(void);
demoMode demoDefaultMode(void);
demoDim demoMakeDim(unsigned int x);
void* demoCurrentBuffer(void);
demoStream_t demoDefaultStream(void);
int demoVersion(void);
double demoClock(void);
unsigned long long demoTicks(void);
demoStatus_t demoStatusOf(int code);
/* -- not bound as they are ---------------------------------------------------------------------- */
__attribute__((deprecated("use demoGetCount"))) demoStatus_t demoDeviceCount(int* count);
int demoPrintf(const char* fmt, ...);
demoStatus_t demoInternal(void* state);
