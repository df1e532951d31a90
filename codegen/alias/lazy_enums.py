"""The alias's enum classes (and typedef subclasses) made on first use, not at import.

Creating an enum class is most of `import cuda.bindings.driver` (type.__new__ sets up ~90 slots
over IntEnum's 7-class MRO: ~40% of the module's initialisation, callgrind), yet a program uses a
few of the ~100. `lazy(text)` rewrites a generated Python-layer module (codegen/emit/pylayer.py's
output plus its hand-written end) so that an enum class nothing at module level needs is made on
first use: from outside through the module's `__getattr__` (PEP 562), from the module's own
functions through a C-level accessor per class (Cython's module-global lookups bypass a module
`__getattr__`). Once made, the class is bound in the module under all its names, so identity,
isinstance, pickling and `import *` (which asks for `__all__` first: all are made then) behave as
before. An enum referenced at module level in any other way (a struct field table, a #define
alias, the status helpers, hand-written code) stays eager: only the two call forms below are
rewritten, everything else keeps its class made at import. The same holds for the classes
cuda.bindings has per struct typedef (`CUDA_MEMCPY3D`, subclasses of the struct's class): one
that nothing but another such line refers to is made on first use.
"""
from __future__ import annotations

import re

_DEFINE = re.compile(r"^(\w+) = _enum\.define\('(\w+)', ('[^']*'), __name__, (\"\"\".*?\"\"\")"
                     r"(, signed=True)?(, style='cuda')?\)\n", re.M | re.S)
_ALIAS = re.compile(r"^(\w+) = (\w+)( +#[^\n]*)?\n", re.M)
_DOCS = re.compile(r'""".*?"""', re.S)
# The references a function body makes that an accessor call can replace.
_CALL_FORMS = ("_p.enum_arg(", "_enum.member(")


def lazy(text: str) -> str:
    """`text` with every enum class that only function bodies use, and every typedef subclass
    nothing refers to, made on first use."""
    text, enums = _enums(text)
    text, subclasses = _subclasses(text)
    if not enums and not subclasses:
        return text
    tail = [] if enums else ["cdef dict _lazy_enum_names = {}", "cdef dict _lazy_enum_args = {}"]
    tail.append("cdef dict _lazy_subclass_bases = {" + ", ".join(f"{n!r}: {b!r}" for n, b in subclasses.items()) + "}")
    return text + "\n# -- classes made on first use (codegen/alias/lazy_enums.py) " + "-" * 30 + "\n" \
        + "\n".join(tail) + "\n" + _MAKE


def _enums(text: str) -> tuple[str, bool]:
    """Enum classes that only function bodies use: made on first use."""
    defines = {m.group(1): m for m in _DEFINE.finditer(text) if m.group(1) == m.group(2)}
    names: dict[str, str] = {n: n for n in defines}          # every name of an enum class -> its class
    alias_lines: dict[str, list[re.Match]] = {n: [] for n in defines}
    for m in _ALIAS.finditer(text):
        target = names.get(m.group(2))
        if target is None or names.get(m.group(1), target) != target:
            continue
        names[m.group(1)] = target          # a new name, or the class bound again under one it has
        alias_lines[target].append(m)
    if not names:
        return text, False
    # Which classes are needed at import: any reference but their own definition/alias lines and
    # the call forms inside function bodies. Docstrings are blanked (line structure kept).
    own = {m.start() for ms in alias_lines.values() for m in ms} | {m.start() for m in defines.values()}
    code = _DOCS.sub(lambda m: '""' + "\n" * m.group().count("\n"), text)
    word = re.compile(r"(?<![\w.])(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?!\w)")
    eager = set()
    skip_lines = {text.count("\n", 0, s) for s in own}
    for i, line in enumerate(code.split("\n")):
        if i in skip_lines:
            continue
        for m in word.finditer(line):
            before = line[:m.start()]
            if not (line.startswith(" ") and before.endswith(_CALL_FORMS) and line[m.end():].startswith(",")):
                eager.add(names[m.group(1)])
    lazy_cls = [n for n in defines if n not in eager]
    if not lazy_cls:
        return text, False
    lazy_names = {a: c for a, c in names.items() if c in lazy_cls}
    # Remove their definitions and aliases (from the end: offsets stay valid), then rewrite the calls.
    cut = sorted([defines[n] for n in lazy_cls] + [m for n in lazy_cls for m in alias_lines[n]],
                 key=lambda m: m.start(), reverse=True)
    first = min(m.start() for m in cut)
    for m in cut:
        text = text[:m.start()] + text[m.end():]
    used: set[str] = set()

    def accessor(m: re.Match) -> str:
        used.add(lazy_names[m.group(2)])
        return f"{m.group(1)}_lazy_enum_{lazy_names[m.group(2)]}(),"
    forms = "|".join(re.escape(f) for f in _CALL_FORMS)
    names_rx = "|".join(sorted(map(re.escape, lazy_names), key=len, reverse=True))
    text = re.sub(rf"^( [^\n]*?(?:{forms}))({names_rx}),", accessor, text, flags=re.M)
    block = [_HEADER,
             "cdef dict _lazy_enum_names = {" + ", ".join(f"{a!r}: {c!r}" for a, c in lazy_names.items()) + "}",
             "cdef dict _lazy_enum_args = {"]
    for n in lazy_cls:
        d = defines[n]
        block.append(f"    {n!r}: ({d.group(3)}, {d.group(4)}, {bool(d.group(5))}, "
                     f"{'cuda' if d.group(6) else ''!r}),")
    block.append("}")
    for n in sorted(used):
        block.append(f"cdef object _lazy_enum_{n}_cls = None\n"
                     f"cdef inline object _lazy_enum_{n}():\n"
                     f"    global _lazy_enum_{n}_cls\n"
                     f"    if _lazy_enum_{n}_cls is None:\n"
                     f"        _lazy_enum_{n}_cls = _lazy_enum({n!r})\n"
                     f"    return _lazy_enum_{n}_cls")
    return text[:first] + "\n".join(block) + "\n" + text[first:], True


# cuda.bindings' class per struct typedef (CUDA_MEMCPY3D < CUDA_MEMCPY3D_v2 < CUDA_MEMCPY3D_st):
# lines pylayer.py writes as `X = type('X', (Base,), {...})`.
_SUBCLASS = re.compile(r"^(\w+) = type\('\1', \((\w+),\), \{'__slots__': \(\), '__module__': __name__, "
                       r"'__doc__': \2\.__doc__\}\)\n", re.M)


def _subclasses(text: str) -> tuple[str, dict[str, str]]:
    """Typedef subclasses that only function bodies (as values: `_o0 = X()`, `record_copy(X, ...)`)
    and other such lines (as their base) name: made on first use, the bodies' references through
    a C-level accessor. {name: base} of those."""
    lines = {m.group(1): m for m in _SUBCLASS.finditer(text)}
    if not lines:
        return text, {}
    code = text
    for m in lines.values():     # their own lines do not count
        code = code[:m.start()] + " " * (m.end() - m.start() - 1) + code[m.end() - 1:]
    code = _DOCS.sub(lambda m: '""' + "\n" * m.group().count("\n"), code)
    word = re.compile(r"(?<![\w.])(" + "|".join(sorted(map(re.escape, lines), key=len, reverse=True)) + r")(?!\w)")
    text_lines, eager, body = text.split("\n"), set(), set()
    for i, line in enumerate(code.split("\n")):
        for m in word.finditer(line):
            # A body's reference as a value (outside quotes, not assigned to) can become a call;
            # a line a docstring changed is not rewritten.
            if line.startswith(" ") and line == text_lines[i] and _outside_quotes(line[:m.start()]) \
                    and not re.match(r"\s*(=[^=]|:)", line[m.end():]):
                body.add(i)
            else:
                eager.add(m.group(1))
    todo = list(eager)
    while todo:                  # an eager class's base is needed at import too
        base = lines[todo.pop()].group(2)
        if base in lines and base not in eager:
            eager.add(base)
            todo.append(base)
    made = {n: m.group(2) for n, m in lines.items() if n not in eager}
    if not made:
        return text, {}
    first = text.count("\n", 0, min(lines[n].start() for n in made))   # the accessors go there
    used: set[str] = set()

    def accessor(m: re.Match) -> str:
        if m.group(1) not in made:
            return m.group(0)
        used.add(m.group(1))
        return f"_lazy_subclass_{m.group(1)}()"
    for i in body:
        text_lines[i] = word.sub(lambda m: accessor(m) if _outside_quotes(text_lines[i][:m.start()]) else m.group(0),
                                 text_lines[i])
    accessors = [f"cdef object _lazy_subclass_{n}_cls = None\n"
                 f"cdef inline object _lazy_subclass_{n}():\n"
                 f"    global _lazy_subclass_{n}_cls\n"
                 f"    if _lazy_subclass_{n}_cls is None:\n"
                 f"        _lazy_subclass_{n}_cls = _lazy_subclass({n!r})\n"
                 f"    return _lazy_subclass_{n}_cls" for n in sorted(used)]
    text = "\n".join(text_lines[:first] + accessors + text_lines[first:])
    text = _SUBCLASS.sub(lambda m: "" if m.group(1) in made else m.group(0), text)
    return text, made


def _outside_quotes(before: str) -> bool:
    return before.count("'") % 2 == 0 and before.count('"') % 2 == 0


_HEADER = """\
# Enum classes made on first use (codegen/alias/lazy_enums.py): every name of one -> its class's
# name, and _enum.define's arguments (members, doc, signed, style) per class."""

_MAKE = '''
cdef object _lazy_enum(str name):
    """The enum class `name` (any of its names) stands for, made once and bound under all of them."""
    cls_name = _lazy_enum_names[name]
    g = globals()
    cls = g.get(cls_name)
    if cls is None:
        members, doc, signed, style = _lazy_enum_args[cls_name]
        # setdefault: a thread that made it first wins, so every caller gets the same class
        cls = g.setdefault(cls_name, _enum.define(cls_name, members, __name__, doc, signed, style))
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
