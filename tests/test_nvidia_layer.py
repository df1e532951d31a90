"""The HIP-on-CUDA layer on the CPU: name matching rules, generation against real ROCm + CUDA
headers, the generated converters (compiled and run), exported symbols, and the loader's
platform switch. GPU behaviour is tested in tests/gpu/ on the device."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, compile_and_run, run_python
import header_facts

from codegen import spec as bindspec
from codegen.nvidia import match, nvspec


# -- name matching: pure rules -------------------------------------------------------------------
def test_enumerators_match_by_name_across_spellings():
    hip = [("hipSuccess", 0), ("hipErrorInvalidValue", 1), ("hipErrorOutOfMemory", 2)]
    cu = [("CUDA_SUCCESS", 0), ("CUDA_ERROR_INVALID_VALUE", 1), ("CUDA_ERROR_OUT_OF_MEMORY", 2)]
    assert match.enumerator_pairs(hip, cu) == {"hipSuccess": "CUDA_SUCCESS",
                                               "hipErrorInvalidValue": "CUDA_ERROR_INVALID_VALUE",
                                               "hipErrorOutOfMemory": "CUDA_ERROR_OUT_OF_MEMORY"}


def test_enumerators_match_after_each_enums_shared_prefix():
    hip = [("hipDeviceAttributeMaxThreadsPerBlock", 0), ("hipDeviceAttributeWarpSize", 1)]
    cu = [("cudaDevAttrMaxThreadsPerBlock", 1), ("cudaDevAttrWarpSize", 10)]
    assert match.enumerator_pairs(hip, cu) == {"hipDeviceAttributeMaxThreadsPerBlock": "cudaDevAttrMaxThreadsPerBlock",
                                               "hipDeviceAttributeWarpSize": "cudaDevAttrWarpSize"}


def test_enumerators_never_match_by_value():
    hip = [("hipOnlyThing", 7), ("hipOther", 1)]
    cu = [("cudaSomethingElse", 7), ("cudaUnrelated", 1)]
    assert match.enumerator_pairs(hip, cu) == {}


def test_enumerator_overrides_win_and_must_name_a_cuda_enumerator():
    hip = [("hipA", 0), ("hipB", 1)]
    cu = [("cudaX", 0), ("cudaB", 1)]
    assert match.enumerator_pairs(hip, cu, {"hipA": "cudaX", "hipB": "cudaTypo"}) == {"hipA": "cudaX"}


def test_common_prefix_stops_on_a_word_boundary():
    assert match.common_prefix(["hipMemcpyHostToDevice", "hipMemcpyHostToHost"]) == "hipMemcpyHostTo"
    assert match.common_prefix(["hipMemcpyDefault", "hipMemcpyDeviceToHost"]) == "hipMemcpy"
    assert match.common_prefix(["HIPBLAS_OP_N", "HIPBLAS_OP_T"]) == "HIPBLAS_OP_"


def test_fields_match_by_name_then_by_normalised_name():
    assert match.field_for("totalGlobalMem", ["name", "totalGlobalMem"]) == "totalGlobalMem"
    assert match.field_for("pciBusID", ["pciBusId"]) == "pciBusId"
    assert match.field_for("gcnArchName", ["name", "major"]) is None
    assert match.field_for("a", ["b"], {"a": "b"}) == "b"


def test_function_rules_try_templates_in_order():
    s = nvspec.load("hip")
    assert s.cuda_candidates(["hipMalloc"])[:2] == ["cudaMalloc", "cuMalloc"]
    assert s.cuda_candidates(["hipDrvMemcpy2DUnaligned"])[0] == "cuMemcpy2DUnaligned"
    assert s.cuda_candidates(["hipHostMalloc"])[0] == "cudaHostAlloc"


# -- generation against real headers ---------------------------------------------------------------
def _cuda_includes() -> list[str]:
    env = os.environ.get("HIP_PYTHON_CUDA_INCLUDE")
    cands = env.split(os.pathsep) if env else [str(ROOT / "build" / "cuda-pypi" / "include"), "/usr/local/cuda/include"]
    return [d for d in cands if os.path.isfile(os.path.join(d, "cuda_runtime_api.h"))]


def _buildable(libs: list[str], incs: list[str], include: str) -> list[str]:
    """Libraries whose CUDA headers are among `incs` and whose HIP headers `include` has (bookworm
    ships four of the eight)."""
    return [l for l in libs if all(any(os.path.exists(os.path.join(d, h)) for d in incs)
                                   for h in nvspec.load(l).cuda_headers)
            and all(os.path.exists(os.path.join(include, h)) for h in bindspec.load(l).headers)]


def _generate_layer(include: str, out) -> dict:
    """Generate every layer library both header sets allow; compile each (no linking)."""
    incs = _cuda_includes()
    if not incs:
        pytest.skip("no CUDA headers (set HIP_PYTHON_CUDA_INCLUDE, or run tools/fetch_cuda_headers.sh)")
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    libs = _buildable(nvspec.all_libraries(), incs, include)
    args = [sys.executable, "-m", "codegen.nvidia", "--hip-include", include, "--libs", ",".join(libs),
            "--out", str(out / "src"), "--build", str(out / "lib")]
    for d in incs:
        args += ["--cuda-include", d]
    r = subprocess.run(args, capture_output=True, text=True, cwd=str(ROOT))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warnings" not in r.stdout, r.stdout
    return {"dir": out, "libs": libs, "incs": incs, "include": include}


@pytest.fixture(scope="module")
def layer(include64, tmp_path_factory):
    return _generate_layer(include64, tmp_path_factory.mktemp("nvidia"))


@pytest.fixture(scope="module", params=["5.2", "5.7", "6.4"])
def layer_any(request, tmp_path_factory):
    """The layer from each ROCm release Debian ships (bookworm, trixie, sid): the generated and the
    hand-written C must build from all of them."""
    if request.param == "6.4":
        return request.getfixturevalue("layer")
    include = request.getfixturevalue({"5.2": "include52", "5.7": "include57"}[request.param])
    return _generate_layer(include, tmp_path_factory.mktemp(f"nvidia-{request.param}"))


def test_hip_layer_is_built_here(layer):
    assert "hip" in layer["libs"]


def test_every_header_function_is_exported(layer_any):
    """Each layer library exports every function its HIP headers declare (stubs included)."""
    layer = layer_any
    assert "hip" in layer["libs"]
    for lib in layer["libs"]:
        so = layer["dir"] / "lib" / nvspec.load(lib).soname
        syms = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True).stdout
        exported = {line.split()[-1] for line in syms.splitlines() if " T " in line}
        declared = set(header_facts.functions(layer["include"], lib))
        assert declared, lib
        missing = declared - exported
        assert not missing, f"{lib}: not exported: {sorted(missing)[:10]}"
        extra = {s for s in exported if not s.startswith("_")} - declared
        assert not extra, f"{lib}: exports what HIP's headers do not declare: {sorted(extra)[:10]}"


def test_coverage_reports(layer_any):
    layer = layer_any
    for lib in layer["libs"]:
        rep = json.loads((layer["dir"] / "src" / f"hipnv_{lib}.json").read_text())
        s = rep["summary"]
        assert s["functions"] == len(header_facts.functions(layer["include"], lib))
        assert s["bridged"] + s["manual"] + s["not_supported"] == s["functions"]
        for name, v in rep["functions"].items():
            assert v["status"] in ("bridged", "manual", "not_supported"), name
            if v["status"] == "not_supported":
                assert v["reason"], name


def test_hip_coverage_target(layer):
    hip = json.loads((layer["dir"] / "src" / "hipnv_hip.json").read_text())["summary"]
    assert hip["bridged_of_counterpart_pct"] >= 85.0, hip


def test_device_prop_fixup_follows_the_headers(layer_any):
    """hipGetDeviceProperties (hipGetDevicePropertiesR0600 on ROCm 6) runs the hand-written fix-up,
    which sets exactly the fields CUDA 13 moved to attributes that these headers' struct has
    (ROCm 5's has no deviceOverlap): what gcc keeps of it after the preprocessor."""
    layer = layer_any
    src = layer["dir"] / "src" / "hipnv_hip.c"
    bridge = re.search(r"^HIPNV_EXPORT \w+ (hipGetDeviceProperties\w*)\(struct hipabi_(\w+) \*prop, "
                       r"int deviceId\) \{\n(?:    .*\n)*?    if \(hr_ == 0 && prop\) hipnv_device_prop_fixup",
                       src.read_text(), re.M)
    assert bridge, "no hipGetDeviceProperties bridge calls hipnv_device_prop_fixup"
    fn, record = bridge.groups()
    assert fn in header_facts.functions(layer["include"], "hip")
    fields = {f.c_path for f in header_facts.records(layer["include"], "hip")[f"struct {record}"].fields}
    r = subprocess.run(["gcc", "-E", "-P", *[f"-I{d}" for d in layer["incs"]], str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    fixup = r.stdout[r.stdout.index("static void hipnv_device_prop_fixup("):]
    fixup = fixup[:fixup.index("\n}")]
    for name in ("clockRate", "memoryClockRate", "deviceOverlap", "singleToDoublePrecisionPerfRatio",
                 "maxSharedMemoryPerMultiProcessor"):
        assert (f"p->{name} = v;" in fixup) == (name in fields), (name, record)
    assert "clockRate" in fields


def _enumerators(include: str, header: str, prefix: str, cuda_incs=None) -> dict[str, int]:
    """Enumerator -> value for every enumerator named `prefix...` in a header (libclang)."""
    import clang.cindex as ci
    from codegen import clang_parse
    incs = cuda_incs or [include]
    path = next(os.path.join(d, header) for d in incs if os.path.exists(os.path.join(d, header)))
    tu = clang_parse.parse(path, incs, ["__HIP_PLATFORM_AMD__"], "c")
    out = {}
    for c in tu.cursor.walk_preorder():
        if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL and c.spelling.startswith(prefix):
            out.setdefault(c.spelling, c.enum_value)
    return out


def test_generated_converters_map_by_name(layer, tmp_path):
    """Compile the generated hipnv_hip.c into a program and run its converters: each HIP
    enumerator whose CUDA twin has the same name (hip -> cuda, hipDeviceAttribute -> cudaDevAttr)
    becomes that twin, back and forth; a struct comes across field by field."""
    inc = layer["include"]
    hip_err = _enumerators(inc, "hip/hip_runtime_api.h", "hipError")
    cuda_err = _enumerators(inc, "cuda_runtime_api.h", "cudaError", layer["incs"])
    attrs = _enumerators(inc, "hip/hip_runtime_api.h", "hipDeviceAttribute")
    cuda_attrs = _enumerators(inc, "cuda_runtime_api.h", "cudaDevAttr", layer["incs"])
    checks = []
    pairs = [(h, "cuda" + h[3:]) for h in hip_err if "cuda" + h[3:] in cuda_err]
    pairs_a = [(h, "cudaDevAttr" + h[len("hipDeviceAttribute"):]) for h in attrs
               if "cudaDevAttr" + h[len("hipDeviceAttribute"):] in cuda_attrs]
    assert len(pairs) > 40 and len(pairs_a) > 40, (len(pairs), len(pairs_a))
    src = (layer["dir"] / "src" / "hipnv_hip.c").read_text()
    # cudaError_t's enum is `cudaError` in the IR (CUresult's is `cudaError_enum`).
    fn_err, fn_err_back = "hipnv_cudaError_from_hipError_t", "hipnv_hipError_t_from_cudaError"
    assert f"static inline int {fn_err}(" in src and f"static inline int {fn_err_back}(" in src
    fn_attr = re.search(r"static inline int (hipnv_cudaDeviceAttr_from_hipDeviceAttribute_t)\(", src).group(1)
    for h, c in pairs:
        checks.append(f'ok = 1; CHECK({fn_err}({hip_err[h]}, &ok) == {c} && ok, "{h} -> {c}");')
        checks.append(f'CHECK({fn_err_back}({c}) == {hip_err[h]} || '
                      f'{fn_err}({fn_err_back}({c}), &ok) == {c}, "{c} -> {h}");')
    for h, c in pairs_a:
        checks.append(f'ok = 1; CHECK({fn_attr}({attrs[h]}, &ok) == {c} && ok, "{h} -> {c}");')
    prog = f"""
#include "{layer['dir'] / 'src' / 'hipnv_hip.c'}"
#define CHECK(cond, what) do {{ if (!(cond)) {{ printf("FAIL %s\\n", what); fails++; }} }} while (0)
int main(void) {{
    int ok = 1, fails = 0;
    {chr(10).join(checks)}
    ok = 1; {fn_err}(123456, &ok); CHECK(!ok, "an unknown HIP status is refused");
    struct cudaDeviceProp c; struct hipabi_hipDeviceProp_tR0600 h;
    memset(&c, 0, sizeof c); memset(&h, 0xff, sizeof h);
    strcpy(c.name, "NVIDIA Test"); c.totalGlobalMem = 81920ull << 20; c.multiProcessorCount = 132;
    c.warpSize = 32; c.major = 9; c.minor = 0; c.maxThreadsDim[0] = 1024; c.maxThreadsDim[2] = 64;
    c.l2CacheSize = 52428800; c.pciBusID = 0x1b; c.uuid.bytes[3] = 7;
    hipnv_hipDeviceProp_tR0600_from_cudaDeviceProp(&h, &c);
    CHECK(!strcmp(h.name, "NVIDIA Test"), "name"); CHECK(h.totalGlobalMem == (81920ull << 20), "totalGlobalMem");
    CHECK(h.multiProcessorCount == 132, "multiProcessorCount"); CHECK(h.warpSize == 32, "warpSize");
    CHECK(h.major == 9 && h.minor == 0, "major/minor"); CHECK(h.maxThreadsDim[0] == 1024, "maxThreadsDim[0]");
    CHECK(h.maxThreadsDim[2] == 64, "maxThreadsDim[2]"); CHECK(h.l2CacheSize == 52428800, "l2CacheSize");
    CHECK(h.pciBusID == 0x1b, "pciBusID"); CHECK(h.uuid.bytes[3] == 7, "uuid");
    printf("%d checks, %d failed\\n", {len(checks) + 11}, fails);
    return fails != 0;
}}
"""
    (tmp_path / "t.c").write_text(prog)
    # Only the converters are reachable from main: the linker drops the bridges (and their CUDA calls).
    cmd = ["gcc", "-std=gnu11", "-w", "-O1", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
           *[f"-I{d}" for d in layer["incs"]], str(tmp_path / "t.c"), "-o", str(tmp_path / "t")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]
    assert "0 failed" in r.stdout


def test_generation_is_deterministic(layer, tmp_path):
    args = [sys.executable, "-m", "codegen.nvidia", "--hip-include", layer["include"], "--libs", "hip",
            "--out", str(tmp_path)]
    for d in layer["incs"]:
        args += ["--cuda-include", d]
    r = subprocess.run(args, capture_output=True, text=True, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "hipnv_hip.c").read_bytes() == (layer["dir"] / "src" / "hipnv_hip.c").read_bytes()


def test_library_headers_apart_from_the_cuda_runtime(layer, tmp_path):
    """nccl.h in a dir of its own (as /usr/include beside /usr/local/cuda/include): the CUDA
    runtime's types it uses (cudaStream_t) still resolve, so the collectives are bridged."""
    if "rccl" not in layer["libs"]:
        pytest.skip("no nccl.h among the CUDA headers here")
    own = tmp_path / "nccl-include"
    own.mkdir()
    src = next(os.path.join(d, "nccl.h") for d in layer["incs"] if os.path.isfile(os.path.join(d, "nccl.h")))
    shutil.copy(src, own / "nccl.h")
    args = [sys.executable, "-m", "codegen.nvidia", "--hip-include", layer["include"], "--libs", "rccl",
            "--out", str(tmp_path / "src"), "--cuda-include", str(own)]
    for d in layer["incs"]:
        args += ["--cuda-include", d]
    r = subprocess.run(args, capture_output=True, text=True, cwd=str(ROOT))
    assert r.returncode == 0, r.stdout + r.stderr
    funcs = json.loads((tmp_path / "src" / "hipnv_rccl.json").read_text())["functions"]
    with_stream = [n for n, f in header_facts.functions(layer["include"], "rccl").items()
                   if any("hipStream_t" in p.spelling for p in f.params)]
    assert with_stream
    refused = {n: funcs[n]["reason"] for n in with_stream if funcs[n]["status"] != "bridged" and funcs[n].get("cuda")}
    assert refused == {}
    assert funcs["ncclAllReduce"]["status"] == "bridged"


def test_link_arg_takes_versioned_libraries(tmp_path):
    """NVIDIA's pip wheels ship libcublas.so.13 and no libcublas.so: link that file by name."""
    from codegen.nvidia import build
    (tmp_path / "libcublasLt.so.13").touch()
    (tmp_path / "libcublas.so.13").touch()
    (tmp_path / "libcublas.so.13.1.1").touch()
    assert build.link_arg("cublas", [str(tmp_path)]) == "-l:libcublas.so.13"
    (tmp_path / "libcublas.so").touch()
    assert build.link_arg("cublas", [str(tmp_path)]) == "-lcublas"


# -- the loader's platform switch ------------------------------------------------------------------
def test_hip_platform_nvidia_without_layer_says_how_to_get_it(tmp_path):
    r = run_python("""
        import hip._loader as L, os
        L.NVIDIA_DIR = os.environ["NV_DIR"]
        from hip import hiprand
        from hip.errors import LibraryNotFoundError
        try:
            hiprand.hiprandCreateGenerator(hiprand.hiprandRngType_t.HIPRAND_RNG_PSEUDO_DEFAULT)
        except LibraryNotFoundError as e:
            print("RAISED", e)
    """, env={"HIP_PLATFORM": "nvidia", "NV_DIR": str(tmp_path)})
    assert "RAISED" in r.stdout, r.stdout + r.stderr
    assert "HIP_PLATFORM=nvidia" in r.stdout and "libhip-nvidia-hiprand.so" in r.stdout


def test_bad_hip_platform_is_a_value_error():
    r = run_python("""
        from hip import hip
        try:
            hip.hipGetDeviceCount()
        except ValueError as e:
            print("RAISED", e)
    """, env={"HIP_PLATFORM": "intel"})
    assert "RAISED" in r.stdout and "HIP_PLATFORM" in r.stdout, r.stdout + r.stderr
