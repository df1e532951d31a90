# cython: language_level=3
"""cuda.bindings.cynvvm on HIP (cynvvm.pxd says what): no libNVVM, so every function raises."""
from cuda.bindings._internal.utils import FunctionNotFoundError

cdef int _missing(const char* name) except -1 with gil:
    raise FunctionNotFoundError(f"function {name.decode()} is not found: HIP has no libNVVM (NVVM IR compiler)")


cdef const char* nvvmGetErrorString(nvvmResult result) except? NULL nogil:
    _missing(b"nvvmGetErrorString")
    return NULL


cdef nvvmResult nvvmVersion(int* major, int* minor) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmVersion")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmIRVersion(int* majorIR, int* minorIR, int* majorDbg, int* minorDbg) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmIRVersion")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmCreateProgram(nvvmProgram* prog) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmCreateProgram")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmDestroyProgram(nvvmProgram* prog) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmDestroyProgram")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmAddModuleToProgram(nvvmProgram prog, const char* buffer, size_t size, const char* name) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmAddModuleToProgram")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmLazyAddModuleToProgram(nvvmProgram prog, const char* buffer, size_t size, const char* name) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmLazyAddModuleToProgram")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmCompileProgram(nvvmProgram prog, int numOptions, const char** options) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmCompileProgram")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmVerifyProgram(nvvmProgram prog, int numOptions, const char** options) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmVerifyProgram")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmGetCompiledResultSize(nvvmProgram prog, size_t* bufferSizeRet) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmGetCompiledResultSize")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmGetCompiledResult(nvvmProgram prog, char* buffer) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmGetCompiledResult")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmGetProgramLogSize(nvvmProgram prog, size_t* bufferSizeRet) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmGetProgramLogSize")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmGetProgramLog(nvvmProgram prog, char* buffer) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmGetProgramLog")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR


cdef nvvmResult nvvmLLVMVersion(const char* arch, int* major) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    _missing(b"nvvmLLVMVersion")
    return _NVVMRESULT_INTERNAL_LOADING_ERROR
