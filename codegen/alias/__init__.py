"""The `cuda` alias's generator: CUDA's headers -> `cuda.bindings.{driver,runtime,nvrtc}` on HIP.

The CUDA headers go through the same front end, analysis, plans and Python-layer emitter as
ROCm's (hip_as_cuda/specs/<module>.yaml are ordinary library specs, with CUDA's conventions);
what differs is the C layer: instead of loading a CUDA library, each CUDA function is a bridge
to its HIP counterpart (bridge.py), found by the one name matcher (codegen/bridge/match.py)
read from CUDA to HIP, with enums and structs converted by name (codegen/bridge/convert.py).
"""
