#!/usr/bin/env python3
"""Deterministic inputs for last_block_reduce (numpy default_rng, seed 3110): in, i32 [512] (8 CTAs x 64)."""
import os
import numpy as np

rng = np.random.default_rng(3110)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-100000, 100000, 512, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
