#!/usr/bin/env python3
"""Deterministic inputs for cp_async_ring4 (numpy default_rng, seed 7102): 4 blocks x 12 tiles x 128 x 4 uint32."""
import os
import numpy as np

B, TILES, T = 4, 12, 128
rng = np.random.default_rng(7102)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, B * TILES * T * 4, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
