"""Sphinx configuration: `python3 -m sphinx -W -b html docs docs/_build/html`.

Only the small hand-written, pure-Python modules are autodoc'ed (hip.errors,
hip._enum, hip._callbacks). The generated modules (hip.hip, hip.hiprtc, ...)
are compiled and have thousands of entries: the API pages explain how to find
things in them instead, so the docs build without a compiled package and
without ROCm.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

project = "hip-bindings"
author = "hip-bindings contributors"
copyright = "2026, hip-bindings contributors"
try:
    import hip
    release = hip.__version__
except Exception:   # the docs never need the package to build
    release = "0.1.0"
version = release

extensions = ["sphinx.ext.autodoc"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
default_role = "code"
highlight_language = "default"   # python3, or plain text when a block is not Python

templates_path = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {
    "description": "Python bindings for AMD's HIP, generated from the ROCm headers",
    "fixed_sidebar": True,
}
html_static_path = []
