"""What array API 2025.12 added to hip.tensor, checked without a device: nextafter's C++ (the
prelude's, compiled for the host by g++) against NumPy in every float type, bfloat16 included; the
new functions' type rules and argument checks (arrays at a fake address, never touched); the
dtype answers the suite found wrong (a dtype equal to None); zero-size boolean masks; the
inspection namespace's dtypes. The kernels themselves: tests/tensor/test_tensor_*_compile.py
(compiled) and the *_gpu.py files (run)."""
from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import hip.tensor as ht
from hip.tensor._api import elementwise as ew
from hip.tensor._core import dtypes as dt
from hip.tensor._kernels import source as ks
from host_kernels import BIT_CASTS

BASE = 1 << 32


def fake(shape, dtype="float32") -> ht.ndarray:
    """An array of `shape` at a fake address (memory never read)."""
    d = ht.dtype(dtype)
    strides = np.empty(shape, np.uint16 if d is dt.bfloat16 else d.numpy).strides
    return ht.ndarray._view_of(None, BASE, shape, strides, d, 0)


# -- nextafter: the kernels' C++ on the host ----------------------------------------------------------------
SHIM = "#include <cstring>\n#define HT_D inline\n" + BIT_CASTS
# C++ type, the NumPy dtype holding it (bfloat16: its bits)
TYPES = {"f": ("float", np.float32), "d": ("double", np.float64), "h": ("ht_half", np.float16),
         "b": ("ht_bfloat16", np.uint16)}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    d = tmp_path_factory.mktemp("nextafter")
    body = [SHIM, ks._TWO_BYTE_FLOATS, ks.NEXTAFTER]
    for s, (t, _) in TYPES.items():
        body.append(f'extern "C" void nx_{s}(const {t}* x, const {t}* y, {t}* o, long n) '
                    f'{{ for (long i = 0; i < n; ++i) o[i] = ht_nextafter(x[i], y[i]); }}')
    (d / "n.cpp").write_text("\n".join(body))
    r = subprocess.run(["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", str(d / "n.so"),
                        str(d / "n.cpp")], capture_output=True, text=True)
    if r.returncode and "_Float16" in r.stderr:
        pytest.skip("this g++ has no _Float16 (the prelude's float16 conversions)")
    assert r.returncode == 0, f"g++ rejects the kernel source:\n{r.stderr[-4000:]}"
    return ctypes.CDLL(str(d / "n.so"))


def nextafter(lib, s, x, y):
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    o = np.empty_like(x)
    getattr(lib, f"nx_{s}")(*(a.ctypes.data_as(ctypes.c_void_p) for a in (x, y, o)), ctypes.c_long(x.size))
    return o


def _operands(dtype, n=4000, seed=0):
    """Pairs of random bit patterns (NaNs, infinities, subnormals included), then every pair of
    special values (signed zeros, the smallest subnormal, the largest finite, infinities, NaN)."""
    info = np.finfo(dtype)
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    rng = np.random.default_rng(seed)
    x = rng.integers(0, np.iinfo(bits).max, n, dtype=bits, endpoint=True).view(dtype)
    y = rng.integers(0, np.iinfo(bits).max, n, dtype=bits, endpoint=True).view(dtype)
    sp = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, info.smallest_subnormal, -info.smallest_subnormal,
                   info.max, -info.max, info.smallest_normal], dtype=dtype)
    a, b = np.meshgrid(sp, sp)
    return np.concatenate([x, a.ravel()]), np.concatenate([y, b.ravel()])


@pytest.mark.parametrize("s", ["h", "f", "d"])
def test_nextafter_is_numpys_bit_for_bit(lib, s):
    """NumPy's nextafter, signed zeros included, but the array API's -0 toward +0 (+0) in float16."""
    np_dtype = TYPES[s][1]
    bits = np.dtype(f"u{np.dtype(np_dtype).itemsize}")
    x, y = _operands(np_dtype)
    with np.errstate(all="ignore"):
        got, want = nextafter(lib, s, x, y), np.nextafter(x, y)
    # x == y gives y (the array API's and C's: -0 toward +0 is +0); NumPy's float16 loop gives x
    want = np.where(x == y, y, want)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(bits), want[~nan].view(bits))     # signed zeros too


def test_nextafter_bfloat16_steps_to_the_adjacent_bfloat16(lib):
    """bfloat16 (no NumPy type): one step in bfloat16's own precision, to the neighbour in value."""
    rng = np.random.default_rng(1)
    x = rng.integers(0, 0xFFFF, 6000, dtype=np.uint16, endpoint=True)
    y = rng.integers(0, 0xFFFF, 6000, dtype=np.uint16, endpoint=True)
    x[:8] = [0x0000, 0x8000, 0x0001, 0x8001, 0x7F7F, 0xFF7F, 0x3F80, 0x7F80]       # 0, -0, tiny, max, 1, inf
    y[:8] = [0x3F80, 0xBF80, 0xBF80, 0x3F80, 0x7F80, 0xFF80, 0x3F80, 0x0000]
    as_f = (lambda b: (b.astype(np.uint32) << 16).view(np.float32))
    got = nextafter(lib, "b", x, y)
    fx, fy, fg = as_f(x), as_f(y), as_f(got)
    every = np.unique(as_f(np.arange(0x10000, dtype=np.uint32).astype(np.uint16)))
    every = every[~np.isnan(every)]                            # all bfloat16 values, ascending
    nan = np.isnan(fx) | np.isnan(fy)
    assert np.isnan(fg[nan]).all()
    same = ~nan & (fx == fy)
    assert np.array_equal(got[same], y[same])                  # y itself: -0 toward +0 is +0
    step = ~nan & (fx != fy)
    i = np.searchsorted(every, fx[step])
    up = fy[step] > fx[step]
    want = np.where(up, every[np.minimum(i + 1, every.size - 1)], every[np.maximum(i - 1, 0)])
    np.testing.assert_array_equal(fg[step], want)
    zero_x = step & (fx == 0)                                  # from zero: y's sign
    assert np.array_equal(np.signbit(fg[zero_x]), np.signbit(fy[zero_x]))
    tiny_to_zero = step & (np.abs(fx) == every[every > 0][0]) & (fg == 0)      # toward zero: x's sign
    assert np.array_equal(np.signbit(fg[tiny_to_zero]), np.signbit(fx[tiny_to_zero]))


# -- type rules -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,want", [
    ("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64"),
    ("int8", "float16"), ("int32", "float64"), ("bool", "float16")])
def test_nextafter_computes_in_its_result_type(name, want):
    c, y = ew._OPS["nextafter"].resolve(dt.dtype(name))
    assert y.name == want and c is y          # 2-byte floats step in their own precision, not float32's
    with pytest.raises(TypeError):
        ew._OPS["nextafter"].resolve(dt.complex64)


@pytest.mark.parametrize("name,want", [
    ("float16", "float16"), ("float32", "float32"), ("float64", "float64"), ("complex64", "complex64"),
    ("int8", "float64"), ("uint64", "float64"), ("bool", "float64")])
def test_reciprocal_is_one_over_x(name, want):
    c, y = ew._OPS["reciprocal"].resolve(dt.dtype(name))
    assert y.name == want and (c, y) == ew._OPS["divide"].resolve(dt.dtype(name))


def test_no_dtype_equals_none():
    # None == float64 held (dtype(None) is the default float): the suite's can_cast check read
    # can_cast(complex64, float64) as promised by a missing promotion-table entry
    assert all(d != None for d in dt.ALL) and not any(d == None for d in dt.ALL)  # noqa: E711
    assert ht.float64 == "float64" and ht.float64 == np.float64
    assert not ht.can_cast(ht.complex64, ht.float64) and ht.can_cast(ht.float32, ht.complex64)


def test_inspection_lists_the_standards_dtypes_only():
    info = ht.__array_namespace_info__()
    names = set(info.dtypes())
    assert names == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                     "float32", "float64", "complex64", "complex128"}
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert ht.dtype("float16") is ht.float16 and ht.dtype("bfloat16") is ht.bfloat16     # still supported
    assert "max dimensions" in info.capabilities()


# -- argument checks before any device work -------------------------------------------------------------
X = fake((3, 4))
V = fake((4,))
I2 = fake((3, 4), "int64")


@pytest.mark.parametrize("call,exc", [
    (lambda: ht.diff(np.ones(3)), TypeError),
    (lambda: ht.diff(fake(())), ValueError),
    (lambda: ht.diff(V, n=-1), ValueError),
    (lambda: ht.diff(V, n=1.0), TypeError),
    (lambda: ht.diff(V, n=True), TypeError),
    (lambda: ht.diff(X, axis=2), IndexError),
    (lambda: ht.diff(V, prepend=[1.0]), TypeError),
    (lambda: ht.cumulative_prod(X), ValueError),
    (lambda: ht.cumulative_prod(fake(())), ValueError),
    (lambda: ht.cumulative_prod(X, axis=-3), IndexError),
    (lambda: ht.cumulative_prod(np.ones(3)), TypeError),
    (lambda: ht.isin(1, 2), TypeError),
    (lambda: ht.isin(V, [1, 2]), TypeError),
    (lambda: ht.isin(V, V, invert=1), TypeError),
    (lambda: ht.isin(V, ht.ndarray._view_of(None, BASE, (2,), (4,), ht.float32, 1)), ValueError),   # two devices
    (lambda: ht.take_along_axis(X, np.zeros((3, 4), np.int64)), TypeError),
    (lambda: ht.take_along_axis(X, fake((3,), "int64")), ValueError),
    (lambda: ht.take_along_axis(X, fake((3, 4))), IndexError),
    (lambda: ht.take_along_axis(X, I2, axis=2), IndexError),
    (lambda: ht.take_along_axis(X, fake((2, 4), "int64"), axis=1), ValueError),   # 3 vs 2: no broadcast
    (lambda: ht.nextafter(fake((2,), "complex64"), fake((2,), "complex64")), TypeError),
    (lambda: ht.nextafter(np.ones(2), V), TypeError),
    (lambda: ht.reciprocal([1.0]), TypeError),
    (lambda: ht.linalg.eig(fake((2, 3))), ht.linalg.LinAlgError),
], ids=lambda v: "" if callable(v) else v.__name__)
def test_bad_input_raises_before_any_device_call(call, exc):
    with pytest.raises(exc):
        call()


def test_diff_of_order_zero_is_x_itself():
    assert ht.diff(X, n=0) is X


def test_empty_results_need_no_kernel():
    # shapes follow NumPy: the indices' length along axis, the rest broadcast
    assert ht.take_along_axis(X, fake((3, 0), "int64"), axis=1).shape == (3, 0)
    assert ht.take_along_axis(fake((1, 4)), fake((0, 2), "int32"), axis=1).shape == (0, 2)
    assert ht.take_along_axis(fake((0, 4)), fake((0, 7), "int64"), axis=-1).shape == (0, 7)


def test_a_zero_size_mask_dimension_selects_nothing():
    """The array API: a boolean index's dimension of size 0 matches any dimension (NumPy: only 0)."""
    assert X[np.zeros(0, bool)].shape == (0, 4)
    assert X[np.zeros((0, 4), bool)].shape == (0,)
    assert X[np.zeros((3, 0), bool)].shape == (0,)
    assert fake((1,))[np.zeros(0, bool)].shape == (0,)
    with pytest.raises(IndexError):
        X[np.zeros(2, bool)]
    with pytest.raises(IndexError):
        X[np.zeros((3, 2), bool)]
