"""Name matching between HIP and CUDA: functions, enumerators, struct fields.

Pure functions over names, so the rules are unit-tested without any header.
"""
from __future__ import annotations

import os
import re

_VENDOR = re.compile(r"^(hipblas|cublas|hipsparse|cusparse|hipsolver|cusolver|hipfft|cufft|hiprand|curand|"
                     r"hiprtc|nvrtc|hip|cuda|cu|nccl|rccl)_?", re.IGNORECASE)


def norm(name: str) -> str:
    """Case- and underscore-blind form: 'CUDA_ERROR_INVALID_VALUE' ~ 'ErrorInvalidValue'."""
    return name.replace("_", "").lower()


def strip_vendor(name: str) -> str:
    return norm(_VENDOR.sub("", name, count=1))


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


def enumerator_pairs(hip: list[tuple[str, int]], cuda: list[tuple[str, int]],
                     overrides: dict[str, str] | None = None) -> dict[str, str]:
    """HIP enumerator -> CUDA enumerator, matched by name, never by value.

    Tried in order: the spec's overrides; the name without its vendor prefix
    (hipErrorInvalidValue ~ CUDA_ERROR_INVALID_VALUE); the name without the
    enum's shared prefix (hipDeviceAttributeMaxThreadsPerBlock ~ cudaDevAttrMaxThreadsPerBlock).
    """
    overrides = overrides or {}
    cnames = {n for n, _ in cuda}
    by_vendor: dict[str, str] = {}
    for n, _ in cuda:
        by_vendor.setdefault(strip_vendor(n), n)
    cp_h, cp_c = common_prefix([n for n, _ in hip]), common_prefix([n for n, _ in cuda])
    by_suffix: dict[str, str] = {}
    for n, _ in cuda:
        by_suffix.setdefault(norm(n[len(cp_c):]), n)
    out: dict[str, str] = {}
    for n, _ in hip:
        if n in overrides:
            if overrides[n] in cnames:
                out[n] = overrides[n]
            continue
        c = by_vendor.get(strip_vendor(n)) or (by_suffix.get(norm(n[len(cp_h):])) if cp_h and cp_c else None)
        if c:
            out[n] = c
    return out


def field_for(hip_field: str, cuda_fields: list[str], overrides: dict[str, str] | None = None) -> str | None:
    """The CUDA struct field holding the same datum: same name, else the same normalised name."""
    if overrides and hip_field in overrides:
        return overrides[hip_field] if overrides[hip_field] in cuda_fields else None
    if hip_field in cuda_fields:
        return hip_field
    n = norm(hip_field)
    for c in cuda_fields:
        if norm(c) == n:
            return c
    n = norm(re.sub("hip", "cuda", hip_field, flags=re.IGNORECASE))   # sparseHipArraySupported
    for c in cuda_fields:
        if norm(c) == n:
            return c
    return None
