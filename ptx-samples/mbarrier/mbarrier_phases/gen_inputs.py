#!/usr/bin/env python3
"""Deterministic inputs for mbarrier_phases (numpy default_rng, seed 7106): 4 blocks x 5 phases x 128 uint32."""
import os
import numpy as np

B, PH, T = 4, 5, 128
rng = np.random.default_rng(7106)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, B * PH * T, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
