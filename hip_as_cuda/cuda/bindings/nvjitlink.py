"""cuda.bindings.nvjitlink on HIP: NVIDIA's nvJitLink API (cuda-bindings 13.x) over hiprtc's linker.

A handle is one hiprtc link state (hiprtcLinkCreate ... hiprtcLinkDestroy). nvJitLink's string
options are checked as nvJitLink checks them (its Result for a bad one), then made hiprtc's:

* `-arch=sm_XX` (`lto_XX`, `compute_XX` with `-lto -ptx`): recognized by nvrtc_options'
  recognizer. On AMD hiprtc links for the current device (its gfx target, what NVRTC's
  `--gpu-architecture=sm_XX` becomes); on the NVIDIA platform (the HIP-on-CUDA layer, whose
  hiprtcLink* is the driver's cuLink*) it is HIPRTC_JIT_TARGET, CUDA's CUjit_target for sm_XX.
* `-g`, `-lineinfo`, `-verbose`, `-maxrregcount=N`, `-O0` become hiprtc's JIT options on the
  NVIDIA platform; every other option nvJitLink knows is accepted and dropped with a
  RuntimeWarning naming it (on AMD all of them: ROCm's hiprtc ignores, or before ROCm 6
  dereferences, integer option values).
* Inputs: the bytes decide what an `InputType.ANY` input is and must not contradict a named kind;
  each goes to hiprtcLinkAddData as HIP's closest kind (LTOIR: LLVM bitcode on AMD, NVVM on the
  NVIDIA platform, where the layer links LTO-IR on libnvJitLink).

Where HIP's linker has no counterpart, the answer is the nvjitlink Result NVIDIA's binding gives
when the feature is not there: linked PTX (hiprtcLinkComplete returns one binary) is
ERROR_INVALID_INPUT, as without `-ptx`; LTO-IR on the NVIDIA platform where the layer finds no
libnvJitLink is ERROR_LTO_NOT_ENABLED. The error log says which and why.
"""
import ctypes as _ctypes
import itertools as _itertools
import operator as _operator
import re as _re
import warnings as _warnings

from hip import _enum
from hip_as_cuda import nvrtc_options as _nvrtc_options

from ._internal.utils import result_error as _result_error

Result = _enum.define("Result", (
    ("SUCCESS", 0), ("ERROR_UNRECOGNIZED_OPTION", 1), ("ERROR_MISSING_ARCH", 2), ("ERROR_INVALID_INPUT", 3),
    ("ERROR_PTX_COMPILE", 4), ("ERROR_NVVM_COMPILE", 5), ("ERROR_INTERNAL", 6), ("ERROR_THREADPOOL", 7),
    ("ERROR_UNRECOGNIZED_INPUT", 8), ("ERROR_FINALIZE", 9), ("ERROR_NULL_INPUT", 10),
    ("ERROR_INCOMPATIBLE_OPTIONS", 11), ("ERROR_INCORRECT_INPUT_TYPE", 12), ("ERROR_ARCH_MISMATCH", 13),
    ("ERROR_OUTDATED_LIBRARY", 14), ("ERROR_MISSING_FATBIN", 15), ("ERROR_UNRECOGNIZED_ARCH", 16),
    ("ERROR_UNSUPPORTED_ARCH", 17), ("ERROR_LTO_NOT_ENABLED", 18),
), __name__, "nvJitLink's result codes (nvJitLinkResult): what a failed call's nvJitLinkError carries.",
    style="cuda")

InputType = _enum.define("InputType", (
    ("NONE", 0), ("CUBIN", 1), ("PTX", 2), ("LTOIR", 3), ("FATBIN", 4), ("OBJECT", 5), ("LIBRARY", 6),
    ("INDEX", 7), ("ANY", 10),
), __name__, "The kinds of input add_data and add_file take (nvJitLinkInputType); ANY: the bytes decide.",
    style="cuda")


nvJitLinkError = _result_error("nvJitLinkError", Result, __name__,
                               "A call failed: `status` is its Result; the message is 'NAME (value)', as NVIDIA's.")


_R = Result
_I = InputType


def _fail(status, note=None):
    e = nvJitLinkError(int(status))
    if note and hasattr(e, "add_note"):     # shown under the traceback; str(e) stays NVIDIA's
        e.add_note(note)
    raise e


# -- options ------------------------------------------------------------------------------------
# nvJitLink's options (its documentation's list; spellings checked against libnvJitLink 13):
# name -> (takes a value, on the NVIDIA platform the hiprtc JIT option it becomes, or None: dropped).
_OPTIONS = {
    "-arch": (True, "arch"), "-lto": (False, "lto"), "-ptx": (False, "ptx"),
    "-maxrregcount": (True, "HIPRTC_JIT_MAX_REGISTERS"), "-g": (False, "HIPRTC_JIT_GENERATE_DEBUG_INFO"),
    "-lineinfo": (False, "HIPRTC_JIT_GENERATE_LINE_INFO"), "-verbose": (False, "HIPRTC_JIT_LOG_VERBOSE"),
    "-O0": (False, "HIPRTC_JIT_OPTIMIZATION_LEVEL"),
    "-O3": (False, "default"),       # both linkers optimize fully by default
    "-time": (False, None), "-ftz": (True, None), "-prec-div": (True, None), "-prec-sqrt": (True, None),
    "-fma": (True, None), "-kernels-used": (True, None), "-variables-used": (True, None),
    "-optimize-unused-variables": (False, None), "-Xptxas": (True, None), "-Xnvvm": (True, None),
    "-split-compile": (True, None), "-split-compile-extended": (True, None),
    "-jump-table-density": (True, None), "-no-cache": (False, None), "-Ofc": (True, None),
}
_MIN_SM = 75      # CUDA 13's nvJitLink links for Turing (sm_75) and later: older is ERROR_UNSUPPORTED_ARCH


def _option_texts(n: int, options) -> list:
    """The first `n` option strings of what create() was given, as str."""
    if isinstance(options, int) and not isinstance(options, bool):
        if _address(options, "options") == 0:
            _fail(_R.ERROR_NULL_INPUT, "options is NULL")
        # An address of n C strings: the caller's word, as in NVIDIA's binding.
        items = list((_ctypes.c_void_p * n).from_address(options)) if n else []
    elif isinstance(options, (bytes, bytearray, memoryview)):
        raise TypeError("options must be a sequence of option strings, not one bytes object")
    elif hasattr(options, "__len__") and hasattr(options, "__getitem__"):
        if len(options) == 0:
            _fail(_R.ERROR_NULL_INPUT, "options is empty (NULL)")
        if len(options) < n:
            _fail(_R.ERROR_NULL_INPUT, f"num_options is {n}, options has {len(options)}")
        items = [options[i] for i in range(n)]
    else:
        raise TypeError(f"options must be a sequence of str (or bytes, or char* addresses), "
                        f"not {type(options).__name__}")
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, (bytes, bytearray)):
            out.append(bytes(item).split(b"\0", 1)[0].decode(errors="replace"))
        elif item is None or (isinstance(item, int) and not isinstance(item, bool)):
            if not item or not _address(item, "an option"):
                _fail(_R.ERROR_NULL_INPUT, "an option is NULL")
            out.append(_ctypes.string_at(item).decode(errors="replace"))
        else:
            raise TypeError(f"an option must be str, bytes or a char* address, not {type(item).__name__}")
    return out


def _parse(texts: list) -> dict:
    """nvJitLink's checks of its options: {'arch': (kind, number, suffix, text), 'lto', 'ptx',
    'jit': [(hiprtc option name, value, text)], 'dropped': [text]}; nvJitLinkError as nvJitLink's."""
    got = {"arch": None, "lto": False, "ptx": False, "verbose": False, "jit": [], "dropped": []}
    for text in texts:
        t = text.strip()
        name, eq, value = t.partition("=")
        row = _OPTIONS.get(name)
        if row is None or row[0] != bool(eq) or (eq and not value):
            _fail(_R.ERROR_UNRECOGNIZED_OPTION, f"nvJitLink option {text!r} is not one nvJitLink knows")
        what = row[1]
        if what == "arch":
            arch = _nvrtc_options.nvidia_arch(value)
            if arch is None:
                _fail(_R.ERROR_UNRECOGNIZED_OPTION, f"{text!r}: {value!r} is no NVIDIA architecture")
            if _target_value(arch) is None:
                _fail(_R.ERROR_UNSUPPORTED_ARCH, f"{text!r}: CUDA 13 links for sm_{_MIN_SM} and later, "
                                                 "the targets of CUDA's CUjit_target")
            got["arch"] = arch + (t,)
        elif what in ("lto", "ptx"):
            got[what] = True
        elif what == "default":
            pass
        elif what is None:
            got["dropped"].append(t)
        else:
            if what == "HIPRTC_JIT_LOG_VERBOSE":
                got["verbose"] = True
            if what == "HIPRTC_JIT_MAX_REGISTERS":
                try:
                    v = int(value)
                except ValueError:      # nvJitLink takes the text; no number is no limit here
                    got["dropped"].append(t)
                    continue
            else:
                v = 1 if what != "HIPRTC_JIT_OPTIMIZATION_LEVEL" else 0
            got["jit"].append((what, v, t))
    if got["arch"] is None:
        _fail(_R.ERROR_MISSING_ARCH, "nvJitLink needs -arch=sm_XX")
    if (got["ptx"] and not got["lto"]) or (got["arch"][0] == "compute" and not got["ptx"]):
        _fail(_R.ERROR_INCOMPATIBLE_OPTIONS, "-ptx needs -lto, and -arch=compute_XX needs -ptx")
    return got


def _target_value(arch: tuple):
    """CUDA's CUjit_target value for ('sm', 90, 'a') (the alias's driver enum: CUDA's headers),
    None where CUDA 13's nvJitLink has no such target."""
    from cuda.bindings import driver
    member = driver.CUjit_target.__members__.get(f"CU_TARGET_COMPUTE_{arch[1]}{arch[2].upper()}")
    return int(member) if member is not None and arch[1] >= _MIN_SM else None


# -- inputs -------------------------------------------------------------------------------------
_PTX = _re.compile(rb"^\s*\.version\s+\d+\.\d+", _re.M)
_BUNDLES = (b"__CLANG_OFFLOAD_BUNDLE__", b"CCOB")     # clang's offload bundles (compressed: CCOB)


def _sniff(data: bytes):
    """The InputType the bytes are (ANY's choice, and a check of a named kind), or None."""
    head = data[:4]
    if head == b"\x7fELF" and len(data) >= 20:
        # EM_CUDA (190) or EM_AMDGPU (224): device code; anything else is a host object
        return _I.CUBIN if int.from_bytes(data[18:20], "little") in (190, 224) else _I.OBJECT
    if head == b"\x50\xed\x55\xba" or data.startswith(_BUNDLES):
        return _I.FATBIN
    if head in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b", b"\xed\x43\x4e\x7f"):   # LLVM bitcode, NVVM LTO-IR
        return _I.LTOIR
    if data.startswith(b"!<arch>\n"):
        return _I.LIBRARY
    if _PTX.search(data[:1 << 16]) and b".target" in data:
        return _I.PTX
    return None


def _hip_kind(kind, data: bytes, platform: str):
    """hiprtc's input kind for an nvJitLink one on `platform` (hip.hiprtc's member), or None."""
    from hip import hiprtc
    if platform == "amd":
        # ROCm's hiprtc links LLVM bitcode: plain, in a clang offload bundle, or archives of bundles.
        name = {_I.LTOIR: "LLVM_BUNDLED_BITCODE" if data.startswith(_BUNDLES) else "LLVM_BITCODE",
                _I.FATBIN: "LLVM_BUNDLED_BITCODE", _I.LIBRARY: "LLVM_ARCHIVES_OF_BUNDLED_BITCODE",
                _I.PTX: "PTX", _I.CUBIN: "CUBIN", _I.OBJECT: "OBJECT"}.get(kind)
    else:
        name = {_I.PTX: "PTX", _I.CUBIN: "CUBIN", _I.FATBIN: "FATBINARY", _I.OBJECT: "OBJECT",
                _I.LIBRARY: "LIBRARY", _I.LTOIR: "NVVM"}.get(kind)
    return getattr(hiprtc, f"HIPRTC_JIT_INPUT_{name}") if name else None


def _input_type(input_type):
    value = _operator.index(input_type)
    if value not in InputType._value2member_map_ or value == _I.NONE:
        _fail(_R.ERROR_INCORRECT_INPUT_TYPE, f"{value} is no nvJitLink input type")
    return InputType(value)


def _image(data, size: int) -> bytes:
    """The `size` bytes at `data`: a 1-D contiguous buffer of exactly that size, or an address."""
    if isinstance(data, int) and not isinstance(data, bool):
        if _address(data, "data") == 0 or size == 0:
            _fail(_R.ERROR_INVALID_INPUT, "data is NULL or empty")
        return _ctypes.string_at(data, size)      # an address: the caller's word
    try:
        mv = memoryview(data)
    except TypeError:
        mv = None
    if mv is None or mv.ndim != 1 or not mv.c_contiguous or mv.nbytes != size or size == 0:
        raise ValueError("data must be an int (the address of `size` bytes) or a 1-D contiguous buffer"
                         " of `size` bytes")
    return mv.tobytes()


def _address(v, what: str) -> int:
    """An int given for a pointer: the caller's word, but only a number a pointer can hold."""
    if not 0 <= v < 1 << 64:
        raise OverflowError(f"{what} must be an address (0 <= {what} < 2**64), not {v}")
    return v


def _size_t(v, what: str) -> int:
    v = _operator.index(v)
    if not 0 <= v < 1 << 64:
        raise OverflowError(f"{what} must be a size_t (0 <= {what} < 2**64), not {v}")
    return v


def _write(buf, data: bytes, what: str) -> None:
    """Copy `data` into the caller's buffer (writable, contiguous, large enough) or address."""
    if isinstance(buf, int) and not isinstance(buf, bool):
        if _address(buf, what) == 0:
            _fail(_R.ERROR_NULL_INPUT, f"{what} is NULL")
        _ctypes.memmove(buf, data, len(data))     # an address: the caller's word
        return
    try:
        mv = memoryview(buf)
    except TypeError:
        mv = None
    if mv is None or mv.readonly or not mv.c_contiguous:
        raise ValueError(f"{what} must be an int (an address) or a writable contiguous buffer")
    mv = mv.cast("B")
    if mv.nbytes < len(data):     # NVIDIA's would write past its end
        raise ValueError(f"{what} holds {mv.nbytes} bytes; {len(data)} are needed")
    mv[:len(data)] = data


# -- link states --------------------------------------------------------------------------------
def _platform() -> str:
    """'nvidia' where hiprtc is the HIP-on-CUDA layer (its linker is the driver's cuLink*), else
    'amd': how the alias's nvrtc decides it."""
    from hip import _loader, hiprtc
    p = _loader.platform()
    if p:
        return p
    return "nvidia" if hiprtc._library.load() == _loader.nvidia_layer(hiprtc._library.name) else "amd"


def _device_target() -> str:
    """The AMD target hiprtc links for: the current device's, as NVRTC's -arch gives it."""
    try:
        from hip import hip
        err, dev = hip.hipGetDevice()
        err2, prop = hip.hipGetDeviceProperties(dev) if int(err) == 0 else (err, None)
        name = bytes(prop.gcnArchName).split(b"\0")[0].decode() if int(err2) == 0 else None
    except Exception:
        name = None
    return _nvrtc_options.default_arch(name)


def _hiprtc_call(fn, *args):
    """A hiprtc call; a hiprtc without its linker (ROCm before 5.3) is NVIDIA's missing function."""
    from hip.errors import SymbolNotFoundError
    try:
        return fn(*args)
    except SymbolNotFoundError as e:
        try:
            from cuda.bindings._internal.utils import FunctionNotFoundError
        except ImportError:
            raise e from None
        raise FunctionNotFoundError(f"function {e.symbol} is not found in {e.path}") from e


# hiprtc's status of a failed call -> nvJitLink's (PROGRAM_CREATION_FAILURE: an input that did not
# compile or load, a PTX one's a PTX compile error; LINKING, like nvJitLink's failed complete: INTERNAL).
_STATUS = {"HIPRTC_ERROR_INVALID_INPUT": _R.ERROR_INVALID_INPUT, "HIPRTC_ERROR_INVALID_OPTION": _R.ERROR_UNRECOGNIZED_OPTION,
           "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE": _R.ERROR_INVALID_INPUT}
_LOG_BYTES = 1 << 16


class _Link:
    """One nvJitLink handle: its hiprtc link state, options, inputs, logs and linked image."""

    def __init__(self, opts: dict, platform: str):
        from hip import hiprtc
        self.opts, self.platform = opts, platform
        self.kinds, self.errors, self.infos = [], [], []
        self.image, self.done, self.failed = None, False, False
        # The linker writes its logs here until hiprtcLinkDestroy: they live as long as the state.
        self.error_buf, self.info_buf = bytearray(_LOG_BYTES), bytearray(_LOG_BYTES)
        names = ["HIPRTC_JIT_INFO_LOG_BUFFER", "HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES",
                 "HIPRTC_JIT_ERROR_LOG_BUFFER", "HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES"]
        values = [self.info_buf, _LOG_BYTES, self.error_buf, _LOG_BYTES]
        if platform == "nvidia":
            names.append("HIPRTC_JIT_TARGET")
            values.append(_target_value(opts["arch"][:3]))
            for name, value, _ in opts["jit"]:
                names.append(name)
                values.append(value)
        err, self.state = _hiprtc_call(hiprtc.hiprtcLinkCreate, len(names), [getattr(hiprtc, n) for n in names], values)
        self._collect()
        if int(err) != 0:
            self.state = None
            status = _STATUS.get(err.name, _R.ERROR_INTERNAL)
            if status == _R.ERROR_UNRECOGNIZED_OPTION and platform == "nvidia":
                status = _R.ERROR_UNSUPPORTED_ARCH     # the options were checked: the driver lacks the target
            _fail(status,
                  f"hiprtcLinkCreate: {err.name}" + ("".join(f"\n{t}" for t in self.errors)))

    def _collect(self) -> None:
        """Move what the linker wrote into the logs (and empty its buffers for the next call)."""
        for buf, lines in ((self.error_buf, self.errors), (self.info_buf, self.infos)):
            text = bytes(buf).split(b"\0", 1)[0].decode(errors="replace")
            if text:
                lines.append(text if text.endswith("\n") else text + "\n")
                buf[0] = 0

    def error(self, status, text: str):
        self.errors.append(text + "\n")
        _fail(status, text)

    def add(self, kind, data: bytes, name: str) -> None:
        from hip import hiprtc
        if self.done or self.failed:
            self.error(_R.ERROR_INTERNAL, f"ERROR: {name}: the link is complete; nothing more can be added")
        found = _sniff(data)
        if kind == _I.ANY:
            if found is None:
                self.error(_R.ERROR_UNRECOGNIZED_INPUT, f"unrecognized input type: {name}")
            kind = found
        elif kind == _I.PTX and found in (_I.CUBIN, _I.LTOIR):
            # the alias's nvrtcGetPTX gives hiprtc's code (HIP has no PTX; its code object, or
            # bitcode under -rdc, is what stands for it): a program's own PTX links as what it is
            kind = found
        elif found != kind and not (kind == _I.LTOIR and data.startswith(_BUNDLES)):
            self.error(_R.ERROR_INCORRECT_INPUT_TYPE,
                       f"ERROR: bad input: {name} does not match type NVJITLINK_INPUT_{kind.name}")
        if kind == _I.LTOIR and not self.opts["lto"]:
            self.error(_R.ERROR_LTO_NOT_ENABLED, f"ERROR: {name}: LTO-IR input cannot be used without LTO enabled (-lto)")
        hip_kind = _hip_kind(kind, data, self.platform)
        if hip_kind is None:
            self.error(_R.ERROR_INVALID_INPUT, f"ERROR: {name}: HIP's linker takes no NVJITLINK_INPUT_{kind.name}")
        image = bytearray(data)      # hiprtc's image parameter is a void*: a writable copy
        err, = _hiprtc_call(hiprtc.hiprtcLinkAddData, self.state, hip_kind, image, len(image), name.encode(),
                            0, None, None)
        self._collect()
        if int(err) != 0:
            status = _STATUS.get(err.name, _R.ERROR_INTERNAL)
            if kind == _I.PTX and status == _R.ERROR_INVALID_INPUT and self.platform == "nvidia":
                status = _R.ERROR_PTX_COMPILE       # the driver compiles PTX as it is added
            if kind == _I.LTOIR and status == _R.ERROR_INVALID_INPUT and self.platform == "nvidia":
                status = _R.ERROR_LTO_NOT_ENABLED   # the layer found no libnvJitLink (its log says so)
            where = "" if self.platform == "nvidia" else " (ROCm's hiprtc links LLVM bitcode only)"
            self.error(status, f"ERROR: {name}: hiprtcLinkAddData({hip_kind.name}): {err.name}{where}")
        self.kinds.append(kind)

    def complete(self) -> None:
        from hip import hiprtc
        if self.done or self.failed:
            self.error(_R.ERROR_INTERNAL, "ERROR: the link is complete already")
        if self.opts["ptx"] and any(k != _I.LTOIR for k in self.kinds):
            self.failed = True
            self.error(_R.ERROR_INCORRECT_INPUT_TYPE, "ERROR: -ptx requires that all inputs have LTOIR")
        if not self.kinds and self.platform != "nvidia":
            # nvJitLink links nothing into an empty image (the driver's cuLink does too); ROCm's
            # linker is not asked to link no bitcode at all.
            self.image, self.done = b"", True
            return
        if self.opts["verbose"]:
            target = _device_target() if self.platform == "amd" else self.opts["arch"][3][len("-arch="):]
            self.infos.append(f"hiprtc links {len(self.kinds)} inputs for {target} ({self.opts['arch'][3]})\n")
        err, ptr, size = _hiprtc_call(hiprtc.hiprtcLinkComplete, self.state)
        self._collect()
        if int(err) != 0:
            self.failed = True
            self.error(_STATUS.get(err.name, _R.ERROR_INTERNAL), f"ERROR: hiprtcLinkComplete: {err.name}")
        # The image belongs to the link state (freed by hiprtcLinkDestroy): a copy outlives it.
        self.image, self.done = _ctypes.string_at(int(ptr), size), True

    def cubin(self) -> bytes:
        if not self.done or self.opts["ptx"]:
            _fail(_R.ERROR_INTERNAL, "no linked cubin: the link is not complete, or -ptx asked for PTX")
        return self.image

    def ptx(self) -> bytes:
        if self.opts["ptx"] and self.failed:
            _fail(_R.ERROR_INTERNAL, "the link failed")
        text = ("ERROR: no linked PTX: HIP's linker (hiprtcLinkComplete) returns one binary, never PTX"
                if self.done and self.opts["ptx"] else "ERROR: no linked PTX: link with -lto -ptx")
        if text + "\n" not in self.errors:
            self.errors.append(text + "\n")
        _fail(_R.ERROR_INVALID_INPUT, text)

    def destroy(self) -> None:
        from hip import hiprtc
        state, self.state = self.state, None
        if state is not None:
            err, = hiprtc.hiprtcLinkDestroy(state)
            if int(err) != 0:
                _fail(_R.ERROR_INTERNAL, f"hiprtcLinkDestroy: {err.name}")


_links: dict = {}
_handles = _itertools.count(1)


def _link(handle) -> _Link:
    h = _operator.index(handle)
    if h == 0:
        _fail(_R.ERROR_NULL_INPUT, "handle is NULL")
    link = _links.get(h)
    if link is None:
        _fail(_R.ERROR_INVALID_INPUT, f"{h} is no nvJitLink handle (destroyed already?)")
    return link


def _log(lines: list) -> bytes:
    """A log as nvJitLink gives it: the text and its NUL, or nothing at all."""
    text = "".join(lines).encode(errors="replace")
    return text + b"\0" if text else b""


# -- the API ------------------------------------------------------------------------------------
def create(num_options, options):
    """create(uint32_t num_options, options) -> intptr_t

    A new link (nvJitLinkCreate) with `num_options` nvJitLink options: a sequence of str (or bytes,
    or char* addresses), or the address of a char* array. Returns its handle (an int, never 0).
    """
    n = _operator.index(num_options)
    if not 0 <= n < 1 << 32:
        raise OverflowError(f"num_options must be a uint32_t, not {n}")
    opts = _parse(_option_texts(n, options))
    platform = _platform()
    if platform != "nvidia":     # ROCm's linker ignores them (before ROCm 6 it reads their values as pointers)
        opts["dropped"] += [t for _, _, t in opts["jit"]]
        opts["jit"] = []
    if opts["dropped"]:
        where = "the HIP-on-CUDA layer's" if platform == "nvidia" else "ROCm's"
        _warnings.warn(f"nvJitLink options {', '.join(map(repr, opts['dropped']))} dropped: {where} hiprtc"
                       " linker has no counterpart", RuntimeWarning, stacklevel=2)
    link = _Link(opts, platform)
    handle = next(_handles)
    _links[handle] = link
    return handle


def destroy(handle):
    """destroy(intptr_t handle)

    Frees the link (nvJitLinkDestroy; hiprtcLinkDestroy): the handle is no longer valid.
    """
    _link(handle)
    _links.pop(_operator.index(handle)).destroy()


def add_data(handle, input_type, data, size, name):
    """add_data(intptr_t handle, int input_type, data, size_t size, name)

    Adds `size` bytes of `data` (a buffer of that size, or an address) of kind `input_type`
    (InputType; ANY: the bytes decide) to the link, named `name` (str) in the logs.
    """
    link = _link(handle)
    kind = _input_type(input_type)
    image = _image(data, _size_t(size, "size"))
    if not isinstance(name, str):
        raise TypeError("name must be a Python str")
    link.add(kind, image, name)


def add_file(handle, input_type, file_name):
    """add_file(intptr_t handle, int input_type, file_name)

    Adds the file `file_name` (str) of kind `input_type` (InputType; ANY: its bytes decide). The
    file is read here and added as add_data adds bytes, so that its bytes name its kind alike.
    """
    link = _link(handle)
    kind = _input_type(input_type)
    if not isinstance(file_name, str):
        raise TypeError("file_name must be a Python str")
    try:
        with open(file_name, "rb") as f:
            data = f.read()
    except OSError as e:
        link.error(_R.ERROR_INVALID_INPUT, f"no such file: {file_name} ({e.strerror or e})")
    if not data:
        link.error(_R.ERROR_INVALID_INPUT, f"bad input: {file_name} is empty")
    link.add(kind, data, file_name)


def complete(handle):
    """complete(intptr_t handle)

    Links what was added (nvJitLinkComplete; hiprtcLinkComplete). A link without inputs gives an
    empty image.
    """
    _link(handle).complete()


def get_linked_cubin_size(handle):
    """get_linked_cubin_size(intptr_t handle) -> size_t

    The size of the linked image (on AMD a code object, on NVIDIA a CUBIN).
    """
    return len(_link(handle).cubin())


def get_linked_cubin(handle, cubin):
    """get_linked_cubin(intptr_t handle, cubin)

    Copies the linked image into `cubin`: a writable buffer of at least get_linked_cubin_size
    bytes, or an address.
    """
    _write(cubin, _link(handle).cubin(), "cubin")


def get_linked_ptx_size(handle):
    """get_linked_ptx_size(intptr_t handle) -> size_t

    Linked PTX: HIP's linker makes none, so this is ERROR_INVALID_INPUT (NVIDIA's answer when no
    PTX was made).
    """
    return len(_link(handle).ptx())


def get_linked_ptx(handle, ptx):
    """get_linked_ptx(intptr_t handle, ptx)

    Linked PTX: HIP's linker makes none (ERROR_INVALID_INPUT, as get_linked_ptx_size).
    """
    _write(ptx, _link(handle).ptx(), "ptx")


def get_error_log_size(handle):
    """get_error_log_size(intptr_t handle) -> size_t

    The size of the error log with its NUL (0 when empty).
    """
    return len(_log(_link(handle).errors))


def get_error_log(handle, log):
    """get_error_log(intptr_t handle, log)

    Copies the error log (the linker's and this module's messages) into `log`: a writable buffer
    of at least get_error_log_size bytes, or an address.
    """
    _write(log, _log(_link(handle).errors), "log")


def get_info_log_size(handle):
    """get_info_log_size(intptr_t handle) -> size_t

    The size of the info log with its NUL (0 when empty).
    """
    return len(_log(_link(handle).infos))


def get_info_log(handle, log):
    """get_info_log(intptr_t handle, log)

    Copies the info log into `log`: a writable buffer of at least get_info_log_size bytes, or an
    address.
    """
    _write(log, _log(_link(handle).infos), "log")


_VERSION = []


def version():
    """version() -> tuple

    (major, minor): the CUDA version the alias follows (the CUDA headers it was generated from,
    what its coverage reports name), standing in for nvJitLink's own version.
    """
    if not _VERSION:
        import json
        import os

        import hip_as_cuda
        text = None
        try:
            with open(os.path.join(hip_as_cuda.CUDA_DIR, "bindings", "_coverage", "nvrtc.json")) as f:
                text = json.load(f).get("cuda_version")
        except (OSError, ValueError):
            pass
        if not text:     # not generated here: the cuda-bindings release the package follows
            from cuda import bindings
            text = bindings.__version__
        _VERSION.extend(int(x) for x in str(text).split(".")[:2])
    return tuple(_VERSION)
