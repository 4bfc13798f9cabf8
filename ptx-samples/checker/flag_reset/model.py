#!/usr/bin/env python3
"""NumPy model of flag_reset: `python3 model.py OUTDIR` writes OUTDIR/out.bin (out[2b] = in[b]*3+1, out[2b+1] = 0)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
out = np.zeros(8, dtype=np.int64)
out[0::2] = x * 3 + 1
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
