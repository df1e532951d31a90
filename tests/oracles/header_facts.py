"""Reference facts about the ROCm headers, derived independently of codegen/.

Everything here walks libclang cursors directly (clang.cindex), with its own
rules, so the tests compare the generator's output against a second reading
of the same headers rather than against the generator's own IR. From codegen it
borrows only `builtin_include_dir()` (where the compiler's stddef.h lives: the
PyPI libclang wheel has no resource headers) and, from the specs, what a spec is
the source of truth for: the libraries, each one's headers, the include folders
(or files) it owns, the language its headers parse as and the macros they are
compiled with (amd-smi's CPU functions are declared only under ENABLE_ESMI_LIB,
MIOpen's beta API under MIOPEN_BETA_API). Which library a
declaration belongs to is decided here (`Library.owns`), not by codegen.

Values (sizes, offsets, enumerator and macro values) never come from here:
the tests print them from a C program compiled with gcc (C++ with g++ for
hiprand.h, which only parses as C++).
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

import clang.cindex as ci

from codegen import spec as specmod
from codegen.clang_parse import builtin_include_dir

K = ci.CursorKind
T = ci.TypeKind


@dataclass(frozen=True)
class Library:
    name: str
    headers: tuple[str, ...]     # the headers the library is generated from
    language: str                # hiprand.h needs C++ (__half is C++-only outside a HIP compiler)
    defines: tuple[str, ...]     # the macros the library's users compile its headers with
    functions_of: tuple[tuple[str, str], ...]   # (path prefix, library) of every spec's `owns`
    types_of: tuple[tuple[str, str], ...]       # the same with every spec's `owns_types`

    @staticmethod
    def _owner(table, rel: str) -> str | None:
        """The library of the longest prefix of `rel` in the table (hip/ vs hip/hiprtc.h)."""
        best = max((p for p, _ in table if rel.startswith(p)), key=len, default=None)
        return dict(table)[best] if best is not None else None

    def owns(self, rel: str) -> bool:
        """Whether the library's functions and macros include a declaration in header `rel`."""
        return self._owner(self.functions_of, rel) == self.name

    def types(self, rel: str) -> bool:
        """The same for records, enums and typedefs: hipRAND's handles are rocRAND's types."""
        return self._owner(self.types_of, rel) == self.name


def names() -> list[str]:
    """Every library that has a spec, in dependency order."""
    return specmod.all_libraries()


@functools.lru_cache(maxsize=None)
def library(name: str) -> Library:
    specs = [specmod.load(n) for n in names()]
    own = tuple((p, s.library) for s in specs for p in s.owns)
    this = specmod.load(name)
    return Library(name, tuple(this.headers), this.language, tuple(this.defines), own,
                   own + tuple((p, s.library) for s in specs for p in s.owns_types))


def include_lines(name: str) -> str:
    """`#include <...>` of every header of the library, after its macros, for the tests' C programs."""
    lib = library(name)
    macros = "".join(f"#ifndef {d.partition('=')[0]}\n#define {d.replace('=', ' ', 1)}\n#endif\n"
                     for d in lib.defines)
    return macros + "".join(f"#include <{h}>\n" for h in lib.headers)


def available(include: str, name: str) -> bool:
    """Whether the include dir has the library's headers."""
    return all(os.path.isfile(os.path.join(include, h)) for h in library(name).headers)


class HeaderError(RuntimeError):
    pass


@functools.lru_cache(maxsize=None)
def translation_unit(include: str, header: str, language: str = "c", defines: tuple[str, ...] = ()) -> ci.TranslationUnit:
    lang = ["-x", "c", "-std=c11"] if language == "c" else ["-x", "c++", "-std=c++17"]
    macros = [f"-D{d}" for d in dict.fromkeys(("__HIP_PLATFORM_AMD__", *defines))]
    args = lang + macros + [f"-I{include}", "-isystem", builtin_include_dir()]
    tu = ci.Index.create().parse(os.path.join(include, header), args=args,
                                 options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
                                 | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise HeaderError(f"{header}: " + "; ".join(d.spelling for d in errors[:5]))
    return tu


def _rel(cursor, include: str) -> str | None:
    f = cursor.location.file
    if f is None:
        return None
    return _rel_path(f.name, include)


@functools.lru_cache(maxsize=None)
def _rel_path(name: str, include: str) -> str | None:
    root = os.path.realpath(include) + os.sep
    path = os.path.realpath(name)
    return path[len(root):] if path.startswith(root) else None


def _top(cursor, c_linkage=False):
    """Top-level declarations, with whether each sits inside `extern "C"` (C++ mode)."""
    for c in cursor.get_children():
        if c.kind == K.LINKAGE_SPEC:
            yield from _top(c, True)
        elif c.kind == K.UNEXPOSED_DECL:
            yield from _top(c, c_linkage)
        else:
            yield c, c_linkage


def _top_decls(include: str, name: str):
    """Top-level cursors of every header of the library (each header's own translation unit;
    a declaration several of them see comes from the first)."""
    lib = library(name)
    seen = set()
    for header in lib.headers:
        for c, c_linkage in _top(translation_unit(include, header, lib.language, lib.defines).cursor):
            key = (c.kind, c.spelling, _rel(c, include), c.location.line)
            if key not in seen:
                seen.add(key)
                yield c, c_linkage


def owned_decls(include: str, name: str, types: bool = False):
    """Declarations of library `name` (types=True: the records/enums it defines)."""
    lib = library(name)
    owns = lib.types if types else lib.owns
    for c, c_linkage in _top_decls(include, name):
        rel = _rel(c, include)
        if rel is not None and owns(rel):
            if lib.language != "c" and c.kind == K.FUNCTION_DECL and not c_linkage:
                continue   # C++ linkage: a mangled name no dlsym finds
            yield c


# -- functions -------------------------------------------------------------------------------
@dataclass
class ParamFact:
    """One parameter, classified from C's own types (for the intent tests)."""
    name: str
    spelling: str                # the C type as written
    pointer: bool                # a pointer (or array) parameter
    const: bool                  # a pointer to const
    pointee: str                 # what a pointer points at: int | float | complex | record | enum |
                                 # handle (a typedef of a pointer: hipblasHandle_t) | pointer | void | other
    pointee_name: str = ""       # the pointee as written (typedef name, record name)


@dataclass
class FunctionFact:
    name: str
    nparams: int
    deprecated: bool
    file: str
    params: list[ParamFact] = field(default_factory=list)


_INTS = {T.BOOL, T.CHAR_U, T.UCHAR, T.CHAR16, T.CHAR32, T.USHORT, T.UINT, T.ULONG, T.ULONGLONG, T.CHAR_S,
         T.SCHAR, T.WCHAR, T.SHORT, T.INT, T.LONG, T.LONGLONG}
_FLOATS = {T.FLOAT, T.DOUBLE}


def _classify(t) -> str:
    """The kind of a pointee type (see ParamFact.pointee)."""
    s = _strip(t)
    if s.kind == T.TYPEDEF and s.get_canonical().kind == T.POINTER:
        return "handle"
    c = t.get_canonical()
    if c.kind in _INTS:
        return "int"
    if c.kind in _FLOATS:
        return "float"
    if c.kind == T.ENUM:
        return "enum"
    if c.kind == T.POINTER:
        return "pointer"
    if c.kind == T.VOID:
        return "void"
    if c.kind == T.RECORD:
        fields = [f.type.get_canonical().kind for f in c.get_fields()]
        if len(fields) == 2 and fields[0] == fields[1] and fields[0] in _FLOATS:
            return "complex"   # {float x, y} / {double real, imag}: hipblasComplex, hipComplex, ...
        return "record"
    return "other"


def _param(a) -> ParamFact:
    t = a.type
    s = _strip(t)
    c = t.get_canonical()
    if c.kind in (T.POINTER, T.CONSTANTARRAY, T.INCOMPLETEARRAY):
        pt = c.get_pointee() if c.kind == T.POINTER else c.element_type
        # the pointee as written (keeps typedef names: hipblasHandle_t*)
        written = s.get_pointee() if s.kind == T.POINTER else (
            s.element_type if s.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY) else pt)
        if written.kind == T.INVALID:
            written = pt
        return ParamFact(a.spelling, t.spelling, True, pt.is_const_qualified(), _classify(written),
                         _strip(written).spelling.replace("const ", ""))
    return ParamFact(a.spelling, t.spelling, False, False, "", "")


@functools.lru_cache(maxsize=None)
def functions(include: str, library: str) -> dict[str, FunctionFact]:
    """Exported functions: C function declarations with external linkage, deduplicated by name."""
    out: dict[str, FunctionFact] = {}
    for c in owned_decls(include, library):
        if c.kind != K.FUNCTION_DECL or c.linkage != ci.LinkageKind.EXTERNAL:
            continue
        dep = c.availability == ci.AvailabilityKind.DEPRECATED or any(
            a.kind == K.UNEXPOSED_ATTR and "deprecated" in " ".join(t.spelling for t in a.get_tokens())
            for a in c.get_children())
        prev = out.get(c.spelling)
        args = list(c.get_arguments())
        out[c.spelling] = FunctionFact(c.spelling, len(args), dep or (prev.deprecated if prev else False),
                                       _rel(c, include), [_param(a) for a in args])
    return out


# -- records ---------------------------------------------------------------------------------
def _strip(t):
    while t.kind == T.ELABORATED:
        t = t.get_named_type()
    return t


def _base_record(t):
    """The record declaration of a field type (None for non-records and arrays of records)."""
    t = _strip(t)
    if t.kind == T.RECORD:
        return t.get_declaration()
    return None


def _tagged(decl) -> bool:
    """`struct tag {...}` (True) or `struct {...}` (False): from the type's C spelling ("struct tag"),
    or in C++ (where the spelling is the bare name) from the declaration's own tokens."""
    if re.fullmatch(r"(struct|union|enum) [A-Za-z_]\w*", decl.type.spelling):
        return True
    toks = [t.spelling for _, t in zip(range(2), decl.get_tokens())]
    return len(toks) == 2 and toks[0] in ("struct", "union", "enum") and toks[1] == decl.spelling


@dataclass
class FieldPath:
    c_path: str                  # member designator for offsetof: "res.array.array"
    names: list[str]             # each Python attribute on the way (anonymous members skipped)
    bitfield: int = -1           # bit width, -1 when not a bitfield


@dataclass
class RecordFact:
    c_name: str                  # how C names it: "struct tag" or the typedef name
    py_names: list[str]          # tag and typedef names (each must be a class in the module)
    kind: str                    # struct | union
    fields: list[FieldPath] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)   # c paths of named members of anonymous record type


def _fields(decl, c_prefix: str, names: list[str], rec: RecordFact):
    children = list(decl.get_children())
    referenced = set()
    for f in children:
        if f.kind == K.FIELD_DECL:
            d = _base_record(f.type)
            if d is not None:
                referenced.add(d.get_usr())
    for f in children:
        if f.kind in (K.STRUCT_DECL, K.UNION_DECL) and f.is_definition() and f.get_usr() not in referenced \
                and not _tagged(f):
            _fields(f, c_prefix, names, rec)   # C11 anonymous member: its fields are the parent's
        elif f.kind == K.FIELD_DECL:
            path = c_prefix + f.spelling
            if f.is_bitfield():
                rec.fields.append(FieldPath(path, names + [f.spelling], f.get_bitfield_width()))
                continue
            rec.fields.append(FieldPath(path, names + [f.spelling]))
            d = _base_record(f.type)
            if d is not None and not _tagged(d) and d.is_definition():
                rec.nested.append(path)
                _fields(d, path + ".", names + [f.spelling], rec)


def _typedef_names(decls, kind) -> dict[str, list[str]]:
    """USR of a record (kind RECORD) or enum (ENUM) -> the typedef names the declarations give it."""
    out: dict[str, list[str]] = {}
    for c in decls:
        if c.kind == K.TYPEDEF_DECL:
            u = _strip(c.underlying_typedef_type)
            if u.kind == kind:
                out.setdefault(u.get_declaration().get_usr(), []).append(c.spelling)
    return out


@functools.lru_cache(maxsize=None)
def records(include: str, library: str) -> dict[str, RecordFact]:
    """Complete structs/unions that C can name (a tag or a typedef), keyed by C spelling."""
    decls = list(owned_decls(include, library, types=True))
    typedef_names = _typedef_names(decls, T.RECORD)
    found: dict[str, RecordFact] = {}

    def visit(c):
        if c.kind not in (K.STRUCT_DECL, K.UNION_DECL) or not c.is_definition():
            return
        names = typedef_names.get(c.get_usr(), [])
        if _tagged(c):
            c_name = c.type.spelling
            py = [c.spelling] + [n for n in names if n != c.spelling]
        elif names:
            c_name, py = names[0], list(names)
        else:
            return
        if c.type.get_size() < 0:
            return
        rec = RecordFact(c_name, py, "union" if c.kind == K.UNION_DECL else "struct")
        _fields(c, "", [], rec)
        found.setdefault(c_name, rec)
        for sub in c.get_children():     # C hoists nested tagged definitions to file scope
            if sub.kind in (K.STRUCT_DECL, K.UNION_DECL) and _tagged(sub):
                visit(sub)

    for c in decls:
        visit(c)
    return found


# -- enums -----------------------------------------------------------------------------------
@dataclass
class EnumFact:
    py_name: str | None          # None: anonymous (constants at module level)
    other_names: list[str]
    constants: list[str]


@functools.lru_cache(maxsize=None)
def enums(include: str, library: str) -> list[EnumFact]:
    decls = list(owned_decls(include, library, types=True))
    typedef_names = _typedef_names(decls, T.ENUM)
    out, seen = [], set()
    for c in decls:
        if c.kind != K.ENUM_DECL or not c.is_definition() or c.get_usr() in seen:
            continue
        seen.add(c.get_usr())
        names = typedef_names.get(c.get_usr(), [])
        consts = [e.spelling for e in c.get_children() if e.kind == K.ENUM_CONSTANT_DECL]
        if _tagged(c):
            out.append(EnumFact(c.spelling, [n for n in names if n != c.spelling], consts))
        elif names:
            out.append(EnumFact(names[0], names[1:], consts))
        else:
            out.append(EnumFact(None, [], consts))
    return out


# -- macros ----------------------------------------------------------------------------------
_INT = re.compile(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*")
_OPS = {"(", ")", "|", "&", "<<", ">>", "+", "-", "*", "~", "^"}


def _object_like(c) -> bool:
    toks = list(c.get_tokens())
    return not (len(toks) > 1 and toks[1].spelling == "("
                and toks[1].extent.start.offset == toks[0].extent.end.offset)


@functools.lru_cache(maxsize=None)
def macros(include: str, library: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """(integer constant macros: name -> tokens, identifier aliases: name -> target).

    Integer macros are those made only of integer literals, operators and names
    of other such macros (their values come from gcc, not from here).
    """
    ints: dict[str, list[str]] = {}
    aliases: dict[str, str] = {}
    for c in owned_decls(include, library):
        if c.kind != K.MACRO_DEFINITION or c.spelling.startswith("_") or not _object_like(c):
            continue
        toks = [t.spelling for t in c.get_tokens()][1:]
        if not toks:
            continue
        if len(toks) == 1 and re.fullmatch(r"[A-Za-z_]\w*", toks[0]):
            aliases.setdefault(c.spelling, toks[0])
            continue
        if all(_INT.fullmatch(t) or t in _OPS or t in ints for t in toks):
            ints.setdefault(c.spelling, toks)
    return ints, aliases


# -- names C gives types the library uses ----------------------------------------------------
def _decls_by_name(include: str, library: str) -> dict[str, object]:
    out = {}
    for c, _ in _top_decls(include, library):
        if c.kind == K.TYPEDEF_DECL:
            out.setdefault(c.spelling, c)
        elif c.kind in (K.STRUCT_DECL, K.UNION_DECL) and c.is_definition() and _tagged(c):
            out.setdefault(c.spelling, c)
    return out


def c_type_spelling(include: str, library: str, name: str) -> str | None:
    """How a program including the library's header names the record `name` (a typedef name, or
    `struct name` for a bare C tag); None when its translation unit declares no such type."""
    d = _decls_by_name(include, library).get(name)
    if d is None:
        return None
    return d.spelling if d.kind == K.TYPEDEF_DECL else d.type.spelling


@functools.lru_cache(maxsize=None)
def enum_typedef_aliases(include: str, library: str) -> dict[str, str]:
    """`typedef hipblasOperation_t hipsolverOperation_t`: typedef names of the library whose type is
    an enum through another typedef -> the name of that enum (tag, or its first typedef)."""
    decls = list(owned_decls(include, library, types=True))
    first_name: dict[int, str] = {}
    for c in decls:
        if c.kind == K.ENUM_DECL and c.is_definition() and _tagged(c):
            first_name.setdefault(c.get_usr(), c.spelling)
    for c in decls:
        if c.kind == K.TYPEDEF_DECL:
            u = _strip(c.underlying_typedef_type)
            if u.kind == T.ENUM:
                first_name.setdefault(u.get_declaration().get_usr(), c.spelling)
    out = {}
    for c in decls:
        if c.kind != K.TYPEDEF_DECL or _strip(c.underlying_typedef_type).kind != T.TYPEDEF:
            continue
        canon = c.underlying_typedef_type.get_canonical()
        if canon.kind == T.ENUM:
            target = first_name.get(canon.get_declaration().get_usr())
            if target and target != c.spelling:
                out[c.spelling] = target
    return out
