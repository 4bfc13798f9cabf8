#!/usr/bin/env python3
"""NumPy model of splitk_reduce: `python3 model.py OUTDIR` writes OUTDIR/out.bin, i32 [256]."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
out = x.reshape(4, 256).sum(axis=0)
out[::32] += 1 + 2 + 3 + 4
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
