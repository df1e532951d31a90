"""NVRTC on hiprtc (hip_as_cuda/nvrtc_options.py, hip_as_cuda/nvrtc_prelude.h).

Unit tests of `translate` and `default_arch` run over every option NVRTC documents: the list is
read from the doc comment of nvrtc.h (the `\\defgroup options` block), not typed here. The
compile tests run typical CUDA kernels through `translate` + `translate_source` and our
`hip.hiprtc` to gfx90a code objects (the ROCm runtime's compiler; no GPU needed).
"""
from __future__ import annotations

import os
import re
import struct
import sys
from pathlib import Path

import pytest

from conftest import cuda_includes, library_module

from hip_as_cuda import nvrtc_options as nv
from hip_as_cuda.nvrtc_options import default_arch, translate, translate_source

ARCH = "gfx90a"
EM_AMDGPU = 224


# -- NVRTC's documented options, from nvrtc.h ------------------------------------------------------
def _nvrtc_header() -> Path | None:
    """nvrtc.h of a CUDA toolkit or of NVIDIA's nvidia-cuda-nvrtc wheel (build/cuda-pypi/include,
    $HIP_PYTHON_CUDA_INCLUDE, /usr/local/cuda/include, or the wheel installed in this Python)."""
    dirs = [Path(d) for d in cuda_includes()]
    dirs += [Path(p) / "nvidia" / "cuda_nvrtc" / "include" for p in sys.path if p]
    dirs += [Path("/usr/local/cuda/include")]
    for d in dirs:
        if (d / "nvrtc.h").is_file():
            return d / "nvrtc.h"
    return None


# A sample argument for each kind of placeholder nvrtc.h uses (`\<def\>`, `<file-name>`, ...).
def _sample_values(placeholder: str, archs: list, tmp: Path) -> list:
    samples = {
        "arch": archs, "def": ["FOO", "FOO=2"], "dir": [str(tmp / "inc")], "header": [str(tmp / "pre.h")],
        "N": ["32"], "options": ["-v"], "file-name": ["times.csv"], "error-number": ["177"],
        "kind": ["inline"], "number-of-threads": ["4"], "directory-name": [str(tmp / "pch")],
    }
    return samples.get(placeholder, ["x"])


def documented_options(tmp: Path) -> list:
    """[(NVRTC spelling, [argument strings for nvrtcCompileProgram])] for every option of nvrtc.h's
    option list, in every spelling it documents: long and short name, `name=value` and `name`,
    `value` as two strings, and for -D/-U/-I the value joined (`-DFOO`)."""
    header = _nvrtc_header()
    if header is None:
        pytest.skip("no nvrtc.h to read NVRTC's option list from: tools/fetch_cuda_headers.sh fetches "
                    "NVIDIA's wheels into build/cuda-pypi/include (or set HIP_PYTHON_CUDA_INCLUDE)")
    text = header.read_text(errors="replace")
    block = text[text.index("\\defgroup options"):]
    block = block[:block.index("*/")]
    bullet = re.compile(r"^\s*\*\s+- \\c (\S+)(.*)$")
    lines = [re.sub(r"^\s*\*\s?", "", line).strip() for line in block.splitlines()]
    options, archs = [], []
    for k, line in enumerate(block.splitlines()):
        m = bullet.match(line)
        if not m:
            continue
        head, rest = m.group(1), m.group(2)
        if "(\\c" not in rest and k + 1 < len(lines) and lines[k + 1].startswith("(\\c"):
            rest += " " + lines[k + 1]                   # the short name on the next line
        if not head.startswith("-"):
            if re.fullmatch(r"(sm|compute)_\w+", head):
                archs.append(head)
            continue
        options.append((head, rest))
    assert len(options) > 40 and archs, f"nvrtc.h's option list did not parse ({header})"

    cases = []
    for head, rest in options:
        name, _, arg = head.partition("=")
        short = re.search(r"\(\\c (-[\w-]+)", rest)
        names = [name] + ([short.group(1)] if short and short.group(1) != name else [])
        spec = arg or rest.split("(\\c")[0].strip()
        spec = spec.replace("\\<", "<").replace("\\>", ">").replace("\\c", "").strip()
        if spec.startswith("{"):
            values = spec.strip("{}").split("|")
        elif spec.startswith("<"):                       # `<def>`, `<error-number>,...`
            values = _sample_values(re.match(r"<([^>]+)>", spec).group(1), archs, tmp)
        elif spec.startswith("["):
            values = ["50"]
        elif spec:                                       # `--dopt \c on`
            values = [spec]
        else:
            values = []
        for n in names:
            if not values:
                cases.append((n, [n]))
            for v in values:
                cases.append((n, [f"{n}={v}"]))
                cases.append((n, [n, v]))
                if len(n) == 2:                          # -D, -U, -I: the value joined
                    cases.append((n, [f"{n}{v}"]))
    return cases


@pytest.fixture(scope="module")
def doc_cases(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nvrtc_doc")
    (tmp / "inc").mkdir()
    (tmp / "pre.h").write_text("#define PRE_INCLUDED 1\n")
    return documented_options(tmp)


def test_every_documented_option_is_in_the_table(doc_cases):
    documented = {name for name, _ in doc_cases}
    known = {name for row in nv.OPTIONS for name in row.names}
    assert documented - known == set(), "NVRTC options the table lacks"


def test_every_documented_spelling_translates_without_error(doc_cases):
    baseline, _ = translate([], "amd", ARCH)
    for name, argv in doc_cases:
        out, warnings = translate([a.encode() for a in argv], "amd", ARCH)
        assert all(isinstance(o, bytes) for o in out) and all(isinstance(w, str) for w in warnings)
        assert [o for o in out if o.startswith(b"--offload-arch=")] == [f"--offload-arch={ARCH}".encode()], argv
        assert len([o for o in out if o.startswith(b"-std=")]) == 1, argv
        assert not any("does not know" in w or "needs a value" in w or "not true or false" in w
                       for w in warnings), (argv, warnings)
        assert all("\n" not in w for w in warnings)
        # Translated (hiprtc gets something new), or dropped with a warning naming the option;
        # except where the option asks for what hiprtc gets anyway: an NVIDIA architecture
        # (--offload-arch of the device), --dopt on, --std=c++17, correctly rounded division.
        row = nv._BY_NAME[name]
        asks_default = row.to in ("arch", "dopt") or (row.to == "std" and argv[-1].endswith("c++17")) or \
            (row.to == "prec" and argv[-1].endswith("true"))
        if not asks_default:
            assert out != baseline or any(name in w for w in warnings), (argv, out, warnings)


def test_dropped_rows_warn_with_their_reason(doc_cases):
    for name, argv in doc_cases:
        row = nv._BY_NAME[name]
        if row.to == ():
            out, warnings = translate([a.encode() for a in argv], "amd", ARCH)
            assert out == translate([], "amd", ARCH)[0]
            assert len(warnings) == 1 and name in warnings[0] and row.why in warnings[0], (argv, warnings)


def test_nvidia_passes_every_documented_option_through(doc_cases):
    for _, argv in doc_cases:
        options = [a.encode() for a in argv]
        assert translate(options, "nvidia", ARCH) == (options, [])
    everything = [a.encode() for _, argv in doc_cases for a in argv] + [b"--made-up-option"]
    assert translate(everything, "nvidia", None) == (everything, [])


# -- The translation decisions ---------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["--gpu-architecture=sm_80"], ["--gpu-architecture", "compute_90"], ["-arch=sm_90a"], ["-arch", "lto_89"],
    ["-arch=compute_100f"], ["-arch sm_75"],
])
def test_nvidia_architectures_become_the_device_target(argv):
    out, warnings = translate([a.encode() for a in argv], "amd", "gfx942:sramecc+:xnack-")
    assert out == [b"--offload-arch=gfx942:sramecc+:xnack-", b"-std=c++17"] and warnings == []


def test_an_amd_target_is_taken_as_given():
    assert translate([b"-arch=gfx1100"], "amd", ARCH)[0][0] == b"--offload-arch=gfx1100"
    assert translate([b"--offload-arch=gfx908"], "amd", ARCH)[0][0] == b"--offload-arch=gfx908"


def test_no_architecture_still_names_the_device_and_nvrtcs_dialect():
    assert translate([], "amd", "gfx90a") == ([b"--offload-arch=gfx90a", b"-std=c++17"], [])
    assert translate(None, "amd", "gfx90a") == ([b"--offload-arch=gfx90a", b"-std=c++17"], [])


def test_an_unknown_architecture_warns_and_uses_the_device():
    out, warnings = translate([b"-arch=native"], "amd", "gfx90a")
    assert out[0] == b"--offload-arch=gfx90a"
    assert len(warnings) == 1 and "-arch=native" in warnings[0]


def test_default_arch(monkeypatch):
    monkeypatch.delenv(nv.ARCH_ENV, raising=False)
    assert default_arch(None) == "gfx90a"
    assert default_arch("") == "gfx90a"
    assert default_arch("gfx942") == "gfx942"
    monkeypatch.setenv(nv.ARCH_ENV, "gfx1030")
    assert default_arch(None) == "gfx1030"
    assert default_arch("gfx942") == "gfx942"                    # the device wins
    assert translate([b"-arch=sm_80"], "amd", None)[0][0] == b"--offload-arch=gfx1030"
    monkeypatch.setenv(nv.ARCH_ENV, "  ")
    assert default_arch(None) == "gfx90a"


@pytest.mark.parametrize("std,clang,warns", [
    ("c++03", "c++11", True), ("c++11", "c++11", False), ("c++14", "c++14", False),
    ("c++17", "c++17", False), ("c++20", "c++20", False), ("c++23", "c++17", True),
])
def test_std(std, clang, warns):
    for argv in ([f"--std={std}"], [f"-std={std}"], ["-std", std]):
        out, warnings = translate([a.encode() for a in argv], "amd", ARCH)
        assert out == [f"--offload-arch={ARCH}".encode(), f"-std={clang}".encode()]
        assert bool(warnings) == warns


def test_debug_and_line_info():
    assert translate([b"-G"], "amd", ARCH)[0][2:] == [b"-g", b"-O0"]
    assert translate([b"--device-debug", b"--dopt=on"], "amd", ARCH)[0][2:] == [b"-g"]
    assert translate([b"-dopt", b"on", b"-G"], "amd", ARCH)[0][2:] == [b"-g"]
    assert translate([b"-lineinfo"], "amd", ARCH)[0][2:] == [b"-gline-tables-only"]


def test_math_options():
    extra = lambda argv: translate(argv, "amd", ARCH)[0][2:]   # noqa: E731
    assert extra([b"--use_fast_math"]) == [b"-ffast-math", b"-fno-finite-math-only",
                                           b"-fgpu-flush-denormals-to-zero",
                                           b"-fno-hip-fp32-correctly-rounded-divide-sqrt"]
    assert extra([b"--fmad=false"]) == [b"-ffp-contract=off"]
    assert extra([b"-fmad", b"true"]) == [b"-ffp-contract=fast"]
    assert extra([b"--ftz=true"]) == [b"-fgpu-flush-denormals-to-zero"]
    assert extra([b"--prec-div=false", b"--prec-sqrt=false"]) == [b"-fno-hip-fp32-correctly-rounded-divide-sqrt"]
    assert extra([b"--prec-div=true", b"--prec-sqrt=true"]) == []
    out, warnings = translate([b"--prec-div=false"], "amd", ARCH)
    assert out[2:] == [] and len(warnings) == 1 and "--prec-div=false" in warnings[0]
    out, warnings = translate([b"--use_fast_math", b"--prec-sqrt=true"], "amd", ARCH)
    assert out[-1] == b"-fhip-fp32-correctly-rounded-divide-sqrt" and len(warnings) == 1


def test_relocatable_code():
    for argv in ([b"-rdc=true"], [b"--relocatable-device-code", b"true"], [b"-dc"], [b"-rdc"], [b"-dlto"]):
        assert translate(argv, "amd", ARCH)[0][2:] == [b"-fgpu-rdc"], argv
    assert translate([b"-rdc=false"], "amd", ARCH)[0][2:] == [b"-fno-gpu-rdc"]


def test_preprocessor_options(tmp_path):
    argv = [b"-DA", b"-D", b"B=2", b"-D=C", b"-D D=4", b"--define-macro=E", b"--define-macro", b"F",
            b"-UG", b"--undefine-macro=H", b"-I/opt/x/include", b"--include-path", b"/opt/y"]
    out, warnings = translate(argv, "amd", ARCH)
    assert out[2:] == [b"-DA", b"-DB=2", b"-DC", b"-DD=4", b"-DE", b"-DF", b"-UG", b"-UH",
                       b"-I/opt/x/include", b"-I/opt/y"]
    assert warnings == []
    assert translate([b"-include", str(tmp_path / "a.h").encode()], "amd", ARCH)[0][2:] == \
        [b"-include", str(tmp_path / "a.h").encode()]
    # A CUDA header pre-included is the prelude's business.
    assert translate([b"--pre-include=cuda_fp16.h"], "amd", ARCH) == translate([], "amd", ARCH)
    assert translate([b"-include", b"climits"], "amd", ARCH)[0][2:] == [b"-DHIP_AS_CUDA_NEED_LIMITS=1"]


def test_cuda_toolkit_include_paths_are_dropped(tmp_path):
    toolkit = cuda_includes() + ["/usr/local/cuda/include", "/usr/local/cuda-12.4/targets/x86_64-linux/include"]
    for d in toolkit:
        out, warnings = translate([f"-I{d}".encode()], "amd", ARCH)
        assert out[2:] == [] and len(warnings) == 1 and d in warnings[0]
    wheel = tmp_path / "site-packages" / "nvidia" / "cuda_runtime" / "include"
    wheel.mkdir(parents=True)
    (wheel / "cuda_runtime.h").write_text("")
    assert translate([b"-I", str(wheel).encode()], "amd", ARCH)[0][2:] == []
    mine = tmp_path / "mycuda_kernels" / "include"             # a project's own headers stay
    mine.mkdir(parents=True)
    (mine / "kernels.cuh").write_text("")
    assert translate([f"-I{mine}".encode()], "amd", ARCH) == ([b"--offload-arch=gfx90a", b"-std=c++17",
                                                                f"-I{mine}".encode()], [])


def test_other_translations():
    extra = lambda argv: translate(argv, "amd", ARCH)[0][2:]   # noqa: E731
    assert extra([b"-w"]) == extra([b"--disable-warnings"]) == [b"-w"]
    assert extra([b"-default-device"]) == [b"-DHIP_AS_CUDA_DEFAULT_DEVICE=1"]
    assert extra([b"-device-int128"]) == [b"-D__CUDACC_RTC_INT128__=1"]
    assert extra([b"--optimization-info=inline"]) == [b"-Rpass=inline"]
    assert extra([b"-brief-diag=true"]) == [b"-fno-caret-diagnostics"]
    assert extra([b"-O3", b"-g", b"-ffast-math"]) == [b"-O3", b"-g", b"-ffast-math"]


def test_unknown_and_malformed_options_warn_never_raise():
    argv = [b"--made-up", b"-Wall", b"-arch", b"-rdc=maybe", b"--maxrregcount", b"-Xptxas", b"-v", b"", b"\xff"]
    out, warnings = translate(argv, "amd", ARCH)
    assert out == [b"--offload-arch=gfx90a", b"-std=c++17"]
    for needle in ("--made-up", "-Wall", "'-arch'", "-rdc=maybe", "--maxrregcount", "-Xptxas -v"):
        assert any(needle in w for w in warnings), (needle, warnings)


def test_str_options_and_bad_input():
    assert translate(["-arch=sm_80", "-DX"], "amd", ARCH)[0] == [b"--offload-arch=gfx90a", b"-std=c++17", b"-DX"]
    with pytest.raises(ValueError):
        translate([], "rocm", ARCH)
    with pytest.raises(TypeError):
        translate(b"-arch=sm_80", "amd", ARCH)
    with pytest.raises(TypeError):
        translate([80], "amd", ARCH)
    with pytest.raises(ValueError):
        translate_source(b"", "cuda")
    with pytest.raises(TypeError):
        translate_source(1234, "amd")


def test_tables_are_complete():
    for row in nv.OPTIONS:
        assert row.names and row.why and row.arg in ("", "bool", "value", "raw", "joined")
        assert isinstance(row.to, (tuple, dict)) or row.to in nv._RULES
        if row.arg == "bool" and isinstance(row.to, dict):
            assert set(row.to) == {"true", "false"}
    for name, header in nv.HEADER_MAP.items():
        assert header.why and (header.section is None or
                               f"HIP_AS_CUDA_NEED_{header.section}" in nv.prelude().decode()), name


# -- translate_source --------------------------------------------------------------------------------
SOURCE = b"""#include <cuda_runtime.h>
#include "cuda_fp16.h"
#  include <climits>
#include <my_own.h>
extern "C" __global__ void k(int* x) { x[0] = INT_MAX; }
"""


def test_translate_source_nvidia_is_unchanged():
    assert translate_source(SOURCE, "nvidia") is not None
    assert translate_source(SOURCE, "nvidia") == SOURCE
    assert translate_source(SOURCE.decode(), "nvidia") == SOURCE


def test_translate_source_amd():
    out = translate_source(SOURCE, "amd")
    head, _, body = out.partition(b"\n#line 1\n")
    assert nv.prelude() in head and head.startswith(b"#define HIP_AS_CUDA_NEED_LIMITS 1\n")
    lines = body.splitlines()
    assert len(lines) == len(SOURCE.splitlines())                # line numbers are the source's
    assert lines[0].startswith(b"// hip_as_cuda: #include <cuda_runtime.h> (HIP's <hip/hip_runtime.h>)")
    assert lines[1].startswith(b"// hip_as_cuda: #include <cuda_fp16.h>")
    assert lines[2].startswith(b"// hip_as_cuda: #include <climits>")
    assert lines[3] == b"#include <my_own.h>"                    # not CUDA's: left to the include path
    assert lines[4] == SOURCE.splitlines()[4]


def test_translate_source_headers():
    header = b"#pragma once\n#include <cfloat>\n__device__ float big() { return FLT_MAX; }\n"
    assert translate_source(header, "amd", add_prelude=False) == (
        b"#pragma once\n// hip_as_cuda: #include <cfloat>: " + nv.HEADER_MAP["cfloat"].why.encode() +
        b"\n__device__ float big() { return FLT_MAX; }\n")
    out = translate_source(b'#include "big.h"\n', "amd", headers=[header])
    assert out.startswith(b"#define HIP_AS_CUDA_NEED_FLOAT 1\n")


# -- Compiling CUDA kernels with hiprtc ----------------------------------------------------------------
# name: (source, NVRTC options, symbols the code object must hold). The comment of each says which
# prelude entries it needs (without them hiprtc 5.2 fails on exactly those).
KERNELS = {
    # Needs nothing: HIP has all of it.
    "vector_add": (r'''
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}''', ["--gpu-architecture=sm_80"], ["vector_add"]),
    # <cuda_runtime.h> (HEADER_MAP), __shfl_down_sync, warpSize 32.
    "reduce_shfl": (r'''
#include <cuda_runtime.h>
#define FULL_MASK 0xffffffff
__inline__ __device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}
extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / warpSize) ? partial[lane] : 0.f;
  if (warp == 0) v = warp_sum(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}''', ["-arch=compute_80", "--use_fast_math"], ["reduce_sum"]),
    # <cuda_fp16.h> (HEADER_MAP), __hmax/__hmin.
    "half": (r'''
#include <cuda_fp16.h>
extern "C" __global__ void haxpy(int n, __half a, const __half* x, __half* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
  if (i < n / 2) {
    const __half2* x2 = reinterpret_cast<const __half2*>(x);
    float2 f = __half22float2(__hmul2(__half2half2(a), x2[i]));
    y[i] = __hmax(__float2half(f.x + f.y), __hmin(x[i], a));
  }
}''', ["-arch=sm_75", "--fmad=true"], ["haxpy"]),
    # <cooperative_groups.h> (HEADER_MAP) and the prelude's cooperative groups: grid sync, tiles, reduce.
    "coop_grid_sync": (r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void two_phase(float* data, float* sums, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  unsigned long long i = grid.thread_rank();
  if (i < (unsigned long long)n) data[i] *= 2.f;
  grid.sync();
  if (block.thread_rank() == 0) sums[blockIdx.x] = data[block.group_index().x * block.num_threads()];
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = cg::reduce(tile, data[i % n], cg::plus<float>());
  if (tile.thread_rank() == 0) atomicAdd(&sums[0], v);
}''', ["-arch=sm_90"], ["two_phase"]),
    # Nothing from the prelude; -std=c++17 (also NVRTC's default, which translate adds).
    "template_cxx17": (r'''
template <typename T, int N> struct Vec { T v[N]; };
template <typename T> __device__ constexpr T zero() { if constexpr (sizeof(T) == 8) return T(0); else return T{}; }
template <typename T, int BLOCK>
__global__ void scale(T* x, T a, int n) {
  auto [lo, hi] = Vec<int, 2>{{0, n}}.v;
  (void)lo;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < hi) x[i] = x[i] * a + zero<T>();
}
template __global__ void scale<float, 256>(float*, float, int);
template __global__ void scale<double, 128>(double*, double, int);
''', ["--std=c++17", "-arch=sm_80"], ["_Z5scaleIfLi256EEvPT_S0_i", "_Z5scaleIdLi128EEvPT_S0_i"]),
    # atomicAdd_block (and the other _block forms).
    "atomics": (r'''
extern "C" __global__ void histogram(const unsigned char* in, unsigned* bins, int n,
                                     unsigned long long* total, int* maxv, float* fsum, double* dsum) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd_block(&local[in[i]], 1u);
    atomicMax_block(maxv, (int)in[i]);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
  atomicAdd(total, 1ull); atomicAdd(fsum, 1.0f); atomicAdd_system(dsum, 1.0);
  atomicCAS(&bins[0], 0u, 1u); atomicExch(maxv, 0); atomicInc(&bins[1], 100u); atomicDec(&bins[2], 100u);
  atomicAnd(&bins[3], 1u); atomicOr(&bins[4], 1u); atomicXor(&bins[5], 1u); atomicSub(&bins[6], 1u);
}''', ["-arch=sm_70"], ["histogram"]),
    # __ballot_sync, __shfl_sync, __shfl_up_sync, __any_sync, __all_sync, __activemask, __syncwarp.
    "warp_vote_scan": (r'''
extern "C" __global__ void compact(const int* in, int* out, unsigned* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  bool keep = i < n && in[i] > 0;
  unsigned mask = __ballot_sync(0xffffffffu, keep);
  int prefix = __popc(mask & ((1u << lane) - 1));
  unsigned base = 0;
  if (lane == 0) base = atomicAdd(count, (unsigned)__popc(mask));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep) out[base + prefix] = in[i];
  int x = keep;
  for (int d = 1; d < 32; d <<= 1) { int y = __shfl_up_sync(0xffffffffu, x, d); if (lane >= d) x += y; }
  if (__any_sync(__activemask(), x > 100) && __all_sync(0xffffffffu, x >= 0)) __syncwarp();
}''', ["-arch=sm_80"], ["compact"]),
    # The prelude's coalesced_threads, tiled_partition<16>, inclusive/exclusive_scan.
    "warp_aggregated_atomics": (r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ int atomicAggInc(int* ctr) {
  cg::coalesced_group active = cg::coalesced_threads();
  int res;
  if (active.thread_rank() == 0) res = atomicAdd(ctr, active.size());
  res = active.shfl(res, 0);
  return res + active.thread_rank();
}
extern "C" __global__ void filter(const int* in, int* out, int* ctr, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n && in[i] > 0) out[atomicAggInc(ctr)] = in[i];
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  int s = cg::inclusive_scan(tile, i), e = cg::exclusive_scan(tile, i);
  if (tile.any(s > 3) && tile.all(e >= 0)) out[0] = tile.ballot(1) + tile.meta_group_rank();
  cg::sync(tile);
}''', ["-arch=sm_80"], ["filter"]),
    # sm_70/sm_80 warp functions: __reduce_*_sync, __match_*_sync; __nanosleep.
    "sm80_warp": (r'''
extern "C" __global__ void k80(unsigned* x, float* f) {
  unsigned v = x[threadIdx.x];
  unsigned s = __reduce_add_sync(0xffffffffu, v) + __reduce_max_sync(0x0000ffffu, v) + __reduce_or_sync(0xffffffffu, v);
  unsigned m = __match_any_sync(0xffffffffu, v);
  int pred; unsigned a = __match_all_sync(0xffffffffu, f[0], &pred);
  x[threadIdx.x] = s + m + a + pred;
  __nanosleep(100);
  f[0] = __shfl_xor_sync(0xffffffffu, f[0], 1, 16);
}''', ["-arch=sm_80"], ["k80"]),
    # __shfl_down_sync of __half2, atomicAdd(__half2*) and atomicAdd(__half*).
    "half_shfl_atomics": (r'''
#include <cuda_fp16.h>
extern "C" __global__ void hsum(__half2* h, __half* g) {
  __half2 v = h[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v = __hadd2(v, __shfl_down_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0) { atomicAdd(&h[0], v); atomicAdd(&g[1], __low2half(v)); }
}''', ["-arch=sm_80"], ["hsum"]),
    # Standard headers (HEADER_MAP): the STDINT, LIMITS, FLOAT, MATH, MATH_CONSTANTS sections; assert.
    "std_headers": (r'''
#include <cstdint>
#include <climits>
#include <cfloat>
#include <cmath>
#include <cassert>
#include <cstdio>
#include <math_constants.h>
extern "C" __global__ void consts(float* x, int8_t* b, uint16_t* s, int* i) {
  assert(x != nullptr);
  float m = -FLT_MAX; int lo = INT_MAX;
  if (isinf(x[0]) || x[0] == INFINITY) x[0] = CUDART_PI_F * M_PI;
  i[0] = lo; b[0] = (int8_t)m; s[0] = (uint16_t)USHRT_MAX;
  printf("%f\n", x[0]);
}''', ["-arch=sm_80"], ["consts"]),
    # __CUDACC__ (host-device macros) and __CUDA_ARCH__ (device path).
    "host_device_split": (r'''
#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif
struct Complex { float re, im; HD Complex operator*(const Complex& o) const { return {re*o.re - im*o.im, re*o.im + im*o.re}; } };
HD inline float where() {
#ifdef __CUDA_ARCH__
  return 1.f;
#else
  return host_only_function();
#endif
}
extern "C" __global__ void cmul(Complex* c) { c[0] = c[1] * c[2]; c[0].re += where(); }''', ["-arch=sm_80"], ["cmul"]),
    # A pre-sm_60 atomicAdd(double*, double) of the source's own, under __CUDA_ARCH__ < 600: the
    # prelude's atomicAdd lets it overload instead of redefining HIP's.
    "own_double_atomicadd": (r'''
#if __CUDA_ARCH__ < 600
__device__ double atomicAdd(double* address, double val) {
  unsigned long long* a = (unsigned long long*)address;
  unsigned long long old = *a, assumed;
  do { assumed = old; old = atomicCAS(a, assumed, __double_as_longlong(val + __longlong_as_double(assumed))); } while (assumed != old);
  return __longlong_as_double(old);
}
#endif
extern "C" __global__ void dadd(double* d, float* f) { atomicAdd(d, 1.0); atomicAdd(f, 1.0f); }''', ["-arch=sm_80"], ["dadd"]),
    # cudaTextureObject_t, cudaSurfaceObject_t.
    "texture_objects": (r'''
extern "C" __global__ void tex(cudaTextureObject_t t, cudaSurfaceObject_t s, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  out[x] = tex1Dfetch<float>(t, x) + tex2D<float>(t, x + 0.5f, 0.5f);
  surf2Dwrite(out[x], s, x * 4, 0);
}''', ["-arch=sm_80"], ["tex"]),
    # __dp4a, llmax, umin, __ldcg, __stcs.
    "misc_intrinsics": (r'''
extern "C" __global__ void misc(int* x, unsigned* u, long long* l) {
  x[0] = __dp4a(x[1], x[2], x[3]); u[0] = __dp4a(u[1], u[2], u[3]);
  l[0] = llmax(l[1], l[2]) + umin(u[1], u[2]);
  x[4] = __ldcg(&x[5]); __stcs(&x[6], 1);
}''', ["-arch=sm_80"], ["misc"]),
    # -default-device: the prelude's force_cuda_host_device pragma.
    "default_device": (r'''
float square(float a) { return a * a; }
struct Acc { float v = 0; void add(float x) { v += square(x); } };
extern "C" __global__ void dd(float* x) { Acc a; a.add(x[threadIdx.x]); x[threadIdx.x] = a.v; }''',
                       ["-arch=sm_80", "-default-device"], ["dd"]),
}

# What hiprtc cannot compile even with the prelude, and the error it gives (ROCm 5.2).
GAPS = {
    "inline_ptx": (r'''extern "C" __global__ void k(unsigned* x) { unsigned l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); x[0] = l; }''',
                   [], "cannot compile inline asm"),
    "bf16": ("#include <cuda_bf16.h>\n"
             r'''extern "C" __global__ void k(__nv_bfloat16* x) { x[0] = __float2bfloat16(__bfloat162float(x[1]) * 2.f); }''',
             [], "unknown type name '__nv_bfloat16'"),
    "threadIdx_as_uint3": (r'''extern "C" __global__ void k(unsigned* x) { uint3 t = threadIdx; x[0] = t.x; }''',
                           [], "no viable conversion"),
    "libcudacxx": ("#include <cuda/std/cstdint>\n" r'''extern "C" __global__ void k(int* x) { x[0] = 1; }''',
                   [], "'cuda/std/cstdint' file not found"),
    "default_device_explicit_instantiation": (
        "template <class T> __global__ void k(T* x) { x[0] = T(1); }\ntemplate __global__ void k<float>(float*);",
        ["-default-device"], "'global' and 'device' attributes are not compatible"),
}


@pytest.fixture(scope="module")
def hiprtc():
    return library_module("hiprtc")


def compile_cuda(hiprtc, source: str, options: list, name: bytes = b"prog.cu"):
    """(status, log, code object) of a CUDA source compiled as the nvrtc bridge does on AMD."""
    opts, warnings = translate([o.encode() for o in options], "amd", ARCH)
    src = translate_source(source.encode(), "amd")
    err, prog = hiprtc.hiprtcCreateProgram(src, name, 0, None, None)
    assert err is hiprtc.hiprtcResult.HIPRTC_SUCCESS
    try:
        status = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)[0]
        err, n = hiprtc.hiprtcGetProgramLogSize(prog)
        buf = bytearray(n)
        hiprtc.hiprtcGetProgramLog(prog, buf)
        log = bytes(buf).rstrip(b"\0").decode(errors="replace")
        code = b""
        if status is hiprtc.hiprtcResult.HIPRTC_SUCCESS:
            err, n = hiprtc.hiprtcGetCodeSize(prog)
            code = bytearray(n)
            assert hiprtc.hiprtcGetCode(prog, code)[0] is hiprtc.hiprtcResult.HIPRTC_SUCCESS
        return status, log, bytes(code)
    finally:
        hiprtc.hiprtcDestroyProgram(prog)


@pytest.mark.runtime
@pytest.mark.parametrize("name", list(KERNELS))
def test_cuda_kernel_compiles_to_a_gfx90a_code_object(hiprtc, name):
    source, options, symbols = KERNELS[name]
    status, log, code = compile_cuda(hiprtc, source, options)
    assert status is hiprtc.hiprtcResult.HIPRTC_SUCCESS, log
    assert code[:4] == b"\x7fELF" and struct.unpack_from("<H", code, 18)[0] == EM_AMDGPU
    assert ARCH.encode() in code                                 # amdgcn-amd-amdhsa--gfx90a
    for symbol in symbols:
        assert f"{symbol}.kd".encode() in code, symbol           # a kernel descriptor: a kernel


@pytest.mark.runtime
def test_every_translated_option_is_accepted_by_hiprtc(hiprtc, doc_cases):
    """All that translate makes of NVRTC's documented options, in one compile: hiprtc fails a
    compile on an option it does not know."""
    union: list = []
    for _, argv in doc_cases:
        out = translate([a.encode() for a in argv], "amd", ARCH)[0][2:]
        for i, o in enumerate(out):
            if o == b"-include" or out[i - 1:i] == [b"-include"]:
                continue
            if o not in union:
                union.append(o)
    pre = [argv for _, argv in doc_cases if argv[0] == "-include" and len(argv) == 2][0]
    union += translate([a.encode() for a in pre], "amd", ARCH)[0][2:]
    assert union[-2] == b"-include"
    opts = [f"--offload-arch={ARCH}".encode(), b"-std=c++17"] + union
    err, prog = hiprtc.hiprtcCreateProgram(KERNELS["vector_add"][0].encode(), b"options.cu", 0, None, None)
    status = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)[0]
    err, n = hiprtc.hiprtcGetProgramLogSize(prog)
    buf = bytearray(n)
    hiprtc.hiprtcGetProgramLog(prog, buf)
    hiprtc.hiprtcDestroyProgram(prog)
    log = bytes(buf).decode(errors="replace")
    assert status is hiprtc.hiprtcResult.HIPRTC_SUCCESS, (opts, log)
    assert "unsupported option" not in log and "unknown argument" not in log, log


@pytest.mark.runtime
def test_errors_keep_the_sources_line_numbers(hiprtc):
    source = "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n\n" \
             'extern "C" __global__ void k(float* x) { x[0] = undefined_name; }\n'
    status, log, _ = compile_cuda(hiprtc, source, [])
    assert status is hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION
    assert re.search(r":4:\d+: error: use of undeclared identifier 'undefined_name'", log), log


@pytest.mark.runtime
@pytest.mark.parametrize("name", list(GAPS))
def test_known_gaps_fail_as_documented(hiprtc, name):
    source, options, error = GAPS[name]
    status, log, _ = compile_cuda(hiprtc, source, ["-arch=sm_80"] + options)
    if status is hiprtc.hiprtcResult.HIPRTC_SUCCESS:
        pytest.skip(f"this hiprtc compiles {name}: the gap is closed here")
    assert error in log, log
