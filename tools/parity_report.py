#!/usr/bin/env python3
"""Where our bindings differ from AMD's HIP Python release for the same ROCm version.

    python tools/parity_report.py                        # AMD's release for our headers' major.minor
    python tools/parity_report.py --amd WHEEL_OR_DIR --ours /path/to/repo/hip
    python tools/parity_report.py --rules                # only the parameter-classification tables
    python tools/parity_report.py --json diff.json       # everything, machine-readable

Reads AMD's sources statically (tests/oracles/amd_hip_python.py), ours from the
generated .pyx plus an import of the built package (in a child interpreter),
and the C declarations from the headers through codegen's IR (the same
libclang reading the generator uses; the codegen next to the --ours package).

Sections: functions only on one side; for functions both bind, the
differences (parameters, defaults, returned tuple) classified by cause:
  (a) AMD makes the caller pass a buffer that ours allocates and returns
  (b) the reverse: AMD allocates and returns what ours makes the caller pass
  (c) AMD returns (drops from the signature) a `const T*` input array
  (d) the C result is a value, not a status: AMD returns (value,), ours (status, value)
  other: anything else (order, names, ...);
then the parameter-classification tables (AMD's treatment of each C pointer
shape per library, against ours: the rules to reproduce), classes and their
members, enums, constants, other public names, and hip._util.types.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "oracles"))

import amd_hip_python as amd  # noqa: E402

MODULES = amd.MODULES
# Members every class has in some form, or that only manage the C object's lifetime.
IGNORED_MEMBERS = {"__cinit__", "__dealloc__", "__init__", "__releasebuffer__", "__nonzero__"}


# -- the C side ------------------------------------------------------------------------------------
class CSide:
    """C declarations (codegen IR) of every library, with our intents."""

    def __init__(self, repo: str, include: str):
        if repo not in sys.path:
            sys.path.insert(0, repo)
        from codegen import generate, spec as specmod
        all_specs = {n: specmod.load(n) for n in specmod.all_libraries()}
        self.modules, self.types, self.functions, self.aliases = {}, {}, {}, {}
        self.python_module = {}
        for lib in specmod.all_libraries():
            spec = all_specs[lib]
            deps = [self.modules[d] for d in spec.depends]
            module = generate.build_ir(spec, include, all_specs, deps)
            self.types[lib] = generate.analyse(module, spec, deps)
            self.modules[lib] = module
            self.python_module[lib] = spec.python_module
            pm = spec.python_module
            self.functions[pm] = {f.name: f for f in module.functions}
            self.aliases[pm] = dict(module.aliases)
        self.lib_of = {v: k for k, v in self.python_module.items()}
        self.version = next(iter(self.modules.values())).version

    def function(self, module: str, name: str):
        fns = self.functions.get(module, {})
        return fns.get(name) or fns.get(self.aliases.get(module, {}).get(name, ""))

    def shape(self, module: str, t) -> str:
        """The C type with typedefs resolved, as AMD's generator sees it:
        ptr(...) layers over void | char | basic | enum | record | funcptr."""
        types = self.types[self.lib_of[module]]

        def go(t):
            r = types.resolve(t)
            const = "const " if (t.const or r.const) else ""
            if r.kind == "pointer":
                return f"{const}ptr({go(r.pointee)})"
            if r.kind == "array":
                return f"{const}array({go(r.pointee)})"
            if r.kind == "builtin":
                return const + ("char" if r.name == "char" else "basic")
            if r.kind == "typedef":            # size_t, int64_t, ... (system typedefs)
                return const + "basic"
            return const + r.kind              # void, enum, record, funcptr
        return go(t)

    def tclass(self, module: str, t) -> str:
        return self.types[self.lib_of[module]].tclass(t)


# -- roles -----------------------------------------------------------------------------------------
def amd_roles(fn: amd.Function) -> dict:
    """C parameter -> 'caller' (a Python argument), 'returned' (allocated by the binding), 'both'."""
    taken, ret = set(fn.param_names), set(fn.returned)
    out = {}
    for n in taken | ret:
        if n.startswith("_") and n.endswith("__retval"):
            continue
        out[n] = "both" if (n in taken and n in ret) else ("caller" if n in taken else "returned")
    return out


def our_roles(fn: amd.Function, cfn) -> dict:
    taken = set(fn.param_names)
    out = {}
    for p in cfn.params:
        ret = p.intent in ("out", "inout")
        t = p.name in taken
        out[p.name] = "both" if (t and ret) else ("caller" if t else ("returned" if ret else "none"))
    return out


def classify(mod: str, name: str, a: amd.Function, o: amd.Function, c: CSide) -> dict:
    """What differs between AMD's and our binding of one function, and why."""
    cfn = c.function(mod, name)
    d = {"function": name, "module": mod, "kinds": [], "params": [], "amd_sig": a.param_names,
         "our_sig": o.param_names, "amd_returns": a.returns, "our_returns": o.returns,
         "amd_first": a.first, "our_first": o.first}
    if a.params != o.params:
        d["diff_params"] = True
    if a.returns != o.returns:
        d["diff_returns"] = True
    if [x for _, x in a.params] != [x for _, x in o.params]:
        d["diff_defaults"] = True
    if not (d.get("diff_params") or d.get("diff_returns") or d.get("diff_defaults") or a.first != o.first):
        return d
    if a.first == "value" and o.first == "synth_status":
        d["kinds"].append("d")
    if cfn is None:
        d["kinds"].append("other")
        d["why"] = "no C declaration found"
        return d
    ar, orr = amd_roles(a), our_roles(o, cfn)
    kinds = set()
    for p in cfn.params:
        ra = ar.get(p.name, "none")
        ro = orr.get(p.name, "none")
        if ra == ro:
            continue
        if ra == "both" and ro == "caller":
            continue     # see below: AMD INOUT
        info = {"param": p.name, "amd": ra, "ours": ro, "shape": c.shape(mod, p.type),
                "tclass": c.tclass(mod, p.type), "our_intent": f"{p.intent} {p.shape}",
                "amd_adapter": a.adapters.get(p.name) or a.outputs.get(p.name, ""),
                "doc": a.doc_intent.get(p.name, "")}
        const_in = bool(re.match(r"ptr\(const ", info["shape"]))
        if ra == "caller" and ro in ("returned", "both"):
            info["kind"] = "a"
        elif ra == "returned" and ro in ("caller", "both"):
            info["kind"] = "c" if const_in else "b"
        else:
            info["kind"] = "other"
        kinds.add(info["kind"])
        d["params"].append(info)
    cnames = [p.name for p in cfn.params]
    if not kinds and d.get("diff_params"):
        # same roles, different signature: order or names
        if sorted(a.param_names) == sorted(o.param_names):
            d["why"] = "parameter order"
        else:
            d["why"] = f"names: AMD {a.param_names} ours {o.param_names} (C {cnames})"
        kinds.add("other")
    if not kinds and d.get("diff_returns") and "d" not in d["kinds"]:
        d["why"] = f"returned tuple: AMD {a.returns} ours {o.returns} with the same parameter roles"
        kinds.add("other")
    if not kinds and d.get("diff_defaults"):
        d["why"] = f"defaults: AMD {a.params} ours {o.params}"
        kinds.add("other")
    if not kinds and a.first != o.first and "d" not in d["kinds"]:
        d["why"] = f"first element: AMD {a.first} ours {o.first}"
        kinds.add("other")
    d["kinds"] = sorted(set(d["kinds"]) | kinds)
    return d



# -- AMD's parameter classification, as rules ------------------------------------------------------
# Derived from the data (every pointer parameter of every function both bind; see --rules and
# docs/from_hip_python.rst, "Which pointers a call returns: AMD's rule") and consistent with the `ptr_parm_intent` controls of AMD's generator
# (github.com/ROCm/hip-python). 'returned': the binding allocates the C object and returns it;
# otherwise the caller passes it (whatever the header's [out] says). Shapes as CSide.shape().
_RECORD2 = re.compile(r"ptr\((const )?ptr\((const )?record\)\)")     # hipStream_t*, const hipGraphNode_t*, ...
_VOID2 = re.compile(r"ptr\(ptr\(void\)\)")                          # void**, hipblasHandle_t*, hipDeviceptr_t*
_BASIC1 = "ptr(basic)"                                                  # non-const int*, size_t*, float*, ...
AMD_RETURNED = {
    "hip": {("hipDeviceGetName", "name"), ("hipDeviceGetPCIBusId", "pciBusId"), ("hipDeviceGetUuid", "uuid"),
            ("hipIpcGetMemHandle", "handle"), ("hipMemGetAddressRange", "pbase"),
            ("hipDrvGetErrorName", "errorString"), ("hipDrvGetErrorString", "errorString")},
}
AMD_CALLER = {
    "hip": {("hipExtStreamGetCUMask", "cuMask")},
    "rccl": {("ncclCommInitAll", "comm"), ("pncclCommInitAll", "comm")},
    "hiprand": {("*", "output_data")},
}


def amd_rule(module: str, fn: str, pname: str, shape: str) -> str:
    """How AMD's release treats a pointer parameter: 'returned' or 'caller'."""
    if (fn, pname) in AMD_CALLER.get(module, ()) or ("*", pname) in AMD_CALLER.get(module, ()):
        return "caller"
    if (fn, pname) in AMD_RETURNED.get(module, ()):
        return "returned"
    if module == "hip":
        if _RECORD2.fullmatch(shape) or shape in ("ptr(enum)", _BASIC1):
            return "returned"
        if _VOID2.fullmatch(shape) and pname in ("devPtr", "ptr", "dev_ptr", "data", "dptr"):
            return "returned"
        return "caller"
    if module in ("hipblas", "hipsolver"):
        return "returned" if (_VOID2.fullmatch(shape) and pname == "handle") else "caller"
    if module == "hipsparse":
        return "returned" if (_RECORD2.fullmatch(shape) or fn == "hipsparseCreate") else "caller"
    if module == "hipfft":
        return "returned" if (_RECORD2.fullmatch(shape) or pname == "workSize") else "caller"
    if module == "hiprand":
        return "returned" if (_RECORD2.fullmatch(shape) or shape in (_BASIC1, "ptr(ptr(array(basic)))")) \
            else "caller"
    if module == "rccl":
        return "returned" if (_RECORD2.fullmatch(shape) or shape == _BASIC1) else "caller"
    if module == "hiprtc":
        if _RECORD2.fullmatch(shape):
            return "caller" if fn == "hiprtcDestroyProgram" else "returned"
        return "returned" if (shape == _BASIC1 or pname in ("lowered_name", "bin_out")) else "caller"
    return "caller"


def check_amd_rule(A, c: CSide):
    """Every pointer parameter AMD binds, against amd_rule(): (checked, [exceptions])."""
    out = {}
    for m in MODULES:
        a = A.get(m)
        if a is None:
            continue
        n, bad = 0, []
        for name, af in a.functions.items():
            cfn = c.function(m, name)
            if cfn is None:
                continue
            ar = amd_roles(af)
            for p in cfn.params:
                shape = c.shape(m, p.type)
                if "ptr(" not in shape and "array(" not in shape:
                    continue
                n += 1
                got = ar.get(p.name, "none")
                got = "caller" if got == "both" else got
                want = amd_rule(m, name, p.name, shape)
                if got != want:
                    bad.append(f"{name}.{p.name} [{shape}] AMD {got}, rule {want}")
        out[m] = (n, bad)
    return out


def result_kinds(A, O, c: CSide):
    """C result type class -> (AMD's first element, ours) counts, over the functions both bind."""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        status = {"hipError_t", "hiprtcResult", "hipblasStatus_t", "hipsparseStatus_t", "hipsolverStatus_t",
                  "hipfftResult_t", "hipfftResult", "hiprandStatus_t", "hiprandStatus", "ncclResult_t"}
        for name, af in a.functions.items():
            of = o.functions.get(name) or o.functions.get(c.aliases.get(m, {}).get(name, ""))
            cfn = c.function(m, name)
            if of is None or cfn is None:
                continue
            t = cfn.result
            r = c.types[c.lib_of[m]].resolve(t)
            if t.kind == "typedef" and t.name in status or (r.kind == "enum" and r.name in status):
                k = "status"
            else:
                k = c.shape(m, t) if r.kind != "enum" else "enum (not a status)"
            out[m][(k, f"{af.first or '-'}{list(af.returns)}", f"{of.first or '-'}{list(of.returns)}")].append(name)
    return out

# -- comparisons -----------------------------------------------------------------------------------
def compare_functions(A, O, c: CSide):
    res = {"only_amd": {}, "only_ours": {}, "both": {}, "diffs": {}}
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        ours_callable = set(o.functions) | set(o.imported)
        only_a = sorted(n for n in a.functions if n not in ours_callable)
        res["only_amd"][m] = []
        for n in only_a:
            cfn = c.function(m, n)
            why = "not in our headers (AMD's were newer)" if cfn is None else \
                (f"we skip it: {cfn.skip}" if cfn.skip else "in our headers, not bound")
            res["only_amd"][m].append((n, why))
        res["only_ours"][m] = sorted(n for n in o.functions if n not in a.functions and c.function(m, n) is not None
                                     and not any(n == c.aliases.get(m, {}).get(x) for x in a.functions))
        res.setdefault("helpers_ours", {})[m] = sorted(n for n in o.functions if c.function(m, n) is None)
        both = [n for n in a.functions if n in ours_callable]
        res["both"][m] = len(both)
        diffs = []
        for n in both:
            of = o.functions.get(n) or o.functions.get(c.aliases.get(m, {}).get(n, ""))
            if of is None:
                continue
            d = classify(m, n, a.functions[n], of, c)
            if d["kinds"]:
                diffs.append(d)
        res["diffs"][m] = diffs
    return res


def rule_tables(A, O, c: CSide):
    """Per module and C pointer shape: AMD's treatment vs ours, over every parameter both bind."""
    tables = {}
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        rows = collections.defaultdict(lambda: {"n": 0, "pairs": collections.Counter(), "examples": {},
                                                "adapters": collections.Counter()})
        for n, af in a.functions.items():
            of = o.functions.get(n) or o.functions.get(c.aliases.get(m, {}).get(n, ""))
            cfn = c.function(m, n)
            if of is None or cfn is None:
                continue
            ar, orr = amd_roles(af), our_roles(of, cfn)
            for p in cfn.params:
                shape = c.shape(m, p.type)
                if "ptr(" not in shape and "array(" not in shape:
                    continue
                ra, ro = ar.get(p.name, "none"), orr.get(p.name, "none")
                row = rows[shape]
                row["n"] += 1
                row["pairs"][(ra, ro)] += 1
                row["examples"].setdefault((ra, ro), []).append(f"{n}.{p.name}")
                if ra in ("caller", "both"):
                    row["adapters"][af.adapters.get(p.name, "")] += 1
                else:
                    row["adapters"]["-> " + af.outputs.get(p.name, "")] += 1
        tables[m] = rows
    return tables


def compare_classes(A, O):
    res = {}
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        our_names = set(o.all) | set(o.classes) | set(o.enums) | set(o.functions) | set(o.constants)
        missing_cls, missing_members = [], collections.defaultdict(set)
        classes = dict(a.classes)
        for alias, target in a.aliases.items():
            if target in a.classes:
                classes[alias] = a.classes[target]
        for name, cls in sorted(classes.items()):
            if name.startswith("_"):
                continue
            if name not in our_names:
                missing_cls.append(name)
                continue
            ours = o.classes.get(name)
            if ours is None:
                continue        # ours names something else (an enum, a function): reported with names
            fields = {x for x in cls.properties}
            for mem in sorted(cls.members - IGNORED_MEMBERS):
                if mem in ours.members:
                    continue
                key = mem
                mm = re.fullmatch(r"(get|set)_(\w+)", mem)
                if mm and mm.group(2) in cls.members:
                    key = f"{mm.group(1)}_<field>"
                elif mem in fields and mem not in ("is_ptr_null", "typestr", "shape", "size", "itemsize",
                                                   "is_read_only", "stream_as_int", "rank"):
                    key = "<field>"
                missing_members[key].add(name)
        res[m] = {"missing": missing_cls, "members": {k: sorted(v) for k, v in missing_members.items()},
                  "n": len(classes)}
    return res


def compare_enums(A, O):
    res = {}
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        missing, members, values = [], [], []
        enums = dict(a.enums)
        for alias, target in a.aliases.items():
            if target in a.enums:
                enums[alias] = a.enums[target]
        for name, ms in sorted(enums.items()):
            ours = o.enums.get(name)
            if ours is None:
                missing.append(name)
                continue
            for k, v in ms.items():
                if k not in ours:
                    members.append(f"{name}.{k}")
                elif v is not None and ours[k] != v:
                    values.append(f"{name}.{k}: AMD {v} ours {ours[k]}")
        res[m] = {"missing": missing, "members": members, "values": values, "n": len(enums)}
    return res


def compare_enum_methods(A, ours_dir: str, python):
    """Methods AMD's enum classes have (ctypes_type, ...) that ours lack."""
    amd_methods = {}
    for m, mod in A.items():
        for e in mod.enums:
            amd_methods[(m, e)] = None
    got = amd.probe_classes(os.path.dirname(ours_dir), [f"hip.{m}" for m in A], python)
    res = {}
    for m, mod in A.items():
        ours = got.get(f"hip.{m}", {})
        if "error" in ours:
            continue
        missing = collections.defaultdict(list)
        for e in mod.enums:
            if e not in ours:
                continue
            for meth in ("ctypes_type", "name", "value", "__members__"):
                if meth not in ours[e] and not (meth == "__members__"):
                    missing[meth].append(e)
        res[m] = dict(missing)
    return res


def compare_constants(A, O):
    res = {}
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        missing, values = [], []
        for k, v in sorted(a.constants.items()):
            if k not in o.constants:
                where = "enum" if k in o.enums else ("class" if k in o.classes else "")
                missing.append(k + (f" (ours: a {where})" if where else ""))
            elif v is not None and o.constants[k] != v:
                values.append(f"{k}: AMD {v!r} ours {o.constants[k]!r}")
        res[m] = {"missing": missing, "values": values, "n": len(a.constants)}
    return res


def compare_names(A, O):
    """AMD's __all__ names (and its type aliases) that our module lacks, grouped by what they are in AMD's."""
    res = {}
    for m in MODULES:
        a, o = A.get(m), O.get(m)
        if a is None or o is None:
            continue
        ours = set(o.all) | set(o.functions) | set(o.enums) | set(o.classes) | set(o.constants)
        names = set(a.all) | set(a.aliases) | {n for n in a.imported if not n.startswith("_")}
        groups = collections.defaultdict(list)
        for n in sorted(names - ours):
            if re.fullmatch(r"_\w+__Base", n):
                g = "enum base class (_X__Base)"
            elif n in a.functions:
                g = "function"
            elif n in a.enums or a.aliases.get(n) in a.enums:
                g = "enum"
            elif n in a.classes or a.aliases.get(n) in a.classes:
                g = "class" + (" alias" if n in a.aliases else "")
            elif n in a.constants:
                g = "constant"
            elif n in a.imported:
                g = f"imported from hip.{a.imported[n]}"
            else:
                g = "other"
            groups[g].append(n)
        res[m] = dict(groups)
    return res


def compare_util_types(amd_path: str, ours_dir: str, python: str | None):
    helpers = amd.util_types(amd_path)
    ours = amd.probe_classes(os.path.dirname(ours_dir), ["hip._util.types", "hip._pointer", "hip._struct"],
                             python)
    has_module = "error" not in ours.get("hip._util.types", {"error": 1})
    flat = {}
    for modname in ("hip._util.types", "hip._pointer", "hip._struct"):
        for k, v in ours.get(modname, {}).items():
            if isinstance(v, list):
                flat.setdefault(k, (modname, set(v)))
    res = {"module": has_module, "classes": {}}
    for name, cls in sorted(helpers.items()):
        if name.startswith("_"):
            continue
        if name in flat:
            where, members = flat[name]
            res["classes"][name] = {"ours": where, "missing": sorted(cls.members - IGNORED_MEMBERS - members)}
        else:
            res["classes"][name] = {"ours": None, "missing": sorted(cls.members - IGNORED_MEMBERS)}
    return res


# -- printing --------------------------------------------------------------------------------------
def _ex(items, n):
    items = list(items)
    s = ", ".join(str(x) for x in items[:n])
    return s + (f", ... (+{len(items) - n})" if len(items) > n else "")


def print_report(R, n_ex: int, only_rules: bool = False):
    P = print
    if not only_rules:
        fr = R["functions"]
        P(f"AMD hip-python {R['amd_version']} vs ours (ROCm {R['rocm']} headers)\n")
        P("== Functions ==")
        tot_both = sum(fr["both"].values())
        tot_diff = sum(len(v) for v in fr["diffs"].values())
        P(f"both bind {tot_both}; bind differently {tot_diff}")
        P(f"{'module':10} {'AMD-only':>8} {'ours-only':>9} {'both':>6} {'differ':>7} "
          f"{'(a)':>5} {'(b)':>5} {'(c)':>5} {'(d)':>5} {'other':>6}")
        totals = collections.Counter()
        for m in MODULES:
            if m not in fr["both"]:
                continue
            k = collections.Counter(x for d in fr["diffs"][m] for x in d["kinds"])
            row = [len(fr["only_amd"][m]), len(fr["only_ours"][m]), fr["both"][m], len(fr["diffs"][m]),
                   k["a"], k["b"], k["c"], k["d"], k["other"]]
            totals.update(dict(zip(range(9), row)))
            P(f"{m:10} {row[0]:8} {row[1]:9} {row[2]:6} {row[3]:7} {row[4]:5} {row[5]:5} {row[6]:5} "
              f"{row[7]:5} {row[8]:6}")
        P(f"{'total':10} {totals[0]:8} {totals[1]:9} {totals[2]:6} {totals[3]:7} {totals[4]:5} {totals[5]:5} "
          f"{totals[6]:5} {totals[7]:5} {totals[8]:6}")
        P("(a function may count in several kinds)\n")
        for m in MODULES:
            if fr["only_amd"].get(m):
                whys = collections.Counter(w for _, w in fr["only_amd"][m])
                P(f"only in AMD's {m}: {len(fr['only_amd'][m])} ({'; '.join(f'{v} {k}' for k, v in whys.items())}): "
                  + _ex((n for n, _ in fr["only_amd"][m]), n_ex))
            if fr["only_ours"].get(m):
                P(f"only in our {m}: {len(fr['only_ours'][m])}: " + _ex(fr["only_ours"][m], n_ex))
        helpers = sorted({n for v in fr.get("helpers_ours", {}).values() for n in v})
        if helpers:
            P(f"(our helpers, no C function: {', '.join(helpers)})")
        titles = {"a": "(a) AMD: the caller passes the buffer; ours allocates and returns it",
                  "b": "(b) AMD allocates and returns it; ours: the caller passes it",
                  "c": "(c) AMD returns (drops from its signature) a const T* input array",
                  "d": "(d) the C result is a value: AMD returns (value,), ours (status, value)",
                  "other": "other differences"}
        for kind in ("a", "b", "c", "d", "other"):
            P(f"\n-- {titles[kind]} --")
            for m in MODULES:
                ds = [d for d in fr["diffs"].get(m, []) if kind in d["kinds"]]
                if not ds:
                    continue
                P(f"  {m}: {len(ds)}")
                if kind in ("a", "b", "c"):
                    shapes = collections.Counter(p["shape"] for d in ds for p in d["params"] if p["kind"] == kind)
                    for shape, cnt in shapes.most_common(8):
                        ps = [(d, p) for d in ds for p in d["params"] if p["kind"] == kind and p["shape"] == shape]
                        exs = [f"{d['function']}.{p['param']}" for d, p in ps]
                        ad = collections.Counter(p["amd_adapter"] for _, p in ps)
                        oi = collections.Counter(p["our_intent"] for _, p in ps)
                        P(f"    {cnt:4} params {shape:26} AMD: {', '.join(f'{k} {v}' for k, v in ad.most_common())}"
                          f"; ours: {', '.join(f'{k} {v}' for k, v in oi.most_common())}")
                        P(f"         e.g. {_ex(exs, min(n_ex, 4))}")
                else:
                    for d in ds[:n_ex]:
                        why = d.get("why", "")
                        P(f"    {d['function']}({', '.join(d['amd_sig'])}) -> {d['amd_returns']} {d['amd_first']}"
                          f" | ours ({', '.join(d['our_sig'])}) -> {d['our_returns']} {d['our_first']}"
                          + (f"  [{why}]" if why else ""))
                    if len(ds) > n_ex:
                        P(f"    ... (+{len(ds) - n_ex})")
    P("\n== Parameter classification: AMD's treatment of each C pointer shape vs ours ==")
    P("(roles: caller = a Python argument the caller supplies; returned = allocated by the binding and")
    P(" returned; both = taken and returned; none = neither. Shapes resolve typedefs:")
    P(" ptr(ptr(record)) is e.g. hipStream_t*, ptr(ptr(void)) e.g. void** or hipblasHandle_t*.)")
    for m, rows in R["rules"].items():
        P(f"\n  {m}:")
        for shape, row in sorted(rows.items(), key=lambda kv: -kv[1]["n"]):
            pairs = ", ".join(f"{a}/{o} {n}" for (a, o), n in row["pairs"].most_common())
            P(f"    {shape:34} {row['n']:5}  AMD/ours: {pairs}")
            for (a, o), exs in sorted(row["examples"].items(), key=lambda kv: -len(kv[1])):
                if a != o and not (a == "both" and o == "caller"):
                    P(f"      {a}/{o}: {_ex(exs, min(n_ex, 4))}")
    P("\n== AMD's classification as rules (parity_report.amd_rule) against AMD's actual bindings ==")
    for m, (n, bad) in R["amd_rule"].items():
        P(f"  {m:10} {n - len(bad):5}/{n:5} pointer parameters as the rule says"
          + (f"; exceptions {len(bad)}: {_ex(bad, n_ex)}" if bad else ""))
    P("\n== C result type -> first element of the returned tuple: AMD vs ours ==")
    for m, rows in R["results"].items():
        st = sum(len(v) for (k, _, _), v in rows.items() if k == "status")
        same = sum(len(v) for (k, af, of), v in rows.items() if k == "status" and af.split("[")[0] == of.split("[")[0])
        P(f"  {m:10} {'status':24} {st:5}  status first on both sides: {same}")
        for (k, af, of), names in sorted(rows.items(), key=lambda kv: -len(kv[1])):
            if k == "status" and af.split("[")[0] == of.split("[")[0]:
                continue
            P(f"  {m:10} {k:24} {len(names):5}  AMD {af:16} ours {of:16} {_ex(names, min(n_ex, 4))}")
    if only_rules:
        return
    P("\n== Classes (structs, unions, handles) ==")
    for m, r in R["classes"].items():
        if not (r["missing"] or r["members"]):
            continue
        P(f"  {m}: AMD has {r['n']} classes; {len(r['missing'])} missing in ours: {_ex(r['missing'], n_ex)}")
        for mem, where in sorted(r["members"].items(), key=lambda kv: -len(kv[1])):
            P(f"    {mem:22} missing in {len(where):4} classes, e.g. {_ex(where, min(n_ex, 4))}")
    P("\n== Enums ==")
    for m, r in R["enums"].items():
        if r["missing"] or r["members"] or r["values"]:
            P(f"  {m}: {r['n']} enums; missing {len(r['missing'])}: {_ex(r['missing'], n_ex)}")
            if r["members"]:
                P(f"    members missing {len(r['members'])}: {_ex(r['members'], n_ex)}")
            if r["values"]:
                P(f"    values differ {len(r['values'])}: {_ex(r['values'], n_ex)}")
    for m, r in R.get("enum_methods", {}).items():
        for meth, es in r.items():
            P(f"  {m}: enum method {meth}() (AMD's enums have it) missing in {len(es)} enums: {_ex(es, n_ex)}")
    P("\n== Module constants ==")
    for m, r in R["constants"].items():
        if r["missing"] or r["values"]:
            P(f"  {m}: {r['n']} constants; missing {len(r['missing'])}: {_ex(r['missing'], n_ex)}")
            if r["values"]:
                P(f"    values differ {len(r['values'])}: {_ex(r['values'], n_ex)}")
    P("\n== Public names (AMD's __all__ and type aliases) our modules lack, by what they are in AMD's ==")
    for m, groups in R["names"].items():
        for g, names in sorted(groups.items()):
            P(f"  {m:10} {g:28} {len(names):4}: {_ex(names, n_ex)}")
    P("\n== hip._util.types (AMD's helper types) ==")
    u = R["util_types"]
    P(f"  module hip._util.types in ours: {'yes' if u['module'] else 'NO'}")
    for name, r in u["classes"].items():
        where = r["ours"] or "missing"
        P(f"  {name:20} ours: {where:16} missing members {len(r['missing'])}: {_ex(r['missing'], 8)}")


def _jsonable(x):
    if isinstance(x, dict):
        return {(k if isinstance(k, str) else "/".join(k) if isinstance(k, tuple) else str(k)): _jsonable(v)
                for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in x]
    if isinstance(x, collections.Counter):
        return {str(k): v for k, v in x.items()}
    return x


def build(args):
    ours_dir = os.path.abspath(args.ours)
    repo = os.path.dirname(ours_dir)
    include = os.path.abspath(args.include or os.path.join(repo, "build", "rocm-sid", "usr", "include"))
    c = CSide(repo, include)
    src = args.amd
    if src is None or re.fullmatch(r"\d+\.\d+(\.\d+)?", src or ""):
        src = amd.find_release(src or c.version, args.cache)
    A = amd.load(src, python=args.amd_python)
    O = amd.load_ours(ours_dir, python=args.python)
    R = {"amd_version": amd._Source(src).version(), "amd_path": src, "rocm": c.version}
    R["functions"] = compare_functions(A, O, c)
    R["rules"] = rule_tables(A, O, c)
    R["amd_rule"] = check_amd_rule(A, c)
    R["results"] = result_kinds(A, O, c)
    R["classes"] = compare_classes(A, O)
    R["enums"] = compare_enums(A, O)
    R["constants"] = compare_constants(A, O)
    R["enum_methods"] = compare_enum_methods(A, ours_dir, args.python)
    R["names"] = compare_names(A, O)
    R["util_types"] = compare_util_types(src, ours_dir, args.python)
    return R


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--amd", help="AMD's wheel, its unpacked dir, or a ROCm version (default: our headers' major.minor)")
    ap.add_argument("--ours", default=os.path.join(ROOT, "hip"), help="our built package dir (default <repo>/hip)")
    ap.add_argument("--include", help="ROCm include dir (default <ours>/../build/rocm-sid/usr/include)")
    ap.add_argument("--cache", help="where AMD's wheels are kept (default <repo>/build/amd-hip-python)")
    ap.add_argument("--python", help="interpreter that imports our package (default this one)")
    ap.add_argument("--amd-python", help="interpreter that imports AMD's wheel for values (default this one)")
    ap.add_argument("-n", "--examples", type=int, default=5, help="examples per line (default 5)")
    ap.add_argument("--rules", action="store_true", help="print only the parameter-classification tables")
    ap.add_argument("--json", help="also write everything as JSON here")
    args = ap.parse_args(argv)
    R = build(args)
    print_report(R, args.examples, args.rules)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(_jsonable(R), f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
