# cython: language_level=3
"""cuda.bindings.cynvvm on HIP (cynvvm.pxd says what): no libNVVM, so every function raises."""
from cuda.bindings._internal.utils import FunctionNotFoundError

cdef nvvmResult _missing(const char* name) except? _NVVMRESULT_INTERNAL_LOADING_ERROR with gil:
    raise FunctionNotFoundError(f"function {name.decode()} is not found: HIP has no libNVVM (NVVM IR compiler)")


cdef const char* nvvmGetErrorString(nvvmResult result) except? NULL nogil:
    _missing(b"nvvmGetErrorString")
    return NULL


cdef nvvmResult nvvmVersion(int* major, int* minor) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmVersion")


cdef nvvmResult nvvmIRVersion(int* majorIR, int* minorIR, int* majorDbg, int* minorDbg) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmIRVersion")


cdef nvvmResult nvvmCreateProgram(nvvmProgram* prog) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmCreateProgram")


cdef nvvmResult nvvmDestroyProgram(nvvmProgram* prog) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmDestroyProgram")


cdef nvvmResult nvvmAddModuleToProgram(nvvmProgram prog, const char* buffer, size_t size, const char* name) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmAddModuleToProgram")


cdef nvvmResult nvvmLazyAddModuleToProgram(nvvmProgram prog, const char* buffer, size_t size, const char* name) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmLazyAddModuleToProgram")


cdef nvvmResult nvvmCompileProgram(nvvmProgram prog, int numOptions, const char** options) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmCompileProgram")


cdef nvvmResult nvvmVerifyProgram(nvvmProgram prog, int numOptions, const char** options) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmVerifyProgram")


cdef nvvmResult nvvmGetCompiledResultSize(nvvmProgram prog, size_t* bufferSizeRet) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmGetCompiledResultSize")


cdef nvvmResult nvvmGetCompiledResult(nvvmProgram prog, char* buffer) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmGetCompiledResult")


cdef nvvmResult nvvmGetProgramLogSize(nvvmProgram prog, size_t* bufferSizeRet) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmGetProgramLogSize")


cdef nvvmResult nvvmGetProgramLog(nvvmProgram prog, char* buffer) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmGetProgramLog")


cdef nvvmResult nvvmLLVMVersion(const char* arch, int* major) except? _NVVMRESULT_INTERNAL_LOADING_ERROR nogil:
    return _missing(b"nvvmLLVMVersion")
