/* Stand-in for Khronos' EGL/eglext.h: the types CUDA's cudaEGL.h and cuda_egl_interop.h use
 * (EGL/egl.h says why). */
#ifndef HIP_AS_CUDA_STUB_EGLEXT_H
#define HIP_AS_CUDA_STUB_EGLEXT_H
#include <EGL/egl.h>
typedef void* EGLImageKHR;
typedef void* EGLStreamKHR;
typedef void* EGLSyncKHR;
#endif
