"""The layer's file names, from hip/_layer_names.py, which the package's loader uses too.

Read by path, not imported: the generator needs neither a built package nor the
source tree's `hip` first on sys.path (an installed `hip` would be the wrong one).
"""
from __future__ import annotations

import importlib.util
import os

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "hip", "_layer_names.py")


def _load():
    spec = importlib.util.spec_from_file_location("_hip_layer_names", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_names = _load()
NVIDIA_DIRNAME: str = _names.NVIDIA_DIRNAME
nvidia_soname = _names.nvidia_soname       # 'hip' -> 'libhip-nvidia-hip.so'
nvidia_library = _names.nvidia_library     # 'libhip-nvidia-hip.so' -> 'hip'
