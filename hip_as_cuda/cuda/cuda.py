"""Legacy name (cuda-python 12.x programs): cuda.bindings.driver, with 12.x's signatures where 13.x
changed them."""
from cuda.bindings.driver import *  # noqa: F401,F403
from cuda.bindings import driver as _driver


def cuCtxCreate(*args):
    """cuCtxCreate(flags, dev) as 12.x takes it, or 13.x's cuCtxCreate(ctxCreateParams, flags, dev)."""
    if len(args) == 2:
        return _driver.cuCtxCreate(None, *args)
    return _driver.cuCtxCreate(*args)
