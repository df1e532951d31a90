"""Fast integer enums: one implementation for every library.

Members are `int` subclasses (usable wherever C wants the number), looked up
by value with one dict access. IntEnum's machinery is what made calls slow in
other bindings (cuda-python measured enum construction at 160-280 ns/call).
"""
from __future__ import annotations


class EnumMeta(type):
    def __call__(cls, value):
        try:
            return cls._value2member_[value]
        except (KeyError, TypeError):
            pass
        if isinstance(value, cls):
            return value
        raise ValueError(f"{value!r} is not a valid {cls.__name__}")

    def __iter__(cls):
        return iter(cls._members_)

    def __len__(cls):
        return len(cls._members_)

    def __getitem__(cls, name):
        return cls._name2member_[name]

    def __contains__(cls, value):
        return value in cls._value2member_ if not isinstance(value, str) else value in cls._name2member_

    def __repr__(cls):
        return f"<enum {cls.__name__!r}>"

    @property
    def __members__(cls):
        return dict(cls._name2member_)


class Enum(int, metaclass=EnumMeta):
    """Base of every generated enum; `hipError_t.hipSuccess == 0`."""
    _value2member_: dict = {}
    _name2member_: dict = {}
    _members_: tuple = ()

    @property
    def name(self) -> str:
        return self._name_

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name_}: {int(self)}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name_}"

    def __reduce__(self):
        return type(self), (int(self),)

    __hash__ = int.__hash__


def define(name: str, members, module: str, doc: str = "") -> type:
    """Create an Enum subclass; aliases (equal values) share a member.

    `members` is ((name, value), ...) or the generator's compact "name value name value" string
    (one string constant per enum keeps the compiled modules small and import fast).
    """
    if isinstance(members, str):
        it = iter(members.split())
        members = [(n, int(v)) for n, v in zip(it, it)]
    cls = EnumMeta(name, (Enum,), {"__module__": module, "__doc__": doc or None})
    v2m, n2m, uniq = {}, {}, []
    for n, v in members:
        m = v2m.get(v)
        if m is None:
            m = int.__new__(cls, v)
            m._name_ = n
            v2m[v] = m
            uniq.append(m)
        n2m[n] = m
        setattr(cls, n, m)
    cls._value2member_, cls._name2member_, cls._members_ = v2m, n2m, tuple(uniq)
    return cls


def member(cls, value: int):
    """The member for a value C returned; an unnamed member if the header did not name it."""
    m = cls._value2member_.get(value)
    if m is None:
        m = int.__new__(cls, value)
        m._name_ = f"<unnamed {value}>"
    return m


def check_arg(cls, value) -> int:
    """Validate an enum argument: a member of `cls`, or an int that is one of its values.

    A member of a same-named class of another module is the same C type declared by two headers
    (hipsolver.h repeats hipblas.h's hipblasOperation_t): accepted when the member agrees."""
    if isinstance(value, Enum) and not isinstance(value, cls):
        if not (type(value).__name__ == cls.__name__
                and cls._name2member_.get(value._name_) == int(value)):
            raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}.{value.name}")
    if not isinstance(value, int):
        raise TypeError(f"expected {cls.__name__} or int, got {type(value).__name__}")
    if value not in cls._value2member_:
        raise ValueError(f"{value} is not a valid {cls.__name__}")
    return int(value)
