"""Driver: ROCm + CUDA headers -> <out>/hipnv_<lib>.c and its coverage report <out>/hipnv_<lib>.json."""
from __future__ import annotations

import json
import os

from .. import spec as bindspec
from ..generate import analyse_libraries, header_version, load_specs
from ..output import write_if_changed
from ..bridge import cuda_ir, spec as nvspec
from .emit_c import Layer


def generate(hip_include: str, cuda_includes: list[str], libraries: list[str], out_dir: str,
             spec_dir: str = bindspec.SPEC_DIR, nv_spec_dir: str = nvspec.SPEC_DIR) -> list[str]:
    hip_version = header_version(hip_include)
    all_specs = load_specs(spec_dir, hip_version)
    analysed = {lib.spec.library: lib for lib in analyse_libraries(hip_include, libraries, all_specs)}
    cuda_version = cuda_ir.cuda_version(cuda_includes)
    written: list[str] = []
    os.makedirs(out_dir, exist_ok=True)
    for lib in libraries:
        ns = nvspec.load(lib, nv_spec_dir, hip_version)
        cuda = cuda_ir.build(ns.cuda_headers, cuda_includes, ns.defines)
        layer = Layer(analysed[lib].module, analysed[lib].types, cuda, ns)
        text = layer.emit(hip_version, cuda_version, ns.cuda_headers)
        write_if_changed(os.path.join(out_dir, f"hipnv_{lib}.c"), text, written)
        report = layer.coverage_report(hip_version, cuda_version)
        write_if_changed(os.path.join(out_dir, f"hipnv_{lib}.json"), json.dumps(report, indent=1) + "\n", written)
    return written
