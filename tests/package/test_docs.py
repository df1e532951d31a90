"""The Sphinx docs build without a warning (-W): a broken table or reference fails here, not in review."""
from __future__ import annotations

import pytest

from conftest import ROOT, run_python


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is installed by ./build_pkgs.sh --run-tests")
    r = run_python("", args=["-m", "sphinx", "-E", "-W", "-q", "-b", "html", str(ROOT / "docs"), str(tmp_path)],
                   timeout=300)
    assert r.returncode == 0, f"sphinx exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert (tmp_path / "index.html").is_file()
