"""Where the ROCm headers and runtime come from: the system's, else Debian's in build/.

    python -m build_support.rocm headers [--suite sid] [--rocm-path DIR]   prints the include dir
    python -m build_support.rocm runtime                                  prints the lib dir to use

Fetched packages go into <repo>/build/rocm-<suite> (never into the system); which packages is
read from the specs (`debian: dev / runtime`), so a new library's spec is all it takes.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys

from . import debian

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_SUITE = "bookworm"   # ROCm 5.2: it runs on a machine without a GPU (hipErrorNoDevice)


def _specs():
    sys.path.insert(0, ROOT) if ROOT not in sys.path else None
    from codegen import spec
    return [spec.load(lib) for lib in spec.all_libraries()]


def has_headers(include: str) -> bool:
    return os.path.isfile(os.path.join(include, "hip", "hip_runtime_api.h"))


def prefix(suite: str, root: str = ROOT) -> str:
    return os.path.join(root, "build", f"rocm-{suite}")


def find_headers(rocm_path: str = "") -> str | None:
    """The include dir of `rocm_path`, $ROCM_PATH, /opt/rocm or /usr/include: the first that has HIP."""
    for base in (rocm_path, os.environ.get("ROCM_PATH", ""), "/opt/rocm"):
        if base and has_headers(os.path.join(base, "include")):
            return os.path.realpath(os.path.join(base, "include"))
    return "/usr/include" if has_headers("/usr/include") else None


def fetch_headers(suite: str = "sid", root: str = ROOT) -> str:
    """Debian `suite`'s ROCm -dev packages unpacked into build/rocm-<suite>; the include dir.
    Packages of the specs whose headers are missing there are fetched, once each (a spec added
    since the last fetch gets its headers; a package the suite lacks is not asked for again)."""
    pfx = prefix(suite, root)
    include = os.path.join(pfx, "usr", "include")
    missing = [s for s in _specs() if not all(os.path.isfile(os.path.join(include, h)) for h in s.headers)]
    asked = set(debian.requested(pfx))
    packages = list(dict.fromkeys(p for s in missing for p in s.debian_dev if p not in asked))
    if packages:
        try:
            debian.fetch(suite, packages, pfx)
        except debian.FetchError:
            if not has_headers(include):
                raise
    return include


def headers(rocm_path: str = "", root: str = ROOT, log=print, include: str = "") -> str:
    """The headers to generate from: `include` when given, else the installed ones, else
    sid's fetched into build/."""
    if include:
        if not has_headers(include):
            raise debian.FetchError(f"no hip/hip_runtime_api.h in {include}")
        return os.path.realpath(include)
    found = find_headers(rocm_path)
    if found:
        return found
    if rocm_path:
        raise debian.FetchError(f"no hip/hip_runtime_api.h under {rocm_path}/include")
    include = os.path.join(prefix("sid", root), "usr", "include")
    if not has_headers(include):
        log(f"no ROCm headers installed: fetching Debian sid's ROCm -dev packages into {prefix('sid', root)}")
    return fetch_headers("sid", root)


def system_runtime() -> str | None:
    """The HIP runtime the loader would find without our help (a name or path), or None."""
    hip = next(s for s in _specs() if s.library == "hip")
    names = [n for _, ns in sorted(hip.library_names.items(), reverse=True) for n in ns]
    dirs = [os.path.join(os.environ["ROCM_PATH"], "lib")] if os.environ.get("ROCM_PATH") else []
    for name in names:
        for cand in [os.path.join(d, name) for d in dirs + ["/opt/rocm/lib"]] + [name]:
            if os.sep in cand and not os.path.exists(cand):
                continue
            try:
                ctypes.CDLL(cand, mode=os.RTLD_LOCAL)
            except OSError:
                continue
            return cand
    return None


def multiarch_libdir(pfx: str) -> str:
    try:
        triplet = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
    except OSError:
        triplet = ""
    return os.path.join(pfx, "usr", "lib", triplet or "x86_64-linux-gnu")


def fetch_runtime(root: str = ROOT, log=print) -> str:
    """Bookworm's ROCm 5.2 runtime (and what apt resolves for it that this system lacks) unpacked
    into build/rocm-runtime; the lib dir to put on LD_LIBRARY_PATH."""
    pfx = os.path.join(root, "build", "rocm-runtime")
    libdir = multiarch_libdir(pfx)
    packages = list(dict.fromkeys(p for s in _specs() for p in s.debian_runtime))
    if not os.path.exists(os.path.join(pfx, "PACKAGES")):
        log(f"no ROCm runtime installed: fetching Debian {RUNTIME_SUITE}'s ({', '.join(packages)}) into {pfx}")
        debian.fetch(RUNTIME_SUITE, packages, pfx, with_dependencies=True)
    return libdir


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m build_support.rocm", description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["headers", "runtime"])
    ap.add_argument("--suite", default="", help="headers: fetch this Debian suite's (sid, trixie, bookworm)")
    ap.add_argument("--rocm-path", default="")
    a = ap.parse_args(argv)

    def log(msg):
        print(f"build_support.rocm: {msg}", file=sys.stderr)
    try:
        if a.what == "headers":
            print(fetch_headers(a.suite) if a.suite else
                  headers(a.rocm_path, log=log, include=os.environ.get("HIP_PYTHON_INCLUDE", "")))
        else:
            found = system_runtime()
            if found:
                log(f"the system's ROCm runtime: {found}")
                print("")
            else:
                print(fetch_runtime(log=log))
    except debian.FetchError as e:
        log(f"cannot fetch: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
