#!/usr/bin/env python3
"""Deterministic inputs for int_hash (numpy default_rng, seed 1201). Writes inputs/*.bin (raw little-endian)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1201)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

special = np.array([0, 1, 2**64 - 1, 2**63, 2**63 - 1, 2**32 - 1, 2**32, 0x80000000, 0xFFFFFFFF80000000,
                    0xFFFFFFFFFFFFFFF9, 7, 0x8000000080000000, 0xDEADBEEFCAFEBABE, 1000000007, 2**64 - 1000000007,
                    0x00000000FFFF0000], dtype=np.uint64)
ab = rng.integers(0, 2**64, 2 * N, dtype=np.uint64)
ab[0:32:2] = special
ab[1:32:2] = special[::-1]
ab[32:64:2] = special
ab[96:160] = rng.integers(-5000, 5000, 64).astype(np.int64).astype(np.uint64)   # small signed values
s = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
s[:64] = np.arange(64, dtype=np.uint32) * 0x01010101 + (np.arange(64, dtype=np.uint32) << 6)
s[64:72] = [0, 1, 8, 31, 32, 63, 64, 0xFFFFFFFF]
ab.tofile(os.path.join(here, "inputs", "in.bin"))
s.tofile(os.path.join(here, "inputs", "sh.bin"))
