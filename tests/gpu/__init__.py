"""GPU tests of the bindings end to end (issue 4, section 5: HIP on NVIDIA through the CUDA layer).

Every test is marked `gpu`; tests/conftest.py skips them where HIP sees no device. On an NVIDIA
machine run them against the HIP-on-CUDA layer:

    HIP_PLATFORM=nvidia python3 -m pytest tests/gpu -q -rs

(or point HIP_PYTHON_<LIB>_LIBRARY at the layer's libraries). A library whose layer is not built
yet skips its module with the loader's message (hip.errors.LibraryNotFoundError), so a partial
layer gives skips, not errors. Comparisons with CUDA itself use cuda.bindings where it is
installed and run only on NVIDIA; the rest holds on AMD's ROCm as well.
"""
