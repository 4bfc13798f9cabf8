#!/usr/bin/env python3
"""Deterministic inputs for atomics2 (numpy default_rng, seed 1204). Writes inputs/*.bin (raw little-endian).
fmx starts as [-inf, +inf, 0...]; ghead as -1; gnext and sorted as -7 (unwritten slots are visible);
g64[1] as all ones (and identity)."""
import os
import numpy as np

N = 512
rng = np.random.default_rng(1204)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

key = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
val = rng.uniform(-1000, 1000, N).astype(np.float32)
val[:64] = -np.abs(val[:64])              # block 0's first warps all negative
val[256:512:37] = np.float32(-0.0)
fmx = np.zeros(16, np.float32); fmx[0] = -np.inf; fmx[1] = np.inf
ghead = np.full(1, -1, np.int32)
gnext = np.full(N, -7, np.int32)
sorted_ = np.zeros(3 * N, np.int32); sorted_[:N] = -7; sorted_[2 * N:] = -7
g64 = np.zeros(4, np.uint64); g64[1] = 2**64 - 1
ctr = np.zeros(8, np.uint32); ctr[2] = 0xFFFFFFFF
for name, arr in dict(key=key, val=val, fmx=fmx, ghead=ghead, gnext=gnext, sorted=sorted_, g64=g64, ctr=ctr).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
