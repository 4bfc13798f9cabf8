#!/usr/bin/env python3
"""Writes x.bin and y.bin (numpy seed 20261124): see source.cu."""
import os
import numpy as np

rng = np.random.default_rng(20261124)
special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 0.5, 126.0, -126.0, -126.5, -149.0, 127.9, 128.0,
           -150.0, 1e-38, -1e-38, 1e-45, 3.4e38, -3.4e38, np.pi, -np.pi, 2 * np.pi, 1e5, -1e5, 1e30, 8.0, 7.99, 0.0039,
           0.0039 / 2, 88.7, -87.3, 1e-20]
bits = [int(np.float32(v).view(np.uint32)) for v in special]
bits += [int(v) for v in rng.integers(0, 1 << 32, 3000, dtype=np.uint64)]          # every exponent
bits += [int(np.float32(v).view(np.uint32)) for v in rng.uniform(-10, 10, 2000)]  # the usual range
bits += [int(np.float32(v).view(np.uint32)) for v in rng.uniform(-200, 200, 1000)]
bits += [int(np.float32(v).view(np.uint32)) for v in np.exp(rng.uniform(-100, 100, 1000)) * rng.choice([-1, 1], 1000)]
bits += [int(v) for v in rng.integers(1, 1 << 23, 500)] + [int(v) | 0x80000000 for v in rng.integers(1, 1 << 23, 500)]
x = np.array(bits[:8192] + [0] * max(0, 8192 - len(bits)), dtype=np.uint32)
y = x[rng.permutation(8192)]
here = os.path.dirname(os.path.abspath(__file__))
x.tofile(os.path.join(here, "x.bin"))
y.tofile(os.path.join(here, "y.bin"))
