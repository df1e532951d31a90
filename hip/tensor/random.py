"""`hip.tensor.random`: random arrays from hipRAND (rocRAND on AMD, cuRAND on the nvidia platform),
in the style of NumPy's `numpy.random.Generator`.

    rng = ht.random.default_rng(42)
    x = rng.standard_normal((1000, 3), dtype=ht.float32)
    k = rng.integers(0, 10, size=100)

A `Generator` holds one hipRAND generator per device (made on first use there, seeded with the
Generator's seed once), bound to the current stream only when that changes. The engine is
Philox4x32-10 by default (`method="philox"`, as PyTorch's CUDA generator): counter-based, so a seed
is two words and no state-setup kernel ever runs; hipRAND's own default, XORWOW (`method="default"`
or `"xorwow"`), keeps a state table per thread that a setup kernel fills after each seeding. A call
is one hipRAND generate launch, plus one transform kernel where the distribution needs it
(uniform and integers from raw words; casts to float16/bfloat16 or to Poisson's integer dtype).
The same seed and method give the same numbers on the same platform and library version;
rocRAND's and cuRAND's sequences differ, and none equals NumPy's.

How each distribution is made: `random`/`uniform` from 32-bit words (hiprandGenerate), NumPy's
way (24 bits for float32, 53 for float64: [0, 1) exactly, where hiprandGenerateUniform gives
(0, 1]); `standard_normal`/`normal`/`lognormal` by hiprandGenerateNormal/LogNormal(Double) (cuRAND
wants an even count: an odd one is generated one longer); `poisson` by hiprandGeneratePoisson;
`integers` from 64 random bits per value, scaled by a multiply-high (bias below range/2^64,
NumPy's is exact); `permutation`/`shuffle` by argsort of 64-bit random keys. float16 and bfloat16
are the float32 results cast (random/uniform: made exactly in the 2-byte type).
"""
from __future__ import annotations

import operator
import threading
import weakref
import numpy as np

from hip.errors import HipError, check

from ._api.creation import empty as _empty, zeros as _zeros
from ._api.sorting import argsort as _argsort
from ._core import dtypes as _dt
from ._core.array import ndarray
from ._core.device import current_stream as _current_stream
from ._core.shapes import as_shape, normalize_axis, prod
from ._kernels.elementwise import ElementwiseKernel as _ElementwiseKernel, _on_device
from ._libs.loader import library

__all__ = ["Generator", "default_rng", "seed", "get_default_generator", "random", "random_sample", "rand",
           "randn", "uniform", "standard_normal", "normal", "lognormal", "poisson", "integers", "randint",
           "permutation", "shuffle"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_SEED_LIMIT = 2 ** 64
_METHODS = {"xorwow": "HIPRAND_RNG_PSEUDO_XORWOW", "philox": "HIPRAND_RNG_PSEUDO_PHILOX4_32_10",
            "mrg32k3a": "HIPRAND_RNG_PSEUDO_MRG32K3A", "mtgp32": "HIPRAND_RNG_PSEUDO_MTGP32",
            "mt19937": "HIPRAND_RNG_PSEUDO_MT19937", "default": "HIPRAND_RNG_PSEUDO_DEFAULT"}


class RandError(HipError):
    """A hipRAND call failed: `.status` (its hiprandStatus_t), `.library`, `.function`."""


def _lib():
    return library("hiprand")


# -- argument checks (no device work: they run before anything is allocated) ------------------------
def _size(size) -> tuple[int, ...]:
    """NumPy's `size`: None (one value, here a 0-d array), an int or a tuple of ints."""
    return () if size is None else as_shape(size)


def _float_dtype(dtype, what: str) -> _dt.DType:
    d = _dt.dtype(dtype)
    if d.name not in _FLOATS:
        raise TypeError(f"{what}: dtype must be a floating type ({', '.join(_FLOATS)}), got {d.name}")
    return d


def _real(v, name: str, what: str) -> float:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: {name} must be a real scalar (arrays of parameters are not supported), "
                        f"got {type(v).__name__}")
    v = float(v)
    if not np.isfinite(v):
        raise ValueError(f"{what}: {name} must be finite, got {v}")
    return v


def _seed_value(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().generate_state(2, np.uint32).view(np.uint64)[0])
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError("seed must be None or an int")
    try:
        s = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be None or an int, got {type(seed).__name__}") from None
    if not 0 <= s < _SEED_LIMIT:
        raise ValueError(f"seed must be in [0, 2**64), got {s}")
    return s


def integer_bounds(low, high, endpoint: bool, d: _dt.DType) -> tuple[int, int]:
    """(low, number of values) of `integers` for dtype `d`; NumPy's errors for empty or
    out-of-range intervals."""
    if d.kind not in "biu":
        raise TypeError(f"integers: dtype must be an integer type or bool, got {d.name}")
    vals = []
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, (float, np.floating)) or not hasattr(v, "__index__"):
            raise TypeError(f"integers: {name} must be an int (arrays of bounds are not supported), "
                            f"got {type(v).__name__}")
        vals.append(operator.index(v))
    lo, hi = vals
    top = hi if endpoint else hi - 1
    if lo > top:
        raise ValueError(f"integers: low {'>' if endpoint else '>='} high ({lo}, {hi})")
    if d.kind == "b":
        mn, mx = 0, 1
    else:
        info = np.iinfo(d.numpy)
        mn, mx = int(info.min), int(info.max)
    if lo < mn:
        raise ValueError(f"integers: low {lo} is out of bounds for {d.name}")
    if top > mx:
        raise ValueError(f"integers: high {hi} is out of bounds for {d.name}")
    return lo, top - lo + 1


# -- kernels over random 32-bit words ---------------------------------------------------------------
_PREAMBLE = r"""
#ifndef HT_RANDOM_PREAMBLE
#define HT_RANDOM_PREAMBLE
// The high 64 bits of a 64 x 64-bit product, from 32-bit halves (no __int128, no intrinsic).
HT_D unsigned long long ht_mulhi64(unsigned long long a, unsigned long long b) {
    const unsigned long long al = (unsigned int)a, ah = a >> 32, bl = (unsigned int)b, bh = b >> 32;
    const unsigned long long p0 = al * bl, p1 = al * bh, p2 = ah * bl, p3 = ah * bh;
    const unsigned long long mid = (p0 >> 32) + (unsigned int)p1 + (unsigned int)p2;
    return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}
HT_D unsigned long long ht_word64(const unsigned int* b, long long i) {
    return ((unsigned long long)b[2 * i] << 32) | b[2 * i + 1];
}
#endif
"""

# [0, 1) on a grid of 2^-p (p: the type's significand bits, so every value is exact), then
# lo + span * u in double, rounded once to Y.
_UNIT_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_kernels: dict = {}


def _unit_kernel(d: _dt.DType):
    p = _UNIT_BITS[d.name]
    k = _kernels.get(("unit", p))
    if k is None:
        word = "ht_word64(b, i) >> 11" if p == 53 else f"b[i] >> {32 - p}"
        k = _kernels[("unit", p)] = _ElementwiseKernel(
            "raw uint32 b, float64 lo, float64 span", "Y y",
            f"y = ht_cast<Y>(lo + span * ((double)({word}) * {1.0 / 2 ** p!r}));",
            f"ht_random_unit{p}", preamble=_PREAMBLE)
    return k


def words_per_value(d: _dt.DType) -> int:
    return 2 if _UNIT_BITS[d.name] == 53 else 1


def _integers_kernel():
    k = _kernels.get("integers")
    if k is None:
        k = _kernels["integers"] = _ElementwiseKernel(
            "raw uint32 b, uint64 lo, uint64 span_m1", "Y y",
            "const unsigned long long r = ht_word64(b, i);\n"
            "        const unsigned long long off = span_m1 == ~0ull ? r : ht_mulhi64(r, span_m1 + 1ull);\n"
            "        y = (Y)(lo + off);",
            "ht_random_integers", preamble=_PREAMBLE)
    return k


def kernels_for_compile_check():
    """(label, kernel, dtypes, bindings) of every kernel this module launches (the CPU compile test)."""
    out = [(f"random_unit[{n}]", _unit_kernel(_dt.dtype(n)), (_dt.uint32, _dt.float64, _dt.float64, _dt.dtype(n)),
            {"Y": _dt.dtype(n)}) for n in _FLOATS]
    out += [(f"random_integers[{d.name}]", _integers_kernel(), (_dt.uint32, _dt.uint64, _dt.uint64, d), {"Y": d})
            for d in _dt.ALL if d.kind in "biu"]
    return out


# -- the generator ---------------------------------------------------------------------------------
def _destroy(handles: dict) -> None:
    if not handles:                 # never used: no library to load
        return
    try:
        R = _lib()
        for g in handles.values():
            R.hiprandDestroyGenerator(g)
    except Exception:           # interpreter shutdown, library gone: the process frees them
        pass
    handles.clear()


class Generator:
    """Random arrays from hipRAND, seeded (NumPy's Generator's method names and arguments;
    results are hip.tensor arrays on the current device; `size=None` gives a 0-d array)."""

    def __init__(self, seed=None, *, method: str = "philox"):
        if method not in _METHODS:
            raise ValueError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
        self._seed = _seed_value(seed)
        self._method = method
        self._handles: dict = {}        # device id -> hiprandGenerator_t
        self._bound: dict = {}          # device id -> the stream handle its generator is set to
        self._lock = threading.Lock()
        fin = weakref.finalize(self, _destroy, self._handles)
        fin.atexit = False              # at exit the runtime may already be torn down

    def __repr__(self):
        return f"Generator(seed={self._seed}, method={self._method!r})"

    @property
    def seed(self) -> int:
        return self._seed

    def _fill(self, fn: str, out, n: int, *args) -> None:
        """hiprand `fn` writing n values at `out` (an ndarray) on the current stream of its device."""
        R = _lib()
        dev = out.device_id
        stream = _current_stream(dev).ptr
        with self._lock, _on_device(dev):
            g = self._handles.get(dev)
            if g is None:
                kind = getattr(R.hiprandRngType, _METHODS[self._method])
                g = check(R.hiprandCreateGenerator(kind), "hiprandCreateGenerator", RandError)
                self._handles[dev] = g
                check(R.hiprandSetPseudoRandomGeneratorSeed(g, self._seed), "hiprandSetPseudoRandomGeneratorSeed",
                      RandError)
            if self._bound.get(dev) != stream:      # a stream handle value names one live stream
                check(R.hiprandSetStream(g, stream), "hiprandSetStream", RandError)
                self._bound[dev] = stream
            check(getattr(R, fn)(g, out.ptr, n, *args), fn, RandError)

    def _words(self, count: int) -> ndarray:
        """`count` random uint32 words (a 1-d array)."""
        w = ndarray._empty((count,), _dt.uint32)
        if count:
            self._fill("hiprandGenerate", w, count)
        return w

    # -- floating distributions ------------------------------------------------------------------
    def random(self, size=None, dtype=_dt.float64) -> ndarray:
        """Uniform floats in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype=_float_dtype(dtype, "random"))

    def uniform(self, low=0.0, high=1.0, size=None, *, dtype=_dt.float64) -> ndarray:
        """Uniform floats in [low, high) (high itself may come out by rounding, as in NumPy)."""
        shape = _size(size)
        d = _float_dtype(dtype, "uniform")
        lo, hi = _real(low, "low", "uniform"), _real(high, "high", "uniform")
        out = ndarray._empty(shape, d)
        n = prod(shape)
        if n:
            _unit_kernel(d)(self._words(n * words_per_value(d)), np.float64(lo), np.float64(hi - lo), out)
        return out

    def _normal_like(self, fn: str, what: str, mean, sigma, size, dtype) -> ndarray:
        shape = _size(size)
        d = _float_dtype(dtype, what)
        mean, sigma = _real(mean, "loc" if what == "normal" else "mean", what), _real(sigma, "scale" if what == "normal" else "sigma", what)
        if sigma < 0:
            raise ValueError(f"{what}: {'scale' if what == 'normal' else 'sigma'} must be >= 0, got {sigma}")
        n = prod(shape)
        gen = d if d.name in ("float32", "float64") else _dt.float32
        if n == 0:
            return ndarray._empty(shape, d)
        m = n + (n & 1)                 # cuRAND: an even count for normal distributions
        buf = ndarray._empty((m,), gen)
        self._fill(fn + ("Double" if gen is _dt.float64 else ""), buf, m, mean, sigma)
        out = buf if m == n else buf[:n]
        out = out.reshape(shape)
        return out if gen is d else out.astype(d)

    def standard_normal(self, size=None, dtype=_dt.float64) -> ndarray:
        """Normal floats of mean 0 and standard deviation 1."""
        return self._normal_like("hiprandGenerateNormal", "standard_normal", 0.0, 1.0, size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, *, dtype=_dt.float64) -> ndarray:
        """Normal floats of mean `loc` and standard deviation `scale` (>= 0)."""
        return self._normal_like("hiprandGenerateNormal", "normal", loc, scale, size, dtype)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, *, dtype=_dt.float64) -> ndarray:
        """exp of normal floats of mean `mean` and standard deviation `sigma` (>= 0)."""
        return self._normal_like("hiprandGenerateLogNormal", "lognormal", mean, sigma, size, dtype)

    # -- discrete distributions --------------------------------------------------------------------
    def poisson(self, lam=1.0, size=None, *, dtype=_dt.int64) -> ndarray:
        """Poisson counts of mean `lam` (>= 0) as `dtype` (int64 by default, as NumPy)."""
        shape = _size(size)
        d = _dt.dtype(dtype)
        if d.kind not in "iu":
            raise TypeError(f"poisson: dtype must be an integer type, got {d.name}")
        lam = _real(lam, "lam", "poisson")
        if lam < 0:
            raise ValueError(f"poisson: lam must be >= 0, got {lam}")
        if lam > 2 ** 31:
            raise ValueError(f"poisson: lam {lam} is too large (hipRAND counts in 32 bits)")
        n = prod(shape)
        if lam == 0 or n == 0:          # hipRAND refuses lambda 0; every count is 0
            return _zeros(shape, dtype=d)
        buf = ndarray._empty(shape, _dt.uint32)
        self._fill("hiprandGeneratePoisson", buf, n, lam)
        return buf if d is _dt.uint32 else buf.astype(d)

    def integers(self, low, high=None, size=None, dtype=_dt.int64, endpoint: bool = False) -> ndarray:
        """Uniform integers in [low, high) ([low, high] with endpoint=True); `high=None`: [0, low)."""
        if high is None:
            low, high = 0, low
        shape = _size(size)
        d = _dt.dtype(dtype)
        lo, span = integer_bounds(low, high, bool(endpoint), d)
        out = ndarray._empty(shape, d)
        n = prod(shape)
        if n:
            _integers_kernel()(self._words(2 * n), np.uint64(lo % _SEED_LIMIT), np.uint64(span - 1), out)
        return out

    # -- permutations --------------------------------------------------------------------------------
    def _order(self, n: int) -> ndarray:
        """A random permutation of range(n) as int64 (argsort of random 64-bit keys)."""
        w = self._words(2 * n)
        keys = w._view(w.ptr, (n,), (8,), _dt.uint64)      # the words' bytes read as n uint64
        return _argsort(keys)

    def permutation(self, x, axis: int = 0) -> ndarray:
        """A permuted range(x) (x an int), or a copy of the array x shuffled along `axis`."""
        if isinstance(x, ndarray):
            if x.ndim == 0:
                raise ValueError("permutation: x must be an int or an array of at least one dimension")
            ax = normalize_axis(axis, x.ndim)
            if x.shape[ax] == 0:
                return x.copy()
            return x[(slice(None),) * ax + (self._order(x.shape[ax]),)]
        if isinstance(x, (bool, np.bool_)) or not hasattr(x, "__index__"):
            raise TypeError(f"permutation: x must be an int or a hip.tensor array, got {type(x).__name__}")
        n = operator.index(x)
        if n < 0:
            raise ValueError(f"permutation: x must be >= 0, got {n}")
        if n == 0:
            return _empty((0,), dtype=_dt.int64)
        return self._order(n)

    def shuffle(self, x, axis: int = 0) -> None:
        """Shuffle the array x in place along `axis`."""
        if not isinstance(x, ndarray):
            raise TypeError(f"shuffle: x must be a hip.tensor array, got {type(x).__name__}")
        if x.ndim == 0:
            raise ValueError("shuffle: x must have at least one dimension")
        if x.flags.writeable is False:
            raise ValueError("shuffle: x is read-only")
        ax = normalize_axis(axis, x.ndim)
        if x.size == 0 or x.shape[ax] < 2:
            return
        x[...] = self.permutation(x, axis=ax)


def default_rng(seed=None, *, method: str = "philox") -> Generator:
    """A new Generator (`seed`: an int in [0, 2**64), or None for fresh entropy; `method`: the
    hipRAND engine, Philox4x32-10 by default)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed, method=method)


# -- the module-level functions over one default generator ---------------------------------------
_default: Generator | None = None
_default_lock = threading.Lock()


def get_default_generator() -> Generator:
    """The Generator behind the module-level functions (seeded from entropy until `seed`)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Generator()
    return _default


def seed(seed=None) -> None:
    """Reseed the module-level functions' generator (a new one: the sequence starts afresh)."""
    global _default
    g = Generator(seed)
    with _default_lock:
        _default = g


def random(size=None, dtype=_dt.float64) -> ndarray:
    return get_default_generator().random(size, dtype)


random_sample = random


def rand(*shape, dtype=_dt.float64) -> ndarray:
    """Uniform [0, 1) floats of shape `shape` (NumPy's legacy spelling)."""
    return get_default_generator().random(shape, dtype)


def randn(*shape, dtype=_dt.float64) -> ndarray:
    """Standard normal floats of shape `shape` (NumPy's legacy spelling)."""
    return get_default_generator().standard_normal(shape, dtype)


def uniform(low=0.0, high=1.0, size=None, *, dtype=_dt.float64) -> ndarray:
    return get_default_generator().uniform(low, high, size, dtype=dtype)


def standard_normal(size=None, dtype=_dt.float64) -> ndarray:
    return get_default_generator().standard_normal(size, dtype)


def normal(loc=0.0, scale=1.0, size=None, *, dtype=_dt.float64) -> ndarray:
    return get_default_generator().normal(loc, scale, size, dtype=dtype)


def lognormal(mean=0.0, sigma=1.0, size=None, *, dtype=_dt.float64) -> ndarray:
    return get_default_generator().lognormal(mean, sigma, size, dtype=dtype)


def poisson(lam=1.0, size=None, *, dtype=_dt.int64) -> ndarray:
    return get_default_generator().poisson(lam, size, dtype=dtype)


def integers(low, high=None, size=None, dtype=_dt.int64, endpoint: bool = False) -> ndarray:
    return get_default_generator().integers(low, high, size, dtype, endpoint)


def randint(low, high=None, size=None, dtype=_dt.int64) -> ndarray:
    """Uniform integers in [low, high) (NumPy's legacy spelling of `integers`)."""
    return get_default_generator().integers(low, high, size, dtype)


def permutation(x, axis: int = 0) -> ndarray:
    return get_default_generator().permutation(x, axis)


def shuffle(x, axis: int = 0) -> None:
    get_default_generator().shuffle(x, axis)
