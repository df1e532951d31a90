"""The oracle for the `cuda` alias: what NVIDIA's own cuda-bindings release for the same CUDA version binds.

Our alias (`hip_as_cuda/`, importable as `cuda.bindings.driver/runtime/nvrtc`) promises that a
program written for NVIDIA's cuda-bindings runs unchanged, so NVIDIA's release is the reference.
NVIDIA's package is importable as `cuda` too, so it never enters our venv: its wheels (and
cuda-pathfinder, which it imports) are fetched with `pip download` for this interpreter into
<repo>/build/cuda-bindings-oracle/, installed with --no-deps into a side venv there, and read by
running this very file *inside that venv* (`python -I cuda_bindings_oracle.py --describe ...`;
`-I` keeps our repo off sys.path). The modules import without a GPU or a driver: only calls fail.

Which release: the one for the CUDA version the alias was generated from, as our HIP oracle
picks AMD's release for the ROCm headers. That version is the `cuda_version` ('13.0') of the
alias's coverage reports (hip_as_cuda/cuda/bindings/_coverage/<module>.json, what
hip_as_cuda.coverage() reads); the release is the newest patch of that line
(`pip download 'cuda-bindings==13.0.*'`), cached per line under
build/cuda-bindings-oracle/wheels-13.0/. $CUDA_BINDINGS_ORACLE_VERSION ('13.5', or one release:
'13.5.0') or load(version=...) overrides; the cache of 13.5.0 made before the version was chosen
(wheels/, venv-13.5.0-cp311, oracle-13.5.0-cp311.json) serves such an override. NoRelease
(the tests skip) when PyPI has no such release for this interpreter or cannot be reached.

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
our alias (tools/alias_parity_report.py), so both sides are described alike. Ours are Cython
builtins compiled with binding=False, which inspect.signature cannot read: their parameters come
from the docstring's first line, which embedsignature makes the signature ('cuGraphGetNodes(hGraph,
numNodes=0)'; NVIDIA's spell C types: 'cuInit(unsigned int Flags)'), else from the `.pyi` beside
the module; their returned tuple, without numpydoc docstrings, from a `tuple[...]` return
annotation or that `.pyi` (looked up by the attribute's name, then the function's own: the alias
cuCtxCreate is cuCtxCreate_v4). `params_from` / `returns_from` say which source answered.

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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # tests/oracles/..
DEFAULT_CACHE = os.path.join(ROOT, "build", "cuda-bindings-oracle")


def _cache_locked(fn):
    """Run `fn` holding its cache directory's lock (tests/oracles/cache_lock.py): parallel test workers
    download and install a release once."""
    import functools
    import inspect
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        from cache_lock import locked
        cache = sig.bind(*args, **kwargs).arguments.get("cache_dir") or DEFAULT_CACHE
        with locked(cache):
            return fn(*args, **kwargs)
    return run
VERSION_ENV = "CUDA_BINDINGS_ORACLE_VERSION"   # '13.5' or '13.5.0': compare with that release instead
ALIAS_BINDINGS = os.path.join(ROOT, "hip_as_cuda", "cuda", "bindings")   # our alias, with _coverage/
PACKAGE = "cuda.bindings"
MODULES = ("driver", "runtime", "nvrtc", "nvjitlink", "nvvm", "utils")   # the modules the alias has (issue 12: the first three)


class NoRelease(LookupError):
    """NVIDIA's cuda-bindings cannot be had (PyPI unreachable, no such release, no wheel for this interpreter)."""


class NoVersion(NoRelease):
    """No CUDA version to choose the release by: the alias is not generated and none was asked for."""


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


_SIG_LINE = re.compile(r"\s*([A-Za-z_]\w*)\((.*)\)\s*(?:->\s*(.+?))?\s*")


def parse_params(text: str) -> list | None:
    """A parameter list as a signature line spells it, in either convention: Python's
    ('hGraph, numNodes=0', 'x: int = 0, *, y=None') or C's, as cuda-bindings' embedded
    signatures have it ('unsigned int Flags', 'CUstream hStream'). Each parameter as
    describe_module's: {'name', 'kind', 'default' (its text), 'annotation' (the type, where
    spelled)}. None when an item has no name."""
    params, kind = [], "POSITIONAL_OR_KEYWORD"
    for item in _split_top(text):
        if item == "/":
            for p in params:
                p["kind"] = "POSITIONAL_ONLY"
            continue
        if item == "*":
            kind = "KEYWORD_ONLY"
            continue
        star = len(item) - len(item.lstrip("*"))
        head, eq, default = item.lstrip("*").partition("=")
        head, colon, ann = head.partition(":")
        words = re.findall(r"\w+", head)
        if not words:
            return None
        e = {"name": words[-1], "kind": {1: "VAR_POSITIONAL", 2: "VAR_KEYWORD"}.get(star, kind)}
        if star == 1:
            kind = "KEYWORD_ONLY"
        if eq:
            e["default"] = default.strip()
        if colon and ann.strip():
            e["annotation"] = ann.strip()
        elif len(words) > 1:                  # C: the type before the name
            e["annotation"] = head.strip()[: head.strip().rindex(words[-1])].strip()
        params.append(e)
    return params


def doc_signature(doc: str, names) -> dict | None:
    """The signature a docstring's first line spells (Cython's embedsignature: 'cuInit(Flags)',
    'cuGraphGetNodes(hGraph, numNodes=0)', 'cuInit(unsigned int Flags)'), for a function that
    inspect.signature cannot read (a Cython builtin compiled with binding=False).
    {'text', 'params', 'returns' (from a '-> tuple[...]' there, else None)}; None unless the
    line names the function (one of `names`: its attribute name or `__name__`, which differ
    for aliases: cuCtxCreate is cuCtxCreate_v4, whose line says so)."""
    first = (doc or "").lstrip("\n").split("\n", 1)[0]
    m = _SIG_LINE.fullmatch(first)
    if not m or m.group(1) not in names:
        return None
    params = parse_params(m.group(2))
    if params is None:
        return None
    return {"text": first.strip(), "params": params, "returns": annotation_returns(m.group(3))}


def stub_functions(module) -> dict:
    """{function: {'params': [...], 'returns': [...] or None}} from a `.pyi` beside the module's
    file (`def f(a: int, b=0) -> tuple[...]: ...`)."""
    import ast
    path = os.path.splitext(os.path.splitext(getattr(module, "__file__", "") or "")[0])[0] + ".pyi"
    if not os.path.isfile(path):
        return {}
    out = {}
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a, params = node.args, []
        positional = [*a.posonlyargs, *a.args]
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for i, (arg, d) in enumerate(zip(positional, defaults)):
            params.append(_stub_param(arg, "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD", d))
        if a.vararg:
            params.append(_stub_param(a.vararg, "VAR_POSITIONAL", None))
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(_stub_param(arg, "KEYWORD_ONLY", d))
        if a.kwarg:
            params.append(_stub_param(a.kwarg, "VAR_KEYWORD", None))
        out[node.name] = {"params": params,
                          "returns": annotation_returns(ast.unparse(node.returns)) if node.returns is not None else None}
    return out


def _stub_param(arg, kind: str, default) -> dict:
    import ast
    e = {"name": arg.arg, "kind": kind}
    if default is not None:
        e["default"] = ast.unparse(default)
    if arg.annotation is not None:
        e["annotation"] = ast.unparse(arg.annotation)
    return e


def stub_returns(module) -> dict:
    """{function: returns} from a `.pyi` beside the module's file (`def f(...) -> tuple[...]`)."""
    return {k: v["returns"] for k, v in stub_functions(module).items() if v["returns"] is not None}


def _kind(cls, public_data: list) -> str:
    """enum: has `__members__`; handle: converts to int (`__int__`/`__index__`: CUstream, CUdeviceptr,
    callbacks); struct: has fields, or `getPtr` without being a number (CUipcMemHandle's fields
    are all reserved); other: anything else. `public_data`: the fields, i.e. the data descriptors
    the class's own package defines: those a base from another package adds (our handles'
    `ptr` and `is_ptr_null`, from hip._pointer.Pointer) make no struct."""
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
    methods, props, special, fields = [], [], [], []
    top = (getattr(cls, "__module__", None) or "").split(".")[0]
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
            if (getattr(holder, "__module__", None) or "").split(".")[0] == top:
                fields.append(name)
        else:
            methods.append(name)
    first = (cls.__doc__ or "").strip().split("\n")[0]
    # Enum members' `.name`/`.value` are instance-only in the stdlib's Enum: look them up on a member too.
    inst = next(iter(dict(getattr(cls, "__members__", None) or {}).values()), None)
    has = [n for n in probe if (hasattr(cls, n) and getattr(cls, n, None) is not getattr(object, n, None))
           or (inst is not None and not n.startswith("__") and hasattr(inst, n))]
    return {"kind": _kind(cls, fields), "name": cls.__name__, "bases": [b.__name__ for b in own[1:]], "methods": methods,
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


class _Lazy:
    def __init__(self, make):
        self.make, self.value = make, None

    def get(self):
        if self.value is None:
            self.value = self.make()
        return self.value


def _describe_function(name: str, v, stubs: _Lazy) -> dict:
    """Parameters from inspect.signature, else the docstring's first line (Cython's
    embedsignature, where binding=False leaves inspect nothing to read), else the `.pyi`;
    the returned tuple from the docstring's numpydoc Returns, else a `tuple[...]` return
    annotation (the signature's, then the first line's), else the `.pyi`. A stub is looked
    up by the attribute's name, then by the function's own (an alias: cuCtxCreate is
    cuCtxCreate_v4). `params_from` / `returns_from` say which source answered."""
    import inspect
    f = {"params": None, "params_from": None, "signature": None}
    names = [name] + ([v.__name__] if getattr(v, "__name__", name) != name else [])
    doc = v.__doc__ or ""               # raw, not inspect.getdoc: indentation is read per section
    line = None
    try:
        sig = inspect.signature(v)
        f["signature"] = str(sig)
        f["params"], f["params_from"] = [], "signature"
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
        line = doc_signature(doc, names)
        if line is not None:
            f["signature"], f["params"], f["params_from"] = line["text"], line["params"], "docstring"
    stub = next((stubs.get()[n] for n in names if n in stubs.get()), None) if (
        f["params"] is None or doc_returns(doc) is None) else None
    if f["params"] is None and stub is not None:
        f["params"], f["params_from"] = stub["params"], "stub"
    f["returns"], f["returns_from"] = doc_returns(doc), "docstring"
    if f["returns"] is None and sig is not None:
        f["returns"], f["returns_from"] = annotation_returns(_ann(sig.return_annotation)), "annotation"
    if f["returns"] is None and line is not None:
        f["returns"], f["returns_from"] = line["returns"], "docstring signature"
    if f["returns"] is None and stub is not None:
        f["returns"], f["returns_from"] = stub["returns"], "stub"
    if f["returns"] is None:
        f["returns_from"] = None
    return f


def describe_module(mod, probe: dict | None = None) -> dict:
    """Every public function, class, enum and constant of an imported module, as JSON-able data
    (`probe`: {class: member names} for describe_class)."""
    import inspect
    top = mod.__name__.split(".")[0]
    stubs = _Lazy(lambda: stub_functions(mod))
    functions, classes, enums, constants = {}, {}, {}, {}
    # dir() and getattr, as a program sees the module: the alias makes most enum classes on first
    # use (a module __getattr__ and __dir__), so they are not all in vars() after import.
    for name, v in ((n, getattr(mod, n)) for n in sorted(dir(mod))):
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
            functions[name] = _describe_function(name, v, stubs)
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


def _parse_version(text: str) -> tuple:
    """'13.0' -> (13, 0); '13.0.3' -> (13, 0, 3): a release line (newest patch) or one release."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.(\d+))?\s*", str(text))
    if not m:
        raise ValueError(f"bad CUDA version {text!r}: want major.minor ('13.0') or major.minor.patch ('13.0.3')")
    return tuple(int(x) for x in m.groups() if x is not None)


def alias_cuda_version(bindings_dirs=()) -> tuple:
    """(major.minor, where it was read) of the CUDA headers our alias was generated from: the
    `cuda_version` of its coverage reports, <dir>/_coverage/<module>.json (what
    hip_as_cuda.coverage() reads), in the first of `bindings_dirs` + [ALIAS_BINDINGS] that has
    them. Raises NoVersion when none has, RuntimeError when the modules disagree."""
    for d in [*bindings_dirs, ALIAS_BINDINGS]:
        found = {}
        for m in MODULES:
            p = os.path.join(d, "_coverage", f"{m}.json")
            if os.path.isfile(p):
                with open(p, encoding="utf-8") as f:
                    v = json.load(f).get("cuda_version")
                if v:
                    found[m] = ".".join(str(v).split(".")[:2])
        if not found:
            continue
        if len(set(found.values())) > 1:
            raise RuntimeError(f"the alias's modules were generated from different CUDA versions ({found},"
                               f" {d}/_coverage): regenerate them, or set {VERSION_ENV}")
        v = next(iter(found.values()))
        return v, f"{os.path.relpath(os.path.join(d, '_coverage'), ROOT)}/*.json: cuda_version {v}"
    raise NoVersion(f"no coverage report of our alias ({ALIAS_BINDINGS}/_coverage/*.json) says which CUDA"
                    f" version it was generated from: generate it, or set {VERSION_ENV} (e.g. 13.0)")


def wanted_version(version: str | None = None, bindings_dirs=()) -> tuple:
    """(version tuple, why) of the release to compare with: `version`, else $CUDA_BINDINGS_ORACLE_VERSION,
    else the CUDA version our alias was generated from (alias_cuda_version)."""
    if version:
        return _parse_version(version), f"asked for {version}"
    if os.environ.get(VERSION_ENV):
        return _parse_version(os.environ[VERSION_ENV]), f"${VERSION_ENV}={os.environ[VERSION_ENV]}"
    v, why = alias_cuda_version(bindings_dirs)
    return _parse_version(v), f"the alias's CUDA version ({why})"


def _requirement(want: tuple) -> str:
    return f"cuda-bindings=={'.'.join(map(str, want))}" + (".*" if len(want) == 2 else "")


def _wheel_dirs(cache: str, want: tuple) -> list:
    """Where wheels for `want` may lie: wheels-<major.minor>/ (what find_release downloads into,
    each release line with its own dependencies), then wheels/ (the cache of the days before
    the version was chosen: 13.5.0 with cuda-pathfinder 1.9.0)."""
    return [os.path.join(cache, f"wheels-{want[0]}.{want[1]}"), os.path.join(cache, "wheels")]


def _cached_wheels(cache: str, want: tuple) -> list | None:
    """The newest cached cuda-bindings wheel of `want` (13.0: any 13.0.x; 13.0.3: that one) for
    this interpreter plus the other wheels downloaded beside it (its dependencies), or None."""
    for d in _wheel_dirs(cache, want):
        hits = [p for p in glob.glob(os.path.join(d, f"cuda_bindings-*-{_tag()}-*.whl"))
                if _wheel_version(p)[:len(want)] == want]
        if not hits:
            continue
        best = max(hits, key=_wheel_version)
        newest = {}
        for p in glob.glob(os.path.join(d, "*.whl")):     # one wheel per other project: the newest
            proj = os.path.basename(p).split("-")[0].lower()
            if proj != "cuda_bindings" and (proj not in newest or _wheel_version(p) > _wheel_version(newest[proj])):
                newest[proj] = p
        return [best, *sorted(newest.values())]
    return None


def probe_both(source: str, workdir: str, args=()) -> tuple[dict, dict]:
    """(NVIDIA's answers, ours): a probe (Python source that prints one JSON line last) run in the
    oracle's venv and through `python -m hip_as_cuda`, with `args`. NoRelease where NVIDIA's
    release cannot be had."""
    python = ensure_venv(find_release())
    path = os.path.join(workdir, "probe.py")
    with open(path, "w") as f:
        f.write(source)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    out = []
    for cmd in ([python, "-I"], [sys.executable, "-m", "hip_as_cuda"]):
        r = subprocess.run(cmd + [path, *args], capture_output=True, text=True, timeout=300, env=env, cwd=workdir)
        if r.returncode != 0:
            raise AssertionError(r.stderr[-3000:])
        out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


@_cache_locked
def find_release(cache_dir: str | None = None, download: bool = True, version: str | None = None,
                 refresh: bool = False, bindings_dirs=()) -> list:
    """The wheels of NVIDIA's cuda-bindings for the CUDA version wanted_version(version) names
    (major.minor: the newest patch), for this interpreter, and its dependencies (cuda-pathfinder):
    from the cache (_wheel_dirs), else `pip download --only-binary=:all: 'cuda-bindings==X.Y.*'`
    into <cache>/wheels-X.Y/ (pip resolves the dependencies from the wheel's metadata; `refresh`
    downloads again, picking up a newer patch). Raises NoRelease when none can be had: PyPI has
    no such release for this interpreter, or cannot be reached."""
    cache = os.path.abspath(cache_dir or DEFAULT_CACHE)
    want, why_version = wanted_version(version, bindings_dirs)
    req = _requirement(want)
    hit = None if refresh else _cached_wheels(cache, want)
    if hit or not download:
        hit = hit or _cached_wheels(cache, want)
        if hit:
            return hit
        raise NoRelease(f"no {req} wheel for {_tag()} in {cache} (download disabled; version from {why_version})")
    dest = _wheel_dirs(cache, want)[0]
    os.makedirs(dest, exist_ok=True)
    # Few retries and a short timeout: with PyPI unreachable, pip's defaults wait for many minutes.
    cmd = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--dest", dest, "--quiet",
           "--disable-pip-version-check", "--retries", "1", "--timeout", "20", req]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        err = r.stderr or r.stdout
        why = " ".join(l.strip() for l in err.splitlines() if "rror" in l)[-500:]
    except (OSError, subprocess.TimeoutExpired) as e:
        r, err, why = None, "", str(e)
    hit = _cached_wheels(cache, want)
    if r is None or r.returncode != 0 or not hit:
        if "No matching distribution" in err or "from versions:" in err:
            raise NoRelease(f"PyPI has no {req} wheel for {_tag()} (version from {why_version}): no oracle"
                            f" for this CUDA version; set {VERSION_ENV} to compare with another release"
                            f"{': ' + why if why else ''}")
        raise NoRelease(f"cannot fetch NVIDIA's cuda-bindings: `pip download {req}` failed"
                        f" (PyPI unreachable?){': ' + why if why else ''}")
    return hit


@_cache_locked
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


@_cache_locked
def load(cache_dir: str | None = None, refresh: bool = False, download: bool = True,
         version: str | None = None, bindings_dirs=()) -> dict:
    """The oracle's description (see the module docstring) of the release wanted_version(version)
    names, cached as <cache>/oracle-<version>-<tag>.json and remade when the wheels or this
    describer change (`refresh`: download and extract again; `bindings_dirs`: where else our
    alias's cuda/bindings may lie, as for alias_cuda_version). Raises NoRelease when the release
    cannot be had."""
    cache = os.path.abspath(cache_dir or DEFAULT_CACHE)
    want, why_version = wanted_version(version, bindings_dirs)
    wheels = find_release(cache, download, version, refresh, bindings_dirs)
    v = ".".join(map(str, _wheel_version(wheels[0])))
    path = os.path.join(cache, f"oracle-{v}-{_tag()}.json")
    chosen = {"requested": ".".join(map(str, want)), "requested_from": why_version}
    if not refresh and os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            facts = json.load(f)
        if facts.get("describer") == _source_sha() and facts.get("wheels") == [os.path.basename(w) for w in wheels]:
            return {**facts, **chosen}
    facts = extract(ensure_venv(wheels, cache))
    facts["wheels"] = [os.path.basename(w) for w in wheels]
    facts["json"] = path
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
    return {**facts, **chosen}


def summary(facts: dict) -> str:
    lines = [f"cuda-bindings {facts['version']} (cuda-pathfinder {facts['cuda_pathfinder']}, Python {facts['python']})"
             + (f"; chosen for CUDA {facts['requested']}: {facts['requested_from']}" if facts.get("requested") else "")]
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
    ap.add_argument("--refresh", action="store_true", help="download and extract again even if cached")
    ap.add_argument("--version", help=f"the release: X.Y (newest patch) or X.Y.Z (default ${VERSION_ENV},"
                                      " else the CUDA version our alias was generated from)")
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
        facts = load(args.cache, args.refresh, version=args.version)
    except NoRelease as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 2
    print(summary(facts))
    print(f"  -> {facts['json']}")
    return 0


if __name__ == "__main__":      # python tests/oracles/cuda_bindings_oracle.py: fetch, extract, summarise
    sys.exit(_main(sys.argv[1:]))
