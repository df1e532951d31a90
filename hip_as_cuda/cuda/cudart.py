"""Legacy name (cuda-python 12.x programs): cuda.bindings.runtime."""
from cuda.bindings.runtime import *  # noqa: F401,F403
