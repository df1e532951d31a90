"""warn_if_cuda_major_version_mismatch: is the driver older than the CUDA API the bindings follow?

On the alias the "driver" is HIP: cuDriverGetVersion reports hipDriverGetVersion's answer. On
ROCm that is HIP's own version (ROCm 5.2's: 50221153), far above any CUDA major, so the check
passes; the same code compares whatever HIP reports on other platforms.
"""
import os
from _thread import allocate_lock   # not `threading`: it costs milliseconds to import

_major_version_compatibility_checked = False   # once per process (tests reset it)
_lock = allocate_lock()


def warn_if_cuda_major_version_mismatch() -> None:
    """Warn (UserWarning, once per process) when the driver's CUDA major version is below the
    major version of the CUDA API these bindings follow (`driver.CUDA_VERSION`). Set
    CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING to silence it. RuntimeError when the driver's
    version cannot be asked."""
    global _major_version_compatibility_checked
    with _lock:
        if _major_version_compatibility_checked:
            return
        _major_version_compatibility_checked = True
    if os.environ.get("CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING"):
        return
    from cuda.bindings import driver   # here: importing utils must not import the driver
    built = driver.CUDA_VERSION // 1000
    err, version = driver.cuDriverGetVersion()
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"Failed to query CUDA driver version: {err}")
    running = version // 1000
    if built > running:
        import warnings
        warnings.warn(f"cuda-bindings was built for CUDA major version {built}, but the driver only supports up "
                      f"to CUDA {running}: some calls may fail. Update the driver, or use cuda-bindings for "
                      f"CUDA {running}. (CUDA_PYTHON_DISABLE_MAJOR_VERSION_WARNING=1 silences this warning.)",
                      UserWarning, stacklevel=3)
