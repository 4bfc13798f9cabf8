#!/usr/bin/env python3
"""NumPy model of cp_async_mbarrier_arrive: python3 model.py OUTDIR writes OUTDIR/out.bin and OUTDIR/out2.bin."""
import os
import sys
import numpy as np

B, NB, T = 4, 4, 128
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64).reshape(B, NB, T, 4)
y = np.fromfile(os.path.join(here, "inputs", "in2.bin"), dtype="<i4").astype(np.int64).reshape(B, 2, T)

t = np.arange(T)
out = np.zeros((B, NB, T), np.uint64)
for b in range(B):
    for i in range(NB):
        n = x[b, i][(t + 1) % T]
        m = x[b, i][T - 1 - t]
        out[b, i] = ((n[:, 0] ^ m[:, 3]) + 7 * n[:, 1] - (m[:, 2] >> 5) + ((n[:, 3] << 2) & M) + i) & M
out2 = np.zeros((B, 2, T), np.int64)
for b in range(B):
    for j in range(2):
        out2[b, j] = y[b, j][T - 1 - t] * 3 + y[b, j][(t + 5) % T] - j   # |values| <= 4e6: no overflow
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
out2.astype("<i4").tofile(os.path.join(sys.argv[1], "out2.bin"))
