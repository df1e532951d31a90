"""The oracle for the `cuda` alias: what NVIDIA's own cuda-bindings 13.x release binds.

Our alias (`hip_as_cuda/`, importable as `cuda.bindings.driver/runtime/nvrtc`) promises that a
program written for NVIDIA's cuda-bindings runs unchanged, so NVIDIA's release is the reference.
NVIDIA's package is importable as `cuda` too, so it never enters our venv: its wheels (and
cuda-pathfinder, which it imports) are fetched with `pip download` for this interpreter into
<repo>/build/cuda-bindings-oracle/, installed with --no-deps into a side venv there, and read by
running this very file *inside that venv* (`python -I cuda_bindings_oracle.py --describe ...`;
`-I` keeps our repo off sys.path). The modules import without a GPU or a driver: only calls fail.

    facts = load()                                   # cached JSON, made on first use
    f = facts["modules"]["driver"]["functions"]["cuCtxCreate"]
    [p["name"] for p in f["params"]]    # ['ctxCreateParams', 'flags', 'dev']
    f["returns"]                        # [{'name': None, 'type': 'CUresult'}, {'name': 'pctx', 'type': 'CUcontext'}]
    facts["modules"]["driver"]["classes"]["CUcontext"]["kind"]       # 'handle'
    facts["modules"]["driver"]["enums"]["CUresult"]["members"]       # {'CUDA_SUCCESS': 0, ...}
    facts["modules"]["driver"]["constants"]["CU_STREAM_LEGACY"]      # 1

Everything comes from the installed package: parameters from inspect.signature; the returned
tuple from the docstring's numpydoc "Returns" section (the compiled wheel ships no .pyx to read
`return` statements from, and its docstrings are generated with the code); class kinds from what
the classes have (enum: `__members__`; struct: data descriptors; handle: `getPtr`/`__int__`
without fields); enum members from `__members__` (aliases included). The same describer reads
our alias (tools/alias_parity_report.py), so both sides are described alike; for a module
without numpydoc docstrings it falls back to a `tuple[...]` return annotation or a `.pyi` stub.

NOTE: the docstrings state the tuple that comes back: every runtime function callable without a
driver with dummy arguments (266 of 13.5.0's; they return `(cudaErrorInsufficientDriver, None...)`)
returns what its Returns section lists, except make_cudaExtent, make_cudaPitchedPtr and
make_cudaPos, which return the struct itself although the section lists (cudaSuccess, struct).

This file must stay importable with the standard library alone: it runs in the side venv.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CACHE = os.path.join(ROOT, "build", "cuda-bindings-oracle")
REQUIREMENT = "cuda-bindings>=13,<14"
PACKAGE = "cuda.bindings"
MODULES = ("driver", "runtime", "nvrtc")       # the modules issue 12 asks the alias for


class NoRelease(LookupError):
    """NVIDIA's cuda-bindings cannot be had (PyPI unreachable, no wheel for this interpreter)."""


# -- the describer (runs in whichever interpreter imports the package: stdlib only) ---------------
# Special members every class has in some form, or that Cython adds for pickling: never compared.
NOISE = frozenset((
    "__doc__", "__module__", "__dict__", "__weakref__", "__slots__", "__init_subclass__", "__subclasshook__",
    "__new__", "__init__", "__cinit__", "__dealloc__", "__pyx_vtable__", "__reduce_cython__",
    "__setstate_cython__", "__reduce__", "__reduce_ex__", "__setstate__", "__getstate__", "__qualname__",
    "__annotations__", "__singletons__", "__orig_bases__", "__parameters__", "__abstractmethods__",
    "__firstlineno__", "__static_attributes__", "__test__",
))
_PLAIN = (bool, int, float, str, bytes)
_ROLE = re.compile(r":py:\w+:`~?\.?([^`]+)`")


def _ann(a) -> str | None:
    """An annotation as text ('Optional[CUctxCreateParams]'); None when absent."""
    import inspect
    if a is inspect.Parameter.empty or a is inspect.Signature.empty:
        return None
    return a if isinstance(a, str) else getattr(a, "__name__", None) or repr(a)


def doc_sections(doc: str) -> dict:
    """numpydoc sections of a docstring: {'Returns': [(indent, line), ...], ...}.

    A header is a line followed by a dash underline at its own indentation. cuda-bindings
    indents some docstrings by 4 and not others (and a stray '\\n' from '\\note' puts text at
    column 0), so nothing assumes an indentation: each section keeps its header's.
    """
    lines = (doc or "").splitlines()
    out, cur, base = {}, None, 0
    i = 0
    while i < len(lines):
        line = lines[i]
        ind = len(line) - len(line.lstrip())
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        under = len(nxt) - len(nxt.lstrip())
        # (a docstring's first line has lost its indentation: there the underline's counts)
        if line.strip() and re.fullmatch(r"-{3,}", nxt.strip()) and (under == ind or i == 0):
            cur, base = line.strip(), under
            out[cur] = []
            i += 2
            continue
        if cur is not None:
            out[cur].append((ind - base, line.strip()))
        i += 1
    return out


def _plain_type(t: str) -> str:
    return _ROLE.sub(r"\1", t).strip()


def doc_returns(doc: str) -> list | None:
    """The numpydoc Returns entries in order: [{'name': 'pctx' or None, 'type': 'CUcontext'}];
    None when the docstring has no Returns section."""
    sec = doc_sections(doc).get("Returns")
    if sec is None:
        return None
    out = []
    for rel, text in sec:
        if rel != 0 or not text:          # descriptions are indented under their entry
            continue
        name, sep, typ = text.partition(" : ")
        if sep and re.fullmatch(r"\w+", name.strip()):
            out.append({"name": name.strip(), "type": _plain_type(typ)})
        else:
            out.append({"name": None, "type": _plain_type(text)})
    return out


def _split_top(s: str) -> list:
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + ([cur.strip()] if cur.strip() else [])


def annotation_returns(text: str | None) -> list | None:
    """'tuple[CUresult, CUcontext]' -> [{'name': None, 'type': 'CUresult'}, ...]; None otherwise."""
    m = re.fullmatch(r"(?:typing\.)?[Tt]uple\[(.*)\]", (text or "").strip())
    if not m:
        return None
    return [{"name": None, "type": t} for t in _split_top(m.group(1)) if t != "..."]


def stub_returns(module) -> dict:
    """{function: returns} from a `.pyi` beside the module's file (`def f(...) -> tuple[...]`)."""
    import ast
    path = os.path.splitext(os.path.splitext(getattr(module, "__file__", "") or "")[0])[0] + ".pyi"
    if not os.path.isfile(path):
        return {}
    out = {}
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            r = annotation_returns(ast.unparse(node.returns))
            if r is not None:
                out[node.name] = r
    return out


def _kind(cls, public_data: list) -> str:
    """enum: has `__members__`; handle: converts to int (`__int__`/`__index__`: CUstream, CUdeviceptr,
    callbacks); struct: has fields, or `getPtr` without being a number (CUipcMemHandle's fields
    are all reserved); other: anything else."""
    members = getattr(cls, "__members__", None)
    if hasattr(members, "items") and hasattr(members, "keys"):
        return "enum"
    number = hasattr(cls, "__int__") or hasattr(cls, "__index__")
    if public_data or (hasattr(cls, "getPtr") and not number):
        return "struct"
    return "handle" if number else "other"


def describe_class(cls, probe=()) -> dict:
    """kind, bases, and what the class defines beyond its builtin base (object, or int for enums).

    `probe`: member names to look up with getattr (what a program does) rather than dir(), which
    misses what a metaclass or Enum supplies (`IntEnum.__members__`, `.name`): listed under "has"
    when present and not object's own (an inherited object.__eq__ compares identities)."""
    import inspect
    own = [k for k in cls.__mro__ if k not in (object, int)]
    enum_members = set(getattr(cls, "__members__", None) or ())
    methods, props, special = [], [], []
    for name in dir(cls):
        if name in NOISE or name in enum_members:
            continue
        holder = next((k for k in own if name in vars(k)), None)
        if holder is None:                     # inherited unchanged from object/int, or the metaclass's
            continue
        v = vars(holder)[name]
        if name.startswith("__") and name.endswith("__"):
            special.append(name)
        elif name.startswith("_"):
            continue
        elif inspect.isdatadescriptor(v):
            props.append(name)
        else:
            methods.append(name)
    first = (cls.__doc__ or "").strip().split("\n")[0]
    # Enum members' `.name`/`.value` are instance-only in the stdlib's Enum: look them up on a member too.
    inst = next(iter(dict(getattr(cls, "__members__", None) or {}).values()), None)
    has = [n for n in probe if (hasattr(cls, n) and getattr(cls, n, None) is not getattr(object, n, None))
           or (inst is not None and not n.startswith("__") and hasattr(inst, n))]
    return {"kind": _kind(cls, props), "bases": [b.__name__ for b in own[1:]], "methods": methods,
            "properties": props, "special": special, "has": has,
            # cuda-bindings' first docstring line spells the constructor: 'anon_struct11(void_ptr _ptr)'
            "doc_signature": first if first.startswith(cls.__name__ + "(") else None}


def describe_enum(cls) -> dict:
    """Members (aliases included) with their int values; the aliases (a second name for a value)."""
    members, aliases = {}, []
    for name, v in dict(cls.__members__).items():
        try:
            members[name] = int(v)
        except (TypeError, ValueError):
            members[name] = None
        if getattr(v, "name", name) != name:
            aliases.append(name)
    return {"members": members, "aliases": aliases, "int_subclass": issubclass(cls, int)}


def _value(v):
    if type(v) in _PLAIN:
        return v.decode("latin-1") if isinstance(v, bytes) else v
    try:
        return int(v)
    except Exception:
        return repr(v)


def describe_module(mod, probe: dict | None = None) -> dict:
    """Every public function, class, enum and constant of an imported module, as JSON-able data
    (`probe`: {class: member names} for describe_class)."""
    import inspect
    top = mod.__name__.split(".")[0]
    stubs = None
    functions, classes, enums, constants = {}, {}, {}, {}
    for name, v in sorted(vars(mod).items()):
        if name.startswith("_") or inspect.ismodule(v):
            continue
        owner = getattr(v, "__module__", None) or ""
        if owner and owner.split(".")[0] != top:       # re-exported typing.Any, ctypes, ...
            continue
        if isinstance(v, type):
            classes[name] = describe_class(v, (probe or {}).get(name, ()))
            if classes[name]["kind"] == "enum":
                enums[name] = describe_enum(v)
        elif callable(v):
            f = {"params": None, "signature": None}
            try:
                sig = inspect.signature(v)
                f["signature"] = str(sig)
                f["params"] = []
                for p in sig.parameters.values():
                    e = {"name": p.name, "kind": p.kind.name}
                    if p.default is not p.empty:
                        e["default"] = repr(p.default)
                    a = _ann(p.annotation)
                    if a is not None:
                        e["annotation"] = a
                    f["params"].append(e)
            except (TypeError, ValueError) as e:
                f["signature_error"] = str(e)
                sig = None
            doc = v.__doc__ or ""           # raw, not inspect.getdoc: indentation is read per section
            f["returns"], f["returns_from"] = doc_returns(doc), "docstring"
            if f["returns"] is None and sig is not None:
                f["returns"], f["returns_from"] = annotation_returns(_ann(sig.return_annotation)), "annotation"
            if f["returns"] is None:
                if stubs is None:
                    stubs = stub_returns(mod)
                f["returns"], f["returns_from"] = stubs.get(name), "stub"
            if f["returns"] is None:
                f["returns_from"] = None
            functions[name] = f
        else:
            constants[name] = _value(v)
    # The status type: what most functions' Returns section starts with (CUresult, cudaError_t, ...).
    firsts = [f["returns"][0]["type"] for f in functions.values() if f["returns"]]
    status = max(set(firsts), key=firsts.count) if firsts else None
    for f in functions.values():
        r = f["returns"]
        f["status_first"] = None if not r else (r[0]["type"] == status or r[0]["type"].startswith(f"{status}."))
    return {"module": mod.__name__, "file": getattr(mod, "__file__", None), "status_type": status,
            "functions": functions, "classes": classes, "enums": enums, "constants": constants}


def describe(modules: dict, probe: dict | None = None) -> dict:
    """{short name: describe_module(import fullname)}; {short: {'error': ...}} where the import fails.
    `probe`: {short: {class: member names}}."""
    import importlib
    out = {}
    for short, full in modules.items():
        try:
            mod = importlib.import_module(full)
        except BaseException as e:      # a binding's import may raise anything: report, do not die
            out[short] = {"module": full, "error": f"{type(e).__name__}: {e}"}
            continue
        out[short] = describe_module(mod, (probe or {}).get(short))
    return out


def _source_sha() -> str:
    """Of this file: a cached description made by another version of the describer is stale."""
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def run_describer(python: str, modules: dict, paths=(), probe: dict | None = None, timeout: float = 600) -> dict:
    """Run the describer in interpreter `python` (a child process, `-I`: neither our repo, the
    working directory nor PYTHONPATH leaks in) on {short: full module name}; `paths` go first
    on its sys.path; `probe` as for describe()."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix="cuda-describe-") as tmp:
        out, probe_file = os.path.join(tmp, "out.json"), os.path.join(tmp, "probe.json")
        with open(probe_file, "w", encoding="utf-8") as f:
            json.dump(probe or {}, f)
        if os.sep in python:           # it runs in a temporary directory: a relative path would break
            python = os.path.abspath(python)
        cmd = [python, "-I", os.path.abspath(__file__), "--describe", "--out", out, "--probe", probe_file,
               *[f"--path={os.path.abspath(p)}" for p in paths], *[f"{k}={v}" for k, v in modules.items()]]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp, env=env)
        if r.returncode != 0 or not os.path.isfile(out):
            raise RuntimeError(f"describer failed in {python} (rc {r.returncode}): {(r.stderr or r.stdout)[-3000:]}")
        with open(out, encoding="utf-8") as f:
            return json.load(f)


# -- fetching NVIDIA's release into a side venv ----------------------------------------------------
def _tag() -> str:
    return f"cp{sys.version_info.major}{sys.version_info.minor}"


def _wheel_version(path: str) -> tuple:
    m = re.match(r"[\w]+?-(\d+(?:\.\d+)*)", os.path.basename(path))
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def _cached_wheels(cache: str) -> list | None:
    """The newest cached cuda-bindings 13.x wheel for this interpreter plus the other wheels
    downloaded beside it (its dependencies), or None."""
    hits = [p for p in glob.glob(os.path.join(cache, "wheels", f"cuda_bindings-13.*-{_tag()}-*.whl"))]
    if not hits:
        return None
    best = max(hits, key=_wheel_version)
    deps = [p for p in glob.glob(os.path.join(cache, "wheels", "*.whl"))
            if not os.path.basename(p).startswith("cuda_bindings-")]
    newest = {}
    for p in deps:                 # one wheel per project: the newest
        proj = os.path.basename(p).split("-")[0].lower()
        if proj not in newest or _wheel_version(p) > _wheel_version(newest[proj]):
            newest[proj] = p
    return [best, *sorted(newest.values())]


def find_release(cache_dir: str | None = None, download: bool = True) -> list:
    """The wheels of NVIDIA's cuda-bindings 13.x for this interpreter and its dependencies
    (cuda-pathfinder): from <cache>/wheels/, else `pip download --only-binary=:all:` into it
    (pip resolves the dependencies from the wheel's metadata). Raises NoRelease when none can be had."""
    cache = os.path.abspath(cache_dir or DEFAULT_CACHE)
    hit = _cached_wheels(cache)
    if hit or not download:
        if hit:
            return hit
        raise NoRelease(f"no cuda-bindings 13.x wheel for {_tag()} in {cache}/wheels (download disabled)")
    dest = os.path.join(cache, "wheels")
    os.makedirs(dest, exist_ok=True)
    # Few retries and a short timeout: with PyPI unreachable, pip's defaults wait for many minutes.
    cmd = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--dest", dest, "--quiet",
           "--disable-pip-version-check", "--retries", "1", "--timeout", "20", REQUIREMENT]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        why = " ".join(l.strip() for l in (r.stderr or r.stdout).splitlines() if "rror" in l)[-500:]
    except (OSError, subprocess.TimeoutExpired) as e:
        r, why = None, str(e)
    hit = _cached_wheels(cache)
    if r is None or r.returncode != 0 or not hit:
        raise NoRelease(f"cannot fetch NVIDIA's cuda-bindings: `pip download {REQUIREMENT}` failed"
                        f" (PyPI unreachable?){': ' + why if why else ''}")
    return hit


def ensure_venv(wheels: list, cache_dir: str | None = None) -> str:
    """A side venv under <cache> holding exactly `wheels` (installed --no-deps --no-index);
    returns its interpreter. Made once per set of wheels (a stamp file names them)."""
    cache = os.path.abspath(cache_dir or DEFAULT_CACHE)
    v = ".".join(map(str, _wheel_version(wheels[0])))
    venv = os.path.join(cache, f"venv-{v}-{_tag()}")
    py = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, "oracle-wheels.txt")
    want = "\n".join(os.path.basename(w) for w in wheels)
    if os.path.isfile(stamp) and os.path.isfile(py):
        with open(stamp) as f:
            if f.read() == want:
                return py
    # Our venv's python would make a venv of its base interpreter: the same version, a clean site.
    r = subprocess.run([sys.executable, "-m", "venv", "--clear", venv], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"python -m venv {venv} failed: {r.stderr[-2000:]}")
    r = subprocess.run([py, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                        "--disable-pip-version-check", *wheels], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"installing {want} into {venv} failed: {r.stderr[-2000:]}")
    with open(stamp, "w") as f:
        f.write(want)
    return py


def extract(python: str) -> dict:
    """Describe NVIDIA's modules in the side venv's interpreter `python`; adds the versions."""
    mods = run_describer(python, {m: f"{PACKAGE}.{m}" for m in MODULES})
    for m, d in mods.items():
        if "error" in d:
            raise RuntimeError(f"NVIDIA's {d['module']} does not import in {python}: {d['error']}")
    r = subprocess.run([python, "-I", "-c", "import importlib.metadata as m, json, sys; print(json.dumps("
                        "{d: m.version(d) for d in ('cuda-bindings', 'cuda-pathfinder')} | "
                        "{'python': sys.version.split()[0]}))"], capture_output=True, text=True, check=True)
    versions = json.loads(r.stdout)
    return {"package": "cuda-bindings", "version": versions["cuda-bindings"],
            "cuda_pathfinder": versions["cuda-pathfinder"], "python": versions["python"],
            "describer": _source_sha(), "modules": mods}


def load(cache_dir: str | None = None, refresh: bool = False, download: bool = True) -> dict:
    """The oracle's description (see the module docstring), cached as <cache>/oracle-<version>-<tag>.json
    and remade when the wheels or this describer change. Raises NoRelease when the release cannot be had."""
    cache = os.path.abspath(cache_dir or DEFAULT_CACHE)
    wheels = find_release(cache, download)
    v = ".".join(map(str, _wheel_version(wheels[0])))
    path = os.path.join(cache, f"oracle-{v}-{_tag()}.json")
    if not refresh and os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            facts = json.load(f)
        if facts.get("describer") == _source_sha() and facts.get("wheels") == [os.path.basename(w) for w in wheels]:
            return facts
    facts = extract(ensure_venv(wheels, cache))
    facts["wheels"] = [os.path.basename(w) for w in wheels]
    facts["json"] = path
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
    return facts


def summary(facts: dict) -> str:
    lines = [f"cuda-bindings {facts['version']} (cuda-pathfinder {facts['cuda_pathfinder']}, Python {facts['python']})"]
    for m, d in facts["modules"].items():
        kinds = {}
        for c in d["classes"].values():
            kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
        known = sum(1 for f in d["functions"].values() if f["returns"] is not None)
        lines.append(f"  {m:8} {len(d['functions']):4} functions ({known} with a Returns section), "
                     f"{len(d['enums']):3} enums, {len(d['classes']) - len(d['enums']):3} other classes "
                     f"({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()) if k != 'enum')}), "
                     f"{len(d['constants']):3} constants; status type {d['status_type']}")
    return "\n".join(lines)


def _main(argv) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--describe", action="store_true",
                    help="describe SHORT=MODULE pairs with this interpreter (what runs inside the side venv)")
    ap.add_argument("--out", help="--describe: write the JSON here (default stdout)")
    ap.add_argument("--path", action="append", default=[], help="--describe: put DIR first on sys.path")
    ap.add_argument("--probe", help="--describe: JSON {module: {class: [member names to look up]}}")
    ap.add_argument("--cache", help=f"where wheels, venv and JSON live (default {DEFAULT_CACHE})")
    ap.add_argument("--refresh", action="store_true", help="extract again even if the cached JSON is current")
    ap.add_argument("modules", nargs="*")
    args = ap.parse_args(argv)
    if args.describe:
        for p in reversed(args.path):
            sys.path.insert(0, p)
        probe = None
        if args.probe:
            with open(args.probe, encoding="utf-8") as f:
                probe = json.load(f)
        text = json.dumps(describe(dict(m.split("=", 1) for m in args.modules), probe), indent=1, sort_keys=True)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            print(text)
        return 0
    try:
        facts = load(args.cache, args.refresh)
    except NoRelease as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 2
    print(summary(facts))
    print(f"  -> {facts['json']}")
    return 0


if __name__ == "__main__":      # python tests/cuda_bindings_oracle.py: fetch, extract, summarise
    sys.exit(_main(sys.argv[1:]))
