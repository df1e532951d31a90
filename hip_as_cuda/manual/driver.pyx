# Hand-written part of cydriver (codegen.alias puts it into the generated cydriver.pyx; the spec's
# bridge.manual says why each function is here).


cdef CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) except? <CUresult>-1 nogil:
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
