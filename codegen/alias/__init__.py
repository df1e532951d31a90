"""The `cuda` alias's generator: CUDA's headers -> `cuda.bindings.{driver,runtime,nvrtc}` on HIP.

The CUDA headers go through the same front end, analysis, plans and Python-layer emitter as
ROCm's (hip_as_cuda/specs/<module>.yaml are ordinary library specs, with CUDA's conventions);
what differs is the C layer: instead of loading a CUDA library, each CUDA function is a bridge
to its HIP counterpart (bridge.py: the one bridge generator, codegen/bridge/emit.py, from CUDA
to HIP), found by the one name matcher (codegen/bridge/match.py) read from CUDA to HIP, with
enums and structs converted by name (codegen/bridge/convert.py). modules.py analyses the CUDA
headers and lists each module's files; codegen.generate.generate_alias writes them.
"""
