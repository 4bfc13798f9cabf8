#!/usr/bin/env python3
"""NumPy model of leader_multicast: `python3 model.py OUTDIR` writes OUTDIR/out.bin, u32 [4 CTAs x 6 tiles x 64]."""
import os
import sys
import numpy as np

TILE, NT, B = 256, 6, 4
here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64)
out = np.zeros((B, NT, 64), dtype=np.uint64)
for b in range(B):
    for k in range(NT):
        tile = x[(b // 2) * NT * TILE + k * TILE:][:TILE]
        out[b, k] = tile.reshape(4, 64).sum(axis=0) & 0xFFFFFFFF
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
