#!/usr/bin/env python3
"""Deterministic inputs for tile_multicast (numpy default_rng, seed 9003). Writes inputs/*.bin.
a: f32 [40,24] nonzero multiples of 2^-8; hb: f16 [72,20] nonzero multiples of 1/64 (zero fill stays visible)."""
import os
import numpy as np

rng = np.random.default_rng(9003)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
a = (rng.integers(1, 1 << 16, 40 * 24) * rng.choice([-1.0, 1.0], 40 * 24) / 256.0).astype(np.float32)
hb = (rng.integers(1, 2000, 72 * 20) * rng.choice([-1.0, 1.0], 72 * 20) / 64.0).astype(np.float16)
a.tofile(os.path.join(here, "inputs", "a.bin"))
hb.tofile(os.path.join(here, "inputs", "hb.bin"))
