#!/usr/bin/env python3
"""Deterministic inputs for dyn_mbarrier_inval (numpy default_rng, seed 3113): in, i32 [512] (2 CTAs x 256)."""
import os
import numpy as np

rng = np.random.default_rng(3113)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-1000000, 1000000, 512, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
