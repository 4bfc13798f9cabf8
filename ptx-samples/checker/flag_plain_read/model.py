#!/usr/bin/env python3
"""NumPy model of flag_plain_read: `python3 model.py OUTDIR` writes OUTDIR/res.bin and OUTDIR/flag.bin."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
res = np.zeros(16, dtype=np.int64)
flag = np.zeros(2, dtype=np.int64)
for p in range(2):
    tag = 1000 + p
    pay = [x[4 * p + j] * 5 + j for j in range(4)]
    res[8 * p: 8 * p + 4] = pay
    res[8 * p + 4] = sum(pay) + tag
    res[8 * p + 5] = tag
    flag[p] = tag
os.makedirs(sys.argv[1], exist_ok=True)
res.astype("<i4").tofile(os.path.join(sys.argv[1], "res.bin"))
flag.astype("<i4").tofile(os.path.join(sys.argv[1], "flag.bin"))
