"""The intermediate representation: plain dataclasses, dumpable to JSON.

Parsing fills these from libclang; analysis passes annotate them (parameter
intent, skips); emitters only read them.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Optional, Union


@dataclass
class CType:
    """A reference to a C type, as written in a declaration.

    kind: 'void', 'builtin' (name is the C spelling, e.g. 'unsigned int'),
    'typedef', 'record' (struct/union by tag), 'enum', 'pointer', 'array',
    'funcptr' (a function prototype; pointee-less, see result/params).
    """
    kind: str
    name: str = ""
    const: bool = False
    pointee: Optional["CType"] = None   # pointer target, array element
    count: int = 0                      # array length (0: unknown, e.g. T[])
    result: Optional["CType"] = None    # funcptr
    params: list["CType"] = field(default_factory=list)  # funcptr
    variadic: bool = False              # funcptr


@dataclass
class Field:
    name: str
    type: CType
    offset_bits: int                    # from libclang's record layout
    bit_width: int = -1                 # -1: not a bitfield
    lifted: bool = False                # a member of an anonymous struct/union member (C11), lifted into this record
    extent: str = ""                    # an array's extents as the header spells them, tokens spaced ('8 - sizeof ( E )')


@dataclass
class Record:
    """A struct or union. Anonymous nested records get a synthetic name."""
    name: str                           # tag or synthetic name (Outer_field_union)
    kind: str                           # 'struct' | 'union'
    fields: list[Field]
    size: int                           # bytes; -1 for opaque (incomplete) records
    align: int
    file: str
    c_name: str = ""                    # how C code names it ('struct X', 'X'); '' if anonymous
    anonymous: bool = False
    comment: str = ""
    public: bool = True                 # False: a C++ class with private/protected fields (no field table)
    # A record declared inside another: the enclosing record's name, and this one's key there: its
    # tag, or `union_<i>`/`struct_<i>` for the i-th anonymous union/struct (AMD's HIP Python names
    # nested records <outer>_<key>: hipResourceDesc_union_0_struct_1).
    parent: str = ""
    nested_key: str = ""
    lifted_union: bool = False          # the members of an anonymous union member are lifted into it


@dataclass
class Enumerator:
    name: str
    value: int
    comment: str = ""


@dataclass
class Enum:
    name: str                           # typedef or tag name; synthetic for anonymous
    constants: list[Enumerator]
    file: str
    anonymous: bool = False             # anonymous enums become module constants
    c_name: str = ""
    underlying: str = "int"
    comment: str = ""


@dataclass
class Typedef:
    name: str
    type: CType
    file: str
    comment: str = ""


@dataclass
class Param:
    name: str
    type: CType
    # Filled by analysis (codegen/intent.py):
    intent: str = "in"                  # in | out | inout
    shape: str = "scalar"               # see spec.SHAPES (scalar, array, string, number, ...)
    comment: str = ""


@dataclass
class Function:
    name: str
    result: CType
    params: list[Param]
    file: str
    variadic: bool = False
    deprecated: str = ""                # message, or '' when not deprecated
    comment: str = ""
    skip: str = ""                      # reason when not bound


@dataclass
class Macro:
    name: str
    value: Union[int, float, str]
    file: str


@dataclass
class Module:
    """Everything one library's headers declare that the library owns."""
    library: str
    headers: list[str]
    version: str                 # of the headers: ROCm's, or CUDA's (api)
    language: str
    api: str = "ROCm"             # whose headers: "ROCm", or "CUDA" (the NVIDIA layer, the alias)
    enums: list[Enum] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    typedefs: list[Typedef] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    macros: list[Macro] = field(default_factory=list)
    # `#define hipGetDeviceProperties hipGetDevicePropertiesR0600`: alias -> target name.
    aliases: dict[str, str] = field(default_factory=dict)
    # Spec overrides for functions these headers lack (reported, so typos stay visible).
    unused_overrides: list[str] = field(default_factory=list)
    # Declarations owned by other libraries that this one refers to: name -> library.
    imported: dict[str, str] = field(default_factory=dict)
    # Every anonymous record (declared inside another, or named only by a typedef), in the order
    # their definitions end (inner ones first), those whose fields were lifted into the parent (no
    # record of their own) included: [kind, name]. cuda.bindings numbers them so (anon_struct<i>).
    anonymous_nested: list[list[str]] = field(default_factory=list)

    def anonymous_names(self) -> dict[str, str]:
        """cuda.bindings' name of each anonymous nested record that is a record of its own:
        anon_struct<i>/anon_union<i>, numbered per kind in `anonymous_nested` order (lifted ones
        take their number, as in cuda.bindings, and have no class) -> the record's name."""
        count = {"struct": 0, "union": 0}
        kept = {r.name for r in self.records}
        out = {}
        for kind, name in self.anonymous_nested:
            if name in kept:
                out[f"anon_{kind}{count[kind]}"] = name
            count[kind] += 1
        return out

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1, sort_keys=True)
