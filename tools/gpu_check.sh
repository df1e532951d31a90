#!/usr/bin/env bash
# Build and test the NVIDIA platform on a CUDA machine in one go (the device machines:
# shared/device-notes.md). Generates the bindings from ROCm headers, builds them and the
# HIP-on-CUDA layer, then runs the GPU tests, the examples and the GPU benchmarks.
#
#   tools/gpu_check.sh ROCM_INCLUDE [OUT_DIR]
#
# Needs libclang and PyYAML importable (wheels in .dev/whl are installed to /tmp/site if not),
# a CUDA toolkit at $CUDA_PATH or /usr/local/cuda. Logs go to OUT_DIR (default build/gpu-check),
# with the built modules (and the alias's coverage reports, which its availability answers read) as OUT_DIR/built.tgz. PREBUILT=FILE.tgz unpacks such an archive instead
# of building the bindings (the layer is always rebuilt: it takes seconds), for a second run on a
# fresh machine when only the layer, the tests or Python files changed (REBUILD=lib,lib rebuilds
# those libraries' modules too). GPU_TESTS: the pytest targets (default: the GPU test files,
# tests/*/test_*_gpu.py, and the examples; `-m gpu tests` would add the few GPU tests of CPU files),
# GPU_TESTS_TIMEOUT their time limit in s (900); SKIP_BENCH_NVIDIA / SKIP_BENCH_ALIAS skip a benchmark.
set -uo pipefail
cd "$(dirname "$0")/.."
INC=${1:?usage: tools/gpu_check.sh ROCM_INCLUDE [OUT_DIR]}
OUT=${2:-build/gpu-check}
mkdir -p "$OUT"
CUDA=${CUDA_PATH:-/usr/local/cuda}
JOBS=$(nproc)
step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$OUT/summary.txt"; }

if ! python3 -c "import clang.cindex, yaml" 2>/dev/null && ls .dev/whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .dev/whl/*.whl
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$OUT/summary.txt"

step "generate the bindings"
python3 -m codegen --include "$INC" 2>&1 | tee -a "$OUT/summary.txt" || { echo "generation failed"; exit 1; }
if [ -n "${PREBUILT:-}" ]; then
  step "unpack the bindings built earlier ($PREBUILT)"
  tar xzf "$PREBUILT"
  # the shared helpers are hand-written and quick to build: always from this tree, with the
  # libraries named in REBUILD (comma list) whose generated code changed since the archive
  HIP_PYTHON_INCLUDE=$INC HIP_PYTHON_LIBS=${REBUILD:-none} python3 setup.py -q build_ext --inplace > "$OUT/build.log" 2>&1 \
    || { tail -50 "$OUT/build.log"; exit 1; }
  # what a later run on a fresh machine unpacks (the rebuilt modules included)
  [ -n "${REBUILD:-}" ] && [ "${REBUILD}" != none ] && tar czf "$OUT/built.tgz" $(find hip hip_as_cuda -name "*.so" -not -path "hip/_nvidia/*") $(find hip_as_cuda -path "*/_coverage/*.json")
else
  step "build the bindings ($JOBS jobs)"
  t=$(date +%s)
  HIP_PYTHON_INCLUDE=$INC HIP_PYTHON_JOBS=$JOBS python3 setup.py -q build_ext --inplace -j "$JOBS" \
    > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
  echo "built in $(( $(date +%s) - t )) s" | tee -a "$OUT/summary.txt"
  tar czf "$OUT/built.tgz" $(find hip hip_as_cuda -name "*.so" -not -path "hip/_nvidia/*") $(find hip_as_cuda -path "*/_coverage/*.json")
fi

step "generate and build the HIP-on-CUDA layer"
# every library that has an NVIDIA spec (codegen/specs/nvidia/)
python3 -m codegen nvidia --hip-include "$INC" --cuda-include "$CUDA/include" --cuda-include /usr/include \
  --out build/nvidia --build hip/_nvidia --cuda-lib "$CUDA/lib64" -j "$JOBS" 2>&1 | tee -a "$OUT/summary.txt"
python3 - <<'PYEOF' | tee -a "$OUT/summary.txt"
import json, glob
for p in sorted(glob.glob("build/nvidia/hipnv_*.json")):
    r = json.load(open(p))
    print(r["library"], r["summary"])
PYEOF

export HIP_PLATFORM=nvidia
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}   # NCCL says why when it refuses a call
step "python -m hip"
python3 -m hip 2>&1 | tee -a "$OUT/summary.txt"

step "GPU tests and examples"
# GPU_TESTS: other pytest targets (a second run that checks only what changed)
timeout ${GPU_TESTS_TIMEOUT:-900} python3 -m pytest -q -p no:cacheprovider -rs ${GPU_TESTS:-tests/*/test_*_gpu.py tests/package/test_examples.py} 2>&1 | tee "$OUT/pytest.log" | tail -60
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest.log" >> "$OUT/summary.txt"
PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} python3 examples/rccl_allreduce.py >> "$OUT/summary.txt" 2>&1

if [ -z "${SKIP_ALIAS_TESTS:-}" ]; then
step "the cuda alias (its CPU tests through python -m hip_as_cuda; its programs ran with the GPU tests)"
python3 -m hip_as_cuda 2>&1 | tail -4 | tee -a "$OUT/summary.txt"
python3 -m hip_as_cuda -m pytest -q -p no:cacheprovider -rs tests/alias/test_alias.py 2>&1 | tee "$OUT/alias-pytest.log" | tail -30
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/alias-pytest.log" >> "$OUT/summary.txt"
fi

step "GPU benchmarks"
if [ -f benchmarks/gpu/bench_nvidia.py ] && [ -z "${SKIP_BENCH_NVIDIA:-}" ]; then
  timeout 240 python3 benchmarks/gpu/bench_nvidia.py 2>&1 | tee "$OUT/bench.log" | tail -40
  tail -25 "$OUT/bench.log" >> "$OUT/summary.txt"
fi
if [ -f benchmarks/gpu/bench_alias.py ] && [ -z "${SKIP_BENCH_ALIAS:-}" ]; then
  timeout 240 python3 benchmarks/gpu/bench_alias.py ${BENCH_ALIAS_ARGS:-} 2>&1 | tee "$OUT/bench-alias.log" | tail -40
  tail -25 "$OUT/bench-alias.log" >> "$OUT/summary.txt"
fi
step "done"
