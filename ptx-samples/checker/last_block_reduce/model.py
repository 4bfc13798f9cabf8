#!/usr/bin/env python3
"""NumPy model of last_block_reduce: `python3 model.py OUTDIR` writes OUTDIR/partial.bin, result.bin, ticket.bin."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
partial = x.reshape(8, 64).sum(axis=1)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
partial.astype("<i4").tofile(os.path.join(out, "partial.bin"))
np.array([partial.sum()], dtype="<i4").tofile(os.path.join(out, "result.bin"))
np.zeros(1, dtype="<u4").tofile(os.path.join(out, "ticket.bin"))
