"""Runs candidate calls in worker processes: a crash or a hang kills only its worker, which is
recorded (function, arguments, signal) and replaced; the call is then run again alone in a
fresh worker, so damage left by an earlier call is told apart from the call's own, and where it
passes alone, the earlier call that left the damage is found by replaying the worker's last
calls before it (a write past a plain bytearray corrupts the heap unseen, and the next call's
argument making crashes)."""
from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
import time
from collections import Counter

from . import cases, worker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_fork_lock = threading.Lock()
REFUSALS = ("TypeError", "ValueError", "OverflowError", "BufferError")


class Worker:
    """A child forked from this process (which imported the package once): calls go in through
    one pipe, the worker's reports come back through another."""

    def __init__(self, setup: dict, env: dict):
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        with _fork_lock:
            pid = os.fork()
        if pid == 0:   # the worker: the libraries' own output goes nowhere
            try:
                os.close(w1)
                os.close(r2)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                worker.serve(setup, os.fdopen(r1, "r"), os.fdopen(w2, "w"))
            finally:
                os._exit(0)
        os.close(r1)
        os.close(w2)
        self.pid, self._in, self._out = pid, r2, os.fdopen(w1, "w")
        self._buf = b""
        self.eof = False
        self.status = None

    def send(self, obj) -> None:
        self._out.write(json.dumps(obj) + "\n")
        self._out.flush()

    def read(self, timeout: float):
        """The next protocol line, or None when the worker died or the time ran out."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                return None
            chunk = os.read(self._in, 65536)
            if not chunk:
                self.eof = True
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def kill(self) -> int:
        """Its exit status (negative: the signal); a worker still running (a hang) is killed."""
        if self.status is None:
            if not self.eof:
                os.kill(self.pid, signal.SIGKILL)
            _, st = os.waitpid(self.pid, 0)
            self.status = -os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)
            for close in (self._out.close, lambda: os.close(self._in)):
                try:
                    close()
                except OSError:
                    pass
        return self.status


def _setup(table: dict, package_root: str) -> dict:
    creators = {h: {**c, "args": [cases.baseline(p) for p in c["params"]]} for h, c in table["creators"].items()}
    return {"creators": creators, "destroyers": table["destroyers"], "nullable": table["nullable"],
            "path": package_root}


def _env(missing_libs) -> dict:
    """Set in this process, which the workers are forked from."""
    for lib in missing_libs:   # a library that does not load here: never found, whatever is installed
        os.environ[f"HIP_PYTHON_{lib.upper()}_LIBRARY"] = "/nonexistent/lib" + lib + ".so"
    return {}


def run_calls(calls: list[dict], setup: dict, env: dict, timeout: float, results: list, restart_every: int,
              confirm: bool, progress=None) -> None:
    w = Worker(setup, env)
    history: list = []   # (message, through an int address) of the calls this worker ran, oldest first
    for k, call in enumerate(calls):
        if len(history) >= restart_every:   # bounds what the handles the calls leak add up to
            w.kill()
            w = Worker(setup, env)
            history = []
        msg = {"id": k, "module": call["module"], "fn": call["fn"], "args": call["args"]}
        w.send(msg)
        r = w.read(timeout)
        if r is not None and "start" in r:
            fake = r.get("fake", False)
            r = w.read(timeout)
            if r is None:
                hang = not w.eof
                code = w.kill()
                r = {"outcome": "hang" if hang else "crash",
                     "signal": signal.Signals(-code).name if code < 0 else f"exit {code}", "fake": fake}
        elif r is None:   # died while making the arguments: damage left by an earlier call
            code = w.kill()
            r = {"outcome": "crash", "signal": signal.Signals(-code).name if code < 0 else f"exit {code}",
                 "fake": False, "setup": True}
        if r["outcome"] in ("crash", "hang"):
            if confirm:
                _confirm(r, msg, history, setup, env, timeout)
            w = Worker(setup, env)
            history = []
        else:
            history.append((msg, bool(r.get("fake")) or call["class"] == "int_address"))
        results.append((call, r))
        if progress:
            progress()
    w.kill()


def _confirm(r: dict, msg: dict, history: list, setup: dict, env: dict, timeout: float) -> None:
    """Run a crashing (or hanging) call again alone; where it then passes, find the earlier call
    whose damage it met: the first of the shortest run of the worker's last calls that, replayed
    in a fresh worker before it, kills the worker again ('after', and 'after_int_address' when that
    call went through an arbitrary int address: the damage is then that address's)."""
    r["alone"] = _replay([msg], setup, env, timeout)
    if r["alone"] == r["outcome"] or not history:
        return

    def again(n):   # the last n calls, then this one: does a worker die? (The damage may show in
        # another of the calls than the first time: the heap is laid out otherwise.)
        return _replay([m for m, _ in history[-n:]] + [msg], setup, env, timeout) in ("crash", "hang", "early")
    lo, hi = 0, 1   # again(lo) is False; find the smallest n with again(n)
    while not again(hi):
        if hi >= len(history):
            return   # not reproduced: left as found
        lo, hi = hi, min(2 * hi, len(history))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if again(mid) else (mid, hi)
    m, int_address = history[-hi]
    r["after"] = f"{m['module']}.{m['fn']}({', '.join(m['args'])})"
    r["after_int_address"] = int_address


def _replay(msgs: list[dict], setup: dict, env: dict, timeout: float) -> str:
    """The calls in a fresh worker: 'crash' or 'hang' where the last one does, else its outcome
    ('early' where an earlier one already crashed or hung)."""
    w = Worker(setup, env)
    try:
        for k, m in enumerate(msgs):
            w.send({**m, "id": k})
            r = w.read(timeout)
            if r is not None and "start" in r:
                r = w.read(timeout)
            if r is None:
                if k < len(msgs) - 1:
                    return "early"
                return "hang" if not w.eof else "crash"
        return r.get("outcome", "?")
    finally:
        w.kill()


def run(table: dict, modules, *, subset=None, seed=0, workers=1, timeout=20.0, package_root=ROOT,
        restart_every=3000, confirm=True, missing=(), quiet=False) -> dict:
    calls = cases.plan(table, modules, subset, seed)
    setup, env = _setup(table, package_root), _env(missing)
    worker.prepare(package_root)
    results: list = []
    # Whole functions go to one worker (their handles and buffers are made alike).
    by_fn: dict = {}
    for c in calls:
        by_fn.setdefault((c["module"], c["fn"]), []).append(c)
    chunks = [[] for _ in range(max(1, workers))]
    for i, fcalls in enumerate(by_fn.values()):
        chunks[i % len(chunks)].extend(fcalls)
    t0 = time.monotonic()
    count = [0]
    lock = threading.Lock()

    def progress():
        with lock:
            count[0] += 1
            if not quiet and count[0] % 5000 == 0:
                print(f"  {count[0]}/{len(calls)} calls, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    threads = [threading.Thread(target=run_calls, args=(ch, setup, env, timeout, results, restart_every, confirm,
                                                         progress)) for ch in chunks if ch]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return summarize(results, time.monotonic() - t0, missing)


def summarize(results: list, seconds: float, missing=()) -> dict:
    """Counts by library and fault class; the findings themselves (crashes, hangs, writes past a
    buffer, bad input that reached C or a missing library) listed with their calls."""
    s = {"calls": len(results), "seconds": round(seconds, 1), "by_module": {}, "findings": []}
    for call, r in results:
        m = s["by_module"].setdefault(call["module"], Counter())
        m["calls"] += 1
        kinds = []
        # A crash an earlier call's int address caused (the damage it left) counts as that call's.
        int_address = call["class"] == "int_address" or r.get("fake") or r.get("after_int_address", False)
        if r["outcome"] in ("crash", "hang"):
            kinds.append(r["outcome"] + ("(int address)" if int_address else ""))
        if r.get("guard"):
            kinds.append("write past buffer" + ("(int address)" if int_address else ""))
        if r.get("readonly"):
            kinds.append("write to read-only" + ("(int address)" if int_address else ""))
        if call["refuse"] and not int_address and r["outcome"] in ("ok", "exc") and r.get("exc") not in REFUSALS:
            kinds.append("not refused")
        if r["outcome"] == "setup":
            kinds.append("setup error")
        if r["outcome"] == "skip":
            m["skipped"] += 1
        for k in kinds:
            m[k] += 1
            if k in ("crash", "hang"):
                m[f"{k} [{call['class']}]"] += 1
            s["findings"].append({"kind": k, "module": call["module"], "fn": call["fn"], "param": call["param"],
                                  "label": call["label"], "class": call["class"], "args": call["args"],
                                  "outcome": {x: r.get(x) for x in ("outcome", "signal", "setup", "alone", "after",
                                                                     "after_int_address", "exc", "msg", "status")
                                              if r.get(x) is not None}})
    s["by_module"] = {k: dict(sorted(v.items())) for k, v in s["by_module"].items()}
    fns = {(f["module"], f["fn"]) for f in s["findings"] if f["kind"] in ("crash", "hang")}
    s["crashed_functions"] = len(fns)
    return s
