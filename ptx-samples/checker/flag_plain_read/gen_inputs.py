#!/usr/bin/env python3
"""Deterministic inputs for flag_plain_read (numpy default_rng, seed 3102): in, i32 [8], 4 payload values per pair."""
import os
import numpy as np

rng = np.random.default_rng(3102)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-100000, 100000, 8, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
