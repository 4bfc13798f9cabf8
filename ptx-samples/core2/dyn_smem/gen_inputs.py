#!/usr/bin/env python3
"""Deterministic inputs for dyn_smem (numpy default_rng, seed 1209). Writes inputs/*.bin (raw little-endian).
in: quarters in [-64, 64] so the f32 scan is exact whatever the order; cfg[0]: byte offset of the double
region (a multiple of 8, leaving room for 128 doubles below 8192 - 512 bytes); cfg[1]: a marker."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1209)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

x = (rng.integers(-256, 257, N) * 0.25).astype(np.float32)
cfg = np.array([2056, 0x5eed], np.int32)
x.tofile(os.path.join(here, "inputs", "in.bin"))
cfg.tofile(os.path.join(here, "inputs", "cfg.bin"))
