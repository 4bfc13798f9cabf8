#!/usr/bin/env python3
"""NumPy model of spinlock: `python3 model.py OUTDIR` writes OUTDIR/acc.bin ({sum, 16, max}) and OUTDIR/lock.bin (0)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
np.array([x.sum(), len(x), x.max()], dtype="<i4").tofile(os.path.join(out, "acc.bin"))
np.zeros(1, dtype="<i4").tofile(os.path.join(out, "lock.bin"))
