#!/usr/bin/env python3
"""Deterministic inputs for dsmem_final_sync (numpy default_rng, seed 3122): in, i32 [256] (4 CTAs x 64)."""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
np.random.default_rng(3122).integers(-1000000, 1000000, 256, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
