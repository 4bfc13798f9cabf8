#!/usr/bin/env python3
"""NumPy model of mbarrier_tx_negative: python3 model.py OUTDIR writes OUTDIR/out.bin."""
import os
import sys
import numpy as np

B, NT, TILE = 4, 6, 512
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
a = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64).reshape(B, NT, TILE)
a2 = np.fromfile(os.path.join(here, "inputs", "in2.bin"), dtype="<u4").astype(np.uint64).reshape(B, NT, TILE)

out = np.zeros((B, NT, TILE), np.uint64)
for b in range(B):
    for i in range(NT):
        buf = a[b, i].copy()                       # i % 3 == 0: the whole tile from `in`
        if i % 3 == 1:
            buf[TILE // 2:] = a2[b, i, TILE // 2:]     # second half from `in2`
        elif i % 3 == 2:
            buf[TILE // 4:TILE // 2] = a2[b, i, TILE // 4:TILE // 2]   # second quarter from `in2`
        out[b, i] = (buf * 5 + (buf[::-1] >> 7) + i) & M
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
