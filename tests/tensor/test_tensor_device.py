"""hip.tensor._core.device without a GPU: what loads on import, the platform, device counting, argument
checks, and events that were never recorded (torch's semantics). The GPU side is in
tests/tensor/test_tensor_runtime_gpu.py."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import run_python


def test_import_loads_no_hip_library():
    r = run_python("""
        import hip.tensor._core.device, hip.tensor._core.memory, hip.tensor._kernels.compiler, hip.tensor._core.interop
        from hip import hip, hiprtc
        print(hip._library.loaded, hiprtc._library.loaded)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


@pytest.mark.runtime
def test_platform_and_device_count_agree_with_the_runtime():
    from hip import hip as h
    from hip.tensor._core import device as D
    err, n = h.hipGetDeviceCount()
    assert D.device_count() == (n if not err else 0)
    assert D.is_available() == (D.device_count() > 0)
    assert D.platform() in ("amd", "nvidia")


@pytest.mark.parametrize("value,expect", [("nvidia", "nvidia"), ("amd", "amd")])
def test_platform_follows_hip_platform(value, expect):
    r = run_python("from hip.tensor._core.device import platform; print(platform())", env={"HIP_PLATFORM": value})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == expect


def test_device_arguments_are_checked():
    from hip.tensor._core import device as D
    with pytest.raises(ValueError, match="negative"):
        D.Device(-1)
    with pytest.raises(TypeError, match="int"):
        D.Device("0")
    with pytest.raises(TypeError):
        D.Device(1.5)
    assert D.Device(2) == D.Device(D.Device(2)) and D.Device(2) != D.Device(1)
    assert hash(D.Device(3)) == hash(D.Device(3)) and int(D.Device(3)) == 3
    with pytest.raises(TypeError):
        D.Device(True)
    assert D.Device(np.int64(2)).id == 2


def test_event_not_recorded_behaves_like_torch():
    from hip.tensor._core import device as D
    e = D.Event()
    assert e.ptr == 0 and e.query() is True     # nothing recorded: complete
    e.synchronize()                              # no-op
    with pytest.raises(ValueError, match="recorded"):
        e.elapsed_time(D.Event())
    untimed = D.Event(timing=False)
    assert untimed.timing is False and repr(untimed) == "<Event (not recorded)>"


def test_foreign_stream_handle_is_not_owned():
    from hip.tensor._core import device as D
    s = D.Stream.from_handle(0x1234, device_id=0)
    assert (s.ptr, s.handle, s.device_id) == (0x1234, 0x1234, 0)
    assert s == D.Stream.from_handle(0x1234, 0) and s != D.Stream.from_handle(0x1234, 1)
    null = D.Stream.from_handle(0, 0)
    assert null.handle is None and null.ptr == 0 and null is D.null_stream(0)
    assert s.uid != D.Stream.from_handle(0x1234, 0).uid     # the allocator's identity, not the handle
    del s                                        # not ours: nothing is destroyed (no runtime call)


@pytest.mark.runtime
def test_no_device_is_a_clear_error():
    from hip.tensor._core import device as D
    if D.device_count():
        pytest.skip("a device is present")
    with pytest.raises(Exception, match="no HIP device is visible"):
        D.get_device_id()
    with pytest.raises(Exception, match="no HIP device is visible"):
        D.current_stream()
