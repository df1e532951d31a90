"""Bad input for every function of the `cuda` alias (cuda.bindings.driver/runtime/nvrtc).

python -m tests.fuzz.alias [--seed S] [--per-function N]

Each function is called with zeros (NULL handles and pointers: the no-device runtime answers
with a status) and, one parameter at a time, with bad values: None, a str, a float, NaN, -1,
2**64, bytes, a list, an object, True. Ints in range are addresses by contract and are not
used as bad values: True is one (1), and so is 1.5 (truncated, as cuda.bindings does), where a
parameter takes an int, an enum, a handle or an address (a made-up CUmemGenericAllocationHandle
or stream, which the driver does not check; an attribute whose value C then reads). The zeros are themselves bad
input of three kinds that crashed on an H100: a length of 0 for text the call writes
(cuDeviceGetName(0, 0)), a NULL C string (cuGetProcAddress_v2(0, 0, 0)) and a NULL struct; so
are -1 (a negative length) and b'x' (a 1-byte buffer where C reads a struct:
cuGraphKernelNodeSetParams_v2(0, b'x')), which the seeded subset gives every parameter. The calls run in a child process that prints each call before making it,
so a crash names the call; the parent restarts the child after it and goes on. A bad value must
give a Python exception or a status, never a crash. Exit status 1 when a call crashed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys

BAD = ["None", "'x'", "1.5", "float('nan')", "-1", "2**64", "b'x'", "[1, 2]", "object()", "True"]
ALWAYS = ["-1", "b'x'"]     # in the seeded subset for every parameter (the module docstring says why)
MODULES = ("driver", "runtime", "nvrtc")

CHILD = r"""
import sys, json, warnings
warnings.simplefilter("ignore")
import hip_as_cuda._finder   # ours even where NVIDIA's cuda-bindings is installed (the GPU machines)
hip_as_cuda._finder.install()
from cuda.bindings import driver, runtime, nvrtc
assert "hip_as_cuda" in driver.__file__, driver.__file__
mods = {"driver": driver, "runtime": runtime, "nvrtc": nvrtc}
for line in sys.stdin:
    mod, fn, args = json.loads(line)
    print(json.dumps([mod, fn, args]), flush=True)
    try:
        getattr(mods[mod], fn)(*[eval(a) for a in args])
    except Exception:
        pass
print("DONE", flush=True)
"""


def arity(fn) -> int:
    head = (fn.__doc__ or "").split("\n", 1)[0]
    if "(" not in head:
        return -1
    inner = head[head.index("(") + 1:head.rindex(")")].strip()
    return 0 if not inner else inner.count(",") + 1


def int_params(mod) -> dict[str, set[int]]:
    """Per function, the positions of the parameters that take any integer, a bool or a float as
    the int it makes (cuda.bindings' rule): what its stub (the .pyi beside the module) types `int`
    (numbers, integer handles and addresses: CUdeviceptr, CUmemGenericAllocationHandle) or an
    enum, and what its C prototype (the cimport layer's .pxd) takes as a handle or a `void*`."""
    import ast
    import re
    base = os.path.join(os.path.dirname(mod.__file__), mod.__name__.rsplit(".", 1)[-1])
    with open(base + ".pyi") as f:
        tree = ast.parse(f.read())
    numeric = {"int"} | {c.name for c in tree.body if isinstance(c, ast.ClassDef)
                         and any(isinstance(b, ast.Name) and b.id.endswith("Enum") for b in c.bases)}
    from hip._pointer import Pointer
    from hip._struct import Struct
    handles = {n for n in dir(mod) if isinstance(getattr(mod, n, None), type)
               and issubclass(getattr(mod, n), Pointer) and not issubclass(getattr(mod, n), Struct)}
    addresses: dict[str, set[str]] = {}   # function -> C parameters that are handles or void*
    cy = os.path.join(os.path.dirname(mod.__file__), "cy" + mod.__name__.rsplit(".", 1)[-1] + ".pxd")
    with open(cy) as f:
        for m in re.finditer(r"^cdef \w+ (\w+)\((.*)\) except", f.read(), re.M):
            for p in m.group(2).split(","):
                words = p.replace("*", " * ").split()
                if len(words) >= 2 and (words[-2] == "*" and "void" in words or words[-2] in handles):
                    addresses.setdefault(m.group(1), set()).add(words[-1])
    out = {}
    for f in tree.body:
        if isinstance(f, ast.FunctionDef):
            out[f.name] = {i for i, a in enumerate(f.args.args)
                           if isinstance(a.annotation, ast.Name) and a.annotation.id in numeric
                           or a.arg in addresses.get(f.name, ())}
    return out


def calls(seed: int, per_function: int | None) -> list:
    import hip_as_cuda
    from cuda.bindings import driver, nvrtc, runtime
    mods = {"driver": driver, "runtime": runtime, "nvrtc": nvrtc}
    rng = random.Random(seed)
    out = []
    for m, cov in hip_as_cuda.coverage().items():
        ints = int_params(mods[m])
        for name in sorted(cov["functions"]):
            n = arity(getattr(mods[m], name))
            if n < 0:
                continue
            cs = [[m, name, ["0"] * n]]
            bad = [[m, name, ["0"] * i + [b] + ["0"] * (n - i - 1)] for i in range(n) for b in BAD
                   if not (b in ("True", "1.5") and i in ints.get(name, ()))]
            if per_function is not None:
                always = [c for c in bad if any(a in ALWAYS for a in c[2])]
                rest = [c for c in bad if c not in always]
                bad = always + rng.sample(rest, min(per_function, len(rest)))
            out += cs + bad
    return out


def _child(cs: list, timeout: float):
    p = subprocess.run([sys.executable, "-c", CHILD], input="\n".join(json.dumps(c) for c in cs) + "\n",
                       capture_output=True, text=True, timeout=timeout)
    lines = [l for l in p.stdout.splitlines() if l]
    return p, lines


def run(cs: list, timeout: float = 600) -> dict:
    """{'calls': n, 'crashes': [[module, fn, args, returncode, earlier]]}: `earlier` is None when the
    call crashes alone too, else the earlier call of the same child behind it (a call that left
    something behind: a NULL callback the driver runs later, a corrupted state), found by replaying
    each earlier call followed by the crashed one."""
    crashes, i = [], 0
    while i < len(cs):
        p, lines = _child(cs[i:], timeout)
        if lines and lines[-1] == "DONE":
            break
        done = len(lines)          # the last printed call is the one that crashed
        at = i + done - 1 if done else i
        crashed, earlier = cs[at], None
        if _child([crashed], timeout)[1][-1:] == ["DONE"]:   # passes alone: find the call behind it
            for j in range(at - 1, max(i, at - 40) - 1, -1):   # the 40 calls before it
                if _child([cs[j], crashed], timeout)[1][-1:] != ["DONE"]:
                    earlier = cs[j]
                    break
            else:
                earlier = "not one of the 40 calls before it alone"
        crashes.append(crashed + [p.returncode, earlier])
        i += max(done, 1)
    return {"calls": len(cs), "crashes": crashes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.alias", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-function", type=int, default=None, help="a seeded sample of bad calls per function")
    a = ap.parse_args(argv)
    r = run(calls(a.seed, a.per_function))
    print(f"{r['calls']} calls; crashes: {len(r['crashes'])}")
    for c in r["crashes"][:40]:
        print("  crash:", c)
    return 1 if r["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
