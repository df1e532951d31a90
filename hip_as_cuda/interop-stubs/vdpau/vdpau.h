/* Stand-in for freedesktop's vdpau/vdpau.h, which a build machine need not have: only the types
 * CUDA's cudaVDPAU.h and cuda_vdpau_interop.h use (docs/alias.rst). */
#ifndef HIP_AS_CUDA_STUB_VDPAU_H
#define HIP_AS_CUDA_STUB_VDPAU_H
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
/* A function type, as in vdpau.h (its VdpStatus is an enum, its VdpFuncId a uint32_t): CUDA
 * takes a VdpGetProcAddress*, the function's address. */
typedef int VdpGetProcAddress(VdpDevice device, uint32_t function_id, void** function_pointer);
#endif
