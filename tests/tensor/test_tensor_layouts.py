"""Which layout and launch geometry an element-wise call takes (hip/tensor/_kernels/elementwise_source.py's
`choose`, pure Python: no device), from the collapsed strides as ElementwiseKernel computes them:
flat wide loads for contiguous arrays (narrowed by a misaligned start), wide loads along rows for
row and column broadcasts, the shared-memory tile for a transposed operand (and the transposed
index space for a transposed output), the strided loop otherwise; and the geometry covering the
work. The generated sources themselves are compiled by test_tensor_kernels_compile.py and run
against NumPy by tests/tensor/test_tensor_elementwise_gpu.py."""
from __future__ import annotations

import pytest

from hip.tensor._core import dtypes as dt
from hip.tensor._api import elementwise as ew
from hip.tensor._kernels import elementwise_source as es
from hip.tensor._kernels.copy import copy_kernel
from hip.tensor._core.array import ndarray
from hip.tensor._kernels._elementwise import one_c_layout_of as one_c_layout
from hip.tensor._kernels.elementwise import ElementwiseKernel
from hip.tensor._core.shapes import broadcast_shapes, broadcast_strides, c_strides, collapse, is_c_contiguous, prod

ADD = ew._OPS["add"].kernel


class _View:
    """What the layout choice reads of an array: dtype, first element's address, shape, strides."""

    def __init__(self, d, shape, strides=None, ptr=1 << 20, device=0):
        self._dtype, self._shape, self._device_id = d, tuple(shape), device
        self._strides = tuple(strides) if strides is not None else c_strides(self._shape, d.itemsize)
        self._ptr = ptr

    @property
    def T(self):
        return _View(self._dtype, self._shape[::-1], self._strides[::-1], self._ptr, self._device_id)


def _choose(kernel, ins, out=None):
    """`choose` as ElementwiseKernel._launch calls it (a fresh C-order output unless given)."""
    shape = broadcast_shapes(*[a._shape for a in ins])
    out = out or _View(ins[0]._dtype, shape, ptr=1 << 30)
    arrays = list(ins) + [out]
    n = prod(shape)
    if all(a._shape == shape and is_c_contiguous(a._shape, a._strides, a._dtype.itemsize) for a in arrays):
        cshape, cstrides, contiguous = (n,), None, True
    else:
        cshape, cstrides = collapse(shape, [broadcast_strides(a._shape, a._strides, shape) for a in arrays])
        contiguous = len(cshape) <= 1 and all(not s or s[0] == a._dtype.itemsize for s, a in zip(cstrides, arrays))
    return es.choose(kernel, arrays, len(ins), n, contiguous, cshape, cstrides)


F32, F16, C128, I8 = dt.float32, dt.float16, dt.complex128, dt.int8


@pytest.mark.parametrize("d,vec", [(F32, 4), (F16, 8), (I8, 8), (C128, 1), (dt.float64, 2)])
def test_contiguous_arrays_take_16_byte_loads_and_a_covering_grid(d, vec):
    n = (1 << 20) + 3
    layout, _, _, grid, block = _choose(ADD, [_View(d, (n,)), _View(d, (n,))])
    assert layout[:2] == ("flat", vec) and block == (es.BLOCK, 1, 1)
    per = layout[2]
    assert 1 <= per * vec <= 16 and grid[0] == -(-(n // vec) // (es.BLOCK * per))     # one chunk per block


def test_misaligned_or_small_contiguous_arrays_narrow_the_loads():
    n = 1 << 20
    assert _choose(ADD, [_View(F32, (n,), ptr=(1 << 20) + 8), _View(F32, (n,))])[0][1] == 2
    assert _choose(ADD, [_View(F32, (n,), ptr=(1 << 20) + 4), _View(F32, (n,))])[0][1] == 1
    assert _choose(ADD, [_View(F32, (1000,)), _View(F32, (1000,))])[0][1] == 1


def test_kernels_that_read_outputs_take_one_element_per_thread():
    k = ElementwiseKernel("T x", "T y", "y += x", "accumulate")
    n = 1 << 20
    layout, _, _, grid, _ = _choose(k, [_View(F32, (n,))], _View(F32, (n,), ptr=1 << 30))
    assert layout == ("flat", 1, 1, es.BLOCK) and grid[0] == n // es.BLOCK
    layout = _choose(k, [_View(F32, (64, n // 64)).T], _View(F32, (n // 64, 64), ptr=1 << 30))[0]
    assert layout[0] == "nd"            # never the tile: the operation reads its output in place


def test_row_and_column_broadcasts_take_wide_loads_along_rows():
    x, row, col = _View(F32, (16384, 16384)), _View(F32, (1, 16384)), _View(F32, (16384, 1))
    layout, cshape, _, grid, _ = _choose(ADD, [x, row])
    assert layout[:3] == ("nd", 2, 4) and layout[5] == ("v", "v", "v") and cshape == (16384, 16384)
    assert grid[0] == -(-(16384 * 16384 // 4) // (es.BLOCK * layout[3]))
    assert _choose(ADD, [x, col])[0][5] == ("v", "b", "v")
    assert _choose(ADD, [col, row])[0][5] == ("b", "v", "v")
    assert _choose(ADD, [_View(F32, (301, 301)), _View(F32, (301,))])[0][2] == 1        # 301 % 4: no wide loads
    rev = _View(F32, (256, 256), (-1024, 4), ptr=(1 << 20) + 255 * 1024)                # x[::-1]: still wide
    assert _choose(ADD, [rev, _View(F32, (256,))])[0][:3] == ("nd", 2, 4)
    assert _choose(ADD, [_View(F32, (256, 256), (1024, -4)), _View(F32, (256,))])[0][2] == 1   # x[:, ::-1]


def test_a_transposed_operand_goes_through_the_tile():
    x, y = _View(F32, (16384, 16384)), _View(F32, (16384, 16384))
    layout, cshape, cstrides, grid, block = _choose(ADD, [x.T, y])
    assert layout == es.tile_layout((True, False, False), False)
    assert block == (es.TILE, es.TILE_ROWS, 1) and block[0] * block[1] % 64 == 0
    assert grid[0] == (16384 // es.TILE) ** 2
    assert _choose(ADD, [y, x.T])[0] == es.tile_layout((False, True, False), False)
    assert _choose(ADD, [x.T, x.T])[0][1] == (True, True, False)
    assert _choose(copy_kernel(), [_View(C128, (100, 100)).T])[0][0] == "tile"
    assert _choose(ADD, [_View(F32, (16, 1000)).T, _View(F32, (1000, 16))])[0][0] == "nd"    # 16 < a tile


def test_a_transposed_output_transposes_the_index_space():
    x, z = _View(F32, (300, 200)), _View(F32, (200, 300), ptr=1 << 30)
    layout, cshape, cstrides, _, _ = _choose(ADD, [x, x], z.T)
    assert layout == es.tile_layout((True, True, False), True)
    assert cshape == (200, 300) and cstrides[2] == (1200, 4)   # the output walked along its rows


def test_tiles_stay_within_the_shared_memory_budget():
    big = [_View(C128, (64, 64)).T for _ in range(3)]
    k = ElementwiseKernel("T a, T b, T c", "T y", "y = a + b + c", "add3", vectorize=True)
    flags = _choose(k, big)[0][1]
    assert sum(flags) * es.TILE * (es.TILE + 1) * 16 <= es.TILE_SMEM and any(flags)


def test_default_layouts_of_the_compile_check():
    assert es.default_layout(0, [4, 4]) == ("flat", 1, 4, es.BLOCK)
    assert es.default_layout(-4, [4, 4]) == ("flat", 4, 2, es.BLOCK)
    assert es.default_layout(3, [4], reg=False) == ("nd", 3, 1, 1, es.BLOCK, ())


def test_the_contiguous_fast_path_checks_each_array_against_its_own_itemsize():
    """Eager x64 - x32[:, ::2] read the view as contiguous (its byte strides (56, 8) are those of a
    C-contiguous float64 (5, 7)): the fast path must refuse it, in either order."""
    def arr(d, shape, strides=None, device=0):      # an ndarray viewing no memory (no device needed)
        return ndarray._view_of(None, 1 << 20, shape, strides or c_strides(shape, d.itemsize), d, device)

    f64, f32 = arr(dt.float64, (5, 7)), arr(F32, (5, 7))
    view = arr(F32, (5, 7), (56, 8))                        # a[:, ::2] of a float32 (5, 14)
    assert view._strides == f64._strides
    assert one_c_layout((f64, view), (0, 1)) == one_c_layout((view, f64), (0, 1)) == 0
    assert one_c_layout((f64, 2.0, f32), (0, 2)) == one_c_layout((f32, f64), (0, 1)) == 35
    assert one_c_layout((f32, arr(F32, (5, 7), device=1)), (0, 1)) == 0
    transposed = arr(dt.float64, (7, 5), (8, 56))
    assert one_c_layout((f32, arr(F32, (7, 5))), (0, 1)) == one_c_layout((f32, transposed), (0, 1)) == 0
    assert one_c_layout((arr(F16, (5, 7), (28, 4)), f32), (0, 1)) == 0   # float16 x[:, ::2] vs float32
    assert one_c_layout((arr(F32, (0, 7)), arr(F32, (0, 7))), (0, 1)) == 0   # empty: the general path
    assert one_c_layout((arr(F32, ()), arr(F32, ())), (0, 1)) == 1
    assert one_c_layout((_View(F32, (5, 7)), f32), (0, 1)) == 0    # not an ndarray
