"""hip.tensor against the Python array API standard (2023.12), as array-api-strict (the standard's
reference namespace, from PyPI) states it: every name of the main namespace, every ndarray method,
the inspection namespace, and the dtype functions' answers. No device needed.

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

VERSION = "2023.12"
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


def _standard_names() -> list[str]:
    out = []
    for n in xp.__all__:
        obj = getattr(xp, n)
        if "strict" in n.lower() or n == "__version__" or inspect.ismodule(obj):
            continue            # array-api-strict's own flags; extensions (linalg, fft) apart
        if callable(obj) and _needs_version(obj) > VERSION:
            continue            # a later version's function
        out.append(n)
    return out


NAMES = _standard_names()


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
    assert len(NAMES) > 120 and "matmul" in NAMES and "cumulative_sum" in NAMES
    assert "cumulative_prod" not in NAMES      # 2024.12's, filtered by version


def test_every_main_namespace_name_exists():
    missing = [n for n in NAMES if not hasattr(ht, n)]
    assert not missing, f"not in hip.tensor: {missing}"


def test_version_and_constants():
    assert ht.__array_api_version__ == VERSION
    for n in ("e", "pi", "inf", "nan"):
        a, b = float(getattr(ht, n)), float(getattr(xp, n))
        assert a == b or (a != a and b != b), n
    assert ht.newaxis is xp.newaxis


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
    extra = {"float16", "bfloat16"}            # ours beyond the standard's
    for kind in (None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", ("integral", "complex floating")):
        want = set(theirs.dtypes(kind=kind)) if kind is not None else set(theirs.dtypes())
        got = set(ours.dtypes(kind=kind))
        assert got - extra == want, kind
    assert all(ours.dtypes()[n] is getattr(ht, n) for n in ours.dtypes())


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
    """Top-level names the modules of hip/tensor define statically (what a type checker sees)."""
    import ast
    import pathlib
    out = set()
    for f in pathlib.Path(ht.__file__).parent.rglob("*.py"):
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
