#!/usr/bin/env python3
"""Deterministic inputs for local_recursion (numpy default_rng, seed 808). Writes inputs/in.bin (u32)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(808)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
v = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
v[:8] = [0, 1, 12, 0xFFFFFFFF, 0x80000000, 0x0000FFFF, 0xFFFF0000, 46368]
v.tofile(os.path.join(here, "inputs", "in.bin"))
