"""Build a small Cython module (a test's probe) against this checkout and import it."""
from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
import sysconfig
from pathlib import Path


@contextlib.contextmanager
def built(d: Path, name: str, pyx: str, cython_include: Path | list[Path], cflags=()):
    """Cythonize `pyx` as module `name` in `d` (cimports resolved under `cython_include`, one
    folder or a list), compile it with gcc (`cflags` added), and yield the imported module (on
    sys.path meanwhile)."""
    (d / f"{name}.pyx").write_text(pyx)
    folders = cython_include if isinstance(cython_include, list) else [cython_include]
    r = subprocess.run([sys.executable, "-m", "cython", "-3", *(a for f in folders for a in ("-I", str(f))),
                        f"{name}.pyx"],
                       cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, f"cython failed:\n{r.stderr[-4000:]}"
    so = d / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O0", "-w", f"-I{sysconfig.get_paths()['include']}", *cflags,
                        f"{name}.c", "-o", str(so)], cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, f"gcc failed:\n{r.stderr[-4000:]}"
    sys.path.insert(0, str(d))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(d))
