#!/usr/bin/env python3
"""Deterministic inputs for warp_sync (numpy default_rng, seed 1203). Writes inputs/*.bin (raw little-endian).
Warp 0 of block 0 has all lanes positive, warp 1 all negative, the rest mixed; trip counts are taken mod 23."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1203)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

v = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
v[0:32] = np.abs(v[0:32] // 2) + 1
v[32:64] = -np.abs(v[32:64] // 2) - 1
v[64:96] = rng.integers(-50, 50, 32)
v[96:100] = [4, 5, 6, 7]                  # a full quad with (v & 3) != 0 ... partly
trip = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
trip[128:160] = 0                         # a warp that never enters the loop
trip[160:192] = 22                        # a warp where every lane runs the same count
v.tofile(os.path.join(here, "inputs", "in.bin"))
trip.tofile(os.path.join(here, "inputs", "trip.bin"))
