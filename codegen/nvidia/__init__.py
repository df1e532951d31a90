"""The HIP-on-CUDA layer generator (the `nvidia` platform).

For each HIP library it writes one C file that exports the HIP functions with
HIP's ABI (types from the same ROCm headers the bindings come from) and
implements them with the matching CUDA library: names, enumerators and struct
fields are matched by rules in codegen/specs/nvidia/*.yaml; irregular cases
are hand-written in codegen/nvidia/manual/<lib>.c.

Modules: emit_c (the C file: the bridges from HIP to CUDA), build (gcc), layer_names
(the built files' names); the bridge generator, the spec schema, CUDA's IR, name matching
and type conversions are codegen/bridge's, shared with the `cuda` alias;
codegen.generate.generate_layer writes the files. From the core it uses only its public seams
(docs/design.rst, "Seams").
"""
