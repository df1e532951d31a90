"""Emit the coverage report: every header function, bound or skipped with the reason."""
from __future__ import annotations

import json

from .. import ir
from ..spec import Spec
from ..types import TypeIndex


def emit(module: ir.Module, spec: Spec, types: TypeIndex) -> str:
    funcs = {}
    for f in sorted(module.functions, key=lambda f: f.name):
        funcs[f.name] = {"status": "skipped", "reason": f.skip} if f.skip else {"status": "bound"}
        if f.deprecated:
            funcs[f.name]["deprecated"] = True
    bound = sum(1 for v in funcs.values() if v["status"] == "bound")
    return json.dumps({"library": spec.library, "rocm_version": module.version,
                       "headers": module.headers, "functions_total": len(funcs), "functions_bound": bound,
                       "unused_overrides": module.unused_overrides,
                       "functions": funcs}, indent=1, sort_keys=True) + "\n"
