# Hand-written part of cydriver (codegen.alias puts it into the generated cydriver.pyx; the spec's
# bridge.manual says why each function is here).
from libc.string cimport memset

include "manual/_common.pxi"

cdef extern from "_bridge_driver.c":
    int _cu_status "hipnv_cudaError_enum_from_hipError_t"(int, int*) nogil

ctypedef const char* (*_name_ref_t)(void*) noexcept nogil
cdef void* _kernel_name_ref = NULL      # hipKernelNameRef, for cuFuncGetName


cdef CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) except? CUDA_ERROR_NOT_FOUND nogil:
    """HIP 6.4 has no launch taking attributes (hipDrvLaunchKernelEx came later); what HIP's two
    module launches express is bridged to them: no attribute (or IGNORE entries, or COOPERATIVE 0)
    is cuLaunchKernel's launch, COOPERATIVE nonzero is cuLaunchCooperativeKernel's (which takes no
    `extra`). Any other attribute answers CUDA_ERROR_NOT_SUPPORTED."""
    cdef bint cooperative = False
    cdef unsigned int i
    if config == NULL or (config.numAttrs > 0 and config.attrs == NULL):
        return CUDA_ERROR_INVALID_VALUE
    for i in range(config.numAttrs):
        if config.attrs[i].id == CU_LAUNCH_ATTRIBUTE_IGNORE:
            continue
        if config.attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            cooperative = config.attrs[i].value.cooperative != 0
            continue
        return CUDA_ERROR_NOT_SUPPORTED
    if cooperative:
        if extra != NULL:
            return CUDA_ERROR_NOT_SUPPORTED
        return _b_cuLaunchCooperativeKernel(f, config.gridDimX, config.gridDimY, config.gridDimZ, config.blockDimX,
                                            config.blockDimY, config.blockDimZ, config.sharedMemBytes,
                                            config.hStream, kernelParams)
    return _b_cuLaunchKernel(f, config.gridDimX, config.gridDimY, config.gridDimZ, config.blockDimX,
                             config.blockDimY, config.blockDimZ, config.sharedMemBytes, config.hStream,
                             kernelParams, extra)


cdef CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER* pCopy) except? CUDA_ERROR_NOT_FOUND nogil:
    """HIP 6.4 has no peer 3D copy, but its 3D copy takes any two addresses of the unified
    address space (CUDA's contexts only say whose they are): the same copy through cuMemcpy3D."""
    return _peer_copy(pCopy, NULL, False)


cdef CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER* pCopy, CUstream hStream) except? CUDA_ERROR_NOT_FOUND nogil:
    """cuMemcpy3DPeer's copy, through cuMemcpy3DAsync on hStream."""
    return _peer_copy(pCopy, hStream, True)


cdef CUresult _peer_copy(const CUDA_MEMCPY3D_PEER* p, CUstream stream, bint on_stream) except? CUDA_ERROR_NOT_FOUND nogil:
    cdef CUDA_MEMCPY3D c
    if p == NULL:
        return CUDA_ERROR_INVALID_VALUE
    memset(&c, 0, sizeof(CUDA_MEMCPY3D))
    c.srcXInBytes, c.srcY, c.srcZ, c.srcLOD = p.srcXInBytes, p.srcY, p.srcZ, p.srcLOD
    c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray = p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray
    c.srcPitch, c.srcHeight = p.srcPitch, p.srcHeight
    c.dstXInBytes, c.dstY, c.dstZ, c.dstLOD = p.dstXInBytes, p.dstY, p.dstZ, p.dstLOD
    c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray = p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray
    c.dstPitch, c.dstHeight = p.dstPitch, p.dstHeight
    c.WidthInBytes, c.Height, c.Depth = p.WidthInBytes, p.Height, p.Depth
    return _b_cuMemcpy3DAsync_v2(&c, stream) if on_stream else _b_cuMemcpy3D_v2(&c)


cdef CUresult cuFuncGetName(const char** name, CUfunction hfunc) except? CUDA_ERROR_NOT_FOUND nogil:
    """HIP returns a module function's name (hipKernelNameRef; NULL when it has none) where CUDA
    writes it through `name` and answers with a status."""
    cdef void* f
    if name == NULL or hfunc == NULL:
        return CUDA_ERROR_INVALID_VALUE
    f = _hip_function(&_kernel_name_ref, "hipKernelNameRef")
    if f == NULL:
        return CUDA_ERROR_NOT_FOUND   # the except? value: the resolver has set the Python error
    name[0] = (<_name_ref_t>f)(<void*>hfunc)
    return CUDA_SUCCESS if name[0] != NULL else CUDA_ERROR_INVALID_HANDLE


# -- libraries and kernels: a CUlibrary is a module, a CUkernel its function ------------------
# HIP 6.4 has no context-independent loading (hipLibrary* came later): a library is loaded as a
# module of the current context's device, and its kernels are that module's functions, which
# every launch and attribute call takes as they are (CUDA takes a CUkernel where a CUfunction
# goes, cast). Library options (the binary's lifetime, host-side tables) have no HIP counterpart
# and change nothing a program can observe here; they are accepted and unused.
cdef CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions, void** jitOptionsValues, unsigned int numJitOptions, CUlibraryOption* libraryOptions, void** libraryOptionValues, unsigned int numLibraryOptions) except? CUDA_ERROR_NOT_FOUND nogil:
    if library == NULL or code == NULL:
        return CUDA_ERROR_INVALID_VALUE
    return cuModuleLoadDataEx(<CUmodule*>library, code, numJitOptions, jitOptions, jitOptionsValues)


cdef CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option* jitOptions, void** jitOptionsValues, unsigned int numJitOptions, CUlibraryOption* libraryOptions, void** libraryOptionValues, unsigned int numLibraryOptions) except? CUDA_ERROR_NOT_FOUND nogil:
    if library == NULL or fileName == NULL:
        return CUDA_ERROR_INVALID_VALUE
    return cuModuleLoad(<CUmodule*>library, fileName)


cdef CUresult cuLibraryUnload(CUlibrary library) except? CUDA_ERROR_NOT_FOUND nogil:
    if library == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuModuleUnload(<CUmodule>library)


cdef CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) except? CUDA_ERROR_NOT_FOUND nogil:
    if pKernel == NULL or name == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if library == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuModuleGetFunction(<CUfunction*>pKernel, <CUmodule>library, name)


cdef CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) except? CUDA_ERROR_NOT_FOUND nogil:
    return _same_handle(<void**>pMod, <void*>library)


cdef CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* numbytes, CUlibrary library, const char* name) except? CUDA_ERROR_NOT_FOUND nogil:
    if library == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuModuleGetGlobal(dptr, numbytes, <CUmodule>library, name)


cdef CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) except? CUDA_ERROR_NOT_FOUND nogil:
    return _same_handle(<void**>pFunc, <void*>kernel)


cdef inline CUresult _same_handle(void** out, void* handle) noexcept nogil:
    """A library's module, a kernel's function: the handle itself, through `out`."""
    if out == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if handle == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    out[0] = handle
    return CUDA_SUCCESS


cdef CUresult cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) except? CUDA_ERROR_NOT_FOUND nogil:
    if kernel == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuFuncGetAttribute(pi, attrib, <CUfunction>kernel)


cdef CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) except? CUDA_ERROR_NOT_FOUND nogil:
    if kernel == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuFuncSetAttribute(<CUfunction>kernel, attrib, val)


cdef CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) except? CUDA_ERROR_NOT_FOUND nogil:
    if kernel == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuFuncSetCacheConfig(<CUfunction>kernel, config)


cdef CUresult cuKernelGetName(const char** name, CUkernel hfunc) except? CUDA_ERROR_NOT_FOUND nogil:
    return cuFuncGetName(name, <CUfunction>hfunc)


cdef CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo* resultInfo) except? CUDA_ERROR_NOT_FOUND nogil:
    """HIP's result and failing node, as CUDA's record (_common.pxi)."""
    if resultInfo == NULL:
        return CUDA_ERROR_INVALID_VALUE
    return <CUresult>_exec_update(<void*>hGraphExec, <void*>hGraph, <int*>&resultInfo.result,
                                  <void**>&resultInfo.errorNode, <void**>&resultInfo.errorFromNode, _cu_status,
                                  CUDA_ERROR_NOT_FOUND, CUDA_ERROR_UNKNOWN)


# -- surface objects: HIP 6.4 creates them from the runtime's resource descriptor only -----------
cdef extern from *:
    """
    /* hipResourceDesc's layout (hip/driver_types.h) as far as an array resource reads it: the
       resource type, then the union at pointer alignment, whose array member is the handle. */
    typedef struct { int resType; union { void* array; char whole[56]; } res; } hipcuda_array_resource;
    """
    ctypedef struct hipcuda_array_resource:
        int resType
    void hipcuda_set_array "hipcuda_set_array_"(hipcuda_array_resource*, void*) nogil

cdef extern from *:
    """
    static void hipcuda_set_array_(hipcuda_array_resource* d, void* array) {
        memset(d, 0, sizeof *d); d->resType = 0 /* hipResourceTypeArray */; d->res.array = array;
    }
    """

ctypedef int (*_surface_create_t)(unsigned long long*, const hipcuda_array_resource*) noexcept nogil
cdef void* _create_surface = NULL       # hipCreateSurfaceObject


cdef CUresult cuSurfObjectCreate(CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc) except? CUDA_ERROR_NOT_FOUND nogil:
    """CUDA's driver describes the surface's array with its own resource descriptor, HIP with the
    runtime's (hipCreateSurfaceObject). A surface is an array resource with flags 0 (CUDA
    refuses anything else): that descriptor, written in HIP's."""
    cdef void* f
    cdef hipcuda_array_resource d
    cdef unsigned long long obj = 0
    cdef int ok = 1, r
    if pSurfObject == NULL or pResDesc == NULL or pResDesc.resType != CU_RESOURCE_TYPE_ARRAY \
            or pResDesc.flags != 0 or pResDesc.res.array.hArray == NULL:
        return CUDA_ERROR_INVALID_VALUE
    f = _hip_function(&_create_surface, "hipCreateSurfaceObject")
    if f == NULL:
        return CUDA_ERROR_NOT_FOUND   # the except? value: the resolver has set the Python error
    hipcuda_set_array(&d, <void*>pResDesc.res.array.hArray)
    r = (<_surface_create_t>f)(&obj, &d)
    r = _cu_status(r, &ok)
    if r == 0:
        pSurfObject[0] = <CUsurfObject>obj
    return <CUresult>r if ok else CUDA_ERROR_UNKNOWN


# -- polymorphic graph node parameters: a CUgraphNodeParams is one typed node's parameters ------
# HIP 6.4's hipGraphAddNode takes hipGraphNodeParams, whose kinds are not CUDA's (its memcpy is the
# runtime's 3D copy, CUDA's the driver's), and our HIP-on-CUDA layer has no hipGraphAddNode. Every
# kind HIP has is a typed call the alias bridges: the union member, by `type`, goes to that call.
# A kind HIP lacks (conditional nodes) answers CUDA_ERROR_NOT_SUPPORTED; a `type` no kind has,
# CUDA_ERROR_INVALID_VALUE.

cdef CUresult cuGraphAddNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, const CUgraphEdgeData* dependencyData, size_t numDependencies, CUgraphNodeParams* nodeParams) except? CUDA_ERROR_NOT_FOUND nogil:
    """The typed cuGraphAdd*Node of nodeParams.type; edge data as the typed calls take it: none
    (all zero or NULL; HIP's edges carry none)."""
    cdef CUDA_MEMSET_NODE_PARAMS memset_
    cdef CUDA_HOST_NODE_PARAMS host
    cdef CUgraphNodeParams* p = nodeParams
    cdef int t
    if phGraphNode == NULL or p == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if dependencyData != NULL and not _zero_bytes(dependencyData, numDependencies * sizeof(CUgraphEdgeData)):
        return CUDA_ERROR_NOT_SUPPORTED
    t = p.type
    if t == CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphAddKernelNode(phGraphNode, hGraph, dependencies, numDependencies,
                                    <const CUDA_KERNEL_NODE_PARAMS*>&p.kernel)
    if t == CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphAddMemcpyNode(phGraphNode, hGraph, dependencies, numDependencies, &p.memcpy.copyParams,
                                    p.memcpy.copyCtx)
    if t == CU_GRAPH_NODE_TYPE_MEMSET:
        _memset_v1(&memset_, &p.memset)
        return cuGraphAddMemsetNode(phGraphNode, hGraph, dependencies, numDependencies, &memset_, p.memset.ctx)
    if t == CU_GRAPH_NODE_TYPE_HOST:
        if p.host.syncMode != 0:      # HIP's host nodes have no synchronization mode
            return CUDA_ERROR_NOT_SUPPORTED
        host.fn, host.userData = p.host.fn, p.host.userData
        return cuGraphAddHostNode(phGraphNode, hGraph, dependencies, numDependencies, &host)
    if t == CU_GRAPH_NODE_TYPE_GRAPH:
        if p.graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE:   # HIP's child nodes clone
            return CUDA_ERROR_NOT_SUPPORTED
        return cuGraphAddChildGraphNode(phGraphNode, hGraph, dependencies, numDependencies, p.graph.graph)
    if t == CU_GRAPH_NODE_TYPE_EMPTY:
        return cuGraphAddEmptyNode(phGraphNode, hGraph, dependencies, numDependencies)
    if t == CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphAddEventWaitNode(phGraphNode, hGraph, dependencies, numDependencies, p.eventWait.event)
    if t == CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphAddEventRecordNode(phGraphNode, hGraph, dependencies, numDependencies, p.eventRecord.event)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
        return cuGraphAddExternalSemaphoresSignalNode(phGraphNode, hGraph, dependencies, numDependencies,
                                                      <const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS*>&p.extSemSignal)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        return cuGraphAddExternalSemaphoresWaitNode(phGraphNode, hGraph, dependencies, numDependencies,
                                                    <const CUDA_EXT_SEM_WAIT_NODE_PARAMS*>&p.extSemWait)
    if t == CU_GRAPH_NODE_TYPE_MEM_ALLOC:     # fills alloc.dptr, as CUDA's does
        return cuGraphAddMemAllocNode(phGraphNode, hGraph, dependencies, numDependencies,
                                      <CUDA_MEM_ALLOC_NODE_PARAMS*>&p.alloc)
    if t == CU_GRAPH_NODE_TYPE_MEM_FREE:
        return cuGraphAddMemFreeNode(phGraphNode, hGraph, dependencies, numDependencies, p.free.dptr)
    if t == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return cuGraphAddBatchMemOpNode(phGraphNode, hGraph, dependencies, numDependencies,
                                        <const CUDA_BATCH_MEM_OP_NODE_PARAMS*>&p.memOp)
    return _unbridged_kind(t)


cdef CUresult _node_type(CUgraphNode hNode, const void* params, CUgraphNodeType* t) except? CUDA_ERROR_NOT_FOUND nogil:
    """CUDA_ERROR_INVALID_VALUE for NULL parameters, else cuGraphNodeGetType's status and type."""
    if params == NULL:
        return CUDA_ERROR_INVALID_VALUE
    return cuGraphNodeGetType(hNode, t)


cdef CUresult cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams* nodeParams) except? CUDA_ERROR_NOT_FOUND nogil:
    """The typed cuGraph*NodeSetParams (or Set*Event) of nodeParams.type, which must be the node's."""
    cdef CUDA_MEMSET_NODE_PARAMS memset_
    cdef CUDA_HOST_NODE_PARAMS host
    cdef CUgraphNodeParams* p = nodeParams
    cdef CUgraphNodeType actual
    cdef CUresult r
    cdef int t
    r = _node_type(hNode, p, &actual)
    if r != CUDA_SUCCESS:
        return r
    t = p.type
    if t != actual:
        return CUDA_ERROR_INVALID_VALUE
    if t == CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphKernelNodeSetParams(hNode, <const CUDA_KERNEL_NODE_PARAMS*>&p.kernel)
    if t == CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphMemcpyNodeSetParams(hNode, &p.memcpy.copyParams)
    if t == CU_GRAPH_NODE_TYPE_MEMSET:
        _memset_v1(&memset_, &p.memset)
        return cuGraphMemsetNodeSetParams(hNode, &memset_)
    if t == CU_GRAPH_NODE_TYPE_HOST:
        if p.host.syncMode != 0:
            return CUDA_ERROR_NOT_SUPPORTED
        host.fn, host.userData = p.host.fn, p.host.userData
        return cuGraphHostNodeSetParams(hNode, &host)
    if t == CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphEventWaitNodeSetEvent(hNode, p.eventWait.event)
    if t == CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphEventRecordNodeSetEvent(hNode, p.eventRecord.event)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
        return cuGraphExternalSemaphoresSignalNodeSetParams(hNode, <const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS*>&p.extSemSignal)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        return cuGraphExternalSemaphoresWaitNodeSetParams(hNode, <const CUDA_EXT_SEM_WAIT_NODE_PARAMS*>&p.extSemWait)
    if t == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return cuGraphBatchMemOpNodeSetParams(hNode, <const CUDA_BATCH_MEM_OP_NODE_PARAMS*>&p.memOp)
    # a child graph, an empty node, allocations: HIP changes none of them in a graph
    return _unbridged_kind(t)


cdef CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams* nodeParams) except? CUDA_ERROR_NOT_FOUND nogil:
    """The typed cuGraphExec*NodeSetParams (or Set*Event) of nodeParams.type."""
    cdef CUDA_MEMSET_NODE_PARAMS memset_
    cdef CUDA_HOST_NODE_PARAMS host
    cdef CUgraphNodeParams* p = nodeParams
    cdef int t
    if p == NULL:
        return CUDA_ERROR_INVALID_VALUE
    t = p.type
    if t == CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphExecKernelNodeSetParams(hGraphExec, hNode, <const CUDA_KERNEL_NODE_PARAMS*>&p.kernel)
    if t == CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphExecMemcpyNodeSetParams(hGraphExec, hNode, &p.memcpy.copyParams, p.memcpy.copyCtx)
    if t == CU_GRAPH_NODE_TYPE_MEMSET:
        _memset_v1(&memset_, &p.memset)
        return cuGraphExecMemsetNodeSetParams(hGraphExec, hNode, &memset_, p.memset.ctx)
    if t == CU_GRAPH_NODE_TYPE_HOST:
        if p.host.syncMode != 0:
            return CUDA_ERROR_NOT_SUPPORTED
        host.fn, host.userData = p.host.fn, p.host.userData
        return cuGraphExecHostNodeSetParams(hGraphExec, hNode, &host)
    if t == CU_GRAPH_NODE_TYPE_GRAPH:
        return cuGraphExecChildGraphNodeSetParams(hGraphExec, hNode, p.graph.graph)
    if t == CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, p.eventWait.event)
    if t == CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, p.eventRecord.event)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
        return cuGraphExecExternalSemaphoresSignalNodeSetParams(hGraphExec, hNode,
                                                                <const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS*>&p.extSemSignal)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        return cuGraphExecExternalSemaphoresWaitNodeSetParams(hGraphExec, hNode,
                                                              <const CUDA_EXT_SEM_WAIT_NODE_PARAMS*>&p.extSemWait)
    if t == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return cuGraphExecBatchMemOpNodeSetParams(hGraphExec, hNode, <const CUDA_BATCH_MEM_OP_NODE_PARAMS*>&p.memOp)
    return _unbridged_kind(t)


cdef CUresult cuGraphNodeGetParams(CUgraphNode hNode, CUgraphNodeParams* nodeParams) except? CUDA_ERROR_NOT_FOUND nogil:
    """The node's type and the typed getter's parameters in its union member (the rest zero; a
    child graph's ownership INVALID, as CUDA's query gives it)."""
    cdef CUDA_MEMSET_NODE_PARAMS memset_
    cdef CUDA_HOST_NODE_PARAMS host
    cdef CUgraphNodeParams* p = nodeParams
    cdef CUgraphNodeType t
    cdef CUresult r
    r = _node_type(hNode, p, &t)
    if r != CUDA_SUCCESS:
        return r
    memset(p, 0, sizeof(CUgraphNodeParams))
    p.type = t
    if t == CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphKernelNodeGetParams(hNode, <CUDA_KERNEL_NODE_PARAMS*>&p.kernel)
    if t == CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphMemcpyNodeGetParams(hNode, &p.memcpy.copyParams)
    if t == CU_GRAPH_NODE_TYPE_MEMSET:
        r = cuGraphMemsetNodeGetParams(hNode, &memset_)
        p.memset.dst, p.memset.pitch, p.memset.value = memset_.dst, memset_.pitch, memset_.value
        p.memset.elementSize, p.memset.width, p.memset.height = memset_.elementSize, memset_.width, memset_.height
        return r
    if t == CU_GRAPH_NODE_TYPE_HOST:
        r = cuGraphHostNodeGetParams(hNode, &host)
        p.host.fn, p.host.userData = host.fn, host.userData
        return r
    if t == CU_GRAPH_NODE_TYPE_GRAPH:
        p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID
        return cuGraphChildGraphNodeGetGraph(hNode, &p.graph.graph)
    if t == CU_GRAPH_NODE_TYPE_EMPTY:
        return CUDA_SUCCESS
    if t == CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphEventWaitNodeGetEvent(hNode, &p.eventWait.event)
    if t == CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphEventRecordNodeGetEvent(hNode, &p.eventRecord.event)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
        return cuGraphExternalSemaphoresSignalNodeGetParams(hNode, <CUDA_EXT_SEM_SIGNAL_NODE_PARAMS*>&p.extSemSignal)
    if t == CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        return cuGraphExternalSemaphoresWaitNodeGetParams(hNode, <CUDA_EXT_SEM_WAIT_NODE_PARAMS*>&p.extSemWait)
    if t == CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return cuGraphMemAllocNodeGetParams(hNode, <CUDA_MEM_ALLOC_NODE_PARAMS*>&p.alloc)
    if t == CU_GRAPH_NODE_TYPE_MEM_FREE:
        return cuGraphMemFreeNodeGetParams(hNode, &p.free.dptr)
    if t == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return cuGraphBatchMemOpNodeGetParams(hNode, <CUDA_BATCH_MEM_OP_NODE_PARAMS*>&p.memOp)
    return _unbridged_kind(t)


cdef inline void _memset_v1(CUDA_MEMSET_NODE_PARAMS* d, const CUDA_MEMSET_NODE_PARAMS_v2* s) noexcept nogil:
    """CUDA 12.2's memset parameters less their context, which the typed calls take apart."""
    d.dst, d.pitch, d.value, d.elementSize, d.width, d.height = s.dst, s.pitch, s.value, s.elementSize, s.width, s.height


cdef inline CUresult _unbridged_kind(int t) noexcept nogil:
    """A node kind HIP 6.4 lacks (conditional nodes), or that the call cannot take: not supported;
    a value that is no kind: invalid."""
    if 0 <= t <= <int>CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return CUDA_ERROR_NOT_SUPPORTED
    return CUDA_ERROR_INVALID_VALUE
