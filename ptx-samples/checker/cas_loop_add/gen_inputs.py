#!/usr/bin/env python3
"""Deterministic inputs for cas_loop_add (numpy default_rng, seed 3120): in, f64 [512], integers in [-1000, 1000]."""
import os
import numpy as np

rng = np.random.default_rng(3120)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-1000, 1000, 512).astype(np.float64).tofile(os.path.join(here, "inputs", "in.bin"))
