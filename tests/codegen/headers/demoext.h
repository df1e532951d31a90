/* A library built on demo.h (tests/codegen/golden): its types in another library's functions. */
#include "demo.h"

typedef enum demoextStatus { DEMOEXT_STATUS_SUCCESS = 0, DEMOEXT_STATUS_FAILED = 3 } demoextStatus_t;
typedef struct demoextContext* demoextContext_t;
typedef demoDim demoextExtent;
typedef demoMode demoextMode;

typedef struct demoextPlan {
    demoDim grid;
    demoMode mode;
    demoStream_t stream;
    demoextContext_t context;
} demoextPlan;

#define demoextMakeDim demoMakeDim
#define DEMOEXT_MODE_FAST DEMO_MODE_FAST

demoextStatus_t demoextCreate(demoextContext_t* ctx, demoStream_t stream);
demoextStatus_t demoextSetStream(demoextContext_t ctx, demoStream_t stream, demoMode mode);
demoextStatus_t demoextGetStream(demoextContext_t ctx, demoStream_t* stream, demoMode* mode);
demoextStatus_t demoextRun(demoextContext_t ctx, demoDim grid, const demoextPlan* plan, demoextPlan* out);
demoextStatus_t demoextGetPlan(demoextContext_t ctx, demoextPlan* plan);
demoStatus_t demoextLegacy(demoextContext_t ctx);
const char* demoextStatusString(demoextStatus_t status);
