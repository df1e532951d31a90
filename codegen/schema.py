"""The schema machinery every spec uses (library specs: codegen/spec.py; bridge specs:
codegen/bridge/spec.py): a spec class is a dataclass whose fields name the YAML key each is read
from and the shape of its value (`_key`); `read_yaml` checks a file against it (unknown keys,
wrong shapes and missing required keys are errors that name the file and the key) and `build`
makes the instance. An entry written as a mapping may carry `rocm: '>=6'` (`_scoped`).
"""
from __future__ import annotations

import copy
import dataclasses
import os
import re
from typing import NamedTuple

import yaml

SCOPE = "rocm"          # the key that limits an entry to ROCm versions


class SpecError(ValueError):
    """A spec that does not follow the format (the message names the file and the key)."""


# -- shapes -------------------------------------------------------------------------------------
# A value's shape: a type (str, int, bool, object: anything), [shape] (a list of it),
# {type: shape} (a map with keys of that type), {'key': shape, ...} (a map with those keys only),
# ('a', 'b') (one of these strings) or a dataclass whose fields are `_key`s (a map of its keys).
def _check(value, shape, where: str) -> None:
    if value is None:   # `key:` with nothing after it: as if absent
        return
    if dataclasses.is_dataclass(shape):
        _check(value, _schema(shape), where)
    elif isinstance(shape, tuple):
        if value not in shape:
            raise SpecError(f"{where}: expected one of {', '.join(map(repr, shape))}, got {value!r}")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise SpecError(f"{where}: expected a list, got {value!r}")
        for i, v in enumerate(value):
            _check(v, shape[0], f"{where}[{i}]")
    elif isinstance(shape, dict):
        if not isinstance(value, dict):
            raise SpecError(f"{where}: expected a mapping, got {value!r}")
        ((k0, v0),) = shape.items() if len(shape) == 1 and isinstance(next(iter(shape)), type) else ((None, None),)
        for k, v in value.items():
            if k0 is not None:
                if not isinstance(k, k0):
                    raise SpecError(f"{where}: key {k!r} is not a {k0.__name__}")
                _check(v, v0, f"{where}.{k}")
            elif k not in shape:
                raise SpecError(f"{where}: unknown key {k!r} (known: {', '.join(shape)})")
            else:
                _check(v, shape[k], f"{where}.{k}")
    elif shape is not object and (not isinstance(value, shape) or (shape is int and isinstance(value, bool))):
        raise SpecError(f"{where}: expected {shape.__name__}, got {value!r}")


def _key(path: str, shape, required: bool = False) -> dict:
    """Field metadata: read from YAML key `path` ('a.b': key b of mapping a; '': the field's name),
    of this shape."""
    return {"yaml": path, "shape": shape, "required": required}


def key_of(f: dataclasses.Field) -> str:
    """The YAML key a field is read from."""
    return f.metadata["yaml"] or f.name


def _schema(cls) -> dict:
    """The YAML keys a spec may have (nested where a path has dots), from the fields' metadata."""
    out: dict = {}
    for f in dataclasses.fields(cls):
        if "yaml" not in f.metadata:
            continue
        *parents, last = key_of(f).split(".")
        d = out
        for p in parents:
            d = d.setdefault(p, {})
        d[last] = f.metadata["shape"]
    return out


def build(cls, d: dict, **extra):
    """An instance of `cls` from the mapping `d` (checked against `cls`'s schema), each field read
    from its `_key` path, nested dataclasses built in turn; `extra` sets fields (over the YAML's)."""
    kw = {}
    for f in dataclasses.fields(cls):
        if "yaml" not in f.metadata:
            continue
        v = _get(d, key_of(f))
        if v is None:
            continue
        shape = f.metadata["shape"]
        kw[f.name] = build(shape, v) if dataclasses.is_dataclass(shape) else v
    return cls(**{**kw, **extra})


def _get(d: dict, path: str, default=None):
    for p in path.split("."):
        if not isinstance(d, dict) or p not in d:
            return default
        d = d[p]
    return d if d is not None else default


def _parsed(path: str):
    """The YAML document at `path`, parsed once per version of the file (libyaml's parser where
    PyYAML has it): specs are read for every library a generation or a test names. A deep copy,
    as callers edit what they get."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _PARSED:
        with open(path) as f:
            _PARSED[key] = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    return copy.deepcopy(_PARSED[key])


_PARSED: dict = {}


def read_yaml(path: str, cls, what: str = "") -> dict:
    """A spec file's mapping, checked against `cls`'s schema: unknown keys, wrong shapes and
    missing required keys raise SpecError naming the file."""
    d = _parsed(path)
    name = what or os.path.basename(path)
    _check(d, _schema(cls), name)
    missing = [key_of(f) for f in dataclasses.fields(cls)
               if f.metadata.get("required") and _get(d, key_of(f)) is None]
    if missing:
        raise SpecError(f"{name}: missing required key(s) {', '.join(missing)}")
    return d


# -- ROCm version scopes ------------------------------------------------------------------------
_CMP = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def parse_scope(text: str) -> list[tuple[str, tuple[int, ...]]]:
    """'>=5.7,<7' -> [('>=', (5, 7)), ('<', (7,))]; SpecError if malformed."""
    out = []
    for part in str(text).split(","):
        m = re.fullmatch(r"\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)*)\s*", part)
        if not m:
            raise SpecError(f"bad ROCm version range {text!r}: want e.g. '>=6', '<6.2' or '>=5.7,<7'")
        out.append((m.group(1), _version(m.group(2))))
    return out


def in_scope(scope: str, version: str) -> bool:
    """Whether headers of ROCm `version` ('6.4.43484') fall in `scope`. Each bound compares only
    as many components as it has: '<6.2' admits 6.1.x, '>5.7' does not admit 5.7.1."""
    v = _version(re.match(r"\d+(\.\d+)*", version).group(0))
    return all(_CMP[op](v[:len(b)], b) for op, b in parse_scope(scope))


def _scoped(d: dict, cls, where: str, rocm: str | None) -> tuple[dict, dict[str, str]]:
    """`d` without the entries whose `rocm:` excludes `rocm` (None: keep all), and without the
    `rocm` keys; plus {entry: scope} of the entries kept. Entries are the items of list-valued
    keys and the values of map-valued keys (not the fixed keys of a mapping like shared_library)."""
    out, scopes = dict(d), {}
    for f in dataclasses.fields(cls):
        key, shape = (key_of(f) if "yaml" in f.metadata else None), f.metadata.get("shape")
        if key is None or "." in key or key not in d or d[key] is None:
            continue
        is_list = isinstance(shape, list)
        is_map = isinstance(shape, dict) and len(shape) == 1 and isinstance(next(iter(shape)), type)
        if not (is_list or is_map):
            continue
        items = list(enumerate(d[key])) if is_list else list(d[key].items())
        kept = []
        for k, v in items:
            entry = f"{key}[{k}]" if is_list else f"{key}.{k}"
            if isinstance(v, dict) and SCOPE in v:
                scope = v[SCOPE]
                try:
                    parse_scope(scope)
                except SpecError as e:
                    raise SpecError(f"{where}: {entry}: {e}") from None
                v = {a: b for a, b in v.items() if a != SCOPE}
                if rocm is not None and not in_scope(scope, rocm):
                    continue
                scopes[entry] = str(scope)
            kept.append((k, v))
        out[key] = [v for _, v in kept] if is_list else dict(kept)
        if is_list:   # entries keep the index they have in the file
            out[f"_{key}_index"] = [k for k, _ in kept]
    return out, scopes


# -- entries that match nothing -----------------------------------------------------------------
class Unmatched(NamedTuple):
    entry: str      # 'intent_overrides.hipFoo', 'intent_rules[3]', 'defaults.yaml intent_rules[8]'
    why: str

    def __str__(self):
        return f"{self.entry}: {self.why}"
