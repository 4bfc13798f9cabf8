#!/usr/bin/env python3
"""Deterministic inputs for sgemm_tiled (numpy default_rng, seed 1212): A 64x48, B 48x64, C 64x64, f32 row-major."""
import os
import numpy as np

M, N, K = 64, 64, 48
rng = np.random.default_rng(1212)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
a = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float32)
b = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
c = rng.standard_normal((M, N)).astype(np.float32)
for name, arr in dict(a=a, b=b, c=c).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
