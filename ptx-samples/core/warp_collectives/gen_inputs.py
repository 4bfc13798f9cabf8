#!/usr/bin/env python3
"""Deterministic inputs for warp_collectives (numpy default_rng, seed 505). Writes inputs/*.bin (raw little-endian).
Warp 0: mixed signs with 1234567 at lane 9; warp 1: one common value of v>>12 (match.all true, all nonzero);
warp 2: all negative; warp 3: small values with zeros and repeats."""
import os
import numpy as np

rng = np.random.default_rng(505)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

v = np.empty(128, np.int32)
v[0:32] = rng.integers(-2**31, 2**31, 32, dtype=np.int64)
v[9] = 1234567
v[32:64] = (0x1234 << 12) + rng.integers(0, 4096, 32)
v[64:96] = rng.integers(-2**31, 0, 32, dtype=np.int64)
v[96:128] = rng.integers(-3, 8, 32)
w = rng.integers(-2**63, 2**63 - 1, 128, dtype=np.int64)
v.tofile(os.path.join(here, "inputs", "in.bin"))
w.tofile(os.path.join(here, "inputs", "in64.bin"))
