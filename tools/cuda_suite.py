"""Run NVIDIA's own cuda-python tests against NVIDIA's bindings and through the `cuda` alias.

The alias's conformance suite is NVIDIA's: `cuda_bindings/tests` (and `cuda_core/tests`) of
NVIDIA's cuda-python sources. No NVIDIA file is part of this project: `prepare` exports the
tests from a checkout or a bare clone of cuda-python that you name; `run` runs them twice in
one go, with NVIDIA's installed bindings and through `python -m hip_as_cuda`, and compares.

    python tools/cuda_suite.py prepare GIT_DIR DEST [--rev v13.1.1 --rev main]
    python tools/cuda_suite.py run DEST/v13.1.1 OUT [--part bindings|core|cython] [--workers N] [--test-timeout S]
                                              [--together] [-k EXPR]
    python tools/cuda_suite.py compare OUT

`run` writes OUT/nvidia.xml, OUT/alias.xml (JUnit), both logs and OUT/compare.txt: every test
NVIDIA's run passes and ours does not, with the first line of our failure.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]

# What each part runs: issue scope (NVML, nvvm, cufile and the Cython tests are other work).
PARTS = {
    "bindings": ("cuda_bindings/tests", ["test_cuda.py", "test_cudart.py", "test_interoperability.py",
                                         "test_kernelParams.py", "test_nvrtc.py", "test_utils.py",
                                         "test_nvjitlink.py", "test_graphics_apis.py"]),
    "core": ("cuda_core/tests", []),   # the whole folder
    # Cython compiled against each side's cydriver/cyruntime .pxd (NVIDIA's build_tests.py, in a
    # copy of the folder per side), then run
    "cython": ("cuda_bindings/tests/cython", ["test_cython.py"]),
}
EXPORTED = ["cuda_bindings/tests", "cuda_core/tests", "cuda_python_test_helpers"]


def prepare(git_dir: str, dest: str, revs: list[str]) -> None:
    for rev in revs:
        out = pathlib.Path(dest) / rev.replace("/", "_")
        out.mkdir(parents=True, exist_ok=True)
        have = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only", rev],
                              capture_output=True, text=True, check=True).stdout.split()
        paths = [p for p in EXPORTED if p.split("/")[0] in have]
        archive = subprocess.run(["git", "--git-dir", git_dir, "archive", rev, *paths],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "x", "-C", str(out)], input=archive, check=True)
        sha = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", rev],
                             capture_output=True, text=True, check=True).stdout.strip()
        (out / "REVISION").write_text(f"{rev} {sha}\n")
        print(f"{rev} ({sha[:10]}) -> {out}")


def outcomes(xml_path: pathlib.Path) -> dict[str, tuple[str, str]]:
    """test id -> (outcome, first line of the message) from a JUnit file."""
    res: dict[str, tuple[str, str]] = {}
    if not xml_path.exists():
        return res
    for case in ET.parse(xml_path).iter("testcase"):
        tid = f"{case.get('classname')}::{case.get('name')}"
        outcome, msg = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                msg = (el.get("message") or el.text or "").strip().splitlines()[:1]
                msg = msg[0][:300] if msg else ""
                break
        res[tid] = (outcome, msg)
    return res


def compare(out: pathlib.Path) -> int:
    nv, al = outcomes(out / "nvidia.xml"), outcomes(out / "alias.xml")

    def count(d):
        c: dict[str, int] = {}
        for o, _ in d.values():
            c[o] = c.get(o, 0) + 1
        return ", ".join(f"{v} {k}" for k, v in sorted(c.items())) or "nothing ran"

    lines = [f"NVIDIA's bindings: {count(nv)}", f"the alias:         {count(al)}"]
    regressions = sorted(t for t, (o, _) in nv.items() if o == "passed" and al.get(t, ("missing",))[0] != "passed")
    lines.append(f"passed with NVIDIA's, not through the alias: {len(regressions)}")
    for t in regressions:
        o, msg = al.get(t, ("not collected", ""))
        lines.append(f"  {t}: {o}: {msg}")
    extra = sorted(t for t, (o, _) in al.items() if o == "passed" and nv.get(t, ("missing",))[0] != "passed")
    if extra:
        lines.append(f"passed through the alias, not with NVIDIA's: {len(extra)}")
        lines += [f"  {t}: NVIDIA's {nv.get(t, ('not collected',))[0]}" for t in extra]
    text = "\n".join(lines)
    (out / "compare.txt").write_text(text + "\n")
    print(text)
    return 1 if regressions else 0


def run(suite: str, out: str, part: str, extra: list[str], timeout: int, workers: int = 0,
        test_timeout: int = 0, together: bool = False) -> int:
    suite_dir = pathlib.Path(suite).resolve()
    folder, files = PARTS[part]
    tests = suite_dir / folder
    outp = pathlib.Path(out).resolve()
    outp.mkdir(parents=True, exist_ok=True)
    targets = [f for f in files if (tests / f).exists()] or ["."]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    # -c: the suite's folder alone is the rootdir, our pytest configuration stays out of it
    common = ["-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider", "-p", "no:randomly",
              "--continue-on-collection-errors", "--rootdir", str(tests), "-c", os.devnull, *targets, *extra]
    if workers:      # pytest-xdist: cuda_core's ~3000 tests take NVIDIA's bindings ~20 minutes in one process
        common += ["-n", str(workers)]
    if test_timeout:   # pytest-timeout: a test that hangs fails, the run goes on
        common += ["--timeout", str(test_timeout)]
    runs = []
    for who, pre in (("nvidia", []), ("alias", ["-m", "hip_as_cuda"])):
        cmd = [sys.executable, *pre, *common, "--junitxml", str(outp / f"{who}.xml")]
        log = open(outp / f"{who}.log", "w")
        where = _cython_build(tests, outp / who, pre, env, log) if part == "cython" else tests
        proc = subprocess.Popen(cmd, cwd=where, env=env, stdout=log, stderr=subprocess.STDOUT)
        runs.append((proc, log))
        if not together:
            _finish(proc, log, timeout)
    for proc, log in runs:   # both at once with `together`: one GPU holds both runs' work
        _finish(proc, log, timeout)
    return compare(outp)


def _cython_build(tests: pathlib.Path, dest: pathlib.Path, pre: list[str], env: dict, log) -> pathlib.Path:
    """A copy of the Cython tests built against one side's .pxd files (NVIDIA's build_tests.py,
    which finds them from the cuda.bindings it imports: ours under `python -m hip_as_cuda`, with
    the CUDA headers our .pxd was generated from and the interop stand-ins on the include path)."""
    import shutil
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(tests, dest)
    benv = dict(env)
    if pre:
        sys.path.insert(0, str(ROOT))
        from build_support.cuda import alias_include
        inc = [alias_include(str(ROOT), log=lambda *a: None, fetch=False), str(ROOT / "hip_as_cuda" / "interop-stubs")]
        benv["CPLUS_INCLUDE_PATH"] = os.pathsep.join([i for i in inc if i] + [env.get("CPLUS_INCLUDE_PATH", "")])
    else:
        benv["CPLUS_INCLUDE_PATH"] = os.pathsep.join([os.path.join(env.get("CUDA_HOME", "/usr/local/cuda"), "include"),
                                                      env.get("CPLUS_INCLUDE_PATH", "")])
    log.write(f"cuda_suite: building the Cython tests in {dest}\n")
    log.flush()
    subprocess.run([sys.executable, *pre, "build_tests.py"], cwd=dest, env=benv, stdout=log, stderr=subprocess.STDOUT)
    return dest


def _finish(proc: subprocess.Popen, log, timeout: int) -> None:
    if proc.returncode is not None:
        return
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        log.write(f"\ncuda_suite: timed out after {timeout} s\n")
    log.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("git_dir")
    p.add_argument("dest")
    p.add_argument("--rev", action="append", default=None)
    r = sub.add_parser("run")
    r.add_argument("suite")
    r.add_argument("out")
    r.add_argument("--part", choices=sorted(PARTS), default="bindings")
    r.add_argument("--timeout", type=int, default=600, help="seconds for each run")
    r.add_argument("--workers", type=int, default=0, help="pytest-xdist workers for each run")
    r.add_argument("--test-timeout", type=int, default=0, help="pytest-timeout seconds for each test")
    r.add_argument("--together", action="store_true", help="NVIDIA's run and the alias's at the same time")
    c = sub.add_parser("compare")
    c.add_argument("out")
    a, extra = ap.parse_known_args(argv)
    if a.cmd == "prepare":
        prepare(a.git_dir, a.dest, a.rev or ["v13.1.1", "main"])
        return 0
    if a.cmd == "run":
        return run(a.suite, a.out, a.part, extra, a.timeout, a.workers, a.test_timeout, a.together)
    return compare(pathlib.Path(a.out))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
