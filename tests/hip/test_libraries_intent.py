"""Parameter intent of the math and communication libraries matches how they are used: AMD's HIP Python convention.

* alpha/beta (`const T* alpha`) take Python numbers; complex ones (hipblasComplex, hipComplex,
  hipDoubleComplex, ...) take Python complex;
* which other pointer parameters the call returns and which the caller passes follows AMD's HIP
  Python release for the same ROCm, library by library (tools/parity_report.py amd_rule(), derived
  from AMD's sources): hipBLAS and hipSOLVER return only the handle hipblasCreate/hipsolverCreate
  make, and take every other pointer from the caller (hipblasSdot's `result`, workspace sizes,
  modes, streams); hipSPARSE returns the handle of hipsparseCreate and the struct handles
  (csrsv2Info_t, ...), the descriptors (typedef void*) being the caller's; hipFFT returns plans and
  work sizes; hipRAND its generators and the numbers it writes; RCCL its communicators and numbers,
  ncclGetUniqueId's id and ncclCommInitAll's communicators being the caller's;
* a function whose C result is a value (hipblasStatusToString, hipsparseGetMatType) returns
  `(value,)`, every other one starts with exactly one status;
* rocBLAS and rocSOLVER, which AMD's HIP Python does not bind, follow hipBLAS's and hipSOLVER's
  convention (rocBLAS's alpha/beta take Python numbers too).

Which functions and parameters to check comes from the headers (tests/oracles/header_facts.py,
and codegen's IR for the rule's C shapes); what the bindings make of them is read from the stubs
(hip/<lib>.pyi: the Python signature and the returned tuple) and observed by calling them:
against a missing library (every argument must convert before the library is loaded:
LibraryNotFoundError, not TypeError). What the libraries then compute with those arguments is
checked against the real libraries on the GPU (tests/hip/test_hip*_gpu.py, test_rccl_gpu.py:
alpha forms, complex alpha, results in caller storage, plans, workspace sizes, NCCL ids and
communicators).
"""
from __future__ import annotations

import ast
import functools
import json
import re
import textwrap

import sys

import pytest

import header_facts
from conftest import ROOT, run_python

sys.path.insert(0, str(ROOT / "tools"))
import parity_report  # noqa: E402  (AMD's rule: amd_rule())



@functools.lru_cache(maxsize=None)
def stubs(lib: str) -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    """{function: ([(parameter, annotation)], [returned tuple's element types])} from hip/<lib>.pyi."""
    tree = ast.parse((ROOT / "hip" / f"{lib}.pyi").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            params = [(a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in node.args.args]
            ret = node.returns
            elts = ret.slice.elts if isinstance(ret, ast.Subscript) and isinstance(ret.slice, ast.Tuple) else \
                [ret.slice] if isinstance(ret, ast.Subscript) else []
            out[node.name] = (params, [ast.unparse(e) for e in elts])
    return out


def _facts(include64, lib):
    listed = json.loads((ROOT / "hip" / "_coverage" / f"{lib}.json").read_text())["functions"]
    return {n: f for n, f in header_facts.functions(include64, lib).items()
            if listed.get(n, {}).get("status") == "bound"}


def _inputs(lib, fn):
    return [p for p, _ in stubs(lib)[fn][0]]


def _outputs(lib, fn):
    return stubs(lib)[fn][1][1:]     # after the status


STATUS = {"hipblas": {"hipblasStatus_t"}, "hiprand": {"hiprandStatus", "hiprandStatus_t"},
          "hipsparse": {"hipsparseStatus_t"}, "hipfft": {"hipfftResult", "hipfftResult_t"},
          "hipsolver": {"hipsolverStatus_t"}, "rccl": {"ncclResult_t"}}
# The libraries whose per-library AMD convention this file spells out (test_parity.py holds
# every library to AMD's release).
LIBS = list(STATUS)
# Libraries AMD's HIP Python does not bind, on hipBLAS's and hipSOLVER's convention (below): the
# handles the create functions make are returned, every other pointer is the caller's.
ROC = {"rocblas": {("rocblas_create_handle", "handle")},
       "rocsolver": {("rocsolver_create_handle", "handle"), ("rocsolver_create_rfinfo", "rfinfo")}}
# rocBLAS's alpha/beta are hipBLAS's (rocSOLVER's are device arrays: larf's "scalar on the GPU").
NUMBER_LIBS = LIBS + [lib for lib in ("rocblas",) if (ROOT / "hip" / "_coverage" / f"{lib}.json").exists()]
ENV = {lib: f"HIP_PYTHON_{lib.upper()}_LIBRARY" for lib in NUMBER_LIBS}


@pytest.fixture(scope="module")
def cside(include64):
    """The C declarations through codegen's IR: each parameter's shape as AMD's rule reads it."""
    return parity_report.CSide(str(ROOT), include64)


def _pointer_params(cside):
    """(lib, function, parameter, shape) of every pointer parameter of every bound function."""
    out = []
    for lib in LIBS:
        for fn in stubs(lib):
            f = cside.function(lib, fn)
            assert f is not None, f"{lib}.{fn}: in the stubs, not in the headers"
            for p in f.params:
                shape = cside.shape(lib, p.type)
                if "ptr(" in shape or "array(" in shape:
                    out.append((lib, fn, p.name, shape))
    return out


def _role(lib, fn, pname):
    """'caller' (a parameter of the Python function) or 'returned' (the binding allocates it)."""
    names = _inputs(lib, fn)
    return "caller" if pname in names or f"{pname}_" in names else "returned"   # from -> from_


# -- what the stubs say, for every function the headers declare ----------------------------------
NUMBER_PARAMS = re.compile(r"alpha|beta")


def _number_params(include64):
    """(lib, function, parameter, kind) for every `const T* alpha/beta` with T a number or complex."""
    out = []
    for lib in NUMBER_LIBS:
        for name, f in _facts(include64, lib).items():
            for p in f.params:
                if NUMBER_PARAMS.fullmatch(p.name) and p.pointer and p.const and \
                        p.pointee in ("int", "float", "complex"):
                    out.append((lib, name, p.name, p.pointee))
    return out


def test_header_walk_finds_number_params(include64):
    found = {(lib, fn, p) for lib, fn, p, _ in _number_params(include64)}
    assert {("hipblas", "hipblasSaxpy", "alpha"), ("hipblas", "hipblasZgemm", "beta"),
            ("hipblas", "hipblasCaxpy_v2", "alpha"), ("hipsparse", "hipsparseScsrmv", "beta")} <= found
    kinds = {k for *_, k in _number_params(include64)}
    assert {"float", "complex"} <= kinds
    assert len(found) > 300


def test_alpha_beta_are_inputs(include64):
    wrong = [f"{lib}.{fn}({p})" for lib, fn, p, _ in _number_params(include64) if p not in _inputs(lib, fn)]
    assert wrong == [], f"alpha/beta not a parameter of the Python function: {wrong[:20]}"


def test_every_pointer_parameter_follows_amds_rule(cside):
    """Every pointer parameter of the six libraries is returned or the caller's exactly as AMD's
    HIP Python treats it (amd_rule, per library and C shape), and the returned tuple holds the
    status and one value per returned parameter."""
    params = _pointer_params(cside)
    assert len(params) > 10000 and {lib for lib, *_ in params} == set(LIBS)
    wrong = [f"{lib}.{fn}({p}) [{shape}]: ours {_role(lib, fn, p)}, AMD {parity_report.amd_rule(lib, fn, p, shape)}"
             for lib, fn, p, shape in params if _role(lib, fn, p) != parity_report.amd_rule(lib, fn, p, shape)]
    assert wrong == [], f"{len(wrong)} parameters differ from AMD's convention:\n" + "\n".join(wrong[:30])
    returned = {}
    for lib, fn, p, shape in params:
        returned.setdefault((lib, fn), 0)
        returned[(lib, fn)] += _role(lib, fn, p) == "returned"
    sizes = [f"{lib}.{fn} -> {stubs(lib)[fn][1]} ({n} returned)" for (lib, fn), n in returned.items()
             if stubs(lib)[fn][1][:1] and stubs(lib)[fn][1][0] in STATUS[lib] and len(_outputs(lib, fn)) != n]
    assert sizes == [], sizes[:20]


def _pointer_outputs(include64, pick):
    """(lib, function, parameter) of non-const pointer parameters `pick(lib, fn, param)` selects."""
    return [(lib, name, p.name) for lib in LIBS for name, f in _facts(include64, lib).items()
            for p in f.params if p.pointer and not p.const and pick(lib, name, p)]


def _not_inputs(found):
    return [f"{lib}.{fn}({p})" for lib, fn, p in found if p not in _inputs(lib, fn)]


def test_results_are_the_callers(include64):
    """hipblasSdot/Snrm2/Isamax...: the caller passes `result` (host memory in host pointer mode,
    device memory in device mode); the call returns only its status."""
    found = _pointer_outputs(include64, lambda lib, fn, p: lib == "hipblas" and p.name == "result"
                             and p.pointee in ("int", "float", "complex"))
    assert ("hipblas", "hipblasSdot", "result") in found and len(found) > 50
    assert _not_inputs(found) == []
    for lib, fn, _ in found:
        assert _outputs(lib, fn) == [], f"{fn} returns {stubs(lib)[fn][1]}"
    assert _inputs("hipblas", "hipblasSdot") == ["handle", "n", "x", "incx", "y", "incy", "result"]
    assert _inputs("hipblas", "hipblasIsamax") == ["handle", "n", "x", "incx", "result"]
    assert _inputs("hipblas", "hipblasCdotc")[-1] == "result"
    for fn in ("hipblasSdot", "hipblasIsamax", "hipblasCdotc"):
        assert stubs("hipblas")[fn][1] == ["hipblasStatus_t"], fn
    # modes and streams too (hipblasGetPointerMode(handle, mode)), in every library but the
    # struct handles of hipSPARSE (hipsparseGetStream returns its hipStream_t)
    for lib, fn, p in (("hipblas", "hipblasGetPointerMode", "mode"), ("hipblas", "hipblasGetStream", "streamId"),
                       ("hipblas", "hipblasGetMathMode", "mode"), ("hipsolver", "hipsolverGetStream", "streamId"),
                       ("hipsparse", "hipsparseGetPointerMode", "mode"),
                       ("hipsparse", "hipsparseGetVersion", "version"),
                       ("hipfft", "hipfftGetVersion", "version"), ("rccl", "ncclCommGetAsyncError", "asyncError")):
        assert _inputs(lib, fn)[-1] == p and _outputs(lib, fn) == [], f"{fn}: {stubs(lib)[fn]}"
    assert _inputs("hipsparse", "hipsparseGetStream") == ["handle"]
    assert _outputs("hipsparse", "hipsparseGetStream") == ["ihipStream_t"]      # the hipStream_t class


def test_created_handles(include64, cside):
    """`X_t* handle` of every Create/Plan/Init function: returned where AMD returns it (hipblasCreate,
    hipsolverCreate, hipsparseCreate and hipSPARSE's struct handles, hipfftPlan1d,
    hiprandCreateGenerator, ncclCommInitRank), else the caller's storage (hipSPARSE's
    descriptors: hipsparseCreateMatDescr(descr), hipsparseCreateCsr(spMatDescr, ...))."""
    creators = re.compile(r"\w*(Create|Plan\d?d|PlanMany|InitRank|InitRankMulti)\w*")
    found = _pointer_outputs(include64, lambda lib, fn, p: creators.fullmatch(fn) and p.pointee == "handle")
    names = {fn for _, fn, _ in found}
    assert {"hipblasCreate", "hipsolverCreate", "hipsparseCreate", "hipsparseCreateCsr", "hiprandCreateGenerator",
            "hipfftPlan1d", "hipfftPlanMany", "hipfftCreate", "ncclCommInitRank"} <= names
    params = {(lib, fn, p): shape for lib, fn, p, shape in _pointer_params(cside)}
    returned, caller = set(), set()
    for lib, fn, p in found:
        want = parity_report.amd_rule(lib, fn, p, params[(lib, fn, p)])
        (returned if want == "returned" else caller).add(fn)
        assert _role(lib, fn, p) == want, f"{lib}.{fn}({p}): AMD's is {want}"
        if want == "returned":
            outs = _outputs(lib, fn)
            assert outs and outs[-1] not in ("int", "float", "Any"), f"{fn} returns {outs}"
        else:
            assert _inputs(lib, fn)[0] == p, f"{fn}: the storage is not the first parameter: {_inputs(lib, fn)}"
    assert {"hipblasCreate", "hipsolverCreate", "hipsolverDnCreate", "hipsparseCreate", "hipsparseCreateCsrsv2Info",
            "hiprandCreateGenerator", "hipfftPlan1d", "hipfftPlanMany", "hipfftCreate", "ncclCommInitRank"} <= returned
    assert {"hipsparseCreateMatDescr", "hipsparseCreateCsr", "hipsparseCreateCoo", "hipsparseCreateDnVec",
            "hipsparseCreateSpVec", "hipsparseCreateDnMat"} <= caller
    assert not returned & caller
    assert _outputs("hipblas", "hipblasCreate") == ["hipblasHandle_t"]
    assert _outputs("hipfft", "hipfftPlan1d") == ["hipfftHandle_t"]
    assert _outputs("hipsparse", "hipsparseCreate") == ["hipsparseHandle_t"]
    assert _outputs("hipsparse", "hipsparseCreateCsrsv2Info") == ["csrsv2Info"]
    assert _inputs("hipsparse", "hipsparseCreateMatDescr") == ["descrA"]
    assert _outputs("hipsparse", "hipsparseCreateMatDescr") == []
    assert _inputs("hipsparse", "hipsparseCreateDnVec") == ["dnVecDescr", "size", "values", "valueType"]


WORKSPACE = re.compile(r"(?i)lwork\w*|\w*buffer_?size\w*|\w*worksize\w*|\w*sizeinbytes")


def test_workspace_sizes(include64):
    """workSize (hipfftMakePlan*, hipfftGetSize*, hipfftEstimate*) is returned; lwork
    (hipsolver*_bufferSize), lworkOnDevice/lworkOnHost (hipsolverDnX*) and pBufferSizeInBytes
    (hipsparse) are written into the caller's memory, as in AMD's HIP Python."""
    found = _pointer_outputs(include64, lambda lib, fn, p: WORKSPACE.fullmatch(p.name) and p.pointee == "int")
    by_lib = {lib for lib, _, _ in found}
    assert {"hipsolver", "hipsparse", "hipfft"} <= by_lib
    assert ("hipsolver", "hipsolverDnXgetrf_bufferSize", "lworkOnHost") in found
    assert [f"{lib}.{fn}({p})" for lib, fn, p in found if (lib == "hipfft") != (_role(lib, fn, p) == "returned")] == []
    assert _outputs("hipsolver", "hipsolverDgetrf_bufferSize") == []
    assert _inputs("hipsolver", "hipsolverDgetrf_bufferSize") == ["handle", "m", "n", "A", "lda", "lwork"]
    assert _inputs("hipsolver", "hipsolverDnXgetrf_bufferSize")[-2:] == ["lworkOnDevice", "lworkOnHost"]
    assert _outputs("hipsolver", "hipsolverDnXgetrf_bufferSize") == []
    assert _inputs("hipsparse", "hipsparseSpMV_bufferSize")[-1] == "pBufferSizeInBytes"
    assert _outputs("hipsparse", "hipsparseSpMV_bufferSize") == []
    assert _outputs("hipfft", "hipfftMakePlan1d") == ["int"]
    assert "workSize" not in _inputs("hipfft", "hipfftMakePlan1d")


def test_rccl_outputs():
    assert _inputs("rccl", "ncclGetUniqueId") == ["uniqueId"] and _outputs("rccl", "ncclGetUniqueId") == []
    assert _inputs("rccl", "ncclCommInitAll") == ["comm", "ndev", "devlist"]
    assert _outputs("rccl", "ncclCommInitAll") == []
    assert _inputs("rccl", "ncclCommInitRank") == ["nranks", "commId", "rank"]
    assert _outputs("rccl", "ncclCommInitRank") == ["ncclComm"]
    assert _inputs("rccl", "ncclCommGetAsyncError") == ["comm", "asyncError"]
    assert _outputs("rccl", "ncclGetVersion") == ["int"]
    # the profiling entry points convert the same way
    for fn in ("GetUniqueId", "CommInitAll", "CommInitRank", "CommGetAsyncError"):
        assert stubs("rccl")[f"pnccl{fn}"] == stubs("rccl")[f"nccl{fn}"], fn


@pytest.mark.parametrize("lib", sorted(ROC))
def test_roc_libraries_return_only_created_handles(include64, lib):
    """rocBLAS and rocSOLVER, which AMD's HIP Python does not bind, follow hipBLAS's and
    hipSOLVER's convention: every C parameter is a parameter of the Python function (results,
    info, pivots, workspace sizes, modes and streams are the caller's memory), but for the handles
    rocblas_create_handle, rocsolver_create_handle and rocsolver_create_rfinfo make, which are
    returned after the status."""
    if not (ROOT / "hip" / "_coverage" / f"{lib}.json").exists():
        pytest.skip(f"hip.{lib} is not built")
    facts = _facts(include64, lib)
    assert {fn for fn, _ in ROC[lib]} <= set(facts) and len(facts) > 600
    wrong = []
    for name, f in facts.items():
        created = {p for fn, p in ROC[lib] if fn == name}
        want = [p.name for p in f.params if p.name not in created]
        got, ret = _inputs(lib, name), stubs(lib)[name][1]
        if got != want or len(ret) != 1 + len(created):
            wrong.append(f"{name}: ({', '.join(got)}) -> {ret}")
    assert wrong == [], f"{len(wrong)} functions:\n" + "\n".join(wrong[:20])
    assert stubs("rocblas")["rocblas_sdot"][1] == ["rocblas_status"]
    assert _inputs("rocblas", "rocblas_sdot")[-1] == "result"
    assert _outputs("rocblas", "rocblas_create_handle") == ["_rocblas_handle"]
    if lib == "rocsolver":
        assert _outputs(lib, "rocsolver_create_handle") == ["_rocblas_handle"]   # rocBLAS's handle class
        assert _outputs(lib, "rocsolver_create_rfinfo") == ["rocsolver_rfinfo_"]
        assert _inputs(lib, "rocsolver_dgetrf") == ["handle", "m", "n", "A", "lda", "ipiv", "info"]
        assert stubs(lib)["rocsolver_dgetrf"][1] == ["rocblas_status"]   # rocBLAS's status type


def test_stub_returns_one_status(cside):
    """A function whose C result is a status returns a tuple that starts with exactly one status (a
    library whose status type is a typedef of a differently named enum, hiprandStatus_t = enum
    hiprandStatus, must not list both); one whose C result is a value (hipblasStatusToString,
    hipsparseGetMatType, ncclGetErrorString) returns (value,), as AMD's HIP Python does."""
    from hip import hipfft, hiprand
    assert hiprand.hiprandStatus_t is hiprand.hiprandStatus and hipfft.hipfftResult is hipfft.hipfftResult_t
    wrong, values = [], []
    for lib in LIBS:
        names = STATUS[lib]
        types = cside.types[cside.lib_of[lib]]
        for fn, (_, ret) in stubs(lib).items():
            result = cside.function(lib, fn).result
            if result.name in names or types.resolve(result).name in names:
                if not ret or ret[0] not in names or any(r in names for r in ret[1:]):
                    wrong.append(f"{fn} -> {ret}")
            else:
                values.append(fn)
                if len(ret) != 1 or ret[0] in names:
                    wrong.append(f"{fn} (C result {result.name}) -> {ret}")
    assert wrong == [], wrong[:10]
    assert {"hipblasStatusToString", "hipsparseGetMatType", "hipsparseGetErrorString",
            "ncclGetErrorString"} <= set(values)
    assert stubs("hipsparse")["hipsparseGetMatType"][1] == ["hipsparseMatrixType_t"]
    assert stubs("hipblas")["hipblasStatusToString"][1] == ["CStr | None"]   # AMD's HIP Python: a CStr


# -- calling: every argument converts before the library loads -----------------------------------
def _call_script(cases_file):
    """Calls each (lib, fn, [argument expressions]) of the JSON file; prints JSON
    {case index: "LibraryNotFoundError" | "returned" | "<exception>: <message>"}."""
    return textwrap.dedent(f"""
        import json, importlib
        import hip
        from hip import hip as _hip
        with open({str(cases_file)!r}) as f:
            cases = json.load(f)
        out = {{}}
        for i, (lib, fn, args) in enumerate(cases):
            mod = importlib.import_module("hip." + lib)
            try:
                getattr(mod, fn)(*[eval(a, {{"mod": mod, "_hip": _hip}}) for a in args])
            except hip.LibraryNotFoundError:
                out[i] = "LibraryNotFoundError"
            except Exception as e:
                out[i] = type(e).__name__ + ": " + str(e)[:200]
            else:
                out[i] = "returned"
        print(json.dumps(out))
    """)


def _neutral(lib, fn, fact, overrides):
    """Argument expressions for every Python parameter: numbers for ints/floats, an enum's first
    member, a struct instance for a struct by value, a non-NULL address (8) for pointers and handles
    (it passes the handle checks; the libraries point nowhere, so nothing is called)."""
    params = {p.name: p for p in fact.params}
    args = []
    for name, ann in stubs(lib)[fn][0]:
        if name in overrides:
            args.append(overrides[name])
        elif ann == "int":
            args.append("1")
        elif ann == "float":
            args.append("1.0")
        elif ann not in ("Any", ""):
            args.append(f"list(getattr(mod, {ann!r}, None) or getattr(_hip, {ann!r}))[0]")
        elif params.get(name) is not None and not params[name].pointer:
            tname = params[name].spelling.replace("const ", "").strip()
            args.append(f"(getattr(mod, {tname!r}, None) or getattr(_hip, {tname!r}))()")
        else:
            args.append("8")
    return args


def _run_cases(cases, workdir):
    """Run the calls in a fresh interpreter (a crash fails the test, not pytest) with every
    library's HIP_PYTHON_<LIB>_LIBRARY pointing nowhere."""
    cases_file, script = workdir / "cases.json", workdir / "calls.py"
    cases_file.write_text(json.dumps(cases))
    script.write_text(_call_script(cases_file))
    env = {ENV[lib]: f"/nonexistent/lib{lib}.so" for lib in NUMBER_LIBS}
    r = run_python("", env=env, timeout=300, args=[str(script)])
    assert r.returncode == 0, f"interpreter died (exit {r.returncode}):\n{r.stderr[-3000:]}"
    return {int(k): v for k, v in json.loads(r.stdout.strip().splitlines()[-1]).items()}


@pytest.fixture(scope="module")
def number_calls(include64, tmp_path_factory):
    """Every alpha/beta function called with numbers (real: 2.5 or 2, complex: 1+2j), and the
    wrong kinds (complex for a real alpha, bool, str, None: a NULL alpha would crash the library)."""
    cases, what = [], []
    facts = {lib: _facts(include64, lib) for lib in NUMBER_LIBS}
    for lib, fn, p, kind in _number_params(include64):
        good = "(1+2j)" if kind == "complex" else ("2" if kind == "int" else "2.5")
        bad = ["True", "'2.5'", "None"] + (["(1+2j)"] if kind != "complex" else [])
        others = [q for q in _inputs(lib, fn) if NUMBER_PARAMS.fullmatch(q) and q != p]
        base = {q: "1.0" if kind != "int" else "8" for q in others}   # valid for every alpha/beta kind
        cases.append((lib, fn, _neutral(lib, fn, facts[lib][fn], {**base, p: good})))
        what.append((lib, fn, p, good, "LibraryNotFoundError"))
        for b in bad:
            cases.append((lib, fn, _neutral(lib, fn, facts[lib][fn], {**base, p: b})))
            what.append((lib, fn, p, b, "TypeError"))
    return what, _run_cases(cases, tmp_path_factory.mktemp("numbers"))


def test_alpha_beta_accept_python_numbers(number_calls):
    what, got = number_calls
    wrong = [f"{lib}.{fn}({p}={v}): {got[i]}" for i, (lib, fn, p, v, want) in enumerate(what)
             if want == "LibraryNotFoundError" and got[i] != want]
    assert wrong == [], f"{len(wrong)} calls did not accept a number:\n" + "\n".join(wrong[:20])


def test_alpha_beta_refuse_wrong_numbers(number_calls):
    what, got = number_calls
    wrong = [f"{lib}.{fn}({p}={v}): {got[i]}" for i, (lib, fn, p, v, want) in enumerate(what)
             if want == "TypeError" and not got[i].startswith("TypeError")]
    assert wrong == [], f"{len(wrong)} calls accepted a wrong value:\n" + "\n".join(wrong[:20])
