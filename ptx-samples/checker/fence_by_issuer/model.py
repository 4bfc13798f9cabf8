#!/usr/bin/env python3
"""NumPy model of fence_by_issuer: `python3 model.py OUTDIR` writes OUTDIR/out.bin (out = in*2 + 1)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
os.makedirs(sys.argv[1], exist_ok=True)
(x * 2 + 1).astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
