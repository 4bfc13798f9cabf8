#!/usr/bin/env python3
"""NumPy model of pipeline_roles: python3 model.py OUTDIR writes OUTDIR/out.bin."""
import os
import sys
import numpy as np

B, TILES, NC = 4, 8, 96
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64).reshape(B, TILES, NC, 4)

out = np.zeros((B, TILES, NC), np.uint64)
for b in range(B):
    acc = np.arange(NC, dtype=np.uint64)
    for i in range(TILES):
        a = x[b, i]
        n = np.roll(x[b, i], -1, axis=0)        # n[c] = piece (c + 1) % 96
        acc = (acc * 3 + (a[:, 0] ^ n[:, 1]) - (a[:, 2] >> 4) + n[:, 3]) & M
        out[b, i] = acc
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
