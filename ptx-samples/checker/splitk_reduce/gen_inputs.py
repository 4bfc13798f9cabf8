#!/usr/bin/env python3
"""Deterministic inputs for splitk_reduce (numpy default_rng, seed 3108): in, i32 [1024] (4 partial tiles of 256)."""
import os
import numpy as np

rng = np.random.default_rng(3108)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-1000000, 1000000, 1024, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
