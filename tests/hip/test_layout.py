"""Every library's structs, unions, bitfields, enums and constants equal what C says.

Which records/fields/enumerators/macros to check comes from our own libclang walk
(tests/oracles/header_facts.py); every number comes from a program compiled against the same headers the
package was built from: C with gcc, C++ with g++ where the spec says the headers are C++ (hiprand.h).
Every test runs for every library that has a spec (header_facts.names()); a library whose module
is not built, or whose headers the include dir lacks, is skipped.
"""
from __future__ import annotations

import keyword

import pytest

import header_facts
from conftest import compile_and_run, library_module

LIBS = header_facts.names()


def _py(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _prelude(lib):
    return "#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n" + header_facts.include_lines(lib)


def _run(workdir, include, lib, lines):
    src = _prelude(lib) + "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n"
    return compile_and_run(workdir, src, include, language=header_facts.library(lib).language)


def _print_value(expr: str, label: str) -> str:
    return (f'if (({expr}) < 0) printf("{label} %lld\\n", (long long)({expr})); '
            f'else printf("{label} %llu\\n", (unsigned long long)({expr}));')


def _own_struct_classes(mod):
    return {k: v for k, v in vars(mod).items()
            if isinstance(v, type) and hasattr(v, "_size_") and v.__module__ == mod.__name__}


def _reachable(classes) -> set:
    """The struct classes and every nested view class their fields lead to."""
    seen, todo = set(), list(classes)
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        todo += [d.sub for d in vars(cls).values() if isinstance(getattr(d, "sub", None), type)]
    return seen


# -- what C says, one compiled program per library -----------------------------------------------
@pytest.fixture(scope="module")
def c_facts(include64, tmp_path_factory):
    """facts(lib) -> {"records": [...], "sizes": {i: size}, "fields": {(i, j): (offset, size)},
    "adopted": {class name: (size, {field: (offset, size)}) or None}, "enums": [(EnumFact, constant)],
    "enum_values": {i: value}, "macros": {name: value}}, printed by one program per library.

    Records are the library's own (from the header walk) plus every other struct class its module
    defines (types adopted from HIP's headers, such as __half), checked for size and exposed fields."""
    cache = {}

    def facts(lib):
        if lib in cache:
            return cache[lib]
        if not header_facts.available(include64, lib):
            pytest.skip(f"{lib}: no {', '.join(header_facts.library(lib).headers)} in {include64}")
        mod = library_module(lib)
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
        covered = _reachable([getattr(mod, n) for n in own_names if hasattr(getattr(mod, n, None), "_size_")])
        for name, cls in sorted(_own_struct_classes(mod).items()):
            if name in own_names or cls in covered:   # an alias, or an anonymous member's view
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
        text = _run(tmp_path_factory.mktemp(f"facts_{lib}"), include64, lib, lines)
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
        cache[lib] = got
        return got
    return facts


# -- records -------------------------------------------------------------------------------------
# Records each header must define (guards the header walk itself against finding nothing).
KNOWN_RECORDS = {
    "hip": {"dim3", "hipDeviceProp_tR0600", "hipResourceDesc", "hipDeviceArch_t"},
    "hipblas": {"hipblasComplex", "hipblasDoubleComplex", "hipblasBfloat16"},
    "hiprand": {"rocrand_discrete_distribution_st"},
    "rccl": {"ncclUniqueId"},
}


@pytest.mark.parametrize("lib", sorted(KNOWN_RECORDS))
def test_header_walk_finds_records(include64, lib):
    recs = header_facts.records(include64, lib)
    assert KNOWN_RECORDS[lib] <= {n for r in recs.values() for n in r.py_names}
    if lib == "hip":
        assert len(recs) > 50


@pytest.mark.parametrize("lib", LIBS)
def test_struct_sizes(c_facts, lib):
    facts, mod = c_facts(lib), library_module(lib)
    recs, sizes = facts["records"], facts["sizes"]
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
    facts, mod = c_facts(lib), library_module(lib)
    recs, fields = facts["records"], facts["fields"]
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


@pytest.mark.parametrize("lib", LIBS)
def test_nested_anonymous_records_are_views(c_facts, lib):
    """hipResourceDesc.res.<...>: every named member of anonymous type is a sub-struct view."""
    facts, mod = c_facts(lib), library_module(lib)
    nested = [(r, p) for r in facts["records"] for p in r.nested]
    if lib == "hip":
        assert any(r.c_name in ("hipResourceDesc", "struct hipResourceDesc") for r, _ in nested)
    if not nested:
        pytest.skip(f"{lib}: no members of anonymous record type")
    for r, path in nested:
        obj = getattr(mod, r.py_names[0])()
        for name in path.split("."):
            obj = getattr(obj, _py(name))
        assert hasattr(type(obj), "_size_"), f"{r.c_name}.{path} is not a struct view"


def test_known_layouts():
    """Spot checks of what the generic tests rely on: complex types are two floats/doubles,
    ncclUniqueId is 128 bytes."""
    hipblas, rccl = library_module("hipblas"), library_module("rccl")
    assert hipblas.hipblasComplex._size_ == 8 and hipblas.hipblasDoubleComplex._size_ == 16
    assert rccl.ncclUniqueId._size_ == rccl.NCCL_UNIQUE_ID_BYTES == 128


@pytest.mark.parametrize("lib", LIBS)
def test_adopted_struct_classes_match_c(c_facts, lib):
    """Struct classes a module defines beyond its own records (HIP types only its header reaches,
    e.g. hipRAND's __half): the size and every exposed field's offset and size equal C's."""
    facts, mod = c_facts(lib), library_module(lib)
    wrong = []
    for name, got in facts["adopted"].items():
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


# -- bitfields -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def c_bitfields(include64, tmp_path_factory):
    """bitfields(lib) -> ([(record, field)], {(i, 'one'|'max'): hex bytes}): for each bitfield, the
    struct's bytes with only that field set to 1, then to its maximum, as C lays them out."""
    cache = {}

    def bitfields(lib):
        if lib not in cache:
            if not header_facts.available(include64, lib):
                pytest.skip(f"{lib}: no {', '.join(header_facts.library(lib).headers)} in {include64}")
            recs = header_facts.records(include64, lib)
            bfs = [(r, f) for r in recs.values() for f in r.fields if f.bitfield >= 0]
            out = {}
            if bfs:
                lines = ["unsigned char* p; size_t k;"]
                for i, (r, f) in enumerate(bfs):
                    for tag, value in (("one", "1"), ("max", f"{(1 << f.bitfield) - 1}u")):
                        lines += [f"{{ {r.c_name} v; memset(&v, 0, sizeof v); v.{f.c_path} = {value};",
                                  f'  printf("{i} {tag} "); p = (unsigned char*)&v;',
                                  '  for (k = 0; k < sizeof v; k++) printf("%02x", p[k]); printf("\\n"); }']
                for line in _run(tmp_path_factory.mktemp(f"bits_{lib}"), include64, lib, lines).splitlines():
                    i, tag, hexbytes = line.split()
                    out[int(i), tag] = hexbytes
            cache[lib] = (bfs, out)
        if not cache[lib][0]:
            pytest.skip(f"{lib}: no bitfields")
        return cache[lib]
    return bitfields


def _target(obj, names):
    for n in names[:-1]:
        obj = getattr(obj, _py(n))
    return obj, _py(names[-1])


def test_hipDeviceArch_t_has_bitfields(c_bitfields):
    fields = [f for r, f in c_bitfields("hip")[0] if "hipDeviceArch_t" in r.py_names]
    assert len(fields) >= 10 and all(f.bitfield == 1 for f in fields)


@pytest.mark.parametrize("lib", LIBS)
def test_bitfield_writes_match_c(c_bitfields, lib):
    bfs, c = c_bitfields(lib)
    mod = library_module(lib)
    wrong = []
    for i, (r, f) in enumerate(bfs):
        for tag, value in (("one", 1), ("max", (1 << f.bitfield) - 1)):
            s = getattr(mod, r.py_names[0])()
            obj, attr = _target(s, f.names)
            setattr(obj, attr, value)
            if bytes(s).hex() != c[i, tag]:
                wrong.append(f"{r.c_name}.{f.c_path}={value}: python {bytes(s).hex()}, C {c[i, tag]}")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("lib", LIBS)
def test_bitfield_reads_match_c(c_bitfields, lib):
    """Bytes laid out by C read back as exactly one field set (the others 0)."""
    bfs, c = c_bitfields(lib)
    mod = library_module(lib)
    wrong = []
    for i, (r, f) in enumerate(bfs):
        cls = getattr(mod, r.py_names[0])
        siblings = [g for rr, g in bfs if rr is r]
        for tag, value in (("one", 1), ("max", (1 << f.bitfield) - 1)):
            view = cls.from_ptr(bytearray.fromhex(c[i, tag]))
            for g in siblings:
                obj, attr = _target(view, g.names)
                want = value if g is f else 0
                if getattr(obj, attr) != want:
                    wrong.append(f"{r.c_name}.{g.c_path} reads {getattr(obj, attr)} from C bytes of "
                                 f"{f.c_path}={value}, want {want}")
    assert wrong == [], "\n".join(wrong[:40])


def test_bitfield_overflow_rejected():
    hip = library_module("hip")
    a = hip.hipDeviceArch_t()
    with pytest.raises(OverflowError):
        a.hasDoubles = 2
    with pytest.raises(OverflowError):
        a.hasDoubles = -1
    assert bytes(a) == bytes(len(bytes(a)))


# -- enums and macros ----------------------------------------------------------------------------
@pytest.mark.parametrize("lib", LIBS)
def test_enum_values(c_facts, lib):
    facts, mod = c_facts(lib), library_module(lib)
    consts, values = facts["enums"], facts["enum_values"]
    if not consts:
        pytest.skip(f"{lib}: the headers declare no enums")
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
    if not header_facts.available(include64, lib):
        pytest.skip(f"{lib}: not in {include64}")
    mod = library_module(lib)
    aliases = header_facts.enum_typedef_aliases(include64, lib)
    if lib == "hipsolver":
        assert aliases.get("hipsolverOperation_t") == "hipblasOperation_t"
    wrong = [f"{a} should be {t}" for a, t in aliases.items()
             if getattr(mod, a, None) is None or getattr(mod, a) is not getattr(mod, t, None)]
    assert wrong == []


@pytest.mark.parametrize("lib", LIBS)
def test_integer_macro_values(c_facts, lib):
    facts, mod = c_facts(lib), library_module(lib)
    values = facts["macros"]
    if not values:
        pytest.skip(f"{lib}: no integer macros")
    names = sorted(values)
    # AMD's HIP Python types integer macros as C int: 0x80000000 (hipEventReleaseToSystem) is -2**31.
    values = {n: (v - 2**32 if v >= 2**31 else v) if -2**31 <= v < 2**32 else v for n, v in values.items()}
    wrong = [f"{n}: python {getattr(mod, n, 'MISSING')!r}, C (as int) {values[n]}"
             for n in names if getattr(mod, n, None) != values[n]]
    assert wrong == [], "\n".join(wrong[:40])
    if lib == "hip":
        assert len(names) > 50


def test_fft_directions():
    """HIPFFT_FORWARD/BACKWARD (-1/+1) are plain ints hipfftExecC2C's `direction` takes."""
    hipfft = library_module("hipfft")
    assert (hipfft.HIPFFT_FORWARD, hipfft.HIPFFT_BACKWARD) == (-1, 1)
