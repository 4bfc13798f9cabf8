#!/usr/bin/env python3
"""Deterministic inputs for leader_multicast (numpy default_rng, seed 3107): in, u32 [3072] = 2 clusters x 6 tiles x 256."""
import os
import numpy as np

rng = np.random.default_rng(3107)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, 3072, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
