"""PEP 517 backend: setuptools', with our settings as config settings.

`pip install . -C libs=hip,hiprtc -C rocm-path=/opt/rocm -C jobs=4 -C nvidia=no` sets the
environment variables setup.py reads (HIP_PYTHON_LIBS, ROCM_PATH, HIP_PYTHON_JOBS, HIP_PYTHON_NVIDIA).
"""
import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook we do not wrap)

SETTINGS = {"libs": "HIP_PYTHON_LIBS", "rocm-path": "ROCM_PATH", "include": "HIP_PYTHON_INCLUDE", "jobs": "HIP_PYTHON_JOBS",
            "nvidia": "HIP_PYTHON_NVIDIA"}


def _apply(config_settings):
    """Move our keys into the environment; hand setuptools the rest."""
    rest = {}
    for key, value in (config_settings or {}).items():
        if key in SETTINGS:
            os.environ[SETTINGS[key]] = str(value)
        else:
            rest[key] = value
    return rest or None


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _setuptools.build_wheel(wheel_directory, _apply(config_settings), metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _setuptools.build_editable(wheel_directory, _apply(config_settings), metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    return _setuptools.build_sdist(sdist_directory, _apply(config_settings))
