# Hand-written part of cydriver (codegen.alias puts it into the generated cydriver.pyx; the spec's
# bridge.manual says why each function is here).
from libc.string cimport memset

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
    cdef CUDA_MEMCPY3D c
    if pCopy == NULL:
        return CUDA_ERROR_INVALID_VALUE
    _peer_as_3d(pCopy, &c)
    return _b_cuMemcpy3D_v2(&c)


cdef CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER* pCopy, CUstream hStream) except? CUDA_ERROR_NOT_FOUND nogil:
    """cuMemcpy3DPeer's copy, through cuMemcpy3DAsync on hStream."""
    cdef CUDA_MEMCPY3D c
    if pCopy == NULL:
        return CUDA_ERROR_INVALID_VALUE
    _peer_as_3d(pCopy, &c)
    return _b_cuMemcpy3DAsync_v2(&c, hStream)


cdef inline void _peer_as_3d(const CUDA_MEMCPY3D_PEER* p, CUDA_MEMCPY3D* c) noexcept nogil:
    memset(c, 0, sizeof(CUDA_MEMCPY3D))
    c.srcXInBytes, c.srcY, c.srcZ, c.srcLOD = p.srcXInBytes, p.srcY, p.srcZ, p.srcLOD
    c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray = p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray
    c.srcPitch, c.srcHeight = p.srcPitch, p.srcHeight
    c.dstXInBytes, c.dstY, c.dstZ, c.dstLOD = p.dstXInBytes, p.dstY, p.dstZ, p.dstLOD
    c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray = p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray
    c.dstPitch, c.dstHeight = p.dstPitch, p.dstHeight
    c.WidthInBytes, c.Height, c.Depth = p.WidthInBytes, p.Height, p.Depth


cdef CUresult cuFuncGetName(const char** name, CUfunction hfunc) except? CUDA_ERROR_NOT_FOUND nogil:
    """HIP returns a module function's name (hipKernelNameRef; NULL when it has none) where CUDA
    writes it through `name` and answers with a status."""
    global _kernel_name_ref
    cdef void* f = _kernel_name_ref
    if name == NULL or hfunc == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if f == NULL:             # resolved once, as the generated bridges resolve theirs
        f = hipcuda_resolve("hipKernelNameRef")
        if f == NULL:
            return CUDA_ERROR_NOT_FOUND   # the except? value: the resolver has set the Python error
        _kernel_name_ref = f
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
    if pMod == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if library == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    pMod[0] = <CUmodule>library
    return CUDA_SUCCESS


cdef CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* numbytes, CUlibrary library, const char* name) except? CUDA_ERROR_NOT_FOUND nogil:
    if library == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    return cuModuleGetGlobal(dptr, numbytes, <CUmodule>library, name)


cdef CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) except? CUDA_ERROR_NOT_FOUND nogil:
    if pFunc == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if kernel == NULL:
        return CUDA_ERROR_INVALID_HANDLE
    pFunc[0] = <CUfunction>kernel
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


ctypedef int (*_exec_update_t)(void*, void*, void**, int*) noexcept nogil
cdef void* _graph_exec_update = NULL    # hipGraphExecUpdate

cdef extern from "_bridge_driver.c":
    int _cu_status "hipnv_cudaError_enum_from_hipError_t"(int, int*) nogil


cdef CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo* resultInfo) except? CUDA_ERROR_NOT_FOUND nogil:
    """CUDA fills one result record where HIP gives the result and the failing node through two
    pointers; HIP names no errorFromNode (NULL, as CUDA leaves it where no node is to blame)."""
    global _graph_exec_update
    cdef void* f = _graph_exec_update
    cdef void* node = NULL
    cdef int result = 0, ok = 1, r
    if resultInfo == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if f == NULL:
        f = hipcuda_resolve("hipGraphExecUpdate")
        if f == NULL:
            return CUDA_ERROR_NOT_FOUND   # the except? value: the resolver has set the Python error
        _graph_exec_update = f
    r = (<_exec_update_t>f)(<void*>hGraphExec, <void*>hGraph, &node, &result)
    resultInfo.result = <CUgraphExecUpdateResult>result
    resultInfo.errorNode = <CUgraphNode>node
    resultInfo.errorFromNode = NULL
    r = _cu_status(r, &ok)
    return <CUresult>r if ok else CUDA_ERROR_UNKNOWN


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
    global _create_surface
    cdef void* f = _create_surface
    cdef hipcuda_array_resource d
    cdef unsigned long long obj = 0
    cdef int ok = 1, r
    if pSurfObject == NULL or pResDesc == NULL or pResDesc.resType != CU_RESOURCE_TYPE_ARRAY \
            or pResDesc.flags != 0 or pResDesc.res.array.hArray == NULL:
        return CUDA_ERROR_INVALID_VALUE
    if f == NULL:
        f = hipcuda_resolve("hipCreateSurfaceObject")
        if f == NULL:
            return CUDA_ERROR_NOT_FOUND   # the except? value: the resolver has set the Python error
        _create_surface = f
    hipcuda_set_array(&d, <void*>pResDesc.res.array.hArray)
    r = (<_surface_create_t>f)(&obj, &d)
    r = _cu_status(r, &ok)
    if r == 0:
        pSurfObject[0] = <CUsurfObject>obj
    return <CUresult>r if ok else CUDA_ERROR_UNKNOWN
