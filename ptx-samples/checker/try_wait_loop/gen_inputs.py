#!/usr/bin/env python3
"""Deterministic inputs for try_wait_loop (numpy default_rng, seed 3121): in, i32 [512] (2 CTAs x 256)."""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
np.random.default_rng(3121).integers(-100000, 100000, 512, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
