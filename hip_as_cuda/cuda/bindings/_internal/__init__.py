"""cuda.bindings._internal on HIP: the private modules NVIDIA's tests and helpers reach into.

`<module>._inspect_function_pointer(name)` answers whether the alias can run a function: nonzero
when it binds it to a HIP function the loader finds (or implements it itself), else 0
(`_availability`). `utils` holds NVIDIA's exception types and `get_c_compiler`.
"""
