"""The per-op C path (`_api._elementwise.apply`, `_kernels._elementwise.call_contiguous`) against the
Python rules it replaces, without a GPU: the HIP calls it makes are answered without a device
(hipMalloc by test_tensor_memory's FakeHip, the launch and hipGetDevice by _core.launch's no-ops,
the kernel's compile by a stand-in Function), so what is compared is host-side: which operands
take the C path (C-contiguous of one shape, each by its own itemsize; never a view that is
transposed, strided, broadcast or of another itemsize), the output's shape, dtype and strides
against the general path's, each launch's geometry against elementwise_source.flat's for the
same operands (a Launch kept by element count is not reused for another size or device), and
one launch per op."""
from __future__ import annotations

import gc
import sys

import pytest

from hip.tensor._api import _elementwise as _ael, elementwise as ew
from hip.tensor._core import _memory as _cmem, dtypes as dt, launch as _launch, memory as M
from hip.tensor._core.array import ndarray
from hip.tensor._core.shapes import c_strides, is_c_contiguous
from hip.tensor._kernels import _elementwise as _kel, compiler as _compiler, elementwise as ek, elementwise_source as es

from test_tensor_memory import FakeHip


@pytest.fixture
def nodevice(monkeypatch):
    """hipMalloc, hipGetDevice, the launch and the compile answered without a device. The stand-in
    Functions are removed from the kernels' caches after (they must never reach a real launch)."""
    fakes = []

    def compile_(self, *a):
        fakes.append(self)
        return _compiler.Function(None, "k", 0x1234, 0)
    monkeypatch.setattr(M, "h", FakeHip())
    monkeypatch.setattr(ek.ElementwiseKernel, "_compile", compile_)
    monkeypatch.setitem(ek._grid_cap, 0, 132 * 32)
    prev = M.get_allocator()
    M.set_allocator(M.CachingAllocator(caching=True))
    _launch._benchmark_noops(True)
    yield
    _launch._benchmark_noops(False)
    for k in fakes:
        for key in [key for key, f in k._functions.items() if f.ptr == 0x1234]:
            del k._functions[key]
    gc.collect()
    M.set_allocator(prev)


def _fresh(monkeypatch, name):
    """A new _Op like ew._OPS[name] (its own kernel and caches), in _OPS while the test runs: the
    per-op caches the test fills never hold the stand-in Functions for later tests."""
    o = ew._OPS[name]
    op = ew._Op(o.name, o.nin, o.expr, kinds=o.kinds, out=o.out, bool_as=o.bool_as, compute=o.compute)
    monkeypatch.setitem(ew._OPS, name, op)
    return op


def _old_rule(args, arrays) -> bool:
    """The Python rule the C path replaced: every array C-contiguous by its own itemsize, one
    non-empty shape, one device."""
    first = args[arrays[0]]
    for k in arrays:
        a = args[k]
        if type(a) is not ndarray or a._shape != first._shape or a._device_id != first._device_id:
            return False
        if a._strides != c_strides(a._shape, a._dtype.itemsize):
            return False
    return all(d > 0 for d in first._shape)


def _operands():
    """(name, x, y) pairs: fresh arrays, views of every kind, scalars."""
    f32, f64, i32, u8 = dt.float32, dt.float64, dt.int32, dt.uint8

    def new(shape, d=f32):
        return ndarray._empty(shape, d, 0)

    big = new((40, 60))
    c = new((6, 4), dt.complex128)
    yield "same", new((5, 7)), new((5, 7))
    yield "1-d", new((1000,)), new((1000,))
    yield "vector min", new((1 << 14,)), new((1 << 14,))
    yield "0-d", new(()), new(())
    yield "mixed dtypes", new((5, 7), f64), new((5, 7), i32)
    yield "scalar int", new((5, 7), i32), 3
    yield "scalar float", new((5, 7)), 2.5
    yield "scalar left", 2.5, new((5, 7))
    yield "bool scalar", new((9,), u8), True
    yield "transposed", big[:7, :5].T, new((5, 7))
    yield "T of square", new((6, 6)).T, new((6, 6))
    yield "strided", big[:, ::2], new((40, 30))
    yield "offset rows", big[1:], new((39, 60))
    yield "offset elements", new((100,))[3:], new((97,))
    yield "broadcast row", new((5, 7)), new((7,))
    yield "broadcast column", new((5, 7)), new((5, 1))
    yield "size-1 dims", new((1, 7)), new((1, 7))
    yield "reversed", new((9,))[::-1], new((9,))
    yield "real of complex", c.real, new((6, 4), f64)
    yield "imag of complex", c.imag, new((6, 4), f64)
    yield "other itemsize view", new((5, 14))[:, ::2], new((5, 7), f64)
    yield "empty", new((0, 7)), new((0, 7))


CASES = [
    ("add", lambda x, y: x + y), ("subtract", lambda x, y: x - y), ("multiply", lambda x, y: x * y),
    ("divide", lambda x, y: x / y), ("less", lambda x, y: x < y), ("equal", lambda x, y: x == y),
    ("maximum", None),
]


@pytest.mark.parametrize("name,operator", CASES, ids=[c[0] for c in CASES])
def test_the_c_path_takes_what_the_python_rule_took_and_launches_as_flat(nodevice, monkeypatch, name, operator):
    op = _fresh(monkeypatch, name)
    count = {True: 0, False: 0}
    for case, x, y in _operands():
        args = (x, y)
        arrays = tuple(k for k, a in enumerate(args) if type(a) is ndarray)
        before = _launch.launches()
        r = ew._apply_fast(op, args)
        taken = r is not None
        fast = op.fast[tuple(a._dtype.name if type(a) is ndarray else type(a) for a in args)]
        if fast is None:
            assert not taken, case
            continue
        assert taken == _old_rule(args, arrays), case
        count[taken] += 1
        if not taken:
            assert _launch.launches() == before, case          # nothing launched, nothing left
            continue
        assert _launch.launches() == before + 1, case
        want = ew._general(op, args)                           # the general path's output
        assert (r.shape, r.dtype, r.strides) == (want.shape, want.dtype, want.strides), case
        assert is_c_contiguous(r._shape, r._strides, r._dtype.itemsize) and r._ptr != want._ptr, case
        n = r.size
        sig = fast.kernel_sig
        kept = sig.layouts.get(n)
        if n < es.VECTOR_MIN:                                  # the Launch kept for this size
            arrs = [args[k] for k in sig.arrays] + [r]
            layout, grid, block = es.flat(op.kernel, arrs, n)
            assert (kept.grid, kept.block, int(kept.count), kept.device) == (grid, block, n, 0), case
        if operator is not None:                               # ndarray's operator: the same path
            before = _launch.launches()
            r2 = operator(x, y)
            assert _launch.launches() == before + 1, case
            assert (r2.shape, r2.dtype, r2.strides) == (r.shape, r.dtype, r.strides), case
    assert count[True] >= 10 and count[False] >= 6, count


def test_a_kept_launch_follows_the_size(nodevice, monkeypatch):
    """x + y on sizes that alternate: each call's Launch is the one of its element count."""
    op = _fresh(monkeypatch, "add")
    for n in (7, 1000, 7, 33, 1000, 1, 7):
        x, y = ndarray._empty((n,), dt.float32, 0), ndarray._empty((n,), dt.float32, 0)
        r = x + y
        sig = op.fast[("float32", "float32")].kernel_sig
        kept = sig.layouts[n]
        assert int(kept.count) == n and kept.grid == es.flat(op.kernel, [x, y, r], n)[1]
        assert r.shape == (n,)


def test_scalar_conversion_follows_the_value(nodevice, monkeypatch):
    """A one-scalar signature keeps its last scalar's conversion only for that same object."""
    _fresh(monkeypatch, "add")
    seen = []
    real = ek.scalar_value

    def recording(v, t):
        seen.append(v)
        return real(v, t)
    from hip.tensor._kernels import _elementwise
    _elementwise.bind(ndarray, recording, ek._error, es.VECTOR_MIN)
    try:
        x = ndarray._empty((5,), dt.float32, 0)
        two, three = 2.0, 3.0
        for v in (two, two, three, two):
            x + v
    finally:
        _elementwise.bind(ndarray, real, ek._error, es.VECTOR_MIN)
    assert seen == [2.0, 3.0, 2.0]


def test_fresh_strides_own_their_ints(nodevice):
    """A fresh n-d array's strides (`_core._array.c_strides`) hold references to their ints: the tuple
    was given a temporary that Cython released after, so a stride past 256 was freed memory, soon
    another object (wrong strides in later kernels, crashes in unrelated code)."""
    shapes = [(3, 1000), (4, 5, 7), (2, 3, 300), (70, 70, 2), (5, 600, 1)]
    arrays = [ndarray._empty(s, dt.float64, 0) for s in shapes]
    churn = [k * 1000003 for k in range(20000)]     # ints of a stride's size reuse freed ones' memory
    for a, s in zip(arrays, shapes):
        assert a._strides == c_strides(s, 8)
        for v in a._strides:
            assert type(v) is int and sys.getrefcount(v) >= 3   # the tuple's, v's, the call's
    del churn


def _memory_invariants():
    """The allocator's state against every live MemoryPointer (found by the collector's list):
    no two live ones, `quick`'s blocks and the pools' blocks overlap; a live one's block is
    allocated, a cached one's not; every live array's `_ptr` lies in its memory and its strides
    are ints it holds."""
    mps = [o for o in gc.get_objects() if type(o) is M.MemoryPointer and o._block is not None]
    ranges = []
    for m in mps:
        b = m._block
        assert m.ptr == b.ptr and b.allocated
        ranges.append((b.ptr, b.ptr + b.size, "live"))
    for a in M.get_allocator()._devices.values():
        for size, q in a.quick.items():
            for b in q:
                assert b.size == size and not b.allocated and not any(b is m._block for m in mps)
                ranges.append((b.ptr, b.ptr + b.size, "quick"))
        for pool in (a.small, a.large):
            ranges += [(e[3].ptr, e[3].ptr + e[3].size, "pool") for e in pool]
    ranges.sort()
    for r, s in zip(ranges, ranges[1:]):
        assert s[0] >= r[1], f"{r[2]} [{r[0]:#x}, {r[1]:#x}) overlaps {s[2]} [{s[0]:#x}, {s[1]:#x})"
    for o in gc.get_objects():
        if isinstance(o, ndarray) and type(o._data) is M.MemoryPointer and o.size:
            d = o._data
            assert d._block is not None and d.ptr <= o._ptr < d.ptr + d.size
            assert all(type(v) is int and sys.getrefcount(v) >= 3 for v in o._strides)


def test_op_sequences_keep_memory_and_fields_whole(nodevice):
    """Many ops (fresh n-d arrays, views, transposes, broadcasts, in-place, the C and the general
    path, gc churn), the allocator's and the arrays' invariants checked after each: the sequences
    of the GPU tests that failed (wrong values, crashes) with the fast path."""
    f32, f64 = dt.float32, dt.float64
    kept = []
    for k in range(40):
        shape = ((3, 1000), (4, 5, 7), (7, 60), (2, 3, 300), (k + 1,), (k + 2, 33))[k % 6]
        x = ndarray._empty(shape, f32, 0)
        y = ndarray._empty(shape, f32 if k % 3 else f64, 0)
        results = [x + y, x * 2, x < y, 1.5 - x]
        t = x.transpose(tuple(reversed(range(x.ndim))))
        results += [t + t, t * 2, x[..., ::2] + 1, x[..., :1] + y]
        x += 1
        x[..., 1:] *= 2
        if k % 4 == 0:
            kept.append(results[k % len(results)])
        del x, y, t, results
        if k % 5 == 0:
            gc.collect()
        _memory_invariants()
    del kept
    gc.collect()
    _memory_invariants()


@pytest.mark.parametrize("var,check", [
    ("HIP_TENSOR_NO_MEMORY_FAST_PATH", "from hip.tensor._core import _memory as m; print(m.set_fast_path(True))"),
    ("HIP_TENSOR_NO_C_PATH", "from hip.tensor._api import elementwise as e; print(e._C_PATH)")])
def test_the_c_path_switches(var, check):
    """The environment switches (read at import) that turn each C path off, for bisecting on a GPU."""
    import os
    import subprocess
    env = dict(os.environ, **{var: "1"})
    r = subprocess.run([sys.executable, "-c", "import hip.tensor; " + check], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


@pytest.mark.parametrize("call", [
    lambda: _cmem.count_allocation(None, 512, 100),
    lambda: _cmem.bind(None, None, None, None),
    lambda: _kel.call(None, None, None),
    lambda: _kel.one_c_layout_of(None, None),
    lambda: _ael.apply_fast(None, ()),
    lambda: _ael.bind(None, None, None, None),
])
def test_the_c_paths_python_entries_refuse_none(call):
    # a typed Cython parameter takes None unless told not to: None read as a C struct corrupts memory
    with pytest.raises(TypeError):
        call()
