"""cuda.bindings._bindings on HIP: where cuda-bindings 13.x keeps the driver's (and 13.0
NVRTC's) `_inspect_function_pointer`. Ours answer from cuda.bindings._internal's."""
