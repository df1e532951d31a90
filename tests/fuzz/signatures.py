"""What the fuzz knows about each public function: its plan (codegen/plan.py), reduced to data.

Per Python parameter: its role and what the candidates need to know of its type (the handle
type, whether a NULL handle is valid, the enum or struct class, the length parameter of a
list). Per handle type: a function that creates one (returned, or written into storage the
caller passes, AMD's convention) and one that destroys it. Nothing here is typed in per
function: it is all read from the plans the generator made the bindings from.
"""
from __future__ import annotations

import os
import re

from codegen import generate, ir, plan, spec as specmod
from codegen.emit.common import ctype_key

LOADED = ("hip", "hiprtc", "hiprand", "hipsparse")   # ROCm 5.2/5.3 runtime libraries that load here
MISSING = tuple(lib for lib in specmod.all_libraries() if lib not in LOADED)   # every other spec's


def _cls(types, name: str, all_specs) -> str:
    """'module:Class' of a type's Python class."""
    owner = types.owner.get(name)
    return f"{all_specs[owner].python_module}:{name}"


def _handle_type(types, t: ir.CType) -> str | None:
    return t.name if types.is_handle(t) else None


def _param(pp: plan.ParamPlan, fn: ir.Function, types, all_specs, spec=None) -> dict:
    p, t = pp.param, pp.param.type
    r = types.resolve(t)
    d = {"name": p.name, "role": pp.role, "shape": p.shape, "nullable": getattr(pp, "nullable", False),
         "finite": getattr(pp, "finite", False)}
    if "[" in p.shape:
        d["length"] = p.shape[p.shape.index("[") + 1:-1]
    if p.shape.startswith("buffer") and r.kind == "pointer" and (
            r.pointee.const or f"{fn.name}.{p.name}" in (spec.read_only_params if spec else ())):
        d["read_only"] = True   # bytes the call only reads (MIOpen's solution blob): bytes are valid
    if pp.role == "handle":
        d["htype"] = t.name
    elif pp.role == "ref":
        target = r.pointee
        if types.is_handle(target):
            d["htype"] = target.name
    elif pp.role in ("enum", "inout_enum"):
        e = r if r.kind == "enum" else types.resolve(r.pointee)
        d["cls"] = _cls(types, e.name, all_specs)
        d["refused"] = list(getattr(pp, "refused", ()))
    elif pp.role in ("struct", "struct_pointer"):
        rec = r if r.kind == "record" else types.resolve(r.pointee)
        d["cls"] = _cls(types, rec.name, all_specs)
    elif pp.role in ("pointer", "array"):
        target = r.pointee
        if target is not None and types.is_handle(target):
            d["stores"] = target.name   # storage for a handle (hipsparseCreateMatDescr(descr))
    elif pp.role == "number":
        d["kind"] = "float" if types.is_float(r.pointee) else "int" if types.is_numeric(r.pointee) else "other"
    # The C type a struct or handle object passed here must be (its class's _ctype_): one of
    # another type is refused (cases.WRONG_TYPE)
    if pp.role in ("handle", "struct"):
        d["ctype"] = ctype_key(t, types)
    elif pp.role in ("ref", "struct_pointer", "pointer", "array") and r.kind == "pointer":
        d["ctype"] = ctype_key(r.pointee, types)
    return d


def load(include: str, libraries=LOADED + MISSING) -> dict:
    """{'functions': {module: {fn: {'params': [...], 'returns': [...]}}}, 'nullable': [...],
    'creators': {htype: ...}, 'destroyers': {htype: ...}} for the libraries."""
    all_specs = generate.load_specs(rocm=generate.header_version(include))
    out = {"functions": {}, "creators": {}, "destroyers": {}, "nullable": []}
    for analysed in generate.analyse_libraries(include, list(libraries), all_specs):
        spec, module, types = analysed.spec, analysed.module, analysed.types
        plans = plan.build(module, spec, types)
        out["nullable"] += spec.nullable_handles
        if spec.library not in libraries:
            continue
        funcs = out["functions"].setdefault(spec.python_module, {})
        for fp in plans:
            params = [_param(pp, fp.fn, types, all_specs, spec) for pp in fp.params if pp.py is not None]
            returns = [pp.param.type for pp in fp.params if pp.out is not None]
            first = 1 if fp.result.kind == "status" or fp.success is not None else 0
            funcs[fp.fn.name] = {"params": params}
            name = fp.fn.name
            if re.search(r"Create", name) and not re.search(r"Destroy", name):
                for k, pp in enumerate(pp for pp in fp.params if pp.out is not None):
                    if pp.role == "out_handle":
                        target = types.resolve(pp.param.type).pointee
                        _offer(out["creators"], target.name, {"module": spec.python_module, "fn": name,
                                                               "out": first + k, "params": params})
                if params and params[0].get("stores"):
                    _offer(out["creators"], params[0]["stores"], {"module": spec.python_module, "fn": name,
                                                                   "out": None, "params": params})
            if re.search(r"Destroy", name) and params and params[0].get("htype") and len(params) == 1:
                out["destroyers"].setdefault(params[0]["htype"], {"module": spec.python_module, "fn": name})
    return out


def _offer(creators: dict, htype: str, c: dict) -> None:
    """Keep the creator with the fewest parameters (hipsparseCreateMatDescr over hipsparseCreateCsr)."""
    old = creators.get(htype)
    if old is None or len(c["params"]) < len(old["params"]):
        creators[htype] = c


def include_dir() -> str | None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.environ.get("HIP_PYTHON_INCLUDE") or os.path.join(root, "build", "rocm-sid", "usr", "include")
    return path if os.path.isfile(os.path.join(path, "hip", "hip_runtime_api.h")) else None
