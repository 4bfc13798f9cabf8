#!/usr/bin/env python3
"""Deterministic inputs for tile_load_dump (numpy default_rng, seed 9001). Writes inputs/*.bin (raw little-endian).
Every element is nonzero and no float is a NaN, so out-of-bound fill (zero or NaN) is always distinguishable
from loaded data. Padding elements (beyond dims[0] in a row, between planes) are filled too: a load that
wrongly read them would show."""
import os
import numpy as np

rng = np.random.default_rng(9001)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)


def nonzero_f32(n):
    x = rng.integers(1, 1 << 20, n) * rng.choice([-1.0, 1.0], n) / 1024.0   # nonzero multiples of 2^-10
    return x.astype(np.float32)


arrays = {
    "v1": nonzero_f32(100),                                           # m1d: f32 [100]
    "g2": nonzero_f32(64 * 30),                                       # m2d/m64/mnan: f32 [50,30], rows of 64
    "h": (rng.integers(1, 2000, 104 * 40) * rng.choice([-1, 1], 104 * 40) / 64.0).astype(np.float16),  # f16 [100,40], rows of 104
    "w": rng.integers(1, 2**32, 400, dtype=np.uint64).astype(np.uint32),   # u32 [20,20]
    "c": rng.integers(1, 256, 48 * 9 * 6).astype(np.uint8),           # u8 [37,9,6], rows of 48, planes of 432
    "q": nonzero_f32(8 * 3 * 4 * 2 * 3),                              # f32 [8,3,4,2,3]
}
for name, arr in arrays.items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
