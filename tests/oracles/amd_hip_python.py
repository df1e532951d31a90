"""The oracle: what AMD's own HIP Python release (PyPI `hip-python`) binds.

Our promise is that a program written for AMD's HIP Python runs unchanged on
ours, so AMD's release for the same ROCm version is the reference. Its wheel
ships the Cython sources of every module (hip/hip.pyx, hip/hipblas.pyx, ...,
hip/_util/types.pyx); this module reads them statically, in pure Python:

    facts = load("/path/to/hip_python-6.4.4.555.40-cp311-...whl")   # or the unpacked dir
    f = facts["hip"].functions["hipDeviceGetName"]
    f.params          # [("len", None), ("device", None)]   (name, default-or-None)
    f.returns         # (2,): the lengths of the tuples its return statements build
    f.status_first    # True: element 0 is the C status (hipError_t)
    facts["hip"].classes["dim3"].members      # public methods/properties, inherited ones included
    facts["hip"].enums["hipError_t"]          # {"hipSuccess": 0, ...}
    facts["hip"].constants["HIP_VERSION_MAJOR"]

Enumerator and constant values are not in the sources (they read
`chip.hipSuccess`, a C constant); they come from importing the wheel's
compiled modules in a child interpreter (`-I`, the wheel first on sys.path,
so the `hip` package there never meets ours). AMD's modules dlopen their
libraries on the first call, not on import, so no ROCm runtime is needed.
If the wheel cannot be imported (another Python version), values are None.

NOTE: AMD's docstrings state the wrong tuple size in a few dozen places
("A tuple of size 2" for a 3-tuple): the `return` statements are the truth,
and `returns` is read from them.

`find_release("6.4")` finds or downloads (pip download, binary only) the
AMD release for a ROCm major.minor into <repo>/build/amd-hip-python/.

The same static reader serves our generated .pyx files (`load_ours`), so the
parity report compares like with like.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # tests/oracles/..
DEFAULT_CACHE = os.path.join(ROOT, "build", "amd-hip-python")



def _our_modules() -> tuple[str, ...]:
    """The Python modules of every library that has a spec (AMD's HIP Python has the same names)."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from codegen import spec as specmod
    return tuple(specmod.load(lib).python_module for lib in specmod.all_libraries())


MODULES = _our_modules()

# The enum types whose values are a C status code (first element of AMD's tuples).
STATUS_TYPES = frozenset((
    "hipError_t", "hiprtcResult", "hipblasStatus_t", "hipsparseStatus_t", "hipsolverStatus_t",
    "hipfftResult_t", "hipfftResult", "hiprandStatus", "hiprandStatus_t", "ncclResult_t",
))


class NoRelease(LookupError):
    """No AMD HIP Python release exists (or can be fetched) for a ROCm version."""


# -- facts -----------------------------------------------------------------------------------------
@dataclass
class Function:
    name: str
    params: List[Tuple[str, Optional[str]]]          # (name, default source text or None), in order
    param_types: Dict[str, str] = field(default_factory=dict)   # Cython type in the signature ('object', 'int', ...)
    returns: Tuple[int, ...] = ()                     # tuple lengths built by the return statements; -1: not a tuple
    status_first: Optional[bool] = None               # element 0 is a C status (None: no tuple returned)
    first: str = ""        # what element 0 is: 'status', 'synth_status' (a constant success), 'value', 'output', ''
    returned: List[str] = field(default_factory=list)   # names of the returned elements (C parameter names), in order
    # AMD only (from the body): how each argument is converted, how each output is made.
    adapters: Dict[str, str] = field(default_factory=dict)    # param -> 'Pointer', 'ListOfInt', 'enum', 'ihipStream_t', 'int'...
    outputs: Dict[str, str] = field(default_factory=dict)     # returned local -> 'cdef int', 'Pointer.fromPtr', 'hipUUID_t.new'...
    doc_intent: Dict[str, str] = field(default_factory=dict)  # param -> 'IN' | 'OUT' | 'INOUT' (AMD docstrings' *IN* markers)
    c_args: List[str] = field(default_factory=list)           # the names passed to the C function, in C order
    lineno: int = 0

    @property
    def param_names(self) -> List[str]:
        return [p for p, _ in self.params]


@dataclass
class Class:
    name: str
    bases: List[str]
    own: List[str] = field(default_factory=list)      # public members defined in this class body
    members: frozenset = frozenset()                  # own + inherited (bases resolved within the package)
    properties: frozenset = frozenset()               # the members that are properties
    is_enum: bool = False
    lineno: int = 0


@dataclass
class Module:
    name: str
    functions: Dict[str, Function] = field(default_factory=dict)
    classes: Dict[str, Class] = field(default_factory=dict)        # not enums
    enums: Dict[str, Dict[str, Optional[int]]] = field(default_factory=dict)
    constants: Dict[str, object] = field(default_factory=dict)     # value, or None where unknown
    aliases: Dict[str, str] = field(default_factory=dict)          # `hipStream_t = ihipStream_t`: alias -> target
    all: List[str] = field(default_factory=list)                   # __all__, where the module defines one
    imported: Dict[str, str] = field(default_factory=dict)         # `from hip.hip import hipError_t`: name -> module
    values_from: str = ""          # 'runtime' when enum/constant values were read by importing the module
    # ours only: AMD's call form a function also takes (parity_deviations' amd_form), by function
    amd_forms: Dict[str, Function] = field(default_factory=dict)


# -- a small Cython scanner --------------------------------------------------------------------------
_TOKEN = re.compile(r'"""|\'\'\'|"|\'|#|[()\[\]{}]')


def _statements(text: str):
    """Logical statements of a .pyx: (lineno, indent, code, raw).

    `code` has string literals emptied ("...") and comments removed, so brackets
    and keywords can be matched; `raw` is the statement's source text.
    Physical lines join while a bracket or a string is open (or a line ends in '\\').
    """
    lines = text.split("\n")
    out = []
    buf_code: List[str] = []
    buf_raw: List[str] = []
    start = 0
    depth = 0
    quote = ""          # open string delimiter, '' when none
    for i, line in enumerate(lines):
        if not buf_raw:
            start = i
        pos = 0
        code = []
        n = len(line)
        while pos <= n:
            if quote:
                # inside a string: find its end on this line
                j = pos
                while True:
                    k = line.find(quote, j)
                    if k < 0:
                        pos = n + 1
                        break
                    bs = 0
                    while k - 1 - bs >= 0 and line[k - 1 - bs] == "\\":
                        bs += 1
                    if bs % 2 == 0:
                        pos = k + len(quote)
                        code.append(quote)
                        quote = ""
                        break
                    j = k + 1
                if quote and len(quote) == 1:     # an unterminated one-line string: stop at the line end
                    quote = ""
                continue
            m = _TOKEN.search(line, pos)
            if m is None:
                code.append(line[pos:])
                break
            code.append(line[pos:m.start()])
            t = m.group()
            pos = m.end()
            if t == "#":
                break
            if t in ('"""', "'''", '"', "'"):
                code.append(t)
                quote = t
                continue
            code.append(t)
            depth += 1 if t in "([{" else -1
        buf_code.append("".join(code))
        buf_raw.append(line)
        joined = "".join(code).rstrip()
        if quote or depth > 0 or joined.endswith("\\"):
            continue
        depth = 0
        stmt = " ".join(c.strip() for c in buf_code).strip()
        if stmt:
            first = buf_raw[0]
            indent = len(first) - len(first.lstrip(" \t"))
            out.append((start + 1, indent, stmt, "\n".join(buf_raw)))
        buf_code, buf_raw = [], []
    return out


def _split_top(s: str, sep: str = ",") -> List[str]:
    """Split on `sep` outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _matching(s: str, open_at: int) -> int:
    """Index of the bracket closing the one at `open_at`."""
    depth = 0
    for i in range(open_at, len(s)):
        if s[i] in "([{":
            depth += 1
        elif s[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return len(s)


_IDENT = re.compile(r"[A-Za-z_]\w*")


def _parse_params(sig: str, raw_sig: str):
    """'object handle, int n=1' -> ([('handle', None), ('n', '1')], {'handle': 'object', 'n': 'int'})."""
    params, types = [], {}
    if not sig.strip():
        return params, types
    raw_parts = _split_top(raw_sig)
    for idx, part in enumerate(_split_top(sig)):
        part = part.strip()
        if not part or part in ("/", "*"):
            continue
        default = None
        if "=" in part:
            k = part.index("=")
            rp = raw_parts[idx] if idx < len(raw_parts) else part
            default = rp[rp.index("=") + 1:].strip() if "=" in rp else part[k + 1:].strip()
            part = part[:k].strip()
        part = re.sub(r"\s+(not|or)\s+None$", "", part)
        star = ""
        if part.startswith("**"):
            star, part = "**", part[2:]
        elif part.startswith("*"):
            star, part = "*", part[1:]
        names = _IDENT.findall(part)
        if not names:
            continue
        name = names[-1]
        ctype = part[:part.rfind(name)].strip()
        params.append((star + name, default))
        types[star + name] = ctype or "object"
    return params, types


def _returned_name(expr: str) -> str:
    """The C name an element of a returned tuple stands for."""
    e = expr.strip()
    m = re.fullmatch(r"None if (\w+)\._ptr == NULL else (\w+)", e)
    if m:
        return m.group(2)
    m = re.fullmatch(r"[\w.]+\((\w+)\)", e)            # hipStreamCaptureStatus(captureStatus)
    if m:
        return m.group(1)
    m = re.fullmatch(r"\w+", e)
    if m:
        return e
    return e


def _tuple_elements(expr: str) -> Optional[List[str]]:
    """Elements of a returned tuple expression, or None when it is not a tuple."""
    e = expr.strip()
    if not e:
        return None
    if e.startswith("(") and _matching(e, 0) == len(e) - 1:
        inner = e[1:-1]
        parts = _split_top(inner)
        if len(parts) == 1:
            return None if parts[0].strip() else []        # '(x)' is no tuple; '()' is
        if not parts[-1].strip():
            parts = parts[:-1]
        return [p.strip() for p in parts]
    parts = _split_top(e)
    if len(parts) > 1:
        if not parts[-1].strip():
            parts = parts[:-1]
        return [p.strip() for p in parts]
    return None


_DOC_INTENT = re.compile(r"^\s{8}(\w+) \(.*?\) -- \*(IN|OUT|INOUT)\*:", re.M)


def _adapter(name: str, body: str) -> str:
    """How AMD's body converts argument `name` for the C call."""
    m = re.search(r"([\w.]+)\.fromPyobj\(" + re.escape(name) + r"\)", body)
    if m:
        a = m.group(1)
        return a[len("hip._util.types."):] if a.startswith("hip._util.types.") else a
    if re.search(r"\b" + re.escape(name) + r"\.value\b", body):
        return "enum"
    if re.search(r"\b" + re.escape(name) + r"\._ptr\b", body):
        return "ptr"
    return ""


def _output_kind(name: str, body: str) -> str:
    m = re.search(r"\bcdef ([\w. *]+?) " + re.escape(name) + r"\b", body)
    if m:
        return "cdef " + m.group(1).strip()
    m = re.search(r"\b" + re.escape(name) + r" = ([\w.]+)\.(fromPtr|new)\(", body)
    if m:
        a = m.group(1)
        a = a[len("hip._util.types."):] if a.startswith("hip._util.types.") else a
        return f"{a}.{m.group(2)}"
    return ""


def _c_call_args(body: str, cname: str) -> List[str]:
    """The argument names passed to chipX.<cname>(...) in C order ('' where not a plain name)."""
    m = re.search(r"\bc\w+\." + re.escape(cname) + r"\(", body)
    if not m:
        return []
    open_at = m.end() - 1
    inner = body[open_at + 1:_matching(body, open_at)]
    names = []
    for a in _split_top(inner):
        a = a.strip()
        m2 = re.search(r"fromPyobj\((\w+)\)", a)
        if m2:
            names.append(m2.group(1))
            continue
        m2 = re.search(r"&(\w+)(?:\._ptr)?\s*\)*$", a)
        if m2:
            names.append(m2.group(1))
            continue
        m2 = re.search(r"(\w+)\._ptr\s*\)*$", a) or re.search(r"(\w+)\.value$", a) \
            or re.fullmatch(r"(?:<[^>]*>)?\s*(\w+)", a)
        names.append(m2.group(1) if m2 else "")
    return names


def read_pyx(text: str, module: str = "", amd: bool = True) -> Module:
    """Everything one .pyx defines at module level (static reading, no import)."""
    mod = Module(module)
    stmts = _statements(text)
    n = len(stmts)
    i = 0
    enum_bases = set()
    while i < n:
        lineno, indent, code, raw = stmts[i]
        j = i + 1
        while j < n and stmts[j][1] > 0:
            j += 1
        body = stmts[i + 1:j]
        if indent != 0:
            i = j
            continue
        m = re.match(r"(?:cpdef|def)\s+(\w+)\s*\(", code)
        if m and code.startswith("def "):
            _read_function(mod, m.group(1), code, raw, body, lineno, amd)
        m = re.match(r"(?:cdef\s+)?class\s+(\w+)\s*(?:\((.*)\))?\s*:", code)
        if m:
            name, bases = m.group(1), [b.strip() for b in _split_top(m.group(2) or "") if b.strip()]
            cls = Class(name, bases, lineno=lineno)
            _read_class(cls, body)
            if any(b.startswith("enum.") for b in bases):
                enum_bases.add(name)
            if any(b in enum_bases for b in bases):
                cls.is_enum = True
                enum_bases.add(name)
                if not name.startswith("_"):
                    mod.enums[name] = {k: None for k in _class_assignments(body)}
            elif name not in enum_bases:
                mod.classes[name] = cls
        m = re.match(r"(\w+)\s*=\s*(.*)$", code)
        if m and not code.startswith(("def ", "cdef ")):
            lhs, rhs = m.group(1), m.group(2).strip()
            if lhs == "__all__":
                mod.all = [a or b for a, b in re.findall(r'"(\w+)"|\'(\w+)\'', raw)]
            elif re.fullmatch(r"c\w+\.\w+", rhs):                         # chip.hipSuccess: a C constant
                mod.constants[lhs] = None
            elif re.fullmatch(r"\w+", rhs) and (rhs in mod.classes or rhs in mod.enums):
                mod.aliases[lhs] = rhs
            elif re.fullmatch(r"-?\d+|-?0x[0-9a-fA-F]+|-?\d+\.\d*(?:[eE][-+]?\d+)?|\"\"|''", rhs):
                mod.constants[lhs] = _literal(raw.split("=", 1)[1].strip())
            elif rhs.startswith(("'", '"', "b'", 'b"')) and not lhs.startswith("_"):
                mod.constants[lhs] = _literal(raw.split("=", 1)[1].strip())
        m = re.match(r"from\s+hip\.(\w+)\s+c?import\s+(.*)$", code)
        if m and code.startswith("from hip.") and " cimport " not in code:
            for part in _split_top(m.group(2).strip("() ")):
                nm = part.strip().split(" as ")[-1].strip()
                if nm:
                    mod.imported[nm] = m.group(1)
        i = j
    return mod


def _literal(src: str):
    import ast
    try:
        return ast.literal_eval(src)
    except Exception:
        return None


def _class_assignments(body) -> List[str]:
    names = []
    for _, indent, code, _ in body:
        m = re.match(r"(\w+)\s*=", code)
        if m and not m.group(1).startswith("_") and indent == 4:
            names.append(m.group(1))
    return names


def _read_class(cls: Class, body) -> None:
    own, props = [], []
    decorators: List[str] = []
    for _, indent, code, _ in body:
        if indent != 4:
            continue
        if code.startswith("@"):
            decorators.append(code)
            continue
        name = None
        m = re.match(r"def\s+(\w+)\s*\(", code) or re.match(r"cpdef\s+[\w\s.*]*?(\w+)\s*\(", code)
        if m:
            name = m.group(1)
            if any(d == "@property" for d in decorators):
                props.append(name)
            if any(d.endswith((".setter", ".deleter")) for d in decorators):
                name = None        # the property is listed already
        else:
            m = re.match(r"property\s+(\w+)\s*:", code)
            if m:
                name = m.group(1)
                props.append(name)
            else:
                m = re.match(r"(\w+)\s*=", code)
                if m:
                    name = m.group(1)
        decorators = []
        if name and (not name.startswith("_") or (name.startswith("__") and name.endswith("__"))):
            if name not in own:
                own.append(name)
    cls.own = own
    cls.properties = frozenset(props)


def _read_function(mod: Module, name: str, code: str, raw: str, body, lineno: int, amd: bool) -> None:
    open_at = code.index("(")
    close = _matching(code, open_at)
    raw_open = raw.index("(")
    raw_sig = raw[raw_open + 1:_matching(raw, raw_open)]
    params, types = _parse_params(code[open_at + 1:close], raw_sig)
    fn = Function(name, params, types, lineno=lineno)
    body_code = "\n".join(c for _, _, c, _ in body)
    body_raw = "\n".join(r for _, _, _, r in body)
    lengths, first = [], set()
    returned: List[str] = []
    for _, _, c, _ in body:
        m = re.match(r"return\b(.*)$", c)
        if not m:
            continue
        els = _tuple_elements(m.group(1))
        if els is None:
            lengths.append(-1)
            continue
        lengths.append(len(els))
        if not els:
            continue
        if len(els) > len(returned):
            returned = [_returned_name(e) for e in els]
        e0 = els[0]
        n0 = _returned_name(e0)
        if re.fullmatch(r"_\w+__retval", n0):                                # AMD: the C result
            e0 = n0
            mm = re.search(re.escape(e0) + r"\s*=\s*([\w.]+)\(", body_code)
            first.add("status" if mm and mm.group(1) in STATUS_TYPES else "value")
        elif re.fullmatch(r"_status\(\w+\)", e0):                            # ours: the C status
            first.add("status")
        elif (re.fullmatch(r"(\w+)\.\w+", e0) and e0.split(".")[0] in STATUS_TYPES) or e0 == "_SUCCESS":
            first.add("synth_status")                                       # ours: a constant success
        elif re.search(r"(\b_cl|\bc\w+)\." + re.escape(name) + r"\(", body_code) and \
                re.search(r"\b_r\b", e0):                                   # ours: the C result as a value
            first.add("value")
        else:
            first.add("output")
    fn.returns = tuple(sorted(set(lengths)))
    if first:
        fn.first = sorted(first)[0] if len(first) == 1 else "/".join(sorted(first))
        fn.status_first = fn.first in ("status", "synth_status")
    fn.returned = returned
    if amd:
        fn.doc_intent = {m.group(1): m.group(2) for m in _DOC_INTENT.finditer(body_raw)}
        for p, _ in params:
            fn.adapters[p] = _adapter(p, body_code) or types.get(p, "")
        for r in returned:
            if r not in fn.adapters and not r.startswith("_") and re.fullmatch(r"\w+", r):
                fn.outputs[r] = _output_kind(r, body_code)
        fn.c_args = _c_call_args(body_code, name)
    mod.functions[name] = fn


def _resolve_members(modules: Dict[str, Module], extra: Dict[str, Class]) -> None:
    """Class members = own + inherited, bases looked up across the package (hip._util.types.Pointer...)."""
    index: Dict[str, Class] = dict(extra)
    for qual, cls in extra.items():
        index.setdefault(qual.rsplit(".", 1)[-1], cls)
    for mname, mod in modules.items():
        for cname, cls in mod.classes.items():
            index[f"hip.{mname}.{cname}"] = cls
            index.setdefault(cname, cls)

    def members(cls: Class, seen=()) -> set:
        out = set(cls.own)
        for b in cls.bases:
            base = index.get(b) or index.get(b.split(".")[-1])
            if base is not None and base is not cls and base.name not in seen:
                out |= members(base, seen + (cls.name,))
        return out

    def props(cls: Class, seen=()) -> set:
        out = set(cls.properties)
        for b in cls.bases:
            base = index.get(b) or index.get(b.split(".")[-1])
            if base is not None and base is not cls and base.name not in seen:
                out |= props(base, seen + (cls.name,))
        return out

    for cls in list(index.values()):
        cls.members = frozenset(members(cls))
        cls.properties = frozenset(props(cls))


# -- AMD's wheel -----------------------------------------------------------------------------------
class _Source:
    """A wheel (read in place) or an unpacked directory."""

    def __init__(self, path: str):
        self.path = os.path.abspath(path)
        self.zip = zipfile.ZipFile(self.path) if os.path.isfile(self.path) else None
        if self.zip is None and not os.path.isdir(os.path.join(self.path, "hip")):
            raise FileNotFoundError(f"{path}: neither a wheel nor a directory holding hip/")

    def read(self, rel: str) -> Optional[str]:
        if self.zip is not None:
            try:
                return self.zip.read(rel).decode("utf-8")
            except KeyError:
                return None
        p = os.path.join(self.path, rel)
        if not os.path.isfile(p):
            return None
        with open(p, encoding="utf-8") as f:
            return f.read()

    def version(self) -> str:
        if self.zip is not None:
            m = re.match(r"hip_python-([\d.]+)-", os.path.basename(self.path))
            if m:
                return m.group(1)
        text = self.read("hip/_version.py") or ""
        m = re.search(r"""__version__\s*=\s*['"]([^'"]+)""", text) or re.search(r"""['"](\d+\.\d+\.\d+[\d.]*)['"]""", text)
        return m.group(1) if m else ""

    def unpacked(self) -> str:
        """A directory holding hip/ (the wheel is unpacked once, next to it or in a temp dir)."""
        if self.zip is None:
            return self.path
        target = self.path[:-4] if self.path.endswith(".whl") else self.path + ".d"
        if not os.path.isdir(os.path.join(target, "hip")):
            try:
                # a temp dir of its own: parallel test workers may unpack it at the same time
                tmp = tempfile.mkdtemp(prefix=os.path.basename(target) + ".", dir=os.path.dirname(target))
                self.zip.extractall(tmp)
                try:
                    os.rename(tmp, target)
                except OSError:                  # another worker's is there: use that one
                    shutil.rmtree(tmp, ignore_errors=True)
            except OSError:
                target = tempfile.mkdtemp(prefix="amd-hip-python-")
                self.zip.extractall(target)
        return target


def util_types(source: str) -> Dict[str, Class]:
    """The helper classes of AMD's hip._util.types (Pointer, CStr, DeviceArray, ListOfInt, ...)."""
    text = _Source(source).read("hip/_util/types.pyx")
    if text is None:
        return {}
    mod = read_pyx(text, "_util.types")
    classes = {f"hip._util.types.{k}": v for k, v in mod.classes.items()}
    _resolve_members({}, classes)
    return {k.rsplit(".", 1)[1]: v for k, v in classes.items()}


def load(source: str, modules=MODULES, values: bool = True, python: Optional[str] = None) -> Dict[str, Module]:
    """Facts about AMD's modules, from a wheel or its unpacked directory.

    values=True imports the compiled modules in a child interpreter (`python`,
    default this one) to read enumerator and constant values; where that fails
    the values stay None.
    """
    src = _Source(source)
    out: Dict[str, Module] = {}
    for m in modules:
        text = src.read(f"hip/{m}.pyx")
        if text is None:
            continue
        out[m] = read_pyx(text, m, amd=True)
    helpers = {}
    for rel, qual in (("hip/_util/types.pyx", "hip._util.types"), ("hip/_hip_helpers.pyx", "hip._hip_helpers"),
                      ("hip/_hiprtc_helpers.pyx", "hip._hiprtc_helpers")):
        text = src.read(rel)
        if text:
            for k, v in read_pyx(text, qual).classes.items():
                helpers[f"{qual}.{k}"] = v
    _resolve_members(out, helpers)
    if values:
        wheel_py = re.search(r"-cp(\d)(\d+)-", os.path.basename(src.path))
        py = python or sys.executable
        if src.zip is not None and wheel_py and python is None and \
                (sys.version_info.major, sys.version_info.minor) != (int(wheel_py.group(1)), int(wheel_py.group(2))):
            return out          # this interpreter cannot import the wheel's modules
        got = probe(src.unpacked(), list(out), {m: _probe_names(mod) for m, mod in out.items()}, py)
        _apply_probe(out, got)
    return out


def _probe_names(mod: Module) -> dict:
    return {"enums": sorted(mod.enums), "constants": sorted(mod.constants)}


def _apply_probe(out: Dict[str, Module], got: dict) -> None:
    for m, facts in got.items():
        mod = out.get(m)
        if mod is None or "error" in facts:
            continue
        mod.values_from = "runtime"
        for e, members in facts.get("enums", {}).items():
            if e in mod.enums:
                mod.enums[e] = {k: members.get(k) for k in mod.enums[e]} if mod.enums[e] else dict(members)
                for k, v in members.items():          # aliases the class body does not spell out
                    mod.enums[e].setdefault(k, v)
        for c, v in facts.get("constants", {}).items():
            mod.constants[c] = v


_OWN_DIR = r'''
def own_dir(cls):
    """dir(cls) less what `object` gives, keeping what the class overrides (__repr__...)."""
    out = []
    for a in dir(cls):
        try:
            if a in dir(object) and getattr(cls, a) is getattr(object, a):
                continue
        except Exception:
            pass
        if a in ("__doc__", "__module__", "__dict__", "__weakref__", "__slots__", "__init_subclass__",
                 "__subclasshook__", "__new__", "__pyx_vtable__", "__reduce_cython__", "__setstate_cython__"):
            continue
        out.append(a)
    return sorted(out)
'''

_PROBE = r"""
import importlib, json, re, sys, types
root, wanted, OWN_DIR = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
sys.path.insert(0, root)
def members(obj):
    ms = getattr(obj, "__members__", None)
    if ms is None:
        return None
    out = {}
    for k, v in dict(ms).items():
        try:
            out[k] = int(v)
        except Exception:
            out[k] = None
    return out
def plain(v):
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, bytes):
        return v.decode("latin-1")
    try:
        return int(v)
    except Exception:
        return repr(v)
exec(OWN_DIR)
res = {}
for m, names in wanted.items():
    try:
        mod = importlib.import_module("hip." + m)
    except BaseException as e:
        res[m] = {"error": f"{type(e).__name__}: {e}"}
        continue
    if not (getattr(mod, "__file__", "") or "").startswith(root):
        res[m] = {"error": f"imported {mod.__file__}, not from {root}"}
        continue
    enums, consts, classes = {}, {}, {}
    enum_names = names.get("enums") or [k for k, v in vars(mod).items() if isinstance(v, type) and members(v) is not None]
    for k in enum_names:
        v = getattr(mod, k, None)
        if v is not None and members(v) is not None:
            enums[k] = members(v)
    const_names = names.get("constants")
    if const_names is None:
        const_names = [k for k, v in vars(mod).items()
                       if not k.startswith("_") and type(v) in (bool, int, float, str, bytes)]
    for k in const_names:
        if hasattr(mod, k):
            consts[k] = plain(getattr(mod, k))
    for k in names.get("classes", []):
        v = getattr(mod, k, None)
        if isinstance(v, type):
            try:   # ours: a struct class makes its get_<f>/set_<f> accessors with its first instance
                if hasattr(v, "allocate") and not hasattr(v, "_accessors_"):
                    v.allocate()
            except Exception:
                pass
            classes[k] = own_dir(v)
    callables = sorted(k for k, v in vars(mod).items() if callable(v) and not isinstance(v, type) and not k.startswith("_"))
    res[m] = {"enums": enums, "constants": consts, "classes": classes, "callables": callables,
              # public names, and the module's own classes that are underscored (AMD's __all__ lists
              # `__hip_surface`, `_hipError_t__Base`, ...) or are an enum's base class it imports
              "names": sorted(k for k, v in vars(mod).items() if not k.startswith("_") or (
                  isinstance(v, type) and (getattr(v, "__module__", "") == mod.__name__ or re.fullmatch(r"_\w+__Base", k))
                  and not k.startswith("__pyx"))),
              # modules it imported (AMD's `ctypes`, `enum`; hiprtc's hand-written helpers, `ext`)
              "modules": sorted(k for k, v in vars(mod).items() if isinstance(v, types.ModuleType))}
print(json.dumps(res))
"""


def probe(root: str, modules: List[str], names: Optional[dict] = None, python: Optional[str] = None,
          timeout: float = 300) -> dict:
    """Import hip.<m> for each module from the package under `root` in a child interpreter
    (isolated: `-I`, `root` first on sys.path) and return what it finds:
    {module: {"enums": {name: {member: value}}, "constants": {name: value},
              "classes": {name: [dir() names]}, "callables": [...], "names": [...]}}
    or {module: {"error": ...}} where the import fails."""
    wanted = {m: (names or {}).get(m, {}) for m in modules}
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([python or sys.executable, "-I", "-c", _PROBE, root, json.dumps(wanted), _OWN_DIR],
                       capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
    if r.returncode != 0:
        return {m: {"error": (r.stderr or r.stdout).strip()[-2000:]} for m in modules}
    return json.loads(r.stdout.strip().splitlines()[-1])


_PROBE_CLASSES = r"""
import importlib, json, sys
root, names, OWN_DIR = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
sys.path.insert(0, root)
exec(OWN_DIR)
out = {}
for modname in names:
    try:
        mod = importlib.import_module(modname)
    except BaseException as e:
        out[modname] = {"error": f"{type(e).__name__}: {e}"}
        continue
    out[modname] = {k: own_dir(v) for k, v in vars(mod).items() if isinstance(v, type)}
print(json.dumps(out))
"""


def probe_classes(root: str, modules: List[str], python: Optional[str] = None) -> dict:
    """{module: {class: [members]}} for every class in each (fully named) module of the package
    under `root`, imported in a child interpreter; {module: {"error": ...}} where the import fails."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([python or sys.executable, "-I", "-c", _PROBE_CLASSES, root, json.dumps(modules), _OWN_DIR],
                       capture_output=True, text=True, cwd=root, env=env)
    if r.returncode != 0:
        return {m: {"error": (r.stderr or r.stdout).strip()[-2000:]} for m in modules}
    return json.loads(r.stdout.strip().splitlines()[-1])


# -- finding AMD's release -------------------------------------------------------------------------
def _vkey(path: str):
    m = re.match(r"hip_python-([\d.]+)-", os.path.basename(path))
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def find_release(version: str, cache_dir: Optional[str] = None, download: bool = True,
                 python_version: str = "3.11") -> str:
    """The wheel of AMD's `hip-python` for ROCm `version` ('6.4', or '6.4.43484': major.minor counts).

    Looks in `cache_dir` (default <repo>/build/amd-hip-python/) first, else runs
    `pip download --no-deps --only-binary=:all: --python-version 3.11 "hip-python>=X.Y,<X.(Y+1)"`
    into it. Raises NoRelease when PyPI has no such release (or cannot be reached).
    """
    m = re.match(r"(\d+)\.(\d+)", str(version))
    if not m:
        raise ValueError(f"bad ROCm version {version!r}: want major.minor, e.g. '6.4'")
    major, minor = int(m.group(1)), int(m.group(2))
    cache = os.path.abspath(cache_dir or DEFAULT_CACHE)
    tag = "cp" + python_version.replace(".", "")

    def cached():
        hits = [p for p in glob.glob(os.path.join(cache, f"hip_python-{major}.{minor}.*-{tag}-*.whl"))]
        return max(hits, key=_vkey) if hits else None

    hit = cached()
    if hit or not download:
        if hit:
            return hit
        raise NoRelease(f"no AMD release for ROCm {major}.{minor} in {cache} (download disabled)")
    from cache_lock import locked      # parallel test workers download it once
    with locked(cache):
        return cached() or _download(cache, major, minor, python_version, cached)


def _download(cache: str, major: int, minor: int, python_version: str, cached) -> str:
    spec = f"hip-python>={major}.{minor},<{major}.{minor + 1}"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--python-version", python_version, "--dest", cache, "--quiet", spec]
    r = subprocess.run(cmd, capture_output=True, text=True)
    hit = cached()
    if r.returncode != 0 or not hit:
        why = " ".join(l.strip() for l in (r.stderr or r.stdout).splitlines() if "ERROR" in l)[-500:]
        raise NoRelease(f"no AMD release for ROCm {major}.{minor}: `pip download {spec}` found none"
                        + (f" ({why})" if why else ""))
    return hit


def local_release(version: str = "6.4", cache_dir: Optional[str] = None) -> Optional[str]:
    """AMD's release at hand, without downloading: $HIP_PYTHON_AMD_RELEASE (a wheel or an unpacked
    directory), else the newest cached wheel for `version`; None when there is none."""
    p = os.environ.get("HIP_PYTHON_AMD_RELEASE")
    if p:
        return p if os.path.exists(p) else None
    try:
        return find_release(version, cache_dir, download=False)
    except NoRelease:
        return None


def run_released(path: str, code: str, timeout: float = 300, env: Optional[dict] = None) -> subprocess.CompletedProcess:
    """Run Python `code` against AMD's package itself (`path`: its wheel or unpacked directory) in
    an isolated child interpreter (`-I`, the release first on sys.path: our `hip` is never seen).
    Its modules load their libraries on first call only, so no ROCm is needed for the object model."""
    root = _Source(path).unpacked()
    e = dict(os.environ)
    e.pop("PYTHONPATH", None)
    e.update(env or {})
    prog = f"import sys\nsys.path.insert(0, {root!r})\n" + code
    return subprocess.run([sys.executable, "-I", "-c", prog], capture_output=True, text=True, timeout=timeout,
                          cwd=tempfile.gettempdir(), env=e)


# -- our modules -----------------------------------------------------------------------------------
def _fold_forms(mod: Module) -> None:
    """A function taking C's and AMD's call forms is `def f(*args, **kwargs)` over `_f_c` and
    `_f_amd`: f reads as its C form, its AMD form goes to `amd_forms`."""
    for name in list(mod.functions):
        if name in mod.functions and f"_{name}_c" in mod.functions and f"_{name}_amd" in mod.functions:
            c, a = mod.functions.pop(f"_{name}_c"), mod.functions.pop(f"_{name}_amd")
            c.name = a.name = name
            mod.functions[name] = c
            mod.amd_forms[name] = a


def load_ours(hip_dir: Optional[str] = None, modules=MODULES, runtime: bool = True,
              python: Optional[str] = None) -> Dict[str, Module]:
    """The same facts for our generated modules (hip_dir: the package directory holding
    hip.pyx, hipblas.pyx, ...; default <repo>/hip).

    Functions are read statically from the .pyx. With runtime=True the built
    package is imported in a child interpreter (`python`, default this one;
    the package's parent directory first on sys.path): enums, classes (their
    dir()), constants and the names of module-level callables come from there,
    since enums and structs are made at import time (hip/_enum.py, hip/_struct.pyx).
    """
    hip_dir = os.path.abspath(hip_dir or os.path.join(ROOT, "hip"))
    out: Dict[str, Module] = {}
    for m in modules:
        p = os.path.join(hip_dir, f"{m}.pyx")
        if not os.path.isfile(p):
            continue
        with open(p, encoding="utf-8") as f:
            out[m] = read_pyx(f.read(), m, amd=False)
        _fold_forms(out[m])
    if not runtime:
        return out
    got = probe(os.path.dirname(hip_dir), list(out), {m: {} for m in out}, python)
    for m, facts in got.items():
        mod = out[m]
        if "error" in facts:
            raise RuntimeError(f"cannot import our hip.{m} from {hip_dir}: {facts['error']}")
        mod.values_from = "runtime"
        mod.enums = {k: v for k, v in facts["enums"].items() if not k.startswith("_")}
        mod.constants = {k: v for k, v in facts["constants"].items() if k not in mod.enums}
        mod.all = facts["names"]
        mod.classes = {}
    # classes: a second pass, now that the names are known
    cls_names = {m: [n for n in out[m].all if n not in out[m].enums and n not in out[m].constants
                     and n not in out[m].functions] for m in out}
    got = probe(os.path.dirname(hip_dir), list(out), {m: {"enums": [], "constants": [], "classes": cls_names[m]}
                                                       for m in out}, python)
    for m, facts in got.items():
        for k, members in facts.get("classes", {}).items():
            out[m].classes[k] = Class(k, [], own=members, members=frozenset(members))
        out[m].imported = {k: "" for k in facts.get("callables", []) if k not in out[m].functions}
    return out


if __name__ == "__main__":      # python tests/oracles/amd_hip_python.py [WHEEL|DIR|VERSION]: a summary
    arg = sys.argv[1] if len(sys.argv) > 1 else "6.4"
    path = arg if os.path.exists(arg) else find_release(arg)
    facts = load(path)
    print(f"{path} (hip-python {_Source(path).version()})")
    for name, mod in facts.items():
        print(f"  {name:10} {len(mod.functions):5} functions {len(mod.classes):4} classes "
              f"{len(mod.enums):4} enums {len(mod.constants):4} constants  values: {mod.values_from or 'none'}")
