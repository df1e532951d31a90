"""The HIP-on-CUDA layer on the CPU: generation against real ROCm + CUDA headers, the generated
converters (compiled and run), exported symbols, and the loader's platform switch (name matching:
tests/codegen/test_name_matching.py). GPU behaviour is tested on the device by the `gpu`-marked
tests (tests/hip/*_gpu.py)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import GOLDEN, HEADERS, ROOT, compile_and_run, cuda_includes, run_python
import header_facts

from codegen import spec as bindspec
from codegen.bridge import spec as nvspec


# -- specs ---------------------------------------------------------------------------------------
def test_layer_leaves_its_spec_as_loaded():
    """What the layer derives from a spec (the status enum behind demoStatus_t) is computed, never
    written back into the spec (tests/codegen/headers/demo.h against cudemo.h, the golden files' input)."""
    import copy
    from codegen.generate import analyse_libraries, load_specs
    from codegen.bridge import cuda_ir
    from codegen.nvidia.emit_c import Layer
    specs, headers = GOLDEN / "specs", HEADERS
    ns = nvspec.load("demo", str(specs / "nvidia"))
    before = copy.deepcopy(ns)
    demo = next(x for x in analyse_libraries(str(headers), ["demo"], load_specs(str(specs)))
                if x.spec.library == "demo")
    cuda = cuda_ir.build(ns.cuda_headers, [str(headers / "cuda")], ns.defines)
    c = Layer(demo.module, demo.types, cuda, ns).emit("0.0.0", "0.0", ns.cuda_headers)
    # The status converter knows demoStatus_t is the enum demoStatus: CUDA's unknown codes become
    # the spec's `unknown` (DEMO_ERROR_INVALID, 1), in the switch that success skips.
    fn = "hipnv_demoStatus_from_cudemoStatus_enum"
    back = c.split(f"int {fn}_other(int v) {{", 1)[1].split("}", 1)[0]
    assert "default: return 1;" in back
    assert f"return v == 0 ? 0 : {fn}_other(v);" in c
    assert ns.status.type == "demoStatus_t" and ns == before


# -- generation against real headers ---------------------------------------------------------------
def _buildable(libs: list[str], incs: list[str], include: str) -> list[str]:
    """Libraries whose CUDA headers are among `incs` and whose HIP headers `include` has (bookworm
    ships four of the eight)."""
    return [l for l in libs if all(any(os.path.exists(os.path.join(d, h)) for d in incs)
                                   for h in nvspec.load(l).cuda_headers)
            and all(os.path.exists(os.path.join(include, h)) for h in bindspec.load(l).headers)]


def _generate_layer(include: str, out) -> dict:
    """Generate every layer library both header sets allow; compile each (no linking)."""
    incs = cuda_includes()
    if not incs:
        pytest.skip("no CUDA headers (set HIP_PYTHON_CUDA_INCLUDE, or run tools/fetch_cuda_headers.sh)")
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    libs = _buildable(nvspec.all_libraries(), incs, include)
    args = [sys.executable, "-m", "codegen", "nvidia", "--hip-include", include, "--libs", ",".join(libs),
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
        # the spec's hand-written functions may come from a HIP header its bindings do not parse
        # (the runtime's OpenGL interop, hip_gl_interop.h)
        extra = {s for s in exported if not s.startswith("_")} - declared - set(nvspec.load(lib).manual)
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
    assert f" int {fn_err}(int v" in src and f" int {fn_err_back}(int v" in src
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
    args = [sys.executable, "-m", "codegen", "nvidia", "--hip-include", layer["include"], "--libs", "hip",
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
    args = [sys.executable, "-m", "codegen", "nvidia", "--hip-include", layer["include"], "--libs", "rccl",
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


# -- hiprtc's linker on a stand-in driver ------------------------------------------------------------
_FAKE_DRIVER = r"""
/* The CUDA driver's JIT linker and NVRTC's outputs, played by this program: each call records
 * what the layer passed. */
struct CUlinkState_st {
    unsigned n; CUjit_option* o; void** v;             /* what cuLinkCreate got */
    CUjit_option o_copy[8]; void* v_copy[8];
    int adds; CUjitInputType type[16]; size_t size[16]; int nul[16]; char name[16][256];
    unsigned add_n[16]; CUjit_option add_o[16][4];
    int fail_complete; unsigned char image[32];
};
static int ctx_current, cuda_free_calls, destroyed, driver_version = 13000, nvrtc_minor = 0;
CUresult cuCtxGetCurrent(CUcontext* c) { *c = ctx_current ? (CUcontext)0x10 : NULL; return CUDA_SUCCESS; }
cudaError_t cudaFree(void* p) { (void)p; ctx_current = 1; cuda_free_calls++; return cudaSuccess; }
CUresult cuDriverGetVersion(int* v) { *v = driver_version; return CUDA_SUCCESS; }
nvrtcResult nvrtcVersion(int* major, int* minor) { *major = 13; *minor = nvrtc_minor; return NVRTC_SUCCESS; }
CUresult cuLinkCreate_v2(unsigned n, CUjit_option* o, void** v, CUlinkState* out) {
    struct CUlinkState_st* s = calloc(1, sizeof *s);
    if (!ctx_current) { free(s); return CUDA_ERROR_INVALID_CONTEXT; }
    for (unsigned i = 0; i < n; i++) if ((int)o[i] < 0 || o[i] >= CU_JIT_NUM_OPTIONS) { free(s); return CUDA_ERROR_INVALID_VALUE; }
    s->n = n; s->o = o; s->v = v;
    for (unsigned i = 0; i < n && i < 8; i++) { s->o_copy[i] = o[i]; s->v_copy[i] = v[i]; }
    memcpy(s->image, "\x7f" "ELF linked image", 17);
    *out = s;
    return CUDA_SUCCESS;
}
static CUresult record(CUlinkState s, CUjitInputType t, const unsigned char* data, size_t size, const char* name,
                       unsigned n, CUjit_option* o) {
    int i = s->adds++;
    s->type[i] = t; s->size[i] = size; s->nul[i] = data && size && data[size - 1] == 0;
    snprintf(s->name[i], sizeof s->name[i], "%s", name ? name : "(null)");
    s->add_n[i] = n;
    for (unsigned k = 0; k < n && k < 4; k++) s->add_o[i][k] = o[k];
    if (t == CU_JIT_INPUT_PTX && !strstr((const char*)data, ".version")) return CUDA_ERROR_INVALID_PTX;
    return CUDA_SUCCESS;
}
CUresult cuLinkAddData_v2(CUlinkState s, CUjitInputType t, void* data, size_t size, const char* name,
                          unsigned n, CUjit_option* o, void** v) {
    (void)v;
    return record(s, t, data, size, name, n, o);
}
CUresult cuLinkAddFile_v2(CUlinkState s, CUjitInputType t, const char* path, unsigned n, CUjit_option* o, void** v) {
    (void)v;
    if (access(path, R_OK) != 0) return CUDA_ERROR_FILE_NOT_FOUND;
    return record(s, t, (const unsigned char*)"\x7f" "ELF", 4, path, n, o);
}
CUresult cuLinkComplete(CUlinkState s, void** out, size_t* size) {
    /* The driver writes output options back now: the arrays must still be the layer's. */
    for (unsigned i = 0; i < s->n; i++) {
        if (s->o[i] != s->o_copy[i] || s->v[i] != s->v_copy[i]) return CUDA_ERROR_ILLEGAL_STATE;
        if (s->o[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES || s->o[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
            s->v[i] = s->v_copy[i] = (void*)(uintptr_t)3;
        if (s->o[i] == CU_JIT_ERROR_LOG_BUFFER) strcpy((char*)s->v[i], "ok");
    }
    if (s->fail_complete) return CUDA_ERROR_INVALID_IMAGE;
    *out = s->image;
    if (size) *size = sizeof s->image;
    return CUDA_SUCCESS;
}
CUresult cuLinkDestroy(CUlinkState s) { destroyed++; free(s); return CUDA_SUCCESS; }

struct _nvrtcProgram { const char* ptx; size_t cubin, ltoir; };
nvrtcResult nvrtcGetPTXSize(nvrtcProgram p, size_t* n) { *n = p->ptx ? strlen(p->ptx) + 1 : 0; return NVRTC_SUCCESS; }
nvrtcResult nvrtcGetPTX(nvrtcProgram p, char* out) { strcpy(out, p->ptx); return NVRTC_SUCCESS; }
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram p, size_t* n) { *n = p->cubin; return NVRTC_SUCCESS; }
nvrtcResult nvrtcGetCUBIN(nvrtcProgram p, char* out) { memset(out, 'C', p->cubin); return NVRTC_SUCCESS; }
nvrtcResult nvrtcGetLTOIRSize(nvrtcProgram p, size_t* n) { *n = p->ltoir; return NVRTC_SUCCESS; }
nvrtcResult nvrtcGetLTOIR(nvrtcProgram p, char* out) { memset(out, 'L', p->ltoir); return NVRTC_SUCCESS; }
/* The current device: an sm_86 */
cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
cudaError_t cudaDeviceGetAttribute(int* v, enum cudaDeviceAttr a, int d) {
    (void)d; *v = a == cudaDevAttrComputeCapabilityMajor ? 8 : 6; return cudaSuccess; }
"""

_LINKER_CHECKS = r"""
#define CHECK(cond, what) do { if (!(cond)) { printf("FAIL %s (line %d)\n", what, __LINE__); fails++; } } while (0)
int main(int argc, char** argv) {
    int fails = 0;
    const char* dir = argc > 1 ? argv[1] : ".";
    char path[512], missing[512];
    hipabi_hiprtcLinkState st = NULL;
    struct CUlinkState_st* s;
    char log[64] = "";
    /* hipJitOptionErrorLogBuffer(5), ...SizeBytes(6), IRtoISAOptExt(10000, AMD's: dropped),
     * PositionIndependentCode(25 in HIP, 30 in CUDA) */
    hipabi_hipJitOption opts[4] = {5, 6, 10000, 25};
    void* vals[4] = {log, (void*)(uintptr_t)sizeof log, NULL, (void*)(uintptr_t)1};
    const char ptx[] = "//\n.version 9.0\n.target sm_90\n.address_size 64\n";
    unsigned char elf[20] = {0x7f, 'E', 'L', 'F'}, host_elf[20] = {0x7f, 'E', 'L', 'F'};
    unsigned char fatbin[8] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
    char garbage[] = "this is neither PTX nor bitcode";
    void* bin = NULL;
    size_t size = 0;
    elf[18] = 190;     /* EM_CUDA */
    host_elf[18] = 62; /* EM_X86_64 */

    CHECK(hiprtcLinkCreate(0, NULL, NULL, NULL) == hipabi_HIPRTC_ERROR_INVALID_INPUT, "no state pointer");
    CHECK(hiprtcLinkCreate(1, NULL, NULL, &st) == hipabi_HIPRTC_ERROR_INVALID_INPUT, "options without arrays");
    { hipabi_hipJitOption bad = 999; void* v = NULL;
      CHECK(hiprtcLinkCreate(1, &bad, &v, &st) == hipabi_HIPRTC_ERROR_INVALID_OPTION, "no such option"); }
    CHECK(hiprtcLinkCreate(4, opts, vals, &st) == hipabi_HIPRTC_SUCCESS && st, "create");
    CHECK(cuda_free_calls == 1, "no current context: the runtime's primary context is made current");
    s = (struct CUlinkState_st*)((struct hipnv_rtc_link*)st)->cu;
    CHECK(s->n == 3, "AMD's IRtoISA option dropped");
    CHECK(s->o_copy[0] == CU_JIT_ERROR_LOG_BUFFER && s->v_copy[0] == log, "error log buffer");
    CHECK(s->o_copy[1] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES && s->v_copy[1] == (void*)(uintptr_t)sizeof log, "log size");
    CHECK(s->o_copy[2] == CU_JIT_POSITION_INDEPENDENT_CODE && s->v_copy[2] == (void*)(uintptr_t)1,
          "hipJitOptionPositionIndependentCode (25) -> CU_JIT_POSITION_INDEPENDENT_CODE (30)");
    CHECK(s->o != (CUjit_option*)opts && (void*)s->v != (void*)vals, "the driver gets arrays of the layer's");
    memset(opts, 0xff, sizeof opts);   /* a binding frees its arrays when hiprtcLinkCreate returns */
    memset(vals, 0xff, sizeof vals);

    /* AMD's input kind: the bytes say what they are */
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ptx, strlen(ptx), "a", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS, "PTX without its NUL");
    CHECK(s->type[0] == CU_JIT_INPUT_PTX && s->size[0] == strlen(ptx) + 1 && s->nul[0], "PTX gets a NUL");
    CHECK(!strcmp(s->name[0], "a"), "name");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ptx, sizeof ptx, NULL, 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS, "PTX with its NUL (hiprtcGetBitcodeSize counts it)");
    CHECK(s->type[1] == CU_JIT_INPUT_PTX && s->size[1] == sizeof ptx, "PTX passed as it is");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBundledBitcode, elf, sizeof elf, "b", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS && s->type[2] == CU_JIT_INPUT_CUBIN && s->size[2] == sizeof elf, "CUBIN by its ELF");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, host_elf, sizeof host_elf, "c", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS && s->type[3] == CU_JIT_INPUT_OBJECT, "host object by its ELF");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, fatbin, sizeof fatbin, "d", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS && s->type[4] == CU_JIT_INPUT_FATBINARY, "fatbinary by its magic");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMArchivesOfBundledBitcode, "!<arch>\nxxxx", 12, "e", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS && s->type[5] == CU_JIT_INPUT_LIBRARY, "archive");
    /* CUDA's input kinds are taken at their word */
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputCubin, (void*)ptx, sizeof ptx, "f", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS && s->type[6] == CU_JIT_INPUT_CUBIN, "explicit CUBIN");
    { hipabi_hipJitOption o[2] = {7, 26}; void* v[2] = {(void*)(uintptr_t)3, (void*)(uintptr_t)2};
      CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputPtx, (void*)ptx, sizeof ptx, "g", 2, o, v) == hipabi_HIPRTC_SUCCESS
            && s->type[7] == CU_JIT_INPUT_PTX, "explicit PTX");
      CHECK(s->add_n[7] == 2 && s->add_o[7][0] == CU_JIT_OPTIMIZATION_LEVEL && s->add_o[7][1] == CU_JIT_MIN_CTA_PER_SM,
            "per-input options converted"); }
    /* refused */
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, garbage, strlen(garbage), "h", 0, NULL, NULL)
          == hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE, "garbage: the driver's error, as AMD's status");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputSpirv, (void*)ptx, sizeof ptx, "i", 0, NULL, NULL)
          == hipabi_HIPRTC_ERROR_INVALID_INPUT, "SPIR-V");
    CHECK(hiprtcLinkAddData(st, 77, (void*)ptx, sizeof ptx, "j", 0, NULL, NULL) == hipabi_HIPRTC_ERROR_INVALID_INPUT,
          "no input kind");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputPtx, NULL, 5, "k", 0, NULL, NULL) == hipabi_HIPRTC_ERROR_INVALID_INPUT,
          "no image");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputPtx, (void*)ptx, 0, "l", 0, NULL, NULL) == hipabi_HIPRTC_ERROR_INVALID_INPUT,
          "empty image");
    CHECK(hiprtcLinkAddData(NULL, hipabi_hipJitInputPtx, (void*)ptx, sizeof ptx, "m", 0, NULL, NULL)
          == hipabi_HIPRTC_ERROR_INVALID_INPUT, "no link state");
    CHECK(s->adds == 9, "refused inputs never reach the driver");

    /* files: AMD's kinds are read and sniffed, CUDA's go to cuLinkAddFile */
    snprintf(path, sizeof path, "%s/bitcode.ptx", dir);
    snprintf(missing, sizeof missing, "%s/no-such-file", dir);
    { FILE* f = fopen(path, "wb"); fwrite(ptx, 1, strlen(ptx), f); fclose(f); }
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputLLVMBitcode, path, 0, NULL, NULL) == hipabi_HIPRTC_SUCCESS, "add file");
    CHECK(s->type[9] == CU_JIT_INPUT_PTX && s->size[9] == strlen(ptx) + 1 && s->nul[9] && !strcmp(s->name[9], path),
          "file read, its PTX terminated");
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputCubin, path, 0, NULL, NULL) == hipabi_HIPRTC_SUCCESS
          && s->type[10] == CU_JIT_INPUT_CUBIN && !strcmp(s->name[10], path), "CUDA kind: cuLinkAddFile");
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputLLVMBitcode, missing, 0, NULL, NULL)
          == hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE, "missing file (AMD's kind)");
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputCubin, missing, 0, NULL, NULL)
          == hipabi_HIPRTC_ERROR_PROGRAM_CREATION_FAILURE, "missing file (CUDA's kind)");
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputLLVMBitcode, NULL, 0, NULL, NULL) == hipabi_HIPRTC_ERROR_INVALID_INPUT,
          "no path");

    CHECK(hiprtcLinkComplete(st, NULL, &size) == hipabi_HIPRTC_ERROR_INVALID_INPUT, "no bin_out");
    CHECK(hiprtcLinkComplete(st, &bin, &size) == hipabi_HIPRTC_SUCCESS, "complete (option arrays still the layer's)");
    CHECK(bin == s->image && size == sizeof s->image, "the image of the link state, as it is");
    CHECK(!strcmp(log, "ok"), "the driver wrote the caller's log buffer");
    CHECK(hiprtcLinkComplete(st, &bin, NULL) == hipabi_HIPRTC_SUCCESS, "size_out is optional");
    s->fail_complete = 1;
    CHECK(hiprtcLinkComplete(st, &bin, &size) == hipabi_HIPRTC_ERROR_LINKING, "a failed link is HIPRTC_ERROR_LINKING");
    CHECK(hiprtcLinkDestroy(st) == hipabi_HIPRTC_SUCCESS && destroyed == 1, "destroy");
    CHECK(hiprtcLinkDestroy(NULL) == hipabi_HIPRTC_SUCCESS, "destroying nothing");
    CHECK(hiprtcLinkCreate(0, NULL, NULL, &st) == hipabi_HIPRTC_SUCCESS && cuda_free_calls == 1, "context kept");
    CHECK(hiprtcLinkDestroy(st) == hipabi_HIPRTC_SUCCESS, "destroy 2");

    /* hiprtcGetBitcode: NVRTC's PTX; its CUBIN where NVRTC is newer than the driver or made no PTX */
    { struct _nvrtcProgram both = {ptx, 100}, ptx_only = {ptx, 0}, cubin_only = {NULL, 64};
      size_t n = 0; char buf[128];
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&both, &n) == hipabi_HIPRTC_SUCCESS && n == sizeof ptx, "PTX size");
      CHECK(hiprtcGetBitcode((hipabi_hiprtcProgram)&both, buf) == hipabi_HIPRTC_SUCCESS && !strcmp(buf, ptx), "PTX");
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&ptx_only, &n) == hipabi_HIPRTC_SUCCESS && n == sizeof ptx,
            "PTX of a virtual architecture");
      nvrtc_minor = 2;    /* NVRTC 13.2 on a 13.0 driver */
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&both, &n) == hipabi_HIPRTC_SUCCESS && n == 100, "CUBIN size");
      CHECK(hiprtcGetBitcode((hipabi_hiprtcProgram)&both, buf) == hipabi_HIPRTC_SUCCESS && buf[0] == 'C', "CUBIN");
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&ptx_only, &n) == hipabi_HIPRTC_SUCCESS && n == sizeof ptx,
            "no CUBIN: PTX all the same");
      nvrtc_minor = 0;
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&cubin_only, &n) == hipabi_HIPRTC_SUCCESS && n == 64, "no PTX: CUBIN");
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&both, NULL) == hipabi_HIPRTC_ERROR_INVALID_INPUT, "no size pointer");
      CHECK(hiprtcGetBitcode(NULL, buf) == hipabi_HIPRTC_ERROR_INVALID_PROGRAM, "no program"); }
    /* after -dlto: NVRTC's LTO-IR */
    { struct _nvrtcProgram lto = {NULL, 0, 32};
      size_t n = 0; char buf[64] = "";
      CHECK(hiprtcGetBitcodeSize((hipabi_hiprtcProgram)&lto, &n) == hipabi_HIPRTC_SUCCESS && n == 32, "LTO-IR size");
      CHECK(hiprtcGetBitcode((hipabi_hiprtcProgram)&lto, buf) == hipabi_HIPRTC_SUCCESS && buf[0] == 'L' && buf[31] == 'L',
            "LTO-IR"); }
    printf("%d failed\n", fails);
    return fails != 0;
}
"""


def test_hiprtc_linker_on_a_stand_in_driver(layer, tmp_path):
    """hiprtcLink* and hiprtcGetBitcode against a program playing the CUDA driver and NVRTC:
    options converted by name and kept for the driver's write-backs, AMD's input kinds taken
    for the format the bytes hold, PTX NUL-terminated, files, statuses, the image's owner.
    (The real link, two programs of separately compiled device code, is tests/hip/test_rtc_link_gpu.py.)"""
    exe = _stand_in_program(layer, tmp_path, "t", _LINKER_CHECKS)
    r = subprocess.run([str(exe), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


def _stand_in_program(layer, tmp_path, name: str, checks: str, extra: list[str] = ()):
    """The generated hipnv_hiprtc.c with the stand-in driver and `checks`, compiled (with
    AddressSanitizer where gcc has it: it also catches a read past the caller's PTX or a double free)."""
    if "hiprtc" not in layer["libs"]:
        pytest.skip("no nvrtc.h among the CUDA headers here")
    src = layer["dir"] / "src" / "hipnv_hiprtc.c"
    # The generated file first: it defines _GNU_SOURCE before any system header.
    (tmp_path / f"{name}.c").write_text(f'#include "{src}"\n#include <unistd.h>\n{_FAKE_DRIVER}\n{checks}')
    base = ["gcc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wno-unused-function", "-Wno-deprecated-declarations",
            "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
            *[f"-I{d}" for d in layer["incs"]], str(tmp_path / f"{name}.c"), "-o", str(tmp_path / name), *extra]
    r = subprocess.run(base + ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"], capture_output=True, text=True)
    if r.returncode != 0 and "sanitize" in r.stderr:
        r = subprocess.run(base, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "warning" not in r.stderr, r.stderr[-3000:]
    return tmp_path / name


# A libnvJitLink played by a shared library: it records what the layer passed (`fake_nvjitlink`,
# which the checks read through dlopen of the same file).
_FAKE_NVJITLINK = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
struct fake_nvjitlink {
    int creates, destroys, completes, adds, fail_complete;
    unsigned n_options; char options[8][64];
    int kind[16], file[16]; size_t size[16]; char name[16][256]; unsigned char head[16][4];
};
struct fake_nvjitlink fake_nvjitlink;
static struct fake_nvjitlink* F = &fake_nvjitlink;
int nvJitLinkCreate(void** h, uint32_t n, const char** o) {
    F->creates++; F->n_options = n;
    for (uint32_t i = 0; i < n && i < 8; i++) snprintf(F->options[i], 64, "%s", o[i]);
    *h = F; return 0;
}
int nvJitLinkDestroy(void** h) { F->destroys++; *h = NULL; return 0; }
static int add(int kind, const void* data, size_t size, const char* name, int file) {
    int i = F->adds++;
    F->kind[i] = kind; F->size[i] = size; F->file[i] = file;
    snprintf(F->name[i], 256, "%s", name ? name : "(null)");
    if (data && size >= 4) memcpy(F->head[i], data, 4);
    return 0;
}
int nvJitLinkAddData(void* h, int kind, const void* data, size_t size, const char* name) {
    (void)h; return add(kind, data, size, name, 0); }
int nvJitLinkAddFile(void* h, int kind, const char* path) { (void)h; return add(kind, NULL, 0, path, 1); }
int nvJitLinkComplete(void* h) { (void)h; F->completes++; return F->fail_complete ? 6 : 0; }
int nvJitLinkGetLinkedCubinSize(void* h, size_t* n) { (void)h; *n = 8; return 0; }
int nvJitLinkGetLinkedCubin(void* h, void* out) { (void)h; memcpy(out, "\x7f" "ELFlto", 8); return 0; }
static const char* error_text(void) { return F->fail_complete ? "ERROR: undefined symbol no_such_function" : ""; }
int nvJitLinkGetErrorLogSize(void* h, size_t* n) { (void)h; *n = strlen(error_text()) + 1; return 0; }
int nvJitLinkGetErrorLog(void* h, char* out) { (void)h; strcpy(out, error_text()); return 0; }
int nvJitLinkGetInfoLogSize(void* h, size_t* n) { (void)h; *n = 1; return 0; }
int nvJitLinkGetInfoLog(void* h, char* out) { (void)h; out[0] = 0; return 0; }
"""

_LTO_CHECKS = r"""
#include <dlfcn.h>
#define CHECK(cond, what) do { if (!(cond)) { printf("FAIL %s (line %d)\n", what, __LINE__); fails++; } } while (0)
struct fake_nvjitlink {
    int creates, destroys, completes, adds, fail_complete;
    unsigned n_options; char options[8][64];
    int kind[16], file[16]; size_t size[16]; char name[16][256]; unsigned char head[16][4];
};
int main(int argc, char** argv) {
    int fails = 0;
    const char* dir = argv[1];
    char path[512], log[128] = "";
    hipabi_hiprtcLinkState st = NULL;
    struct CUlinkState_st* s;
    struct fake_nvjitlink* F = NULL;
    void* lib = getenv("HIP_PYTHON_NVJITLINK_LIBRARY") ? dlopen(getenv("HIP_PYTHON_NVJITLINK_LIBRARY"), RTLD_NOW) : NULL;
    const unsigned char ltoir[8] = {0xed, 0x43, 0x4e, 0x7f, 1, 2, 3, 4};
    const char ptx[] = "//\n.version 9.0\n.target sm_90\n.address_size 64\n";
    unsigned char elf[20] = {0x7f, 'E', 'L', 'F'};
    hipabi_hipJitOption opts[3] = {hipabi_hipJitOptionErrorLogBuffer, hipabi_hipJitOptionErrorLogBufferSizeBytes,
                                   hipabi_hipJitOptionTarget};
    void* vals[3] = {log, (void*)(uintptr_t)sizeof log, (void*)(uintptr_t)(CU_TARGET_COMPUTE_90 + CU_COMPUTE_ACCELERATED_TARGET_BASE)};
    void* bin = NULL;
    size_t size = 0;
    elf[18] = 190;
    ctx_current = 1;
    if (lib) F = (struct fake_nvjitlink*)dlsym(lib, "fake_nvjitlink");

    CHECK(hiprtcLinkCreate(3, opts, vals, &st) == hipabi_HIPRTC_SUCCESS, "create");
    s = (struct CUlinkState_st*)((struct hipnv_rtc_link*)st)->cu;
    if (!F) {   /* no libnvJitLink: LTO-IR is refused, and the log says why */
        CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ltoir, sizeof ltoir, "user", 0, NULL, NULL)
              == hipabi_HIPRTC_ERROR_INVALID_INPUT, "LTO-IR without nvJitLink");
        CHECK(strstr(log, "libnvJitLink") != NULL, "the log names what is missing");
        CHECK(s->adds == 0, "the driver never sees LTO-IR");
        CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ptx, sizeof ptx, "main", 0, NULL, NULL)
              == hipabi_HIPRTC_SUCCESS && hiprtcLinkComplete(st, &bin, &size) == hipabi_HIPRTC_SUCCESS
              && bin == s->image, "a link without LTO-IR stays the driver's");
        CHECK(hiprtcLinkDestroy(st) == hipabi_HIPRTC_SUCCESS, "destroy");
        printf("%d failed\n", fails);
        return fails != 0;
    }
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ptx, strlen(ptx), "main", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS && s->adds == 1, "PTX: the driver's too, as ever");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ltoir, sizeof ltoir, "user", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS, "LTO-IR by its magic");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputNvvm, (void*)ltoir, sizeof ltoir, "nvvm", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS, "LTO-IR by its kind");
    CHECK(s->adds == 1, "the driver never sees LTO-IR");
    snprintf(path, sizeof path, "%s/user.ltoir", dir);
    { FILE* f = fopen(path, "wb"); fwrite(ltoir, 1, sizeof ltoir, f); fclose(f); }
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputNvvm, path, 0, NULL, NULL) == hipabi_HIPRTC_SUCCESS, "LTO-IR file");
    CHECK(hiprtcLinkAddFile(st, hipabi_hipJitInputCubin, path, 0, NULL, NULL) == hipabi_HIPRTC_SUCCESS && s->adds == 2,
          "a CUBIN file: cuLinkAddFile");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBundledBitcode, elf, sizeof elf, "rdc", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS, "a CUBIN");
    s->fail_complete = 1;   /* the driver's link is not the one that runs */
    CHECK(hiprtcLinkComplete(st, &bin, &size) == hipabi_HIPRTC_SUCCESS, "complete on nvJitLink");
    CHECK(size == 8 && !memcmp(bin, "\x7f" "ELFlto", 8), "nvJitLink's CUBIN");
    CHECK(F->creates == 1 && F->completes == 1 && F->n_options == 2, "one nvJitLink link");
    CHECK(!strcmp(F->options[0], "-arch=sm_90a") && !strcmp(F->options[1], "-lto"), "-arch of CU_JIT_TARGET, -lto");
    CHECK(F->adds == 6, "every input");
    CHECK(F->kind[0] == 2 && F->size[0] == strlen(ptx) + 1 && !strcmp(F->name[0], "main"), "PTX, its NUL added");
    CHECK(F->kind[1] == 3 && F->size[1] == sizeof ltoir && !memcmp(F->head[1], ltoir, 4) && !strcmp(F->name[1], "user"),
          "LTO-IR");
    CHECK(F->kind[2] == 3 && F->kind[3] == 3 && !strcmp(F->name[3], path) && !F->file[3], "LTO-IR kind, LTO-IR file");
    CHECK(F->kind[4] == 1 && F->file[4] && !strcmp(F->name[4], path), "a CUBIN file, by its path");
    CHECK(F->kind[5] == 1 && F->size[5] == sizeof elf, "a CUBIN");
    CHECK(F->destroys == 1, "nvJitLink's handle freed at once");
    { void* again = NULL;
      CHECK(hiprtcLinkComplete(st, &again, NULL) == hipabi_HIPRTC_SUCCESS && again == bin && F->creates == 1,
            "completing again: the same image"); }
    CHECK(hiprtcLinkDestroy(st) == hipabi_HIPRTC_SUCCESS, "destroy");

    /* a failed link: HIPRTC_ERROR_LINKING, nvJitLink's error log in the caller's buffer; the
     * target: the current device's (an sm_86 here) */
    CHECK(hiprtcLinkCreate(2, opts, vals, &st) == hipabi_HIPRTC_SUCCESS, "create 2");
    CHECK(hiprtcLinkAddData(st, hipabi_hipJitInputLLVMBitcode, (void*)ltoir, sizeof ltoir, "user", 0, NULL, NULL)
          == hipabi_HIPRTC_SUCCESS, "LTO-IR 2");
    F->fail_complete = 1;
    CHECK(hiprtcLinkComplete(st, &bin, &size) == hipabi_HIPRTC_ERROR_LINKING, "a failed link");
    CHECK(!strcmp(F->options[0], "-arch=sm_86"), "-arch of the current device");
    CHECK(strstr(log, "no_such_function") != NULL, "nvJitLink's error log");
    CHECK(F->destroys == 2, "the handle freed");
    CHECK(hiprtcLinkDestroy(st) == hipabi_HIPRTC_SUCCESS, "destroy 2");
    printf("%d failed\n", fails);
    return fails != 0;
}
"""


def test_hiprtc_lto_link_on_a_stand_in_nvjitlink(layer, tmp_path):
    """A link given LTO-IR (bytes, kind or file) runs on nvJitLink, found through
    HIP_PYTHON_NVJITLINK_LIBRARY: every input with its nvJitLink kind, -arch of the link's target
    (else the device's) and -lto, nvJitLink's CUBIN and error log; without a libnvJitLink the
    LTO-IR is refused with the reason in the log and other links stay the driver's.
    (The real link: tests/alias/test_alias_nvjitlink_gpu.py.)"""
    lib = tmp_path / "libfakenvjitlink.so"
    (tmp_path / "fake_nvjitlink.c").write_text(_FAKE_NVJITLINK)
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wall", str(tmp_path / "fake_nvjitlink.c"), "-o", str(lib)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    exe = _stand_in_program(layer, tmp_path, "lto", _LTO_CHECKS, ["-ldl"])
    for library in (str(lib), str(tmp_path / "no-such-libnvJitLink.so")):
        env = dict(os.environ, HIP_PYTHON_NVJITLINK_LIBRARY=library)
        r = subprocess.run([str(exe), str(tmp_path)], capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 0 and "0 failed" in r.stdout, library + "\n" + r.stdout[-3000:] + r.stderr[-3000:]


# -- the HIP layer's kernel nodes, function attributes and contexts on a stand-in driver ----------
_FAKE_CUDA = r"""
/* The parts of the CUDA driver and runtime the checks below reach, played by this program. */
static int fake_init, fake_free0, fake_added, fake_set, fake_exec_set;
static CUDA_KERNEL_NODE_PARAMS fake_node;
static void* fake_extra[5];
static CUfunction fake_attr_f;
static int fake_attr = -1, fake_attr_v;
CUresult CUDAAPI cuInit(unsigned int flags) { (void)flags; fake_init++; return CUDA_SUCCESS; }
cudaError_t CUDARTAPI cudaFree(void* p) { if (!p) fake_free0++; return cudaSuccess; }
CUresult CUDAAPI cuCtxGetCurrent(CUcontext* c) { *c = NULL; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxPushCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxPopCurrent(CUcontext* c) { *c = NULL; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGet(CUdevice* d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice d, unsigned int* flags, int* active) {
    (void)d; *flags = 0; *active = 0; return CUDA_SUCCESS; }
static void fake_keep(const CUDA_KERNEL_NODE_PARAMS* p) {
    int i;
    fake_node = *p;
    memset(fake_extra, 0, sizeof fake_extra);
    for (i = 0; p->extra && i < 5; i++) { fake_extra[i] = p->extra[i]; if (p->extra[i] == CU_LAUNCH_PARAM_END) break; }
}
CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode* n, CUgraph g, const CUgraphNode* deps, size_t nd,
                                      const CUDA_KERNEL_NODE_PARAMS* p) {
    (void)g; (void)deps; (void)nd; fake_keep(p); fake_added++; *n = (CUgraphNode)0x77; return CUDA_SUCCESS; }
CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p) {
    (void)n; fake_keep(p); fake_set++; return CUDA_SUCCESS; }
CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p) {
    (void)e; (void)n; fake_keep(p); fake_exec_set++; return CUDA_SUCCESS; }
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS* p) {
    (void)n; *p = fake_node; p->extra = NULL; return CUDA_SUCCESS; }
CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
    fake_attr_f = f; fake_attr = (int)a; fake_attr_v = v; return CUDA_SUCCESS; }
"""

_LAYER_CHECKS = r"""
#define CHECK(c, what) do { if (!(c)) { printf("FAILED: %s\n", what); fails++; } } while (0)
int main(void) {
    int fails = 0, active = 1;
    unsigned int flags = 9;
    hipabi_hipCtx_t ctx = (hipabi_hipCtx_t)1;
    hipabi_hipDevice_t dev = -1;
    /* Asking about devices and contexts initialises the driver and makes no context. */
    CHECK(hipDeviceGet(&dev, 0) == hipabi_hipSuccess && dev == 0, "hipDeviceGet");
    CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active) == hipabi_hipSuccess && active == 0, "primary state");
    CHECK(hipCtxGetCurrent(&ctx) == hipabi_hipSuccess && ctx == NULL, "no current context");
    CHECK(hipCtxPushCurrent((hipabi_hipCtx_t)0x10) == hipabi_hipSuccess, "push");
    CHECK(hipCtxPopCurrent(&ctx) == hipabi_hipSuccess, "pop");
    CHECK(fake_init >= 1, "cuInit called");
    CHECK(fake_free0 == 0, "no primary context made by the queries (cudaFree(0))");

    /* A kernel node of a module function goes to the driver, `extra` with CUDA's markers. */
    size_t size = 24;
    char buf[24];
    void* extra[] = {(void*)0x01, buf, (void*)0x02, &size, (void*)0x03};
    struct hipabi_hipKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = (void*)0x1234;
    p.gridDim.x = 40; p.gridDim.y = 2; p.gridDim.z = 1;
    p.blockDim.x = 128; p.blockDim.y = 1; p.blockDim.z = 1;
    p.sharedMemBytes = 16;
    p.kernelParams = (void**)0xAB0;
    p.extra = extra;
    hipabi_hipGraphNode_t node = NULL;
    CHECK(hipGraphAddKernelNode(&node, (hipabi_hipGraph_t)0x5, NULL, 0, &p) == hipabi_hipSuccess, "add");
    CHECK(fake_added == 1 && node == (hipabi_hipGraphNode_t)0x77, "cuGraphAddKernelNode called");
    CHECK(fake_node.func == (CUfunction)0x1234 && fake_node.gridDimX == 40 && fake_node.gridDimY == 2
          && fake_node.gridDimZ == 1 && fake_node.blockDimX == 128 && fake_node.sharedMemBytes == 16
          && fake_node.kernelParams == (void**)0xAB0 && fake_node.kern == NULL && fake_node.ctx == NULL, "fields");
    CHECK(fake_extra[0] == CU_LAUNCH_PARAM_BUFFER_POINTER && fake_extra[1] == buf
          && fake_extra[2] == CU_LAUNCH_PARAM_BUFFER_SIZE && fake_extra[3] == &size
          && fake_extra[4] == CU_LAUNCH_PARAM_END, "extra in CUDA's markers");
    CHECK(hipGraphAddKernelNode(&node, (hipabi_hipGraph_t)0x5, NULL, 0, NULL) == hipabi_hipErrorInvalidValue,
          "no parameters");
    extra[0] = (void*)0x05;
    CHECK(hipGraphAddKernelNode(&node, (hipabi_hipGraph_t)0x5, NULL, 0, &p) == hipabi_hipErrorInvalidValue
          && fake_added == 1, "a marker HIP lacks");
    p.extra = NULL;
    p.gridDim.x = 7;
    CHECK(hipGraphKernelNodeSetParams(node, &p) == hipabi_hipSuccess && fake_set == 1 && fake_node.gridDimX == 7
          && fake_node.extra == NULL, "set params");
    p.gridDim.x = 9;
    CHECK(hipGraphExecKernelNodeSetParams((hipabi_hipGraphExec_t)0x6, node, &p) == hipabi_hipSuccess
          && fake_exec_set == 1 && fake_node.gridDimX == 9, "exec set params");
    struct hipabi_hipKernelNodeParams back;
    memset(&back, 0xFF, sizeof back);
    CHECK(hipGraphKernelNodeGetParams(node, &back) == hipabi_hipSuccess && back.func == (void*)0x1234
          && back.gridDim.x == 9 && back.blockDim.x == 128 && back.sharedMemBytes == 16
          && back.kernelParams == (void**)0xAB0 && back.extra == NULL, "get params");

    /* Function attributes of a module function: the driver's. */
    CHECK(hipFuncSetAttribute((const void*)0x1234, hipabi_hipFuncAttributeMaxDynamicSharedMemorySize, 65536)
          == hipabi_hipSuccess && fake_attr_f == (CUfunction)0x1234
          && fake_attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && fake_attr_v == 65536, "opt in");
    CHECK(hipFuncSetAttribute((const void*)0x1234, hipabi_hipFuncAttributePreferredSharedMemoryCarveout, 50)
          == hipabi_hipSuccess && fake_attr == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, "carveout");
    CHECK(hipFuncSetAttribute((const void*)0x1234, (hipabi_hipFuncAttribute)3, 1) == hipabi_hipErrorInvalidValue,
          "an attribute HIP lacks");
    printf("%d failed\n", fails);
    return fails != 0;
}
"""


def test_hip_layer_on_a_stand_in_driver(layer, tmp_path):
    """The hand-written HIP calls against a program playing the CUDA driver: kernel nodes of module
    functions go to cuGraph*KernelNode* (the runtime's take no CUfunction), `extra` rewritten to
    CUDA's markers, hipFuncSetAttribute to cuFuncSetAttribute; device and context queries
    initialise the driver without making the primary context (multi_context.py: a CUDA program
    sees it inactive until it makes one)."""
    src = layer["dir"] / "src" / "hipnv_hip.c"
    (tmp_path / "t.c").write_text(f'#include "{src}"\n{_FAKE_CUDA}\n{_LAYER_CHECKS}')
    base = ["gcc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wno-unused-function", "-Wno-deprecated-declarations",
            "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
            *[f"-I{d}" for d in layer["incs"]], str(tmp_path / "t.c"), "-o", str(tmp_path / "t")]
    r = subprocess.run(base + ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"], capture_output=True, text=True)
    if r.returncode != 0 and "sanitize" in r.stderr:
        r = subprocess.run(base, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "warning" not in r.stderr, r.stderr[-3000:]
    r = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


def test_context_prologues(layer):
    """Which HIP calls make the primary context current (hipnv_ensure_context) and which only
    initialise the driver: device queries and the context stack must not make one."""
    src = (layer["dir"] / "src" / "hipnv_hip.c").read_text()

    def body(fn):
        i = src.index(f" {fn}(", src.index("/* ---- generated bridges ---- */"))
        return src[i:src.index("\n}\n", i)]
    for fn in ("hipCtxGetCurrent", "hipCtxSetCurrent", "hipCtxPushCurrent", "hipCtxPopCurrent", "hipCtxCreate",
               "hipCtxDestroy", "hipDevicePrimaryCtxGetState", "hipDevicePrimaryCtxRetain",
               "hipDevicePrimaryCtxRelease", "hipDeviceGet", "hipDeviceGetName", "hipDeviceTotalMem"):
        assert "hipnv_ensure_init();" in body(fn) and "hipnv_ensure_context" not in body(fn), fn
    for fn in ("hipModuleLoadData", "hipCtxSynchronize", "hipMemcpyHtoD", "hipModuleGetFunction"):
        assert "hipnv_ensure_context();" in body(fn), fn
