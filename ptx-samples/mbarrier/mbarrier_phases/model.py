#!/usr/bin/env python3
"""NumPy model of mbarrier_phases: python3 model.py OUTDIR writes OUTDIR/vals.bin and OUTDIR/obs.bin."""
import os
import sys
import numpy as np

B, PH, T = 4, 5, 128
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").astype(np.uint64).reshape(B, PH, T)

t = np.arange(T, dtype=np.uint64)
vals = np.zeros((B, PH, T), np.uint64)
for b in range(B):
    d = x[b]
    vals[b, 0] = (d[0][(t + 37) % T] * 3 + 1) & M
    vals[b, 1, :96] = d[1][(5 * t[:96] + 3) % T] ^ t[:96]             # warp 3 dropped: writes nothing
    vals[b, 2, :96] = (d[2][95 - t[:96]] + 1000 * t[:96]) & M
    vals[b, 3, :96] = (d[3][(t[:96] + 48) % 96] - 7 * t[:96]) & M
    vals[b, 4] = (d[4][64 + ((t * 3) & 63)] + t) & M

# test_wait results fixed by the bar.sync ordering; rec[5] is mbarrier.pending_count (2 pending arrivals)
rec = [0, 1, 1, 1, 0, 2, 0, 0, 1, 0, 0, 1, 1, 0, M, M]
obs = np.tile(np.array(rec, np.uint64), B)

os.makedirs(sys.argv[1], exist_ok=True)
vals.astype("<u4").tofile(os.path.join(sys.argv[1], "vals.bin"))
obs.astype("<u4").tofile(os.path.join(sys.argv[1], "obs.bin"))
