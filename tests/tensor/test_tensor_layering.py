"""hip.tensor's import layering, read from the sources (ast; no import, no GPU): the modules sit on
the floors of FLOORS and import only from their own floor or the floors below; no import cycle,
function-level imports included; hip.tensor's own modules are imported at the top of a module,
before its code; no module reads a global it never binds (what a moved import leaves behind, on
paths only a GPU runs). docs/design.rst ("hip.tensor: modules and contracts") describes the floors.

The array object (_core/array.py) is a leaf of the floors above it: its operators and methods that
need them (arithmetic, reductions, indexing, reshape, matmul, the casting copy) call through its
dispatch table `_core.array.ops`, which the modules defining them fill at import."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TENSOR = ROOT / "hip" / "tensor"
PKG = "hip.tensor"

# Bottom up. A module's room is its first name under hip.tensor ("" for hip.tensor itself): it may
# import modules of its own floor (without a cycle) and of the floors below, never above.
FLOORS = [
    ("_core", "backends"),      # launch (C), dtypes, shapes, device, memory, interop, array; switches
    ("_kernels",),              # hiprtc and the kernel families
    ("_libs",),                 # hipBLAS, hipSOLVER, hipSPARSE, the hipFFT layouts, the library loader
    ("_api",),                  # the array API standard's sections (and the linalg factorizations)
    ("_fusion",),               # ht.fuse
    ("linalg", "fft", "random", "sparse", "distributed", "nn", "dask"),     # the public modules
    ("",),                      # hip.tensor: the namespace
]
FLOOR = {room: i for i, rooms in enumerate(FLOORS) for room in rooms}


def _modules() -> dict[str, Path]:
    mods = {}
    for p in sorted(TENSOR.rglob("*.py")) + sorted(TENSOR.rglob("*.pyx")):
        if "__pycache__" in p.parts:
            continue
        parts = list(p.relative_to(TENSOR).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join([PKG] + parts)] = p
    return mods


MODULES = _modules()


def _room(mod: str) -> str:
    rest = mod[len(PKG) + 1:] if mod != PKG else ""
    return rest.split(".")[0]


class Import:
    """One import of a hip.tensor module: where (line), what, and whether at module level."""

    def __init__(self, target: str, line: int, top: bool):
        self.target, self.line, self.top = target, line, top


def _targets(mod: str, is_pkg: bool, level: int, module: str | None, names: list[str]) -> list[str]:
    """The hip.tensor modules an `import`/`from ... import` names (a submodule where a name is one)."""
    if level:
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base = base[:len(base) - (level - 1)]
        base_name = ".".join(base + ([module] if module else []))
    else:
        base_name = module or ""
    if not (base_name == PKG or base_name.startswith(PKG + ".")):
        return []
    out = []
    for n in names:
        sub = f"{base_name}.{n}"
        out.append(sub if sub in MODULES else base_name)
    return out


def _imports(mod: str) -> list[Import]:
    path = MODULES[mod]
    is_pkg = path.stem == "__init__"
    found = []
    if path.suffix == ".pyx":       # Cython: a line-level look at its (c)imports
        for i, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r"(\s*)(?:from\s+(\.*)([\w.]*)\s+c?import\s+([\w, ]+)|c?import\s+([\w.]+))", line)
            if not m:
                continue
            if m.group(5):
                found += [Import(t, i, not m.group(1)) for t in _targets(mod, is_pkg, 0, None, [m.group(5)])
                          if m.group(5).startswith(PKG)]
            else:
                names = [n.split(" as ")[0].strip() for n in m.group(4).split(",")]
                found += [Import(t, i, not m.group(1))
                          for t in _targets(mod, is_pkg, len(m.group(2)), m.group(3) or None, names)]
        return found
    tree = ast.parse(path.read_text(), str(path))
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == PKG or a.name.startswith(PKG + "."):
                    found.append(Import(a.name if a.name in MODULES else PKG, node.lineno, id(node) in top))
        elif isinstance(node, ast.ImportFrom):
            for t in _targets(mod, is_pkg, node.level, node.module, [a.name for a in node.names]):
                found.append(Import(t, node.lineno, id(node) in top))
    return found


IMPORTS = {m: _imports(m) for m in MODULES}


def _where(mod: str, imp: Import) -> str:
    return f"{MODULES[mod].relative_to(ROOT)}:{imp.line} imports {imp.target}"


def test_every_module_has_a_floor():
    assert len(MODULES) > 40
    lost = sorted(m for m in MODULES if _room(m) not in FLOOR)
    assert not lost, f"modules in no room of FLOORS (add their room to the table): {lost}"


def test_imports_go_down_the_floors():
    up = sorted({_where(m, i) for m in MODULES for i in IMPORTS[m]
                 if i.target != m and FLOOR[_room(i.target)] > FLOOR[_room(m)]})
    assert not up, "imports from a higher floor:\n  " + "\n  ".join(up)


def test_no_import_cycle():
    graph = {m: sorted({i.target for i in IMPORTS[m] if i.target != m}) for m in MODULES}
    state: dict[str, int] = {}      # 1: on the path being walked, 2: done
    cycles = []

    def walk(m, path):
        state[m] = 1
        path.append(m)
        for t in graph[m]:
            if state.get(t) == 1:
                cycles.append(path[path.index(t):] + [t])
            elif t not in state:
                walk(t, path)
        path.pop()
        state[m] = 2

    for m in graph:
        if m not in state:
            walk(m, [])
    assert not cycles, "import cycles:\n  " + "\n  ".join(" -> ".join(c) for c in cycles)


def test_hip_tensor_modules_are_imported_at_module_level():
    # hip.tensor imports every module of its own (nn aside, through importlib): an import of one in
    # a function defers nothing, it only hides an edge of the graph (a cycle, once)
    inner = sorted({_where(m, i) for m in MODULES for i in IMPORTS[m] if not i.top})
    assert not inner, "hip.tensor modules imported inside a function or block:\n  " + "\n  ".join(inner)


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


@pytest.mark.parametrize("mod", [m for m in MODULES if MODULES[m].suffix == ".py"])
def test_module_level_imports_come_first(mod):
    body = ast.parse(MODULES[mod].read_text()).body
    code = None
    late = []
    for i, node in enumerate(body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if code is not None:
                late.append(f"line {node.lineno} (after the code at line {code})")
        elif not (i == 0 and _is_docstring(node)) and code is None:
            code = node.lineno
    assert not late, f"{MODULES[mod].relative_to(ROOT)}: module-level imports after code: {late}"


def test_the_array_is_a_leaf_of_core():
    seen, todo = set(), [f"{PKG}._core.array"]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += [i.target for i in IMPORTS[m]]
    outside = sorted(m for m in seen if _room(m) != "_core" and m != f"{PKG}._core")
    assert not outside, f"_core/array.py reaches beyond _core: {outside}"


def test_the_array_dispatch_table_is_full_after_import():
    import hip.tensor as ht
    from hip.tensor._core import array as A
    unset = [n for n in A._Ops.__slots__ if getattr(getattr(A.ops, n), "__name__", "") == "unregistered"]
    assert not unset, f"ndarray's dispatch entries no module registered: {unset}"
    assert A.ops.namespace is ht
    with pytest.raises(TypeError, match="no entry"):
        A.register(no_such_entry=None)


def _unbound_globals(source: str, filename: str) -> set[tuple[str, str]]:
    """(scope, name) of the names a module reads as globals that it never binds (nor builtins)."""
    import builtins
    import symtable
    top = symtable.symtable(source, filename, "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    known = bound | set(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__path__", "__class__"}
    out = set()

    def walk(t):
        for s in t.get_symbols():
            if s.is_referenced() and s.get_name() not in known and (
                    s.is_global() or (t.get_type() == "module" and not s.is_assigned() and not s.is_imported())):
                out.add((t.get_name(), s.get_name()))
        for c in t.get_children():
            walk(c)
    walk(top)
    return out


@pytest.mark.parametrize("mod", [m for m in MODULES if MODULES[m].suffix == ".py"])
def test_no_module_reads_a_global_it_never_binds(mod):
    # a moved import leaves such a name behind; most of them sit on GPU-only paths the CPU tests miss
    src = MODULES[mod].read_text()
    if re.search(r"^from \S+ import \*", src, re.M):
        return                      # star imports bind names this check cannot see
    unbound = _unbound_globals(src, str(MODULES[mod]))
    assert not unbound, f"{MODULES[mod].relative_to(ROOT)}: names read but never bound: {sorted(unbound)}"


def test_the_unbound_global_check_sees_one():
    src = "import numpy as np\n\ndef f(x):\n    return ndarray(x) + np.int64(len(x))\n"
    assert _unbound_globals(src, "m.py") == {("f", "ndarray")}
