"""hip.tensor against the Python array API standard, as array-api-strict (the standard's reference
namespace, from PyPI) states it, for 2025.12 (hip.tensor itself) and 2023.12 (the namespace
`x.__array_namespace__(api_version="2023.12")` gives): every name of the main namespace, every
ndarray method, the inspection namespace, and the dtype functions' answers. No device needed.

Signatures are compared by what a caller may pass: a positional-only parameter must be accepted at
its position, any other by its name (we may accept more, never less), and parameters we add must
have defaults."""
from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

xp = pytest.importorskip("array_api_strict")
import hip.tensor as ht  # noqa: E402

VERSIONS = ("2023.12", "2025.12")      # the earlier version answered per request, and hip.tensor's own
VERSION = VERSIONS[-1]
xp.set_array_api_strict_flags(api_version=VERSION)
from array_api_strict._array_object import Array as StrictArray  # noqa: E402

P = inspect.Parameter


def _needs_version(f) -> str:
    """The API version array-api-strict's requires_api_version wrapper(s) ask for ('' if none)."""
    need = ""
    while f is not None:
        try:
            v = inspect.getclosurevars(f).nonlocals.get("version")
        except TypeError:
            v = None
        if isinstance(v, str):
            need = max(need, v)
        f = getattr(f, "__wrapped__", None)
    return need


def _standard_names(version: str) -> list[str]:
    out = []
    for n in xp.__all__:
        obj = getattr(xp, n)
        if "strict" in n.lower() or n == "__version__" or inspect.ismodule(obj):
            continue            # array-api-strict's own flags; extensions (linalg, fft) apart
        if callable(obj) and _needs_version(obj) > version:
            continue            # a later version's function
        out.append(n)
    return out


NAMES_OF = {v: _standard_names(v) for v in VERSIONS}
NAMES = NAMES_OF[VERSION]
_X = ht.ndarray._view_of(None, 1 << 32, (2,), (4,), ht.float32, 0)     # memory never touched


def namespace(version: str):
    """hip.tensor as `version` states it, the standard's way (an array's __array_namespace__)."""
    return _X.__array_namespace__(api_version=version)


def _incompatible(theirs, ours) -> list[str]:
    """Why a call valid against `theirs` could fail against `ours` ([] if none)."""
    try:
        st, so = inspect.signature(theirs), inspect.signature(ours)
    except (TypeError, ValueError) as e:
        return [f"no signature: {e}"]
    t = [p for p in st.parameters.values() if p.name != "self"]
    o = [p for p in so.parameters.values() if p.name != "self"]
    by_name = {p.name: p for p in o}
    var_pos = any(p.kind is P.VAR_POSITIONAL for p in o)
    var_kw = any(p.kind is P.VAR_KEYWORD for p in o)
    why, used = [], set()
    for i, p in enumerate(t):
        if p.kind is P.POSITIONAL_ONLY:
            q = o[i] if i < len(o) else None
            if q is None or q.kind not in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
                if not var_pos:
                    why.append(f"positional parameter {i} ({p.name}) not accepted")
                continue
            used.add(q.name)
        elif p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            if not any(q.kind is p.kind for q in o):
                why.append(f"no {p}")
        else:
            q = by_name.get(p.name)
            if q is None or q.kind is P.POSITIONAL_ONLY:
                if not var_kw:
                    why.append(f"keyword {p.name!r} not accepted")
                continue
            used.add(q.name)
            if p.kind is P.POSITIONAL_OR_KEYWORD and q.kind is P.POSITIONAL_OR_KEYWORD and o.index(q) != i:
                why.append(f"{p.name!r} at position {o.index(q)}, the standard's at {i}")
            if p.default is not P.empty and isinstance(p.default, (bool, int, float, str, type(None))) \
                    and q.default is not P.empty and q.default != p.default:
                why.append(f"{p.name}={q.default!r}, the standard's default is {p.default!r}")
            if p.default is not P.empty and q.default is P.empty:
                why.append(f"{p.name!r} is required, optional in the standard")
    for q in o:
        if q.name not in used and q.default is P.empty and q.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            why.append(f"extra required parameter {q.name!r}")
    return why


def test_the_standard_list_is_derived():
    # the reference namespace really answered (a broken import would make every test vacuous)
    old, new = NAMES_OF["2023.12"], NAMES_OF["2025.12"]
    assert len(old) > 120 and "matmul" in old and "cumulative_sum" in old
    assert "cumulative_prod" not in old        # 2024.12's, filtered by version
    assert {"cumulative_prod", "diff", "isin", "take_along_axis", "reciprocal", "nextafter"} <= set(new)
    assert set(old) <= set(new)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_main_namespace_name_exists(version):
    ns = namespace(version)
    missing = [n for n in NAMES_OF[version] if not hasattr(ns, n)]
    assert not missing, f"not in hip.tensor ({version}): {missing}"


@pytest.mark.parametrize("version", VERSIONS)
def test_version_and_constants(version):
    ns = namespace(version)
    assert ns.__array_api_version__ == version
    for n in ("e", "pi", "inf", "nan"):
        a, b = float(getattr(ns, n)), float(getattr(xp, n))
        assert a == b or (a != a and b != b), n
    assert ns.newaxis is xp.newaxis


def test_the_namespace_answers_per_requested_version():
    assert ht.__array_api_version__ == "2025.12"
    assert namespace(None) is ht and namespace("2025.12") is ht
    old = namespace("2023.12")
    assert old is namespace("2023.12") and old.sin is ht.sin and old.linalg is ht.linalg
    with pytest.raises(ValueError, match="unsupported array API version"):
        namespace("2020.10")
    # 2025.12 made these tuples; before, lists (views only: no device needed)
    a, b = _X, ht.ndarray._view_of(None, 1 << 32, (3, 1), (4, 4), ht.float32, 0)
    assert type(ht.broadcast_arrays(a, b)) is tuple and type(old.broadcast_arrays(a, b)) is list
    assert [r.shape for r in old.broadcast_arrays(a, b)] == [(3, 2), (3, 2)]
    assert inspect.signature(old.meshgrid) == inspect.signature(ht.meshgrid)
    assert type(ht.__array_namespace_info__().devices()) is tuple
    assert type(old.__array_namespace_info__().devices()) is list
    for v in VERSIONS:
        with xp.ArrayAPIStrictFlags(api_version=v):
            assert type(namespace(v).__array_namespace_info__().devices()) is \
                type(xp.__array_namespace_info__().devices())


# (array-api-strict's Device class is its own: the standard names no device constructor)
@pytest.mark.parametrize("name", [n for n in NAMES if callable(getattr(xp, n)) and not n.startswith("__")
                                  and not isinstance(getattr(xp, n), type)])
def test_function_signature(name):
    theirs, ours = getattr(xp, name), getattr(ht, name)
    assert not _incompatible(theirs, ours), _incompatible(theirs, ours)


def _array_methods():
    skip = set(dir(object)) - {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
    out = []
    for n in dir(StrictArray):
        if n in skip or n.startswith("_") and not (n.startswith("__") and n.endswith("__")):
            continue
        if n in ("__buffer__",):         # the host buffer protocol: a device array offers none
            continue
        out.append(n)
    return out


@pytest.mark.parametrize("name", _array_methods())
def test_ndarray_attribute(name):
    assert hasattr(ht.ndarray, name), f"ndarray has no {name}"
    theirs, ours = getattr(StrictArray, name), getattr(ht.ndarray, name)
    if isinstance(theirs, property) or not callable(theirs):
        assert not callable(ours) or isinstance(ours, property), f"{name} should be an attribute"
        return
    assert not _incompatible(theirs, ours), _incompatible(theirs, ours)


def test_inspection_namespace():
    theirs, ours = xp.__array_namespace_info__(), ht.__array_namespace_info__()
    methods = [m for m in dir(theirs) if not m.startswith("_")]
    for m in methods:
        assert hasattr(ours, m), m
        assert not _incompatible(getattr(theirs, m), getattr(ours, m)), (m, _incompatible(getattr(theirs, m), getattr(ours, m)))
    assert set(ours.capabilities()) >= set(theirs.capabilities()) - {"max dimensions"}
    assert {k: v.name for k, v in ours.default_dtypes().items()} == \
        {k: _name(v) for k, v in theirs.default_dtypes(device=theirs.default_device()).items()}
    # the standard's dtypes only (float16 and bfloat16 are hip.tensor's own, outside the standard)
    for kind in (None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", ("integral", "complex floating")):
        want = set(theirs.dtypes(kind=kind)) if kind is not None else set(theirs.dtypes())
        assert set(ours.dtypes(kind=kind)) == want, kind
    assert all(ours.dtypes()[n] is getattr(ht, n) for n in ours.dtypes())
    assert ht.float16 and ht.bfloat16 and ht.result_type(ht.float16, ht.bfloat16) is ht.float32


def _name(d) -> str:
    return str(d).rpartition(".")[2]     # 'array_api_strict.int8' -> 'int8'


STANDARD_DTYPES = [n for n in xp.__array_namespace_info__().dtypes()]


@pytest.mark.parametrize("a,b", list(itertools.product(STANDARD_DTYPES, repeat=2)))
def test_dtype_functions_answer_as_the_standard(a, b):
    ta, tb = getattr(xp, a), getattr(xp, b)
    oa, ob = getattr(ht, a), getattr(ht, b)
    try:
        want = _name(xp.result_type(ta, tb))
    except TypeError:
        want = None
    if want is not None:
        assert ht.result_type(oa, ob).name == want
        assert ht.can_cast(oa, ob) == xp.can_cast(ta, tb)
    else:   # mixed kinds: the standard leaves them to the library; ours follow NumPy
        assert ht.can_cast(oa, ob) == np.can_cast(np.dtype(a), np.dtype(b))
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric"):
        assert ht.isdtype(oa, kind) == xp.isdtype(ta, kind)
    assert ht.isdtype(oa, ob) == xp.isdtype(ta, tb)


# -- typing: PEP 561 inline types (hip/py.typed covers hip.tensor), no separate stubs ----------------
def _static_names() -> set[str]:
    """Top-level names the modules and stubs (the Cython modules' .pyi) of hip/tensor define
    statically (what a type checker sees)."""
    import ast
    import itertools
    import pathlib
    out = set()
    root = pathlib.Path(ht.__file__).parent
    for f in itertools.chain(root.rglob("*.py"), root.rglob("*.pyi")):
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Assign):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
    return out


PUBLIC = [n for n in dir(ht) if not n.startswith("_") or n in ("__array_namespace_info__", "__array_api_version__")]


def test_every_public_name_is_visible_to_type_checkers():
    import pathlib
    assert (pathlib.Path(ht.__file__).parent.parent / "py.typed").is_file()
    static = _static_names()
    hidden = [n for n in PUBLIC if n not in static and not inspect.ismodule(getattr(ht, n))]
    assert not hidden, f"defined only at run time (globals()/setattr): {hidden}"


def test_every_public_function_has_resolvable_type_hints():
    import typing
    missing = []
    for n in PUBLIC:
        f = getattr(ht, n)
        if inspect.isfunction(f):
            hints = typing.get_type_hints(f)      # raises if an annotation names nothing
            if "return" not in hints:
                missing.append(n)
    assert not missing, f"no return annotation: {missing}"
