"""The GPU benchmarks' contract on a machine without one: each says why it cannot run and exits 77
(what tools/gpu_check.sh and CI read as "not run"), so a broken import or header in a benchmark
shows up here rather than on the next GPU machine."""
from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPU_BENCHMARKS = sorted(glob.glob(os.path.join(REPO, "benchmarks", "gpu", "*.py")))


def test_there_are_gpu_benchmarks():
    assert len(GPU_BENCHMARKS) >= 5


@pytest.mark.nodevice(reason="with a GPU the benchmark would run in full")
@pytest.mark.parametrize("script", GPU_BENCHMARKS, ids=os.path.basename)
def test_gpu_benchmark_exits_77_saying_why(script):
    r = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert r.returncode == 77, r.stdout[-2000:] + r.stderr[-2000:]
    out = r.stdout.strip().splitlines()
    assert out and out[-1].startswith("skipped: "), r.stdout[-2000:]
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
