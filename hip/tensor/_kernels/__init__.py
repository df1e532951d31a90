"""hip.tensor's kernel floor: hiprtc compilation and the kernel families, above `_core`.

compiler (hiprtc, the kernel caches, Function.launch), source (the C++ prelude), elementwise_source
and elementwise (ElementwiseKernel), reduction (ReductionKernel), template (TemplateKernel), raw
(RawKernel, RawModule).
"""
