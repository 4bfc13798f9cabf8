#!/usr/bin/env python3
"""Deterministic inputs for half_bf16 (numpy default_rng, seed 404). Writes inputs/*.bin (raw little-endian f32).
Specials for fp16 (max 65504, overflow threshold 65520, subnormals down to 2^-24 and below, exact ties)
and for bf16 (ties at bit 16, FLT_MAX, NaN, infinities), then random values around 1 and over fp16's range."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(404)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

def bits32(v):
    return np.array(v, dtype=np.uint32).view(np.float32)

spec = np.concatenate([
    np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 65504.0, -65504.0, 65519.996, 65520.0, -65520.0,
              70000.0, 1e10, 2.0**-24, -2.0**-24, 2.0**-25, 2.0**-25 * 1.0000001, 3 * 2.0**-26, 2.0**-14, 2.0**-14 - 2.0**-25,
              1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-11 + 2.0**-20, -(1.0 + 2.0**-11), 2049.0, 2051.0, -4097.0,
              0.1, 1.0 / 3.0, 2.0**-30, 2.0**-133], dtype=np.float32),
    bits32([0x3F808000, 0x3F818000, 0x3F808001, 0xBF808000, 0x7F7FFFFF, 0xFF7F8000, 0x7F7F8000, 0x00008000,
            0x00018000, 0x7FC12345, 0xFFBFFFFF, 0x00000001]),
])
x = (rng.standard_normal(N) * np.exp2(rng.integers(-16, 17, N))).astype(np.float32)
y = (rng.standard_normal(N) * 4).astype(np.float32)
z = (rng.standard_normal(N) * np.exp2(rng.integers(-8, 9, N))).astype(np.float32)
x[: len(spec)] = spec
y[len(spec): 2 * len(spec)] = spec           # specials as the second operand too
z[2 * len(spec): 3 * len(spec)] = spec
y[:8] = [1.0, 0.0, -np.inf, np.nan, 2.0, -0.0, np.nan, 65504.0]
for name, arr in dict(x=x, y=y, z=z).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
