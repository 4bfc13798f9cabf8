#!/usr/bin/env python3
"""Deterministic inputs for cvt_select (numpy default_rng, seed 1111). Writes inputs/*.bin (raw little-endian),
including 1- and 2-byte buffers (i8, u8, i16, u16)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1111)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

l = rng.integers(-2**63, 2**63 - 1, N, dtype=np.int64)
l[64:128] >>= rng.integers(0, 63, 64)
l[:16] = [0, -1, 1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, -32769, 2**31, -2**31 - 1, 2**63 - 1]
l[16:24] = [-2**63, 2**53 + 1, 2**24 + 1, 0x7FFFFF8000000000, -0x00FFFFFF00000001, 0xFFFFFF7FFFFFFFFF - 2**64, 2**32 - 1, 2**40 + 2**16]
c8 = rng.integers(-128, 128, N).astype(np.int8)
u8 = rng.integers(0, 256, N).astype(np.uint8)
s16 = rng.integers(-32768, 32768, N).astype(np.int16)
u16 = rng.integers(0, 65536, N).astype(np.uint16)
c8[:4] = [-128, 127, -1, 0]; u8[:4] = [255, 0, 201, 200]
s16[:4] = [-32768, 32767, -1, 0]; u16[:4] = [65535, 0, 32768, 1]

spec = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 1.0000001, 0.99999994, 2.0, -0.25,
                 1e-45, -1e-45, 3.4028235e38, 0.75], dtype=np.float32)
f = (rng.standard_normal(N) * 2).astype(np.float32)
g = (rng.standard_normal(N) * 2).astype(np.float32)
ii, jj = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
f[:128] = spec[ii.ravel()[::2]]
g[:128] = spec[jj.ravel()[::2] + (ii.ravel()[::2] % 2)]
g[128:144] = f[128:144]            # equal pairs
d = rng.standard_normal(N) * np.exp2(rng.integers(-140, 140, N))
d[:12] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e300, -1e300, 1e-300, 3.4028235677973366e38, 3.4028235677973366e38 * (1 + 2**-30), 2.0**-149, 2.0**-150]
for name, arr in dict(l=l, c8=c8, u8=u8, s16=s16, u16=u16, f=f, g=g, d=d).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
