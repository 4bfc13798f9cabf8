#!/usr/bin/env python3
"""Deterministic inputs for smem_tree_reduce (numpy default_rng, seed 1010). Writes inputs/*.bin (raw little-endian)."""
import os
import numpy as np

N = 8 * 256 * 2
rng = np.random.default_rng(1010)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
xi = rng.integers(-2**20, 2**20, N).astype(np.int32)
xf = (rng.standard_normal(N) * np.exp2(rng.integers(-6, 7, N))).astype(np.float32)
xi.tofile(os.path.join(here, "inputs", "xi.bin"))
xf.tofile(os.path.join(here, "inputs", "xf.bin"))
