"""The array API's sorting functions (2023.12): `sort` and `argsort` along any axis, ascending or
descending, always stable.

Order: NumPy's. NaNs sort last (complex: NumPy's lexicographic order, [R + Rj, R + nanj,
nan + Rj, nan + nanj]); -0.0 and +0.0 are equal; equal values keep their order. `descending=True`
is the exact reverse of the ascending order with equal values still in their original order
(so NaNs come first), as array-api-strict does it.

Every value is first mapped to an unsigned key whose integer order is that order (`ht_skey`:
sign flips for integers, IEEE bit tricks with one NaN key for floats; descending complements the
key); elements are sorted as (key, position) pairs, which makes the sort stable and the order total.
Short rows: one bitonic network in shared memory per row, several rows per block. Long rows:
bitonic-sorted tiles, then merge passes that double the sorted runs, each element finding its
place in the partner run by a binary search. The last pass writes the result (the values are
gathered from the input by position, so they are exact, NaN payloads included).
"""
from __future__ import annotations

import numpy as np

from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.memory import alloc
from .._core.shapes import collapse, normalize_axis, prod
from .._kernels.template import TemplateKernel, dims, launch_flat, launch_grid, pow2_ceil
from .manipulation import moveaxis

__all__ = ["sort", "argsort"]

SORT_KEYS = r"""
#ifndef HT_SORT_KEYS
#define HT_SORT_KEYS 1
/* sort keys: unsigned integers whose order is NumPy's sort order (NaN last, -0 == +0) */
HT_D unsigned char ht_skey(bool v) { return v ? 1 : 0; }
HT_D unsigned char ht_skey(signed char v) { return (unsigned char)((unsigned char)v ^ 0x80u); }
HT_D unsigned char ht_skey(unsigned char v) { return v; }
HT_D unsigned short ht_skey(short v) { return (unsigned short)((unsigned short)v ^ 0x8000u); }
HT_D unsigned short ht_skey(unsigned short v) { return v; }
HT_D unsigned int ht_skey(int v) { return (unsigned int)v ^ 0x80000000u; }
HT_D unsigned int ht_skey(unsigned int v) { return v; }
HT_D unsigned long long ht_skey(long long v) { return (unsigned long long)v ^ 0x8000000000000000ull; }
HT_D unsigned long long ht_skey(unsigned long long v) { return v; }
HT_D unsigned short ht_skey_bits16(unsigned short b, unsigned short inf_bits) {
    const unsigned short m = (unsigned short)(b & 0x7fffu);
    if (m > inf_bits) return 0xffffu;
    if (m == 0) b = 0;
    return (b & 0x8000u) ? (unsigned short)~b : (unsigned short)(b | 0x8000u);
}
HT_D unsigned short ht_skey(ht_half v) { return ht_skey_bits16(v.bits, 0x7c00u); }
HT_D unsigned short ht_skey(ht_bfloat16 v) { return ht_skey_bits16(v.bits, 0x7f80u); }
HT_D unsigned int ht_skey(float v) {
    unsigned int u = __float_as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
    if ((u & 0x7fffffffu) == 0) u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
HT_D unsigned long long ht_skey(double v) {
    unsigned long long u = (unsigned long long)__double_as_longlong(v);
    if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return ~0ull;
    if ((u & 0x7fffffffffffffffull) == 0) u = 0;
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}
/* complex: (class, re, im); class 0 no NaN, 1 NaN imaginary part, 2 NaN real part, 3 both */
template <class U> struct ht_ckey { unsigned int c; U re, im; };
template <class T> HT_D ht_ckey<decltype(ht_skey(T()))> ht_skey(const ht_complex<T>& z) {
    ht_ckey<decltype(ht_skey(T()))> k;
    k.c = (ht_isnan(z.re) ? 2u : 0u) | (ht_isnan(z.im) ? 1u : 0u);
    k.re = ht_skey(z.re);
    k.im = ht_skey(z.im);
    return k;
}
template <class U> HT_D bool ht_kless(U a, U b) { return a < b; }
template <class U> HT_D bool ht_kless(const ht_ckey<U>& a, const ht_ckey<U>& b) {
    return a.c < b.c || (a.c == b.c && (a.re < b.re || (a.re == b.re && a.im < b.im)));
}
/* the complement reverses the order (descending) */
template <class U> HT_D U ht_kflip(U a) { return (U)~a; }
template <class U> HT_D ht_ckey<U> ht_kflip(const ht_ckey<U>& a) {
    ht_ckey<U> k; k.c = ~a.c; k.re = (U)~a.re; k.im = (U)~a.im; return k;
}
template <class K> struct ht_kmax { HT_D static K get() { return (K)~(K)0; } };
template <class U> struct ht_kmax<ht_ckey<U> > {
    HT_D static ht_ckey<U> get() { ht_ckey<U> k; k.c = ~0u; k.re = (U)~(U)0; k.im = (U)~(U)0; return k; }
};
#endif
"""

# key C++ type and size per dtype (complex: the struct above, padded as the compilers lay it out)
_U = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


def key_type(d: _dt.DType) -> tuple[str, int]:
    """(C++ key type, its size in bytes) of dtype `d`."""
    if d.kind == "c":
        return (("ht_ckey<unsigned int>", 12) if d is _dt.complex64 else ("ht_ckey<unsigned long long>", 24))
    return _U[d.itemsize], d.itemsize


def index_type(n: int) -> str:
    """Positions along a row: int where they fit (the sentinel INT_MAX stays above them)."""
    return "int" if n < 2 ** 31 - 1 else "long long"


_SENTINEL = {"int": "2147483647", "long long": "9223372036854775807LL"}


def _emit(T: str, kn: int) -> str:
    """The last pass's store of position `id` at (row, dest): the index and/or the value."""
    return (f"const long long _o = ht_offset<{kn}>(row, lshape, ostr) + dest * oastr;\n"
            f"            if (out_idx) out_idx[_o] = (long long)id;\n"
            f"            if (out_val) out_val[_o] = ht_at<{T}>(x, ht_offset<{kn}>(row, lshape, lstr) + (long long)id * astr);")


def _tile_source(d: _dt.DType, kn: int, I: str):
    T = d.ctype
    K, _ = key_type(d)
    name = f"ht_sort_tile_{d.name}_{kn}_{I.replace(' ', '')}"
    src = SORT_KEYS + f"""
extern "C" __global__ void {name}(const char* __restrict__ x, ht_dims<{kn}> lshape, ht_dims<{kn}> lstr,
        long long astr, long long L, long long n, long long P, long long segs, int E, int desc,
        {K}* okey, {I}* oidx, long long* out_idx, {T}* out_val, ht_dims<{kn}> ostr, long long oastr) {{
    typedef {K} K;
    typedef {I} I;
    extern __shared__ unsigned long long ht_sort_smem[];
    K* sk = reinterpret_cast<K*>(ht_sort_smem);
    I* si = reinterpret_cast<I*>(reinterpret_cast<unsigned char*>(ht_sort_smem) + (long long)E * sizeof(K));
    const long long per = E / P;
    const long long seg0 = (long long)blockIdx.x * per;
    for (int e = threadIdx.x; e < E; e += blockDim.x) {{
        const long long g = seg0 + e / P, pos = e % P;
        const long long row = g / segs, j = (g % segs) * P + pos;
        K k = ht_kmax<K>::get();
        I id = {_SENTINEL[I]};
        if (row < L && j < n) {{
            k = ht_skey(ht_at<{T}>(x, ht_offset<{kn}>(row, lshape, lstr) + j * astr));
            if (desc) k = ht_kflip(k);
            id = (I)j;
        }}
        sk[e] = k;
        si[e] = id;
    }}
    __syncthreads();
    /* bitonic network over each P-long segment (all segments ascending) */
    for (long long k2 = 2; k2 <= P; k2 <<= 1) {{
        for (long long j2 = k2 >> 1; j2 > 0; j2 >>= 1) {{
            for (int t = threadIdx.x; t < E / 2; t += blockDim.x) {{
                const int a = (int)(2 * j2 * (t / j2) + (t % j2)), b = a + (int)j2;
                const bool up = (((long long)a & (P - 1)) & k2) == 0;
                const K ka = sk[a], kb = sk[b];
                const I ia = si[a], ib = si[b];
                const bool a_after_b = ht_kless(kb, ka) || (!ht_kless(ka, kb) && ib < ia);
                if (a_after_b == up) {{ sk[a] = kb; sk[b] = ka; si[a] = ib; si[b] = ia; }}
            }}
            __syncthreads();
        }}
    }}
    for (int e = threadIdx.x; e < E; e += blockDim.x) {{
        const long long g = seg0 + e / P, pos = e % P;
        const long long row = g / segs, dest = (g % segs) * P + pos;
        if (row >= L || dest >= n) continue;
        if (okey) {{
            okey[row * n + dest] = sk[e];
            oidx[row * n + dest] = si[e];
        }} else {{
            const I id = si[e];
            {_emit(T, kn)}
        }}
    }}
}}
"""
    return src, name


def _merge_source(d: _dt.DType, kn: int, I: str):
    T = d.ctype
    K, _ = key_type(d)
    name = f"ht_sort_merge_{d.name}_{kn}_{I.replace(' ', '')}"
    src = SORT_KEYS + f"""
extern "C" __global__ void {name}(const {K}* __restrict__ ik, const {I}* __restrict__ ii, {K}* ok, {I}* oi,
        long long L, long long n, long long w, const char* __restrict__ x, ht_dims<{kn}> lshape,
        ht_dims<{kn}> lstr, long long astr, long long* out_idx, {T}* out_val, ht_dims<{kn}> ostr,
        long long oastr) {{
    typedef {K} K;
    typedef {I} I;
    const long long total = L * n;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)blockDim.x * gridDim.x) {{
        const long long row = t / n, j = t - row * n, base = row * n;
        const long long r = j / w, start = r * w, pstart = (r ^ 1) * w;
        const K k = ik[t];
        const I id = ii[t];
        long long dest = j;
        if (pstart < n) {{
            /* my place in the merged run: my rank in my run + how many partners come before me */
            long long lo = 0, hi = (n - pstart < w) ? n - pstart : w;
            const K* pk = ik + base + pstart;
            const I* pi = ii + base + pstart;
            while (lo < hi) {{
                const long long mid = (lo + hi) >> 1;
                const K km = pk[mid];
                if (ht_kless(km, k) || (!ht_kless(k, km) && pi[mid] < id)) lo = mid + 1; else hi = mid;
            }}
            dest = (start < pstart ? start : pstart) + (j - start) + lo;
        }}
        if (ok) {{
            ok[base + dest] = k;
            oi[base + dest] = id;
        }} else {{
            {_emit(T, kn)}
        }}
    }}
}}
"""
    return src, name


TILE = TemplateKernel("ht_sort_tile", _tile_source)
MERGE = TemplateKernel("ht_sort_merge", _merge_source)

SMEM_BUDGET = 32768        # bytes of shared memory per block (keys + positions)
MAX_TILE = 4096
MAX_THREADS = 512


def tile_plan(n: int, L: int, d: _dt.DType) -> dict:
    """Geometry of the first pass: segment length P, elements per block E, segments per row,
    blocks, threads, shared bytes (pure arithmetic: the CPU tests check it)."""
    _, ks = key_type(d)
    isz = 4 if index_type(n) == "int" else 8
    tmax = MAX_TILE
    while tmax * (ks + isz) > SMEM_BUDGET:
        tmax //= 2
    if n <= tmax:
        P = pow2_ceil(max(n, 1))
        per = max(1, min(tmax // P, pow2_ceil(L)))
        E = P * per
        if E < 16:
            per, E = 16 // P, 16
        segs = 1
        blocks = -(-L // per)
    else:
        P = E = tmax
        segs = -(-n // P)
        blocks = L * segs
    return dict(P=P, E=E, segs=segs, blocks=blocks, threads=min(E // 2, MAX_THREADS), shared=E * (ks + isz),
                index=index_type(n))


def _need_array(x, name):
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: expected a hip.tensor array, got {type(x).__name__}")


def _sort_axis(name: str, x, axis, descending, stable) -> int:
    """sort's and argsort's arguments checked: the axis to sort along, normalized."""
    _need_array(x, name)
    for flag, what in ((descending, "descending"), (stable, "stable")):
        if not isinstance(flag, bool):
            raise TypeError(f"{name}: {what} must be a bool, got {type(flag).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d array has no axis to sort along")
    return normalize_axis(axis, x.ndim)


def sort_along(x: ndarray, axis: int, descending: bool, want_values: bool, want_indices: bool):
    """(sorted values or None, int64 positions or None), both C-contiguous of x's shape."""
    dev = x.device_id
    vals = ndarray._empty(x.shape, x.dtype, dev) if want_values else None
    idx = ndarray._empty(x.shape, _dt.int64, dev) if want_indices else None
    if x.size == 0:
        return vals, idx
    xm = moveaxis(x, axis, -1)
    ref = vals if vals is not None else idx
    om = moveaxis(ref, axis, -1)
    n = xm.shape[-1]
    lines = xm.shape[:-1]
    L = prod(lines)
    ostr_el = tuple(s // ref.itemsize for s in om.strides)
    lshape, (lstr, ostr) = collapse(lines, [xm.strides[:-1], ostr_el[:-1]])
    if not lshape:
        lshape, lstr, ostr = (1,), (0,), (0,)
    kn = len(lshape)
    geo = [dims(lshape), dims(lstr), xm.strides[-1]]
    outs = [idx, vals, dims(ostr), ostr_el[-1]]
    plan = tile_plan(n, L, x.dtype)
    I = plan["index"]
    tile = TILE.function(dev, x.dtype, kn, I)
    P, E, segs = plan["P"], plan["E"], plan["segs"]
    if segs == 1:
        launch_grid(tile, plan["blocks"], plan["threads"],
                    [xm, geo[0], geo[1], geo[2], L, n, P, segs, _i32(E), _i32(descending), None, None] + outs,
                    dev, plan["shared"])
        return vals, idx
    _, ks = key_type(x.dtype)
    isz = 4 if I == "int" else 8
    keys = [alloc(L * n * ks), alloc(L * n * ks)]
    pos = [alloc(L * n * isz), alloc(L * n * isz)]
    launch_grid(tile, plan["blocks"], plan["threads"],
                [xm, geo[0], geo[1], geo[2], L, n, P, segs, _i32(E), _i32(descending), keys[0], pos[0],
                 None, None, geo[0], 0], dev, plan["shared"])
    merge = MERGE.function(dev, x.dtype, kn, I)
    w, src = P, 0
    while w < n:
        final = 2 * w >= n
        dst = 1 - src
        launch_flat(merge, L * n, [keys[src], pos[src], None if final else keys[dst], None if final else pos[dst],
                                   L, n, w, xm, geo[0], geo[1], geo[2]] + (outs if final else [None, None, geo[0], 0]),
                    dev)
        src, w = dst, 2 * w
    return vals, idx


def _i32(v) -> np.int32:
    return np.int32(int(v))


def sort(x, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> ndarray:
    """A sorted copy of x along `axis` (stable; NaNs last, or first when descending)."""
    return sort_along(x, _sort_axis("sort", x, axis, descending, stable), descending, True, False)[0]


def argsort(x, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> ndarray:
    """int64 positions that sort x along `axis` (stable; NaNs last, or first when descending)."""
    return sort_along(x, _sort_axis("argsort", x, axis, descending, stable), descending, False, True)[1]
