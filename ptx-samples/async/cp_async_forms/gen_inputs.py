#!/usr/bin/env python3
"""Deterministic inputs for cp_async_forms (numpy default_rng, seed 7101): 4 blocks x 13312 random source bytes."""
import os
import numpy as np

BLOCKS, SRC = 4, 13312
rng = np.random.default_rng(7101)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 256, BLOCKS * SRC, dtype=np.uint8).tofile(os.path.join(here, "inputs", "src.bin"))
