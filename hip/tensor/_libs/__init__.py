"""hip.tensor's library floor: the ROCm libraries besides the runtime, above `_kernels`.

loader (loading hip.<library> modules), blas (hipBLAS and hipSOLVER handles, gemm), solver
(hipSOLVER calls on arrays), sparse (hipSPARSE), fft_layout (hipFFT plan layouts).
"""
