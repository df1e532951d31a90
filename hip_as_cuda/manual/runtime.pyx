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


# -- polymorphic graph node parameters: the runtime's cudaGraphNodeParams, as the driver's -------
# (manual/driver.pyx says why): the union member of `type` goes to the typed call the alias bridges.
# HIP has no execution contexts: a memset's, memcpy's or kernel's `ctx` other than NULL answers
# cudaErrorNotSupported, as do conditional nodes, a host sync mode and moved child graphs.

cdef inline void _kernel_v1(cudaKernelNodeParams* d, const cudaKernelNodeParamsV2* s) noexcept nogil:
    """CUDA 12.2's kernel parameters as the typed calls take them (func, kern and cuFunc share the
    union's one pointer)."""
    d.func, d.gridDim, d.blockDim, d.sharedMemBytes = s.func, s.gridDim, s.blockDim, s.sharedMemBytes
    d.kernelParams, d.extra = s.kernelParams, s.extra


cdef inline void _memset_v1(cudaMemsetParams* d, const cudaMemsetParamsV2* s) noexcept nogil:
    d.dst, d.pitch, d.value, d.elementSize, d.width, d.height = s.dst, s.pitch, s.value, s.elementSize, s.width, s.height


cdef inline int _no_hip_form(const cudaGraphNodeParams* p) noexcept nogil:
    """What the typed calls cannot say: an execution context, a host sync mode, a moved child graph."""
    if p.type == cudaGraphNodeTypeKernel:
        return p.kernel.ctx != NULL
    if p.type == cudaGraphNodeTypeMemset:
        return p.memset.ctx != NULL
    if p.type == cudaGraphNodeTypeMemcpy:
        return p.memcpy.ctx != NULL
    if p.type == cudaGraphNodeTypeHost:
        return p.host.syncMode != 0
    if p.type == cudaGraphNodeTypeGraph:
        return p.graph.ownership != cudaGraphChildGraphOwnershipClone
    return 0


cdef inline cudaError_t _unbridged_kind(int t) noexcept nogil:
    if 0 <= t <= <int>cudaGraphNodeTypeConditional:
        return cudaErrorNotSupported
    return cudaErrorInvalidValue


cdef cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData, size_t numDependencies, cudaGraphNodeParams* nodeParams) except? cudaErrorCallRequiresNewerDriver nogil:
    """The typed cudaGraphAdd*Node of nodeParams.type; edge data none (all zero or NULL)."""
    cdef cudaKernelNodeParams kernel
    cdef cudaMemsetParams memset_
    cdef cudaHostNodeParams host
    cdef cudaGraphNodeParams* p = nodeParams
    cdef int t
    if pGraphNode == NULL or p == NULL:
        return cudaErrorInvalidValue
    if dependencyData != NULL and not _zero_bytes(dependencyData, numDependencies * sizeof(cudaGraphEdgeData)):
        return cudaErrorNotSupported
    if _no_hip_form(p):
        return cudaErrorNotSupported
    t = p.type
    if t == cudaGraphNodeTypeKernel:
        _kernel_v1(&kernel, &p.kernel)
        return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &kernel)
    if t == cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &p.memcpy.copyParams)
    if t == cudaGraphNodeTypeMemset:
        _memset_v1(&memset_, &p.memset)
        return cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &memset_)
    if t == cudaGraphNodeTypeHost:
        host.fn, host.userData = p.host.fn, p.host.userData
        return cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, &host)
    if t == cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, p.graph.graph)
    if t == cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies)
    if t == cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, p.eventWait.event)
    if t == cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies, p.eventRecord.event)
    if t == cudaGraphNodeTypeExtSemaphoreSignal:
        return cudaGraphAddExternalSemaphoresSignalNode(pGraphNode, graph, pDependencies, numDependencies,
                                                        <const cudaExternalSemaphoreSignalNodeParams*>&p.extSemSignal)
    if t == cudaGraphNodeTypeExtSemaphoreWait:
        return cudaGraphAddExternalSemaphoresWaitNode(pGraphNode, graph, pDependencies, numDependencies,
                                                      <const cudaExternalSemaphoreWaitNodeParams*>&p.extSemWait)
    if t == cudaGraphNodeTypeMemAlloc:     # fills alloc.dptr, as CUDA's does
        return cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies,
                                        <cudaMemAllocNodeParams*>&p.alloc)
    if t == cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies, p.free.dptr)
    return _unbridged_kind(t)


cdef cudaError_t _node_type(cudaGraphNode_t node, const void* params, cudaGraphNodeType* t) except? cudaErrorCallRequiresNewerDriver nogil:
    """cudaErrorInvalidValue for NULL parameters, else cudaGraphNodeGetType's status and type."""
    if params == NULL:
        return cudaErrorInvalidValue
    return cudaGraphNodeGetType(node, t)


cdef cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* nodeParams) except? cudaErrorCallRequiresNewerDriver nogil:
    """The typed cudaGraph*NodeSetParams (or Set*Event) of nodeParams.type, which must be the node's."""
    cdef cudaKernelNodeParams kernel
    cdef cudaMemsetParams memset_
    cdef cudaHostNodeParams host
    cdef cudaGraphNodeParams* p = nodeParams
    cdef cudaGraphNodeType actual
    cdef cudaError_t r
    cdef int t
    r = _node_type(node, p, &actual)
    if r != cudaSuccess:
        return r
    t = p.type
    if t != actual:
        return cudaErrorInvalidValue
    if _no_hip_form(p):
        return cudaErrorNotSupported
    if t == cudaGraphNodeTypeKernel:
        _kernel_v1(&kernel, &p.kernel)
        return cudaGraphKernelNodeSetParams(node, &kernel)
    if t == cudaGraphNodeTypeMemcpy:
        return cudaGraphMemcpyNodeSetParams(node, &p.memcpy.copyParams)
    if t == cudaGraphNodeTypeMemset:
        _memset_v1(&memset_, &p.memset)
        return cudaGraphMemsetNodeSetParams(node, &memset_)
    if t == cudaGraphNodeTypeHost:
        host.fn, host.userData = p.host.fn, p.host.userData
        return cudaGraphHostNodeSetParams(node, &host)
    if t == cudaGraphNodeTypeWaitEvent:
        return cudaGraphEventWaitNodeSetEvent(node, p.eventWait.event)
    if t == cudaGraphNodeTypeEventRecord:
        return cudaGraphEventRecordNodeSetEvent(node, p.eventRecord.event)
    if t == cudaGraphNodeTypeExtSemaphoreSignal:
        return cudaGraphExternalSemaphoresSignalNodeSetParams(node, <const cudaExternalSemaphoreSignalNodeParams*>&p.extSemSignal)
    if t == cudaGraphNodeTypeExtSemaphoreWait:
        return cudaGraphExternalSemaphoresWaitNodeSetParams(node, <const cudaExternalSemaphoreWaitNodeParams*>&p.extSemWait)
    return _unbridged_kind(t)


cdef cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node, cudaGraphNodeParams* nodeParams) except? cudaErrorCallRequiresNewerDriver nogil:
    """The typed cudaGraphExec*NodeSetParams (or Set*Event) of nodeParams.type."""
    cdef cudaKernelNodeParams kernel
    cdef cudaMemsetParams memset_
    cdef cudaHostNodeParams host
    cdef cudaGraphNodeParams* p = nodeParams
    cdef int t
    if p == NULL:
        return cudaErrorInvalidValue
    if _no_hip_form(p):
        return cudaErrorNotSupported
    t = p.type
    if t == cudaGraphNodeTypeKernel:
        _kernel_v1(&kernel, &p.kernel)
        return cudaGraphExecKernelNodeSetParams(graphExec, node, &kernel)
    if t == cudaGraphNodeTypeMemcpy:
        return cudaGraphExecMemcpyNodeSetParams(graphExec, node, &p.memcpy.copyParams)
    if t == cudaGraphNodeTypeMemset:
        _memset_v1(&memset_, &p.memset)
        return cudaGraphExecMemsetNodeSetParams(graphExec, node, &memset_)
    if t == cudaGraphNodeTypeHost:
        host.fn, host.userData = p.host.fn, p.host.userData
        return cudaGraphExecHostNodeSetParams(graphExec, node, &host)
    if t == cudaGraphNodeTypeGraph:
        return cudaGraphExecChildGraphNodeSetParams(graphExec, node, p.graph.graph)
    if t == cudaGraphNodeTypeWaitEvent:
        return cudaGraphExecEventWaitNodeSetEvent(graphExec, node, p.eventWait.event)
    if t == cudaGraphNodeTypeEventRecord:
        return cudaGraphExecEventRecordNodeSetEvent(graphExec, node, p.eventRecord.event)
    if t == cudaGraphNodeTypeExtSemaphoreSignal:
        return cudaGraphExecExternalSemaphoresSignalNodeSetParams(graphExec, node,
                                                                  <const cudaExternalSemaphoreSignalNodeParams*>&p.extSemSignal)
    if t == cudaGraphNodeTypeExtSemaphoreWait:
        return cudaGraphExecExternalSemaphoresWaitNodeSetParams(graphExec, node,
                                                                <const cudaExternalSemaphoreWaitNodeParams*>&p.extSemWait)
    return _unbridged_kind(t)


cdef cudaError_t cudaGraphNodeGetParams(cudaGraphNode_t node, cudaGraphNodeParams* nodeParams) except? cudaErrorCallRequiresNewerDriver nogil:
    """The node's type and the typed getter's parameters in its union member (the rest zero; a
    child graph's ownership Invalid, as CUDA's query gives it)."""
    cdef cudaKernelNodeParams kernel
    cdef cudaMemsetParams memset_
    cdef cudaHostNodeParams host
    cdef cudaGraphNodeParams* p = nodeParams
    cdef cudaGraphNodeType t
    cdef cudaError_t r
    r = _node_type(node, p, &t)
    if r != cudaSuccess:
        return r
    memset(p, 0, sizeof(cudaGraphNodeParams))
    p.type = t
    if t == cudaGraphNodeTypeKernel:
        memset(&kernel, 0, sizeof(cudaKernelNodeParams))
        r = cudaGraphKernelNodeGetParams(node, &kernel)
        p.kernel.func, p.kernel.gridDim, p.kernel.blockDim = kernel.func, kernel.gridDim, kernel.blockDim
        p.kernel.sharedMemBytes, p.kernel.kernelParams, p.kernel.extra = kernel.sharedMemBytes, kernel.kernelParams, kernel.extra
        return r
    if t == cudaGraphNodeTypeMemcpy:
        return cudaGraphMemcpyNodeGetParams(node, &p.memcpy.copyParams)
    if t == cudaGraphNodeTypeMemset:
        memset(&memset_, 0, sizeof(cudaMemsetParams))
        r = cudaGraphMemsetNodeGetParams(node, &memset_)
        p.memset.dst, p.memset.pitch, p.memset.value = memset_.dst, memset_.pitch, memset_.value
        p.memset.elementSize, p.memset.width, p.memset.height = memset_.elementSize, memset_.width, memset_.height
        return r
    if t == cudaGraphNodeTypeHost:
        memset(&host, 0, sizeof(cudaHostNodeParams))
        r = cudaGraphHostNodeGetParams(node, &host)
        p.host.fn, p.host.userData = host.fn, host.userData
        return r
    if t == cudaGraphNodeTypeGraph:
        p.graph.ownership = cudaGraphChildGraphOwnershipInvalid
        return cudaGraphChildGraphNodeGetGraph(node, &p.graph.graph)
    if t == cudaGraphNodeTypeEmpty:
        return cudaSuccess
    if t == cudaGraphNodeTypeWaitEvent:
        return cudaGraphEventWaitNodeGetEvent(node, &p.eventWait.event)
    if t == cudaGraphNodeTypeEventRecord:
        return cudaGraphEventRecordNodeGetEvent(node, &p.eventRecord.event)
    if t == cudaGraphNodeTypeExtSemaphoreSignal:
        return cudaGraphExternalSemaphoresSignalNodeGetParams(node, <cudaExternalSemaphoreSignalNodeParams*>&p.extSemSignal)
    if t == cudaGraphNodeTypeExtSemaphoreWait:
        return cudaGraphExternalSemaphoresWaitNodeGetParams(node, <cudaExternalSemaphoreWaitNodeParams*>&p.extSemWait)
    if t == cudaGraphNodeTypeMemAlloc:
        return cudaGraphMemAllocNodeGetParams(node, <cudaMemAllocNodeParams*>&p.alloc)
    if t == cudaGraphNodeTypeMemFree:
        return cudaGraphMemFreeNodeGetParams(node, &p.free.dptr)
    return _unbridged_kind(t)
