#!/usr/bin/env python3
"""Deterministic inputs for control_flow (numpy default_rng, seed 1205). Writes inputs/*.bin (raw little-endian).
trip holds 0..1000 per lane (with 0 and 1000 present in every warp). Lane 0 of each warp decides with bit 4
whether the warp (not warp 0) returns before the barrier: set for warps 1 and 3 of block 0, warp 2 of block 1."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1205)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

v = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
v[64:96] = rng.integers(-100, 100, 32)
leave = {32, 96, 128 + 64}
for w in range(N // 32):
    l0 = w * 32
    v[l0] = (v[l0] | 0x10) if l0 in leave else (v[l0] & ~0x10)
trip = rng.integers(0, 1001, N).astype(np.int32)
trip[::32] = 0
trip[1::32] = 1000
v.tofile(os.path.join(here, "inputs", "in.bin"))
trip.tofile(os.path.join(here, "inputs", "trip.bin"))
