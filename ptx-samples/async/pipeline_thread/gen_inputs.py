#!/usr/bin/env python3
"""Deterministic inputs for pipeline_thread (numpy default_rng, seed 7103):
in: 4 blocks x 8 tiles x 64 threads x 4 uint32; in2: 4 blocks x 2 stages x 64 x 16 bytes."""
import os
import numpy as np

B, TILES, T = 4, 8, 64
rng = np.random.default_rng(7103)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, B * TILES * T * 4, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "in.bin"))
rng.integers(0, 256, B * 2 * T * 16, dtype=np.uint8).tofile(os.path.join(here, "inputs", "in2.bin"))
