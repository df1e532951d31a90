"""cuda.bindings._test_helpers on HIP: the helpers NVIDIA's cuda-bindings and cuda-core tests
import (`mempool`, `pep723`). Not a public API, as NVIDIA's is not. `arch_check` is left out: it
asks NVML, which the alias does not bind."""
