"""cuda.bindings.nvjitlink (the alias) linking for real on the device, as a CUDA program does it:
nvJitLink's options and input kinds, the linked image loaded through the alias's driver module and
launched. The inputs are what hiprtc compiles with -fgpu-rdc (tests/hip/test_rtc_link_gpu.py): LLVM
bitcode on AMD (nvJitLink's LTO-IR: `-lto`), relocatable PTX on the NVIDIA layer (the driver's
cuLink*), added as InputType.ANY so that the bytes decide, as in NVIDIA's own tests."""
from __future__ import annotations

import pytest

from gpu_util import alias_linker_module, on_nvidia
from rtc_link_programs import DEVICE_FUNCTION, KERNEL, UNRESOLVED, bitcode_of, launch_and_check

pytestmark = pytest.mark.gpu

# NVIDIA's test_nvjitlink.py's kernel: PTX for each architecture its tests name.
PTX_KERNEL = """
.visible .entry _Z6kernelPi(
    .param .u64 _Z6kernelPi_param_0
)
{
    .reg .b32   %r<3>;
    .reg .b64   %rd<3>;

    ld.param.u64    %rd1, [_Z6kernelPi_param_0];
    cvta.to.global.u64  %rd2, %rd1;
    mov.u32     %r1, %tid.x;
    st.global.u32   [%rd2+0], %r1;
    ret;
}
"""


@pytest.fixture(scope="module")
def nj():
    return alias_linker_module("nvjitlink")


@pytest.fixture(scope="module")
def arch_option(arch) -> str:
    """-arch= the device's sm_XX on NVIDIA; on AMD any NVIDIA name (hiprtc links for the device)."""
    name = arch.split(":")[0]
    return f"-arch={name}" if name.startswith("sm_") else "-arch=sm_90"


def _cubin(nj, handle) -> bytes:
    buf = bytearray(nj.get_linked_cubin_size(handle))
    nj.get_linked_cubin(handle, buf)
    return bytes(buf)


def _log(nj, handle) -> str:
    buf = bytearray(nj.get_error_log_size(handle))
    nj.get_error_log(handle, buf)
    return buf.rstrip(b"\0").decode(errors="replace")


def test_link_two_programs_and_launch(nj, arch, arch_option, mem, rng, tmp_path):
    """The kernel's extern call resolves to the other program's function; one input from memory,
    one from a file; the image runs."""
    device_bc = bytes(bitcode_of(DEVICE_FUNCTION, b"scale_add.hip", arch))
    kernel_bc = bytes(bitcode_of(KERNEL, b"linked_axpy.hip", arch))
    path = tmp_path / "scale_add.o"
    path.write_bytes(device_bc)
    handle = nj.create(2, [arch_option, "-lto"])
    try:
        nj.add_file(handle, nj.InputType.ANY, str(path))
        nj.add_data(handle, nj.InputType.ANY, kernel_bc, len(kernel_bc), "linked_axpy")
        nj.complete(handle)
        image = _cubin(nj, handle)
    finally:
        nj.destroy(handle)
    assert image[:4] == b"\x7fELF"
    launch_and_check(image, mem, rng)


def test_linked_image_loads_through_the_alias_driver(nj, arch, arch_option):
    from cuda.bindings import driver
    kernel_bc = bytes(bitcode_of(KERNEL, b"linked_axpy.hip", arch))
    device_bc = bytes(bitcode_of(DEVICE_FUNCTION, b"scale_add.hip", arch))
    handle = nj.create(2, [arch_option, "-lto"])
    for code, name in ((device_bc, "scale_add"), (kernel_bc, "linked_axpy")):
        nj.add_data(handle, nj.InputType.ANY, code, len(code), name)
    nj.complete(handle)
    image = _cubin(nj, handle)
    nj.destroy(handle)
    ok = driver.CUresult.CUDA_SUCCESS
    assert driver.cuInit(0)[0] == ok
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    assert err == ok and driver.cuCtxSetCurrent(ctx)[0] == ok
    err, module = driver.cuModuleLoadData(image)
    assert err == ok, err
    err, fn = driver.cuModuleGetFunction(module, b"linked_axpy")
    assert err == ok, err
    assert driver.cuModuleUnload(module)[0] == ok
    driver.cuDevicePrimaryCtxRelease(dev)


def test_unresolved_function(nj, arch, arch_option):
    """A call no input defines: on NVIDIA complete fails (nvJitLink's ERROR_INTERNAL) and the error
    log names it; AMD links code objects as shared objects, where it may wait for the load."""
    broken = bytes(bitcode_of(UNRESOLVED, b"broken.hip", arch))
    handle = nj.create(2, [arch_option, "-lto"])
    try:
        nj.add_data(handle, nj.InputType.ANY, broken, len(broken), "broken")
        if on_nvidia():
            with pytest.raises(nj.nvJitLinkError) as e:
                nj.complete(handle)
            assert e.value.status == nj.Result.ERROR_INTERNAL
            assert "no_such_function" in _log(nj, handle), _log(nj, handle)
        else:
            try:
                nj.complete(handle)
            except nj.nvJitLinkError as e:
                assert e.status == nj.Result.ERROR_INTERNAL
    finally:
        nj.destroy(handle)


@pytest.mark.parametrize("sm, version", [("sm_75", "6.4"), ("sm_80", "7.0"), ("sm_90", "8.5"), ("sm_100", "8.8")])
def test_nvidia_links_ptx_for_the_named_architecture(nj, sm, version):
    """NVIDIA's tests' PTX for four architectures on one device: -arch=sm_XX is the driver's
    CU_JIT_TARGET, so each links for its own target (sm_100 on an sm_90 device too), as nvJitLink."""
    if not on_nvidia():
        pytest.skip("PTX links on the NVIDIA layer only: ROCm's hiprtc links LLVM bitcode")
    ptx = (f".version {version}\n.target {sm}\n.address_size 64\n" + PTX_KERNEL).encode()
    handle = nj.create(1, [f"-arch={sm}"])
    try:
        nj.add_data(handle, nj.InputType.ANY, ptx, len(ptx), "test_data")
        nj.complete(handle)
        image = _cubin(nj, handle)
        assert image[:4] == b"\x7fELF" and int.from_bytes(image[18:20], "little") == 190   # EM_CUDA
    finally:
        nj.destroy(handle)


def test_nvidia_bad_ptx_is_a_ptx_compile_error(nj):
    if not on_nvidia():
        pytest.skip("PTX links on the NVIDIA layer only")
    ptx = (".version 8.5\n.target sm_90\n.address_size 64\n" + PTX_KERNEL.replace("ret;", "bogus_instr;")).encode()
    handle = nj.create(1, ["-arch=sm_90"])
    try:
        with pytest.raises(nj.nvJitLinkError) as e:
            nj.add_data(handle, nj.InputType.PTX, ptx, len(ptx), "bad.ptx")
        assert e.value.status == nj.Result.ERROR_PTX_COMPILE
        assert "bogus_instr" in _log(nj, handle), _log(nj, handle)
    finally:
        nj.destroy(handle)


def test_empty_link(nj, arch_option):
    """No inputs: nvJitLink gives an empty image (on NVIDIA the driver's empty cubin)."""
    handle = nj.create(1, [arch_option])
    try:
        nj.complete(handle)
        size = nj.get_linked_cubin_size(handle)
        assert size > 0 if on_nvidia() else size == 0
        assert nj.get_error_log_size(handle) == 0
    finally:
        nj.destroy(handle)


def test_no_linked_ptx(nj, arch, arch_option):
    """-lto -ptx: HIP's linker makes no PTX. On AMD the LTO link completes and linked PTX is
    ERROR_INVALID_INPUT; on NVIDIA the inputs hiprtc gives without -dlto are PTX, which -ptx
    refuses as nvJitLink does (LTO-IR links: test_alias_lto_gpu.py)."""
    code = bytes(bitcode_of(DEVICE_FUNCTION, b"scale_add.hip", arch))
    handle = nj.create(3, [arch_option, "-lto", "-ptx"])
    try:
        nj.add_data(handle, nj.InputType.ANY, code, len(code), "scale_add")
        if on_nvidia():
            with pytest.raises(nj.nvJitLinkError) as e:
                nj.complete(handle)
            assert e.value.status == nj.Result.ERROR_INCORRECT_INPUT_TYPE
            return
        nj.complete(handle)
        with pytest.raises(nj.nvJitLinkError) as e:
            nj.get_linked_ptx_size(handle)
        assert e.value.status == nj.Result.ERROR_INVALID_INPUT
    finally:
        nj.destroy(handle)
