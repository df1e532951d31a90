"""Classes made on first use, not at import: a spec's `conventions.lazy_classes` (the cuda alias).

Creating an enum class is most of `import cuda.bindings.driver` (type.__new__ sets up ~90 slots
over IntEnum's 7-class MRO: ~40% of the module's initialisation, callgrind), yet a program uses a
few of the ~100; the same holds for cuda.bindings' class per struct typedef (CUDA_MEMCPY3D, a
subclass of the struct's class). The emitter (pylayer.py) hands a `LazyClasses` every such class
it would define and every name module-level code refers to (struct field tables, typed tables,
aliases of other classes, the status helpers, the hand-written tail; a field table names an enum
field's class as a string, which hip/_struct.pyx looks up on the field's first read, so a struct
does not make its enums at import); function bodies name these
classes through a C-level accessor (`_cls_<name>()`, common.PyxNames.body_cls), as Cython's
module-global lookups bypass a module `__getattr__`. `resolve()` then keeps the definitions of the
classes needed at import and drops the others, which `block()` makes on first use: from outside
through the module's `__getattr__` (PEP 562), from the module's functions through the accessors
(an eager class's accessor is its module global, as a body named it before).
Once made, a class is bound in the module under all its names, so identity, isinstance, pickling
and `import *` (which asks for `__all__` first: all are made then) behave as before.
"""
from __future__ import annotations

import dataclasses
import re


def accessor(name: str) -> str:
    """How a function body names class `name` (any of its names) of a module with lazy classes."""
    return f"_cls_{name}()"


@dataclasses.dataclass
class Deferred:
    """A line of the module that defines or aliases a lazy-able class: kept where that class is
    needed at import, else dropped (the class is made on first use)."""
    cls: str
    line: str


@dataclasses.dataclass
class _Enum:
    members: str       # _enum.define's arguments
    doc: str
    signed: bool
    style: str
    docs: dict | None   # member name -> its __doc__ (cuda.bindings' member docs; others None)


def _docs_literal(docs: dict | None) -> str:
    """The members' docs as a dict literal (None: the members share the class's doc); braces
    escaped as in docstrings (common.docstring: Cython re-indents its C output for every
    unbalanced brace)."""
    if docs is None:
        return "None"
    items = ", ".join(f"{n!r}: {d!r}" for n, d in docs.items())
    return "{" + items.replace("{", "\\x7b").replace("}", "\\x7d") + "}"


class LazyClasses:
    """What decides which enum classes and typedef subclasses are made at import. Disabled (the
    spec does not opt in: hip.* modules, as AMD's HIP Python), every class is made at import."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.enums: dict[str, _Enum] = {}         # enum class -> its definition
        self.names: dict[str, str] = {}           # every name of an enum class -> its class
        self.bases: dict[str, str] = {}           # typedef subclass -> its base class
        self.needed: set[str] = set()             # names module-level code refers to
        self.body_refs: set[str] = set()          # names function bodies reach through accessors

    # -- what the emitter reports ------------------------------------------------------------
    def enum(self, name: str, members: str, doc: str, signed: bool, style: str, docs: dict | None = None) -> Deferred:
        """The line defining enum class `name` (`_enum.define`'s arguments)."""
        self.enums[name] = _Enum(members, doc, signed, style, docs)
        self.names[name] = name
        s = (", signed=True" if signed else "") + (f", style={style!r}" if style else "") + (
            f", docs={_docs_literal(docs)}" if docs is not None else "")
        return Deferred(name, f'{name} = _enum.define({name!r}, {members!r}, __name__, """{doc}"""{s})')

    def alias(self, name: str, target: str, comment: str = "") -> str | Deferred:
        """`name = target`: another name of an enum class goes with it; any other target is needed."""
        cls = self.names.get(target)
        line = f"{name} = {target}" + (f"   # {comment}" if comment else "")
        if cls is None or self.names.get(name, cls) != cls:   # not an enum's, or rebinds another's name
            self.need(target, name)
            return line
        self.names[name] = cls
        return Deferred(cls, line)

    def subclass(self, name: str, base: str) -> Deferred:
        """cuda.bindings' class per struct typedef: `name`, a subclass of `base`."""
        self.bases[name] = base
        return Deferred(name, f"{name} = type({name!r}, ({base},), "
                              f"{{'__slots__': (), '__module__': __name__, '__doc__': {base}.__doc__}})")

    def need(self, *names: str) -> None:
        """Names module-level code refers to: their classes are made at import."""
        self.needed.update(names)

    def need_words(self, code: str) -> None:
        """Hand-written code appended to the module: every class it names is made at import."""
        self.needed.update(re.findall(r"\w+", code))

    # -- the decision and its text -----------------------------------------------------------
    def lazy(self) -> tuple[set[str], set[str]]:
        """(enum classes, typedef subclasses) made on first use."""
        if not self.enabled:
            return set(), set()
        eager_enums = {self.names[n] for n in self.needed if n in self.names}
        eager_subs = {n for n in self.needed if n in self.bases}
        todo = list(eager_subs)
        while todo:              # an eager subclass's base is needed at import too
            base = self.bases[todo.pop()]
            if base in self.bases and base not in eager_subs:
                eager_subs.add(base)
                todo.append(base)
            elif base in self.names:
                eager_enums.add(self.names[base])
        return set(self.enums) - eager_enums, set(self.bases) - eager_subs

    def resolve(self, out: list) -> list[str]:
        """The module's lines: deferred ones kept where their class is needed at import."""
        enums, subs = self.lazy()
        return [x if isinstance(x, str) else x.line for x in out
                if isinstance(x, str) or x.cls not in enums and x.cls not in subs]

    def block(self) -> list[str]:
        """The accessors function bodies use and, where a class is lazy, the tables and module
        `__getattr__`/`__dir__` that make it on first use ([] where neither is wanted)."""
        enums, subs = self.lazy()
        names = {a: c for a, c in self.names.items() if c in enums}
        out = []
        if enums or subs:
            out += ["# -- classes made on first use (codegen/emit/lazy.py) " + "-" * 17,
                    "# Every name of a lazy enum class -> its class; _enum.define's arguments (members,",
                    "# doc, signed, style, docs) per class; the base class of each lazy typedef subclass.",
                    "cdef dict _lazy_enum_names = {" + ", ".join(f"{a!r}: {c!r}" for a, c in names.items()) + "}",
                    "cdef dict _lazy_enum_args = {"]
            for n in (n for n in self.enums if n in enums):
                e = self.enums[n]
                out.append(f'    {n!r}: ({e.members!r}, """{e.doc}""", {e.signed}, {e.style!r}, {_docs_literal(e.docs)}),')
            out.append("}")
            out.append("cdef dict _lazy_subclass_bases = {" + ", ".join(
                f"{n!r}: {b!r}" for n, b in self.bases.items() if n in subs) + "}")
            out.append(_MAKE)
        if self.body_refs:
            out.append("# Function bodies' accessors: a class made at import is the module global, as named;")
            out.append("# a lazy one is made on the first call and kept in a C global.")
        for n in sorted(self.body_refs):
            make = "_lazy_enum" if n in names else "_lazy_subclass" if n in subs else None
            if make is None:
                out.append(f"cdef inline object {accessor(n)[:-2]}():\n    return {n}")
                continue
            out.append(f"cdef object _cls_{n}_obj = None\n"
                       f"cdef inline object {accessor(n)[:-2]}():\n"
                       f"    global _cls_{n}_obj\n"
                       f"    if _cls_{n}_obj is None:\n"
                       f"        _cls_{n}_obj = {make}({n!r})\n"
                       f"    return _cls_{n}_obj")
        return out


_MAKE = '''
cdef object _lazy_enum(str name):
    """The enum class `name` (any of its names) stands for, made once and bound under all of them."""
    cls_name = _lazy_enum_names[name]
    g = globals()
    cls = g.get(cls_name)
    if cls is None:
        members, doc, signed, style, docs = _lazy_enum_args[cls_name]
        # setdefault: a thread that made it first wins, so every caller gets the same class
        cls = g.setdefault(cls_name, _enum.define(cls_name, members, __name__, doc, signed, style, docs))
        for n, c in _lazy_enum_names.items():
            if c == cls_name:
                g[n] = cls
    return cls


cdef object _lazy_subclass(str name):
    """The typedef subclass `name` of its base class (made first if it is lazy too)."""
    g = globals()
    cls = g.get(name)
    if cls is None:
        base = g.get(_lazy_subclass_bases[name]) or __getattr__(_lazy_subclass_bases[name])
        cls = g.setdefault(name, type(name, (base,), {'__slots__': (), '__module__': __name__,
                                                      '__doc__': base.__doc__}))
    return cls


def __getattr__(name):
    """A lazy class by any of its names; `import *` asks for `__all__` first: all made then."""
    if name in _lazy_enum_names:
        return _lazy_enum(name)
    if name in _lazy_subclass_bases:
        return _lazy_subclass(name)
    if name == "__all__":
        for n in _lazy_enum_args:
            _lazy_enum(n)
        for n in _lazy_subclass_bases:
            _lazy_subclass(n)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_lazy_enum_names) | set(_lazy_subclass_bases))
'''
