#!/usr/bin/env python3
"""Deterministic inputs for proxy_release_mbar (numpy default_rng, seed 3104): in, i32 [256] (2 CTAs x 128)."""
import os
import numpy as np

rng = np.random.default_rng(3104)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-1000000, 1000000, 256, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
