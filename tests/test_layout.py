"""Struct sizes, field offsets, bitfield placement, enum and macro values equal what C says.

Which records/fields/enumerators/macros to check comes from our own libclang
walk (tests/header_facts.py); every number comes from a C program compiled
with gcc against the same headers the package was built from.
"""
from __future__ import annotations

import keyword

import pytest

import header_facts
from conftest import compile_and_run

PRELUDE = """#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
"""


def _module(lib):
    from hip import hip, hiprtc
    return {"hip": hip, "hiprtc": hiprtc}[lib]


def _py(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _c_records(include, lib):
    recs = list(header_facts.records(include, lib).values())
    if not recs:
        pytest.skip(f"{lib}: the headers define no complete records")
    return recs


@pytest.fixture(scope="module")
def c_layout(include64, tmp_path_factory):
    """{lib: (records, {i: size}, {(i, j): (offset, size)})} printed by gcc-compiled code."""
    out = {}
    for lib in ("hip", "hiprtc"):
        recs = list(header_facts.records(include64, lib).values())
        lines = []
        for i, r in enumerate(recs):
            lines.append(f'printf("S {i} %zu\\n", sizeof({r.c_name}));')
            for j, f in enumerate(r.fields):
                if f.bitfield >= 0:
                    continue
                lines.append(f'printf("F {i} {j} %zu %zu\\n", offsetof({r.c_name}, {f.c_path}), '
                             f'sizeof((({r.c_name}*)0)->{f.c_path}));')
        src = PRELUDE + "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n"
        text = compile_and_run(tmp_path_factory.mktemp(f"layout_{lib}"), src, include64)
        sizes, fields = {}, {}
        for line in text.splitlines():
            parts = line.split()
            if parts[0] == "S":
                sizes[int(parts[1])] = int(parts[2])
            else:
                fields[int(parts[1]), int(parts[2])] = (int(parts[3]), int(parts[4]))
        out[lib] = (recs, sizes, fields)
    return out


def test_header_walk_finds_records(include64):
    recs = header_facts.records(include64, "hip")
    assert len(recs) > 50
    for name in ("dim3", "hipDeviceProp_tR0600", "hipResourceDesc", "hipDeviceArch_t"):
        assert any(name in r.py_names for r in recs.values()), name


@pytest.mark.parametrize("lib", ["hip", "hiprtc"])
def test_struct_sizes(c_layout, lib):
    mod = _module(lib)
    recs, sizes, _ = c_layout[lib]
    if not recs:
        pytest.skip(f"{lib}: the headers define no complete records")
    wrong, missing = [], []
    for i, r in enumerate(recs):
        for n in r.py_names:
            cls = getattr(mod, n, None)
            if cls is None or not hasattr(cls, "_size_"):
                missing.append(n)
            elif cls._size_ != sizes[i]:
                wrong.append(f"{n}: python {cls._size_}, C {sizes[i]}")
    assert missing == [], f"records without a struct class in hip.{lib}: {missing}"
    assert wrong == []


@pytest.mark.parametrize("lib", ["hip", "hiprtc"])
def test_field_offsets_and_sizes(c_layout, lib):
    mod = _module(lib)
    recs, _, fields = c_layout[lib]
    if not recs:
        pytest.skip(f"{lib}: the headers define no complete records")
    wrong, checked = [], 0
    for i, r in enumerate(recs):
        cls = getattr(mod, r.py_names[0], None)
        if cls is None:
            continue   # reported by test_struct_sizes
        for j, f in enumerate(r.fields):
            if f.bitfield >= 0:
                continue
            c_off, c_size = fields[i, j]
            sub, off, desc = cls, 0, None
            try:
                for name in f.names:
                    desc = sub.__dict__[_py(name)]
                    off += desc.offset
                    sub = desc.sub
            except (KeyError, AttributeError) as e:
                wrong.append(f"{r.c_name}.{f.c_path}: no field descriptor ({e!r})")
                continue
            py_size = desc.elsize * (desc.count or 1)
            if (off, py_size) != (c_off, c_size):
                wrong.append(f"{r.c_name}.{f.c_path}: python offset {off} size {py_size}, C {c_off} {c_size}")
            checked += 1
    assert wrong == [], "\n".join(wrong[:40])
    if lib == "hip":
        assert checked > 300


def test_nested_anonymous_records_are_views(c_layout):
    """hipResourceDesc.res.<...>: every named member of anonymous type is a sub-struct view."""
    from hip import hip
    recs, _, _ = c_layout["hip"]
    nested = [(r, p) for r in recs for p in r.nested]
    assert any(r.c_name in ("hipResourceDesc", "struct hipResourceDesc") for r, _ in nested)
    for r, path in nested:
        obj = getattr(hip, r.py_names[0])()
        for name in path.split("."):
            obj = getattr(obj, _py(name))
        assert hasattr(type(obj), "_size_"), f"{r.c_name}.{path} is not a struct view"


# -- bitfields -----------------------------------------------------------------------------------
def _bitfields(include64):
    recs = header_facts.records(include64, "hip")
    return [(r, f) for r in recs.values() for f in r.fields if f.bitfield >= 0]


@pytest.fixture(scope="module")
def c_bitfields(include64, tmp_path_factory):
    """For each bitfield: the struct's bytes (hex) with only that field set to 1, then to its maximum."""
    bfs = _bitfields(include64)
    lines = ["unsigned char* p; size_t k;"]
    for i, (r, f) in enumerate(bfs):
        for tag, value in (("one", "1"), ("max", f"{(1 << f.bitfield) - 1}u")):
            lines += [f"{{ {r.c_name} v; memset(&v, 0, sizeof v); v.{f.c_path} = {value};",
                      f'  printf("{i} {tag} "); p = (unsigned char*)&v;',
                      '  for (k = 0; k < sizeof v; k++) printf("%02x", p[k]); printf("\\n"); }']
    src = PRELUDE + "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n"
    out = {}
    for line in compile_and_run(tmp_path_factory.mktemp("bits"), src, include64).splitlines():
        i, tag, hexbytes = line.split()
        out[int(i), tag] = hexbytes
    return bfs, out


def _target(obj, names):
    for n in names[:-1]:
        obj = getattr(obj, _py(n))
    return obj, _py(names[-1])


def test_hipDeviceArch_t_has_bitfields(include64):
    fields = [f for r, f in _bitfields(include64) if "hipDeviceArch_t" in r.py_names]
    assert len(fields) >= 10 and all(f.bitfield == 1 for f in fields)


def test_bitfield_writes_match_c(c_bitfields):
    from hip import hip
    bfs, c = c_bitfields
    wrong = []
    for i, (r, f) in enumerate(bfs):
        for tag, value in (("one", 1), ("max", (1 << f.bitfield) - 1)):
            s = getattr(hip, r.py_names[0])()
            obj, attr = _target(s, f.names)
            setattr(obj, attr, value)
            if bytes(s).hex() != c[i, tag]:
                wrong.append(f"{r.c_name}.{f.c_path}={value}: python {bytes(s).hex()}, C {c[i, tag]}")
    assert wrong == [], "\n".join(wrong)


def test_bitfield_reads_match_c(c_bitfields):
    """Bytes laid out by C read back as exactly one field set (the others 0)."""
    from hip import hip
    bfs, c = c_bitfields
    wrong = []
    for i, (r, f) in enumerate(bfs):
        cls = getattr(hip, r.py_names[0])
        siblings = [g for rr, g in bfs if rr is r]
        for tag, value in (("one", 1), ("max", (1 << f.bitfield) - 1)):
            buf = bytearray.fromhex(c[i, tag])
            view = cls.from_ptr(buf)
            for g in siblings:
                obj, attr = _target(view, g.names)
                want = value if g is f else 0
                if getattr(obj, attr) != want:
                    wrong.append(f"{r.c_name}.{g.c_path} reads {getattr(obj, attr)} from C bytes of "
                                 f"{f.c_path}={value}, want {want}")
    assert wrong == [], "\n".join(wrong[:40])


def test_bitfield_overflow_rejected():
    from hip import hip
    a = hip.hipDeviceArch_t()
    with pytest.raises(OverflowError):
        a.hasDoubles = 2
    with pytest.raises(OverflowError):
        a.hasDoubles = -1
    assert bytes(a) == bytes(len(bytes(a)))


# -- enums and macros ----------------------------------------------------------------------------
def _print_value(expr: str, label: str) -> str:
    return (f'if (({expr}) < 0) printf("{label} %lld\\n", (long long)({expr})); '
            f'else printf("{label} %llu\\n", (unsigned long long)({expr}));')


@pytest.mark.parametrize("lib", ["hip", "hiprtc"])
def test_enum_values(include64, lib, tmp_path):
    mod = _module(lib)
    facts = header_facts.enums(include64, lib)
    assert facts
    consts = [(e, k) for e in facts for k in e.constants]
    src = PRELUDE + "int main(void) {\n" + "\n".join(
        _print_value(k, str(i)) for i, (_, k) in enumerate(consts)) + "\nreturn 0;\n}\n"
    values = {int(a): int(b) for a, b in (l.split() for l in compile_and_run(tmp_path, src, include64).splitlines())}
    wrong = []
    for i, (e, k) in enumerate(consts):
        if e.py_name is None:
            got = getattr(mod, k, None)
            if not isinstance(got, int) or got != values[i]:
                wrong.append(f"{k}: python {got!r}, C {values[i]}")
            continue
        cls = getattr(mod, e.py_name, None)
        if cls is None:
            wrong.append(f"enum {e.py_name} missing")
            continue
        for other in e.other_names:
            if getattr(mod, other, None) is not cls:
                wrong.append(f"{other} should be {e.py_name}")
        member = getattr(cls, k, None)
        if member is None or int(member) != values[i] or cls[k] is not member or not isinstance(member, cls):
            wrong.append(f"{e.py_name}.{k}: python {member!r}, C {values[i]}")
    assert wrong == [], "\n".join(sorted(set(wrong))[:40])


@pytest.mark.parametrize("lib", ["hip", "hiprtc"])
def test_integer_macro_values(include64, lib, tmp_path):
    mod = _module(lib)
    ints, _ = header_facts.macros(include64, lib)
    if not ints:
        pytest.skip(f"{lib}: no integer macros")
    names = sorted(ints)
    src = PRELUDE + "int main(void) {\n" + "\n".join(
        _print_value(n, n) for n in names) + "\nreturn 0;\n}\n"
    values = {a: int(b) for a, b in (l.split() for l in compile_and_run(tmp_path, src, include64).splitlines())}
    # AMD's HIP Python types integer macros as C int: 0x80000000 (hipEventReleaseToSystem) is -2**31.
    values = {n: (v - 2**32 if v >= 2**31 else v) if -2**31 <= v < 2**32 else v for n, v in values.items()}
    wrong = [f"{n}: python {getattr(mod, n, 'MISSING')!r}, C (as int) {values[n]}"
             for n in names if getattr(mod, n, None) != values[n]]
    assert wrong == [], "\n".join(wrong[:40])
    if lib == "hip":
        assert len(names) > 50
