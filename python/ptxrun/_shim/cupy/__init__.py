"""`import cupy` answered by `ptxrun.cupy`: `python -m ptxrun.cupy SCRIPT` puts this folder first
on PYTHONPATH, so an unmodified CuPy script (and the Python subprocesses it starts) runs on
ptxrun."""

import sys

import ptxrun.cupy as _cupy

sys.modules[__name__] = _cupy
