# cython: language_level=3
"""cuda.bindings.cynvjitlink on HIP (cynvjitlink.pxd says what): each function calls the alias's
nvJitLink (cuda.bindings.nvjitlink, over hiprtc's linker) with the GIL, and answers its Result.
A handle is that module's handle, an int, as a pointer."""
from libc.stdint cimport uintptr_t

cdef object _nvjitlink = None
cdef int _exited = 0     # Python has finalized: a destructor at exit() must not take the GIL


cdef extern from "Python.h":
    int Py_AtExit(void (*func)() noexcept nogil)


cdef void _on_exit() noexcept nogil:
    global _exited
    _exited = 1


Py_AtExit(_on_exit)


cdef object _api():
    global _nvjitlink
    if _nvjitlink is None:
        from cuda.bindings import nvjitlink
        _nvjitlink = nvjitlink
    return _nvjitlink


cdef nvJitLinkResult _call(str name, tuple args, size_t* size_out=NULL) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR with gil:
    """nvjitlink.<name>(*args): its Result (an nvJitLinkError's status), its size result into
    `size_out`. Any other exception propagates (the except? value)."""
    api = _api()
    try:
        r = getattr(api, name)(*args)
    except api.nvJitLinkError as e:
        return <nvJitLinkResult><int>e.status
    if size_out != NULL:
        size_out[0] = r
    return NVJITLINK_SUCCESS


cdef inline uintptr_t _h(nvJitLinkHandle handle) noexcept nogil:
    return <uintptr_t>handle


cdef nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle* handle, uint32_t numOptions, const char** options) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    with gil:
        if handle == NULL:
            return NVJITLINK_ERROR_NULL_INPUT
        api = _api()
        try:
            h = api.create(numOptions, [options[i] for i in range(numOptions)] if options != NULL else 0)
        except api.nvJitLinkError as e:
            return <nvJitLinkResult><int>e.status
        handle[0] = <nvJitLinkHandle><uintptr_t>h
        return NVJITLINK_SUCCESS


cdef nvJitLinkResult nvJitLinkDestroy(nvJitLinkHandle* handle) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_SUCCESS
    if handle == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    cdef nvJitLinkResult r
    with gil:
        r = _call("destroy", (_h(handle[0]),))
    if r == NVJITLINK_SUCCESS:
        handle[0] = NULL
    return r


cdef nvJitLinkResult nvJitLinkAddData(nvJitLinkHandle handle, nvJitLinkInputType inputType, const void* data, size_t size, const char* name) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    with gil:
        return _call("add_data", (_h(handle), <int>inputType, <uintptr_t>data, size,
                                  name.decode(errors="replace") if name != NULL else ""))


cdef nvJitLinkResult nvJitLinkAddFile(nvJitLinkHandle handle, nvJitLinkInputType inputType, const char* fileName) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    with gil:
        if fileName == NULL:
            return NVJITLINK_ERROR_NULL_INPUT
        return _call("add_file", (_h(handle), <int>inputType, fileName.decode(errors="surrogateescape")))


cdef nvJitLinkResult nvJitLinkComplete(nvJitLinkHandle handle) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    with gil:
        return _call("complete", (_h(handle),))


cdef nvJitLinkResult _size(str name, nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if size == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    with gil:
        return _call(name, (_h(handle),), size)


cdef nvJitLinkResult _copy(str name, nvJitLinkHandle handle, void* out) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    with gil:
        return _call(name, (_h(handle), <uintptr_t>out))


cdef nvJitLinkResult nvJitLinkGetLinkedCubinSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _size("get_linked_cubin_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetLinkedCubin(nvJitLinkHandle handle, void* cubin) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _copy("get_linked_cubin", handle, cubin)


cdef nvJitLinkResult nvJitLinkGetLinkedPtxSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _size("get_linked_ptx_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetLinkedPtx(nvJitLinkHandle handle, char* ptx) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _copy("get_linked_ptx", handle, ptx)


cdef nvJitLinkResult nvJitLinkGetErrorLogSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _size("get_error_log_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetErrorLog(nvJitLinkHandle handle, char* log) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _copy("get_error_log", handle, log)


cdef nvJitLinkResult nvJitLinkGetInfoLogSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _size("get_info_log_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetInfoLog(nvJitLinkHandle handle, char* log) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    return _copy("get_info_log", handle, log)


cdef nvJitLinkResult nvJitLinkVersion(unsigned int* major, unsigned int* minor) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    if major == NULL or minor == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    with gil:
        major[0], minor[0] = _api().version()
    return NVJITLINK_SUCCESS
