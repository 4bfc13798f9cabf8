#!/usr/bin/env python3
"""Deterministic inputs for multicast_ring (numpy default_rng, seed 3106): in, u32 [7168] = 2 clusters x 7 tiles x 512."""
import os
import numpy as np

rng = np.random.default_rng(3106)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, 7168, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
