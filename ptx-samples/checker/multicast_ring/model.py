#!/usr/bin/env python3
"""NumPy model of multicast_ring: `python3 model.py OUTDIR` writes OUTDIR/out.bin, u32 [4 CTAs x 7 tiles x 64]."""
import os
import sys
import numpy as np

S, TILE, NT, B = 3, 512, 7, 4
here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64)
out = np.zeros((B, NT, 64), dtype=np.uint64)
for b in range(B):
    for k in range(NT):
        tile = x[(b // 2) * NT * TILE + k * TILE:][:TILE]
        v = tile ^ np.roll(tile, -7)                       # tile[j] ^ tile[(j + 7) % 512]
        out[b, k] = v.reshape(TILE // 64, 64).sum(axis=0) & 0xFFFFFFFF
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
