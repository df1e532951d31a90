"""Run the array API standard's own test suite (data-apis/array-api-tests) against hip.tensor.

Each run is `python -m pytest array_api_tests` from the suite's folder for hip.tensor (--module:
another namespace, a baseline such as array_api_strict), one ARRAY_API_TESTS_VERSION and one
--hypothesis-seed, on pytest-xdist workers, as the suite ships it. The namespace under test is the
one the standard gives for that version, `asarray(0).__array_namespace__(api_version=VERSION)` (the
suite's ARRAY_API_TESTS_MODULE=exec('...') form): hip.tensor answers each version as it states it,
array_api_strict sets its version flag so. Nothing else is changed: no skips or xfails file, none of
its options to leave tests out. The suite needs hypothesis, ndindex and pytest-json-report (its
requirements.txt), and pytest-xdist for --workers; this checkout's hip is put first on PYTHONPATH.
Collecting needs a device already: the suite makes arrays at import (dtype_helpers' default_int).

    python tools/array_api_suite.py SUITE OUT [--version 2023.12 --version 2025.12] [--seed 0 ...]
                                    [--max-examples N] [--workers N] [--collect-only] [-- PYTEST_ARGS]

OUT gets VERSION-seedSEED.xml (JUnit) and .log per run, and summary.md: passed, failed, errors and
skipped per run, then every failing test id with the first line of its message.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

from cuda_suite import outcomes   # one JUnit reader for both suite runners (tools/ is on the path)

ROOT = pathlib.Path(__file__).resolve().parents[1]
NEEDS = ("hypothesis", "ndindex", "pytest_jsonreport")


def module_spec(module: str, version: str) -> str:
    """ARRAY_API_TESTS_MODULE for `module`'s namespace of array API `version` (the suite's exec form:
    a script setting `xp`, single quotes excluded)."""
    return (f"exec('import importlib; xp = importlib.import_module(\"{module}\").asarray(0)"
            f".__array_namespace__(api_version=\"{version}\")')")


def run(suite: pathlib.Path, out: pathlib.Path, version: str, seed: int, args) -> tuple[str, int]:
    tag = f"{version}-seed{seed}"
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=module_spec(args.module, version), ARRAY_API_TESTS_VERSION=version,
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    cmd = [sys.executable, "-m", "pytest", "array_api_tests", f"--hypothesis-seed={seed}",
           f"--max-examples={args.max_examples}", f"--junitxml={out / (tag + '.xml')}", "-p", "no:cacheprovider",
           "-rfE", *args.pytest_args]
    if args.workers > 1:
        cmd += ["-n", str(args.workers)]
    if args.collect_only:
        cmd += ["--collect-only", "-q"]
    with open(out / f"{tag}.log", "w") as log:
        log.write(" ".join(cmd) + "\n\n")
        log.flush()
        rc = subprocess.run(cmd, cwd=suite, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    return tag, rc


def summary(out: pathlib.Path, runs: list[tuple[str, int]]) -> str:
    lines = ["| run | exit | passed | failed | errors | skipped |", "| --- | --- | --- | --- | --- | --- |"]
    failing, notes = [], []
    for tag, rc in runs:
        res = outcomes(out / f"{tag}.xml")
        n = {k: sum(1 for o, _ in res.values() if o == k) for k in ("passed", "failed", "error", "skipped")}
        lines.append(f"| {tag} | {rc} | {n['passed']} | {n['failed']} | {n['error']} | {n['skipped']} |")
        failing += [f"- {tag} {tid}: {msg}" for tid, (o, msg) in sorted(res.items()) if o in ("failed", "error")]
        if not res:   # no test ran (collection only, or pytest stopped early): the log's last line
            last = (out / f"{tag}.log").read_text().strip().splitlines()[-1:]
            notes.append(f"- {tag}: {last[0] if last else 'no output'}")
    return "\n".join(lines + [""] + notes + ["", f"## failing ({len(failing)})", ""] + failing) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("suite", type=pathlib.Path, help="the array-api-tests checkout (its array-api submodule in place)")
    p.add_argument("out", type=pathlib.Path, help="folder for the JUnit files, logs and summary.md")
    p.add_argument("--version", action="append", help="ARRAY_API_TESTS_VERSION (repeat; default 2023.12 and 2025.12)")
    p.add_argument("--seed", action="append", type=int, help="hypothesis seed (repeat; default 0)")
    p.add_argument("--max-examples", type=int, default=100, help="hypothesis examples per test (the suite's default 100)")
    p.add_argument("--workers", type=int, default=1, help="pytest-xdist workers (-n)")
    p.add_argument("--module", default="hip.tensor", help="ARRAY_API_TESTS_MODULE (default hip.tensor)")
    p.add_argument("--collect-only", action="store_true", help="only collect: checks the setup")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    p.epilog = "Arguments after -- go to pytest as they are."
    args = p.parse_args(argv[:cut])
    args.pytest_args = argv[cut + 1:]
    missing = [m for m in NEEDS + (("xdist",) if args.workers > 1 else ()) if not _importable(m)]
    if missing:
        print(f"missing: {', '.join(missing)}; pip install -r {args.suite / 'requirements.txt'} pytest-xdist",
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    runs = [run(args.suite.resolve(), args.out.resolve(), v, s, args)
            for v in (args.version or ["2023.12", "2025.12"]) for s in (args.seed or [0])]
    text = summary(args.out, runs)
    (args.out / "summary.md").write_text(text)
    print(text)
    return max(rc for _, rc in runs)


def _importable(name: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(name) is not None


if __name__ == "__main__":
    sys.exit(main())
