"""What git tracks is the product, and the product speaks of the product only: no absolute path of
one machine (a home directory, a checkout under a work directory) in a tracked file, and no working
notes tracked (design goes into docs/, scratch notes stay untracked)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

# An absolute path into one machine: a user's home (`/home/<user>/`, macOS's `/Users/<user>/`, root's
# home) or the work tree a checkout was made in. System paths a build legitimately names (the
# /usr and /opt prefixes, /dev/null, /tmp as a scratch default) are not in the pattern, so no
# allow-list is needed. The lookbehind leaves relative paths (a `src` folder's `work` subfolder)
# and paths under a variable (`$ROOT`, `${X}`, `~`) alone, but not a compiler's `-I`/`-L` flag.
# Written as alternatives without their slashes so that this file does not match itself.
_MACHINE_ROOTS = ("home/[A-Za-z0-9_.-]+/", "Users/[A-Za-z0-9_.-]+/", r"root\b", r"work\b", r"workspaces?\b")
MACHINE_PATH = re.compile(r"(?:(?<![\w.~$})])|(?<=-[IL]))/(?:" + "|".join(_MACHINE_ROOTS) + ")")

# Working notes by name. docs/ holds the Sphinx sources (reStructuredText): a Markdown file there is
# not part of the built docs, so it is a note. A leading underscore marks a private or scratch
# Markdown file anywhere, and these names are what notes are called.
NOTE_NAMES = re.compile(r"(?i)^(contract|notes?|todo|scratch|findings)(\.[a-z]+)?$")


def _tracked() -> list[str]:
    """The tracked files of this checkout (paths relative to ROOT); skips where there is none."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True, text=True)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT.resolve():
        pytest.skip("not a git checkout of the project (an unpacked sdist, say)")
    r = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [p for p in r.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file or one deleted from the work tree."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def test_no_machine_paths_in_tracked_files():
    found = []
    for rel in _tracked():
        text = _text(ROOT / rel)
        if text is None or not MACHINE_PATH.search(text):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATH.search(line):
                found.append(f"{rel}:{n}: {line.strip()[:160]}")
    assert not found, ("absolute paths of one machine in tracked files (write them relative to the "
                       "checkout, or through a variable such as $ROOT):\n  " + "\n  ".join(found[:50])
                       + (f"\n  ... and {len(found) - 50} more" if len(found) > 50 else ""))


def test_no_working_notes_tracked():
    notes = []
    for rel in _tracked():
        p = Path(rel)
        if NOTE_NAMES.match(p.name):
            notes.append(f"{rel}: named as a note")
        elif p.suffix.lower() == ".md" and p.name.startswith("_"):
            notes.append(f"{rel}: a private (underscored) Markdown file")
        elif p.suffix.lower() == ".md" and p.parts[0] == "docs":
            notes.append(f"{rel}: Markdown in docs/, which Sphinx does not build")
    assert not notes, ("working notes are tracked (design belongs in docs/*.rst, scratch notes stay "
                       "untracked):\n  " + "\n  ".join(notes))
