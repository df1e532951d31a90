"""hiprtc linking end to end, as programs written for AMD do it: two programs compiled apart
with -fgpu-rdc (one defines a __device__ function, the other a kernel calling it through an
extern declaration), hiprtcGetBitcode of each, hiprtcLinkCreate / hiprtcLinkAddData (or
hiprtcLinkAddFile) / hiprtcLinkComplete, then hipModuleLoadData of the linked image and a
launch checked against NumPy. Written against the `hip` API alone: the same test runs on AMD
(comgr's linker of LLVM bitcode) and on the NVIDIA layer (the driver's cuLink* on NVRTC's PTX)."""
from __future__ import annotations

import pytest

import hip
from hip import hip as h, hiprtc

from gpu_util import on_nvidia, require_library
from rtc_link_programs import DEVICE_FUNCTION, KERNEL, UNRESOLVED, bitcode_of, launch_and_check

pytestmark = pytest.mark.gpu

R = hiprtc.hiprtcResult
BITCODE = hiprtc.HIPRTC_JIT_INPUT_LLVM_BITCODE


@pytest.fixture(scope="module", autouse=True)
def _libraries():
    require_library(hiprtc)


@pytest.fixture(scope="module")
def device_bitcode(arch) -> bytearray:
    return bitcode_of(DEVICE_FUNCTION, b"scale_add.hip", arch)


@pytest.fixture(scope="module")
def kernel_bitcode(arch) -> bytearray:
    return bitcode_of(KERNEL, b"linked_axpy.hip", arch)


class Linker:
    """One hiprtc link state, created with an error log (a CUDA-only option AMD accepts too),
    destroyed at the end of the test. The log buffer lives as long as the state: the NVIDIA
    driver writes it while linking."""

    def __init__(self):
        self.log = bytearray(16384)
        options = [hiprtc.HIPRTC_JIT_ERROR_LOG_BUFFER, hiprtc.HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
        values = [self.log, len(self.log)]
        self.state = hip.check(hiprtc.hiprtcLinkCreate(len(options), options, values))

    def text(self) -> str:
        return bytes(self.log).split(b"\0", 1)[0].decode(errors="replace")

    def add(self, code: bytearray, name: bytes):
        return hiprtc.hiprtcLinkAddData(self.state, BITCODE, code, len(code), name, 0, None, None)[0]

    def complete(self):
        return hiprtc.hiprtcLinkComplete(self.state)

    def destroy(self):
        if self.state is not None:
            hip.check(hiprtc.hiprtcLinkDestroy(self.state))
            self.state = None


@pytest.fixture
def linker():
    lk = Linker()
    yield lk
    lk.destroy()


def test_bitcode_of_each_program(device_bitcode, kernel_bitcode):
    assert len(device_bitcode) > 0 and len(kernel_bitcode) > 0
    assert bytes(device_bitcode) != bytes(kernel_bitcode)


def test_link_two_programs_and_launch(linker, device_bitcode, kernel_bitcode, mem, rng):
    """The kernel's call to scale_add resolves to the other program's definition."""
    assert linker.add(device_bitcode, b"scale_add") == R.HIPRTC_SUCCESS, linker.text()
    assert linker.add(kernel_bitcode, b"linked_axpy") == R.HIPRTC_SUCCESS, linker.text()
    err, image, size = linker.complete()
    assert err == R.HIPRTC_SUCCESS, f"{err!r}\n{linker.text()}"
    assert int(image) != 0 and size > 0
    launch_and_check(image, mem, rng)       # loaded before hiprtcLinkDestroy frees the image


def test_link_a_file(linker, device_bitcode, kernel_bitcode, mem, rng, tmp_path):
    """hiprtcLinkAddFile: the device function's bitcode from a file, the kernel's from memory."""
    path = tmp_path / "scale_add.bc"
    path.write_bytes(bytes(device_bitcode))
    err, = hiprtc.hiprtcLinkAddFile(linker.state, BITCODE, str(path).encode(), 0, None, None)
    assert err == R.HIPRTC_SUCCESS, f"{err!r}\n{linker.text()}"
    assert linker.add(kernel_bitcode, b"linked_axpy") == R.HIPRTC_SUCCESS, linker.text()
    err, image, size = linker.complete()
    assert err == R.HIPRTC_SUCCESS, f"{err!r}\n{linker.text()}"
    launch_and_check(image, mem, rng)


def test_link_options(device_bitcode, kernel_bitcode, mem, rng):
    """Options both platforms take: an info log and the optimization level (values by value)."""
    info = bytearray(16384)
    options = [hiprtc.HIPRTC_JIT_INFO_LOG_BUFFER, hiprtc.HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
               hiprtc.HIPRTC_JIT_OPTIMIZATION_LEVEL]
    state = hip.check(hiprtc.hiprtcLinkCreate(len(options), options, [info, len(info), 3]))
    try:
        for code, name in ((device_bitcode, b"scale_add"), (kernel_bitcode, b"linked_axpy")):
            hip.check(hiprtc.hiprtcLinkAddData(state, BITCODE, code, len(code), name, 0, None, None))
        image, size = hip.check(hiprtc.hiprtcLinkComplete(state))
        assert size > 0
        launch_and_check(image, mem, rng)
    finally:
        hip.check(hiprtc.hiprtcLinkDestroy(state))


def test_missing_file_is_an_error(linker, tmp_path):
    err, = hiprtc.hiprtcLinkAddFile(linker.state, BITCODE, str(tmp_path / "no-such.bc").encode(), 0, None, None)
    assert err != R.HIPRTC_SUCCESS


def test_garbage_input_is_an_error_status(linker, kernel_bitcode):
    """Bytes that are no device code: an error status (when added or, at the latest, when
    linking), never a crash; the link state is still destroyed cleanly."""
    garbage = bytearray(b"this is neither bitcode nor PTX nor an ELF image\n" * 8)
    err = linker.add(garbage, b"garbage")
    if err == R.HIPRTC_SUCCESS:            # AMD keeps inputs until the link
        assert linker.add(kernel_bitcode, b"linked_axpy") == R.HIPRTC_SUCCESS
        err = linker.complete()[0]
    assert err in (R.HIPRTC_ERROR_PROGRAM_CREATION_FAILURE, R.HIPRTC_ERROR_INVALID_INPUT,
                   R.HIPRTC_ERROR_LINKING), err


def test_empty_input_is_invalid(linker):
    err, = hiprtc.hiprtcLinkAddData(linker.state, BITCODE, bytearray(8), 0, b"empty", 0, None, None)
    assert err == R.HIPRTC_ERROR_INVALID_INPUT


def test_unresolved_function_fails_to_link(linker, arch, device_bitcode):
    """A call no input defines is the linker's error (the error log names it on NVIDIA)."""
    broken = bitcode_of(UNRESOLVED, b"broken.hip", arch)
    assert linker.add(broken, b"broken") == R.HIPRTC_SUCCESS, linker.text()
    assert linker.add(device_bitcode, b"scale_add") == R.HIPRTC_SUCCESS, linker.text()
    err, image, _ = linker.complete()
    if err == R.HIPRTC_SUCCESS:
        # AMD links code objects as shared objects, where an undefined symbol may wait for the load.
        assert not on_nvidia(), "linked a call to a function no input defines"
        e, mod = h.hipModuleLoadData(image)
        if e == h.hipError_t.hipSuccess:
            h.hipModuleUnload(mod)
        return
    assert err == R.HIPRTC_ERROR_LINKING, err
    if on_nvidia():
        assert "no_such_function" in linker.text(), linker.text()
