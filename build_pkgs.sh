#!/usr/bin/env bash
# Set up, build and install the HIP bindings, and show them working; with --run-tests also run the tests.
#
#   ./build_pkgs.sh [--rocm-path DIR] [--libs hip,hiprtc|^rccl] [-j N] [--run-tests] [--no-venv] [-h]
#
# The build itself is `pip install -e .` (setup.py: headers, generation, compilation, the
# HIP-on-CUDA layer where CUDA is found); this script adds the environment, the demo and the tests.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

usage() { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; cat <<'TXT'

Options:
  --rocm-path DIR  ROCm installation whose include/ has the headers (default: $ROCM_PATH,
                   /opt/rocm, /usr/include; else Debian sid's -dev packages fetched into build/)
  --libs LIST      comma list of libraries to build (hip,hiprtc,...); '^x' excludes x
                   (default: every library that has a spec in codegen/specs/
                   and whose headers are found, and `cuda`: the CUDA alias,
                   hip_as_cuda/, from CUDA's headers; '^cuda' leaves it out)
  -j N             parallel compile jobs (default: number of cores)
  --run-tests      run the test suite after building
  --no-venv        install into the current Python instead of ./.venv
  -h, --help       this help
Environment: PYTHON (interpreter for the venv, default python3).
Without a ROCm runtime on the system, Debian bookworm's ROCm 5.2 runtime is fetched into
build/rocm-runtime for the demo and the tests (no GPU needed: calls report hipErrorNoDevice).
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

# 0. System prerequisites: a C/C++ compiler, and Python's headers and venv module -----------
PY=${PYTHON:-python3}
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
"$PY" -c "import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
  || need+=(python3-dev)
[ $use_venv = 0 ] || "$PY" -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  if command -v apt-get >/dev/null && { [ -z "$SUDO" ] || command -v sudo >/dev/null; }; then
    step "installing system packages: ${need[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "build_pkgs.sh: missing ${need[*]}; install them (or their equivalents) and run again" >&2; exit 1
  fi
fi

# 1. Python environment -------------------------------------------------------------------
if [ $use_venv = 1 ]; then
  if [ ! -x .venv/bin/python ]; then
    step "creating the virtual environment ./.venv"
    "$PY" -m venv .venv
  fi
  PY=$ROOT/.venv/bin/python
fi
step "installing build and test requirements"
# The build requirements of pyproject.toml (the build below runs without isolation, in this env).
# NumPy: hip.tensor, which the README advertises, needs it at run time.
"$PY" -m pip install -q --disable-pip-version-check "setuptools>=64" wheel "Cython>=3.0" PyYAML libclang==18.1.1 numpy \
  $([ $run_tests = 1 ] && echo "pytest pytest-xdist sphinx build array-api-strict dask")

# 2. Build and install (editable: the tests use this checkout) ----------------------------
step "building and installing with $jobs jobs (every library: about 9 minutes on 2 cores)"
rm -f "$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/hip_bindings_checkout.pth"
mkdir -p build
: > build/install.log   # there before tail opens it (pip's redirect below runs in the background)
set +e
ROCM_PATH=$rocm_path HIP_PYTHON_LIBS=$libs HIP_PYTHON_JOBS=$jobs \
  "$PY" -m pip install -v --disable-pip-version-check --no-build-isolation -e . > build/install.log 2>&1 &
pip_pid=$!
# Our build's own lines as they come (the whole log: build/install.log).
tail -n +1 -f build/install.log --pid=$pip_pid | grep --line-buffered -e "hip-bindings build:" -e "codegen: " || true
wait $pip_pid
build_rc=$?
set -e
if [ "$build_rc" != 0 ]; then
  tail -n 60 build/install.log >&2
  echo "build_pkgs.sh: the build failed (pip exit $build_rc; the whole log: build/install.log)" >&2
  exit 1
fi

# 3. A ROCm runtime to run against --------------------------------------------------------
if ! runtime_dir=$("$PY" -m build_support.rocm runtime); then
  echo "build_pkgs.sh: no ROCm runtime here and none could be fetched (above): calls will say the library is missing" >&2
  runtime_dir=""
fi
if [ -n "$runtime_dir" ]; then
  export LD_LIBRARY_PATH=$runtime_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export HIP_PYTHON_EXPECT_RUNTIME=1   # the tests fail, not skip, if it then does not load
  step "using Debian's ROCm runtime from $runtime_dir (LD_LIBRARY_PATH; the system has none)"
fi

# 4. Show it working -----------------------------------------------------------------------
step "python -m hip"
(cd /tmp && "$PY" -m hip)
step "built in $(( $(date +%s) - t0 )) s"

# 5. Tests ---------------------------------------------------------------------------------
if [ $run_tests = 1 ]; then
  include=$(ROCM_PATH=$rocm_path "$PY" -m build_support.rocm headers)
  step "fetching Debian bookworm's and trixie's ROCm headers (the generator is tested on 5.2, 5.7 and 6.4)"
  include52=$("$PY" -m build_support.rocm headers --suite bookworm)
  include57=$("$PY" -m build_support.rocm headers --suite trixie)
  if [ ! -f build/cuda-pypi/include/cuda_runtime_api.h ] || [ ! -f build/cuda-pypi/include/nccl.h ] \
     || [ ! -f build/cuda-pypi/include/cudaProfiler.h ]; then
    step "fetching CUDA headers from PyPI (the HIP-on-CUDA layer is generated and compiled in the tests)"
    PYTHON=$PY tools/fetch_cuda_headers.sh build/cuda-pypi/include
  fi
  step "running the tests"
  set +e
  HIP_PYTHON_INCLUDE=$include HIP_PYTHON_INCLUDE_ROCM5=$include52 HIP_PYTHON_INCLUDE_ROCM57=$include57 \
    HIP_PYTHON_CUDA_INCLUDE=$ROOT/build/cuda-pypi/include \
    "$PY" -m pytest -q -p no:cacheprovider -n auto --dist loadscope --no-loadscope-reorder --durations=10 tests/
  rc=$?
  set -e
  [ $rc = 5 ] && { echo "build_pkgs.sh: pytest collected no tests" >&2; exit 1; }
  step "done in $(( $(date +%s) - t0 )) s"
  exit $rc
fi
