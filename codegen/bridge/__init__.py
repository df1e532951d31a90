"""What both bridge directions share: the HIP-on-CUDA layer (codegen/nvidia: HIP's API implemented
on CUDA) and the `cuda` alias (codegen/alias: CUDA's API implemented on HIP).

Modules: cuda_ir (CUDA headers -> IR), match (CUDA<->HIP names, both directions by the same
rules), convert (type pairs: casts, enum and struct converters), spec (the bridge specs' schema).
"""
