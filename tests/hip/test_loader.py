"""The shared loader's behaviour that needs no ROCm: a missing library, and what it says."""
from __future__ import annotations

from conftest import run_python


def test_missing_library_is_not_searched_again():
    """A library that cannot load raises the same error on later calls without searching again
    (each search stats and dlopens every candidate), until what decides the search changes."""
    r = run_python("""
        import os
        os.environ["ROCM_PATH"] = "/nonexistent/rocm"
        os.environ.pop("HIP_PYTHON_HIPBLAS_LIBRARY", None)
        os.environ["HIP_PLATFORM"] = "amd"
        from hip import hipblas, LibraryNotFoundError
        searched = []
        real_exists = os.path.exists
        os.path.exists = lambda p: searched.append(p) or real_exists(p)
        import ctypes

        def call():
            try:
                hipblas.hipblasCreate()
            except LibraryNotFoundError as e:
                return e
            raise AssertionError("loaded")
        first = call()
        n = len(searched)
        print("first:", n > 0)
        second = call()
        print("again:", len(searched) - n)
        print("same:", second.tried == first.tried, second is not first)
        os.environ["HIP_PYTHON_HIPBLAS_LIBRARY"] = "/nonexistent/b/libhipblas.so"
        third = call()
        print("changed:", third.tried[0][0])
    """)
    assert r.returncode == 0, r.stderr
    assert "first: True" in r.stdout        # the first call searched ($ROCM_PATH/lib, /opt/rocm/lib)
    assert "again: 0" in r.stdout
    assert "same: True True" in r.stdout
    assert "changed: /nonexistent/b/libhipblas.so" in r.stdout
