# Hand-written end of cyruntime.pxd (codegen.alias appends it): cuda.bindings' cyruntime functions
# that cuda_runtime_api.h does not declare, defined in hip_as_cuda/manual/runtime.pyx.
cdef cudaPitchedPtr make_cudaPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) except* nogil
cdef cudaPos make_cudaPos(size_t x, size_t y, size_t z) except* nogil
cdef cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) except* nogil
cdef cudaError_t getLocalRuntimeVersion(int* runtimeVersion) except? cudaErrorCallRequiresNewerDriver nogil
