"""Legacy name (cuda-python 12.x programs): cuda.bindings.driver."""
from cuda.bindings.driver import *  # noqa: F401,F403
