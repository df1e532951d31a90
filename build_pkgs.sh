#!/usr/bin/env bash
# Set up, generate, build and install the HIP bindings; with --run-tests also run the tests.
#
#   ./build_pkgs.sh [--rocm-path DIR] [--libs hip,hiprtc|^rccl] [-j N] [--run-tests] [--no-venv] [-h]
#
# Headers: --rocm-path, else $ROCM_PATH, else /opt/rocm, else the system's /usr/include;
# when none has hip/hip_runtime_api.h, Debian's ROCm -dev packages are fetched into build/
# (sid first), never installed into the system.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; cat <<'TXT'

Options:
  --rocm-path DIR  ROCm installation whose include/ has the headers
  --libs LIST      comma list of libraries to build (hip,hiprtc,...); '^x' excludes x
                   (default: every library that has a spec in codegen/specs/)
  -j N             parallel compile jobs (default: number of cores)
  --run-tests      run the test suite after building
  --no-venv        use the current Python instead of ./.venv
  -h, --help       this help
Environment: PYTHON (interpreter for the venv, default python3).
TXT
}

rocm_path="${ROCM_PATH:-}"; libs=""; jobs=$(nproc 2>/dev/null || echo 2); run_tests=0; use_venv=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rocm-path) rocm_path=$2; shift 2;;
    --rocm-path=*) rocm_path=${1#*=}; shift;;
    --libs) libs=$2; shift 2;;
    --libs=*) libs=${1#*=}; shift;;
    -j) jobs=$2; shift 2;;
    -j*) jobs=${1#-j}; shift;;
    --run-tests) run_tests=1; shift;;
    --no-venv) use_venv=0; shift;;
    -h|--help) usage; exit 0;;
    *) echo "build_pkgs.sh: unknown option $1 (see -h)" >&2; exit 2;;
  esac
done

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
t0=$(date +%s)

# 1. Python environment -------------------------------------------------------------------
PY=${PYTHON:-python3}
if [ $use_venv = 1 ]; then
  if [ ! -x .venv/bin/python ]; then
    step "creating the virtual environment ./.venv"
    "$PY" -m venv .venv
  fi
  PY=$ROOT/.venv/bin/python
fi
step "installing build and test requirements"
"$PY" -m pip install -q --disable-pip-version-check Cython PyYAML libclang==18.1.1 setuptools wheel \
  $([ $run_tests = 1 ] && echo "pytest numpy sphinx")

# 2. ROCm headers --------------------------------------------------------------------------
have_headers() { [ -f "$1/hip/hip_runtime_api.h" ]; }
include=""
for cand in "${rocm_path:+$rocm_path/include}" /opt/rocm/include /usr/include; do
  if [ -n "$cand" ] && have_headers "$cand"; then include=$cand; break; fi
done
if [ -z "$include" ]; then
  if ! have_headers build/rocm-sid/usr/include; then
    step "no ROCm headers found; fetching Debian sid's ROCm -dev packages into build/rocm-sid"
    tools/fetch_rocm_headers.sh sid build/rocm-sid >/dev/null
  fi
  include=$ROOT/build/rocm-sid/usr/include
fi
version=$(sed -n 's/^#define HIP_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$include/hip/hip_version.h" | paste -sd.)
step "ROCm $version headers: $include"

# 3. Which libraries -----------------------------------------------------------------------
all=$("$PY" -c "from codegen.spec import all_libraries; print(','.join(all_libraries()))")
if [ -z "$libs" ]; then
  libs=$all
elif [[ $libs == ^* ]]; then
  exclude=",${libs#^},"; keep=""
  for l in ${all//,/ }; do [[ $exclude == *",$l,"* ]] || keep="$keep,$l"; done
  libs=${keep#,}
fi
for l in ${libs//,/ }; do
  [[ ",$all," == *",$l,"* ]] || { echo "build_pkgs.sh: unknown library '$l' (have: $all)" >&2; exit 2; }
done
step "libraries: $libs"

# 4. Generate ------------------------------------------------------------------------------
step "generating Cython sources from the headers"
rm -f hip/_coverage/*.json
"$PY" -m codegen --include "$include" --libs "$libs"

# 5. Build (in place) and install into the environment -------------------------------------
step "compiling with $jobs jobs (all eight libraries: about 6 minutes on 2 cores; hipblas is the largest)"
set +e
HIP_PYTHON_INCLUDE=$include HIP_PYTHON_LIBS=$libs HIP_PYTHON_JOBS=$jobs \
  "$PY" setup.py -q build_ext --inplace -j "$jobs" 2>&1 \
  | grep --line-buffered -v -e "^performance hint" -e "_BetaConfiguration" -e "warnings.warn" -e "^\s*[0-9]\. " -e "^$"
build_rc=${PIPESTATUS[0]}
set -e
[ "$build_rc" = 0 ] || { echo "build_pkgs.sh: the build failed (setup.py exit $build_rc)" >&2; exit 1; }
# The package is used from this checkout (an editable install): a .pth file puts it on the
# environment's path without compiling everything a second time.
site=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if [ $use_venv = 1 ]; then
  echo "$ROOT" > "$site/hip_bindings_checkout.pth"
  step "installed into .venv (editable: $site/hip_bindings_checkout.pth -> $ROOT)"
fi

# 6. The NVIDIA platform: HIP on CUDA (when CUDA is here) ---------------------------------
# A CUDA toolkit ($CUDA_PATH, /usr/local/cuda) and NVIDIA's pip wheels in this Python
# (nvidia-cuda-runtime, nvidia-cublas, ..., as PyTorch and CuPy install them: include/ and lib/
# dirs under site-packages/nvidia). The toolkit comes first; the wheels add the libraries it lacks.
cuda_incs=(); cuda_libdirs=(); cuda_from=()
for d in "${CUDA_PATH:-}" /usr/local/cuda; do
  if [ -n "$d" ] && [ -f "$d/include/cuda_runtime_api.h" ]; then
    cuda_incs=("$d/include"); cuda_libdirs=("$d/lib64"); cuda_from=("the toolkit at $d"); break
  fi
done
nwheel=0
while read -r kind dir; do
  if [ "$kind" = inc ]; then cuda_incs+=("$dir"); nwheel=$((nwheel + 1)); else cuda_libdirs+=("$dir"); fi
done < <("$PY" - <<'PYEOF'
import importlib.util, os
spec = importlib.util.find_spec("nvidia")
for root in (list(spec.submodule_search_locations) if spec and spec.submodule_search_locations else []):
    for dirpath, dirnames, files in sorted(os.walk(root)):
        name = os.path.basename(dirpath)
        if name == "include" and any(f.endswith(".h") for f in files):
            print("inc", dirpath); dirnames[:] = []
        elif name == "lib" and any(".so" in f for f in files):
            print("lib", dirpath); dirnames[:] = []
PYEOF
)
[ $nwheel -gt 0 ] && cuda_from+=("NVIDIA's pip wheels ($nwheel include dirs)")
[ -f /usr/include/nccl.h ] && cuda_incs+=(/usr/include)
if [ ${#cuda_from[@]} -gt 0 ]; then
  # One layer library per HIP library whose CUDA headers are here.
  nv_libs=$("$PY" - "$libs" "${cuda_incs[@]}" <<'PYEOF'
import os, sys
sys.path.insert(0, ".")
from codegen.nvidia import nvspec
wanted, dirs = sys.argv[1].split(","), sys.argv[2:]
ok = [l for l in nvspec.all_libraries() if l in wanted
      and all(any(os.path.exists(os.path.join(d, h)) for d in dirs) for h in nvspec.load(l).cuda_headers)]
print(",".join(ok))
PYEOF
)
  if [ -n "$nv_libs" ]; then
    step "CUDA from $(IFS=';'; echo "${cuda_from[*]}" | sed 's/;/ and /'): generating and building the HIP-on-CUDA layer ($nv_libs) into hip/_nvidia"
    rm -rf hip/_nvidia
    nv_args=()
    for d in "${cuda_incs[@]}"; do nv_args+=(--cuda-include "$d"); done
    for d in "${cuda_libdirs[@]}"; do nv_args+=(--cuda-lib "$d"); done
    # Optional platform: a layer that fails to build is reported, the AMD build stands.
    "$PY" -m codegen.nvidia --hip-include "$include" "${nv_args[@]}" \
      --libs "$nv_libs" --out build/nvidia --build hip/_nvidia -j "$jobs" \
      || echo "build_pkgs.sh: warning: the HIP-on-CUDA layer did not build (above); ROCm use is unaffected" >&2
  fi
fi

# 7. Show it working -----------------------------------------------------------------------
step "python -m hip"
(cd /tmp && "$PY" -m hip) || (cd "$ROOT" && "$PY" -m hip)
step "built in $(( $(date +%s) - t0 )) s"

# 8. Tests ---------------------------------------------------------------------------------
if [ $run_tests = 1 ]; then
  if ! have_headers build/rocm-bookworm/usr/include; then
    step "fetching Debian bookworm's ROCm 5.2 headers (the generator is tested on 5.x and 6.x)"
    tools/fetch_rocm_headers.sh bookworm build/rocm-bookworm >/dev/null
  fi
  if [ ! -f build/cuda-pypi/include/cuda_runtime_api.h ] || [ ! -f build/cuda-pypi/include/nccl.h ]; then
    step "fetching CUDA headers from PyPI (the HIP-on-CUDA layer is generated and compiled in the tests)"
    tools/fetch_cuda_headers.sh build/cuda-pypi/include
  fi
  step "running the tests"
  set +e
  HIP_PYTHON_INCLUDE=$include HIP_PYTHON_INCLUDE_ROCM5=$ROOT/build/rocm-bookworm/usr/include \
    HIP_PYTHON_CUDA_INCLUDE=$ROOT/build/cuda-pypi/include \
    "$PY" -m pytest -q -p no:cacheprovider tests/
  rc=$?
  set -e
  [ $rc = 5 ] && { echo "build_pkgs.sh: pytest collected no tests" >&2; exit 1; }
  step "done in $(( $(date +%s) - t0 )) s"
  exit $rc
fi
