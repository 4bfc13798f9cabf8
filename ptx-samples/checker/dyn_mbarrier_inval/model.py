#!/usr/bin/env python3
"""NumPy model of dyn_mbarrier_inval: `python3 model.py OUTDIR` writes OUTDIR/out.bin, i32 [2 x 260]."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64).reshape(2, 256)
out = np.zeros((2, 260), dtype=np.int64)
for b in range(2):
    out[b, :256] = np.roll(x[b], -5) + 1
    out[b, 256] = 7 + b
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
