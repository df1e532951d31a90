"""Our `cuda` alias against NVIDIA's cuda-bindings for the same CUDA version (the oracle), within the
accepted deviations.

tools/alias_parity_report.py compares, per module (driver, runtime, nvrtc), functions, parameters,
returned tuples, enums, classes and constants; tests/oracles/alias_parity_accepted.json lists every known
deviation with its reason and, per category, the most the test allows. A deviation no entry
accepts, or a count above its `max`, fails; fewer than `max`, or an entry that accepts nothing,
is an improvement: reported as a warning (lower `max`, drop the entry).

The oracle is the release for the CUDA version the alias was generated from (its coverage
reports' `cuda_version`; $CUDA_BINDINGS_ORACLE_VERSION overrides). Skips when that release cannot
be had (PyPI unreachable, or no such release) or our `cuda` package is not built. The describer,
the comparison and the choice of release are checked on small modules and fake caches made here,
so they are tested even before the alias exists and without a network.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import alias_parity_report as report  # noqa: E402
import cuda_bindings_oracle as oracle  # noqa: E402

ACCEPTED = report.load_accepted()


@pytest.fixture(scope="module")
def oracle_facts():
    try:
        return oracle.load()
    except oracle.NoRelease as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def compared(oracle_facts):
    A = oracle_facts
    O = report.describe_ours(oracle.MODULES, python=sys.executable, A=A)
    absent = [d["error"] for d in O.values()
              if re.fullmatch(r"ModuleNotFoundError: No module named '(cuda|cuda\.bindings)'", d.get("error", ""))]
    if len(absent) == len(O):
        pytest.skip(f"our cuda alias is not importable here ({absent[0]}): build it (hip_as_cuda/) to compare")
    return {m: report.compare_module(A["modules"][m], O[m]) for m in oracle.MODULES}


def test_accepted_file_is_well_formed():
    """Known modules and categories, a `max` per category, a compiling pattern and a reason per entry."""
    bad = []
    for m, cats in ACCEPTED.get("modules", {}).items():
        if m not in oracle.MODULES:
            bad.append(f"unknown module {m!r}")
        for c, entry in cats.items():
            if c not in report.CATEGORIES:
                bad.append(f"{m}: unknown category {c!r}")
                continue
            if not isinstance(entry.get("max"), int) or entry["max"] < 0:
                bad.append(f"{m}.{c}: `max` must be a count")
            for pat, why in entry.get("accepted", {}).items():
                try:
                    re.compile(pat)
                except re.error as e:
                    bad.append(f"{m}.{c}: {pat!r} is no pattern ({e})")
                if not (isinstance(why, str) and why.strip()):
                    bad.append(f"{m}.{c}: {pat!r} has no reason")
    assert not bad, "\n".join(bad)


def test_oracle_matches_the_alias_cuda_version(oracle_facts):
    """The release compared with is the one for the CUDA headers the alias was generated from."""
    if os.environ.get(oracle.VERSION_ENV):
        pytest.skip(f"${oracle.VERSION_ENV} chooses the release")
    want, _ = oracle.alias_cuda_version()
    assert oracle_facts["version"].split(".")[:2] == want.split("."), (oracle_facts["version"], want)


@pytest.mark.parametrize("module", oracle.MODULES)
def test_within_accepted_deviations(oracle_facts, compared, module):
    judged = report.judge({"modules": {module: compared[module]}}, ACCEPTED)
    failures, better = [], []
    for (m, c), j in judged.items():
        if j["new"]:
            keys = [it["key"] for it in j["new"]]
            failures.append(f"  {c:22} {j['count']:4} (max {j['max']}), {len(keys)} not accepted: "
                            + ", ".join(keys[:6]) + (f", ... {len(keys) - 6} more" if len(keys) > 6 else ""))
        elif j["count"] > j["max"]:
            failures.append(f"  {c:22} {j['count']:4} deviations, `max` is {j['max']}")
        elif j["count"] < j["max"]:
            better.append(f"{c}: {j['count']} deviations, `max` is {j['max']}: lower it")
        if j["stale"]:
            better.append(f"{c}: entries that accept nothing now: {', '.join(j['stale'][:15])}")
    if better:
        warnings.warn(f"cuda.bindings.{module} improved (tests/oracles/alias_parity_accepted.json): " + "; ".join(better))
    if failures:     # a summary, not a traceback: the report tool has the details
        pytest.fail(f"cuda.bindings.{module} against NVIDIA's cuda-bindings {oracle_facts['version']}"
                    f" (chosen by {oracle_facts.get('requested_from', '?')}): deviations not in"
                    " tests/oracles/alias_parity_accepted.json"
                    f" (details: python tools/alias_parity_report.py --module {module}):\n" + "\n".join(failures),
                    pytrace=False)


# -- the describer and the comparison, on two small modules ------------------------------------------
NVIDIA_LIKE = '''
import enum

class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_OLD_NAME = 1

class CUmemorytype(enum.IntEnum):
    CU_MEMORYTYPE_HOST = 1

class CUattr(enum.IntEnum):
    CU_ATTR_A = 1

class CUstream:
    """CUstream(*args, **kwargs)"""
    def __init__(self, v=0):
        self._v = int(v)
    def __int__(self):
        return self._v
    def __eq__(self, other):
        return int(self) == int(other)
    def __hash__(self):
        return self._v
    def getPtr(self):
        return 0

class CUevent(CUstream):
    pass

class CUcontext:
    def __int__(self):
        return 0
    def getPtr(self):
        return 0

class CUDA_MEMCPY2D_st:
    def getPtr(self):
        return 0
    @property
    def srcHost(self):
        return 0
    @property
    def WidthInBytes(self):
        return 0

class CUDA_MEMCPY2D(CUDA_MEMCPY2D_st):
    pass

CU_STREAM_LEGACY = 1
CUDA_VERSION = 13050

def cuInit(Flags):
    """cuInit(unsigned int Flags)

        Returns
        -------
        CUresult
            :py:obj:`~.CUDA_SUCCESS`
    """

def cuStreamCreate(Flags):
    """cuStreamCreate(unsigned int Flags)

ote: a stray line at column 0, as cuda-bindings' docstrings have ('\\note' read as a newline)

        Parameters
        ----------
        Flags : unsigned int
            Parameters for stream creation

        Returns
        -------
        CUresult
            :py:obj:`~.CUDA_SUCCESS`
        phStream : :py:obj:`~.CUstream`
            Returned newly created stream

        See Also
        --------
        :py:obj:`~.cuStreamDestroy`
    """

def cuMemGetInfo():
    """Returns
    -------
    CUresult
        :py:obj:`~.CUDA_SUCCESS`
    free : int
        free
    total : int
        total
    """

def cuGraphGetNodes(hGraph, numNodes=0):
    """Returns
    -------
    CUresult
        :py:obj:`~.CUDA_SUCCESS`
    nodes : list[:py:obj:`~.CUgraphNode`]
        nodes
    numNodes : int
        count
    """

def cuGraphGetRootNodes(hGraph, numRootNodes=0):
    """cuGraphGetRootNodes(CUgraph hGraph, size_t numRootNodes=0)

    Returns
    -------
    CUresult
        :py:obj:`~.CUDA_SUCCESS`
    rootNodes : list[:py:obj:`~.CUgraphNode`]
        nodes
    numRootNodes : int
        count
    """

def cuDeviceGet(ordinal):
    """cuDeviceGet(int ordinal)

    Returns
    -------
    CUresult
        :py:obj:`~.CUDA_SUCCESS`
    device : :py:obj:`~.CUdevice`
        device
    """

def cuMemAlloc(bytesize):
    """cuMemAlloc(size_t bytesize)

    Returns
    -------
    CUresult
        :py:obj:`~.CUDA_SUCCESS`
    dptr : :py:obj:`~.CUdeviceptr`
        pointer
    """

def cuGone(x):
    """Returns
    -------
    CUresult
        :py:obj:`~.CUDA_SUCCESS`
    """

cuNoDoc = cuAnnotated = cuGone
'''

OURS_LIKE = '''
import enum

class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1

class CUmemorytype(enum.IntEnum):
    CU_MEMORYTYPE_HOST = 7

class CUstream:
    def __int__(self):
        return 0
    def getPtr(self):
        return 0

class CUevent(CUstream):
    @property
    def x(self):
        return 0

import ptrbase

class CUcontext(ptrbase.Pointer):     # a handle on a base from another package, with its own properties
    def getPtr(self):
        return 0

class CUDA_MEMCPY2D:
    def getPtr(self):
        return 0
    srcHost = property(lambda self: 0)

CUDA_VERSION = 12000

def cuInit(Flags):
    """Returns
    -------
    CUresult
        ok
    """

def cuStreamCreate(flags):
    """Returns
    -------
    CUresult
        ok
    phStream : CUstream
        stream
    """

def cuMemGetInfo():
    """Returns
    -------
    CUresult
        ok
    free : int
        free
    """

def cuGraphGetNodes(hGraph, numNodes):
    """Returns
    -------
    CUresult
        ok
    nodes : list
        nodes
    numNodes : int
        count
    """

def cuNoDoc(x):
    pass

class _Builtin:
    """What Cython's binding=False makes: a builtin inspect.signature cannot read."""
    def __init__(self, name, doc):
        self.__name__, self.__doc__ = name, doc
    def __call__(self, *a):
        pass
    @property
    def __signature__(self):
        raise ValueError(f"no signature found for builtin <built-in function {self.__name__}>")

# an alias of a versioned entry point: its docstring and the .pyi know it as cuGraphGetRootNodes_v2
cuGraphGetRootNodes = _Builtin("cuGraphGetRootNodes_v2", "cuGraphGetRootNodes_v2(hGraph, numRootNodes=0)\\n\\nprose")
cuDeviceGet = _Builtin("cuDeviceGet", "Returns a device handle (no signature line: the .pyi has it)")
cuMemAlloc = _Builtin("cuMemAlloc", "cuMemAlloc(size)\\n\\nAllocates device memory\\n\\nReturns:\\n::CUDA_SUCCESS")

def cuAnnotated(x) -> "tuple[CUresult]":
    pass
'''

EXPECTED = {
    "functions_missing": ["cuGone"],
    "params_differ": ["cuGraphGetNodes", "cuMemAlloc", "cuStreamCreate"],
    "returns_differ": ["cuMemGetInfo"],
    "returns_unknown": ["cuNoDoc"],
    "enums_missing": ["CUattr"],
    "enum_members_missing": ["CUresult.CUDA_ERROR_OLD_NAME"],
    "enum_values_differ": ["CUmemorytype.CU_MEMORYTYPE_HOST"],
    "classes_missing": ["CUDA_MEMCPY2D_st"],
    "class_kind_differ": ["CUevent"],
    "class_members_missing": ["CUDA_MEMCPY2D.WidthInBytes", "CUevent.__eq__", "CUevent.__hash__",
                              "CUstream.__eq__", "CUstream.__hash__"],
    "constants_missing": ["CU_STREAM_LEGACY"],
    "constant_values_differ": ["CUDA_VERSION"],
}


# hip._pointer.Pointer's kind: a number with properties, the base of our handles
PTRBASE = """
class Pointer:
    def __int__(self):
        return 0
    @property
    def ptr(self):
        return 0
    @property
    def is_ptr_null(self):
        return True
"""

# the `.pyi` codegen writes beside our modules
OURS_STUB = """from typing import Any
def cuGraphGetRootNodes_v2(hGraph: Any, numRootNodes: int = 0) -> tuple[CUresult, list[CUgraphNode_st], int]: ...
def cuDeviceGet(ordinal: int) -> tuple[CUresult, CUdevice]: ...
def cuMemAlloc(size: int) -> tuple[CUresult, CUdeviceptr]: ...
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("alias_parity")
    (d / "nvlike.py").write_text(textwrap.dedent(NVIDIA_LIKE))
    (d / "ourslike.py").write_text(textwrap.dedent(OURS_LIKE))
    (d / "ourslike.pyi").write_text(OURS_STUB)
    (d / "ptrbase.py").write_text(PTRBASE)
    A = oracle.run_describer(sys.executable, {"x": "nvlike"}, [str(d)])["x"]
    probe = {"x": {c: v["methods"] + v["properties"] + v["special"] for c, v in A["classes"].items()}}
    O = oracle.run_describer(sys.executable, {"x": "ourslike", "gone": "nosuchmodule_here"}, [str(d)], probe)
    return A, O


def test_describer_reads_cuda_bindings_conventions(small):
    A, _ = small
    f = A["functions"]["cuStreamCreate"]
    assert [p["name"] for p in f["params"]] == ["Flags"]
    assert f["returns"] == [{"name": None, "type": "CUresult"}, {"name": "phStream", "type": "CUstream"}]
    assert A["status_type"] == "CUresult" and f["status_first"]
    assert A["functions"]["cuGraphGetNodes"]["params"][1] == {"name": "numNodes", "kind": "POSITIONAL_OR_KEYWORD",
                                                              "default": "0"}
    assert A["functions"]["cuGraphGetNodes"]["returns"][1]["type"] == "list[CUgraphNode]"
    assert A["enums"]["CUresult"] == {"members": {"CUDA_SUCCESS": 0, "CUDA_ERROR_INVALID_VALUE": 1,
                                                  "CUDA_ERROR_OLD_NAME": 1},
                                      "aliases": ["CUDA_ERROR_OLD_NAME"], "int_subclass": True}
    kinds = {c: v["kind"] for c, v in A["classes"].items()}
    assert kinds == {"CUresult": "enum", "CUmemorytype": "enum", "CUattr": "enum", "CUstream": "handle",
                     "CUevent": "handle", "CUcontext": "handle", "CUDA_MEMCPY2D_st": "struct", "CUDA_MEMCPY2D": "struct"}
    assert A["classes"]["CUDA_MEMCPY2D"]["bases"] == ["CUDA_MEMCPY2D_st"]
    assert A["constants"] == {"CU_STREAM_LEGACY": 1, "CUDA_VERSION": 13050}


def test_comparison_finds_each_deviation(small):
    A, O = small
    got = report.compare_module(A, O["x"])
    assert {c: sorted(i["key"] for i in v) for c, v in got.items() if v} == EXPECTED
    assert O["x"]["functions"]["cuAnnotated"]["returns_from"] == "annotation"
    gone = report.compare_module(A, O["gone"])
    assert [i["key"] for i in gone["module_missing"]] == ["nosuchmodule_here"]
    assert sum(len(v) for v in gone.values()) == 1


def test_judging_against_accepted_deviations(small):
    A, O = small
    R = {"modules": {"x": report.compare_module(A, O["x"])}}
    accepted = {"modules": {"x": {
        "functions_missing": {"max": 1, "accepted": {"cuGone": "no HIP counterpart"}},
        "params_differ": {"max": 5, "accepted": {"cu(Stream|Graph|Mem).*": "why"}},
        "constants_missing": {"max": 1, "accepted": {"CU_NOPE": "why"}},
    }}}
    j = report.judge(R, accepted)
    assert j[("x", "functions_missing")] == {"count": 1, "max": 1, "new": [], "stale": []}
    assert j[("x", "params_differ")]["count"] == 3 and not j[("x", "params_differ")]["new"]
    assert [i["key"] for i in j[("x", "constants_missing")]["new"]] == ["CU_STREAM_LEGACY"]
    assert j[("x", "constants_missing")]["stale"] == ["CU_NOPE"]
    assert j[("x", "returns_differ")]["max"] == 0 and j[("x", "returns_differ")]["count"] == 1


def test_describer_reads_builtins_without_signature(small):
    """binding=False builtins: parameters from the docstring's first line (Cython's embedsignature),
    else the `.pyi`; the returned tuple from the `.pyi`, found under the function's own name
    where the module binds it under another (an alias of a versioned entry point)."""
    _, O = small
    f = O["x"]["functions"]
    assert f["cuGraphGetRootNodes"]["params_from"] == "docstring"
    assert f["cuGraphGetRootNodes"]["params"] == [{"name": "hGraph", "kind": "POSITIONAL_OR_KEYWORD"},
                                                  {"name": "numRootNodes", "kind": "POSITIONAL_OR_KEYWORD",
                                                   "default": "0"}]
    assert f["cuGraphGetRootNodes"]["returns_from"] == "stub"
    assert [r["type"] for r in f["cuGraphGetRootNodes"]["returns"]] == ["CUresult", "list[CUgraphNode_st]", "int"]
    assert f["cuDeviceGet"]["params_from"] == "stub"
    assert f["cuDeviceGet"]["params"] == [{"name": "ordinal", "kind": "POSITIONAL_OR_KEYWORD", "annotation": "int"}]
    assert [p["name"] for p in f["cuMemAlloc"]["params"]] == ["size"] and f["cuMemAlloc"]["params_from"] == "docstring"
    assert "signature_error" in f["cuMemAlloc"]


def test_signature_lines_in_either_convention():
    c = oracle.parse_params("unsigned int Flags, CUstream hStream, const char *name")
    assert [(p["name"], p.get("annotation")) for p in c] == [("Flags", "unsigned int"), ("hStream", "CUstream"),
                                                             ("name", "const char *")]
    py = oracle.parse_params("hGraph, numNodes=0, x: int = 1, *args, flag=None, **kw")
    assert [(p["name"], p["kind"], p.get("default")) for p in py] == [
        ("hGraph", "POSITIONAL_OR_KEYWORD", None), ("numNodes", "POSITIONAL_OR_KEYWORD", "0"),
        ("x", "POSITIONAL_OR_KEYWORD", "1"), ("args", "VAR_POSITIONAL", None), ("flag", "KEYWORD_ONLY", "None"),
        ("kw", "VAR_KEYWORD", None)]
    assert oracle.doc_signature("cuInit(Flags)\n\nInitialize", ["cuInit"])["params"][0]["name"] == "Flags"
    assert oracle.doc_signature("cuCtxCreate_v4(a, b) -> tuple[CUresult, CUcontext]", ["cuCtxCreate", "cuCtxCreate_v4"]
                                )["returns"] == [{"name": None, "type": "CUresult"}, {"name": None, "type": "CUcontext"}]
    assert oracle.doc_signature("Initialize the driver (see cuInit(0))", ["cuInit"]) is None
    assert oracle.doc_signature("cuOther(x)", ["cuInit"]) is None


# -- choosing the release: the alias's CUDA version, an override, the cache, PyPI's answer -----------
def _coverage(d, versions):
    (d / "_coverage").mkdir(parents=True)
    for m, v in versions.items():
        (d / "_coverage" / f"{m}.json").write_text(json.dumps({"module": m, "cuda_version": v}))
    return d


def _wheel(d, name):
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(b"")


def test_release_follows_the_alias_cuda_version(tmp_path, monkeypatch):
    monkeypatch.delenv(oracle.VERSION_ENV, raising=False)
    monkeypatch.setattr(oracle, "ALIAS_BINDINGS", str(tmp_path / "none"))
    ours = _coverage(tmp_path / "a", {"driver": "13.0", "runtime": "13.0", "nvrtc": "13.0.1"})
    assert oracle.alias_cuda_version([str(ours)])[0] == "13.0"
    assert oracle.wanted_version(None, [str(ours)])[0] == (13, 0)
    monkeypatch.setenv(oracle.VERSION_ENV, "13.5")
    assert oracle.wanted_version(None, [str(ours)])[0] == (13, 5)
    assert oracle.wanted_version("12.9.1", [str(ours)])[0] == (12, 9, 1)
    with pytest.raises(RuntimeError, match="different CUDA versions"):
        oracle.alias_cuda_version([str(_coverage(tmp_path / "b", {"driver": "13.0", "runtime": "12.9"}))])
    with pytest.raises(oracle.NoVersion, match=oracle.VERSION_ENV):
        oracle.alias_cuda_version([str(tmp_path / "c")])
    with pytest.raises(ValueError):
        oracle.wanted_version("13")


def test_cached_release_per_version(tmp_path, monkeypatch):
    """wheels-X.Y/ per release line (the newest patch, its own dependencies); wheels/ (the cache
    of 13.5.0 made before the version was chosen) still serves; nothing else is taken."""
    tag = oracle._tag()
    _wheel(tmp_path / "wheels", f"cuda_bindings-13.5.0-{tag}-{tag}-manylinux_2_28_x86_64.whl")
    _wheel(tmp_path / "wheels", "cuda_pathfinder-1.9.0-py3-none-any.whl")
    for v in ("13.0.2", "13.0.3"):
        _wheel(tmp_path / "wheels-13.0", f"cuda_bindings-{v}-{tag}-{tag}-manylinux_2_28_x86_64.whl")
    _wheel(tmp_path / "wheels-13.0", "cuda_pathfinder-1.1.0-py3-none-any.whl")
    got = lambda v: [os.path.basename(w) for w in oracle.find_release(str(tmp_path), download=False, version=v)]  # noqa: E731
    assert got("13.0") == [f"cuda_bindings-13.0.3-{tag}-{tag}-manylinux_2_28_x86_64.whl",
                           "cuda_pathfinder-1.1.0-py3-none-any.whl"]
    assert got("13.0.2")[0].startswith("cuda_bindings-13.0.2-")
    assert got("13.5") == [f"cuda_bindings-13.5.0-{tag}-{tag}-manylinux_2_28_x86_64.whl",
                           "cuda_pathfinder-1.9.0-py3-none-any.whl"]
    with pytest.raises(oracle.NoRelease, match=r"cuda-bindings==13\.1\.\*"):
        oracle.find_release(str(tmp_path), download=False, version="13.1")


def test_no_such_release_on_pypi(tmp_path, monkeypatch):
    asked = []

    def pip(cmd, **kw):
        asked.append(cmd[-1])
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not find a version that satisfies the requirement"
                                           " cuda-bindings==13.9.* (from versions: 12.9.0, 13.0.3)\n"
                                           "ERROR: No matching distribution found for cuda-bindings==13.9.*")
    monkeypatch.setattr(oracle.subprocess, "run", pip)
    with pytest.raises(oracle.NoRelease, match=r"PyPI has no cuda-bindings==13\.9\.\* wheel"):
        oracle.find_release(str(tmp_path), version="13.9")
    assert asked == ["cuda-bindings==13.9.*"]


def test_base_from_another_package_makes_no_struct(small):
    """Properties a base class from another package adds (hip._pointer.Pointer's `ptr`) are no
    fields: a handle built on it stays a handle, though a program sees its properties."""
    _, O = small
    c = O["x"]["classes"]["CUcontext"]
    assert c["kind"] == "handle" and {"ptr", "is_ptr_null"} <= set(c["properties"])
    assert "Pointer" not in O["x"]["classes"]
