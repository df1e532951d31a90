"""xfail_if_mempool_oom: NVIDIA's tests mark a memory-pool test expected to fail where the
allocation fails for want of address space on a Windows MCDM device. No device the alias runs
on is one (MCDM is a driver model of NVIDIA's Windows driver, and the alias has no NVML to ask),
so it never marks anything: the failure stays visible."""
from cuda.bindings import driver, runtime


def is_windows_mcdm_device(device=0) -> bool:
    """Whether `device` (an ordinal, or an object with `device_id`) is a Windows MCDM device:
    never on the alias (see the module's docstring)."""
    return False


def xfail_if_mempool_oom(err_or_exc, api_name=None, device=0) -> None:
    """pytest.xfail where `err_or_exc` (a CUresult / cudaError_t, or an exception) is an
    out-of-memory failure on a Windows MCDM device; otherwise return. `api_name` names the
    call in the reason; a non-str second argument is the device (NVIDIA's signature takes both)."""
    if api_name is not None and not isinstance(api_name, str):
        api_name, device = None, api_name
    oom = (err_or_exc in (driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, runtime.cudaError_t.cudaErrorMemoryAllocation)
           or "CUDA_ERROR_OUT_OF_MEMORY" in str(err_or_exc))
    if not oom:
        return
    try:
        mcdm = is_windows_mcdm_device(device)
    except Exception:   # a failed MCDM check must not hide the test's own failure
        return
    if mcdm:
        import pytest
        pytest.xfail(f"{api_name + ' ' if api_name else ''}could not reserve VA for mempool operations on Windows MCDM")
