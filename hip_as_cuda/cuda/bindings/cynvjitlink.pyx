# cython: language_level=3
"""cuda.bindings.cynvjitlink on HIP (cynvjitlink.pxd says what): each function calls the alias's
nvJitLink (cuda.bindings.nvjitlink, over hiprtc's linker) with the GIL, and answers its Result.
A handle is that module's handle, an int, as a pointer."""
from libc.stdint cimport uintptr_t

cdef object _nvjitlink = None
cdef int _exited = 0     # Python has finalized: a destructor at exit() must not take the GIL


cdef extern from "Python.h":
    ctypedef struct PyObject
    int Py_AtExit(void (*func)() noexcept nogil)
    PyObject* PyErr_Occurred()
    void PyErr_Fetch(PyObject** t, PyObject** v, PyObject** tb)
    void PyErr_Restore(PyObject* t, PyObject* v, PyObject* tb)


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


cdef nvJitLinkResult _run(str name, tuple args, size_t* out) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR:
    api = _api()
    try:
        r = getattr(api, name)(*args)
    except api.nvJitLinkError as e:
        return <nvJitLinkResult><int>e.status
    if out != NULL:
        if isinstance(r, tuple):
            out[0], out[1] = r
        else:
            out[0] = r
    return NVJITLINK_SUCCESS


cdef nvJitLinkResult _call(str name, tuple args, size_t* out=NULL) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR:
    """nvjitlink.<name>(*args): its Result (an nvJitLinkError's status), its int result (a pair's
    two ints) into `out`. Any other exception propagates (the except? value), unless the caller
    already had one pending: a handle's destructor calls nvJitLinkDestroy while the exception that
    unwinds it is set, and NVIDIA's C function leaves that exception alone, so this one does too."""
    cdef PyObject* t = NULL
    cdef PyObject* v = NULL
    cdef PyObject* tb = NULL
    if not PyErr_Occurred():
        return _run(name, args, out)
    PyErr_Fetch(&t, &v, &tb)
    try:
        return _run(name, args, out)
    except BaseException:
        return NVJITLINK_ERROR_INTERNAL
    finally:
        PyErr_Restore(t, v, tb)


cdef inline uintptr_t _h(nvJitLinkHandle handle) noexcept nogil:
    return <uintptr_t>handle


cdef nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle* handle, uint32_t numOptions, const char** options) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    if handle == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    cdef size_t h = 0
    cdef nvJitLinkResult r
    with gil:
        r = _call("create", (numOptions, [options[i] for i in range(numOptions)] if options != NULL else 0), &h)
    if r == NVJITLINK_SUCCESS:
        handle[0] = <nvJitLinkHandle>h
    return r


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
    if fileName == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    with gil:
        return _call("add_file", (_h(handle), <int>inputType, fileName.decode(errors="surrogateescape")))


cdef nvJitLinkResult nvJitLinkComplete(nvJitLinkHandle handle) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    with gil:
        return _call("complete", (_h(handle),))


cdef nvJitLinkResult _size(str name, nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    if size == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    with gil:
        return _call(name, (_h(handle),), size)


cdef nvJitLinkResult _copy(str name, nvJitLinkHandle handle, void* out) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    with gil:
        return _call(name, (_h(handle), <uintptr_t>out))


cdef nvJitLinkResult nvJitLinkGetLinkedCubinSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _size("get_linked_cubin_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetLinkedCubin(nvJitLinkHandle handle, void* cubin) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _copy("get_linked_cubin", handle, cubin)


cdef nvJitLinkResult nvJitLinkGetLinkedPtxSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _size("get_linked_ptx_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetLinkedPtx(nvJitLinkHandle handle, char* ptx) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _copy("get_linked_ptx", handle, ptx)


cdef nvJitLinkResult nvJitLinkGetErrorLogSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _size("get_error_log_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetErrorLog(nvJitLinkHandle handle, char* log) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _copy("get_error_log", handle, log)


cdef nvJitLinkResult nvJitLinkGetInfoLogSize(nvJitLinkHandle handle, size_t* size) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _size("get_info_log_size", handle, size)


cdef nvJitLinkResult nvJitLinkGetInfoLog(nvJitLinkHandle handle, char* log) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    return _copy("get_info_log", handle, log)


cdef nvJitLinkResult nvJitLinkVersion(unsigned int* major, unsigned int* minor) except? _NVJITLINKRESULT_INTERNAL_LOADING_ERROR nogil:
    if _exited:
        return NVJITLINK_ERROR_INTERNAL
    if major == NULL or minor == NULL:
        return NVJITLINK_ERROR_NULL_INPUT
    cdef size_t v[2]
    cdef nvJitLinkResult r
    with gil:
        r = _call("version", (), v)
    if r == NVJITLINK_SUCCESS:
        major[0], minor[0] = <unsigned int>v[0], <unsigned int>v[1]
    return r
