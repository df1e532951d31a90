# Hand-written part of cynvrtc (codegen.alias puts it into the generated cynvrtc.pyx; the spec's
# bridge.manual says why each function is here). NVRTC programs name NVIDIA targets and CUDA
# headers: on AMD, their options and sources are made hiprtc's (hip_as_cuda/nvrtc_options.py)
# before the bridge calls hiprtc; on the NVIDIA platform they pass unchanged.
from libc.stdlib cimport malloc, free
from libc.string cimport strdup
import warnings as _warnings
from hip_as_cuda import nvrtc_options as _options


cdef str _platform():
    """'nvidia' where hiprtc is our HIP-on-CUDA layer (device code goes to NVRTC), else 'amd'."""
    from hip import _loader
    p = _loader.platform()
    if p:
        return p
    if _lib.path is None:
        _lib.symbol(b"hiprtcVersion")   # opens the library: the search decides the platform
    return "nvidia" if _lib.path == _loader.nvidia_layer(_lib.name) else "amd"


cdef object _device_arch():
    """The current device's gfx name, or None (no device: the option module's default)."""
    try:
        from hip import hip
        err, dev = hip.hipGetDevice()
        if int(err) != 0:
            return None
        err, prop = hip.hipGetDeviceProperties(dev)
        return bytes(prop.gcnArchName).split(b"\0")[0].decode() if int(err) == 0 else None
    except Exception:
        return None


cdef char** _c_strings(list items) except NULL:
    """A malloc'd NULL-terminated copy of byte strings (freed by _free_strings)."""
    cdef char** out = <char**>malloc((len(items) + 1) * sizeof(char*))
    if out == NULL:
        raise MemoryError()
    for i, s in enumerate(items):
        out[i] = strdup(<bytes>s)
    out[len(items)] = NULL
    return out


cdef void _free_strings(char** p) noexcept nogil:
    cdef int i = 0
    if p == NULL:
        return
    while p[i] != NULL:
        free(p[i])
        i += 1
    free(p)


cdef list _strings(int n, const char* const* p):
    return [] if p == NULL or n <= 0 else [p[i] if p[i] != NULL else b"" for i in range(n)]


cdef char** _translated_options(int n, const char* const* options, int* count) except NULL with gil:
    new, warns = _options.translate(_strings(n, options), _platform(), _device_arch() if _platform() == "amd" else None)
    for w in warns:
        _warnings.warn(w, RuntimeWarning, stacklevel=3)
    count[0] = len(new)
    return _c_strings(list(new))


cdef char** _translated_sources(const char* src, int n, const char* const* headers) except NULL with gil:
    """[the source, then each header's contents], made hiprtc's on AMD."""
    plat = _platform()
    heads = _strings(n, headers)
    out = [_options.translate_source(src if src != NULL else b"", plat, headers=heads)]
    out += [_options.translate_source(h, plat, add_prelude=False) for h in heads]
    return _c_strings(out)


cdef nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char** options) except? NVRTC_ERROR_INVALID_INPUT nogil:
    cdef int n = 0
    cdef char** opts = _translated_options(numOptions, options, &n)
    cdef nvrtcResult r = _b_nvrtcCompileProgram(prog, n, opts)
    _free_strings(opts)
    return r


cdef nvrtcResult nvrtcCreateProgram(nvrtcProgram* prog, const char* src, const char* name, int numHeaders, const char** headers, const char** includeNames) except? NVRTC_ERROR_INVALID_INPUT nogil:
    if src == NULL or prog == NULL:   # NVRTC's answer; hiprtc (ROCm 5) aborts on a NULL source
        return NVRTC_ERROR_INVALID_INPUT
    cdef char** texts = _translated_sources(src, numHeaders, headers)
    cdef nvrtcResult r = _b_nvrtcCreateProgram(prog, texts[0], name, numHeaders, texts + 1 if numHeaders > 0 else headers, includeNames)
    _free_strings(texts)
    return r
