"""nvJitLink's function availability on hiprtc's linker (hiprtcLink*), asked as for the generated
modules (_availability): the hiprtc function each needs must resolve through `hip`'s loader, and
the alias must have cuda.bindings.nvjitlink at all (while it has none, every answer is 0)."""
from ._availability import Inspector, pointers

# Each nvJitLink function (nvJitLink.h, CUDA 13) and the hiprtc function it runs on: the linker's
# own call where there is one; the logs answer from the link state hiprtcLinkCreate made, the
# linked image from hiprtcLinkComplete; the version needs no hiprtc call but stands for the linker
# (NVIDIA's tests ask it whether nvJitLink is usable at all). None: nothing on HIP does it (hiprtc
# links no PTX and gives no LTO IR; cuda.bindings.nvjitlink answers an error status). Kept in step
# with cuda.bindings.nvjitlink.
_HIPRTC = {
    "nvJitLinkCreate": "hiprtcLinkCreate",
    "nvJitLinkDestroy": "hiprtcLinkDestroy",
    "nvJitLinkAddData": "hiprtcLinkAddData",
    "nvJitLinkAddFile": "hiprtcLinkAddFile",
    "nvJitLinkComplete": "hiprtcLinkComplete",
    "nvJitLinkGetLinkedCubinSize": "hiprtcLinkComplete",
    "nvJitLinkGetLinkedCubin": "hiprtcLinkComplete",
    "nvJitLinkGetLinkedPtxSize": None,
    "nvJitLinkGetLinkedPtx": None,
    "nvJitLinkGetErrorLogSize": "hiprtcLinkCreate",
    "nvJitLinkGetErrorLog": "hiprtcLinkCreate",
    "nvJitLinkGetInfoLogSize": "hiprtcLinkCreate",
    "nvJitLinkGetInfoLog": "hiprtcLinkCreate",
    "nvJitLinkVersion": "hiprtcLinkCreate",
    "nvJitLinkGetLinkedLTOIRSize": None,
    "nvJitLinkGetLinkedLTOIR": None,
}


def _make() -> dict:
    import importlib.util
    functions = {name: {"status": "bridged", "hip": hip} if hip else {"status": "not_supported"}
                 for name, hip in _HIPRTC.items()}
    if importlib.util.find_spec("cuda.bindings.nvjitlink") is None:
        return {f"__{name}": 0 for name in functions}
    from hip import chiprtc   # the HIP C layer cynvrtc's bridges resolve hiprtc through
    return pointers(functions, chiprtc.library)


_inspector = Inspector(_make)


def _inspect_function_pointers() -> dict:
    """{'__nvJitLinkCreate': 1, ...}: 1 for each nvJitLink function the alias runs on hiprtc here, else 0."""
    return _inspector.all()


def _inspect_function_pointer(name) -> int:
    """1 if the alias runs nvJitLink function `name` ('__nvJitLinkVersion') on hiprtc here, else 0."""
    return _inspector.one(name)
