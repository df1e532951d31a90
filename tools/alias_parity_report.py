#!/usr/bin/env python3
"""Where our `cuda` alias differs from NVIDIA's cuda-bindings for the same CUDA version (the oracle).

    python tools/alias_parity_report.py                       # our cuda.bindings.{driver,runtime,nvrtc}
    python tools/alias_parity_report.py --module driver -n 20 # one module, more examples per line
    python tools/alias_parity_report.py --json diff.json      # everything, machine-readable
    python tools/alias_parity_report.py --path /tmp/standin --package fake.bindings   # any modules
    python tools/alias_parity_report.py --draft-accepted tests/oracles/alias_parity_accepted.json

The oracle is NVIDIA's release for the CUDA version our alias was generated from (its coverage
reports' `cuda_version`; `--oracle-version` or $CUDA_BINDINGS_ORACLE_VERSION override), described
inside its side venv (tests/oracles/cuda_bindings_oracle.py, fetched and cached under
build/cuda-bindings-oracle/). Ours is described by the same code in a
child interpreter (`--python`, default this one; `--path` dirs first on its sys.path), so both
sides are read alike. Per module, the deviations by category (CATEGORIES); each deviation has
a key (a function, `Enum.MEMBER`, `Class.member`, ...) that tests/oracles/alias_parity_accepted.json
can accept with a reason (tests/alias/test_alias_parity.py holds us to that file).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "oracles"))

import cuda_bindings_oracle as oracle  # noqa: E402

ACCEPTED = os.path.join(ROOT, "tests", "oracles", "alias_parity_accepted.json")

# What a program written for cuda-bindings would meet, in the order the table prints them.
CATEGORIES = {
    "module_missing": "the module does not import (nothing else in it is compared)",
    "functions_missing": "a function NVIDIA's module has and ours lacks",
    "params_differ": "parameter names, order or count differ, or a default NVIDIA's has is missing",
    "returns_differ": "the returned tuple's length differs (NVIDIA's: its docstring's Returns section)",
    "returns_unknown": "ours states no returned tuple (no numpydoc Returns, tuple[...] annotation or .pyi)",
    "enums_missing": "an enum class NVIDIA's module has and ours lacks",
    "enum_members_missing": "an enum member (aliases included) ours lacks",
    "enum_values_differ": "an enum member with another value",
    "classes_missing": "a class (struct, handle, other) ours lacks",
    "class_kind_differ": "a class of another kind (enum / handle / struct / other)",
    "class_names_differ": "a class whose __name__ differs (what type(x).__name__ prints)",
    "class_members_missing": "a method, property or special method (__int__, __eq__...) ours lacks",
    "constants_missing": "a module-level constant ours lacks",
    "constant_values_differ": "a module-level constant with another value",
}


def _names(params) -> list:
    return [p["name"] for p in params or []]


def compare_module(A: dict, O: dict) -> dict:
    """{category: [{"key": ..., "detail": ...}]} for one module: A is NVIDIA's description, O ours."""
    out = {c: [] for c in CATEGORIES}

    def add(cat, key, detail=""):
        out[cat].append({"key": key, "detail": detail})

    if "error" in O:
        add("module_missing", O.get("module", "?"), O["error"])
        return out
    for name, fa in A["functions"].items():
        fo = O["functions"].get(name)
        if fo is None:
            add("functions_missing", name)
            continue
        pa, po = fa["params"], fo["params"]
        if pa is not None:
            if po is None:
                add("params_differ", name, f"NVIDIA ({', '.join(_names(pa))}), ours: no signature "
                                           f"({fo.get('signature_error', '')})")
            else:
                lost = [p["name"] for p in pa if "default" in p and not any(
                    q["name"] == p["name"] and "default" in q for q in po)]
                if _names(pa) != _names(po) or lost:
                    add("params_differ", name, f"NVIDIA ({', '.join(_names(pa))}), ours ({', '.join(_names(po))})"
                        + (f"; no default for {', '.join(lost)}" if lost else ""))
        ra, ro = fa["returns"], fo["returns"]
        if ra is not None:
            if ro is None:
                add("returns_unknown", name, f"NVIDIA returns {len(ra)}: {_ret(ra)}")
            elif len(ra) != len(ro):
                add("returns_differ", name, f"NVIDIA {len(ra)}: {_ret(ra)}; ours {len(ro)}: {_ret(ro)}")
    for name, ea in A["enums"].items():
        eo = O["enums"].get(name)
        if eo is None:
            add("enums_missing", name)
            continue
        for mem, va in ea["members"].items():
            if mem not in eo["members"]:
                add("enum_members_missing", f"{name}.{mem}", f"= {va}")
            elif eo["members"][mem] != va:
                add("enum_values_differ", f"{name}.{mem}", f"NVIDIA {va}, ours {eo['members'][mem]}")
    for name, ca in A["classes"].items():
        co = O["classes"].get(name)
        if co is None:
            if ca["kind"] != "enum":            # enums are counted as enums_missing
                add("classes_missing", name, ca["kind"])
            continue
        if co["kind"] != ca["kind"]:
            add("class_kind_differ", name, f"NVIDIA {ca['kind']}, ours {co['kind']}")
        if ca.get("name") and co.get("name") and ca["name"] != co["name"] and ca["kind"] != "enum":
            add("class_names_differ", name, f"NVIDIA {ca['name']}, ours {co['name']}")
        have = set(co["methods"]) | set(co["properties"]) | set(co["special"]) | set(co.get("has", ()))
        for mem in ca["methods"] + ca["properties"] + ca["special"]:
            if mem not in have:
                what = "method" if mem in ca["methods"] else "property" if mem in ca["properties"] else "special"
                add("class_members_missing", f"{name}.{mem}", what)
    for name, va in A["constants"].items():
        if name not in O["constants"]:
            add("constants_missing", name, f"= {va!r}")
        elif O["constants"][name] != va:
            add("constant_values_differ", name, f"NVIDIA {va!r}, ours {O['constants'][name]!r}")
    return out


def _ret(r) -> str:
    return "(" + ", ".join(e["name"] or e["type"] for e in r) + ")"


def describe_ours(modules, package: str = "cuda.bindings", python: str | None = None, paths=(),
                  A: dict | None = None) -> dict:
    """Our modules described by the oracle's describer, in a child interpreter (`python`, default
    this one; `paths`, then the repo root, first on its sys.path: an in-place build counts, as in
    the tests), looking up every class member the oracle `A` has (describe_class's probe).
    Refuses NVIDIA's package: comparing it with itself would report perfect parity."""
    probe = {m: {c: d["methods"] + d["properties"] + d["special"] for c, d in A["modules"][m]["classes"].items()}
             for m in modules} if A else None
    got = oracle.run_describer(python or sys.executable, {m: f"{package}.{m}" for m in modules},
                               [*paths, ROOT], probe)
    for m, d in got.items():
        f = d.get("file") or ""
        site = f.split(os.sep + "cuda" + os.sep + "bindings" + os.sep)[0]
        if "error" not in d and site != f and glob.glob(os.path.join(site, "cuda_bindings-*.dist-info")):
            raise RuntimeError(f"{d['module']} is NVIDIA's cuda-bindings ({f}), not our alias: "
                               "it must never be installed into our environment")
    return got


def build(modules=None, package: str = "cuda.bindings", python: str | None = None, paths=(),
          oracle_facts: dict | None = None, cache: str | None = None, version: str | None = None) -> dict:
    """The whole comparison: {"oracle": {...}, "ours": {module: file or error}, "modules": {m: {cat: [...]}},
    "counts": {m: {cat: n}}}. `version`: the oracle's release (default: the alias's CUDA version,
    read under `paths` first)."""
    A = oracle_facts or oracle.load(cache, version=version, bindings_dirs=[
        os.path.join(p, *package.split(".")) for p in paths])
    modules = [m for m in (modules or oracle.MODULES) if m in A["modules"]]
    O = describe_ours(modules, package, python, paths, A)
    R = {"oracle": {k: A.get(k) for k in ("package", "version", "cuda_pathfinder", "python", "wheels",
                                          "requested", "requested_from")},
         "package": package, "ours": {m: O[m].get("file") or O[m].get("error") for m in modules},
         "modules": {}, "counts": {}}
    for m in modules:
        R["modules"][m] = compare_module(A["modules"][m], O[m])
        R["counts"][m] = {c: len(v) for c, v in R["modules"][m].items()}
    return R


def print_report(R: dict, n_ex: int = 5, out=sys.stdout) -> None:
    P = lambda *a: print(*a, file=out)  # noqa: E731
    o = R["oracle"]
    P(f"NVIDIA's cuda-bindings {o['version']} (cuda-pathfinder {o['cuda_pathfinder']}) against {R['package']}.*")
    if o.get("requested"):
        P(f"  chosen for CUDA {o['requested']}: {o['requested_from']}")
    for m, f in R["ours"].items():
        P(f"  {m:8} ours: {f}")
    mods = list(R["counts"])
    P("\n" + f"{'category':24}" + "".join(f"{m:>9}" for m in mods) + f"{'total':>9}")
    for c in CATEGORIES:
        row = [R["counts"][m][c] for m in mods]
        P(f"{c:24}" + "".join(f"{n:9d}" for n in row) + f"{sum(row):9d}")
    for m in mods:
        for c, items in R["modules"][m].items():
            if not items:
                continue
            P(f"\n{m} {c} ({len(items)}): {CATEGORIES[c]}")
            for it in items[:n_ex]:
                P(f"  {it['key']}" + (f": {it['detail']}" if it["detail"] else ""))
            if len(items) > n_ex:
                P(f"  ... {len(items) - n_ex} more")


# -- accepted deviations (tests/oracles/alias_parity_accepted.json) --------------------------------
def load_accepted(path: str = ACCEPTED) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def judge(R: dict, accepted: dict) -> dict:
    """Against the accepted file, per module and category: the count, the allowed `max`, the
    deviations no entry accepts (`new`) and the entries that accept nothing (`stale`)."""
    out = {}
    for m, cats in R["modules"].items():
        acc = accepted.get("modules", {}).get(m, {})
        for c, items in cats.items():
            entry = acc.get(c, {})
            pats = entry.get("accepted", {})
            keys = [it["key"] for it in items]
            new = [it for it in items if not any(re.fullmatch(p, it["key"]) for p in pats)]
            stale = [p for p in pats if not any(re.fullmatch(p, k) for k in keys)]
            out[(m, c)] = {"count": len(items), "max": entry.get("max", 0), "new": new, "stale": stale}
    return out


def draft_accepted(R: dict, path: str) -> dict:
    """The accepted file rewritten for the current deviations: counts as `max`, reasons kept
    where an entry still matches, new deviations with an empty reason (to be written: the test
    refuses empty reasons)."""
    old = load_accepted(path) if os.path.isfile(path) else {}
    new = {k: v for k, v in old.items() if k != "modules"}
    # modules not compared this time (--module) keep their entries
    new["modules"] = {m: v for m, v in old.get("modules", {}).items() if m not in R["modules"]}
    for m, cats in R["modules"].items():
        acc = old.get("modules", {}).get(m, {})
        for c, items in cats.items():
            if not items:
                continue
            pats = dict(acc.get(c, {}).get("accepted", {}))
            keep = {p: r for p, r in pats.items() if any(re.fullmatch(p, it["key"]) for it in items)}
            for it in items:
                if not any(re.fullmatch(p, it["key"]) for p in keep):
                    keep[re.escape(it["key"])] = ""
            new["modules"].setdefault(m, {})[c] = {"max": len(items), "accepted": keep}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(new, f, indent=1)
        f.write("\n")
    return new


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", action="append", help="only these modules (repeat, or driver,runtime)")
    ap.add_argument("--package", default="cuda.bindings",
                    help="our package holding the modules (default cuda.bindings)")
    ap.add_argument("--python", help="interpreter that imports ours (default this one)")
    ap.add_argument("--path", action="append", default=[], help="put DIR first on that interpreter's sys.path")
    ap.add_argument("--oracle", help="a JSON written by tests/oracles/cuda_bindings_oracle.py (default: fetch/cached)")
    ap.add_argument("--cache", help="the oracle's cache dir (default <repo>/build/cuda-bindings-oracle)")
    ap.add_argument("--oracle-version", help="NVIDIA's release to compare with: X.Y (newest patch) or X.Y.Z"
                    f" (default ${oracle.VERSION_ENV}, else the CUDA version our alias was generated from)")
    ap.add_argument("-n", "--examples", type=int, default=5, help="examples per category (default 5)")
    ap.add_argument("--json", help="also write the comparison as JSON here")
    ap.add_argument("--draft-accepted", metavar="PATH",
                    help="rewrite an accepted-deviations file for the current deviations (reasons kept)")
    args = ap.parse_args(argv)
    modules = [x for m in args.module or [] for x in m.split(",") if x] or None
    facts = None
    if args.oracle:
        with open(args.oracle, encoding="utf-8") as f:
            facts = json.load(f)
    try:
        R = build(modules, args.package, args.python, args.path, facts, args.cache, args.oracle_version)
    except oracle.NoRelease as e:
        print(f"no oracle: {e}", file=sys.stderr)
        return 2
    print_report(R, args.examples)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(R, f, indent=1)
    if args.draft_accepted:
        draft_accepted(R, args.draft_accepted)
        print(f"\nwrote {args.draft_accepted}: fill in every empty reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
