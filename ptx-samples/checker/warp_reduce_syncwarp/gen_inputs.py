#!/usr/bin/env python3
"""Deterministic inputs for warp_reduce_syncwarp and warp_reduce_nosync (numpy default_rng, seed 7141):
in, i32 [2048], integers in [-100000, 100000]."""
import os
import numpy as np

rng = np.random.default_rng(7141)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-100000, 100000, 2048).astype(np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
