#!/usr/bin/env python3
"""Deterministic inputs for flag_reset (numpy default_rng, seed 3101): in, i32 [4], one value per CTA."""
import os
import numpy as np

rng = np.random.default_rng(3101)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-100000, 100000, 4, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
