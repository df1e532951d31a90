"""A fuzz worker: runs calls sent as JSON lines, one at a time, and reports each.

Protocol (JSON lines): `serve` gets the setup ({'creators', 'destroyers', 'nullable',
'path'}); then one call per line ({'id', 'module', 'fn', 'args': [expr]}). Before each call the
worker writes {'start': id}; after it, {'id', 'outcome': 'ok'|'exc'|'setup', 'exc', 'msg',
'status', 'fake', 'guard', 'readonly'}. A crash or a hang is what the parent sees when a
'start' has no result. Every buffer the helpers make is followed by guard bytes (and
read-only memory is checked unchanged): writes past a buffer show up in 'guard'.

tests/fuzz/runner.py forks workers from a process that has imported the package (from the
setup's 'path') and NumPy once, so that replacing a crashed worker costs a fork.
"""
import ctypes
import importlib
import json
import mmap
import os
import sys

GUARD = 64
PATTERN = 0xA5


def prepare(path: str) -> None:
    """Import the package from `path` (and NumPy): what every forked worker shares."""
    sys.path.insert(0, path)
    import numpy  # noqa: F401
    import hip.hip, hip.hiprtc, hip.hiprand, hip.hipsparse  # noqa: F401,E401


def serve(setup: dict, calls, proto):
    import numpy as np
    from hip._pointer import Pointer

    guards, readonly, state = [], [], {"fake": False}
    # The stand-in for a handle no call could create here: a page of zeros, cleared before every
    # call (what one call writes through it does not reach the next), after a page of zeros that
    # is no malloc chunk header: a library freeing it aborts in that call (glibc: "free(): invalid
    # pointer") instead of handing the memory out again and corrupting the heap for later calls.
    fake_map = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    fake_base = ctypes.addressof(ctypes.c_char.from_buffer(fake_map))
    FAKE = fake_base + mmap.PAGESIZE

    def guarded(nbytes):
        base = np.full(nbytes + GUARD, PATTERN, np.uint8)
        base[:nbytes] = 0
        guards.append((base, nbytes))
        return base

    def B(n):                       # a writable NumPy byte buffer of n bytes
        return guarded(n)[:n]

    def M(n):                       # a writable memoryview of n bytes
        return memoryview(guarded(n))[:n]

    def N(n, dtype):                # a NumPy array of n elements
        size = np.dtype(dtype).itemsize
        return guarded(n * size)[:n * size].view(dtype)

    def RO(n):                      # read-only memory: must stay unchanged
        b = bytes(n)
        readonly.append(b)
        return b

    def E(ref, refused=()):         # the first member the bindings accept
        mod, name = ref.split(":")
        return next(m for m in getattr(importlib.import_module("hip." + mod), name) if int(m) not in refused)

    def S(ref):
        mod, name = ref.split(":")
        return getattr(importlib.import_module("hip." + mod), name)()

    def W(name):                    # a hip handle object of class `name`, at the page of zeros
        return getattr(importlib.import_module("hip.hip"), name).from_ptr(FAKE)

    creators, destroyers, nullable = setup["creators"], setup["destroyers"], set(setup["nullable"])

    def create(htype):
        c = creators.get(htype)
        if c is None:
            return None
        args = [eval(a, ns) for a in c["args"]]
        fn = getattr(importlib.import_module("hip." + c["module"]), c["fn"])
        try:
            if c["out"] is None:
                cv = ctypes.c_void_p()
                args[0] = ctypes.pointer(cv)
                r = fn(*args)
                return Pointer(cv.value) if int(r[0]) == 0 and cv.value else None
            r = fn(*args)
        except Exception:           # missing library or function, or the bindings refuse the baseline
            return None
        return r[c["out"]] if int(r[0]) == 0 and r[c["out"]] else None

    def H(htype):                   # a live handle; else NULL where valid, else an int address
        h = create(htype)
        if h is not None:
            return h
        if htype in nullable:
            return None
        state["fake"] = True
        return FAKE

    def D(htype):                   # a destroyed handle
        h = create(htype)
        if h is None:
            raise Unavailable(f"no {htype} can be created here")
        d = destroyers[htype]
        getattr(importlib.import_module("hip." + d["module"]), d["fn"])(h)
        return h

    ns = {"np": np, "B": B, "M": M, "N": N, "RO": RO, "E": E, "S": S, "H": H, "D": D, "W": W}
    for line in calls:
        call = json.loads(line)
        guards.clear()
        readonly.clear()
        state["fake"] = False
        ctypes.memset(fake_base, 0, 2 * mmap.PAGESIZE)
        res = {"id": call["id"]}
        try:
            fn = getattr(importlib.import_module("hip." + call["module"]), call["fn"])
            args = [eval(a, ns) for a in call["args"]]
        except Unavailable as e:    # nothing to destroy: the candidate does not apply
            res.update(outcome="skip", msg=str(e))
            proto.write(json.dumps(res) + "\n")
            proto.flush()
            continue
        except BaseException as e:  # the candidate itself could not be made
            res.update(outcome="setup", exc=type(e).__name__, msg=str(e)[:200])
            proto.write(json.dumps(res) + "\n")
            proto.flush()
            continue
        proto.write(json.dumps({"start": call["id"], "fake": state["fake"]}) + "\n")
        proto.flush()
        try:
            r = fn(*args)
            res.update(outcome="ok", status=repr(r[0]) if isinstance(r, tuple) and r else repr(r))
        except BaseException as e:
            res.update(outcome="exc", exc=type(e).__name__, msg=str(e)[:200])
        res["fake"] = state["fake"]
        res["guard"] = [k for k, (base, n) in enumerate(guards) if (base[n:] != PATTERN).any()]
        res["readonly"] = [k for k, b in enumerate(readonly) if b.count(0) != len(b)]
        del args
        proto.write(json.dumps(res) + "\n")
        proto.flush()


class Unavailable(Exception):
    pass
