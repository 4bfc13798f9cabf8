#!/usr/bin/env python3
"""Deterministic inputs for named_barrier_ring (numpy default_rng, seed 3109): in, i32 [768] = 2 CTAs x 6 rounds x 64."""
import os
import numpy as np

rng = np.random.default_rng(3109)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-1000000, 1000000, 768, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
