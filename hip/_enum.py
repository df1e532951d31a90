"""Integer enums for every library: `enum.IntEnum` subclasses, built fast.

Members are `enum.IntEnum` members (so `isinstance(m, enum.IntEnum)`, `str()`,
`repr()`, `format()`, iteration, `E(value)`, `E[name]` and pickling behave as
in AMD's HIP Python, whose enums are IntEnums), but the classes are not made
by `enum.EnumType.__new__`: that costs ~25 us per member (17 ms for hip's 657
members at import). `define` builds the same class state directly: the
attributes EnumType.__new__ would set (`_member_map_`, `_value2member_map_`,
...) and the members as plain class attributes. The per-call paths of the
generated code never go through the enum machinery: results are looked up
with one dict access (`member`), arguments checked by type first.
"""
import enum as _std

_EnumType = getattr(_std, "EnumType", None) or _std.EnumMeta   # EnumType from Python 3.11 on


# class -> its _value2member_map_. Up to Python 3.11 enum.EnumType defines __getattr__, which sends
# every attribute lookup on an enum class down a slow path (~40 ns more); a dict keyed by the class
# does not.
_VALUE_MAPS: dict = {}


class EnumMeta(_EnumType):
    """Metaclass of the generated enums: `E(value)` is one dict lookup for a known value."""

    def __call__(cls, value):
        # Lookup by value only: these classes are never called to create an enum (functional API).
        try:
            return _VALUE_MAPS[cls][value]     # not cls._value2member_map_: see _VALUE_MAPS
        except (KeyError, TypeError):
            return super().__call__(value)

    def __dir__(cls):
        # EnumType's dir() leaves out the class's own methods (Python <= 3.11)
        return sorted(set(super().__dir__()) | {"ctypes_type", "name", "value"})

    def __contains__(cls, value):
        # Python 3.12's rule on every version (3.11 raises TypeError for a non-member): a member, or
        # the value of one.
        if isinstance(value, cls):
            return True
        try:
            return value in cls._value2member_map_
        except TypeError:
            return False


class Enum(_std.IntEnum, metaclass=EnumMeta):
    """Base of every generated enum: an `enum.IntEnum`; `hipError_t.hipSuccess == 0`."""

    @staticmethod
    def ctypes_type():
        """The ctypes type of the C enum (AMD's HIP Python: ctypes.c_uint)."""
        import ctypes   # imported on first use: keeps `import hip.hip` fast
        return ctypes.c_uint

    __hash__ = int.__hash__


def _signed_ctypes_type():
    import ctypes
    return ctypes.c_int


def _repr_format(self, spec):
    """f"{err}" is the repr (cuda.bindings); a number format ('d', 'x') formats the value."""
    return format(repr(self), spec) if not spec or spec[-1:] not in "bcdeEfFgGnoxX%" else int.__format__(self, spec)


def define(name: str, members, module: str, doc: str = "", signed: bool = False, style: str = "",
           docs: dict | None = None) -> type:
    """Create an Enum subclass; aliases (equal values) share a member.

    `members` is ((name, value), ...) or the generator's compact "name value name value" string
    (one string constant per enum keeps the compiled modules small and import fast). `signed`:
    the C enum's underlying type is signed (it has negative values): ctypes_type() is c_int.
    `style='cuda'`: as cuda.bindings' enums, str() and format() give the repr
    (`<CUresult.CUDA_SUCCESS: 0>`) and a value with several names is known by the last.
    `docs`: {member name: its __doc__}: each member has its own, None where it has none (cuda.bindings'
    members); without `docs` the members show the class's.
    """
    # The state EnumType.__new__ would set, in the namespace (the containers are filled by _fill):
    # one class creation, no per-attribute class updates.
    # (_member_type_, _new_member_, _value_repr_, _use_args_, _unhashable_values_ are the base's.)
    v2m = {}
    ns = {"__module__": module, "__doc__": doc or None, "__qualname__": name,
          "_member_names_": [], "_member_map_": {}, "_value2member_map_": v2m, "_hashable_values_": []}
    if signed:
        ns["ctypes_type"] = staticmethod(_signed_ctypes_type)
    if style == "cuda":
        ns["__str__"] = _std.Enum.__repr__
        ns["__format__"] = _repr_format
    cls = type.__new__(EnumMeta, name, (Enum,), ns)
    _VALUE_MAPS[cls] = v2m
    _fill(cls, members, style == "cuda")
    if docs is not None:
        for m in cls._value2member_map_.values():
            m.__doc__ = docs.get(m._name_)
    return cls


def _fill(cls, members, last_name_wins: bool) -> None:
    """Create the members of a new class from ((name, value), ...) or "name value name value"; a value
    named twice is one member (known by its first name, or its last if `last_name_wins`).
    (Replaced below by hip._pointer.enum_fill, the same in C: it writes the class dict directly.)"""
    if isinstance(members, str):
        it = iter(members.split())
        members = [(n, int(v)) for n, v in zip(it, it)]
    v2m, n2m, names = cls._value2member_map_, cls._member_map_, cls._member_names_
    new = int.__new__
    setattr_ = type.__setattr__
    for n, v in members:
        m = v2m.get(v)
        if m is None:
            m = new(cls, v)
            m._name_ = n
            m._value_ = v
            v2m[v] = m
            names.append(n)
        elif last_name_wins:   # the later name of a value is its name (CU_CTX_BLOCKING_SYNC)
            names[names.index(m._name_)] = n
            m._name_ = n
        n2m[n] = m
        setattr_(cls, n, m)
    cls._hashable_values_.extend(v2m)


def member(cls, value: int):
    """The member for a value C returned; an unnamed member if the header did not name it.
    (Replaced below by hip._pointer.enum_member, the same in C: this module stays importable alone.)"""
    m = cls._value2member_map_.get(value)
    return m if m is not None else _unnamed(cls, value)


def _unnamed(cls, value: int):
    m = int.__new__(cls, value)
    m._name_ = f"<unnamed {value}>"
    m._value_ = value
    return m


def check_arg(cls, value) -> int:
    """Validate an enum argument: a member of `cls`, or an int that is one of its values.

    A member of a same-named class of another module is the same C type declared by two headers
    (hipsolver.h repeats hipblas.h's hipblasOperation_t): accepted when the member agrees."""
    if isinstance(value, Enum) and not isinstance(value, cls):
        if not (type(value).__name__ == cls.__name__
                and cls._member_map_.get(value._name_) == int(value)):
            raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}.{value.name}")
    if not isinstance(value, int) or isinstance(value, bool):   # True is no enumerator (it would be 1)
        raise TypeError(f"expected {cls.__name__} or int, got {type(value).__name__}")
    if value not in cls._value2member_map_:
        raise ValueError(f"{value} is not a valid {cls.__name__}")
    return int(value)


try:   # the compiled lookup and fill (read the class's own dict: no EnumType.__getattr__ detour)
    from hip._pointer import enum_member as member, enum_fill as _fill  # noqa: F811
except ImportError:   # hip/_pointer not built (the generator's tests import this module alone)
    pass
