"""Fixtures of the GPU tests (all of them run only where tests/conftest.py found a GPU)."""
from __future__ import annotations

import pytest

import hip
from hip import hip as h

from ._util import DeviceMemory


@pytest.fixture(scope="session")
def props():
    """hipDeviceProp_t of device 0."""
    p = h.hipDeviceProp_t()
    hip.check(h.hipGetDeviceProperties(p, 0))
    return p


@pytest.fixture(scope="session")
def arch(props) -> str:
    """The device's gcnArchName ('gfx90a:sramecc+:xnack-' on AMD, 'sm_90' on NVIDIA)."""
    name = props.gcnArchName
    name = name.decode() if isinstance(name, bytes) else str(name)
    assert name, "hipDeviceProp_t.gcnArchName is empty"
    return name


@pytest.fixture
def mem():
    m = DeviceMemory()
    yield m
    hip.check(h.hipDeviceSynchronize())
    m.free_all()


@pytest.fixture
def stream():
    s = hip.check(h.hipStreamCreate())
    yield s
    h.hipStreamSynchronize(s)
    hip.check(h.hipStreamDestroy(s))


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(20240531)
