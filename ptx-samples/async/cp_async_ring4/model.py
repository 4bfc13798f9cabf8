#!/usr/bin/env python3
"""NumPy model of cp_async_ring4: python3 model.py OUTDIR writes OUTDIR/out.bin (uint32 arithmetic, wraps)."""
import os
import sys
import numpy as np

B, TILES, T = 4, 12, 128
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64).reshape(B, TILES, T, 4)

out = np.zeros((B, TILES, T), np.uint64)
for b in range(B):
    acc = np.zeros(T, np.uint64)
    for i in range(TILES):
        a = x[b, i]
        n = np.roll(x[b, i], -1, axis=0)          # n[t] = element of thread (t + 1) % T
        v = (a[:, 0] * 3 - n[:, 1] + (a[:, 2] ^ n[:, 3]) + i) & M   # uint64 wraps mod 2^64, then mod 2^32
        acc = (acc + v) & M
        out[b, i] = (v + (acc >> 3)) & M
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
