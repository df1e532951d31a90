"""Type questions over the IR of a library and the libraries it depends on.

Resolves typedef chains, classifies types for the intent rules, and spells
types in Cython syntax. `declarator` is the one C/Cython declarator speller
(the Cython spelling here and the NVIDIA layer's C spelling differ only in how
they spell type names).

Public to codegen/nvidia, codegen/alias and codegen/bridge: TypeIndex (resolve, is_handle,
is_enum, tclass, cy, enum_of, enum_named, record_of, number_layout, the
records/enums/typedefs/enumerators dicts) and `declarator`.
"""
from __future__ import annotations

from typing import Callable

from . import ir

# System typedefs Cython knows from its libc declarations (the generated modules cimport them).
_CYTHON_STD = {"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t",
               *(f"{s}int{n}_t" for s in ("", "u") for n in (8, 16, 32, 64))}
_NUMERIC = {"_Bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
            "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float",
            "double", "long double", "char16_t", "char32_t", "wchar_t", "_Float16", "__fp16"}
# Sizes of number types on the LP64 ABIs the bindings and the NVIDIA layer target (x86-64, aarch64).
_SIZES = {"_Bool": 1, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2,
          "int": 4, "unsigned int": 4, "long": 8, "unsigned long": 8, "long long": 8,
          "unsigned long long": 8, "float": 4, "double": 8, "long double": 16, "size_t": 8, "ssize_t": 8,
          "ptrdiff_t": 8, "intptr_t": 8, "uintptr_t": 8, "__fp16": 2, "_Float16": 2,
          **{f"{s}int{n}_t": n // 8 for s in ("", "u") for n in (8, 16, 32, 64)}}
_FLOATS = {"float", "double", "long double", "__fp16", "_Float16"}


def declarator(t: ir.CType, name: str, base: Callable[[ir.CType], str], funcptr_suffix: str = "") -> str:
    """The declaration of `name` (may be '': a type name) with type `t`, in C declarator syntax.

    Pointers, const pointers, arrays, pointers to arrays and function pointers are
    spelled here; `base(t)` spells the innermost named type (builtin, void, typedef,
    record, enum) without const, which is what differs between languages: Cython's
    `bint` and module-qualified names (TypeIndex.cy), the NVIDIA layer's `hipabi_`
    prefix (codegen.bridge.convert). `funcptr_suffix` follows a function
    pointer's parameter list (Cython: ' noexcept nogil')."""
    if t.kind == "pointer":
        inner = t.pointee
        if inner.kind == "array":
            return declarator(inner, f"(*{name})", base, funcptr_suffix)
        return declarator(inner, f"* const {name}".rstrip() if t.const else f"*{name}", base, funcptr_suffix)
    if t.kind == "array":
        return declarator(t.pointee, f"{name}[{t.count or ''}]", base, funcptr_suffix)
    if t.kind == "funcptr":
        args = ", ".join(declarator(p, "", base, funcptr_suffix) for p in t.params) or "void"
        if t.variadic:
            args += ", ..."
        return f"{declarator(t.result, '', base, funcptr_suffix)} (*{name})({args}){funcptr_suffix}"
    const = "const " if t.const else ""
    return f"{const}{base(t)} {name}".rstrip() if name else f"{const}{base(t)}"


class TypeIndex:
    def __init__(self, module: ir.Module, deps: list[ir.Module] = (), handles=(), nullable=()):
        self.module = module
        self.void_handles = set(handles)   # `typedef void* hipblasHandle_t`: opaque by the spec's word
        self.nullable = set(nullable)      # handle types a NULL is valid for (specs' nullable_handles)
        # How handle classes are named (spec conventions.handle_classes): 'tag', after the struct
        # (HIP Python's ihipStream_t), or 'typedef', one class per typedef (cuda.bindings' CUstream).
        self.handle_classes = "tag"
        self.owner: dict[str, str] = {}
        self.typedefs: dict[str, ir.Typedef] = {}
        self.records: dict[str, ir.Record] = {}
        self.enums: dict[str, ir.Enum] = {}
        self.enumerators: dict[str, ir.Enum] = {}   # enumerator name -> its enum
        for m in list(deps) + [module]:
            for t in m.typedefs:
                self.typedefs[t.name] = t
                self.owner[t.name] = m.library
            for r in m.records:
                self.records[r.name] = r
                self.owner[r.name] = m.library
            for e in m.enums:
                self.enums[e.name] = e
                self.owner[e.name] = m.library
                for k in e.constants:
                    self.enumerators[k.name] = e

    def resolve(self, t: ir.CType) -> ir.CType:
        """Follow typedefs to the underlying type (const-ness of the outer kept)."""
        seen = 0
        while t.kind == "typedef" and t.name in self.typedefs and seen < 32:
            const = t.const
            t = self.typedefs[t.name].type
            if const and not t.const:
                t = ir.CType(**{**t.__dict__, "const": True})
            seen += 1
        return t

    def is_handle(self, t: ir.CType) -> bool:
        """A typedef naming a pointer to a struct: hipStream_t, hipEvent_t, hipblasHandle_t."""
        if t.kind != "typedef":
            return False
        if t.name in self.void_handles:
            return True
        r = self.resolve(t)
        return r.kind == "pointer" and self.resolve(r.pointee).kind == "record"

    def is_enum(self, t: ir.CType, name: str) -> bool:
        """Whether t is the enum `name` denotes, itself or through a typedef (hiprandStatus_t)."""
        r = self.resolve(t)
        return bool(name) and r.kind == "enum" and r.name in (name, self.resolve(ir.CType("typedef", name)).name)

    def tclass(self, t: ir.CType) -> str:
        """The type class the intent rules match on (see specs/defaults.yaml)."""
        const = "const " if t.const else ""
        if self.is_handle(t):   # a `typedef void* X` the spec lists under handles: is a vhandle
            return f"{const}{'v' if t.name in self.void_handles else ''}handle:{t.name}"
        r = self.resolve(t)
        if r.kind == "typedef" and r.name in _CYTHON_STD:   # system typedef: a number
            return f"{const}scalar:{r.name}"
        if r.kind in ("pointer", "array"):
            return f"{const}{'ptr' if r.kind == 'pointer' else 'array'}({self.tclass(r.pointee)})"
        if r.kind == "void" or (r.kind == "builtin" and r.name == "char"):
            return f"{const}{r.name or 'void'}"
        if r.kind == "builtin":
            return f"{const}scalar:{(t.name if t.kind == 'typedef' else r.name).replace(' ', '_')}"
        if r.kind == "funcptr":
            return f"{const}funcptr:{t.name if t.kind == 'typedef' else ''}"
        return f"{const}{r.kind}:{r.name}"   # enum:NAME, record:NAME

    # -- what a type is, through typedefs -------------------------------------------
    def enum_of(self, t: ir.CType) -> ir.Enum | None:
        """The enum `t` denotes, itself or through typedefs; None for other types."""
        r = self.resolve(t)
        return self.enums.get(r.name) if r.kind == "enum" else None

    def enum_named(self, name: str) -> ir.Enum | None:
        """The enum a type name denotes: the enum's own name, or a typedef of it
        (hiprandStatus_t -> enum hiprandStatus; CUresult -> enum cudaError_enum)."""
        return self.enum_of(ir.CType("typedef" if name in self.typedefs else "enum", name))

    def record_of(self, t: ir.CType) -> ir.Record | None:
        """The struct or union `t` denotes, itself or through typedefs; None for other types."""
        r = self.resolve(t)
        return self.records.get(r.name) if r.kind == "record" else None

    def number_layout(self, t: ir.CType) -> tuple[int, bool] | None:
        """(size in bytes, is floating point) of a number type on LP64, through typedefs
        (size_t, int64_t and the C builtins); None for other types (enums included)."""
        r = self.resolve(t)
        if r.kind in ("builtin", "typedef") and r.name in _SIZES:
            return _SIZES[r.name], r.name in _FLOATS
        return None

    # -- Cython spelling ---------------------------------------------------
    def cy(self, t: ir.CType, name: str = "", q=None) -> str:
        """Cython declaration of `name` with type `t` (name may be '').

        `q(owner_library, name)` qualifies library-owned type names (e.g. 'c.hipStream_t')."""
        return declarator(t, name, lambda b: self._cy_base(b, q), " noexcept nogil")

    def _cy_base(self, t: ir.CType, q) -> str:
        base = {"_Bool": "bint", "__fp16": "unsigned short", "_Float16": "unsigned short"}.get(t.name, t.name) \
            if t.kind == "builtin" else t.name
        if q is not None and t.kind in ("typedef", "record", "enum") and t.name in self.owner:
            base = q(self.owner[t.name], base)
        return base

    def is_numeric(self, t: ir.CType) -> bool:
        r = self.resolve(t)
        return (r.kind == "builtin" and r.name in _NUMERIC) or (r.kind == "typedef" and r.name in _CYTHON_STD)

    def is_unsigned(self, t: ir.CType) -> bool:
        r = self.resolve(t)
        name = r.name if r.kind == "builtin" else (t.name if t.kind == "typedef" else r.name)
        if r.kind == "typedef":
            name = r.name
        return name.startswith(("unsigned", "uint")) or name in ("size_t", "uintptr_t", "_Bool", "char16_t",
                                                                  "char32_t", "__fp16", "_Float16")

    def is_float(self, t: ir.CType) -> bool:
        r = self.resolve(t)
        return r.kind == "builtin" and r.name in ("float", "double", "long double")

    def system_typedef(self, name: str) -> bool:
        return name in _CYTHON_STD
