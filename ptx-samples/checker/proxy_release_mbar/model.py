#!/usr/bin/env python3
"""NumPy model of proxy_release_mbar: `python3 model.py OUTDIR` writes OUTDIR/out.bin (out = in*7 + CTA index)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) != 2:
    sys.exit("usage: model.py OUTDIR")
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<i4").astype(np.int64)
out = x * 7 + np.repeat(np.arange(2), 128)
os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<i4").tofile(os.path.join(sys.argv[1], "out.bin"))
