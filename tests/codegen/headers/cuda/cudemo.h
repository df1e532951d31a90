/* The CUDA-side counterpart of demo.h for the NVIDIA layer's golden test (tests/codegen/golden):
 * enumerators with other values, structs with other layouts, an int handle, a void result. */
#include <stddef.h>

typedef enum cudemoStatus_enum { CUDEMO_SUCCESS = 0, CUDEMO_ERROR_NOT_SUPPORTED = 7, CUDEMO_ERROR_INVALID = 9 } cudemoStatus_t;
typedef enum cudemoMode { CUDEMO_MODE_FAST = 0, CUDEMO_MODE_SAFE = 1 } cudemoMode;
typedef enum cudemoPointerMode { CUDEMO_POINTER_MODE_HOST = 0, CUDEMO_POINTER_MODE_DEVICE = 1 } cudemoPointerMode;
typedef struct CUdemoStream_st* cudemoStream_t;
typedef int cudemoBlas_t;
typedef struct cudemoDim { unsigned int x, y, z, pad; } cudemoDim;
typedef struct cudemoInfo { int version; char name[16]; } cudemoInfo;

cudemoStatus_t cudemoGetCount(int* count);
cudemoStatus_t cudemoStreamCreate(cudemoStream_t* stream);
cudemoStatus_t cudemoStreamDestroy(cudemoStream_t stream);
cudemoStatus_t cudemoMalloc(void** ptr, size_t size);
cudemoStatus_t cudemoAllocHost(void** ptr, size_t size);
cudemoStatus_t cudemoGetMode(cudemoMode* mode);
cudemoStatus_t cudemoSetMode(cudemoMode mode);
cudemoStatus_t cudemoExchangeMode(cudemoMode* mode);
cudemoStatus_t cudemoGetInfo(cudemoInfo* info, int device);
cudemoStatus_t cudemoLaunch(const void* f, cudemoDim grid, cudemoDim block, void** kernelParams, void** extra,
                            cudemoStream_t stream);
cudemoStatus_t cudemoGetPointerMode(cudemoBlas_t handle, cudemoPointerMode* mode);
void cudemoBlasDestroy(cudemoBlas_t handle);
cudemoStatus_t cudemoSum(const int* values, int n, float* weights);
cudemoStatus_t cudemoStatusOf(int code);
cudemoDim cudemoMakeDim(unsigned int x);
void cudemoReset(void);
int cudemoVersion(void);
