"""CUDA<->HIP name matching (codegen/bridge/match.py) in both directions: HIP -> CUDA for the
HIP-on-CUDA layer, CUDA -> HIP for the `cuda` alias, by the same rules.

First the rules on made-up names, each both ways; then round trips over the real headers (ROCm
6.4 and the CUDA headers of tools/fetch_cuda_headers.sh): every pair found one way is found the
other way, for functions, enumerators, struct fields and types of every layer library.
"""
from __future__ import annotations

import os
import re

import pytest

from conftest import cuda_includes

from codegen.bridge import match, spec as nvspec
from codegen.bridge.match import CUDA, HIP
from codegen.bridge.spec import Rule


def rules(*pairs):
    return [Rule(re.compile(h), c if isinstance(c, list) else [c]) for h, c in pairs]


# -- enumerators ---------------------------------------------------------------------------------
def test_enumerators_by_vendor_prefix_both_ways():
    hip = [("hipSuccess", 0), ("hipErrorInvalidValue", 1), ("hipErrorOutOfMemory", 2)]
    cu = [("CUDA_SUCCESS", 0), ("CUDA_ERROR_INVALID_VALUE", 1), ("CUDA_ERROR_OUT_OF_MEMORY", 2)]
    fw = match.enumerator_pairs(hip, cu)
    assert fw == {"hipSuccess": "CUDA_SUCCESS", "hipErrorInvalidValue": "CUDA_ERROR_INVALID_VALUE",
                  "hipErrorOutOfMemory": "CUDA_ERROR_OUT_OF_MEMORY"}
    assert match.enumerator_pairs(hip, cu, to=HIP) == {c: h for h, c in fw.items()}


def test_enumerators_by_shared_prefix_both_ways():
    hip = [("hipDeviceAttributeMaxThreadsPerBlock", 0), ("hipDeviceAttributeWarpSize", 1)]
    cu = [("cudaDevAttrMaxThreadsPerBlock", 1), ("cudaDevAttrWarpSize", 10)]
    assert match.enumerator_pairs(hip, cu, to=HIP) == {
        "cudaDevAttrMaxThreadsPerBlock": "hipDeviceAttributeMaxThreadsPerBlock",
        "cudaDevAttrWarpSize": "hipDeviceAttributeWarpSize"}


def test_enumerators_with_the_vendor_word_inside_both_ways():
    # HIP's pointer attribute says HIP where CUDA's says CUDA, mid-name (driver_types.h, cuda.h)
    hip = [("HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE", 10), ("HIP_POINTER_ATTRIBUTE_MAPPED", 13)]
    cu = [("CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE", 10), ("CU_POINTER_ATTRIBUTE_MAPPED", 13)]
    pairs = dict(zip([n for n, _ in hip], [n for n, _ in cu]))
    assert match.enumerator_pairs(hip, cu) == pairs
    assert match.enumerator_pairs(hip, cu, to=HIP) == {c: h for h, c in pairs.items()}


def test_enumerators_never_by_value_either_way():
    hip = [("hipOnlyThing", 7), ("hipOther", 1)]
    cu = [("cudaSomethingElse", 7), ("cudaUnrelated", 1)]
    assert match.enumerator_pairs(hip, cu) == {} == match.enumerator_pairs(hip, cu, to=HIP)


def test_enumerator_overrides_inverted_and_exclusive():
    hip = [("hipA", 0), ("hipB", 1), ("hipC", 2), ("hipX", 3)]
    cu = [("cudaX", 0), ("cudaB", 1), ("cudaC", 2)]
    over = {"hipA": "cudaX", "hipB": "cudaTypo", "hipC": "cudaX"}
    # HIP -> CUDA: an override wins, and an overridden name matches nothing else in an enum that has
    # the override's name; in one that lacks it (hipB's cudaTypo: an override meant for another
    # CUDA enum, as cudaDevAttr* names are not CUdevice_attribute's) the name rules apply.
    assert match.enumerator_pairs(hip, cu, over) == {"hipA": "cudaX", "hipB": "cudaB", "hipC": "cudaX",
                                                     "hipX": "cudaX"}
    # CUDA -> HIP: the overrides read backwards (the first HIP name sending there), before the name
    # rules; HIP names overridden into this enum are not found by the name rules (cudaC stays unmatched).
    assert match.enumerator_pairs(hip, cu, over, to=HIP) == {"cudaX": "hipA", "cudaB": "hipB"}


def test_common_prefix_stops_on_a_word_boundary():
    assert match.common_prefix(["hipMemcpyHostToDevice", "hipMemcpyHostToHost"]) == "hipMemcpyHostTo"
    assert match.common_prefix(["hipMemcpyDefault", "hipMemcpyDeviceToHost"]) == "hipMemcpy"
    assert match.common_prefix(["HIPBLAS_OP_N", "HIPBLAS_OP_T"]) == "HIPBLAS_OP_"


def test_direction_is_checked():
    with pytest.raises(ValueError):
        match.enumerator_pairs([], [], to="rocm")
    with pytest.raises(ValueError):
        match.field_for("a", ["a"], to="Cuda")


# -- struct fields -------------------------------------------------------------------------------
def test_fields_both_ways():
    assert match.field_for("totalGlobalMem", ["name", "totalGlobalMem"]) == "totalGlobalMem"
    assert match.field_for("totalGlobalMem", ["name", "totalGlobalMem"], to=HIP) == "totalGlobalMem"
    assert match.field_for("pciBusID", ["pciBusId"]) == "pciBusId"
    assert match.field_for("pciBusId", ["pciBusID"], to=HIP) == "pciBusID"
    assert match.field_for("sparseHipArraySupported", ["sparseCudaArraySupported"]) == "sparseCudaArraySupported"
    assert match.field_for("sparseCudaArraySupported", ["sparseHipArraySupported"], to=HIP) == \
        "sparseHipArraySupported"
    assert match.field_for("gcnArchName", ["name", "major"]) is None
    assert match.field_for("uuid", ["gcnArchName", "name"], to=HIP) is None


def test_field_overrides_inverted_and_exclusive():
    over = {"a": "b", "c": "missing"}
    assert match.field_for("a", ["a", "b"], over) == "b"
    assert match.field_for("c", ["c"], over) is None          # overridden: no fallback to the same name
    assert match.field_for("b", ["a", "b"], over, to=HIP) == "a"
    assert match.field_for("c", ["a", "c"], over, to=HIP) is None   # HIP's c is overridden away


# -- functions -----------------------------------------------------------------------------------
HIP_RULES = rules(("hipDrv(.+)", "cu\\1"), ("hip(.+)", ["cuda\\1", "cu\\1"]))


def test_function_candidates_in_order():
    assert match.function_candidates(["hipMalloc"], HIP_RULES) == ["cudaMalloc", "cuMalloc"]
    assert match.function_candidates(["hipDrvMemcpy2DUnaligned"], HIP_RULES)[0] == "cuMemcpy2DUnaligned"
    assert match.function_candidates(["hipHostMalloc"], HIP_RULES, {"hipHostMalloc": "cudaHostAlloc"})[0] == \
        "cudaHostAlloc"
    s = nvspec.load("hip")   # the spec's own rules (NvSpec.cuda_candidates is the same function)
    assert s.cuda_candidates(["hipMalloc"])[:2] == ["cudaMalloc", "cuMalloc"]
    assert s.cuda_candidates(["hipHostMalloc"])[0] == "cudaHostAlloc"


def test_functions_both_ways():
    hip_f = ["hipMalloc", "hipMemcpyHtoD", "hipHostMalloc", "hipHostAlloc", "hipDrvMemAlloc", "hipOnly"]
    cuda_f = ["cudaMalloc", "cuMemcpyHtoD_v2", "cudaHostAlloc", "cuMemAlloc_v2", "cudaOther"]
    cuda_aliases = {"cuMemcpyHtoD": "cuMemcpyHtoD_v2", "cuMemAlloc": "cuMemAlloc_v2"}
    rename = {"hipHostMalloc": "cudaHostAlloc"}
    fw = match.function_matches(hip_f, cuda_f, HIP_RULES, rename, cuda_aliases=cuda_aliases)
    assert fw == {"hipMalloc": ["cudaMalloc"], "hipMemcpyHtoD": ["cuMemcpyHtoD_v2"],
                  "hipHostMalloc": ["cudaHostAlloc"], "hipHostAlloc": ["cudaHostAlloc"],
                  "hipDrvMemAlloc": ["cuMemAlloc_v2"]}
    bw = match.function_matches(hip_f, cuda_f, HIP_RULES, rename, cuda_aliases=cuda_aliases, to=HIP)
    # The rename (a spec override) ranks before the rule's exact name.
    assert bw == {"cudaMalloc": ["hipMalloc"], "cuMemcpyHtoD_v2": ["hipMemcpyHtoD"],
                  "cudaHostAlloc": ["hipHostMalloc", "hipHostAlloc"], "cuMemAlloc_v2": ["hipDrvMemAlloc"]}


def test_functions_to_hip_prefer_the_more_specific_rule_and_declared_names():
    r = rules(("hipsolverDn(.+)", "cusolverDn\\1"), ("hipsolver(.+)", "cusolverDn\\1"))
    bw = match.function_matches(["hipsolverCreate", "hipsolverDnCreate"], ["cusolverDnCreate"], r, to=HIP)
    assert bw == {"cusolverDnCreate": ["hipsolverDnCreate", "hipsolverCreate"]}
    # A HIP function known by a #define alias (hipGetDeviceProperties -> ...R0600) is found by it and
    # returned by its declared name.
    aliases = {"hipGetDeviceProperties": "hipGetDevicePropertiesR0600"}
    r = rules(("hip(.+)", "cuda\\1"))
    assert match.function_matches(["hipGetDevicePropertiesR0600"], ["cudaGetDeviceProperties"], r,
                                  hip_aliases=aliases, to=HIP) == \
        {"cudaGetDeviceProperties": ["hipGetDevicePropertiesR0600"]}
    assert match.function_matches(["hipGetDevicePropertiesR0600"], ["cudaGetDeviceProperties"], r,
                                  hip_aliases=aliases) == \
        {"hipGetDevicePropertiesR0600": ["cudaGetDeviceProperties"]}


# -- types ---------------------------------------------------------------------------------------
def test_types_both_ways():
    hip_t = ["hipStream_t", "hipError_t", "hipDeviceProp_tR0600", "hipOnly_t"]
    cuda_t = ["cudaStream_t", "CUstream", "cudaError_t", "CUresult", "cudaDeviceProp", "CUother"]
    over = [["hipError_t", "CUresult"]]
    aliases = {"hipDeviceProp_t": "hipDeviceProp_tR0600"}
    fw = match.type_pairs(hip_t, cuda_t, over, hip_aliases=aliases)
    assert fw == {"hipStream_t": ["cudaStream_t", "CUstream"], "hipError_t": ["CUresult", "cudaError_t"],
                  "hipDeviceProp_tR0600": ["cudaDeviceProp"]}
    bw = match.type_pairs(hip_t, cuda_t, over, to=HIP, hip_aliases=aliases)
    assert bw == {"cudaStream_t": ["hipStream_t"], "CUstream": ["hipStream_t"], "cudaError_t": ["hipError_t"],
                  "CUresult": ["hipError_t"], "cudaDeviceProp": ["hipDeviceProp_tR0600"]}


def test_matcher_binds_a_spec():
    m = match.Matcher.for_spec(nvspec.load("hip"))
    assert m.function_candidates(["hipMalloc"])[:2] == ["cudaMalloc", "cuMalloc"]
    hip = [("hipDeviceAttributeSharedMemPerBlockOptin", 0)]
    cu = [("cudaDevAttrMaxSharedMemoryPerBlockOptin", 97), ("cudaDevAttrWarpSize", 10)]
    assert m.enumerators(hip, cu) == {"hipDeviceAttributeSharedMemPerBlockOptin":
                                      "cudaDevAttrMaxSharedMemoryPerBlockOptin"}
    assert m.enumerators(hip, cu, to=HIP) == {"cudaDevAttrMaxSharedMemoryPerBlockOptin":
                                              "hipDeviceAttributeSharedMemPerBlockOptin"}
    assert m.types(["hipError_t"], ["CUresult", "nvrtcResult"], to=HIP) == {"CUresult": ["hipError_t"]}


# -- round trips over the real headers -----------------------------------------------------------
@pytest.fixture(scope="module")
def headers(include64):
    """library -> (HIP module, its TypeIndex, CUDA module, CUDA TypeIndex, Matcher), for every layer
    library both header sets have."""
    from codegen import spec as bindspec
    from codegen.generate import analyse_libraries, load_specs
    from codegen.bridge import cuda_ir
    from codegen.types import TypeIndex
    incs = cuda_includes()
    if not incs:
        pytest.skip("no CUDA headers (set HIP_PYTHON_CUDA_INCLUDE, or run tools/fetch_cuda_headers.sh)")
    libs = [l for l in nvspec.all_libraries()
            if all(any(os.path.exists(os.path.join(d, h)) for d in incs) for h in nvspec.load(l).cuda_headers)
            and all(os.path.exists(os.path.join(include64, h)) for h in bindspec.load(l).headers)]
    analysed = {x.spec.library: x for x in analyse_libraries(include64, libs, load_specs())}
    out = {}
    for lib in libs:
        ns = nvspec.load(lib)
        cu = cuda_ir.build(ns.cuda_headers, incs, ns.defines)
        out[lib] = (analysed[lib].module, analysed[lib].types, cu, TypeIndex(cu), match.Matcher.for_spec(ns))
    return out


LIBS = nvspec.all_libraries()


def _get(headers, lib):
    if lib not in headers:
        pytest.skip(f"{lib}: headers not here")
    return headers[lib]


def _type_pairs(m, cu, M, to=CUDA):
    hn = [x.name for x in (*m.typedefs, *m.records, *m.enums)]
    cn = [x.name for x in (*cu.typedefs, *cu.records, *cu.enums)]
    return M.types(hn, cn, to=to, hip_aliases=m.aliases, cuda_aliases=cu.aliases)


@pytest.mark.parametrize("lib", LIBS)
def test_real_functions_round_trip(headers, lib):
    m, _, cu, _, M = _get(headers, lib)
    hf, cf = [f.name for f in m.functions], [f.name for f in cu.functions]
    fw = M.functions(hf, cf, m.aliases, cu.aliases, to=CUDA)
    bw = M.functions(hf, cf, m.aliases, cu.aliases, to=HIP)
    assert fw and bw, lib
    for h, cs in fw.items():
        for c in cs:
            assert h in bw[c], (h, c)                 # every pair is found from both sides
    for c, hs in bw.items():
        for h in hs:
            assert c in fw[h], (c, h)
        # HIP -> CUDA -> HIP -> CUDA closes: the HIP function chosen for c calls c on the layer,
        # except where HIP's runtime call goes to CUDA's runtime API and c is the driver's name.
        if fw[hs[0]][0] != c:
            assert lib == "hip" and c.startswith("cu") and not c.startswith("cuda"), (c, hs, fw[hs[0]])
    for h, cs in fw.items():
        assert fw[bw[cs[0]][0]][0] == cs[0], h


REAL_FUNCTIONS = {
    "hip": {"cudaMalloc": "hipMalloc", "cuMemcpyHtoD_v2": "hipMemcpyHtoD", "cudaHostAlloc": "hipHostMalloc",
            "cuDeviceGetAttribute": "hipDeviceGetAttribute", "cudaLaunchKernel": "hipLaunchKernel"},
    "hipblas": {"cublasSgemm_v2": "hipblasSgemm", "cublasCreate_v2": "hipblasCreate"},
    "hipsolver": {"cusolverDnCreate": "hipsolverDnCreate"},
    "hiprtc": {"nvrtcCompileProgram": "hiprtcCompileProgram"},
    "rccl": {"ncclAllReduce": "ncclAllReduce"},
    "hipfft": {"cufftPlan1d": "hipfftPlan1d"},
    "hiprand": {"curandCreateGenerator": "hiprandCreateGenerator"},
    "hipsparse": {"cusparseCreate": "hipsparseCreate"},
    "hipblaslt": {"cublasLtCreate": "hipblasLtCreate", "cublasLtMatmulDescCreate": "hipblasLtMatmulDescCreate"},
}


@pytest.mark.parametrize("lib", LIBS)
def test_real_functions_to_hip(headers, lib):
    m, _, cu, _, M = _get(headers, lib)
    bw = M.functions([f.name for f in m.functions], [f.name for f in cu.functions], m.aliases, cu.aliases, to=HIP)
    assert {c: bw.get(c, [None])[0] for c in REAL_FUNCTIONS[lib]} == REAL_FUNCTIONS[lib]


# the hipBLAS gemms hip.tensor calls (`_libs.blas.gemm_batched`) and what the layer calls for them
TENSOR_GEMMS = {"hipblasGemmStridedBatchedEx_v2": "cublasGemmStridedBatchedEx",
                "hipblasGemmBatchedEx_v2": "cublasGemmBatchedEx",
                "hipblasSgemmStridedBatched": "cublasSgemmStridedBatched", "hipblasSgemmBatched": "cublasSgemmBatched",
                "hipblasDgemmStridedBatched": "cublasDgemmStridedBatched", "hipblasDgemmBatched": "cublasDgemmBatched"}


def test_tensor_gemms_reach_cublas(headers):
    m, _, cu, _, M = _get(headers, "hipblas")
    fw = M.functions([f.name for f in m.functions], [f.name for f in cu.functions], m.aliases, cu.aliases, to=CUDA)
    assert {h: fw.get(h, [None])[0] for h in TENSOR_GEMMS} == TENSOR_GEMMS


@pytest.mark.parametrize("lib", LIBS)
def test_real_types_round_trip(headers, lib):
    m, _, cu, _, M = _get(headers, lib)
    fw, bw = _type_pairs(m, cu, M), _type_pairs(m, cu, M, to=HIP)
    assert fw, lib
    assert {(h, c) for h, cs in fw.items() for c in cs} == {(h, c) for c, hs in bw.items() for h in hs}


def test_real_types_examples(headers):
    m, _, cu, _, M = _get(headers, "hip")
    fw, bw = _type_pairs(m, cu, M), _type_pairs(m, cu, M, to=HIP)
    assert fw["hipStream_t"] == ["cudaStream_t", "CUstream"]
    assert fw["hipError_t"][:2] == ["cudaError_t", "CUresult"]           # the spec's `require` first
    assert bw["CUresult"] == ["hipError_t"] and bw["cudaError_t"] == ["hipError_t"]
    assert bw["CUdevice_attribute"] == ["hipDeviceAttribute_t"]
    prop = m.aliases.get("hipDeviceProp_t", "hipDeviceProp_t")            # ...R0600 on ROCm 6
    assert bw["cudaDeviceProp"] == [prop] and fw[prop] == ["cudaDeviceProp"]


def _enum_pairs(headers, lib):
    m, h, cu, c, M = _get(headers, lib)
    pairs = {}
    for hn, cns in _type_pairs(m, cu, M).items():
        for cn in cns:
            he, ce = h.enum_named(hn), c.enum_named(cn)
            if he and ce:
                pairs[(he.name, ce.name)] = (he, ce)
    return list(pairs.values())


def _enumerators_round_trip(M, he, ce):
    hip = [(k.name, k.value) for k in he.constants]
    cuda = [(k.name, k.value) for k in ce.constants]
    hval, cval = dict(hip), dict(cuda)
    fw, bw = M.enumerators(hip, cuda), M.enumerators(hip, cuda, to=HIP)
    for h, c in fw.items():
        # Back to h, or to a HIP synonym of h: one with h's value, or one the spec sends to c too
        # (several HIP enumerators may override to one CUDA enumerator).
        assert bw[c] == h or hval[bw[c]] == hval[h] or fw[bw[c]] == c, (he.name, h, c, bw[c])
    for c, h in bw.items():
        assert fw[h] == c or cval[fw[h]] == cval[c], (ce.name, c, h, fw[h])
    return fw, bw


@pytest.mark.parametrize("lib", LIBS)
def test_real_enumerators_round_trip(headers, lib):
    M = _get(headers, lib)[4]
    pairs = _enum_pairs(headers, lib)
    assert pairs, lib
    matched = sum(len(_enumerators_round_trip(M, he, ce)[0]) for he, ce in pairs)
    assert matched >= len(pairs), lib


def test_real_enumerators_with_overrides(headers):
    """hipDeviceAttribute_t ~ cudaDeviceAttr (their names differ: the layer pairs them through
    hipDeviceGetAttribute): the spec's overrides, read backwards, name the HIP enumerators."""
    m, h, cu, c, M = _get(headers, "hip")
    fw, bw = _enumerators_round_trip(M, h.enum_named("hipDeviceAttribute_t"), c.enum_named("cudaDeviceAttr"))
    assert bw["cudaDevAttrGpuOverlap"] == "hipDeviceAttributeDeviceOverlap"            # an override
    # Two HIP attributes override to this one; backwards, the first HIP declares.
    assert fw["hipDeviceAttributeSharedMemPerMultiprocessor"] == "cudaDevAttrMaxSharedMemoryPerMultiprocessor"
    assert fw["hipDeviceAttributeMaxSharedMemoryPerMultiprocessor"] == "cudaDevAttrMaxSharedMemoryPerMultiprocessor"
    assert bw["cudaDevAttrMaxSharedMemoryPerMultiprocessor"] == "hipDeviceAttributeSharedMemPerMultiprocessor"
    assert bw["cudaDevAttrWarpSize"] == "hipDeviceAttributeWarpSize"                   # shared prefixes
    for cname in ("CUresult", "cudaError_t"):
        _, bw = _enumerators_round_trip(M, h.enum_named("hipError_t"), c.enum_named(cname))
        assert bw[{"CUresult": "CUDA_ERROR_INVALID_VALUE"}.get(cname, "cudaErrorInvalidValue")] == \
            "hipErrorInvalidValue"


@pytest.mark.parametrize("lib", LIBS)
def test_real_fields_round_trip(headers, lib):
    m, h, cu, c, M = _get(headers, lib)
    from codegen import ir
    seen, fields = set(), 0
    for hn, cns in _type_pairs(m, cu, M).items():
        hr = h.record_of(ir.CType("typedef" if hn in h.typedefs else "record", hn))
        for cn in cns if hr else ():
            cr = c.record_of(ir.CType("typedef" if cn in c.typedefs else "record", cn))
            if not cr or (hr.name, cr.name) in seen:
                continue
            seen.add((hr.name, cr.name))
            hf, cf = [f.name for f in hr.fields], [f.name for f in cr.fields]
            for f in hf:
                g = M.field(hr.name, f, cf)
                if g is not None:
                    fields += 1
                    assert M.field(hr.name, g, hf, to=HIP) == f, (hr.name, f, g)
            for g in cf:
                f = M.field(hr.name, g, hf, to=HIP)
                if f is not None:
                    assert M.field(hr.name, f, cf) == g, (cr.name, g, f)
    if lib == "hip":
        prop = m.aliases.get("hipDeviceProp_t", "hipDeviceProp_t")
        assert M.field(prop, "totalGlobalMem", [f.name for f in c.records["cudaDeviceProp"].fields], to=CUDA) \
            == "totalGlobalMem"
        assert fields > 300, fields
