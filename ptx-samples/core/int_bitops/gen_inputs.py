#!/usr/bin/env python3
"""Deterministic inputs for int_bitops (numpy default_rng, seed 101). Writes inputs/*.bin (raw little-endian)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(101)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

special32 = np.array([0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80000001, 0xFFFFFFFE,
                      0x00FF00FF, 0xDEADBEEF, 0x01000000, 0x00800000, 3, 7, 0x12345678, 0xF0F0F0F0], dtype=np.uint32)
a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
a[: len(special32)] = special32
b[: len(special32)] = special32[::-1]
a[16:32] = special32                      # every special against a random partner
# small values too, so division and 24-bit multiply see both regimes
a[32:64] = rng.integers(-300, 300, 32).astype(np.int64).astype(np.uint32)
b[32:64] = rng.integers(-20, 20, 32).astype(np.int64).astype(np.uint32)
s = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
s[:64] = (np.arange(64) * 0x0101 + (np.arange(64) << 8)).astype(np.uint32)   # pos 0..63 with len 0..127

special64 = np.array([0, 1, -1, 2**63 - 1, -2**63, -2**63 + 1, 7, -7, 10**18, -10**18, 2**32, -(2**32),
                      0x5555555555555555, -0x5555555555555555, 12345678901, -3], dtype=np.int64)
p = rng.integers(-2**63, 2**63 - 1, N, dtype=np.int64)
p[64:128] = rng.integers(-10**6, 10**6, 64)
p[: len(special64)] = special64
q = rng.integers(-2**63, 2**63 - 1, N, dtype=np.int64)
q[: len(special64)] = [3, -3, 2, -1, 3, 7, -7, 7, 1, -10**9, 2**33, 5, 2**62, -2, 1, 4]
q[64:128] = rng.integers(-1000, 1000, 64)
q[128:160] = rng.integers(-2**40, 2**40, 32)
q[q == 0] = 11
q[(p == -2**63) & (q == -1)] = 9

for name, arr in dict(a=a, b=b, s=s, p=p, q=q).items():
    arr.astype(arr.dtype.newbyteorder("<")).tofile(os.path.join(here, "inputs", f"{name}.bin"))
