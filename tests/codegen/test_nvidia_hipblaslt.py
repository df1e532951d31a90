"""hipBLASLt's layer on cuBLASLt without a GPU: generated from sid's hipBLASLt and CUDA's headers, it
compiles and exports every function of hipblaslt.h; a program built from its C runs the parts that
need no CUDA call: the attribute and value converters (HIP's numbers to CUDA's by name, both ways:
HIPBLAS_OP_T is 112, CUBLAS_OP_T 1; HIPBLASLT_MATMUL_DESC_TRANSA is 0, CUBLASLT_MATMUL_DESC_TRANSA
3) and the table that stands cuBLASLt's 64-byte algorithms in HIP's 16 bytes. The calls into
cuBLASLt run in tests/hip/test_hipblaslt_gpu.py."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import header_facts
from conftest import ROOT, cuda_includes


def _enumerators(path: str, incs: list[str], prefixes: tuple[str, ...], language: str) -> dict[str, int]:
    import clang.cindex as ci
    from codegen import clang_parse
    tu = clang_parse.parse(path, incs, ["__HIP_PLATFORM_AMD__"], language)
    return {c.spelling: c.enum_value for c in tu.cursor.walk_preorder()
            if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL and c.spelling.startswith(prefixes)}


@pytest.fixture(scope="module")
def layer(include64, tmp_path_factory):
    incs = cuda_includes()
    if not incs or not any(os.path.exists(os.path.join(d, "cublasLt.h")) for d in incs):
        pytest.skip("no CUDA headers with cublasLt.h (set HIP_PYTHON_CUDA_INCLUDE)")
    if not os.path.exists(os.path.join(include64, "hipblaslt", "hipblaslt.h")):
        pytest.skip(f"no hipblaslt/hipblaslt.h in {include64}")
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    out = tmp_path_factory.mktemp("nvidia-hipblaslt")
    args = [sys.executable, "-m", "codegen", "nvidia", "--hip-include", include64, "--libs", "hipblaslt",
            "--out", str(out / "src"), "--build", str(out / "lib")]
    for d in incs:
        args += ["--cuda-include", d]
    r = subprocess.run(args, capture_output=True, text=True, cwd=str(ROOT))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warnings" not in r.stdout, r.stdout
    return {"dir": out, "incs": incs, "include": include64}


def test_every_function_is_exported_and_bridged(layer):
    syms = subprocess.run(["nm", "-D", "--defined-only", str(layer["dir"] / "lib" / "libhip-nvidia-hipblaslt.so")],
                          capture_output=True, text=True).stdout
    exported = {line.split()[-1] for line in syms.splitlines() if " T " in line}
    declared = set(header_facts.functions(layer["include"], "hipblaslt"))
    assert len(declared) >= 20 and declared == exported
    rep = json.loads((layer["dir"] / "src" / "hipnv_hipblaslt.json").read_text())
    refused = {n: f["reason"] for n, f in rep["functions"].items() if f["status"] == "not_supported"}
    # the two CUDA has nothing for; everything else runs on cuBLASLt
    assert set(refused) == {"hipblasLtGetArchName", "hipblasLtGetGitRevision"}, refused
    assert rep["functions"]["hipblasLtMatmul"]["status"] == "manual"
    assert rep["functions"]["hipblasLtMatrixLayoutCreate"]["status"] == "bridged"


def test_hand_written_part_converts_by_name(layer, tmp_path):
    inc, incs = layer["include"], layer["incs"]
    cuda_h = next(os.path.join(d, "cublasLt.h") for d in incs if os.path.exists(os.path.join(d, "cublasLt.h")))
    hip = _enumerators(os.path.join(inc, "hipblaslt", "hipblaslt.h"), [inc], ("HIPBLAS",), "c++")
    cuda = _enumerators(cuda_h, incs, ("CUBLAS",), "c")
    checks = []

    def pairs(hip_prefix, cuda_prefix):
        out = [(h, cuda_prefix + h[len(hip_prefix):]) for h in hip if h.startswith(hip_prefix)
               and cuda_prefix + h[len(hip_prefix):] in cuda]
        assert out, hip_prefix
        return out

    # value kinds of the enum-valued attributes, and each value both ways
    values = {"HIPNV_LT_OP": ("HIPBLAS_OP_", "CUBLAS_OP_"), "HIPNV_LT_EPILOGUE": ("HIPBLASLT_EPILOGUE_", "CUBLASLT_EPILOGUE_"),
              "HIPNV_LT_ORDER": ("HIPBLASLT_ORDER_", "CUBLASLT_ORDER_"),
              "HIPNV_LT_POINTER_MODE": ("HIPBLASLT_POINTER_MODE_", "CUBLASLT_POINTER_MODE_"),
              "HIPNV_LT_SCALE_MODE": ("HIPBLASLT_MATMUL_MATRIX_SCALE_", "CUBLASLT_MATMUL_MATRIX_SCALE_")}
    for kind, (hp, cp) in values.items():
        for h, c in pairs(hp, cp):
            checks.append(f'ok = 1; CHECK(hipnv_lt_value_to_cuda({kind}, {hip[h]}, &ok) == {cuda[c]} && ok, "{h}");')
            checks.append(f'CHECK(hipnv_lt_value_to_hip({kind}, {cuda[c]}) == {hip[h]}, "{c}");')
    assert {"HIPBLASLT_EPILOGUE_RELU_BIAS", "HIPBLASLT_EPILOGUE_GELU_BIAS"} <= {h for h, _ in pairs(
        "HIPBLASLT_EPILOGUE_", "CUBLASLT_EPILOGUE_")}
    # hipBLASLt's own epilogues (SWISH, CLAMP) have no cuBLASLt member: refused
    checks.append(f'ok = 1; hipnv_lt_value_to_cuda(HIPNV_LT_EPILOGUE, {hip["HIPBLASLT_EPILOGUE_SWISH_EXT"]}, &ok); '
                  'CHECK(!ok, "SWISH_EXT refused");')
    # the attributes themselves: every HIP attribute with a CUDA twin
    for hp, cp, fn in (("HIPBLASLT_MATMUL_DESC_", "CUBLASLT_MATMUL_DESC_",
                        "hipnv_cublasLtMatmulDescAttributes_t_from_hipblasLtMatmulDescAttributes_t"),
                       ("HIPBLASLT_MATRIX_LAYOUT_", "CUBLASLT_MATRIX_LAYOUT_",
                        "hipnv_cublasLtMatrixLayoutAttribute_t_from_hipblasLtMatrixLayoutAttribute_t")):
        for h, c in pairs(hp, cp):
            checks.append(f'ok = 1; CHECK({fn}({hip[h]}, &ok) == {cuda[c]} && ok, "{h}");')
    # a Set call's buffer: TRANSA's HIPBLAS_OP_T goes to CUDA as CUBLAS_OP_T, a pointer as it is,
    # another size as it is (for CUDA to refuse); a Get call's result comes back as HIP's
    ta, bp = hip["HIPBLASLT_MATMUL_DESC_TRANSA"], hip["HIPBLASLT_MATMUL_DESC_BIAS_POINTER"]
    op_t, cop_t = hip["HIPBLAS_OP_T"], cuda["CUBLAS_OP_T"]
    checks += [
        f"int32_t v = {op_t}, tmp = -1; const void* p; ok = 1;",
        f"p = hipnv_lt_set_value(HIPNV_LT_MATMUL_DESC, {ta}, &v, 4, &tmp, &ok);",
        f'CHECK(ok && p == &tmp && tmp == {cop_t} && v == {op_t}, "TRANSA value to CUDA");',
        f'p = hipnv_lt_set_value(HIPNV_LT_MATMUL_DESC, {ta}, &v, 8, &tmp, &ok); CHECK(p == &v, "other size");',
        f'p = hipnv_lt_set_value(HIPNV_LT_MATMUL_DESC, {bp}, &v, 4, &tmp, &ok); CHECK(p == &v, "a pointer");',
        f'v = {cop_t}; hipnv_lt_got_value(HIPNV_LT_MATMUL_DESC, {ta}, &v, 4); CHECK(v == {op_t}, "TRANSA back");',
        f'v = 12345; ok = 1; p = hipnv_lt_set_value(HIPNV_LT_MATMUL_DESC, {ta}, &v, 4, &tmp, &ok); '
        'CHECK(!ok && !p, "an unknown operation refused");',
    ]
    prog = f"""
#include "{layer['dir'] / 'src' / 'hipnv_hipblaslt.c'}"
#include <stdio.h>
#define CHECK(cond, what) do {{ if (!(cond)) {{ printf("FAIL %s\\n", what); fails++; }} }} while (0)
int main(void) {{
    int ok = 1, fails = 0;
    {chr(10).join(checks)}
    /* the algorithm table: distinct algorithms get distinct HIP structs, equal ones the same,
       and each reads back as itself; a struct the layer did not write is refused */
    cublasLtMatmulAlgo_t a, b, got;
    hipabi_hipblasLtMatmulAlgo_t ha, hb, ha2, stray;
    memset(&a, 0, sizeof a); memset(&b, 0, sizeof b); memset(&stray, 0, sizeof stray);
    a.data[0] = 7; a.data[7] = 99; b.data[0] = 8;
    CHECK(hipnv_lt_algo_put(&ha, &a, 1024) && hipnv_lt_algo_put(&hb, &b, 0) && hipnv_lt_algo_put(&ha2, &a, 1024), "put");
    CHECK(memcmp(&ha, &hb, sizeof ha) && !memcmp(&ha, &ha2, sizeof ha), "distinct, deduplicated");
    CHECK(ha.max_workspace_bytes == 1024, "max_workspace_bytes");
    CHECK(hipnv_lt_algo_get(&ha, &got) && !memcmp(&got, &a, sizeof a), "a back");
    CHECK(hipnv_lt_algo_get(&hb, &got) && !memcmp(&got, &b, sizeof b), "b back");
    CHECK(!hipnv_lt_algo_get(&stray, &got), "a zeroed struct refused");
    printf("%d checks, %d failed\\n", {len(checks) + 6}, fails);
    return fails != 0;
}}
"""
    (tmp_path / "t.c").write_text(prog)
    # Only what main reaches is linked: the exported bridges (and their cuBLASLt calls) are dropped.
    cmd = ["gcc", "-std=gnu11", "-w", "-O1", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
           *[f"-I{d}" for d in incs], str(tmp_path / "t.c"), "-o", str(tmp_path / "t"), "-lpthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout[-3000:]
