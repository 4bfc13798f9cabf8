#!/usr/bin/env python3
"""Deterministic inputs for warp_specialized_ring (numpy default_rng, seed 7110): 4 blocks x 10 tiles x 384 uint32."""
import os
import numpy as np

B, NT, TILE = 4, 10, 384
rng = np.random.default_rng(7110)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, B * NT * TILE, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
