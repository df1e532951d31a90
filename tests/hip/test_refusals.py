"""The crash classes the fuzz found against the ROCm 5.2/5.3 runtime, refused by the Python layer.

Each case ran against the real runtime before the parameter-role checks and crashed the
interpreter (SIGSEGV, SIGABRT) or wrote past a buffer; each must now raise the given exception
before the C call. All run in one child interpreter (a crash fails every case, with its signal),
after the cases that must still reach C (valid NULL streams, ints and ctypes as handles).
"""
from __future__ import annotations

import json

import pytest

from conftest import run_python

pytestmark = pytest.mark.runtime

PRELUDE = """
import ctypes, json, math
import numpy as np
from hip import hip, hiprtc, hiprand, hipsparse
from hip._pointer import Pointer

def program(src=b'extern "C" __global__ void k() {}'):
    err, prog = hiprtc.hiprtcCreateProgram(src, b'k.hip', 0, None, None)
    assert err == 0 and prog
    return prog

def descr(create=hipsparse.hipsparseCreateMatDescr):
    cv = ctypes.c_void_p()          # AMD's convention: the caller passes the descriptor's storage
    assert create(ctypes.pointer(cv))[0] == 0 and cv.value
    return Pointer(cv.value)

def destroyed_program():
    prog = program()
    assert hiprtc.hiprtcDestroyProgram(prog)[0] == 0
    return prog

def destroyed_hyb():
    h = descr(hipsparse.hipsparseCreateHybMat)
    assert hipsparse.hipsparseDestroyHybMat(h)[0] == 0
    return h

GENERAL = hipsparse.hipsparseMatrixType_t.HIPSPARSE_MATRIX_TYPE_GENERAL
"""

# (id, expression, exception type name)
REFUSED = [
    # None where the C API needs a handle or a string
    ("hiprtcGetCodeSize(None)", "hiprtc.hiprtcGetCodeSize(None)", "TypeError"),
    ("hipKernelNameRef(None)", "hip.hipKernelNameRef(None)", "TypeError"),
    ("hiprtcCreateProgram(src=None)", "hiprtc.hiprtcCreateProgram(None, b'x', 0, None, None)", "TypeError"),
    ("hipsparseDestroyHybMat(None)", "hipsparse.hipsparseDestroyHybMat(None)", "TypeError"),
    ("hipsparseGetMatType(0)", "hipsparse.hipsparseGetMatType(0)", "ValueError"),
    # an object's memory taken as an opaque handle
    ("hipsparseDestroyMatDescr(bytes)", "hipsparse.hipsparseDestroyMatDescr(b'x')", "TypeError"),
    ("hiprtcCompileProgram(prog=bytes)", "hiprtc.hiprtcCompileProgram(b'x', 1, [b'-O1'])", "TypeError"),
    ("hipsparseSetMatType(ndarray)", "hipsparse.hipsparseSetMatType(np.zeros(1, np.uint8), GENERAL)", "TypeError"),
    ("handle given bytearray", "hiprtc.hiprtcGetCodeSize(bytearray(8))", "TypeError"),
    ("handle given str", "hiprtc.hiprtcGetCodeSize('prog')", "TypeError"),
    ("handle given list", "hiprtc.hiprtcGetCodeSize([0])", "TypeError"),
    ("handle given negative int", "hiprtc.hiprtcGetCodeSize(-8)", "OverflowError"),
    # a struct or handle object of another C type, whose memory C would read as a program
    # (hiprtcDestroyProgram(dim3(5, 6, 7)) crashed); the stream stands at the program's address
    ("hiprtcDestroyProgram(struct)", "hiprtc.hiprtcDestroyProgram(hip.dim3(5, 6, 7))", "TypeError"),
    ("hiprtcDestroyProgram(struct.createRef())", "hiprtc.hiprtcDestroyProgram(hip.dim3(5, 6, 7).createRef())",
     "TypeError"),
    ("hiprtcCompileProgram(prog=struct)", "hiprtc.hiprtcCompileProgram(hip.hipDeviceProp_t(), 0, [])", "TypeError"),
    ("hiprtcGetCodeSize(stream)", "hiprtc.hiprtcGetCodeSize(hip.ihipStream_t.from_ptr(int(p)))", "TypeError"),
    # handles used after their destroy call
    ("hiprtcDestroyProgram twice", "hiprtc.hiprtcDestroyProgram(destroyed_program())", "ValueError"),
    ("destroyed program used", "hiprtc.hiprtcGetCodeSize(destroyed_program())", "ValueError"),
    ("hipsparseDestroyHybMat twice", "hipsparse.hipsparseDestroyHybMat(destroyed_hyb())", "ValueError"),
    # counts that disagree with the lists given
    ("negative option count", "hiprtc.hiprtcCompileProgram(program(), -1, [b'-O1'])", "ValueError"),
    ("header count over the lists", "hiprtc.hiprtcCreateProgram(b'x', b'x', 2**31-1, [b'x'], [b'x'])", "ValueError"),
    ("options given as bytes", "hiprtc.hiprtcCompileProgram(program(), 1, b'x')", "TypeError"),
    ("options None with a count", "hiprtc.hiprtcCompileProgram(program(), 1, None)", "TypeError"),
    # NaN where the library checks only the sign
    ("Poisson lambda NaN", "hiprand.hiprandCreatePoissonDistribution(math.nan)", "ValueError"),
    ("Poisson lambda inf", "hiprand.hiprandCreatePoissonDistribution(math.inf)", "ValueError"),
    # buffers smaller than what the call writes
    ("descriptor storage of 1 byte", "hipsparse.hipsparseCreateMatDescr(np.zeros(1, np.uint8))", "ValueError"),
    ("read-only descriptor storage", "hipsparse.hipsparseCreateMatDescr(bytes(8))", "BufferError"),
    ("code buffer under the code size", "hiprtc.hiprtcGetCode(p, bytearray(16))", "ValueError"),
    # an enumerator hipSPARSE 5.3 aborts on
    ("HIPSPARSE_INDEX_16U", "hipsparse.hipsparseCreateCoo(ctypes.pointer(ctypes.c_void_p()), 1, 1, 1, "
     "np.zeros(4, np.int32), np.zeros(4, np.int32), np.zeros(4, np.float32), "
     "hipsparse.hipsparseIndexType_t.HIPSPARSE_INDEX_16U, hipsparse.hipsparseIndexBase_t.HIPSPARSE_INDEX_BASE_ZERO, "
     "hip.hipDataType.HIP_R_32F)", "ValueError"),
]

# Valid input that must still reach C: (id, expression giving a status, the status it must equal)
ACCEPTED = [
    ("NULL stream is the default stream", "hip.hipStreamQuery(None)[0]", "hip.hipStreamQuery(0)[0]"),
    ("handle as an int address", "hiprtc.hiprtcGetProgramLogSize(int(p))[0]", "0"),
    ("handle as ctypes.c_void_p", "hiprtc.hiprtcGetProgramLogSize(ctypes.c_void_p(int(p)))[0]", "0"),
    ("handle as a plain Pointer", "hiprtc.hiprtcGetProgramLogSize(Pointer(int(p)))[0]", "0"),
    # a handle by reference (hiprtcProgram*): the program, its createRef() (AMD's form), an int
    ("program destroyed by itself", "hiprtc.hiprtcDestroyProgram(program())[0]", "0"),
    ("program destroyed by createRef()", "hiprtc.hiprtcDestroyProgram(program().createRef())[0]", "0"),
    ("program destroyed by int address", "hiprtc.hiprtcDestroyProgram(int(program()))[0]", "0"),
    ("NULL program name", "hiprtc.hiprtcCreateProgram(b'int x;', None, 0, None, None)[0]", "0"),
    ("counted options", "hiprtc.hiprtcCompileProgram(p, 1, [b'--offload-arch=gfx90a'])[0]", "0"),
    ("code buffer of the code size", "hiprtc.hiprtcGetCode(p, bytearray(hiprtc.hiprtcGetCodeSize(p)[1]))[0]", "0"),
    ("descriptor storage of 8 bytes", "hipsparse.hipsparseCreateMatDescr(np.zeros(1, np.uint64))[0]", "0"),
    ("finite Poisson lambda", "hiprand.hiprandCreatePoissonDistribution(2.0)[0] in (0, 102)", "True"),
]


def test_refused_in_python_and_valid_input_accepted():
    script = PRELUDE + f"""
out = {{}}
p = program()
for name, expr, want in {ACCEPTED!r}:
    try:
        got, ref = eval(expr), eval(want)
        out[name] = "ok" if got == ref else f"{{got!r}} != {{ref!r}}"
    except BaseException as e:
        out[name] = f"raised {{type(e).__name__}}: {{e}}"
for name, expr, exc in {REFUSED!r}:
    try:
        r = eval(expr)
        out[name] = f"not refused: returned {{r!r}}"
    except BaseException as e:
        out[name] = "ok" if exc in [c.__name__ for c in type(e).__mro__] \\
            else f"raised {{type(e).__name__}} (want {{exc}}): {{e}}"
print(json.dumps(out))
"""
    r = run_python(script, timeout=300)
    assert r.returncode == 0, f"the child died (exit {r.returncode}): {r.stderr[-2000:]}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(out) == len(REFUSED) + len(ACCEPTED)
    wrong = {k: v for k, v in out.items() if v != "ok"}
    assert not wrong


def test_destroyed_mark_is_on_the_object_passed():
    """The object passed to the destroy call refuses further use, naming the call; a handle class
    returned by a create call (hiprtcProgram) and a plain Pointer holding a descriptor alike."""
    r = run_python(PRELUDE + """
for make, destroy, use in ((program, hiprtc.hiprtcDestroyProgram, hiprtc.hiprtcGetCodeSize),
                           (descr, hipsparse.hipsparseDestroyMatDescr, hipsparse.hipsparseGetMatType)):
    h = make()
    assert destroy(h)[0] == 0
    try:
        use(h)
    except ValueError as e:
        assert destroy.__name__ in str(e), e
    else:
        raise AssertionError(f"{use.__name__} accepted a handle destroyed by {destroy.__name__}")
print("ok")
""")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
