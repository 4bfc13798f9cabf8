#!/usr/bin/env python3
"""NumPy model of st_async_release: `python3 model.py OUTDIR` writes OUTDIR/out.bin (2 clusters x 64 ints)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
out = np.zeros(128, dtype=np.int64)
for c in range(2):
    pay = x[128 * c: 128 * c + 128] * 3 + 1
    out[64 * c: 64 * c + 64] = pay[:64] + pay[64:] + x[256 + c]
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
