"""Link-time optimization through the alias on the device, as a CUDA program does it: NVRTC's
`-dlto` and nvrtcGetLTOIR (hiprtc's -fgpu-rdc bitcode; NVRTC's own LTO-IR on the NVIDIA layer),
then nvJitLink with `-lto` (hiprtc's linker; on the NVIDIA layer nvJitLink itself), the linked
image loaded and launched. The kernel calls a function only the other program defines."""
from __future__ import annotations

import pytest

from gpu_util import alias_linker_module, on_nvidia
from rtc_link_programs import launch_and_check

pytestmark = pytest.mark.gpu

DEVICE_FUNCTION = b"__device__ float scale_add(float a, float x, float y) { return a * x + y; }\n"

KERNEL = b"""
extern __device__ float scale_add(float a, float x, float y);

extern "C" __global__ void linked_axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale_add(a, x[i], y[i]);
}
"""


@pytest.fixture(scope="module")
def alias():
    return alias_linker_module("nvrtc"), alias_linker_module("nvjitlink")


@pytest.fixture(scope="module")
def arch_option(arch) -> str:
    """-arch= the device's sm_XX on NVIDIA; on AMD any NVIDIA name (hiprtc uses the device's)."""
    name = arch.split(":")[0]
    return f"-arch={name}" if name.startswith("sm_") else "-arch=sm_90"


def _compile(nvrtc, source: bytes, name: bytes, options: list[bytes], output: str) -> bytes:
    """`source` compiled by the alias's NVRTC with `options`; its LTO-IR, PTX or CUBIN."""
    R = nvrtc.nvrtcResult
    err, prog = nvrtc.nvrtcCreateProgram(source, name, 0, [], [])
    assert err == R.NVRTC_SUCCESS
    try:
        err, = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        if err != R.NVRTC_SUCCESS:
            log = b" " * nvrtc.nvrtcGetProgramLogSize(prog)[1]
            nvrtc.nvrtcGetProgramLog(prog, log)
            pytest.fail(f"{name.decode()}: {err!r}\n{log.decode(errors='replace')}")
        size_fn, get_fn = getattr(nvrtc, f"nvrtcGet{output}Size"), getattr(nvrtc, f"nvrtcGet{output}")
        err, size = size_fn(prog)
        assert err == R.NVRTC_SUCCESS and size > 0, (err, size)
        code = b" " * size
        assert get_fn(prog, code) == (R.NVRTC_SUCCESS,)
        return code
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _link(nj, arch_option: str, inputs: list) -> bytes:
    handle = nj.create(2, [arch_option, "-lto"])
    try:
        for kind, data, name in inputs:
            nj.add_data(handle, kind, data, len(data), name)
        nj.complete(handle)
        image = bytearray(nj.get_linked_cubin_size(handle))
        nj.get_linked_cubin(handle, image)
    except nj.nvJitLinkError as e:
        log = bytearray(nj.get_error_log_size(handle))
        nj.get_error_log(handle, log)
        text = bytes(log).rstrip(bytes(1)).decode(errors="replace")
        if e.status == nj.Result.ERROR_LTO_NOT_ENABLED and "libnvJitLink" in text:
            pytest.skip(f"the NVIDIA layer finds no libnvJitLink: {text.strip()}")
        pytest.fail(f"{e}\n{text}")
    finally:
        nj.destroy(handle)
    return bytes(image)


def test_dlto_programs_link_with_lto_and_run(alias, arch_option, mem, rng):
    """Both programs compiled with -dlto, their LTO-IR linked with -lto: the image runs."""
    nvrtc, nj = alias
    options = [arch_option.encode(), b"-dlto"]
    device = _compile(nvrtc, DEVICE_FUNCTION, b"scale_add.cu", options, "LTOIR")
    kernel = _compile(nvrtc, KERNEL, b"linked_axpy.cu", options, "LTOIR")
    if on_nvidia():
        assert device[:4] == kernel[:4] == b"\xed\x43\x4e\x7f"     # NVRTC's LTO-IR
    image = _link(nj, arch_option, [(nj.InputType.LTOIR, device, "scale_add"),
                                    (nj.InputType.ANY, kernel, "linked_axpy")])
    assert image[:4] == b"\x7fELF"
    launch_and_check(image, mem, rng)


def test_relocatable_code_links_with_ltoir_and_runs(alias, arch_option, mem, rng):
    """cuda.core's jit_lto_fractal.py: the kernel's program compiled -rdc=true (nvrtcGetPTX: on
    the NVIDIA layer its relocatable CUBIN), the function's with -dlto, linked with -lto."""
    nvrtc, nj = alias
    kernel = _compile(nvrtc, KERNEL, b"linked_axpy.cu", [arch_option.encode(), b"-rdc=true"], "PTX")
    device = _compile(nvrtc, DEVICE_FUNCTION, b"scale_add.cu", [arch_option.encode(), b"-dlto"], "LTOIR")
    image = _link(nj, arch_option, [(nj.InputType.PTX, kernel, "linked_axpy"),
                                    (nj.InputType.LTOIR, device, "scale_add")])
    launch_and_check(image, mem, rng)


def test_no_dlto_no_ltoir(alias, arch_option):
    """A program compiled without -dlto has no LTO-IR: NVRTC's size 0. (On the NVIDIA layer the
    program's relocatable code stands for hiprtc's bitcode: see docs/alias.rst.)"""
    nvrtc, _ = alias
    if on_nvidia():
        pytest.skip("the layer's hiprtcGetBitcode returns a program's code without -fgpu-rdc")
    R = nvrtc.nvrtcResult
    err, prog = nvrtc.nvrtcCreateProgram(DEVICE_FUNCTION, b"scale_add.cu", 0, [], [])
    try:
        assert nvrtc.nvrtcCompileProgram(prog, 1, [arch_option.encode()]) == (R.NVRTC_SUCCESS,)
        assert nvrtc.nvrtcGetLTOIRSize(prog) == (R.NVRTC_SUCCESS, 0)
        assert nvrtc.nvrtcGetLTOIR(prog, b"") == (R.NVRTC_SUCCESS,)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
