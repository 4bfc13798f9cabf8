#!/usr/bin/env python3
"""Deterministic inputs for bulk_multicast (numpy default_rng, seed 9005): src, u32 [2 clusters x 4 chunks x 256]."""
import os
import numpy as np

rng = np.random.default_rng(9005)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(1, 2**32, 2048, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "src.bin"))
