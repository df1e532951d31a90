"""Golden tests of the emitters: small headers in, every generated file checked in.

tests/codegen/headers/{demo,demoext}.h and the construct headers, with the specs in
tests/codegen/golden/specs/, go through the whole generator (and demo.h through the
NVIDIA layer, against tests/codegen/headers/cuda/cudemo.h); tests/codegen/golden/expected/
holds what it wrote. An emitter change shows its exact effect there in seconds.

    python -m tests.codegen.golden            compare; print the differences (exit 1 if any)
    python -m tests.codegen.golden --update   rewrite tests/codegen/golden/expected/ from the generator
"""
from __future__ import annotations

import difflib
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HEADERS = Path(__file__).resolve().parents[1] / "headers"   # tests/codegen/headers
SPECS = Path(__file__).resolve().parent / "specs"
EXPECTED = Path(__file__).resolve().parent / "expected"
LIBRARIES = ["constructs", "demo", "demoext", "lazy"]
NVIDIA_LIBRARIES = ["demo"]

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def generate(out_dir: Path) -> None:
    """Write every golden file under out_dir (the layout of tests/codegen/golden/expected/)."""
    from codegen.generate import generate_bindings, generate_layer
    generate_bindings(str(HEADERS), LIBRARIES, str(out_dir), spec_dir=str(SPECS), write_ignore_file=False)
    generate_layer(str(HEADERS), [str(HEADERS / "cuda")], NVIDIA_LIBRARIES, str(out_dir / "nvidia"),
                   spec_dir=str(SPECS), nv_spec_dir=str(SPECS / "nvidia"))


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def differences(out_dir: Path) -> list[str]:
    """Unified diffs, expected -> generated, of every file that differs, is missing or is new."""
    out = []
    want, got = _files(EXPECTED), _files(out_dir)
    for rel in sorted(want | got):
        a = (EXPECTED / rel).read_text().splitlines(keepends=True) if rel in want else []
        b = (out_dir / rel).read_text().splitlines(keepends=True) if rel in got else []
        if a != b:
            out.append("".join(difflib.unified_diff(a, b, f"expected/{rel}", f"generated/{rel}")))
    return out


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(out)
        diffs = differences(out)
        if "--update" in argv:
            shutil.rmtree(EXPECTED, ignore_errors=True)
            shutil.copytree(out, EXPECTED)
            print(f"tests/codegen/golden: {len(diffs)} file(s) changed; expected/ rewritten "
                  f"({len(_files(EXPECTED))} files)")
            return 0
    sys.stdout.write("".join(diffs))
    print(f"tests/codegen/golden: {len(diffs)} file(s) differ"
          + (" (python -m tests.codegen.golden --update accepts them)" if diffs else ""), file=sys.stderr)
    return 1 if diffs else 0
