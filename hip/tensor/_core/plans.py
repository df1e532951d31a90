"""Per-call decisions kept by the key they are a function of (shapes, strides, dtypes, devices,
flags): the checks and layout choices of an operator run once per key, its later calls with the
same key are one dict hit. Bad input never enters (the checks raise before `put`)."""
from __future__ import annotations

__all__ = ["PlanCache", "all_ints", "layout"]


class PlanCache(dict):
    """A dict of at most `limit` entries: past it the oldest one goes."""

    __slots__ = ("limit",)

    def __init__(self, limit: int = 1024):
        super().__init__()
        self.limit = limit

    def put(self, key, value):
        """Keep `value` for `key`; returns it."""
        if len(self) >= self.limit:         # (another thread may have taken the oldest already)
            self.pop(next(iter(self), None), None)
        self[key] = value
        return value


def layout(a) -> tuple | None:
    """An array's part of a key: its shape, strides, dtype and device (None for None)."""
    return None if a is None else (a._shape, a._strides, a._dtype.name, a._device_id)


def all_ints(values) -> bool:
    """Whether every item is an int (not a bool, a float or a NumPy integer): a key of such items
    equals another only where the values are the same ints (1.0 == 1 would let a float through a
    check that refuses it)."""
    for v in values:
        if type(v) is not int:
            return False
    return True
