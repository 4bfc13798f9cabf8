#!/usr/bin/env python3
"""NumPy model of warp_specialized_ring: python3 model.py OUTDIR writes OUTDIR/out.bin and OUTDIR/sums.bin."""
import os
import sys
import numpy as np

B, NT, TILE, NC = 4, 10, 384, 96
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64).reshape(B, NT, TILE)

j = np.arange(TILE)
out = np.zeros((B, NT, TILE), np.uint64)
sums = np.zeros((B, NT, 3), np.uint64)
for b in range(B):
    for k in range(NT):
        v = (x[b, k] * 3 + (x[b, k][(j + 1) % TILE] ^ k)) & M
        out[b, k] = v
        c = j % NC                                   # element j is handled by consumer thread c = j % 96
        warp = c // 32                               # consumer warp 0..2 (block warps 1..3)
        for w in range(3):
            sums[b, k, w] = int((v[warp == w] >> 4).sum()) & M
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
sums.astype("<u4").tofile(os.path.join(sys.argv[1], "sums.bin"))
