"""Argument candidates, from the parameters' roles: a baseline call per function, then one bad
argument at a time (or a count and its list together).

A candidate is a Python expression the worker evaluates (tests/fuzz/worker.py defines the
helpers: B(n)/M(n)/N(n, dtype) guarded buffers, RO(n) read-only memory, H(type) a live handle,
D(type) a destroyed one, E/S an enum member / struct instance by 'module:Class', W(Class) a hip
handle object of that class at a page of zeros).
"""
from __future__ import annotations

import random

# (label, fault class, expression)
BAD = [
    ("None", "none", "None"),
    ("str", "type", "'x'"),
    ("bytes", "type", "b'x'"),
    ("bytearray", "type", "bytearray(1)"),
    ("float", "type", "1.5"),
    ("object", "type", "object()"),
    ("list", "type", "[1]"),
    ("bool", "type", "True"),
    ("ndarray uint8[1]", "buffer", "N(1, 'uint8')"),
    ("ndarray int32[1]", "buffer", "N(1, 'int32')"),
    ("ndarray float64[1]", "buffer", "N(1, 'float64')"),
    ("memoryview[1]", "buffer", "M(1)"),
    ("read-only bytes", "buffer", "RO(64)"),
    ("-1", "number", "-1"),
    ("2**31-1", "number", "2**31-1"),
    ("2**63", "number", "2**63"),
    ("2**64", "number", "2**64"),
    ("nan", "nan", "float('nan')"),
    ("inf", "nan", "float('inf')"),
    ("-inf", "nan", "float('-inf')"),
    ("int address 8", "int_address", "8"),
    ("int address 2**47", "int_address", "2**47"),
]
# A struct or handle object of another C type than the parameter's (its `ctype`), by the C type it
# must not be: always refused (C would read the object's memory as its own type).
WRONG_TYPE = [
    ("struct of another type", lambda ctype: "S('hip:hipExtent')" if ctype == "dim3" else "S('hip:dim3')"),
    ("handle of another type", lambda ctype: "W('ihipEvent_t')" if ctype == "ihipStream_t" else "W('ihipStream_t')"),
]
POINTERISH = ("handle", "ref", "pointer", "array", "string", "string_array", "struct_pointer", "number",
              "callback", "callback_data", "packed", "kernel_params", "funcptr")


def baseline(p: dict) -> str:
    role = p["role"]
    if p.get("htype"):
        return f"H({p['htype']!r})"
    if role in ("int", "inout_number", "ref"):
        return "1"
    if role == "float" or role == "number" and p.get("kind") == "float":
        return "1.0"
    if role in ("enum", "inout_enum"):
        return f"E({p['cls']!r}, {p.get('refused', [])!r})"
    if role == "string":
        return "b'x'"
    if role == "string_array":
        return "[b'x']"
    if role in ("struct", "struct_pointer"):
        return f"S({p['cls']!r})"
    if role in ("pointer", "array", "number"):
        return "B(4096)"
    return "None"   # callbacks, their data, kernel arguments, function pointers: NULL


def refused(p: dict, label: str, cls: str) -> bool:
    """Whether the Python layer must refuse this argument (an exception before the C call)."""
    role = p["role"]
    if cls in ("destroyed", "count"):
        return True
    handle = bool(p.get("htype"))
    if handle:
        if cls == "none":
            return not p.get("nullable")
        return cls in ("type", "buffer") or label in ("-1", "2**64", "nan", "inf", "-inf")
    if role in ("int", "enum", "inout_enum", "inout_number", "ref"):
        return cls in ("none", "nan") or cls in ("type", "buffer") and label != "bool"
    if role == "float":
        return cls == "none" or cls == "type" and label not in ("float", "bool") or cls == "buffer" \
            or cls == "nan" and p.get("finite", False)
    if role == "string":
        return cls == "none" and not p.get("nullable") or label in ("float", "object", "list", "bool")
    if role == "string_array":
        return label in ("str", "bytes", "float", "object", "bool")
    if role in ("pointer", "array"):
        return label in ("str", "float", "object", "bool", "nan", "inf", "-inf", "-1")
    if role == "number":
        return label in ("None", "str", "object", "list", "bool")
    if role == "struct_pointer":   # 1 byte where C reads a struct (an alias call crashed an H100 so)
        return label in ("bytes", "bytearray", "ndarray uint8[1]", "memoryview[1]")
    return False


def calls(fn: str, info: dict, destroyers: dict) -> list[dict]:
    """Every candidate call of one function: {'args': [expr], 'label', 'class', 'refuse'}."""
    params = info["params"]
    base = [baseline(p) for p in params]
    out = [{"args": base, "label": "baseline", "class": "baseline", "param": None, "refuse": False}]
    index = {p["name"]: i for i, p in enumerate(params)}
    for i, p in enumerate(params):
        for label, cls, expr in BAD:
            if cls == "int_address" and p["role"] not in POINTERISH:
                continue
            if cls == "number" and p["role"] in POINTERISH and label in ("2**31-1", "2**63"):
                cls = "int_address"   # an int in range is an address, by contract
            args = list(base)
            args[i] = expr
            out.append({"args": args, "label": label, "class": cls, "param": p["name"],
                        "refuse": refused(p, label, cls)})
        if p.get("ctype"):
            for label, expr in WRONG_TYPE:
                args = list(base)
                args[i] = expr(p["ctype"])
                out.append({"args": args, "label": label, "class": "type", "param": p["name"], "refuse": True})
        if p.get("htype") and p["htype"] in destroyers:
            args = list(base)
            args[i] = f"D({p['htype']!r})"
            out.append({"args": args, "label": "destroyed handle", "class": "destroyed", "param": p["name"],
                        "refuse": True})
        j = index.get(p.get("length", ""))
        if j is not None:
            one = "[b'x']" if p["role"] == "string_array" else "[0]"
            for label, lst, n in (("count -1", one, "-1"), ("count 2**31-1, 1 item", one, "2**31-1"),
                                  ("count 2, 1 item", one, "2"), ("count 1, bytes", "b'x'", "1"),
                                  ("count 1, str", "'x'", "1"), ("count 1, None", "None", "1"),
                                  ("count 2, uint8[1]", "N(1, 'uint8')", "2")):
                args = list(base)
                args[i], args[j] = lst, n
                # None with a count is NULL: refused unless the spec says C allows it (NCCL's devlist);
                # one byte of bytes is what a buffer C only reads takes
                refuse = not (lst == "None" and p.get("nullable")) and not (lst == "b'x'" and p.get("read_only"))
                out.append({"args": args, "label": label, "class": "count", "param": p["name"], "refuse": refuse})
    return out


def plan(table: dict, modules, subset: int | None = None, seed: int = 0) -> list[dict]:
    """All calls of the modules' functions (each with 'module', 'fn'); `subset`: a seeded sample of
    that many bad calls per function (int addresses left out: ints are addresses by contract),
    plus the baseline call."""
    rng = random.Random(seed)
    out = []
    for mod in modules:
        for fn, info in sorted(table["functions"].get(mod, {}).items()):
            cs = calls(fn, info, table["destroyers"])
            if subset is not None:
                bad = [c for c in cs[1:] if c["class"] != "int_address"]
                cs = cs[:1] + rng.sample(bad, min(subset, len(bad)))
            for c in cs:
                c.update(module=mod, fn=fn)
                out.append(c)
    return out
