#!/usr/bin/env python3
"""Deterministic inputs for soa_vector (numpy default_rng, seed 1208). Writes inputs/*.bin (raw little-endian)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1208)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

out = dict(
    px=rng.uniform(-10, 10, N).astype(np.float32),
    py=rng.uniform(-10, 10, N).astype(np.float32),
    pz=rng.uniform(-10, 10, N).astype(np.float32),
    pm=rng.uniform(0.1, 5, N).astype(np.float32),
    f4=rng.uniform(-100, 100, 4 * N).astype(np.float32),
    i4=rng.integers(-2**31, 2**31, 4 * N, dtype=np.int64).astype(np.int32),
    d2=rng.uniform(-1e6, 1e6, 2 * N),
    rec=rng.integers(0, 256, 7 * N + 1, dtype=np.int64).astype(np.uint8),     # 1793 bytes
    sh=rng.integers(-32768, 32768, 3 * N + 1, dtype=np.int64).astype(np.int16),  # 769 shorts
)
for name, arr in out.items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
