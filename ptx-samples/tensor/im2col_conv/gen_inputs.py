#!/usr/bin/env python3
"""Deterministic inputs for im2col_conv (numpy default_rng, seed 2024): the NHWC image batch x
(2 x 6 x 8 x 16 f32) and the filters w (8 x 3 x 3 x 16 f32), nonzero multiples of 2^-8 (so a padding
zero is never mistaken for data)."""
import os
import numpy as np

rng = np.random.default_rng(2024)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)


def nonzero_f32(n):
    return (rng.integers(1, 1 << 12, n) * rng.choice([-1.0, 1.0], n) / 256.0).astype(np.float32)


nonzero_f32(2 * 6 * 8 * 16).tofile(os.path.join(here, "inputs", "x.bin"))
nonzero_f32(8 * 9 * 16).tofile(os.path.join(here, "inputs", "w.bin"))
