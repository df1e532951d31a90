"""NVRTC compile options and CUDA device sources, made ready for hiprtc.

The `cuda` alias's nvrtc bridge calls this module; it imports nothing from the bindings.

* `translate(options, platform, arch)`: NVRTC options in, hiprtc options and warning texts out.
  On 'amd' every documented NVRTC option is either translated to what hiprtc (clang) understands
  or dropped with a one-line warning naming it (`OPTIONS`, one row per NVRTC option, says which
  and why); an unknown option is dropped the same way. Nothing is ever an error. On 'nvidia' the
  options go to NVRTC unchanged.
* `default_arch(device_arch)`: the AMD target when the NVRTC program named an NVIDIA one: the
  device's gfx name, else $HIP_AS_CUDA_OFFLOAD_ARCH, else gfx90a.
* `translate_source(src, platform)`: on 'amd', CUDA `#include`s that hiprtc cannot resolve
  become comments (`HEADER_MAP`: what HIP provides in their place) and `nvrtc_prelude.h` is put
  in front (warp intrinsics with `_sync` masks, `atomicAdd_block`, cooperative groups, ...).
  On 'nvidia' the source is unchanged.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Union

__all__ = [
    "ARCH_ENV", "DEFAULT_ARCH", "DEFAULT_STD", "HEADER_MAP", "Header", "OPTIONS", "Option", "PLATFORMS",
    "PRELUDE_PATH", "default_arch", "nvidia_arch", "prelude", "translate", "translate_source",
]

PLATFORMS = ("amd", "nvidia")
ARCH_ENV = "HIP_AS_CUDA_OFFLOAD_ARCH"
DEFAULT_ARCH = "gfx90a"
DEFAULT_STD = "c++17"           # NVRTC's default dialect; hiprtc's clang (ROCm 5.2) defaults to C++14
PRELUDE_PATH = Path(__file__).with_name("nvrtc_prelude.h")

# -------------------------------------------------------------------------------------------------
# The option table.
#
# `names`: the NVRTC spellings, long first. `arg`: "" a flag; "bool" takes true|false (a missing
# value reads as true); "value" takes an argument (`--name=v`, `--name v` in one string, or the
# next string unless it starts with '-'); "raw" is "value" whose argument may start with '-';
# "joined" is a one-letter option whose argument may also follow directly (`-DX`, `-D X`, `-D=X`).
# `to`: what hiprtc gets: a tuple of options (empty: dropped with a warning giving `why`), a dict
# from the argument to such a tuple (bool options), or the name of a rule in `_RULES` below.
# `why`: the reason for the row (its comment), and the warning's text when the option is dropped.
# -------------------------------------------------------------------------------------------------
Target = Union[tuple, Mapping[str, tuple], str]


@dataclass(frozen=True)
class Option:
    names: tuple
    arg: str
    to: Target
    why: str


_RDC = ("-fgpu-rdc",)
_NO_RDC = ("-fno-gpu-rdc",)

OPTIONS: tuple = (
    # -- Compilation targets --
    Option(("--gpu-architecture", "-arch"), "value", "arch",
           "sm_XX/compute_XX/lto_XX name NVIDIA GPUs: hiprtc gets the AMD device's --offload-arch"),
    # -- Separate compilation --
    Option(("--device-c", "-dc"), "", _RDC, "relocatable device code is clang's -fgpu-rdc"),
    Option(("--device-w", "-dw"), "", _NO_RDC, "whole-program device code is clang's -fno-gpu-rdc"),
    Option(("--relocatable-device-code", "-rdc"), "bool", {"true": _RDC, "false": _NO_RDC},
           "relocatable device code is clang's -fgpu-rdc"),
    Option(("--extensible-whole-program", "-ewp"), "", (),
           "clang has no extensible whole-program mode (-fgpu-rdc is the relocatable one)"),
    # -- Debugging --
    Option(("--device-debug", "-G"), "", "debug",
           "debug information is -g; like NVRTC's -G it also turns optimization off (-O0) unless --dopt on"),
    Option(("--generate-line-info", "-lineinfo"), "", ("-gline-tables-only",),
           "line-number information only is clang's -gline-tables-only"),
    # -- Code generation --
    Option(("--dopt", "-dopt"), "value", "dopt",
           "device optimization is hiprtc's default; with -G it keeps -O0 away"),
    Option(("--Ofast-compile", "-Ofc"), "value", (),
           "clang has no fast-compile levels; hiprtc keeps its optimization level"),
    Option(("--ptxas-options", "-Xptxas"), "raw", (), "there is no PTX assembler on AMD GPUs"),
    Option(("--maxrregcount", "-maxrregcount"), "value", (),
           "clang has no global register limit (__launch_bounds__ in the source still bounds registers)"),
    Option(("--ftz", "-ftz"), "bool",
           {"true": ("-fgpu-flush-denormals-to-zero",), "false": ("-fno-gpu-flush-denormals-to-zero",)},
           "flushing single-precision denormals is clang's -fgpu-flush-denormals-to-zero"),
    Option(("--prec-sqrt", "-prec-sqrt"), "bool", "prec",
           "clang's -f[no-]hip-fp32-correctly-rounded-divide-sqrt covers division and square root together"),
    Option(("--prec-div", "-prec-div"), "bool", "prec",
           "clang's -f[no-]hip-fp32-correctly-rounded-divide-sqrt covers division and square root together"),
    Option(("--fmad", "-fmad"), "bool", {"true": ("-ffp-contract=fast",), "false": ("-ffp-contract=off",)},
           "contracting multiply-adds is clang's -ffp-contract"),
    Option(("--use_fast_math", "-use_fast_math"), "", "fast-math",
           "clang's -ffast-math, less its finite-math assumption (CUDA's fast math keeps isnan/isinf), "
           "with denormals flushed as --use_fast_math implies --ftz=true; its approximate division and "
           "square root follow the --prec-div/--prec-sqrt rule"),
    Option(("--extra-device-vectorization", "-extra-device-vectorization"), "", (),
           "clang vectorizes device code at hiprtc's -O3 already"),
    Option(("--modify-stack-limit", "-modify-stack-limit"), "bool", (),
           "NVRTC's own process stack limit: hiprtc leaves it alone"),
    Option(("--dlink-time-opt", "-dlto"), "", _RDC,
           "code for link-time optimization: hiprtc's -fgpu-rdc output is LLVM bitcode for hiprtcLink*"),
    Option(("--gen-opt-lto", "-gen-opt-lto"), "", (), "clang has no switch to optimize before emitting LTO bitcode"),
    Option(("--optix-ir", "-optix-ir"), "", (), "OptiX IR is NVIDIA's"),
    Option(("--jump-table-density", "-jtd"), "value", (), "clang has no jump-table density threshold option"),
    Option(("--device-stack-protector", "-device-stack-protector"), "bool", (),
           "hiprtc has no stack protector for AMD GPU code"),
    Option(("--no-cache", "-no-cache"), "", (), "NVRTC's own cache: hiprtc has none to disable"),
    Option(("--frandom-seed", "-frandom-seed"), "value", (), "clang's output has no random names to seed"),
    # -- Preprocessing --
    Option(("--define-macro", "-D"), "joined", "define", "macro definitions are the same in clang"),
    Option(("--undefine-macro", "-U"), "joined", "undefine", "macro removals are the same in clang"),
    Option(("--include-path", "-I"), "joined", "include",
           "include paths are kept, except a CUDA toolkit's: its headers are NVIDIA's, and HIP's "
           "replace them (HEADER_MAP)"),
    Option(("--pre-include", "-include"), "value", "pre-include",
           "a pre-included header is clang's -include; a CUDA header is provided by the prelude instead"),
    Option(("--no-source-include", "-no-source-include"), "", (),
           "hiprtc sources have no directory to add to the include path"),
    # -- Language dialect --
    Option(("--std", "-std"), "value", "std",
           "the dialect is clang's -std= (C++03 becomes C++11: HIP's headers need it); without one, "
           "NVRTC's default C++17"),
    Option(("--builtin-move-forward", "-builtin-move-forward"), "bool", (),
           "clang has no switch for NVRTC's built-in std::move/std::forward"),
    Option(("--builtin-initializer-list", "-builtin-initializer-list"), "bool", (),
           "clang has no switch for NVRTC's built-in std::initializer_list"),
    # -- Precompiled headers (NVRTC's own) --
    Option(("--pch", "-pch"), "", (), "NVRTC's precompiled headers have no hiprtc counterpart"),
    Option(("--create-pch", "-create-pch"), "value", (), "NVRTC's precompiled headers have no hiprtc counterpart"),
    Option(("--use-pch", "-use-pch"), "value", (), "NVRTC's precompiled headers have no hiprtc counterpart"),
    Option(("--pch-dir", "-pch-dir"), "value", (), "NVRTC's precompiled headers have no hiprtc counterpart"),
    Option(("--pch-verbose", "-pch-verbose"), "bool", (), "NVRTC's precompiled headers have no hiprtc counterpart"),
    Option(("--pch-messages", "-pch-messages"), "bool", (), "NVRTC's precompiled headers have no hiprtc counterpart"),
    Option(("--instantiate-templates-in-pch", "-instantiate-templates-in-pch"), "bool", (),
           "NVRTC's precompiled headers have no hiprtc counterpart"),
    # -- Miscellaneous --
    Option(("--disable-warnings", "-w"), "", ("-w",), "inhibiting warnings is clang's -w"),
    Option(("--restrict", "-restrict"), "", (),
           "clang has no switch asserting that all kernel pointer parameters are restrict"),
    Option(("--device-as-default-execution-space", "-default-device"), "", ("-DHIP_AS_CUDA_DEFAULT_DEVICE=1",),
           "the prelude turns on clang's `#pragma clang force_cuda_host_device begin` for it: functions "
           "without an execution space become __host__ __device__"),
    Option(("--device-int128", "-device-int128"), "", ("-D__CUDACC_RTC_INT128__=1",),
           "clang has __int128 in AMD GPU code already; NVRTC also defines __CUDACC_RTC_INT128__"),
    Option(("--device-float128", "-device-float128"), "", (), "AMD GPU code has no __float128"),
    Option(("--optimization-info", "-opt-info"), "value", "opt-info",
           "optimization remarks are clang's -Rpass= (inline: -Rpass=inline)"),
    Option(("--display-error-number", "-err-no"), "", (), "clang's diagnostics carry no numbers"),
    Option(("--no-display-error-number", "-no-err-no"), "", (), "clang's diagnostics carry no numbers"),
    Option(("--diag-error", "-diag-error"), "value", (), "NVRTC's diagnostic numbers name no clang diagnostic"),
    Option(("--diag-suppress", "-diag-suppress"), "value", (), "NVRTC's diagnostic numbers name no clang diagnostic"),
    Option(("--diag-warn", "-diag-warn"), "value", (), "NVRTC's diagnostic numbers name no clang diagnostic"),
    Option(("--brief-diagnostics", "-brief-diag"), "bool",
           {"true": ("-fno-caret-diagnostics",), "false": ("-fcaret-diagnostics",)},
           "leaving out the source line of a diagnostic is clang's -fno-caret-diagnostics"),
    Option(("--time", "-time"), "value", (),
           "clang's timing report (-ftime-report) goes to stderr, not to a CSV file or the log"),
    Option(("--split-compile", "-split-compile"), "value", (), "hiprtc has no parallel split compilation"),
    Option(("--fdevice-syntax-only", "-fdevice-syntax-only"), "", (),
           "hiprtc fails a compile that produces no code object"),
    Option(("--minimal", "-minimal"), "", (), "hiprtc always pre-includes its HIP header"),
    Option(("--fdevice-time-trace", "-fdevice-time-trace"), "value", (),
           "hiprtc has no way to return clang's -ftime-trace file"),
    # -- hiprtc's own, for programs written against the alias: passed on --
    Option(("--offload-arch",), "value", "offload-arch", "an AMD target, named directly"),
    Option(("-O0", "-O1", "-O2", "-O3"), "", "keep", "clang's optimization level"),
    Option(("-g",), "", "keep", "clang's debug information"),
    Option(("-ffast-math",), "", "keep", "clang's fast math"),
    Option(("-fgpu-rdc",), "", "keep", "clang's relocatable device code"),
)

# -- Arguments of the rules ------------------------------------------------------------------------
_NVIDIA_ARCH = re.compile(r"(sm|compute|lto)_(\d+)([a-z]?)")
_STD = {    # NVRTC's dialects -> clang's
    "c++03": "c++11",   # HIP's headers need C++11: hiprtc fails on -std=c++03
    "c++11": "c++11", "c++14": "c++14", "c++17": "c++17", "c++20": "c++20",
}
_OPT_INFO = {"inline": "-Rpass=inline"}
_FAST_MATH = ("-ffast-math", "-fno-finite-math-only", "-fgpu-flush-denormals-to-zero")
_PREC_FLAG = {True: "-fhip-fp32-correctly-rounded-divide-sqrt", False: "-fno-hip-fp32-correctly-rounded-divide-sqrt"}
# A directory holding any of these is a CUDA toolkit's include directory (or NVIDIA's pip wheels').
_CUDA_TOOLKIT_MARKERS = ("cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_fp16.h", "nvrtc.h",
                         os.path.join("cuda", "std"))


# -------------------------------------------------------------------------------------------------
# The header table: CUDA headers a device source may include, and what stands in for them on AMD.
# `hip`: HIP's header with the same content (hiprtc pre-includes HIP's runtime and fp16 headers;
# ROCm 5.2's hiprtc can `#include` no HIP header by name). `section`: the part of
# nvrtc_prelude.h the include turns on (HIP_AS_CUDA_NEED_<section>), for names that would
# collide with user identifiers if always defined. The include line itself becomes a comment.
# -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Header:
    hip: str | None
    section: str | None
    why: str


_RUNTIME = "hiprtc pre-includes HIP's runtime header"
_ATOMICS = _RUNTIME + " (atomics); the prelude adds the _block forms"
_TEXTURES = _RUNTIME + " (tex1Dfetch, tex2D, ..., surf2Dwrite, ...)"
_BF16 = "the prelude makes __nv_bfloat16 HIP's __hip_bfloat16 where hiprtc has it (not ROCm 5.2)"
_CG = "HIP's cooperative groups where hiprtc has them, else the prelude's subset"
_STDINT = "HIP declares the 32/64-bit types; the prelude adds int8_t, ..., uintptr_t"

HEADER_MAP: dict = {
    # The CUDA runtime and its device-side parts
    "cuda_runtime.h": Header("hip/hip_runtime.h", None, _RUNTIME),
    "cuda_runtime_api.h": Header("hip/hip_runtime_api.h", None, _RUNTIME),
    "cuda.h": Header("hip/hip_runtime.h", None, "the driver API is host code; device code needs nothing of it"),
    "device_launch_parameters.h": Header("hip/hip_runtime.h", None, "threadIdx, blockIdx, ... are HIP's built-ins"),
    "device_functions.h": Header("hip/device_functions.h", None, _RUNTIME),
    "device_atomic_functions.h": Header("hip/hip_runtime.h", None, _ATOMICS),
    "sm_20_atomic_functions.h": Header("hip/hip_runtime.h", None, _RUNTIME + " (atomics)"),
    "sm_60_atomic_functions.h": Header("hip/hip_runtime.h", None, _ATOMICS),
    "sm_30_intrinsics.h": Header("hip/hip_runtime.h", None, _RUNTIME + "; the prelude adds the _sync warp functions"),
    "sm_32_intrinsics.h": Header("hip/hip_runtime.h", None, _RUNTIME + " (__ldg)"),
    "sm_61_intrinsics.h": Header("hip/hip_runtime.h", None, "the prelude adds __dp4a"),
    "math_functions.h": Header("hip/math_functions.h", None, _RUNTIME + " (math)"),
    "vector_types.h": Header("hip/hip_vector_types.h", None, _RUNTIME + " (vector types)"),
    "vector_functions.h": Header("hip/hip_vector_types.h", None, _RUNTIME + " (make_float4, ...)"),
    "builtin_types.h": Header("hip/hip_runtime.h", None, _RUNTIME),
    "driver_types.h": Header("hip/driver_types.h", None, _RUNTIME),
    "host_defines.h": Header("hip/hip_runtime.h", None, _RUNTIME + " (__host__, __device__, ...)"),
    "cuda_texture_types.h": Header("hip/hip_texture_types.h", None, "the prelude names cudaTextureObject_t"),
    "texture_fetch_functions.h": Header("hip/hip_runtime.h", None, _TEXTURES),
    "texture_indirect_functions.h": Header("hip/hip_runtime.h", None, _TEXTURES),
    "surface_functions.h": Header("hip/hip_runtime.h", None, _TEXTURES),
    "surface_indirect_functions.h": Header("hip/hip_runtime.h", None, _TEXTURES),
    "math_constants.h": Header("hip/hip_math_constants.h", "MATH_CONSTANTS",
                               "the prelude defines CUDART_* (HIP: HIPRT_*)"),
    # Half and bfloat16
    "cuda_fp16.h": Header("hip/hip_fp16.h", None, "hiprtc pre-includes HIP's fp16 header; the prelude adds __hmax..."),
    "cuda_fp16.hpp": Header("hip/hip_fp16.h", None, "hiprtc pre-includes HIP's fp16 header"),
    "cuda_bf16.h": Header("hip/hip_bf16.h", None, _BF16),
    "cuda_bf16.hpp": Header("hip/hip_bf16.h", None, _BF16),
    # Cooperative groups
    "cooperative_groups.h": Header("hip/hip_cooperative_groups.h", None, _CG),
    "cooperative_groups/reduce.h": Header("hip/hip_cooperative_groups.h", None, _CG + " (reduce)"),
    "cooperative_groups/scan.h": Header("hip/hip_cooperative_groups.h", None, _CG + " (inclusive/exclusive_scan)"),
    # Standard headers: hiprtc's clang finds the host's, which clash with HIP's pre-included ones
    "cstdint": Header(None, "STDINT", _STDINT),
    "stdint.h": Header(None, "STDINT", _STDINT),
    "climits": Header(None, "LIMITS", "the prelude defines INT_MAX, ... from clang's predefined macros"),
    "limits.h": Header(None, "LIMITS", "the prelude defines INT_MAX, ... from clang's predefined macros"),
    "cfloat": Header(None, "FLOAT", "the prelude defines FLT_MAX, ... from clang's predefined macros"),
    "float.h": Header(None, "FLOAT", "the prelude defines FLT_MAX, ... from clang's predefined macros"),
    "cmath": Header(None, "MATH", "the math functions are HIP's; the prelude defines INFINITY, NAN, M_PI, ..."),
    "math.h": Header(None, "MATH", "the math functions are HIP's; the prelude defines INFINITY, NAN, M_PI, ..."),
    "cassert": Header(None, None, "the prelude defines assert on HIP's __assert_fail"),
    "assert.h": Header(None, None, "the prelude defines assert on HIP's __assert_fail"),
    "cstdio": Header(None, None, "printf is HIP's"),
    "stdio.h": Header(None, None, "printf is HIP's"),
    "cstdlib": Header(None, None, "malloc and free are HIP's"),
    "stdlib.h": Header(None, None, "malloc and free are HIP's"),
    "cstddef": Header(None, "STDINT", "size_t is HIP's; the prelude adds ptrdiff_t"),
    "stddef.h": Header(None, "STDINT", "size_t is HIP's; the prelude adds ptrdiff_t"),
    "cstring": Header(None, None, "memcpy and memset are clang's built-ins"),
    "string.h": Header(None, None, "memcpy and memset are clang's built-ins"),
    "type_traits": Header(None, None, "HIP declares the common std traits (enable_if, is_same, is_integral, ...)"),
}


# -------------------------------------------------------------------------------------------------
def default_arch(device_arch: str | None) -> str:
    """The AMD target for an NVRTC program: the current device's gfx name (as HIP reports it in
    gcnArchName, target features included), else $HIP_AS_CUDA_OFFLOAD_ARCH, else gfx90a."""
    for candidate in (device_arch, os.environ.get(ARCH_ENV)):
        if isinstance(candidate, bytes):
            candidate = candidate.decode()
        if candidate and candidate.strip():
            return candidate.strip()
    return DEFAULT_ARCH


def nvidia_arch(name) -> tuple | None:
    """An NVIDIA architecture name split: 'sm_90a' -> ('sm', 90, 'a'), 'compute_80' -> ('compute',
    80, ''); None for anything else (a gfx target, 'sm_XX'). NVRTC's -arch and nvJitLink's share it."""
    if isinstance(name, bytes):
        name = name.decode(errors="replace")
    m = _NVIDIA_ARCH.fullmatch(name) if isinstance(name, str) else None
    return (m.group(1), int(m.group(2)), m.group(3)) if m else None


def _check_platform(platform: str) -> None:
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {PLATFORMS}, not {platform!r}")


def _as_bytes(item, what: str) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, (bytearray, memoryview)):
        return bytes(item)
    if isinstance(item, str):
        return item.encode()
    raise TypeError(f"{what} must be bytes or str, not {type(item).__name__}")


_BY_NAME = {name: row for row in OPTIONS for name in row.names}
_JOINED = sorted((name for row in OPTIONS if row.arg == "joined" for name in row.names if len(name) == 2),
                 key=len, reverse=True)


def _split(text: str) -> tuple:
    """(row, spelled name, attached value or None) for one option string; row None: unknown."""
    if text in _BY_NAME:
        return _BY_NAME[text], text, None
    for sep in ("=", " "):
        name, found, value = text.partition(sep)
        if found and name in _BY_NAME and _BY_NAME[name].arg:
            return _BY_NAME[name], name, value.strip()
    for name in _JOINED:                         # -DX, -D X, -D=X
        if text.startswith(name):
            value = text[len(name):].strip()
            return _BY_NAME[name], name, value[1:] if value.startswith("=") else value
    return None, text, None


def _parse(options: list) -> list:
    """[(row, original text, value)], one per NVRTC option (its value consumed); row None: the
    option is dropped, value saying why."""
    parsed = []
    i = 0
    while i < len(options):
        text = options[i].decode(errors="replace")
        i += 1
        row, name, value = _split(text.strip())
        if row is None:
            parsed.append((None, text, "hiprtc does not know it"))
            continue
        if row.arg and value is None and i < len(options):      # the argument as the next string
            nxt = options[i].decode(errors="replace").strip()
            if row.arg == "bool":
                if nxt.lower() in ("true", "false"):
                    value, i = nxt, i + 1
            elif row.arg == "raw" or not nxt.startswith("-"):
                value, i = nxt, i + 1
            if value is not None:
                text = f"{text} {nxt}"
        if row.arg == "bool":
            value = (value or "true").lower()
            if value not in ("true", "false"):
                parsed.append((None, text, "its value is not true or false"))
                continue
        elif row.arg and not value and row.to != ():    # a dropped one needs no value to drop
            parsed.append((None, text, "it needs a value"))
            continue
        parsed.append((row, text, value))
    return parsed


def _is_cuda_toolkit_include(path: str) -> bool:
    low = path.lower()
    if "cuda" not in low or "include" not in low:
        return False
    if not os.path.isdir(path):              # a toolkit's path on a machine that has no toolkit
        return True
    return any(os.path.exists(os.path.join(path, marker)) for marker in _CUDA_TOOLKIT_MARKERS)


def translate(options, platform: str, arch: str | None = None) -> tuple:
    """NVRTC compile options -> (hiprtc options as bytes, warning texts).

    options: the strings given to nvrtcCompileProgram (bytes, or str); platform: 'amd' or
    'nvidia'; arch: the current device's gfx name (None: `default_arch(None)`). On 'amd' the
    result always names one --offload-arch and a -std (NVRTC's default C++17 when none is given).
    """
    _check_platform(platform)
    if options is None:
        options = []
    if isinstance(options, (bytes, str)):
        raise TypeError("options must be a list of bytes or str, not a single string")
    options = [_as_bytes(o, "an option") for o in options]
    if platform == "nvidia":
        return list(options), []

    parsed, warnings = _parse(options), []
    device_arch = default_arch(arch)
    state = {"arch": None, "std": None, "dopt": False, "debug": False, "fast_math": False, "prec": {},
             "prec_texts": []}
    out: list = []

    for row, text, value in parsed:
        if row is None:
            warnings.append(f"NVRTC option {text!r} dropped: {value}")
            continue
        to = row.to
        if isinstance(to, tuple):
            if not to:
                warnings.append(f"NVRTC option {text!r} dropped: {row.why}")
            out.extend(to)
        elif isinstance(to, Mapping):
            produced = to.get(value, ())
            if not produced:
                warnings.append(f"NVRTC option {text!r} dropped: {row.why}")
            out.extend(produced)
        else:
            out.extend(_RULES[to](text, value, state, warnings, device_arch))

    # Cross-option rules (need every option seen).
    if state["debug"] and not state["dopt"]:
        out.append("-O0")
    # One clang switch covers single-precision division and square root: it is set when both
    # agree, and both stay correctly rounded when they do not.
    fast, prec = state["fast_math"], state["prec"]
    div, sqrt = prec.get("div", not fast), prec.get("sqrt", not fast)
    if div == sqrt:
        if not div or fast:            # correctly rounded without fast math is clang's default
            out.append(_PREC_FLAG[div])
    else:
        approximate = [text for text, correct in state["prec_texts"] if not correct] or ["'--use_fast_math'"]
        warnings.append(f"NVRTC option {' and '.join(approximate)}: approximate "
                        f"{'division' if not div else 'square root'} dropped: {_BY_NAME['--prec-div'].why}; "
                        f"both stay correctly rounded")
        if fast:
            out.append(_PREC_FLAG[True])
    head = [f"--offload-arch={state['arch'] or device_arch}", f"-std={state['std'] or DEFAULT_STD}"]
    return [o.encode() for o in head + out], warnings


# -- The rules named in OPTIONS: (text, value, state, warnings, device arch) -> hiprtc options ------
def _rule_arch(text, value, state, warnings, device_arch):
    if value.startswith("gfx"):
        state["arch"] = value
    elif nvidia_arch(value):
        state["arch"] = device_arch
    else:
        state["arch"] = device_arch
        warnings.append(f"NVRTC option {text!r}: {value!r} is no NVIDIA architecture; compiling for {device_arch}")
    return ()


def _rule_offload_arch(text, value, state, warnings, device_arch):
    state["arch"] = value
    return ()


def _rule_std(text, value, state, warnings, device_arch):
    std = _STD.get(value.lower())
    if std is None:
        warnings.append(f"NVRTC option {text!r} dropped: NVRTC's dialects are {', '.join(_STD)}; "
                        f"compiling as {DEFAULT_STD}")
        return ()
    if std != value.lower():
        warnings.append(f"NVRTC option {text!r}: HIP's headers need C++11, so {std} it is")
    state["std"] = std
    return ()


def _rule_debug(text, value, state, warnings, device_arch):
    state["debug"] = True
    return ("-g",)


def _rule_dopt(text, value, state, warnings, device_arch):
    if value.lower() == "on":
        state["dopt"] = True
    else:
        warnings.append(f"NVRTC option {text!r} dropped: its value is not 'on'")
    return ()


def _rule_prec(text, value, state, warnings, device_arch):
    state["prec"]["div" if "div" in text else "sqrt"] = value == "true"
    state["prec_texts"].append((repr(text), value == "true"))
    return ()


def _rule_define(text, value, state, warnings, device_arch):
    return (f"-D{value}",)


def _rule_undefine(text, value, state, warnings, device_arch):
    return (f"-U{value}",)


def _rule_include(text, value, state, warnings, device_arch):
    if _is_cuda_toolkit_include(value):
        warnings.append(f"NVRTC option {text!r} dropped: it is a CUDA toolkit's include directory "
                        "(HIP's headers and the prelude stand in for CUDA's)")
        return ()
    return (f"-I{value}",)


def _rule_pre_include(text, value, state, warnings, device_arch):
    header = HEADER_MAP.get(value.strip("<>\""))
    if header is not None:          # a CUDA header: the prelude has it
        return (f"-DHIP_AS_CUDA_NEED_{header.section}=1",) if header.section else ()
    return ("-include", value)


def _rule_opt_info(text, value, state, warnings, device_arch):
    flag = _OPT_INFO.get(value)
    if flag is None:
        warnings.append(f"NVRTC option {text!r} dropped: NVRTC's only kind is 'inline'")
        return ()
    return (flag,)


def _rule_fast_math(text, value, state, warnings, device_arch):
    state["fast_math"] = True
    return _FAST_MATH


def _rule_keep(text, value, state, warnings, device_arch):
    return (text,)


_RULES = {
    "arch": _rule_arch, "offload-arch": _rule_offload_arch, "std": _rule_std, "debug": _rule_debug,
    "dopt": _rule_dopt, "prec": _rule_prec, "define": _rule_define, "undefine": _rule_undefine,
    "include": _rule_include, "pre-include": _rule_pre_include, "opt-info": _rule_opt_info,
    "fast-math": _rule_fast_math, "keep": _rule_keep,
}
assert all(isinstance(r.to, (tuple, Mapping)) or r.to in _RULES for r in OPTIONS)


# -------------------------------------------------------------------------------------------------
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"][^\r\n]*', re.MULTILINE)


def prelude() -> bytes:
    """The text of nvrtc_prelude.h."""
    return PRELUDE_PATH.read_bytes()


def _map_includes(src: bytes, sections: set) -> bytes:
    def replace(m: re.Match) -> bytes:
        name = m.group(2).decode(errors="replace").strip()
        header = HEADER_MAP.get(name)
        if header is None:
            return m.group(0)
        if header.section:
            sections.add(header.section)
        stand_in = f" (HIP's <{header.hip}>)" if header.hip else ""
        return f"// hip_as_cuda: #include <{name}>{stand_in}: {header.why}".encode()
    return _INCLUDE.sub(replace, src)


def translate_source(src, platform: str, *, headers: Iterable = (), add_prelude: bool = True) -> bytes:
    """A CUDA device source made ready for hiprtc (platform 'amd'), or unchanged ('nvidia').

    On 'amd' the `#include`s of HEADER_MAP become one-line comments (line numbers are kept) and
    nvrtc_prelude.h is put in front, followed by `#line 1`, so hiprtc's log gives the source's own
    line numbers. headers: the contents of the headers the program was created with (their CUDA
    includes turn on prelude sections too); translate each of them with add_prelude=False.
    """
    _check_platform(platform)
    src = _as_bytes(src, "src")
    if platform == "nvidia":
        return src
    sections: set = set()
    body = _map_includes(src, sections)
    for h in headers:
        _map_includes(_as_bytes(h, "a header"), sections)
    if not add_prelude:
        return body
    defines = b"".join(f"#define HIP_AS_CUDA_NEED_{s} 1\n".encode() for s in sorted(sections))
    return defines + PRELUDE_PATH.read_bytes() + b"\n#line 1\n" + body
