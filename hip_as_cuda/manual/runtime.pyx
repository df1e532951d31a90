# Hand-written part of cyruntime (codegen.alias puts it into the generated cyruntime.pyx; the spec's
# bridge.manual says why each function is here).
from libc.string cimport memset

include "manual/_common.pxi"

cdef extern from "_bridge_runtime.c":
    int _rt_status "hipnv_cudaError_from_hipError_t"(int, int*) nogil


cdef cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) except? cudaErrorCallRequiresNewerDriver nogil:
    """HIP 6.4 has no peer 3D copy, but its 3D copy takes any two addresses of the unified
    address space (CUDA's devices only say whose they are): the same copy through cudaMemcpy3D,
    of kind cudaMemcpyDefault."""
    return _peer_copy(p, NULL, False)


cdef cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) except? cudaErrorCallRequiresNewerDriver nogil:
    """cudaMemcpy3DPeer's copy, through cudaMemcpy3DAsync on stream."""
    return _peer_copy(p, stream, True)


cdef cudaError_t _peer_copy(const cudaMemcpy3DPeerParms* p, cudaStream_t stream, bint on_stream) except? cudaErrorCallRequiresNewerDriver nogil:
    cdef cudaMemcpy3DParms c
    if p == NULL:
        return cudaErrorInvalidValue
    memset(&c, 0, sizeof(cudaMemcpy3DParms))
    c.srcArray, c.srcPos, c.srcPtr = p.srcArray, p.srcPos, p.srcPtr
    c.dstArray, c.dstPos, c.dstPtr = p.dstArray, p.dstPos, p.dstPtr
    c.extent, c.kind = p.extent, cudaMemcpyDefault
    return _b_cudaMemcpy3DAsync(&c, stream) if on_stream else _b_cudaMemcpy3D(&c)


# CUDA's deprecated 1D array copies (count bytes from an offset), which HIP 6.4 declares only
# synchronously or not at all: the 2D copy of one row `count` wide. A count past the row's end
# (CUDA wraps to the next row) is refused by the 2D copy with cudaErrorInvalidValue, not copied
# short.
cdef cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count, cudaMemcpyKind kind) except? cudaErrorCallRequiresNewerDriver nogil:
    """The 2D array-to-array copy of one row `count` bytes wide."""
    return _b_cudaMemcpy2DArrayToArray(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, 1, kind)


cdef cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) except? cudaErrorCallRequiresNewerDriver nogil:
    """The 2D copy to an array of one row `count` bytes wide, on `stream`."""
    return _b_cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, count, count, 1, kind, stream)


cdef cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind, cudaStream_t stream) except? cudaErrorCallRequiresNewerDriver nogil:
    """The 2D copy from an array of one row `count` bytes wide, on `stream`."""
    return _b_cudaMemcpy2DFromArrayAsync(dst, count, src, wOffset, hOffset, count, 1, kind, stream)


# driver_functions.h's inline constructors, which cuda.bindings' cyruntime exports as functions.
cdef cudaPitchedPtr make_cudaPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) except* nogil:
    cdef cudaPitchedPtr s
    s.ptr, s.pitch, s.xsize, s.ysize = d, p, xsz, ysz
    return s


cdef cudaPos make_cudaPos(size_t x, size_t y, size_t z) except* nogil:
    cdef cudaPos s
    s.x, s.y, s.z = x, y, z
    return s


cdef cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) except* nogil:
    cdef cudaExtent s
    s.width, s.height, s.depth = w, h, d
    return s


cdef cudaError_t getLocalRuntimeVersion(int* runtimeVersion) except? cudaErrorCallRequiresNewerDriver nogil:
    """cuda.bindings' version of the CUDA runtime library it loaded: here, the runtime the alias
    answers as (cudaRuntimeGetVersion's)."""
    return cudaRuntimeGetVersion(runtimeVersion)


cdef cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo* resultInfo) except? cudaErrorCallRequiresNewerDriver nogil:
    """HIP's result and failing node, as CUDA's record (_common.pxi)."""
    if resultInfo == NULL:
        return cudaErrorInvalidValue
    return <cudaError_t>_exec_update(<void*>hGraphExec, <void*>hGraph, <int*>&resultInfo.result,
                                     <void**>&resultInfo.errorNode, <void**>&resultInfo.errorFromNode, _rt_status,
                                     cudaErrorCallRequiresNewerDriver, cudaErrorUnknown)
