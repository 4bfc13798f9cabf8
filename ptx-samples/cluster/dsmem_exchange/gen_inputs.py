#!/usr/bin/env python3
"""Deterministic inputs for dsmem_exchange (numpy default_rng, seed 9004): vals, u32 [8 CTAs x 64]."""
import os
import numpy as np

rng = np.random.default_rng(9004)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, 512, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "vals.bin"))
