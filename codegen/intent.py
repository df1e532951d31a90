"""Analysis pass: decide each parameter's intent (in/out/inout) and shape from the spec rules."""
from __future__ import annotations

from . import ir
from .spec import Spec
from .types import TypeIndex


def apply(module: ir.Module, spec: Spec, types: TypeIndex) -> list[str]:
    """Set intent/shape/skip on every parameter; return overrides naming functions these headers lack."""
    # An override may name a function these headers lack (specs serve ROCm 5.x to 7.x);
    # a parameter the function lacks is always an error (a typo or a changed signature).
    for fn in module.functions:
        over = spec.overrides.get(fn.name, {})
        bad = set(over) - {p.name for p in fn.params}
        if bad:
            raise ValueError(f"{spec.library}.yaml: {fn.name} has no parameter(s) {sorted(bad)}")
        for p in fn.params:
            if p.name in over:
                p.intent, p.shape = over[p.name]
                continue
            rule = spec.rule_for(types.tclass(p.type), p.name, fn.name)
            if rule is not None:
                p.intent, p.shape = rule.intent, rule.shape
        if fn.name in spec.skip:
            fn.skip = spec.skip[fn.name]
        elif fn.variadic:
            fn.skip = "variadic C function: Cython cannot forward a Python argument list to '...'"
    return sorted(set(spec.overrides) - {f.name for f in module.functions})
