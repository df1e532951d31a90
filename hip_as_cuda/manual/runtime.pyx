# Hand-written part of cyruntime (codegen.alias puts it into the generated cyruntime.pyx; the spec's
# bridge.manual says why each function is here).
from libc.string cimport memset


cdef cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) except? <cudaError_t>-1 nogil:
    """HIP 6.4 has no peer 3D copy, but its 3D copy takes any two addresses of the unified
    address space (CUDA's devices only say whose they are): the same copy through cudaMemcpy3D,
    of kind cudaMemcpyDefault."""
    cdef cudaMemcpy3DParms c
    if p == NULL:
        return cudaErrorInvalidValue
    _peer_as_3d(p, &c)
    return _b_cudaMemcpy3D(&c)


cdef cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) except? <cudaError_t>-1 nogil:
    """cudaMemcpy3DPeer's copy, through cudaMemcpy3DAsync on stream."""
    cdef cudaMemcpy3DParms c
    if p == NULL:
        return cudaErrorInvalidValue
    _peer_as_3d(p, &c)
    return _b_cudaMemcpy3DAsync(&c, stream)


cdef inline void _peer_as_3d(const cudaMemcpy3DPeerParms* p, cudaMemcpy3DParms* c) noexcept nogil:
    memset(c, 0, sizeof(cudaMemcpy3DParms))
    c.srcArray, c.srcPos, c.srcPtr = p.srcArray, p.srcPos, p.srcPtr
    c.dstArray, c.dstPos, c.dstPtr = p.dstArray, p.dstPos, p.dstPtr
    c.extent, c.kind = p.extent, cudaMemcpyDefault
