/* Stand-in for OpenGL's GL/gl.h, which a build machine need not have: only the types CUDA's
 * cudaGL.h and cuda_gl_interop.h and HIP's hip/hip_gl_interop.h use (docs/alias.rst). */
#ifndef HIP_AS_CUDA_STUB_GL_H
#define HIP_AS_CUDA_STUB_GL_H
typedef unsigned int GLenum;
typedef unsigned int GLuint;
#endif
