#!/usr/bin/env python3
"""Deterministic inputs for pipeline_roles (numpy default_rng, seed 7104): 4 blocks x 8 tiles x 96 x 4 uint32."""
import os
import numpy as np

B, TILES, TILE = 4, 8, 96
rng = np.random.default_rng(7104)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, B * TILES * TILE * 4, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
