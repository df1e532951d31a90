"""Legacy name (cuda-python 12.x programs): cuda.bindings.nvrtc."""
from cuda.bindings.nvrtc import *  # noqa: F401,F403
