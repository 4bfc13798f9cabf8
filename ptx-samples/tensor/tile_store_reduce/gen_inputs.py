#!/usr/bin/env python3
"""Deterministic inputs for tile_store_reduce (numpy default_rng, seed 9002). Writes inputs/*.bin.
acc: i32 [24,12] in [-1000, 1000]; facc: f32 [24,12] multiples of 0.25 in [-64, 64] (every sum exact);
mx: u32 [24,12] random bits. out and vol start as { fill } constants in launch.toml."""
import os
import numpy as np

rng = np.random.default_rng(9002)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
arrays = {
    "acc": rng.integers(-1000, 1001, 24 * 12).astype(np.int32),
    "facc": (rng.integers(-256, 257, 24 * 12) * 0.25).astype(np.float32),
    "mx": rng.integers(0, 2**32, 24 * 12, dtype=np.uint64).astype(np.uint32),
}
for name, arr in arrays.items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
