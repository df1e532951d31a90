"""What type checkers see of _memory.pyx (the caching allocator's per-op fast path in C)."""
from typing import Any

class Block:
    ptr: Any
    size: int
    requested: int
    small: bool
    allocated: bool
    in_pool: bool
    def __init__(self, ptr: Any, size: int, small: bool, key: Any) -> None: ...

class DeviceAllocatorCore:
    allocated: int
    allocated_peak: int
    requested: int
    requested_peak: int
    allocations: int
    allocations_peak: int
    hits: int
    fast_path: bool

class MemoryPointer:
    """Device memory from an allocator; the block returns to it when this object is collected."""
    ptr: int
    size: int
    device_id: int
    stream: Any
    def record_stream(self, stream: Any) -> None: ...
    def __int__(self) -> int: ...

def set_fast_path(on: bool) -> bool: ...
def alloc(allocator: Any, nbytes: int, stream: Any) -> MemoryPointer: ...
def count_allocation(a: DeviceAllocatorCore, size: int, nbytes: int) -> None: ...
