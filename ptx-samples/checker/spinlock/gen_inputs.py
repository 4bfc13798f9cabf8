#!/usr/bin/env python3
"""Deterministic inputs for spinlock (numpy default_rng, seed 3111): in, i32 [16], one value per warp."""
import os
import numpy as np

rng = np.random.default_rng(3111)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(1, 1000000, 16, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
