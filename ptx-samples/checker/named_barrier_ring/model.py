#!/usr/bin/env python3
"""NumPy model of named_barrier_ring: `python3 model.py OUTDIR` writes OUTDIR/out.bin, i32 [768]."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64).reshape(12, 64)
out = np.roll(x, -1, axis=1) * 2                      # row (b, it): 2 * row[(c + 1) % 64]
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
