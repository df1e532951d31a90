"""The six libraries' structs, enums and constants equal what C says.

Which records/fields/enumerators/macros to check comes from our own libclang walk
(tests/header_facts.py); every number comes from a program compiled against the same headers the
package was built from: C with gcc, except hiprand.h, which only compiles as C++ (g++).
"""
from __future__ import annotations

import importlib
import keyword

import pytest

import header_facts
from conftest import compile_and_run

LIBS = header_facts.SIX


def _module(lib):
    return importlib.import_module(f"hip.{lib}")


def _py(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _prelude(lib):
    return ("#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n"
            f"#include <{header_facts.LIBRARIES[lib].header}>\n")


def _run(tmp_path_factory, include, lib, lines, tag):
    src = _prelude(lib) + "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n"
    return compile_and_run(tmp_path_factory.mktemp(f"{tag}_{lib}"), src, include,
                           language=header_facts.LIBRARIES[lib].language)


def _print_value(expr: str, label: str) -> str:
    return (f'if (({expr}) < 0) printf("{label} %lld\\n", (long long)({expr})); '
            f'else printf("{label} %llu\\n", (unsigned long long)({expr}));')


def _own_struct_classes(mod):
    return {k: v for k, v in vars(mod).items()
            if isinstance(v, type) and hasattr(v, "_size_") and v.__module__ == mod.__name__}


# -- records -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def c_facts(include64, tmp_path_factory):
    """One compiled program per library prints everything the tests compare:
    {lib: {"records": [...], "sizes": {i: size}, "fields": {(i, j): (offset, size)},
           "adopted": {class name: (size, {field: (offset, size)}) or None},
           "enums": [(EnumFact, constant)], "enum_values": {i: value}, "macros": {name: value}}}.

    Records are the library's own (from the header walk) plus every other struct class its module
    defines (types adopted from HIP's headers, such as __half), checked for size and exposed fields."""
    out = {}
    for lib in LIBS:
        mod = _module(lib)
        recs = list(header_facts.records(include64, lib).values())
        own_names = {n for r in recs for n in r.py_names}
        lines = []
        for i, r in enumerate(recs):
            lines.append(f'printf("S {i} %zu\\n", sizeof({r.c_name}));')
            for j, f in enumerate(r.fields):
                if f.bitfield >= 0:
                    continue
                lines.append(f'printf("F {i} {j} %zu %zu\\n", offsetof({r.c_name}, {f.c_path}), '
                             f'sizeof((({r.c_name}*)0)->{f.c_path}));')
        others = {}
        for name, cls in sorted(_own_struct_classes(mod).items()):
            if name in own_names:
                continue
            c_name = header_facts.c_type_spelling(include64, lib, name)
            others[name] = c_name
            if c_name is None:
                continue
            lines.append(f'printf("A {name} %zu\\n", sizeof({c_name}));')
            for prop in cls.PROPERTIES():
                lines.append(f'printf("B {name} {prop} %zu %zu\\n", offsetof({c_name}, {prop}), '
                             f'sizeof((({c_name}*)0)->{prop}));')
        consts = [(e, k) for e in header_facts.enums(include64, lib) for k in e.constants]
        lines += [_print_value(k, f"E {i}") for i, (_, k) in enumerate(consts)]
        ints, _ = header_facts.macros(include64, lib)
        lines += [_print_value(n, f"M {n}") for n in sorted(ints)]
        text = _run(tmp_path_factory, include64, lib, lines, "facts")
        got = {"records": recs, "sizes": {}, "fields": {}, "adopted": {n: None for n, c in others.items() if c is None},
               "enums": consts, "enum_values": {}, "macros": {}}
        for line in text.splitlines():
            p = line.split()
            if p[0] == "S":
                got["sizes"][int(p[1])] = int(p[2])
            elif p[0] == "F":
                got["fields"][int(p[1]), int(p[2])] = (int(p[3]), int(p[4]))
            elif p[0] == "A":
                got["adopted"][p[1]] = (int(p[2]), {})
            elif p[0] == "B":
                got["adopted"][p[1]][1][p[2]] = (int(p[3]), int(p[4]))
            elif p[0] == "E":
                got["enum_values"][int(p[1])] = int(p[2])
            else:
                got["macros"][p[1]] = int(p[2])
        out[lib] = got
    return out


def test_header_walk_finds_records(include64):
    names = {n for lib in LIBS for r in header_facts.records(include64, lib).values() for n in r.py_names}
    assert {"hipblasComplex", "hipblasDoubleComplex", "hipblasBfloat16", "ncclUniqueId",
            "rocrand_discrete_distribution_st"} <= names


@pytest.mark.parametrize("lib", LIBS)
def test_struct_sizes(c_facts, lib):
    mod = _module(lib)
    recs, sizes = c_facts[lib]["records"], c_facts[lib]["sizes"]
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


@pytest.mark.parametrize("lib", LIBS)
def test_field_offsets_and_sizes(c_facts, lib):
    mod = _module(lib)
    recs, fields = c_facts[lib]["records"], c_facts[lib]["fields"]
    wrong = []
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
    assert wrong == [], "\n".join(wrong[:40])


def test_known_layouts(c_facts):
    """Spot checks of what the generic tests rely on: complex types are two floats/doubles,
    ncclUniqueId is 128 bytes."""
    from hip import hipblas, rccl
    assert hipblas.hipblasComplex._size_ == 8 and hipblas.hipblasDoubleComplex._size_ == 16
    assert rccl.ncclUniqueId._size_ == rccl.NCCL_UNIQUE_ID_BYTES == 128


@pytest.mark.parametrize("lib", LIBS)
def test_adopted_struct_classes_match_c(c_facts, lib):
    """Struct classes a module defines beyond its own records (HIP types only its header reaches,
    e.g. hipRAND's __half): the size and every exposed field's offset and size equal C's."""
    mod = _module(lib)
    adopted = c_facts[lib]["adopted"]
    wrong = []
    for name, got in adopted.items():
        cls = getattr(mod, name)
        if got is None:
            wrong.append(f"{name}: the header declares no such type")
            continue
        size, fields = got
        if cls._size_ != size:
            wrong.append(f"{name}: python size {cls._size_}, C {size}")
        for prop, (c_off, c_size) in fields.items():
            d = cls.__dict__[prop]
            if (d.offset, d.elsize * (d.count or 1)) != (c_off, c_size):
                wrong.append(f"{name}.{prop}: python {d.offset} {d.elsize * (d.count or 1)}, C {c_off} {c_size}")
    assert wrong == [], "\n".join(wrong)


# -- enums and macros ----------------------------------------------------------------------------
@pytest.mark.parametrize("lib", LIBS)
def test_enum_values(c_facts, lib):
    mod = _module(lib)
    consts, values = c_facts[lib]["enums"], c_facts[lib]["enum_values"]
    assert consts, f"{lib}: the header walk found no enums"
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


@pytest.mark.parametrize("lib", LIBS)
def test_enum_typedef_aliases(include64, lib):
    """`typedef hipblasOperation_t hipsolverOperation_t`: the typedef names the same class."""
    mod = _module(lib)
    aliases = header_facts.enum_typedef_aliases(include64, lib)
    if lib == "hipsolver":
        assert aliases.get("hipsolverOperation_t") == "hipblasOperation_t"
    wrong = [f"{a} should be {t}" for a, t in aliases.items()
             if getattr(mod, a, None) is None or getattr(mod, a) is not getattr(mod, t, None)]
    assert wrong == []


@pytest.mark.parametrize("lib", LIBS)
def test_integer_macro_values(c_facts, lib):
    mod = _module(lib)
    values = c_facts[lib]["macros"]
    if not values:
        pytest.skip(f"{lib}: no integer macros")
    names = sorted(values)
    wrong = [f"{n}: python {getattr(mod, n, 'MISSING')!r}, C {values[n]}"
             for n in names if getattr(mod, n, None) != values[n]]
    assert wrong == [], "\n".join(wrong[:40])


def test_fft_directions(include64):
    """HIPFFT_FORWARD/BACKWARD (-1/+1) are plain ints hipfftExecC2C's `direction` takes."""
    from hip import hipfft
    assert (hipfft.HIPFFT_FORWARD, hipfft.HIPFFT_BACKWARD) == (-1, 1)


@pytest.mark.parametrize("lib", LIBS)
def test_enumerator_aliases_from_define(include64, lib):
    """`#define HIPSOLVER_OP_N HIPBLAS_OP_N`: C code may use either spelling; so may Python."""
    mod = _module(lib)
    values = {}
    for e in header_facts.enums(include64, lib):
        for k in e.constants:
            values[k] = getattr(getattr(mod, e.py_name), k) if e.py_name else getattr(mod, k)
    _, aliases = header_facts.macros(include64, lib)
    aliases = {a: t for a, t in aliases.items() if t in values}
    if lib == "hipsolver":
        assert aliases.get("HIPSOLVER_OP_N") == "HIPBLAS_OP_N"
    missing = sorted(a for a in aliases if not hasattr(mod, a))
    assert missing == [], f"enumerator aliases missing from hip.{lib}: {missing}"
    wrong = [a for a, t in aliases.items() if getattr(mod, a) != values[t] or type(getattr(mod, a)) is not
             type(values[t])]
    assert wrong == []
