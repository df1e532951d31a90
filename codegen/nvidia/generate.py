"""Driver: ROCm + CUDA headers -> <out>/hipnv_<lib>.c and its coverage report <out>/hipnv_<lib>.json."""
from __future__ import annotations

import json
import os

from .. import spec as bindspec
from ..generate import _write, analyse_all, header_version
from . import cuda_ir, nvspec
from .emit_c import Layer


def generate(hip_include: str, cuda_includes: list[str], libraries: list[str], out_dir: str,
             spec_dir: str = bindspec.SPEC_DIR, nv_spec_dir: str = nvspec.SPEC_DIR) -> list[str]:
    all_specs, analysed = analyse_all(hip_include, libraries, spec_dir)
    written: list[str] = []
    hip_version = header_version(hip_include)
    cuda_version = cuda_ir.cuda_version(cuda_includes)
    os.makedirs(out_dir, exist_ok=True)
    for lib in libraries:
        ns = nvspec.load(lib, nv_spec_dir, hip_version)
        cuda = cuda_ir.build(ns.cuda_headers, cuda_includes, ns.defines)
        layer = Layer(*analysed[lib], cuda, ns)
        text = layer.emit(hip_version, cuda_version, ns.cuda_headers)
        _write(os.path.join(out_dir, f"hipnv_{lib}.c"), text, written)
        report = layer.coverage_report(hip_version, cuda_version)
        _write(os.path.join(out_dir, f"hipnv_{lib}.json"), json.dumps(report, indent=1) + "\n", written)
    return written
