"""Walk a libclang translation unit and build the IR of one library.

Ownership: every declaration belongs to the library whose `owns` path prefix
matches its file best (longest prefix); declarations of other libraries are
recorded in Module.imported, system declarations are resolved to builtins.
"""
from __future__ import annotations

import keyword
import os
import re

import clang.cindex as ci

from . import ir

K = ci.CursorKind
T = ci.TypeKind

_BUILTINS = {
    T.BOOL: "_Bool", T.CHAR_U: "char", T.UCHAR: "unsigned char", T.CHAR16: "char16_t",
    T.CHAR32: "char32_t", T.USHORT: "unsigned short", T.UINT: "unsigned int",
    T.ULONG: "unsigned long", T.ULONGLONG: "unsigned long long", T.CHAR_S: "char",
    T.SCHAR: "signed char", T.WCHAR: "wchar_t", T.SHORT: "short", T.INT: "int",
    T.LONG: "long", T.LONGLONG: "long long", T.FLOAT: "float", T.DOUBLE: "double",
    T.LONGDOUBLE: "long double", T.HALF: "__fp16",
    T.UINT128: "unsigned __int128", T.INT128: "__int128",
}


# C identifiers that Python or Cython reserve get a trailing underscore (PEP 8's convention).
_RESERVED = set(keyword.kwlist) | {"cdef", "cpdef", "ctypedef", "struct", "union", "enum", "include",
                                   "api", "nogil", "gil", "extern", "public", "readonly", "inline",
                                   "sizeof", "NULL", "by", "cimport", "DEF", "IF", "ELIF", "ELSE", "print", "exec"}


def safe(name: str) -> str:
    return name + "_" if name in _RESERVED else name


def clean_comment(raw: str | None) -> str:
    """Doxygen comment -> plain docstring text."""
    if not raw:
        return ""
    lines = []
    for line in raw.splitlines():
        line = line.strip()
        line = re.sub(r"^(/\*\*<?|/\*!<?|///<?|//!<?|\*/|\*)", "", line).rstrip("*/ ").strip()
        lines.append(line)
    text = "\n".join(lines).strip()
    text = re.sub(r"[@\\](brief|details)\s*", "", text)
    text = re.sub(r"[@\\]param\s*(\[[a-z, ]+\])?\s*", "param ", text)
    text = re.sub(r"[@\\](returns?|retval)\b", "Returns:", text)
    return re.sub(r"\n{3,}", "\n\n", text)


class Builder:
    def __init__(self, library: str, include_root: str | list[str], owners: dict[str, str],
                 defined_by_deps: set[str] | None = None, types_only: set[str] = frozenset(),
                 system_records: set[str] = frozenset()):
        """owners: path prefix (relative to include_root, or to the first of several roots that
        holds the file: stand-in headers of the project beside the installed ones) -> library name.

        defined_by_deps: names the dependencies' modules define. A declaration in a
        dependency's files that the dependency itself does not define (hipComplex seen only
        through hipblas.h) is adopted: this library defines it.

        system_records: tags of system headers' structs that the library's structs embed by
        value (amd-smi's `struct timespec`): adopted too, their fields of the system's typedefs
        (`__time_t`) spelled as the builtin types they are."""
        self.defined_by_deps = defined_by_deps
        self.types_only = types_only
        self.system_records = set(system_records)
        self.library = library
        self.roots = [os.path.realpath(r) for r in ([include_root] if isinstance(include_root, str) else include_root)]
        self.owners = sorted(owners.items(), key=lambda kv: -len(kv[0]))
        self.module: ir.Module | None = None
        self._seen: set[str] = set()
        self._anon_names: dict[str, str] = {}   # record/enum usr -> synthetic or typedef name
        self._records: dict[str, ir.Record] = {}
        self._macro_values: dict[str, int | float] = {}

    # -- ownership ---------------------------------------------------------
    def rel(self, cursor) -> str | None:
        f = cursor.location.file
        if f is None:
            return None
        path = os.path.realpath(f.name)
        root = next((r for r in self.roots if path.startswith(r + os.sep)), None)
        return os.path.relpath(path, root) if root else None

    def owner(self, cursor) -> str | None:
        rel = self.rel(cursor)
        if rel is None:
            return None
        for prefix, lib in self.owners:
            if rel == prefix or rel.startswith(prefix):
                if prefix in self.types_only and cursor.kind in (K.FUNCTION_DECL, K.MACRO_DEFINITION):
                    return None   # another project's functions (rocRAND's, under hipRAND's types)
                return lib
        return None

    # -- types -------------------------------------------------------------
    def decl_name(self, decl) -> str:
        """Tag name, typedef name for `typedef struct {..} X`, or a synthetic name."""
        usr = decl.get_usr()
        if usr in self._anon_names:
            return self._anon_names[usr]
        if self._is_anon(decl) and not decl.spelling:
            return self._anon_names.setdefault(usr, f"_anon_{len(self._anon_names)}")
        if decl.is_anonymous() or "(unnamed" in decl.spelling or "(anonymous" in decl.spelling:
            return self._anon_names.setdefault(usr, f"_anon_{len(self._anon_names)}")
        return decl.spelling

    def ctype(self, t) -> ir.CType:
        const = t.is_const_qualified()
        k = t.kind
        if k == T.ELABORATED:
            inner = self.ctype(t.get_named_type())
            inner.const = inner.const or const
            return inner
        if k == T.VOID:
            return ir.CType("void", "void", const)
        if k in _BUILTINS:
            return ir.CType("builtin", _BUILTINS[k], const)
        if k == T.POINTER:
            pointee = t.get_pointee()
            if pointee.kind in (T.FUNCTIONPROTO, T.FUNCTIONNOPROTO):
                return self._funcptr(pointee, const)
            return ir.CType("pointer", const=const, pointee=self.ctype(pointee))
        if k in (T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VECTOR, T.EXTVECTOR):
            n = t.element_count if k != T.INCOMPLETEARRAY else 0
            return ir.CType("array", const=const, pointee=self.ctype(t.element_type), count=max(n, 0))
        if k == T.TYPEDEF:
            decl = t.get_declaration()
            # Skip typedefs that just re-name their own record/enum tag (typedef struct X X).
            under = decl.underlying_typedef_type
            if under.kind == T.ELABORATED:
                under = under.get_named_type()
            if under.kind in (T.RECORD, T.ENUM):
                tag = under.get_declaration()
                if self.decl_name(tag) == decl.spelling:
                    return ir.CType("record" if under.kind == T.RECORD else "enum", decl.spelling, const)
            return ir.CType("typedef", decl.spelling, const)
        if k == T.RECORD:
            return ir.CType("record", self.decl_name(t.get_declaration()), const)
        if k == T.ENUM:
            return ir.CType("enum", self.decl_name(t.get_declaration()), const)
        if k in (T.FUNCTIONPROTO, T.FUNCTIONNOPROTO):
            return self._funcptr(t, const)
        raise ValueError(f"unsupported type {t.spelling!r} ({k})")

    def param_type(self, t) -> ir.CType:
        """A parameter declared as an array (`const float* const x[]`) is a pointer, as in C."""
        ct = self.ctype(t)
        if ct.kind == "array":
            return ir.CType("pointer", const=ct.const, pointee=ct.pointee)
        return ct

    def _funcptr(self, proto, const) -> ir.CType:
        params = [self.ctype(a) for a in proto.argument_types()] if proto.kind == T.FUNCTIONPROTO else []
        return ir.CType("funcptr", const=const, result=self.ctype(proto.get_result()), params=params,
                        variadic=proto.kind == T.FUNCTIONPROTO and proto.is_function_variadic())

    # -- declarations ------------------------------------------------------
    def top_level(self, cursor):
        """Top-level declarations, looking through extern "C" blocks."""
        for c in cursor.get_children():
            if c.kind in (K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                yield from self.top_level(c)
            else:
                yield c

    def build(self, tus, headers, version, language) -> ir.Module:
        """The IR of this library from parsed translation units (clang_parse.parse), one per
        header of `headers`: a declaration several of them include is seen once. Public to
        other front ends (codegen.bridge.cuda_ir builds CUDA's IR with it)."""
        m = self.module = ir.Module(self.library, list(headers), version, language)
        decls = [c for tu in tus for c in self.top_level(tu.cursor)]
        # Pass 1: name anonymous records/enums after the typedef that names them.
        for c in decls:
            if c.kind == K.TYPEDEF_DECL:
                u = c.underlying_typedef_type
                if u.kind == T.ELABORATED:
                    u = u.get_named_type()
                if u.kind in (T.RECORD, T.ENUM):
                    d = u.get_declaration()
                    if d.is_anonymous() or "(unnamed" in d.spelling or "(anonymous" in d.spelling or not d.spelling:
                        self._anon_names.setdefault(d.get_usr(), c.spelling)
        macros = []
        for c in decls:
            owner = self.owner(c)
            if owner is None:
                continue
            if owner != self.library:
                name = c.spelling if c.kind in (K.TYPEDEF_DECL, K.FUNCTION_DECL) else self.decl_name(c)
                adopt = self.defined_by_deps is not None and name not in self.defined_by_deps and \
                    c.kind in (K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL)
                if not adopt:
                    if c.spelling and c.kind in (K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL):
                        m.imported.setdefault(name, owner)
                    continue
            elif self.defined_by_deps and c.kind in (K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL) \
                    and (c.spelling if c.kind == K.TYPEDEF_DECL else self.decl_name(c)) in self.defined_by_deps:
                continue   # a dependency's type declared again (rocblas-types.h's hipStream_t): the dependency's
            if c.kind == K.FUNCTION_DECL:
                self.function(c)
            elif c.kind in (K.STRUCT_DECL, K.UNION_DECL):
                self.record(c)
            elif c.kind == K.ENUM_DECL:
                self.enum(c)
            elif c.kind == K.TYPEDEF_DECL:
                self.typedef(c)
            elif c.kind == K.MACRO_DEFINITION:
                macros.append(c)
        for c in macros:   # last: a cast to a typedef (`((CUstream)0x1)`) needs the typedefs known
            self.macro(c)
        m.records = list(self._records.values())
        return m

    def _once(self, key) -> bool:
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def function(self, c):
        if c.linkage != ci.LinkageKind.EXTERNAL or not self._once("f:" + c.spelling):
            return
        params = [ir.Param(safe(a.spelling) if a.spelling else f"arg{i}", self.param_type(a.type))
                  for i, a in enumerate(c.get_arguments())]
        dep = ""
        if c.availability == ci.AvailabilityKind.DEPRECATED:
            dep = f"{c.spelling} is deprecated"
        self.module.functions.append(ir.Function(
            c.spelling, self.ctype(c.result_type), params, self.rel(c),
            variadic=c.type.kind == T.FUNCTIONPROTO and c.type.is_function_variadic(),
            deprecated=dep, comment=clean_comment(c.raw_comment)))

    def record(self, c, name: str | None = None):
        name = name or self.decl_name(c)
        if not c.is_definition():
            if name not in self._records and self._once("r:" + name):
                self._records[name] = ir.Record(name, "union" if c.kind == K.UNION_DECL else "struct",
                                                [], -1, -1, self.rel(c), c_name=self._c_name(c, name))
            return
        if name in self._records and self._records[name].size >= 0:
            return
        self._seen.add("r:" + name)
        rec = ir.Record(name, "union" if c.kind == K.UNION_DECL else "struct", [],
                        c.type.get_size(), c.type.get_align(), self.rel(c),
                        c_name=self._c_name(c, name), anonymous=name.startswith("_anon_") or self._is_anon(c),
                        comment=clean_comment(c.raw_comment))
        self._records[name] = rec
        nested = {}
        keys, counts = {}, {"struct": 0, "union": 0}
        for f in c.get_children():
            if f.kind in (K.STRUCT_DECL, K.UNION_DECL) and f.is_definition():
                nested[f.get_usr()] = f
                kind = "union" if f.kind == K.UNION_DECL else "struct"
                if self._is_anon(f):
                    keys[f.get_usr()] = f"{kind}_{counts[kind]}"
                    counts[kind] += 1
                else:
                    keys[f.get_usr()] = f.spelling
            elif f.kind == K.FIELD_DECL:
                if f.access_specifier in (ci.AccessSpecifier.PRIVATE, ci.AccessSpecifier.PROTECTED):
                    rec.public = False
                ft = f.type
                under = ft.get_named_type() if ft.kind == T.ELABORATED else ft
                base = under
                while base.kind in (T.CONSTANTARRAY, T.ELABORATED):   # `struct cache_ {..} cache[10]`
                    base = base.element_type if base.kind == T.CONSTANTARRAY else base.get_named_type()
                if base.kind == T.RECORD and self.rel(base.get_declaration()) is None \
                        and base.get_declaration().spelling in self.system_records:
                    self.record(base.get_declaration())
                if base.kind == T.RECORD and base.get_declaration().get_usr() in nested:
                    d = base.get_declaration()
                    if self._is_anon(d):
                        self._anon_names[d.get_usr()] = f"{name}_{f.spelling}_{'union' if d.kind == K.UNION_DECL else 'struct'}"
                    self.record(d)
                    nested.pop(d.get_usr())
                    sub = self._records.get(self.decl_name(d))
                    if sub is not None and not sub.parent:
                        sub.parent, sub.nested_key = name, keys[d.get_usr()]
                if not f.spelling:   # C11 anonymous member: lift its fields
                    continue
                width = f.get_bitfield_width() if f.is_bitfield() else -1
                system = self.rel(c) is None   # an adopted system struct: its typedefs are the system's
                rec.fields.append(ir.Field(f.spelling, self.ctype(ft.get_canonical() if system else ft),
                                           f.get_field_offsetof(), width, extent=self._extent(f)))
        for d in nested.values():  # anonymous members with no field name: fields lifted into the parent
            sub_name = f"{name}_anon{len(rec.fields)}"
            self.record(d, sub_name)
            sub = self._records.pop(sub_name)
            rec.lifted_union = rec.lifted_union or sub.kind == "union"
            for sf in sub.fields:  # clang looks through anonymous members for offsets
                rec.fields.append(ir.Field(sf.name, sf.type, c.type.get_offset(sf.name), sf.bit_width, lifted=True,
                                           extent=sf.extent))
        rec.fields.sort(key=lambda f: f.offset_bits) if rec.kind == "struct" else None
        if not rec.fields and not any(f.kind == K.FIELD_DECL for f in c.get_children()):
            # `struct miopenHandle {};` (MIOpen's MIOPEN_DECLARE_OBJECT): nothing to bind but its
            # name, so it is opaque as a declaration is, and pointers to it are handles
            rec.size = rec.align = -1
        if self._is_anon(c):   # nested, or named only by a typedef (nvrtcBundledHeadersInfo)
            self.module.anonymous_nested.append([rec.kind, name])

    @staticmethod
    def _extent(f) -> str:
        """An array field's extents as its declaration spells them, tokens joined by spaces
        ('8 - sizeof ( CUlaunchAttributeID )'; '16 ] [ 4' for `x[16][4]`); '' where the field is no
        array or its declarator shows none (an array typedef's field)."""
        if f.type.get_canonical().kind != T.CONSTANTARRAY:
            return ""
        toks = [t.spelling for t in f.get_tokens()]
        at = [i for i in range(len(toks) - 1) if toks[i] == f.spelling and toks[i + 1] == "["]
        if not at:
            return ""
        rest = toks[at[-1] + 2:]
        return " ".join(rest[:len(rest) - rest[::-1].index("]") - 1] if "]" in rest else rest)

    @staticmethod
    def _is_anon(c) -> bool:
        """No tag of its own (`struct {..}`), even when a typedef names it."""
        if c.is_anonymous() or not c.spelling or "(unnamed" in c.spelling or "(anonymous" in c.spelling:
            return True
        toks = [t for t, _ in zip(c.get_tokens(), range(2))]
        return not (len(toks) == 2 and toks[1].kind == ci.TokenKind.IDENTIFIER)

    def _c_name(self, c, name) -> str:
        """How C source spells the type: 'struct tag' / 'union tag', the typedef name, or '' (unnameable)."""
        if not self._is_anon(c):
            return f"{'union' if c.kind == K.UNION_DECL else 'struct'} {c.spelling}"
        if self._nested(c) or name.startswith("_anon_"):
            return ""
        return name   # typedef struct {..} name

    @staticmethod
    def _nested(c) -> bool:
        p = c.semantic_parent
        return p is not None and p.kind in (K.STRUCT_DECL, K.UNION_DECL)

    def enum(self, c):
        name = self.decl_name(c)
        if not c.is_definition() or not self._once("e:" + name):
            return
        anon = name.startswith("_anon_")
        constants = [e for e in c.get_children() if e.kind == K.ENUM_CONSTANT_DECL]
        self.module.enums.append(ir.Enum(
            name, [ir.Enumerator(e.spelling, e.enum_value, clean_comment(raw))
                   for e, raw in zip(constants, self._own_comments(c, constants))],
            self.rel(c), anonymous=anon,
            c_name="" if anon else (f"enum {c.spelling}" if not self._is_anon(c) else name),
            underlying=_BUILTINS.get(c.enum_type.get_canonical().kind, "int"),
            comment=clean_comment(c.raw_comment)))

    def _own_comments(self, enum, constants) -> list[str | None]:
        """Each enumerator's raw comment where it is its own: before it (after the enumerator
        before it), or a trailing `/**<` one after it (before the next): libclang also gives an
        enumerator with none the comment of the one before (CU_FUNC_ATTRIBUTE_MAX)."""
        out = []
        ends = [e.extent.end.line for e in constants]
        starts = [e.extent.start.line for e in constants[1:]] + [enum.extent.end.line]
        for i, e in enumerate(constants):
            raw = e.raw_comment
            if raw:
                lines = self._lines(e.location.file.name)
                text = raw.strip()
                before = "\n".join(lines[(ends[i - 1] if i else enum.extent.start.line):ends[i]])
                after = "\n".join(lines[e.extent.start.line - 1:starts[i]])
                if not (text in before or text[:4] in ("/**<", "///<", "/*!<", "//!<") and text in after):
                    raw = None
            out.append(raw)
        return out

    def _lines(self, path: str) -> list[str]:
        cache = self.__dict__.setdefault("_source_lines", {})
        if path not in cache:
            with open(path, encoding="utf-8", errors="replace") as f:
                cache[path] = f.read().splitlines()
        return cache[path]

    def typedef(self, c):
        u = c.underlying_typedef_type
        t = self.ctype(u)
        # typedef struct X X / typedef struct {..} X: the record/enum carries the name.
        if t.kind in ("record", "enum") and t.name == c.spelling:
            return
        if not self._once("t:" + c.spelling):
            return
        self.module.typedefs.append(ir.Typedef(c.spelling, t, self.rel(c), clean_comment(c.raw_comment)))

    def macro(self, c):
        toks = [t.spelling for t in c.get_tokens()][1:]
        if not toks or c.spelling.startswith("_") or self.is_function_like(c):
            return
        if len(toks) == 1 and re.fullmatch(r"[A-Za-z_]\w*", toks[0]) and toks[0] != c.spelling \
                and toks[0] not in self._macro_values:   # `#define A B` of a constant B: A is a constant too
            self.module.aliases.setdefault(c.spelling, toks[0])  # kept only if the target is bound
            return
        value = self.eval_macro(toks)
        if value is not None and self._once("m:" + c.spelling):
            self._macro_values[c.spelling] = value
            self.module.macros.append(ir.Macro(c.spelling, value, self.rel(c)))

    @staticmethod
    def is_function_like(c) -> bool:
        toks = list(c.get_tokens())
        return len(toks) > 1 and toks[1].spelling == "(" and \
            toks[1].extent.start.offset == toks[0].extent.end.offset

    def _typedef_casts(self) -> dict[str, str]:
        """Typedef name -> the _CAST_TYPES spelling a cast to it means, for pointer and integer typedefs."""
        cached = getattr(self, "_typedef_casts_cache", None)
        if cached and cached[0] == len(self.module.typedefs):
            return cached[1]
        named = {t.name: t.type for t in self.module.typedefs}
        out = {}
        for name in named:
            t, seen = named[name], 0
            while t.kind == "typedef" and t.name in named and seen < 16:
                t, seen = named[t.name], seen + 1
            if t.kind == "pointer":
                out[name] = "void *"
            elif t.kind == "builtin" and t.name in _CAST_TYPES:
                out[name] = t.name
        self._typedef_casts_cache = (len(self.module.typedefs), out)
        return out

    def eval_macro(self, toks):
        """Numeric or string literal expressions, possibly naming earlier macros, with C casts to
        integer and pointer types (`((int)-1)`, `((void*)0x01)`): an `(int)` cast wraps to 32 bits."""
        if len(toks) == 1 and toks[0].startswith('"'):
            return toks[0][1:-1].encode().decode("unicode_escape")
        # A cast to a typedef is a cast to what it names: a pointer (`((CUstream)0x1)`,
        # CU_STREAM_LEGACY) or an integer (`((CUdevice)-1)`, CU_DEVICE_CPU).
        toks = _casts_as_calls(toks, self._typedef_casts())
        if toks is None:
            return None
        out = []
        for t in toks:
            if t in _CASTS:
                out.append(t)
            elif re.fullmatch(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*", t):
                out.append(str(int(t.rstrip("uUlL"), 0)))
            elif re.fullmatch(r"(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fF]?", t):
                out.append(t.rstrip("fF"))
            elif t in ("(", ")", "|", "&", "<<", ">>", "+", "-", "*", "~", "^"):
                out.append(t)
            elif t in self._macro_values:
                out.append(repr(self._macro_values[t]))
            else:
                return None
        try:
            v = eval(" ".join(out), {"__builtins__": {}}, dict(_CASTS))  # only literals, operators and casts
        except Exception:
            return None
        return v if isinstance(v, (int, float)) else None


def _wrap(bits: int, signed: bool):
    def cast(v):
        if not isinstance(v, int):
            raise TypeError("integer casts only")
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >> (bits - 1) else v
    return cast


# C casts a macro may apply (the type's tokens joined by spaces); their values as C converts them.
_CAST_TYPES = {"int": _wrap(32, True), "unsigned int": _wrap(32, False), "unsigned": _wrap(32, False),
               "long": _wrap(64, True), "unsigned long": _wrap(64, False), "long long": _wrap(64, True),
               "unsigned long long": _wrap(64, False), "short": _wrap(16, True), "unsigned short": _wrap(16, False),
               "char": _wrap(8, True), "unsigned char": _wrap(8, False), "size_t": _wrap(64, False),
               "int32_t": _wrap(32, True), "uint32_t": _wrap(32, False), "int64_t": _wrap(64, True),
               "uint64_t": _wrap(64, False), "void *": _wrap(64, False), "uintptr_t": _wrap(64, False)}
_CASTS = {f"_cast{i}": f for i, f in enumerate(_CAST_TYPES.values())}
_CAST_NAME = {t: f"_cast{i}" for i, t in enumerate(_CAST_TYPES)}


def _casts_as_calls(toks: list[str], typedef_casts=None) -> list[str] | None:
    """`( int ) - 1` -> `_castN ( - 1 )`: a cast applies to the unary expression after it.
    None when a parenthesised type is not one of _CAST_TYPES (not a constant we can evaluate);
    `typedef_casts`: typedef name -> the _CAST_TYPES spelling a cast to it means."""
    typedef_casts = typedef_casts or {}
    out: list[str] = []
    i = 0
    while i < len(toks):
        if toks[i] == "(":
            j = i + 1
            while j < len(toks) and toks[j] != ")" and re.fullmatch(r"[A-Za-z_]\w*|\*", toks[j]):
                j += 1
            words = toks[i + 1:j]
            if j < len(toks) and toks[j] == ")" and words and not any(
                    re.fullmatch(r"\d\w*", w) for w in words) and (words[0] in _TYPE_WORDS
                                                                 or words == [words[0]] and words[0] in typedef_casts):
                name = _CAST_NAME.get(typedef_casts.get(words[0]) if words == [words[0]] and words[0] in typedef_casts
                                      else " ".join(words))
                if name is None:
                    return None
                # the operand: unary operators, then a primary (literal, name or parenthesised group)
                k = j + 1
                while k < len(toks) and toks[k] in ("-", "+", "~"):
                    k += 1
                if k >= len(toks):
                    return None
                if toks[k] == "(":
                    depth, m = 0, k
                    while m < len(toks):
                        depth += toks[m] == "("
                        depth -= toks[m] == ")"
                        if depth == 0:
                            break
                        m += 1
                    end = m + 1
                else:
                    end = k + 1
                inner = _casts_as_calls(toks[j + 1:end], typedef_casts)
                if inner is None:
                    return None
                out += [name, "("] + inner + [")"]
                i = end
                continue
        out.append(toks[i])
        i += 1
    return out


_TYPE_WORDS = {"int", "unsigned", "signed", "long", "short", "char", "void", "size_t", "int32_t", "uint32_t",
               "int64_t", "uint64_t", "uintptr_t"}
