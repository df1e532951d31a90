"""The `cuda` alias on the CPU: CUDA Python calls through hip_as_cuda, against the real HIP runtime
(no GPU: the statuses HIP reports for no device), hiprtc compiling CUDA kernels, bad input refused.

What the alias must match is NVIDIA's cuda-bindings (tests/alias/test_alias_parity.py compares against
it); here its behaviour is checked against our own `hip` on the same runtime.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import cuda_bindings_oracle as oracle
from conftest import ROOT, alias_cuda_include

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")
from cuda.bindings import nvrtc, runtime  # noqa: E402

import hip_as_cuda  # noqa: E402
from hip import hip  # noqa: E402

if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
    pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)", allow_module_level=True)

MODULES = {"driver": driver, "runtime": runtime, "nvrtc": nvrtc}
KERNEL = b"""
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""


def coverage(module: str) -> dict:
    return hip_as_cuda.coverage()[module]


@pytest.mark.parametrize("name", ["driver", "runtime", "nvrtc", "cydriver", "cyruntime", "cynvrtc"])
def test_modules_import(name):
    __import__(f"cuda.bindings.{name}")


def test_legacy_modules_are_the_bindings():
    from cuda import cuda, cudart
    from cuda import nvrtc as legacy_nvrtc
    assert cuda.cuInit is driver.cuInit and cudart.cudaMalloc is runtime.cudaMalloc
    assert legacy_nvrtc.nvrtcVersion is nvrtc.nvrtcVersion


@pytest.mark.parametrize("module", list(MODULES))
def test_every_cuda_function_exists(module):
    """Every function of the headers is there, bridged or answering not-supported: never an
    AttributeError (the coverage report lists each one's status)."""
    cov = coverage(module)
    assert cov["summary"]["functions"] == len(cov["functions"]) > 0
    for name in cov["functions"]:
        assert callable(getattr(MODULES[module], name)), name


def _arity(fn) -> int:
    """The parameter count from the embedded signature ('name(a, b, c)')."""
    head = (fn.__doc__ or "").split("\n", 1)[0]
    inner = head[head.index("(") + 1:head.rindex(")")].strip() if "(" in head else ""
    return 0 if not inner else inner.count(",") + 1


@pytest.mark.parametrize("module", list(MODULES))
def test_not_supported_functions_return_the_status(module):
    """A function with no HIP counterpart returns the module's not-supported status in a tuple
    (called with zeros: handles and pointers NULL; a NULL handle where C needs one answers the
    null-handle status first, as CUDA checks its arguments), never an AttributeError or a crash."""
    from codegen.alias.modules import load_specs
    spec = load_specs()[module]
    mod = MODULES[module]
    statuses = spec.bridge.status
    status = getattr(mod, spec.error_type)[statuses.not_supported]
    null = getattr(mod, spec.error_type)[statuses.null_handle] if statuses.null_handle else status
    checked = unsupported = 0
    for name, entry in coverage(module)["functions"].items():
        if entry["status"] != "not_supported":
            continue
        fn = getattr(mod, name)
        try:
            r = fn(*([0] * _arity(fn)))
        except (TypeError, ValueError, OverflowError):
            continue   # an argument refused before the call
        assert isinstance(r, tuple) and r[0] in (status, null), (name, r)
        checked += 1
        unsupported += r[0] == status
    assert checked or not any(v["status"] == "not_supported" for v in coverage(module)["functions"].values())
    assert unsupported or not checked


@pytest.mark.runtime
def test_statuses_are_cuda_names_of_hips():
    """Each call's status is CUDA's enumerator of the same name as HIP's status for the same call."""
    hip_err, hip_n = hip.hipGetDeviceCount()
    err, n = runtime.cudaGetDeviceCount()
    assert isinstance(err, runtime.cudaError_t)
    assert err.name == hip_err.name.replace("hip", "cuda", 1)    # hipErrorNoDevice ~ cudaErrorNoDevice
    assert (n is None) == (int(hip_err) != 0)
    derr, dn = driver.cuDeviceGetCount()
    assert isinstance(derr, driver.CUresult)
    if int(hip_err) == int(hip.hipError_t.hipErrorNoDevice):
        assert err == runtime.cudaError_t.cudaErrorNoDevice and n is None
        assert derr == driver.CUresult.CUDA_ERROR_NO_DEVICE and dn is None


@pytest.mark.runtime
def test_versions_and_error_names():
    err, v = runtime.cudaRuntimeGetVersion()
    assert err == runtime.cudaError_t.cudaSuccess and v == hip.hipRuntimeGetVersion()[1]
    for e in (runtime.cudaError_t.cudaErrorNoDevice, runtime.cudaError_t.cudaErrorInvalidValue):
        assert runtime.cudaGetErrorName(e)[-1] == e.name.encode()
    err, name = driver.cuGetErrorName(driver.CUresult.CUDA_ERROR_NO_DEVICE)
    assert err == driver.CUresult.CUDA_SUCCESS and bytes(name) == b"CUDA_ERROR_NO_DEVICE"
    assert nvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION)[-1] == b"NVRTC_ERROR_COMPILATION"


@pytest.mark.runtime
def test_outputs_are_none_on_error():
    """cuda.bindings' convention: a failed call returns None for each output."""
    err, ptr = runtime.cudaMalloc(1 << 62)     # fails with or without a device
    assert err != runtime.cudaError_t.cudaSuccess and ptr is None
    err, dptr = driver.cuMemAlloc(1 << 62)
    assert err != driver.CUresult.CUDA_SUCCESS and dptr is None


@pytest.mark.runtime
@pytest.mark.parametrize("arch_option", [b"--gpu-architecture=sm_90", b"-arch=compute_80", b"--gpu-architecture=gfx90a"])
def test_nvrtc_compiles_a_cuda_kernel_to_an_amd_code_object(arch_option):
    """An NVRTC program with NVIDIA's target and CUDA options compiles on hiprtc for gfx90a (no
    device here), and nvrtcGetCUBIN fills the caller's bytes as cuda.bindings does."""
    err, prog = nvrtc.nvrtcCreateProgram(KERNEL, b"scale.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, = nvrtc.nvrtcCompileProgram(prog, 3, [arch_option, b"--std=c++17", b"-default-device"])
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        size = nvrtc.nvrtcGetProgramLogSize(prog)[1]
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        pytest.fail(log.decode(errors="replace"))
    err, size = nvrtc.nvrtcGetCUBINSize(prog)
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS and size > 64
    code = b" " * size
    assert nvrtc.nvrtcGetCUBIN(prog, code) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
    if os.environ.get("HIP_PLATFORM") != "nvidia":   # on NVIDIA, NVRTC made it for the GPU there
        assert code[:4] == b"\x7fELF"
        assert int.from_bytes(code[18:20], "little") == 224      # e_machine: EM_AMDGPU
    assert nvrtc.nvrtcDestroyProgram(prog)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS


@pytest.mark.runtime
def test_nvrtc_ltoir_is_hiprtcs_bitcode():
    """nvrtcGetLTOIR(Size) are hiprtcGetBitcode(Size) (hip_as_cuda/specs/nvrtc.yaml): after -dlto
    (hiprtc's -fgpu-rdc) the LTO-IR is LLVM bitcode, plain or in a clang offload bundle; without
    -dlto there is none, NVRTC's size 0 (hiprtc's HIPRTC_ERROR_INVALID_PROGRAM mapped). ROCm before
    5.3, this machine's 5.2 among them, has no hiprtcGetBitcode: the call names the HIP function."""
    from hip.errors import SymbolNotFoundError
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    nvidia = os.environ.get("HIP_PLATFORM") == "nvidia"
    for options, lto in (([b"-dlto", b"-arch=sm_90"], True), ([b"-arch=sm_90"], False)):
        err, prog = nvrtc.nvrtcCreateProgram(KERNEL, b"scale.cu", 0, [], [])
        assert err == ok
        try:
            assert nvrtc.nvrtcCompileProgram(prog, len(options), options) == (ok,)
            try:
                err, size = nvrtc.nvrtcGetLTOIRSize(prog)
            except SymbolNotFoundError as e:
                assert "hiprtcGetBitcodeSize" in str(e)
                with pytest.raises(SymbolNotFoundError, match="hiprtcGetBitcode"):
                    nvrtc.nvrtcGetLTOIR(prog, b" " * 64)
                continue
            assert err == ok
            if not lto:
                if not nvidia:   # the NVIDIA layer's hiprtcGetBitcode gives the program's code
                    assert size == 0 and nvrtc.nvrtcGetLTOIR(prog, b"") == (ok,)
                continue
            code = b" " * size
            assert size > 4 and nvrtc.nvrtcGetLTOIR(prog, code) == (ok,)
            assert code[:4] in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b", b"\xed\x43\x4e\x7f") or \
                code.startswith((b"__CLANG_OFFLOAD_BUNDLE__", b"CCOB")), code[:32]
        finally:
            nvrtc.nvrtcDestroyProgram(prog)


@pytest.mark.parametrize("call", [
    lambda: driver.cuDeviceGet("0"),
    lambda: runtime.cudaMalloc(-1),
    lambda: runtime.cudaMalloc(None),
    lambda: driver.cuDeviceGetAttribute("x", 0),
    lambda: nvrtc.nvrtcCompileProgram(nvrtc.nvrtcProgram(), -1, []),
    lambda: nvrtc.nvrtcCompileProgram(nvrtc.nvrtcProgram(), 2, [b"-x"]),
    lambda: nvrtc.nvrtcCreateProgram(None, b"x.cu", 0, [], []),
    lambda: runtime.cudaMemcpy(0, 0, 8, "cudaMemcpyHostToDevice"),
    lambda: driver.cuLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, ((1,), ()), 0),
])
def test_bad_input_raises(call):
    with pytest.raises((TypeError, ValueError, OverflowError)):
        call()


def test_null_handles_answer_the_status_cuda_bindings_returns():
    # cuda.bindings hands NULL to C, which answers; the alias answers the same without calling HIP
    assert nvrtc.nvrtcCompileProgram(None, 1, [b"-x"]) == (nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM,)
    assert nvrtc.nvrtcGetLoweredName(0, b"x") == (nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM, None)
    assert driver.cuModuleGetFunction(None, b"f") == (driver.CUresult.CUDA_ERROR_INVALID_VALUE, None)
    assert driver.cuFuncGetName(0) == (driver.CUresult.CUDA_ERROR_INVALID_VALUE, None)
    # NVIDIA's test_cuKernelGetName_failure (a kernel is its module's function here)
    assert driver.cuKernelGetName(None) == (driver.CUresult.CUDA_ERROR_INVALID_VALUE, None)
    # a function HIP lacks checks its handles first too, then answers not-supported
    assert driver.cuKernelGetLibrary(None) == (driver.CUresult.CUDA_ERROR_INVALID_VALUE, None)
    assert driver.cuKernelGetLibrary(driver.CUkernel(8)) == (driver.CUresult.CUDA_ERROR_NOT_SUPPORTED, None)


def test_define_through_a_typedef_cast_is_a_constant():
    # cuda.h: #define CU_DEVICE_CPU ((CUdevice)-1), CU_DEVICE_INVALID ((CUdevice)-2); plain ints in
    # cuda.bindings (NVIDIA's test_cuda_mem_range_attr: location.id = int(cuda.CU_DEVICE_CPU))
    assert (driver.CU_DEVICE_CPU, driver.CU_DEVICE_INVALID) == (-1, -2)
    assert type(driver.CU_DEVICE_CPU) is int


def test_handles_and_values_have_cuda_bindings_methods():
    p = driver.CUdeviceptr(5)
    assert int(p) == 5 and p.getPtr() != 0 and repr(p) == "<CUdeviceptr 5>"
    with pytest.raises(OverflowError):
        driver.CUdeviceptr(-1)
    s = driver.CUstream(0)
    assert int(s) == 0 and s.getPtr() is not None
    assert driver.CUresult(0) is driver.CUresult.CUDA_SUCCESS
    assert isinstance(driver.CUresult.CUDA_SUCCESS, int)


def test_python_m_hip_as_cuda_runs_a_program(tmp_path):
    """`python -m hip_as_cuda prog.py args` runs the program with its cuda imports taken by the
    alias, whatever else is installed."""
    prog = tmp_path / "prog.py"
    prog.write_text("import sys\nfrom cuda.bindings import runtime\n"
                    "print(runtime.__file__.startswith(sys.argv[1]), sys.argv[2:])\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda", str(prog), os.path.dirname(hip_as_cuda.__file__), "x"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True ['x']"


def test_python_m_hip_as_cuda_runs_the_program_as_main(tmp_path):
    """The program is the module __main__, as under `python prog.py` (its classes pickle, its
    errors exit nonzero with their traceback), and the launcher imports no more than it needs
    (runpy.run_path would import pkgutil, and with it typing and re, at every start)."""
    prog = tmp_path / "prog.py"
    prog.write_text("import pickle, sys\nclass A:\n    pass\n"
                    "assert __name__ == '__main__' and sys.modules['__main__'].A is A\n"
                    "assert type(pickle.loads(pickle.dumps(A()))) is A\n"
                    "print('pkgutil' in sys.modules, __file__ == sys.argv[0])\n"
                    "if sys.argv[1:] == ['fail']:\n    raise ValueError('from the program')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    plain = subprocess.run([sys.executable, "-S", str(prog)], capture_output=True, text=True, timeout=120, env=env)
    r = subprocess.run([sys.executable, "-S", "-m", "hip_as_cuda", str(prog)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout == "False True\n"
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda", str(prog), "fail"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 1 and "ValueError: from the program" in r.stderr and str(prog) in r.stderr


def test_python_m_hip_as_cuda_reports_coverage():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0
    for m in MODULES:
        s = coverage(m)["summary"]
        assert f"cuda.bindings.{m}" in r.stdout and f"{s['bridged']} of {s['functions']}" in r.stdout


def test_coverage_reports_are_consistent():
    for m in MODULES:
        cov = coverage(m)
        st = [v["status"] for v in cov["functions"].values()]
        assert cov["summary"]["bridged"] == st.count("bridged")
        for name, v in cov["functions"].items():
            if v["status"] != "bridged":
                assert v.get("reason"), name
    assert json.loads((ROOT / "hip_as_cuda" / "cuda" / "bindings" / "_coverage" / "driver.json").read_text())


@pytest.mark.runtime
def test_bad_input_never_crashes():
    """A seeded subset of tests/fuzz/alias.py (`python -m tests.fuzz.alias` runs every case):
    every function with zeros, and with bad values one parameter at a time, in a child process."""
    from tests.fuzz import alias as fuzz_alias
    r = fuzz_alias.run(fuzz_alias.calls(seed=1, per_function=4))
    assert r["calls"] > 1000
    assert not r["crashes"], r["crashes"][:10]


def test_fuzz_subset_has_the_crash_classes():
    """The seeded subset gives every parameter a negative length and a 1-byte buffer, and every
    function zeros (a length of 0, a NULL string): the classes of the four H100 crashes. True is
    not a bad value where an int, an enum, a handle or an address is taken (1: a made-up handle,
    the caller's word by contract)."""
    from tests.fuzz import alias as fuzz_alias
    cs = {(m, f, tuple(a)) for m, f, a in fuzz_alias.calls(seed=1, per_function=4)}
    for call in [("driver", "cuDeviceGetName", ("0", "0")), ("driver", "cuDeviceGetName", ("-1", "0")),
                 ("runtime", "cudaDeviceGetPCIBusId", ("-1", "0")), ("driver", "cuGetProcAddress_v2", ("0", "0", "0")),
                 ("driver", "cuGraphKernelNodeSetParams_v2", ("0", "b'x'")), ("driver", "cuMemRelease", ("-1",)),
                 ("nvrtc", "nvrtcGetPTX", ("0", "b'x'"))]:
        assert call in cs, call
    assert ("driver", "cuMemRelease", ("True",)) not in cs
    every = {(m, f, tuple(a)) for m, f, a in fuzz_alias.calls(0, None)}
    assert ("driver", "cuStreamSynchronize", ("True",)) not in every      # a handle: True is the address 1
    assert ("driver", "cuModuleGetFunction", ("0", "True")) in every       # a name: True is no bytes


@pytest.mark.runtime
@pytest.mark.parametrize("length", [0, -1])
def test_text_length_below_one_is_invalid_value(length):
    """Text a call writes into `length` bytes: below 1 there is no room for the NUL CUDA writes at
    [length - 1] (cuDeviceGetName(0, 0) crashed an H100). No call is made: the status is the
    invalid-value one, not what the no-device runtime answers; a length of 1 is called."""
    inval = driver.CUresult.CUDA_ERROR_INVALID_VALUE
    assert driver.cuDeviceGetName(length, 0) == (inval, None)
    assert driver.cuDeviceGetPCIBusId(length, 0) == (inval, None)
    assert runtime.cudaDeviceGetPCIBusId(length, 0) == (runtime.cudaError_t.cudaErrorInvalidValue, None)
    assert driver.cuDeviceGetName(1, 0)[0] != inval


# `const char*` inputs are cuda.bindings' `char*`: bytes or bytearray, else a TypeError before any
# call (Cython's conversion); a NULL (0) is no string (cuGetProcAddress_v2(0, 0, 0) crashed an H100).
BAD_STRINGS = [
    "driver.cuGetProcAddress(0, 0, 0)",
    "driver.cuGetProcAddress(None, 0, 0)",
    "driver.cuGetProcAddress('cuInit', 0, 0)",
    "driver.cuGetProcAddress(8, 0, 0)",
    "driver.cuModuleGetFunction(None, 0)",
    "driver.cuModuleLoad(0)",
    "runtime.cudaLibraryLoadFromFile(None, [], [], 0, [], [], 0)",
    "nvrtc.nvrtcCreateProgram(0, b'x.cu', 0, [], [])",
    "nvrtc.nvrtcCreateProgram(b'', 0, 0, [], [])",
]
_EXC = """
import json, sys
from cuda.bindings import driver, runtime, nvrtc
out = []
for e in json.loads(sys.argv[1]):
    try:
        eval(e)
        out.append("no exception")
    except Exception as x:
        out.append(type(x).__name__)
print(json.dumps(out))
"""


def _exceptions(python: list[str], exprs: list[str]) -> list[str]:
    r = subprocess.run(python + ["-c", _EXC, json.dumps(exprs)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])))
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_c_string_inputs_take_bytes_only():
    """In a child: before the fix some of these reached HIP with NULL."""
    assert _exceptions([sys.executable], BAD_STRINGS) == ["TypeError"] * len(BAD_STRINGS)


def test_c_string_refusals_match_nvidia():
    """NVIDIA's cuda-bindings (the oracle) refuses the same calls with the same exception, no GPU
    or driver needed: the conversion comes first."""
    try:
        python = oracle.ensure_venv(oracle.find_release())
    except oracle.NoRelease as e:
        pytest.skip(str(e))
    assert _exceptions([python, "-I"], BAD_STRINGS) == _exceptions([sys.executable], BAD_STRINGS)


# C function pointers given data: cuLaunchHostFunc(0, b'x', 0) crashed an H200 (CUDA jumped into the bytes)
BAD_FUNCTION_POINTERS = [
    "driver.cuLaunchHostFunc(0, b'x', 0)",
    "runtime.cudaLaunchHostFunc(0, b'x', 0)",
    "driver.cuStreamAddCallback(0, b'x', 0, 0)",
    "runtime.cudaStreamAddCallback(0, bytearray(8), 0, 0)",
    "driver.cuLaunchHostFunc(0, 'f', 0)",
    "driver.cuLaunchHostFunc(0, [1], 0)",
]


def test_function_pointers_take_no_data():
    assert _exceptions([sys.executable], BAD_FUNCTION_POINTERS) == ["TypeError"] * len(BAD_FUNCTION_POINTERS)


def test_function_pointer_refusals_match_nvidia():
    try:
        python = oracle.ensure_venv(oracle.find_release())
    except oracle.NoRelease as e:
        pytest.skip(str(e))
    assert _exceptions([python, "-I"], BAD_FUNCTION_POINTERS) == _exceptions([sys.executable], BAD_FUNCTION_POINTERS)


@pytest.mark.parametrize("buf", ["b'x'", "bytearray(8)", "np.zeros(3, np.uint8)", "ctypes.c_int(0)"])
def test_short_buffer_for_a_struct_pointer_is_refused(buf):
    """A Python buffer smaller than the struct C reads (cuGraphKernelNodeSetParams_v2(0, b'x')
    crashed an H100: the layer read its pointer fields past the buffer). NVIDIA's takes only its
    struct class (TypeError); ours takes any pointer, and refuses a buffer too small (ValueError)."""
    import ctypes  # noqa: F401
    np = pytest.importorskip("numpy")  # noqa: F841
    with pytest.raises(ValueError, match="holds .* bytes, the call reads"):
        driver.cuGraphKernelNodeSetParams_v2(0, eval(buf))
    with pytest.raises(ValueError):
        runtime.cudaGraphKernelNodeSetParams(0, eval(buf))


@pytest.mark.runtime
def test_short_buffer_for_nvrtc_output_is_refused():
    """nvrtcGetPTX/CUBIN/ProgramLog write as many bytes as their size function says: a shorter
    buffer is refused before the call (C would write past its end); the size itself is taken."""
    err, prog = nvrtc.nvrtcCreateProgram(KERNEL, b"scale.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    try:
        assert nvrtc.nvrtcCompileProgram(prog, 0, [])[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
        size = nvrtc.nvrtcGetCUBINSize(prog)[-1]
        with pytest.raises(ValueError, match=f"holds {size - 1} bytes, the call .* {size}"):
            nvrtc.nvrtcGetCUBIN(prog, b" " * (size - 1))
        assert nvrtc.nvrtcGetCUBIN(prog, b" " * size) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
        n = nvrtc.nvrtcGetProgramLogSize(prog)[-1]
        if n > 1:
            with pytest.raises(ValueError):
                nvrtc.nvrtcGetProgramLog(prog, b" " * (n - 1))
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


@pytest.mark.runtime
def test_legacy_cuda_module_takes_12x_cuCtxCreate():
    """12.x programs call cuCtxCreate(flags, dev); 13.x takes (ctxCreateParams, flags, dev)."""
    from cuda import cuda
    assert cuda.cuCtxCreate(0, 0)[0] == cuda.cuCtxCreate(None, 0, 0)[0] == driver.cuCtxCreate(None, 0, 0)[0]


def test_kernel_params_in_a_struct_field():
    """CUDA_KERNEL_NODE_PARAMS.kernelParams takes cuda.bindings' ((values), (types)): an address
    array, kept alive by the struct, each entry pointing at its value."""
    import ctypes
    import gc
    p = driver.CUDA_KERNEL_NODE_PARAMS()
    p.kernelParams = ((driver.CUdeviceptr(0x1234), 3, 2.5), (None, ctypes.c_int, ctypes.c_float))
    gc.collect()
    addrs = (ctypes.c_void_p * 3).from_address(int(p.kernelParams))
    assert ctypes.c_uint64.from_address(addrs[0]).value == 0x1234
    assert ctypes.c_int.from_address(addrs[1]).value == 3
    assert ctypes.c_float.from_address(addrs[2]).value == 2.5
    with pytest.raises(TypeError):
        p.kernelParams = ((1, 2), (ctypes.c_int,))


def test_kernel_params_keep_the_values_they_point_into():
    """With the type None, an entry points into the value's own storage (a CUdeviceptr's, a ctypes
    object's): the packed block keeps those values alive, given as a tuple or (hip.hip) a list.
    Freed values' memory would be reused by the objects made after them (read back as 0xDEAD)."""
    import ctypes
    import gc
    from hip import hip
    for form in (tuple, list):
        p = hip.hipKernelNodeParams()
        p.kernelParams = (form([driver.CUdeviceptr(0x1234), ctypes.c_int(7)]), (None, None))
        gc.collect()
        churn = [(driver.CUdeviceptr(0xDEAD), ctypes.c_int(0xDEAD)) for _ in range(1000)]
        addrs = (ctypes.c_void_p * 2).from_address(int(p.kernelParams))
        assert ctypes.c_uint64.from_address(addrs[0]).value == 0x1234, form
        assert ctypes.c_int.from_address(addrs[1]).value == 7, form
        del churn


def test_arrays_set_through_a_nested_struct_view_live_as_long_as_the_struct(tmp_path):
    """`params.kernel.kernelParams = ...` sets the field through a temporary view of the nested
    struct: the argument block (and `attrs`' array) must live with `params`, not with the view.
    Run apart: reading the freed block crashed the interpreter."""
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import ctypes, gc\n"
        "from cuda.bindings import driver\n"
        "p = driver.CUgraphNodeParams()\n"
        "p.kernel.kernelParams = ((driver.CUdeviceptr(0x1234), 7), (None, ctypes.c_int))\n"
        "gc.collect()\n"
        "churn = [(driver.CUdeviceptr(0xDEAD), ctypes.c_int(0xDEAD), bytearray(64)) for _ in range(2000)]\n"
        "addrs = (ctypes.c_void_p * 2).from_address(int(p.kernel.kernelParams))\n"
        "print(hex(ctypes.c_uint64.from_address(addrs[0]).value), ctypes.c_int.from_address(addrs[1]).value)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "hip_as_cuda", str(prog)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["0x1234", "7"]


def test_kernel_params_take_an_enum_member_as_its_int():
    """With the type None, an enum member is passed as its C int, as cuda.bindings does
    (`(<int*>p)[0] = value.value`; ours TypeError'd before)."""
    import ctypes
    p = driver.CUDA_KERNEL_NODE_PARAMS()
    member = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    p.kernelParams = ((member, 7), (None, ctypes.c_int))
    addrs = (ctypes.c_void_p * 2).from_address(int(p.kernelParams))
    assert ctypes.c_int.from_address(addrs[0]).value == int(member) == 2
    assert ctypes.c_int.from_address(addrs[1]).value == 7
    with pytest.raises(TypeError):
        p.kernelParams = ((2,), (None,))   # a plain int is no enum member: cuda.bindings refuses it too


def _simple_ctypes_types():
    """Every simple ctypes type of this platform (taken from ctypes itself), but strings and objects."""
    import ctypes
    return sorted({t for t in vars(ctypes).values() if isinstance(t, type) and issubclass(t, ctypes._SimpleCData)
                   and t is not ctypes._SimpleCData and t._type_ not in "zZuOXvc"}, key=lambda t: t.__name__)


@pytest.mark.parametrize("t", _simple_ctypes_types(), ids=lambda t: t.__name__)
def test_kernel_params_pack_each_ctypes_type_as_ctypes_does(t):
    """((values), (types)) packs each value exactly as constructing the ctypes object would
    (ctypes is the oracle), NumPy scalars included; a value out of the type's range is refused."""
    import ctypes
    import numpy as np
    p = driver.CUDA_KERNEL_NODE_PARAMS()
    if t._type_ in "fdg":
        values = [0.5, -3.25, 1e30 if t._type_ != "f" else 3.0, np.float32(0.75), np.float64(-2.5)]
    elif t._type_ == "?":
        values = [True, False, 1, 0]
    elif t._type_ == "P":
        values = [None, 0, 0x1234, driver.CUdeviceptr(0x5678)]
    else:
        bits = 8 * ctypes.sizeof(t)
        signed = t(-1).value < 0
        lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)
        values = [0, 1, lo, hi, np.int8(-3) if signed else np.uint8(3)]
    p.kernelParams = (tuple(values), (t,) * len(values))
    addrs = (ctypes.c_void_p * len(values)).from_address(int(p.kernelParams))
    for v, a in zip(values, addrs):
        # c_void_p given an object with getPtr() (CUdeviceptr): that address, as cuda.bindings'
        # packer passes it (its _HelperKernelParams, looked at with NVIDIA's 13.3.1)
        ptr = v.getPtr() if hasattr(v, "getPtr") else v
        want = t(None if v is None else int(ptr) if t._type_ == "P" else v).value
        assert t.from_address(a).value == want, (v, t.from_address(a).value, want)
    if t._type_ not in "fdg?P":
        bits = 8 * ctypes.sizeof(t)
        with pytest.raises(OverflowError):
            p.kernelParams = ((1 << bits,), (t,))
        with pytest.raises(TypeError):
            p.kernelParams = ((1.5,), (t,))


def test_alias_spec_entries_match(include64):
    """Every entry of the alias's specs names something in CUDA's headers (`spec.unmatched`; the
    shared defaults' rules need only decide a parameter in one module), and every entry of their
    `bridge:` something in CUDA's and HIP's (`codegen.bridge.spec.unmatched_alias`: functions,
    parameters, enumerators the bridges name)."""
    from codegen import spec as specmod
    from codegen.alias import bridge, modules as alias_gen
    from codegen.bridge import spec as bridgespec
    include = alias_cuda_include()   # the headers the alias is generated from, not the layer's
    if include is None:
        pytest.skip("no CUDA headers for the alias here (build_support.cuda.alias_include)")
    dead_defaults, bad, hip_sides = None, [], {}
    specs = alias_gen.load_specs()
    for name, spec in specs.items():
        lib = alias_gen.analyse(spec, str(include))
        found = [str(u) for u in specmod.unmatched(spec, lib.module, lib.types)]
        shared = {u for u in found if "defaults.yaml" in u}
        dead_defaults = shared if dead_defaults is None else dead_defaults & shared
        bad += [f"{name}: {u}" for u in found if u not in shared]
        if spec.bridge.hip not in hip_sides:
            hip_sides[spec.bridge.hip] = bridge.hip_side(spec.bridge.hip, include64, str(include), list(specs.values()))
        bad += [f"{name}: {u}" for u in bridgespec.unmatched_alias(spec.bridge, lib.module, lib.types,
                                                                    hip_sides[spec.bridge.hip].module)]
    assert not bad and not dead_defaults, bad + sorted(dead_defaults or ())


def test_alias_bridge_entries_are_judged():
    """unmatched_alias reports an entry of every kind that names nothing (the report's own test)."""
    from codegen.alias import modules as alias_gen
    from codegen.bridge import spec as bridgespec
    from codegen.schema import build
    include = alias_cuda_include()
    if include is None:
        pytest.skip("no CUDA headers for the alias here (build_support.cuda.alias_include)")
    spec = alias_gen.load_specs()["nvrtc"]
    lib = alias_gen.analyse(spec, str(include))
    typo = build(bridgespec.AliasBridge, {
        "rename": {"nvrtcGetPTXX": "hiprtcGetCode"}, "manual": {"nvrtcNope": "x"},
        "drop": {"nvrtcGetPTX": ["ptxx"]}, "status": {"invalid": "NVRTC_NOPE"},
        "status_names": ["nvrtcGetErrorStrin"], "context_as_device": {"params": ["nvrtcGetPTX\\.ctx"]}})
    found = {u.entry for u in bridgespec.unmatched_alias(typo, lib.module, lib.types)}
    assert found == {"bridge.rename.nvrtcGetPTXX", "bridge.manual.nvrtcNope", "bridge.drop.nvrtcGetPTX",
                     "bridge.status", "bridge.status_names: nvrtcGetErrorStrin",
                     "bridge.context_as_device: nvrtcGetPTX\\.ctx"}
    assert found <= set(bridgespec.entries(typo, "bridge."))


def test_hand_written_and_trampolined_bridges_reach_hip():
    """cudaMemcpy3DPeer (the 3D copy of two unified addresses) and cuStreamAddCallback (a one-shot
    trampoline converting HIP's status) call HIP: without a device HIP's status comes back, never
    the not-supported status of a function HIP lacks."""
    import ctypes
    supported = lambda r: r[0] not in (driver.CUresult.CUDA_ERROR_NOT_SUPPORTED, runtime.cudaError_t.cudaErrorNotSupported)
    assert supported(runtime.cudaMemcpy3DPeer(runtime.cudaMemcpy3DPeerParms()))
    assert supported(runtime.cudaMemcpy3DPeerAsync(runtime.cudaMemcpy3DPeerParms(), 0))
    assert supported(driver.cuMemcpy3DPeer(driver.CUDA_MEMCPY3D_PEER()))
    assert supported(driver.cuMemcpy3DPeerAsync(driver.CUDA_MEMCPY3D_PEER(), 0))
    cb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(lambda s, status, data: None)
    assert supported(runtime.cudaStreamAddCallback(0, runtime.cudaStreamCallback_t(_ptr=ctypes.addressof(cb)), 0, 0))
    assert supported(driver.cuStreamAddCallback(0, driver.CUstreamCallback(_ptr=ctypes.addressof(cb)), 0, 0))
    cov = hip_as_cuda.coverage()
    assert cov["runtime"]["functions"]["cudaStreamAddCallback"]["status"] == "bridged"
    assert cov["driver"]["functions"]["cuMemcpy3DPeer"]["status"] == "bridged"


def test_driver_surface_objects_reach_hips_runtime_surfaces():
    """cuSurfObjectCreate (manual) rewrites the driver's array resource in HIP's runtime descriptor
    for hipCreateSurfaceObject; what CUDA refuses (no descriptor, another resource type, flags)
    is CUDA_ERROR_INVALID_VALUE before HIP is called. Without a device HIP's status comes back."""
    CU = driver.CUresult
    desc = driver.CUDA_RESOURCE_DESC()
    assert driver.cuSurfObjectCreate(None)[0] == CU.CUDA_ERROR_INVALID_VALUE
    assert driver.cuSurfObjectCreate(desc)[0] == CU.CUDA_ERROR_INVALID_VALUE          # hArray NULL
    desc.res.array.hArray = driver.CUarray(0x1000)
    desc.flags = 1
    assert driver.cuSurfObjectCreate(desc)[0] == CU.CUDA_ERROR_INVALID_VALUE
    desc.flags = 0
    desc.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
    assert driver.cuSurfObjectCreate(desc)[0] == CU.CUDA_ERROR_INVALID_VALUE
    cov = hip_as_cuda.coverage()["driver"]["functions"]
    assert cov["cuSurfObjectCreate"]["status"] == "bridged"
    assert cov["cuSurfObjectDestroy"] == {"status": "bridged", "hip": "hipDestroySurfaceObject"}
    desc.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    from hip.errors import SymbolNotFoundError
    try:
        err, obj = driver.cuSurfObjectCreate(desc)   # reaches HIP: no device here
    except SymbolNotFoundError as e:                 # ROCm 5.2's runtime has no surfaces
        assert "hipCreateSurfaceObject" in str(e)
    else:
        assert err not in (CU.CUDA_SUCCESS, CU.CUDA_ERROR_NOT_SUPPORTED, CU.CUDA_ERROR_INVALID_VALUE), err


def test_unified_copies_reach_hips_default_kind_copy():
    # cuMemcpy(Async) copy between any two unified addresses: HIP's hipMemcpy(Async) with kind
    # hipMemcpyDefault (bridge.fixed), not the not-supported status of a HIP function taking a
    # parameter CUDA's lacks
    from hip_as_cuda import CUDA_DIR
    cov = json.load(open(os.path.join(CUDA_DIR, "bindings", "_coverage", "driver.json")))["functions"]
    assert cov["cuMemcpy"] == {"status": "bridged", "hip": "hipMemcpy"}
    assert cov["cuMemcpyAsync"] == {"status": "bridged", "hip": "hipMemcpyAsync"}
    err, = driver.cuMemcpy(0, 0, 0)
    assert err != driver.CUresult.CUDA_ERROR_NOT_SUPPORTED
