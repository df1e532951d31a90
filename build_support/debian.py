"""Debian packages fetched into a private prefix: never installed into the system.

The archive is the one this system's own apt sources name (no mirror is written into our
files). apt runs with private lists and cache under a temporary directory, so the system's
sources, lists and dpkg database are untouched.

    python -m build_support.debian SUITE DEST PACKAGE...   [--with-dependencies]
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCES = "/etc/apt/sources.list"
SOURCES_D = "/etc/apt/sources.list.d"


class FetchError(RuntimeError):
    pass


def _entries():
    """(uri, suites, components, signed_by) of every enabled 'deb' entry in the system's sources."""
    one_line = [SOURCES] + sorted(glob.glob(os.path.join(SOURCES_D, "*.list")))
    for path in one_line:
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.split("#", 1)[0].strip()
            m = re.match(r"deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)", line)
            if m:
                opts = dict(o.split("=", 1) for o in (m.group(1) or "").strip("[] \t").split() if "=" in o)
                yield m.group(2), [m.group(3)], m.group(4).split(), opts.get("signed-by", "")
    for path in sorted(glob.glob(os.path.join(SOURCES_D, "*.sources"))):
        try:
            text = open(path).read()
        except OSError:
            continue
        for stanza in re.split(r"\n\s*\n", text):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[0].isspace():
                    continue
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
            if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
                continue
            for uri in fields.get("uris", "").split():
                yield uri, fields.get("suites", "").split(), fields.get("components", "").split(), \
                    fields.get("signed-by", "")


def codename() -> str:
    try:
        with open("/etc/os-release") as f:
            m = re.search(r"^VERSION_CODENAME=\"?([\w-]*)", f.read(), re.M)
    except OSError:
        return ""
    return m.group(1) if m else ""


def archive() -> tuple[str, str]:
    """(uri, signed_by) of the system's Debian archive: the entry serving this release's own
    suite with component main (not security or updates). FetchError when there is none."""
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise FetchError("not a Debian system (no apt-get/dpkg-deb)")
    release = codename()
    for uri, suites, components, signed_by in _entries():
        if release and release in suites and "main" in components and "security" not in uri \
                and "debian" in uri.rstrip("/").rsplit("/", 1)[-1]:
            return uri, signed_by
    raise FetchError(f"no Debian archive for '{release or '?'}' (main) in the system's apt sources")


def requested(dest: str) -> list[str]:
    """The package names fetch() was asked for into `dest` (those the suite lacks included)."""
    try:
        with open(os.path.join(dest, "REQUESTED")) as f:
            return f.read().split()
    except OSError:
        return []


def _note_requested(dest: str, packages: list[str]) -> None:
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "REQUESTED"), "a") as f:
        f.write("\n".join(packages) + "\n")


def fetch(suite: str, packages: list[str], dest: str, with_dependencies: bool = False) -> list[str]:
    """Download `packages` of `suite` from the system's Debian archive and unpack them into
    `dest` (listed in dest/PACKAGES; the names asked for in dest/REQUESTED); return the .deb
    names. Packages the suite lacks are left out (names differ per suite). With
    `with_dependencies`, also what apt resolves for them that this system lacks (resolved
    against the system's dpkg status; nothing is installed)."""
    uri, signed_by = archive()
    work = tempfile.mkdtemp(prefix="hip-debian-")
    try:
        for d in ("lists/partial", "cache/archives/partial", "prefs"):
            os.makedirs(os.path.join(work, d))
        opt = f"[signed-by={signed_by}] " if signed_by.startswith("/") else ""
        with open(os.path.join(work, "sources.list"), "w") as f:
            f.write(f"deb {opt}{uri} {suite} main\n")
        status = "/var/lib/dpkg/status" if with_dependencies else os.path.join(work, "status")
        if not with_dependencies:
            open(status, "w").close()
        opts = ["-o", f"Dir::Etc::SourceList={work}/sources.list", "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::Etc::PreferencesParts={work}/prefs", "-o", f"Dir::State::Lists={work}/lists",
                "-o", f"Dir::Cache={work}/cache", "-o", f"Dir::State::Status={status}",
                "-o", "Debug::NoLocking=1", "-qq"]

        def apt(*args, tool="apt-get"):
            r = subprocess.run([tool, *opts, *args], cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                raise FetchError(f"{tool} {' '.join(args[:2])} ({suite}): {r.stderr.strip()[-600:]}")
            return r.stdout
        apt("update")
        have = [p for p in packages
                if subprocess.run(["apt-cache", *opts, "show", p], capture_output=True).returncode == 0]
        if not have:
            _note_requested(dest, packages)
            raise FetchError(f"{suite} has none of {', '.join(packages)}")
        if with_dependencies:
            apt("install", "--download-only", "--no-install-recommends", "-y", *have)
            debs_dir = os.path.join(work, "cache", "archives")
        else:
            apt("download", *have)
            debs_dir = work
        debs = sorted(glob.glob(os.path.join(debs_dir, "*.deb")))
        os.makedirs(dest, exist_ok=True)
        for deb in debs:
            subprocess.run(["dpkg-deb", "-x", deb, dest], check=True)
        names = [os.path.basename(d) for d in debs]
        with open(os.path.join(dest, "PACKAGES"), "a") as f:   # a later fetch adds to the same prefix
            f.write("\n".join(names) + "\n")
        _note_requested(dest, packages)
        return names
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m build_support.debian", description=__doc__.split("\n\n")[0])
    ap.add_argument("suite")
    ap.add_argument("dest")
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--with-dependencies", action="store_true")
    a = ap.parse_args(argv)
    try:
        names = fetch(a.suite, a.packages, a.dest, a.with_dependencies)
    except FetchError as e:
        print(f"build_support.debian: {e}", file=sys.stderr)
        return 1
    print(f"{len(names)} packages from {a.suite} unpacked into {a.dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
