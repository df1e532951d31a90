"""Name matching between HIP and CUDA, in both directions, by one set of rules.

HIP -> CUDA is what the HIP-on-CUDA layer asks (codegen.nvidia: which CUDA
function implements hipMalloc, which CUDA enumerator a hipError_t value
becomes); CUDA -> HIP is what the `cuda` alias asks (which HIP function
implements cuMemAlloc). Each kind of name has one rule set, a ranked relation
between a HIP name and a CUDA name; a direction (`to=CUDA` or `to=HIP`) only
chooses, for each name on one side, the best-ranked names on the other, ties
going to the other side's declaration order:

functions    the spec's `rename` (HIP name -> CUDA name), then its `rules` (a
             regex over the HIP name -> CUDA name templates), in order; a HIP
             function is known by its name and HIP's #define aliases of it, a
             CUDA name through CUDA's aliases of it (cuMemcpyHtoD ->
             cuMemcpyHtoD_v2). From CUDA: the HIP functions one of whose
             candidates is that CUDA function, the earliest candidate first.
enumerators  the spec's `enumerators` overrides (an overridden HIP name matches
             nothing else); the name without its vendor prefix
             (hipErrorInvalidValue ~ CUDA_ERROR_INVALID_VALUE); the name after
             its enum's shared prefix (hipDeviceAttributeWarpSize ~
             cudaDevAttrWarpSize). Never by value.
fields       the spec's `fields` overrides (per HIP record; exclusive like the
             enumerators'); the same name; the same normalised name; the
             normalised name with 'hip' read as 'cuda' (sparseHipArraySupported).
types        the spec's `require` pairs (CUresult ~ hipError_t); the name without
             vendor prefix and `_t` (hipStream_t ~ cudaStream_t, CUstream).

Overrides are always written HIP -> CUDA (as in the specs); CUDA -> HIP reads
them inverted. Pure functions over names: the rules are unit-tested without
any header (tests/codegen/test_nvidia_layer.py, both directions, and round trips over
the real headers). `Matcher` binds them to one library's nvidia spec.
"""
from __future__ import annotations

import os
import re
from collections.abc import Container, Iterable, Mapping, Sequence

CUDA, HIP = "cuda", "hip"     # directions: the side the names are mapped to

_VENDOR = re.compile(r"^(hipblas|cublas|hipsparse|cusparse|hipsolver|cusolver|hipfft|cufft|hiprand|curand|"
                     r"hiprtc|nvrtc|hip|cuda|cu|nccl|rccl)_?", re.IGNORECASE)


def _direction(to: str) -> bool:
    """True for HIP -> CUDA."""
    if to not in (CUDA, HIP):
        raise ValueError(f"to={to!r}: expected {CUDA!r} or {HIP!r}")
    return to == CUDA


def norm(name: str) -> str:
    """Case- and underscore-blind form: 'CUDA_ERROR_INVALID_VALUE' ~ 'ErrorInvalidValue'."""
    return name.replace("_", "").lower()


def strip_vendor(name: str) -> str:
    """norm() of the name without its library prefix: 'cublasSgemm' and 'hipblasSgemm' -> 'sgemm'."""
    return norm(_VENDOR.sub("", name, count=1))


def _vendor_word_blind(tail: str) -> str:
    """norm() of an enumerator's tail with the vendor's own word in it made one: 'IS_LEGACY_CUDA_IPC_CAPABLE'
    and 'IS_LEGACY_HIP_IPC_CAPABLE' -> 'islegacyhipipccapable'."""
    return re.sub(r"cuda|hip", "hip", norm(tail))


def common_prefix(names: list[str]) -> str:
    """The longest shared prefix that ends on a word boundary (camelCase or '_')."""
    if len(names) < 2:
        return ""
    p = os.path.commonprefix(names)
    # Cut back to a boundary: the next character of every name starts a word.
    while p:
        if all(len(n) > len(p) and (n[len(p)].isupper() or n[len(p)] == "_" or n[len(p)].isdigit()
                                    or p.endswith("_")) for n in names):
            break
        p = p[:-1]
    return p


def _first_by(names: Iterable[str], key) -> dict[str, str]:
    out: dict[str, str] = {}
    for n in names:
        out.setdefault(key(n), n)
    return out


def _inverse(overrides: Mapping[str, str], names: Sequence[str]) -> dict[str, str]:
    """CUDA name -> the first of `names` (HIP, in order) that the HIP -> CUDA overrides send there."""
    out: dict[str, str] = {}
    for n in names:
        if n in overrides:
            out.setdefault(overrides[n], n)
    return out


# -- functions ---------------------------------------------------------------------------------------
def known_names(function: str, aliases: Mapping[str, str] | None = None) -> list[str]:
    """A function's name, then the #define aliases naming it (hipGetDeviceProperties for
    hipGetDevicePropertiesR0600): specs use the name every version has."""
    return [function] + sorted(a for a, t in (aliases or {}).items() if t == function)


def _derivations(hip_names: Sequence[str], rules: Sequence, rename: Mapping[str, str]):
    """(rank, CUDA name) for each candidate, in the order the layer tries them; rank orders the
    ways a CUDA name is reached: a rename before a rule, an earlier rule (the more specific one)
    and template before a later one, the function's own name before its aliases."""
    for i, n in enumerate(hip_names):
        if n in rename:
            yield (0, 0, 0, i), rename[n]
    for i, n in enumerate(hip_names):
        for k, r in enumerate(rules):
            m = r.hip.fullmatch(n)
            if m:
                for j, t in enumerate(r.cuda):
                    yield (1, k, j, i), m.expand(t)


def function_candidates(hip_names: Sequence[str], rules: Sequence = (), rename: Mapping[str, str] | None = None
                        ) -> list[str]:
    """CUDA function names to try, in order, for a HIP function known by `hip_names` (known_names()):
    the renames, then each rule's templates (rules: objects with `hip`, a compiled regex matched
    against the whole name, and `cuda`, templates for re.Match.expand)."""
    return [n for _, n in _derivations(hip_names, rules, rename or {})]


def resolve_alias(name: str, functions: Container[str], aliases: Mapping[str, str] | None) -> str:
    """Follow #define aliases from `name` until a declared function (cuMemcpyHtoD -> cuMemcpyHtoD_v2)."""
    seen = 0
    while aliases and name in aliases and name not in functions and seen < 8:
        name, seen = aliases[name], seen + 1
    return name


def function_matches(hip_functions: Sequence[str], cuda_functions: Iterable[str], rules: Sequence = (),
                     rename: Mapping[str, str] | None = None, hip_aliases: Mapping[str, str] | None = None,
                     cuda_aliases: Mapping[str, str] | None = None, to: str = CUDA) -> dict[str, list[str]]:
    """Each function of one side -> the functions of the other that match it, best first
    (functions without a match are left out).

    to=CUDA: a HIP function's candidates (function_candidates over its known_names), resolved
    through `cuda_aliases`, that CUDA declares; the first is the one the layer calls.
    to=HIP: a CUDA function's HIP functions, best first: reached by a rename, then by an
    earlier (more specific) rule or template, by the HIP function's own name rather than an
    alias, by the CUDA name itself rather than an alias of it; then HIP's declaration order
    (`hip_functions`' order)."""
    to_cuda = _direction(to)
    cuda_functions = set(cuda_functions)
    found: dict[str, list[tuple]] = {}
    for order, h in enumerate(hip_functions):
        seen: set[str] = set()
        for pos, (rank, cand) in enumerate(_derivations(known_names(h, hip_aliases), rules, rename or {})):
            c = resolve_alias(cand, cuda_functions, cuda_aliases)
            if c in cuda_functions and c not in seen:
                seen.add(c)
                if to_cuda:
                    found.setdefault(h, []).append((pos, c))
                else:   # a CUDA name reached without its aliases first, then in HIP's order
                    found.setdefault(c, []).append((rank, c != cand, order, h))
    return {k: [x[-1] for x in sorted(v)] for k, v in found.items()}


# -- enumerators -------------------------------------------------------------------------------------
def enumerator_pairs(hip: list[tuple[str, int]], cuda: list[tuple[str, int]],
                     overrides: Mapping[str, str] | None = None, to: str = CUDA) -> dict[str, str]:
    """Enumerators of one enum -> their counterparts in the other side's enum, by name, never by
    value (values are in the (name, value) pairs only so that callers pass enums as they are).

    to=CUDA: HIP enumerator -> CUDA enumerator; to=HIP: CUDA enumerator -> HIP enumerator.
    Tried in order: the overrides (HIP -> CUDA; an overridden HIP enumerator matches only its
    override, in the CUDA enum that has the override's name: hipDeviceAttributeComputeCapabilityMajor
    is cudaDevAttrComputeCapabilityMajor in cudaDeviceAttr, and found by the rules below in the
    driver's CUdevice_attribute); the name without its vendor prefix (hipErrorInvalidValue ~
    CUDA_ERROR_INVALID_VALUE); the name without the enum's shared prefix
    (hipDeviceAttributeMaxThreadsPerBlock ~ cudaDevAttrMaxThreadsPerBlock); last, that tail with
    the vendor's word inside it swapped (HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE ~
    CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE).
    """
    to_cuda = _direction(to)
    overrides = overrides or {}
    hnames, cnames = [n for n, _ in hip], [n for n, _ in cuda]
    cp_h, cp_c = common_prefix(hnames), common_prefix(cnames)
    by_prefix = bool(cp_h and cp_c)
    cset = set(cnames)
    by_suffix_c = _first_by(cnames, lambda n: norm(n[len(cp_c):]))

    def via_override(n):
        """An override naming another CUDA enum's enumerator (cudaDevAttrGlobalMemoryBusWidth, read
        in CUdevice_attribute): this enum's enumerator with the longest tail of its words."""
        words = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", overrides[n])
        for k in range(1, len(words)):
            c = by_suffix_c.get(norm("".join(words[k:])))
            if c:
                return c
        return None
    # HIP names an override sends elsewhere: this enum's enumerator by the override's name
    elsewhere = {n: via_override(n) for n in hnames if n in overrides and overrides[n] not in cset} \
        if by_prefix else {}
    def pairs(names, prefix, first, others, others_prefix):
        """Each of `names` (enumerators after `prefix`) -> its override (`first`), else the first of
        `others` (after `others_prefix`) with the same name without the vendor, without the prefix,
        or with the vendor's word swapped."""
        by_vendor = _first_by(others, strip_vendor)
        by_suffix = _first_by(others, lambda n: norm(n[len(others_prefix):]))
        by_word = _first_by(others, lambda n: _vendor_word_blind(n[len(others_prefix):]))
        out = {}
        for n in names:
            m = first.get(n) or by_vendor.get(strip_vendor(n)) or \
                (by_suffix.get(norm(n[len(prefix):])) or by_word.get(_vendor_word_blind(n[len(prefix):]))
                 if by_prefix else None)
            if m:
                out[n] = m
        return out
    # an overridden HIP name matches only its override (where this enum has it)
    own = {n: overrides[n] for n in hnames if n in overrides and overrides[n] in cset}
    if to_cuda:
        return pairs(hnames, cp_h, {**elsewhere, **own}, cnames, cp_c)
    inverted = _inverse(overrides, hnames)
    for n, c in elsewhere.items():
        if c:
            inverted.setdefault(c, n)
    return pairs(cnames, cp_c, inverted, [n for n in hnames if n not in own], cp_h)


# -- struct fields -----------------------------------------------------------------------------------
def field_for(field: str, fields: list[str], overrides: Mapping[str, str] | None = None,
              to: str = CUDA) -> str | None:
    """The field of the other side's struct holding the same datum as `field`, or None.

    to=CUDA: `field` is HIP's, `fields` CUDA's; to=HIP: the reverse. `overrides` are the spec's
    for this HIP record (HIP field -> CUDA field). Tried in order: the overrides (exclusive);
    the same name; the same normalised name; the normalised name with 'hip' read as 'cuda'."""
    to_cuda = _direction(to)
    overrides = overrides or {}
    if to_cuda:
        if field in overrides:
            return overrides[field] if overrides[field] in fields else None
        pairs = [(field, c) for c in fields]
    else:
        inverted = _inverse(overrides, fields)
        if field in inverted:
            return inverted[field]
        pairs = [(h, field) for h in fields if h not in overrides]
    for rule in (lambda h, c: h == c, lambda h, c: norm(h) == norm(c),
                 lambda h, c: norm(re.sub("hip", "cuda", h, flags=re.IGNORECASE)) == norm(c)):
        for h, c in pairs:
            if rule(h, c):
                return c if to_cuda else h
    return None


# -- types -------------------------------------------------------------------------------------------
def type_key(name: str) -> str:
    """The vendor- and case-blind form of a type name, without a trailing `_t`:
    hipStream_t, cudaStream_t and CUstream -> 'stream'."""
    return strip_vendor(name[:-2] if name.endswith("_t") else name)


def type_pairs(hip_names: Sequence[str], cuda_names: Sequence[str], overrides: Iterable[Sequence[str]] = (),
               to: str = CUDA, hip_aliases: Mapping[str, str] | None = None,
               cuda_aliases: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Type names of one side -> the other side's type names for the same type, best first (a
    HIP runtime type has a runtime and a driver name in CUDA: hipStream_t ~ cudaStream_t, CUstream).

    `overrides`: [HIP name, CUDA name] pairs (the spec's `require`), which come first; then
    type_key() equality, in the other side's declaration order. A type is also known by the
    #define aliases naming it (`hip_aliases`: hipDeviceProp_t -> hipDeviceProp_tR0600); the
    result has the declared names only."""
    to_cuda = _direction(to)

    def known(names, aliases):   # declared name -> the names it goes by
        out = {n: [n] for n in names}
        for a, t in sorted((aliases or {}).items()):
            if t in out and a not in out:
                out[t].append(a)
        return out
    hk, ck = known(hip_names, hip_aliases), known(cuda_names, cuda_aliases)
    src, dst = (hk, ck) if to_cuda else (ck, hk)
    by_key: dict[str, list[str]] = {}
    by_name: dict[str, str] = {}
    for n, names in dst.items():
        for a in names:
            by_key.setdefault(type_key(a), [])
            if n not in by_key[type_key(a)]:
                by_key[type_key(a)].append(n)
            by_name.setdefault(a, n)
    forced: dict[str, list[str]] = {}
    src_of = {a: n for n, names in src.items() for a in names}
    for h, c in overrides:
        s_, d = (h, c) if to_cuda else (c, h)
        if s_ in src_of and d in by_name:
            forced.setdefault(src_of[s_], []).append(by_name[d])
    out: dict[str, list[str]] = {}
    for n, names in src.items():
        got = forced.get(n, []) + [d for a in names for d in by_key.get(type_key(a), [])]
        if got:
            out[n] = list(dict.fromkeys(got))
    return out


# -- one library -------------------------------------------------------------------------------------
class Matcher:
    """The rules of one library's nvidia spec (codegen/specs/nvidia/<lib>.yaml), both directions."""

    def __init__(self, rules: Sequence = (), rename: Mapping[str, str] | None = None,
                 enumerators: Mapping[str, str] | None = None,
                 fields: Mapping[str, Mapping[str, str]] | None = None, types: Iterable[Sequence[str]] = ()):
        self.rules, self.rename = list(rules), dict(rename or {})
        self.enumerator_overrides = dict(enumerators or {})
        self.field_overrides = {k: dict(v) for k, v in (fields or {}).items()}
        self.type_overrides = [tuple(p) for p in types]

    @classmethod
    def for_spec(cls, spec) -> "Matcher":
        """From an NvSpec (codegen.bridge.spec.load)."""
        return cls(spec.rules, spec.rename, spec.enumerators, spec.fields, spec.require)

    def function_candidates(self, hip_names: Sequence[str]) -> list[str]:
        return function_candidates(hip_names, self.rules, self.rename)

    def functions(self, hip_functions: Sequence[str], cuda_functions: Iterable[str],
                  hip_aliases: Mapping[str, str] | None = None, cuda_aliases: Mapping[str, str] | None = None,
                  to: str = CUDA) -> dict[str, list[str]]:
        return function_matches(hip_functions, cuda_functions, self.rules, self.rename, hip_aliases,
                                cuda_aliases, to)

    def enumerators(self, hip: list[tuple[str, int]], cuda: list[tuple[str, int]], to: str = CUDA) -> dict[str, str]:
        return enumerator_pairs(hip, cuda, self.enumerator_overrides, to)

    def field(self, hip_record: str, field: str, fields: list[str], to: str = CUDA) -> str | None:
        """`hip_record`: the HIP struct's name, whichever the direction (the spec keys overrides by it)."""
        return field_for(field, fields, self.field_overrides.get(hip_record), to)

    def types(self, hip_names: Sequence[str], cuda_names: Sequence[str], to: str = CUDA,
              hip_aliases: Mapping[str, str] | None = None,
              cuda_aliases: Mapping[str, str] | None = None) -> dict[str, list[str]]:
        return type_pairs(hip_names, cuda_names, self.type_overrides, to, hip_aliases, cuda_aliases)
