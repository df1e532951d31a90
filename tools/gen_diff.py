"""Every generated source, and the differences a change makes to it (generated code is not committed).

    python tools/gen_diff.py generate OUT      the three generations of this tree into OUT:
                                               OUT/hip (the bindings), OUT/nvidia (the HIP-on-CUDA
                                               layer), OUT/alias (the `cuda` alias)
    python tools/gen_diff.py diff A B          unified diff of two such folders (exit 1 if they differ)
    python tools/gen_diff.py [--base REV]      generate REV (default HEAD, in a temporary worktree)
                                               and this working tree, and diff them

Headers, by default those the build fetches under build/: the ROCm headers
(build/rocm-sid/usr/include), the CUDA headers of the layer (build/cuda-pypi/include) and of the
alias (build/cuda-pypi/alias-13.3/include). The output of a revision is kept in
build/gen_diff/<commit> and reused.
"""
from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCM = os.path.join(ROOT, "build", "rocm-sid", "usr", "include")
CUDA = os.path.join(ROOT, "build", "cuda-pypi", "include")
ALIAS_CUDA = os.path.join(ROOT, "build", "cuda-pypi", "alias-13.3", "include")
# The header folders under build/ a temporary worktree links to (never build/ itself).
HEADER_DIRS = ("rocm-sid", "cuda-pypi")


def generate(out: str, rocm: str, cuda: str, alias_cuda: str) -> None:
    """The three generations of this tree into out/{hip,nvidia,alias}."""
    sys.path.insert(0, ROOT)
    from codegen.bridge import spec as bridgespec
    from codegen.generate import available, generate_alias, generate_bindings, generate_layer
    libs, _ = available(rocm)
    generate_bindings(rocm, libs, os.path.join(out, "hip"))
    layer = [l for l in bridgespec.all_libraries() if l in libs
             and all(os.path.exists(os.path.join(cuda, h)) for h in bridgespec.load(l).cuda_headers)]
    generate_layer(rocm, [cuda], layer, os.path.join(out, "nvidia"))
    generate_alias(alias_cuda, rocm, None, os.path.join(out, "alias"))


def _files(root: str) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


def differences(a: str, b: str) -> list[str]:
    """Unified diffs, a -> b, of every file that differs, is missing or is new."""
    out = []
    fa, fb = _files(a), _files(b)
    for rel in sorted(fa | fb):
        la = open(os.path.join(a, rel)).read().splitlines(keepends=True) if rel in fa else []
        lb = open(os.path.join(b, rel)).read().splitlines(keepends=True) if rel in fb else []
        if la != lb:
            out.append("".join(difflib.unified_diff(la, lb, f"a/{rel}", f"b/{rel}")))
    return out


def generate_revision(rev: str, args) -> str:
    """REV's generated output (build/gen_diff/<commit>), from a temporary worktree of REV that runs
    its own tools/gen_diff.py."""
    sha = subprocess.run(["git", "-C", ROOT, "rev-parse", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    out = os.path.join(ROOT, "build", "gen_diff", sha)
    if os.path.isdir(out):
        return out
    tmp = tempfile.mkdtemp(prefix="gen_diff-")
    tree = os.path.join(tmp, "tree")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-q", tree, sha], check=True)
    try:
        os.makedirs(os.path.join(tree, "build"))
        for d in HEADER_DIRS:
            src = os.path.realpath(os.path.join(ROOT, "build", d))
            if os.path.isdir(src):
                os.symlink(src, os.path.join(tree, "build", d))
        subprocess.run([sys.executable, os.path.join(tree, "tools", "gen_diff.py"), "generate", out + ".tmp",
                        "--rocm-include", args.rocm_include, "--cuda-include", args.cuda_include,
                        "--alias-include", args.alias_include], check=True, cwd=tree)
        os.rename(out + ".tmp", out)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tree], check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python tools/gen_diff.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="compare", choices=["generate", "diff", "compare"])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--base", default="HEAD", help="the revision to compare the working tree with")
    ap.add_argument("--rocm-include", default=ROCM)
    ap.add_argument("--cuda-include", default=CUDA, help="CUDA headers of the HIP-on-CUDA layer")
    ap.add_argument("--alias-include", default=ALIAS_CUDA, help="CUDA headers of the `cuda` alias")
    a = ap.parse_args(argv)
    a.rocm_include, a.cuda_include, a.alias_include = map(os.path.abspath, (a.rocm_include, a.cuda_include,
                                                                            a.alias_include))
    if a.command == "generate":
        if len(a.paths) != 1:
            ap.error("generate OUT")
        generate(os.path.abspath(a.paths[0]), a.rocm_include, a.cuda_include, a.alias_include)
        return 0
    if a.command == "diff":
        if len(a.paths) != 2:
            ap.error("diff A B")
        base, new = a.paths
    else:
        base = generate_revision(a.base, a)
        new = os.path.join(ROOT, "build", "gen_diff", "work")   # this tree's, kept for a look
        shutil.rmtree(new, ignore_errors=True)
        generate(new, a.rocm_include, a.cuda_include, a.alias_include)
    diffs = differences(base, new)
    sys.stdout.write("".join(diffs))
    print(f"gen_diff: {len(diffs)} file(s) differ between {base} and {new}", file=sys.stderr)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
