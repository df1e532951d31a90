"""Every kernel of hip.tensor's searching, sorting, set and linear-algebra functions, compiled
without a GPU by the real ROCm hiprtc (gfx90a) and, where the build fetched NVIDIA's wheel, by
NVRTC (sm_90): sort tiles and merges (every dtype, line dimensions, 32/64-bit positions), argmax/
argmin (every dtype, layouts, both passes), where, nonzero, searchsorted, count_nonzero, unique's
kernels and isin's, the tiled integer matmul, vecdot and the norms (every dtype, reduction layouts), as the
library's own generators write them; plus the sort keys' struct sizes the host code assumes."""
from __future__ import annotations

import re

import pytest

from hip.tensor._kernels import compiler as C
from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import elementwise as ek
from hip.tensor._kernels import source as ks
from hip.tensor._api import linalg as la
from hip.tensor._api import searching as sr
from hip.tensor._api import sets as st
from hip.tensor._api import sorting as so
from hip.tensor import linalg as ext
from hip.tensor._api.elementwise import math_dtype

from test_tensor_kernels_compile import REDUCTION_LAYOUTS, _red as _red_one
from test_tensor_kernels_compile import check_hiprtc, check_nvrtc, no_disk_cache, nvrtc  # noqa: F401

BATCH = 150
INTS_BOOL = [d for d in dt.ALL if d.kind in "biu"]


def _ew(kernel, dtypes, kinds=None, ndim=0, bindings=None, index="unsigned int"):
    spec, b = ek.spec_for(kernel, dtypes, kinds=kinds, ndim=ndim, index=index, bindings=bindings)
    return kernel.generate(spec, b)[0]


def _red(kernel, dtypes, bindings, kinds=None):
    return [(layout[0], _red_one(kernel, dtypes, bindings, layout, kinds)) for layout in REDUCTION_LAYOUTS]


def sorting_matrix():
    out = []
    for d in dt.ALL:
        for kn in (1, 3):
            for index in ("int", "long long"):
                out.append((f"sort_tile[{d.name},{kn},{index}]", so.TILE.source(d, kn, index)))
                out.append((f"sort_merge[{d.name},{kn},{index}]", so.MERGE.source(d, kn, index)))
    return out


def searching_matrix():
    out = []
    for d in dt.ALL:
        for kn, rn in ((1, 1), (2, 1), (1, 3)):
            for lane in (True, False):
                for is_max in (True, False):
                    out.append((f"arg{'max' if is_max else 'min'}[{d.name},{kn},{rn},{lane}]",
                                sr.ARGEXT.source(d, kn, rn, lane, False, is_max)))
        for is_max in (True, False):
            out.append((f"arg{'max' if is_max else 'min'}[{d.name}]/final", sr.ARGEXT.source(d, 1, 1, True, True, is_max)))
        for ndim in (0, 3):
            out.append((f"where[{d.name}]/{ndim}", _ew(sr._where_k, (dt.bool, d, d, d), ndim=ndim,
                                                       bindings={"Y": d})))
        out.append((f"where[{d.name}]/scalar", _ew(sr._where_k, (dt.bool, d, d, d), ("array", "array", "scalar", "array"),
                                                   bindings={"Y": d, "X2": d})))
        out.append((f"where[{d.name}]/int8-condition", _ew(sr._where_k, (dt.int8, d, dt.float32, dt.result_type(d, dt.float32)),
                                                           ndim=2, bindings={"Y": dt.result_type(d, dt.float32)})))
        for side, k in sr._search_k.items():
            for ndim in (0, 2):
                out.append((f"searchsorted_{side}[{d.name}]/{ndim}",
                            _ew(k, (d, d, dt.int64, dt.int64), ("raw", "array", "scalar", "array"), ndim, {"C": d})))
            out.append((f"searchsorted_{side}[{d.name}]/scalar",
                        _ew(k, (d, d, dt.int64, dt.int64), ("raw", "scalar", "scalar", "array"), 0, {"C": d, "V": d})))
            if d.kind in "fc":         # integer values searched in a float array (converted in the kernel)
                out.append((f"searchsorted_{side}[{d.name}/int8]",
                            _ew(k, (d, dt.int8, dt.int64, dt.int64), ("raw", "array", "scalar", "array"), 0, {"C": d})))
        for label, body in _red(sr._count_k, (d, dt.int64), {}):
            out.append((f"count_nonzero[{d.name}]/{label}", body))
    for nd in (1, 2, 3, 4):
        out.append((f"nonzero[{nd}]", sr.NONZERO.source(nd)))
    return out


def set_matrix():
    out = []
    for d in dt.ALL:
        out.append((f"unique_starts[{d.name}]", _ew(st._starts_k, (d, dt.bool), ("raw", "array"),
                                                    bindings={"M": math_dtype(d)})))
        out.append((f"unique_scatter[{d.name}]", st.SCATTER.source(d)))
    out.append(("unique_counts", st.COUNTS.source()))
    for d in dt.ALL:            # isin: x1's values searched in sorted x2 (x1 an array, or a scalar)
        b = {"C": d, "M": math_dtype(d)}
        out.append((f"isin[{d.name}]", _ew(st._isin_k, (d, d, dt.int64, dt.bool, dt.bool),
                                           ("raw", "array", "scalar", "scalar", "array"), bindings=b)))
        out.append((f"isin[{d.name}]/scalar", _ew(st._isin_k, (d, d, dt.int64, dt.bool, dt.bool),
                                                  ("raw", "scalar", "scalar", "scalar", "array"), bindings={**b, "V": d})))
    out.append(("isin[int8,int16]", _ew(st._isin_k, (dt.int16, dt.int8, dt.int64, dt.bool, dt.bool),
                                        ("raw", "array", "scalar", "scalar", "array"),
                                        bindings={"C": dt.int16, "M": dt.int16})))
    return out


def linalg_matrix():
    out = []
    for d in INTS_BOOL:
        for bn in (1, 2):
            out.append((f"matmul_tiled[{d.name},{bn}]", la.TILED.source(d, bn)))
    for d in dt.ALL:
        if d.kind not in "biufc":
            continue
        b = {"A": math_dtype(d), "Y": d}
        for label, body in _red(la._vecdot_k, (d, d, d), b):
            out.append((f"vecdot[{d.name}]/{label}", body))
        y = ext._norm_dtype(d)
        a = math_dtype(d if d.kind in "fc" else y)
        nb = {"A": a, "R": a.real_dtype, "Y": y}
        for key, k in ext._NORMS.items():
            for label, body in _red(k, (d, dt.float64, y), nb, kinds=("array", "scalar")):
                out.append((f"norm{key}[{d.name}]/{label}", body))
    mixed = dt.result_type(dt.int8, dt.float32)
    for label, body in _red(la._vecdot_k, (dt.int8, dt.float32, mixed), {"A": mixed, "Y": mixed}):
        out.append((f"vecdot[int8,float32]/{label}", body))
    return out


KEY_SIZES = "\n".join(
    f"static_assert(sizeof({so.key_type(d)[0]}) == {so.key_type(d)[1]}, \"key size of {d.name}\");"
    for d in dt.ALL) + "\n"

MATRIX = sorting_matrix() + searching_matrix() + set_matrix() + linalg_matrix()
BATCHES = [MATRIX[i:i + BATCH] for i in range(0, len(MATRIX), BATCH)]


def test_matrix_covers_every_function_and_dtype():
    names = {label.split("[")[0].split("/")[0] for label, _ in MATRIX}
    assert {"sort_tile", "sort_merge", "argmax", "argmin", "where", "nonzero", "searchsorted_left",
            "searchsorted_right", "count_nonzero", "unique_starts", "unique_scatter", "unique_counts", "isin",
            "matmul_tiled", "vecdot", "norm2", "norm1", "norminf", "norm-inf", "norm0", "normp"} <= names
    for fn in ("sort_tile", "argmax", "where", "searchsorted_left", "unique_scatter", "isin", "vecdot", "norm2"):
        covered = {label.split("[")[1].split("]")[0].split(",")[0].split("/")[0] for label, _ in MATRIX
                   if label.startswith(fn + "[")}
        assert {d.name for d in dt.ALL} <= covered, (fn, {d.name for d in dt.ALL} - covered)
    kernel_names = [m for _, body in MATRIX for m in re.findall(r'__global__ void (\w+)\(', body)]
    assert len(kernel_names) == len(set(kernel_names)) == len(MATRIX)


@pytest.mark.runtime
@pytest.mark.parametrize("batch", range(len(BATCHES)))
def test_batch_compiles_with_hiprtc_for_gfx90a(batch, no_disk_cache):  # noqa: F811
    check_hiprtc(BATCHES[batch], (so.SORT_KEYS + KEY_SIZES,))


@pytest.mark.parametrize("batch", range(len(BATCHES)))
def test_batch_compiles_with_nvrtc_for_sm90(batch, nvrtc):  # noqa: F811
    check_nvrtc(nvrtc, BATCHES[batch], (so.SORT_KEYS + KEY_SIZES,))
