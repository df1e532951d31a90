"""Parameter intent of every library matches how it is used.

* alpha/beta (`const T* alpha`) take Python numbers; complex ones (hipblasComplex, hipComplex,
  hipDoubleComplex, ...) take Python complex;
* results (hipblasSdot's `result`), created handles (hipblasCreate, hiprandCreateGenerator,
  hipsparseCreate*, hipsolverCreate), FFT plans (hipfftPlan*), workspace sizes (lwork,
  ...bufferSize, workSize), ncclGetUniqueId's id and ncclCommInitAll's communicators are outputs:
  not parameters of the Python function, but values it returns.

Which functions and parameters to check comes from the headers (tests/header_facts.py); what the
bindings make of them is read from the stubs (hip/<lib>.pyi: the Python signature and the returned
tuple) and observed by calling them: against a missing library (every argument must convert before
the library is loaded: LibraryNotFoundError, not TypeError). What the libraries then compute with
those arguments is checked against the real libraries on the GPU (tests/gpu: alpha forms, complex
alpha, results, plans, workspace sizes, NCCL ids and communicators).
"""
from __future__ import annotations

import ast
import functools
import json
import re
import textwrap

import pytest

import header_facts
from conftest import ROOT, run_python

LIBS = header_facts.names()
ENV = {lib: f"HIP_PYTHON_{lib.upper()}_LIBRARY" for lib in LIBS}


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


# -- what the stubs say, for every function the headers declare ----------------------------------
NUMBER_PARAMS = re.compile(r"alpha|beta")


def _number_params(include64):
    """(lib, function, parameter, kind) for every `const T* alpha/beta` with T a number or complex."""
    out = []
    for lib in LIBS:
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


def _pointer_outputs(include64, pick):
    """(lib, function, parameter) of non-const pointer parameters `pick(lib, fn, param)` selects."""
    return [(lib, name, p.name) for lib in LIBS for name, f in _facts(include64, lib).items()
            for p in f.params if p.pointer and not p.const and pick(lib, name, p)]


def _not_inputs(found):
    return [f"{lib}.{fn}({p})" for lib, fn, p in found if p in _inputs(lib, fn)]


def test_results_are_returned(include64):
    """hipblasSdot/Snrm2/Isamax...: `result` (host pointer mode) is returned, not passed."""
    found = _pointer_outputs(include64, lambda lib, fn, p: lib == "hipblas" and p.name == "result"
                             and p.pointee in ("int", "float", "complex"))
    assert ("hipblas", "hipblasSdot", "result") in found and len(found) > 50
    assert _not_inputs(found) == []
    for lib, fn, _ in found:
        assert len(_outputs(lib, fn)) == 1, f"{fn} returns {_outputs(lib, fn)}"
    assert _outputs("hipblas", "hipblasSdot") == ["float"]
    assert _outputs("hipblas", "hipblasIsamax") == ["int"]
    assert _outputs("hipblas", "hipblasCdotc") == ["hipblasComplex"]


def test_created_handles_are_returned(include64):
    """`X_t* handle` of every Create/Plan/Init function (hipblasCreate, hipsparseCreateMatDescr,
    hipfftPlan1d, hiprandCreateGenerator, hipsolverDnCreate, ncclCommInitRank, ...) is returned."""
    creators = re.compile(r"\w*(Create|Plan\d?d|PlanMany|InitRank|InitRankMulti)\w*")
    found = _pointer_outputs(include64, lambda lib, fn, p: creators.fullmatch(fn) and p.pointee == "handle")
    names = {fn for _, fn, _ in found}
    assert {"hipblasCreate", "hipsolverCreate", "hipsparseCreate", "hipsparseCreateCsr", "hiprandCreateGenerator",
            "hipfftPlan1d", "hipfftPlanMany", "hipfftCreate", "ncclCommInitRank"} <= names
    assert _not_inputs(found) == []
    for lib, fn, _ in found:
        outs = _outputs(lib, fn)
        assert outs and outs[-1] not in ("int", "float", "Any"), f"{fn} returns {outs}"
    assert _outputs("hipblas", "hipblasCreate") == ["hipblasHandle_t"]
    assert _outputs("hipfft", "hipfftPlan1d") == ["hipfftHandle_t"]


WORKSPACE = re.compile(r"(?i)lwork\w*|\w*buffer_?size\w*|\w*worksize\w*|\w*sizeinbytes")


def test_workspace_sizes_are_returned(include64):
    """lwork (hipsolver*_bufferSize), lworkOnDevice/lworkOnHost (hipsolverDnX*), pBufferSizeInBytes
    (hipsparse), workSize (hipfftMakePlan*, hipfftGetSize*, hipfftEstimate*): returned."""
    found = _pointer_outputs(include64, lambda lib, fn, p: WORKSPACE.fullmatch(p.name) and p.pointee == "int")
    by_lib = {lib for lib, _, _ in found}
    assert {"hipsolver", "hipsparse", "hipfft"} <= by_lib
    assert ("hipsolver", "hipsolverDnXgetrf_bufferSize", "lworkOnHost") in found
    assert _not_inputs(found) == []
    assert _outputs("hipsolver", "hipsolverDgetrf_bufferSize") == ["int"]
    assert _outputs("hipsolver", "hipsolverDnXgetrf_bufferSize") == ["int", "int"]
    assert _outputs("hipfft", "hipfftMakePlan1d") == ["int"]


def test_rccl_outputs():
    assert _inputs("rccl", "ncclGetUniqueId") == [] and _outputs("rccl", "ncclGetUniqueId") == ["ncclUniqueId"]
    assert _inputs("rccl", "ncclCommInitAll") == ["ndev", "devlist"]
    assert _outputs("rccl", "ncclCommInitAll") == ["list[ncclComm]"]
    assert _inputs("rccl", "ncclCommInitRank") == ["nranks", "commId", "rank"]
    # the profiling entry points convert the same way
    for fn in ("GetUniqueId", "CommInitAll", "CommInitRank"):
        assert stubs("rccl")[f"pnccl{fn}"] == stubs("rccl")[f"nccl{fn}"], fn


def test_stub_returns_one_status():
    """The returned tuple starts with exactly one status (a library whose status type is a typedef
    of a differently named enum, hiprandStatus_t = enum hiprandStatus, must not list both)."""
    import importlib
    from codegen import spec as specmod
    from hip import hipfft, hiprand
    assert hiprand.hiprandStatus_t is hiprand.hiprandStatus and hipfft.hipfftResult is hipfft.hipfftResult_t
    wrong = []
    for lib in LIBS:
        status = specmod.load(lib).error_type
        if not status:
            continue
        mod = importlib.import_module(f"hip.{lib}")
        names = {n for n, v in vars(mod).items() if v is getattr(mod, status)}   # the enum and its typedefs
        for fn, (_, ret) in stubs(lib).items():
            if not ret or ret[0] not in names or (len(names) > 1 and any(r in names for r in ret[1:])):
                wrong.append(f"{fn} -> {ret}")
    assert wrong == [], wrong[:10]


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
    member, a struct instance for a struct by value, None for pointers and handles."""
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
            args.append("None")
    return args


def _run_cases(cases, workdir):
    """Run the calls in a fresh interpreter (a crash fails the test, not pytest) with every
    library's HIP_PYTHON_<LIB>_LIBRARY pointing nowhere."""
    cases_file, script = workdir / "cases.json", workdir / "calls.py"
    cases_file.write_text(json.dumps(cases))
    script.write_text(_call_script(cases_file))
    env = {ENV[lib]: f"/nonexistent/lib{lib}.so" for lib in LIBS}
    r = run_python("", env=env, timeout=300, args=[str(script)])
    assert r.returncode == 0, f"interpreter died (exit {r.returncode}):\n{r.stderr[-3000:]}"
    return {int(k): v for k, v in json.loads(r.stdout.strip().splitlines()[-1]).items()}


@pytest.fixture(scope="module")
def number_calls(include64, tmp_path_factory):
    """Every alpha/beta function called with numbers (real: 2.5 or 2, complex: 1+2j), and the
    wrong kinds (complex for a real alpha, bool, str, None: a NULL alpha would crash the library)."""
    cases, what = [], []
    facts = {lib: _facts(include64, lib) for lib in LIBS}
    for lib, fn, p, kind in _number_params(include64):
        good = "(1+2j)" if kind == "complex" else ("2" if kind == "int" else "2.5")
        bad = ["True", "'2.5'", "None"] + (["(1+2j)"] if kind != "complex" else [])
        others = [q for q in _inputs(lib, fn) if NUMBER_PARAMS.fullmatch(q) and q != p]
        base = {q: "1" for q in others}      # a number is valid for every alpha/beta kind
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
