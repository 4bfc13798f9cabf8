#!/usr/bin/env python3
"""Deterministic inputs for cp_async_mbarrier_arrive (numpy default_rng, seed 7105):
in: 4 blocks x 4 batches x 128 x 4 uint32; in2: 4 blocks x 2 batches x 128 int32 in [-10^6, 10^6]."""
import os
import numpy as np

B, NB, T = 4, 4, 128
rng = np.random.default_rng(7105)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, B * NB * T * 4, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
rng.integers(-10**6, 10**6 + 1, B * 2 * T).astype(np.int32).tofile(os.path.join(here, "inputs", "in2.bin"))
