/* The version the generator stamps on what it writes from these headers (hip/hip_version.h in ROCm). */
#define HIP_VERSION_MAJOR 0
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
