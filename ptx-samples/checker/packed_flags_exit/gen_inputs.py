#!/usr/bin/env python3
"""Deterministic inputs for packed_flags_exit (numpy default_rng, seed 3112): in, i32 [512] (2 CTAs x 256).
Values are small multiples of 3 or 7 plus noise so that some warps see a multiple of 3 and some do not."""
import os
import numpy as np

rng = np.random.default_rng(3112)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
x = rng.integers(-50000, 50000, 512, dtype=np.int64)
x = np.where(x % 3 == 0, x + 1, x)                 # no multiple of 3 ...
hit = rng.random(512) < 0.02                       # ... except a few
x = np.where(hit, 3 * rng.integers(-10000, 10000, 512), x)
x.astype("<i4").tofile(os.path.join(here, "inputs", "in.bin"))
