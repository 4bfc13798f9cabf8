#!/usr/bin/env python3
"""NumPy model of packed_flags_exit: `python3 model.py OUTDIR` writes OUTDIR/out.bin, i32 [6] (3 per CTA)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64).reshape(2, 8, 32)
out = []
for b in range(2):
    w = x[b, :6]
    # C's v % 3 == 0 is the same test as Python's for negative v
    mult = (w % 3 == 0)
    out += [w.sum(), mult.sum(), mult.any(axis=1).sum()]
os.makedirs(sys.argv[1], exist_ok=True)
np.array(out, dtype="<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
