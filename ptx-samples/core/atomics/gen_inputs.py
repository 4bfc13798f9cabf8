#!/usr/bin/env python3
"""Deterministic inputs for atomics (numpy default_rng, seed 606). Writes inputs/*.bin (raw little-endian).
vf holds multiples of 0.25 in [-16, 16] and vd multiples of 2^-10 below 2^10 in magnitude, so every partial
sum of the 512 values is exact and the float/double atomicAdd results do not depend on the order.
g_init/gl_init give the identity of each reduction (INT_MAX for min, -inf bits for the float max, ...)."""
import os
import numpy as np

N = 512
rng = np.random.default_rng(606)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

vi = rng.integers(-1000, 1001, N).astype(np.int32)
vu = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
vf = (rng.integers(-64, 65, N) * 0.25).astype(np.float32)
vd = rng.integers(-2**20, 2**20, N) * 2.0**-10

g = np.zeros(64, np.uint32)
g[1] = 0x7FFFFFFF          # signed min identity
g[2] = 0x80000000          # signed max identity
g[3] = 0xFFFFFFFF          # unsigned min identity
g[5] = 0xFFFFFFFF          # and identity
g[10] = 5                  # atomicDec starts at 5
g[15] = 1                  # product identity
g[16] = 0xFF800000         # -inf: float max identity
g[21] = 0x7FFFFFFF
g[22] = 0x80000000
g[23] = 0xFFFFFFFF
g[7] = 0x13579BDF
gl = np.zeros(8, np.uint64)
gl[1] = 0x7FFFFFFFFFFFFFFF
gl[3] = 0x0123456789ABCDEF

for name, arr in dict(vi=vi, vu=vu, vf=vf, vd=vd, g_init=g, gl_init=gl).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
