/* Stand-in for Khronos' EGL/egl.h, which a build machine need not have: only the types CUDA's
 * cudaEGL.h and cuda_egl_interop.h use, as Khronos declares them (docs/alias.rst). */
#ifndef HIP_AS_CUDA_STUB_EGL_H
#define HIP_AS_CUDA_STUB_EGL_H
#include <stdint.h>
typedef int32_t EGLint;              /* khronos_int32_t */
#endif
